"""style.save: the PNG at the asked resolution, the PDF only when asked, and one draw of the
figure for the PNG (the layout's text measures reused, no throwaway draw)."""

import struct

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from seprank.figures.style import SINGLE, save  # noqa: E402


def _png_size(path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def _figure():
    fig, ax = plt.subplots(figsize=(SINGLE, 2.0))
    ax.plot([1, 2, 3], [1, 4, 9], "o-", label="$d_x=2$")
    ax.set_xlabel("depth $L$")
    ax.legend()
    return fig


def test_png_at_the_asked_dpi_and_the_pdf_only_when_asked(tmp_path):
    before = set(plt.get_fignums())  # figures other tests left open are not this one's
    save(_figure(), tmp_path, "a", pdf=False, dpi=120)
    assert _png_size(tmp_path / "a.png") == (round(SINGLE * 120), 240)
    assert not (tmp_path / "a.pdf").exists()
    save(_figure(), tmp_path, "b")  # the default: 300 dpi PNG and the PDF
    assert _png_size(tmp_path / "b.png") == (round(SINGLE * 300), 600)
    assert (tmp_path / "b.pdf").read_bytes()[:5] == b"%PDF-"
    assert set(plt.get_fignums()) == before  # both closed


def test_the_png_is_drawn_once(tmp_path, monkeypatch):
    draws = []
    draw = matplotlib.figure.Figure.draw

    def counted(self, renderer):
        draws.append(renderer)
        return draw(self, renderer)

    monkeypatch.setattr(matplotlib.figure.Figure, "draw", counted)
    save(_figure(), tmp_path, "c", pdf=False)
    assert len(draws) == 1

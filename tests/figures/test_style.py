"""style.save: the PNG at the asked resolution, the PDF only when asked, and one draw of the
figure for the PNG (the layout's text measures reused, no throwaway draw); its fast PNG writer."""

import struct

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

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


def test_the_fast_png_has_matplotlibs_pixels_dpi_and_metadata(tmp_path):
    """save(compress_level=1) writes seprank's PNG (one draw, rows unfiltered, RGB when
    opaque): decoded, the same pixels, dpi and Software text as matplotlib's own writer."""
    import numpy as np
    from PIL import Image

    save(_figure(), tmp_path, "mpl", pdf=False, dpi=150)
    save(_figure(), tmp_path, "fast", pdf=False, dpi=150, compress_level=1)
    a, b = Image.open(tmp_path / "mpl.png"), Image.open(tmp_path / "fast.png")
    assert b.mode == "RGB" and a.size == b.size == (round(SINGLE * 150), 300)
    assert np.array_equal(np.asarray(a.convert("RGBA")), np.asarray(b.convert("RGBA")))
    assert b.info["Software"] == a.info["Software"]
    assert b.info["dpi"] == pytest.approx(a.info["dpi"])
    assert b.info["dpi"] == pytest.approx((150, 150), rel=1e-3)


def test_the_fast_png_keeps_alpha_where_a_pixel_is_not_opaque():
    import io

    import numpy as np
    from PIL import Image

    from seprank.figures.style import _png_bytes

    rng = np.random.default_rng(0)
    px = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    for alpha, mode in ((None, "RGBA"), (255, "RGB")):
        if alpha is not None:
            px[..., 3] = alpha
        for level in (0, 1, 9):
            im = Image.open(io.BytesIO(_png_bytes(px, 72, level, text={"k": "v"})))
            assert im.mode == mode and im.info["k"] == "v"
            assert np.array_equal(np.asarray(im.convert("RGBA")), px)
    for bad in (px[..., :3], px[:0], px.astype(np.int16)):
        with pytest.raises(ValueError, match="rgba"):
            _png_bytes(bad, 72)


def test_the_fast_png_is_drawn_once(tmp_path, monkeypatch):
    draws = []
    draw = matplotlib.figure.Figure.draw

    def counted(self, renderer):
        draws.append(renderer)
        return draw(self, renderer)

    monkeypatch.setattr(matplotlib.figure.Figure, "draw", counted)
    save(_figure(), tmp_path, "d", pdf=False, compress_level=1)
    assert len(draws) == 1


def test_the_fast_png_leaves_a_tight_bbox_to_matplotlibs_writer(tmp_path):
    """With savefig.bbox: tight (a user's matplotlibrc) the PNG is cropped as savefig crops
    it, by matplotlib's writer: the same size and pixels as without compress_level."""
    import numpy as np
    from PIL import Image

    with matplotlib.rc_context({"savefig.bbox": "tight"}):
        save(_figure(), tmp_path, "t1", pdf=False, dpi=100, compress_level=1)
        save(_figure(), tmp_path, "t0", pdf=False, dpi=100)
    a, b = Image.open(tmp_path / "t0.png"), Image.open(tmp_path / "t1.png")
    assert a.size == b.size != (round(SINGLE * 100), 200)
    assert np.array_equal(np.asarray(a), np.asarray(b))

"""The study's figure (seprank.figures.study): filled markers exactly where the rank is exact
or saturated, the three panels drawn into given Axes, and write(): the PNG at DPI, the PDF
only when asked. Drawn from the committed heads study (no measuring)."""

import struct
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seprank.figures import study as plot_study  # noqa: E402
from seprank.figures.style import DOUBLE  # noqa: E402
from seprank.studies.study import from_csv  # noqa: E402

CSV = Path(__file__).resolve().parents[2] / "paper_figures" / "heads_study" / "study.csv"


@pytest.fixture(scope="module")
def heads():
    return from_csv(CSV, "depth", "width")


def _markers(ax) -> tuple[int, int]:
    """(filled, hollow) marker points drawn in ``ax`` (lines with a marker, no line style)."""
    filled = hollow = 0
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "", " ") or line.get_linestyle() != "None":
            continue
        n = len(line.get_xdata())
        if matplotlib.colors.same_color(line.get_markerfacecolor(), "white"):
            hollow += n
        else:
            filled += n
    return filled, hollow


def test_filled_exactly_where_the_rank_is_exact_or_saturated(heads):
    fig = plot_study.plot(heads)
    ranked = [r for r in heads.rows if r.get("rank")]
    settled = sum(r.get("kind") in ("exact", "saturated") for r in ranked)
    assert _markers(fig.axes[0]) == (settled, len(ranked) - settled)
    assert 0 < settled < len(ranked)  # the committed study has both kinds
    plt.close(fig)


def test_draws_into_given_axes(heads):
    fig, axes = plt.subplots(1, 3)
    assert plot_study.plot(heads, ax=axes) is fig
    assert all(a.has_data() for a in axes)
    plt.close(fig)


def _png_width(path) -> int:
    return struct.unpack(">I", path.read_bytes()[16:20])[0]


def test_write_png_at_its_dpi_and_the_pdf_only_when_asked(heads, tmp_path):
    files = plot_study.write(heads, tmp_path)
    assert files == [tmp_path / "study.png"] and not (tmp_path / "study.pdf").exists()
    assert _png_width(files[0]) == round(DOUBLE * plot_study.DPI)
    files = plot_study.write(heads, tmp_path, pdf=True)
    assert files[1] == tmp_path / "study.pdf"
    assert files[1].read_bytes()[:5] == b"%PDF-"

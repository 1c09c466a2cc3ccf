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


def _drawn_texts(fig) -> list:
    """The texts a draw shows: tick labels only at ticks inside their axis' view (matplotlib
    keeps, but does not draw, the others)."""
    ticks, shown = set(), []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.add(id(tick.label1))
                ticks.add(id(tick.label2))
                eps = 1e-9 * max(1.0, abs(hi - lo))
                if lo - eps <= tick.get_loc() <= hi + eps:
                    shown += [t for t in (tick.label1, tick.label2)
                              if t.get_visible() and t.get_text()]  # fmt: skip
    other = [t for t in fig.findobj(matplotlib.text.Text)
             if id(t) not in ticks and t.get_visible() and t.get_text()]  # fmt: skip
    return shown + other


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("rows, as_written", [(None, True), (4, True), (None, False)])
def test_the_laid_out_figure_keeps_every_text_inside_and_apart(heads, rows, as_written):
    """Laid out as write() does (plot_study.layout at the PNG's dpi), every label, tick
    label, title and legend stays inside the figure, and no panel's text runs into another
    panel (the heads study, and a study with fewer series); without the layout it fails."""
    import dataclasses

    study = heads if rows is None else dataclasses.replace(heads, rows=[
        r for r in heads.rows if r["values"]["width"] in (2, 3)
        and r["values"].get("heads") == 1])  # fmt: skip
    fig = plot_study.plot(study)  # laid out at the screen's dpi (a notebook shows it so)
    if as_written:
        fig.set_dpi(plot_study.DPI)
        plot_study.layout(fig)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    box = fig.bbox
    panels = fig.axes[:3]
    texts = _drawn_texts(fig)
    assert len(texts) > 20
    for t in texts:
        e = t.get_window_extent(r)
        assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 \
            and e.y1 <= box.y1 + 1, t.get_text()  # fmt: skip
    for i, ax in enumerate(panels):  # a panel's y label and tick labels clear the one left
        mine = [ax.yaxis.label] + [t for t in texts if t in ax.get_yticklabels()]
        for other in panels[:i]:
            for t in mine:
                assert not _overlaps(t.get_window_extent(r), other.bbox), t.get_text()
    plt.close(fig)


def test_a_study_with_no_step_draws_without_a_singular_axis(heads):
    import warnings

    from seprank.studies.study_result import Study

    lone = [r for r in heads.rows if r["values"]["depth"] == 1][:1]
    s = Study(**{**heads.__dict__, "rows": lone, "steps": []})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "identical low and high ylims" before
        fig = plot_study.plot(s)
    assert fig.axes[1].get_ylim() == (1.0, 3.5)
    plt.close(fig)


def test_the_layout_matches_tight_layouts_panels(heads):
    """The layout measured from the panels' texts places the panels where tight_layout does,
    within 2% of the figure: the same margins, found measuring fewer texts."""
    fig = plot_study._draw(heads)  # not laid out yet (plot() lays it out)
    fig.set_dpi(plot_study.DPI)
    fig.tight_layout(pad=0.4)
    tight = [ax.get_position().bounds for ax in fig.axes[:3]]
    plot_study.layout(fig)
    mine = [ax.get_position().bounds for ax in fig.axes[:3]]
    plt.close(fig)
    for t, m in zip(tight, mine):
        assert all(abs(a - b) < 0.02 for a, b in zip(t[:1] + t[2:3], m[:1] + m[2:3])), (t, m)
        assert abs(t[1] + t[3] - m[1] - m[3]) < 0.02  # the panels' tops

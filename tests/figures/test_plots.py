"""The figure functions: each draws into a given Axes (or sequence of Axes) and returns the
Figure; fig5's float grid exceeds the exact rank; fig7 draws no error bar for one seed; a
width has one colour in every figure. Fast: small hand-made rows, or the committed CSVs."""

import csv
import json
import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from experiments import mixers_compare, mixers_length  # noqa: E402
from seprank.figures import paper, transition, vocab_bottleneck  # noqa: E402
from seprank.figures.style import OKABE_ITO, width_color  # noqa: E402

FIGS = Path(__file__).resolve().parents[2] / "paper_figures"


def _rows(name):
    with (FIGS / name).open() as f:
        return list(csv.DictReader(f))


def _fake_measurer(depth, width, heads, seq_len, *, method="modular", seed=0,
                   max_samples=None, grid=None):
    """Stands in for Measurer: the proved bound as the 'rank' (no measuring)."""
    from types import SimpleNamespace

    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    r = theorem_bound(LinearSelfAttention(depth=depth, width=width, heads=heads,
                                        seq_len=seq_len))["upper"]
    if grid is not None:
        return SimpleNamespace(rank=min(r, grid // 2), spectrum=[1.0, 0.5, 1e-20],
                               tolerance=1e-12, samples=(grid, grid),
                               label="float estimate, untrusted")
    return SimpleNamespace(rank=r, saturated=True, samples=(16, 16))


def _experiment_rows():
    res = [{"budget": 100, "depth": L, "val_loss": 2 + 0.1 * L + 0.01 * s}
           for L in (1, 2) for s in range(3)]
    res += [{"budget": 400, "depth": L, "val_loss": 1.5 + 0.1 * L} for L in (1, 2)]
    return paper.experiment_rows(res)


def _cases():
    """(plot function, rows, number of Axes) for every plot function."""
    trows = _rows("fig8_measured_transition.csv")
    fig4 = paper.heads_rows(quick=True, measurer=_fake_measurer)
    return [
        (paper.plot_rank_vs_depth, paper.rank_vs_depth_rows(True, _fake_measurer, trows), 1),
        (paper.plot_regimes, paper.regimes_rows(widths=(2, 3)), 1),
        (paper.plot_transition, paper.transition_rows(True, _fake_measurer, trows), 1),
        (paper.plot_heads, fig4, 1),
        (paper.plot_float_vs_exact, paper.float_vs_exact_rows(True, _fake_measurer), 2),
        (paper.plot_equal_params, paper.equal_params_rows(budgets=(1e8,)), 3),
        (paper.plot_experiment, _experiment_rows(), 1),
        (paper.plot_block_ranks, paper.block_rows(trows[:6]), 2),
        (paper.plot_verify_grid, _rows("fig12_verify_grid.csv"), 2),
        (paper.plot_heads_bound, paper.heads_bound_rows(fig4, trows), 1),
        (transition.plot, trows, 2),
        (transition.plot_overview, trows, 2),
        (vocab_bottleneck.plot, _rows("fig9_vocab_bottleneck.csv"), 2),
        (mixers_compare.plot_compare, _rows("mixers_compare.csv"), 4),
        (mixers_compare.plot_params, _rows("mixers_compare.csv"), 2),
        (mixers_length.plot_length, _rows("mixers_length.csv"), 2),
    ]


@pytest.fixture(scope="module")
def cases():
    return _cases()


def test_every_plot_function_takes_ax_and_returns_the_figure(cases):
    for fn, rows, n in cases:
        fig, axes = plt.subplots(1, n)
        got = fn(rows, ax=axes if n > 1 else axes)
        assert got is fig, fn.__name__
        drawn = axes if n > 1 else [axes]
        assert all(a.has_data() for a in drawn), fn.__name__
        plt.close(fig)
        new = fn(rows)  # None: a new figure of its own
        assert isinstance(new, matplotlib.figure.Figure) and new is not fig, fn.__name__
        plt.close(new)


def test_wrong_number_of_axes_is_refused():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="2 Axes needed"):
        paper.plot_float_vs_exact([], ax=ax)
    plt.close(fig)


def test_teacher_student_plot_takes_ax():
    pytest.importorskip("numpy")
    from experiments.teacher_student import analysis

    data = [dict(panel="error_vs_rank", student=st, budget=6000, depth=L, target=t,
                 target_rank=R, n=3, median=0.1, mean=0.1, std=0.01, min=0.05, max=0.2)
            for st in ("linear", "softmax") for L in (1, 2)
            for t, R in (("sop-R1", 1.0), ("sop-R4", 4.0), ("teacher-L2", 17.5))]
    fig, axes = plt.subplots(1, 2)
    assert analysis.plot_figure(data, ax=axes) is fig
    plt.close(fig)


def test_fig5_float_grid_exceeds_the_exact_rank():
    """Committed data: the float rank is computed on a grid larger than the exact rank in
    both dimensions, for every row (a grid of 16 would cap the float rank at 16)."""
    rows = _rows("fig5_exact_vs_float.csv")
    assert len(rows) >= 4
    for r in rows:
        e = int(r["exact_rank"])
        assert int(r["float_grid_rows"]) > e and int(r["float_grid_cols"]) > e, r["depth"]
        assert len(json.loads(r["spectrum_s_over_s1"])) == int(r["float_grid_rows"])
    big = max(rows, key=lambda r: int(r["exact_rank"]))
    assert int(big["exact_rank"]) == 861 and int(big["float_rank"]) < 861  # float falls short


def test_fig5_rows_measure_on_a_grid_larger_than_the_exact_rank():
    rows = paper.float_vs_exact_rows(measurer=paper.Measurer(), depths=[1, 2])
    for r in rows:
        assert min(r["float_grid_rows"], r["float_grid_cols"]) > r["exact_rank"]
        assert r["float_grid_rows"] == paper.float_grid_size(r["exact_rank"])
    assert [r["exact_rank"] for r in rows] == [3, 15]


def test_fig7_one_seed_has_no_std_and_no_error_bar():
    rows = _experiment_rows()
    one = [r for r in rows if r["budget"] == 400]
    assert all(r["n_seeds"] == 1 and math.isnan(r["val_loss_std"]) for r in one)
    three = [r for r in rows if r["budget"] == 100]
    assert all(r["n_seeds"] == 3 and r["val_loss_std"] > 0 for r in three)
    fig = paper.plot_experiment(rows)
    bars = [c for c in fig.axes[0].containers if hasattr(c, "has_yerr") and c.has_yerr]
    assert [c.get_label() for c in bars] == ["_errorbar budget=100"]
    assert len(bars[0].lines[2][0].get_segments()) == 2  # one bar per depth of budget 100
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("1 seed" in t for t in labels) and any("3 seeds" in t for t in labels)
    plt.close(fig)


def test_fig7_csv_writes_an_empty_std_for_one_seed(tmp_path):
    p = tmp_path / "f.csv"
    paper.write_csv(p, _experiment_rows(), paper.FIG7_FIELDS)
    rows = list(csv.DictReader(p.open()))
    assert {r["val_loss_std"] for r in rows if r["n_seeds"] == "1"} == {""}
    committed = _rows("fig7_experiment.csv")
    assert all((r["val_loss_std"] == "") == (r["n_seeds"] == "1") for r in committed)


def test_a_width_has_one_colour_in_every_figure(cases):
    """Every artist drawn for a width carries gid 'd_x=<width>' and that width's colour."""
    from matplotlib.colors import to_hex

    seen: dict = {}
    for fn, rows, _ in cases:
        fig = fn(rows)
        for a in fig.axes:
            for art in a.get_children():
                gid = art.get_gid() or ""
                if not gid.startswith("d_x=") or not hasattr(art, "get_color"):
                    continue
                d = int(gid[4:])
                seen.setdefault(d, set()).add(to_hex(art.get_color()))
        plt.close(fig)
    assert {2, 3, 4} <= set(seen)
    for d, colors in seen.items():
        assert colors == {to_hex(width_color(d))}, (d, colors)


def test_width_colours_are_okabe_ito_and_distinct_for_the_small_widths():
    cs = [width_color(d) for d in (2, 3, 4, 5, 6, 8, 10)]
    assert len(set(cs)) == len(cs) and set(cs) <= set(OKABE_ITO.values())


def test_block_rows_bound_each_block_and_show_the_deficit():
    rows = paper.block_rows(_rows("fig8_measured_transition.csv"))
    assert all(int(r["measured_block_rank"]) <= int(r["block_bound"]) for r in rows)
    short = [r for r in rows if r["heads"] == 1 and r["measured_block_rank"] < r["block_bound"]]
    assert [(r["depth"], r["width"], r["seq_len"], r["a_degree"], r["measured_block_rank"],
             r["block_bound"]) for r in short] == [(3, 4, 8, 13, 11436, 11440)]


def test_block_ranks_cell_reads_both_forms():
    assert paper.block_ranks("[[1, 2], [3, 6]]") == [(1, 2), (3, 6)]
    assert paper.block_ranks("1:2 3:6") == [(1, 2), (3, 6)]
    assert paper.block_ranks("") == []
    from seprank.studies.transition import block_ranks_cell

    assert json.loads(block_ranks_cell("1:2 3:6")) == [[1, 2], [3, 6]]
    for r in _rows("fig8_measured_transition.csv"):  # the committed CSV: JSON or empty
        assert r["block_ranks"] == "" or isinstance(json.loads(r["block_ranks"]), list)


def test_figures_are_column_sized_with_fonts_of_at_least_7pt(cases):
    from matplotlib.text import Text

    from seprank.figures.style import DOUBLE, MIN_FONT, SINGLE

    for fn, rows, _ in cases:
        fig = fn(rows)
        assert fig.get_size_inches()[0] in (SINGLE, DOUBLE), fn.__name__
        fig.canvas.draw()
        small = [(t.get_text(), t.get_fontsize()) for t in fig.findobj(Text)
                 if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FONT]
        assert not small, (fn.__name__, small[:3])
        plt.close(fig)


def test_the_front_page_figure_reads_at_11_px_in_the_site_column():
    """fig8_overview (docs/index.md) is drawn DOUBLE wide and shown about 736 px wide (the
    site's column at 1280 px; tests/docs/test_layout_chromium.py measures it): its smallest
    text, outside mathtext's sub- and superscripts, is at least 11 px there."""
    from matplotlib.text import Text

    fig = transition.plot_overview(_rows("fig8_measured_transition.csv"))
    fig.canvas.draw()
    px_per_pt = 736 / (fig.get_size_inches()[0] * 72)
    sizes = {t.get_text(): t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()}
    small = {t: round(s * px_per_pt, 1) for t, s in sizes.items() if s * px_per_pt < 11}
    assert not small, small
    assert sum(1 for a in fig.axes for line in a.get_lines() if line.get_marker() == "o") > 10
    plt.close(fig)


#: ASCII mathematics in a figure's text outside ``$...$`` (what mathtext writes instead).
ASCII_MATH = re.compile(r"d_x|log3|log10|\bGF\(p\)|\b[LHNPr] = \d|\^|<=|>=|sqrt|\bmin\(")


def test_figure_text_writes_its_mathematics_in_mathtext(cases):
    from matplotlib.text import Text

    for fn, rows, _ in cases:
        fig = fn(rows)
        fig.canvas.draw()
        texts = [t.get_text() for t in fig.findobj(Text) if t.get_visible()]
        bad = [t for t in texts if ASCII_MATH.search(re.sub(r"\$[^$]*\$", "", t))]
        assert not bad, (fn.__name__, bad[:3])
        plt.close(fig)


def test_fig4_of_a_narrow_range_has_several_labelled_y_ticks():
    rows = [{"depth": 2, "width": 4, "seq_len": 4, "heads": h, "measured_rank": m,
             "upper_proved": 110} for h, m in ((1, 110), (2, 107), (4, 85))]
    fig = paper.plot_heads(rows)
    ax = fig.axes[0]
    fig.canvas.draw()
    lo, hi = ax.get_ylim()
    shown = [t for t in ax.get_yticklabels() if t.get_text() and lo <= t.get_position()[1] <= hi]
    assert len(shown) >= 3, [t.get_text() for t in shown]
    plt.close(fig)

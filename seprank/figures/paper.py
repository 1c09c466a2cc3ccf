"""The theorem figures. ``make_all(out, quick)`` writes each as PNG + PDF + CSV.

Measured points come from :func:`seprank.measure` (exact modular ranks); lines from the
proved formulas in :mod:`seprank.theory`. Every figure says which is which.

Each figure has three parts, so a notebook can draw one into its own axes:

- ``<name>_rows(...)`` computes (or reads) the figure's data as a list of dicts (the rows
  of its CSV);
- ``plot_<name>(rows, ax=None)`` draws those rows into ``ax`` (an Axes, or a sequence of
  Axes for a multi-panel figure; None makes a new figure) and returns the Figure;
- ``fig_<name>(out, quick, measurer)`` does both and writes PNG, PDF and CSV to ``out``.

>>> from seprank.figures import paper            # doctest: +SKIP
>>> rows = paper.heads_rows(quick=True)          # doctest: +SKIP
>>> fig = paper.plot_heads(rows, ax=my_axes)     # doctest: +SKIP
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from seprank.figures.blocks import (  # noqa: F401 (re-exported)
    FIG11_FIELDS,
    block_rows,
    fig_block_ranks,
    plot_block_ranks,
)
from seprank.figures.budget import (  # noqa: F401 (re-exported)
    FIG6_BUDGETS,
    FIG6_FIELDS,
    budget_asymptote,
    depth_reaching,
    equal_params_rows,
    fig_equal_params,
    plot_equal_params,
)
from seprank.figures.captions import write_readme
from seprank.figures.common import (  # noqa: F401 (re-exported)
    PAPER_FIGURES,
    TRANSITION_CSV,
    Measurer,
    block_ranks,
    read_csv,
    seq_colors,
    transition_csv,
    transition_exact,
    truthy,
    write_csv,
)
from seprank.figures.experiment import (  # noqa: F401 (re-exported)
    FIG7_FIELDS,
    experiment_rows,
    experiment_source,
    fig_experiment,
    plot_experiment,
)
from seprank.figures.float_rank import (  # noqa: F401 (re-exported)
    FIG5_FIELDS,
    fig_float_vs_exact,
    float_grid_size,
    float_vs_exact_rows,
    plot_float_vs_exact,
)
from seprank.figures.heads import (  # noqa: F401 (re-exported)
    FIG4_FIELDS,
    FIG13_FIELDS,
    fig_heads,
    fig_heads_bound,
    heads_bound_rows,
    heads_rows,
    plot_heads,
    plot_heads_bound,
)
from seprank.figures.rank_depth import (  # noqa: F401 (re-exported)
    FIG1_FIELDS,
    REGIME_WIDTHS,
    fig_rank_vs_depth,
    fig_regimes,
    fig_transition,
    plot_rank_vs_depth,
    plot_regimes,
    plot_transition,
    rank_vs_depth_rows,
    regimes_rows,
    transition_rows,
)
from seprank.figures.row_labels import RULES as LABEL_RULES
from seprank.figures.row_labels import relabel_csv
from seprank.figures.style import apply_style
from seprank.figures.verify_grid import (  # noqa: F401 (re-exported)
    FIG12_FIELDS,
    VERIFY_CSV,
    fig_verify_grid,
    plot_verify_grid,
    verify_rows,
    verify_source,
    write_verify_csv,
)
from seprank.studies import transition as tstudy
from seprank.sweeps.store import Store

FIGURES = [fig_rank_vs_depth, fig_regimes, fig_transition, fig_heads, fig_float_vs_exact,
           fig_equal_params, fig_experiment, fig_block_ranks, fig_verify_grid,
           fig_heads_bound]  # fmt: skip

#: The file name (without extension) each figure function writes: ``--only`` takes these.
FIGURE_NAMES = {fig_rank_vs_depth: "fig1_rank_vs_depth", fig_regimes: "fig2_regimes",
                fig_transition: "fig3_transition_depth", fig_heads: "fig4_heads",
                fig_float_vs_exact: "fig5_exact_vs_float", fig_equal_params: "fig6_equal_params",
                fig_experiment: "fig7_experiment", fig_block_ranks: "fig11_block_ranks",
                fig_verify_grid: "fig12_verify_grid",
                fig_heads_bound: "fig13_heads_bound"}  # fmt: skip


def relabel(out: Path | str) -> list[str]:
    """Give every figure CSV in ``out`` its ``label`` column, from each row's own fields.

    Nothing is measured and nothing is drawn: the rows are read and written back with the
    label recomputed (:mod:`seprank.figures.row_labels`); figure 8's CSV through
    :func:`seprank.studies.transition.write` (its growth ratios recomputed from its own
    ranks), figure 12's through :func:`write_verify_csv` (an older ``tight`` column read as
    ``exact_proved``); a figure 13 row's ``saturated`` is copied from the row of figure 4's
    or 8's CSV it was taken from (its ``source``), where that row is there.

    Parameters
    ----------
    out : Path or str
        A figures folder (``paper_figures``).

    Returns
    -------
    list of str
        The CSVs rewritten.
    """
    out, done = Path(out), []
    if (p := out / TRANSITION_CSV).exists():
        tstudy.write(tstudy.read(p), p)
        done.append(p.name)
    if (p := out / VERIFY_CSV).exists():
        write_verify_csv(p, out)
        done.append(p.name)
    for name in sorted(LABEL_RULES):
        p = out / name
        if name == "fig13_heads_bound.csv" and p.exists():
            write_csv(p, _with_source_saturation(out, read_csv(p)), FIG13_FIELDS)
        elif p.exists():
            relabel_csv(p)
        else:
            continue
        done.append(name)
    return done


def _with_source_saturation(out: Path, rows: list[dict]) -> list[dict]:
    """Figure 13's rows, each with ``saturated`` as its source row (figure 4 or 8) records
    it (kept if the row has one; empty where the source row is not found) and no label."""
    key = ("depth", "width", "seq_len", "heads")
    src = {}
    for name in ("fig4_heads.csv", TRANSITION_CSV):
        for r in read_csv(out / name) if (out / name).exists() else []:
            src.setdefault(name, {})[tuple(int(r[k]) for k in key)] = r["saturated"]
    names = {"fig4": "fig4_heads.csv"}
    return [{**r, "label": "", "saturated": r.get("saturated") or src.get(
        names.get(r["source"], r["source"]), {}).get(tuple(int(r[k]) for k in key), "")}
        for r in rows]  # fmt: skip


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def make_all(out: Path, quick: bool = False, db: Path | str | None = None,
             say=None, only=None) -> list[str]:
    """Write every figure to ``out`` (PNG, PDF, CSV) and a README with captions.

    Parameters
    ----------
    out : Path
        The folder.
    quick : bool
        Fewer measured points.
    db : Path, str or None
        A result store: exact measurements are read from it where stored and stored as
        they finish (:class:`Measurer`); None measures inline.
    say : callable, optional
        Receives one line per figure with its time (default: print to stderr; the CLI
        passes a no-op with ``--quiet``).
    only : iterable of str, optional
        Write only these figures (names of :data:`FIGURE_NAMES`, e.g.
        ``"fig4_heads"``) and no README; None writes every figure and the README.

    Returns
    -------
    list of str
        The names of the figure functions run.
    """
    import matplotlib

    matplotlib.use("Agg")
    apply_style()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    done = []
    from contextlib import nullcontext

    with Store(db) if db is not None else nullcontext() as store:
        m = Measurer(store)
        for f in FIGURES:
            if only is not None and FIGURE_NAMES[f] not in set(only):
                continue
            t = time.perf_counter()
            f(out, quick, m)
            (say or _stderr)(f"{f.__name__}: {time.perf_counter() - t:.1f}s")
            done.append(f.__name__)

    if only is None:
        write_readme(out, quick)
    return done


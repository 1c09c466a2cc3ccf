"""The theorem figures. ``make_all(out, quick)`` writes each as PNG + PDF + CSV.

Measured points come from :func:`seprank.measure` (exact modular ranks); lines from the
proved formulas in :mod:`seprank.theory`. Every figure says which is which.

Each figure has three parts, so a notebook can draw one into its own axes:

- ``<name>_rows(...)`` computes (or reads) the figure's data as a list of dicts (the rows
  of its CSV);
- ``plot_<name>(rows, ax=None)`` draws those rows into ``ax`` (an Axes, or a sequence of
  Axes for a multi-panel figure; None makes a new figure) and returns the Figure;

and one entry in :data:`FIGURES`, the table of ``seprank figures`` (name, where its rows
come from, its drawing, its CSV's columns, its caption): :func:`write_figure` writes any
of them as PNG, PDF and CSV.

>>> from seprank.figures import paper            # doctest: +SKIP
>>> rows = paper.heads_rows(quick=True)          # doctest: +SKIP
>>> fig = paper.plot_heads(rows, ax=my_axes)     # doctest: +SKIP
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from seprank.figures.blocks import (  # noqa: F401 (re-exported)
    FIG11_FIELDS,
    block_rows,
    plot_block_ranks,
)
from seprank.figures.budget import (  # noqa: F401 (re-exported)
    FIG6_BUDGETS,
    FIG6_FIELDS,
    budget_asymptote,
    depth_reaching,
    equal_params_rows,
    plot_equal_params,
)
from seprank.figures.captions import CAPTIONS, write_readme
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
    plot_experiment,
)
from seprank.figures.float_rank import (  # noqa: F401 (re-exported)
    FIG5_FIELDS,
    float_grid_size,
    float_vs_exact_rows,
    plot_float_vs_exact,
)
from seprank.figures.heads import (  # noqa: F401 (re-exported)
    FIG4_FIELDS,
    FIG13_FIELDS,
    heads_bound_rows,
    heads_rows,
    plot_heads,
    plot_heads_bound,
)
from seprank.figures.rank_depth import (  # noqa: F401 (re-exported)
    FIG1_FIELDS,
    FIG2_FIELDS,
    FIG3_FIELDS,
    REGIME_WIDTHS,
    plot_rank_vs_depth,
    plot_regimes,
    plot_transition,
    rank_vs_depth_rows,
    regimes_rows,
    transition_rows,
)
from seprank.figures.row_labels import RULES as LABEL_RULES
from seprank.figures.row_labels import relabel_csv
from seprank.figures.style import apply_style, save
from seprank.figures.verify_grid import (  # noqa: F401 (re-exported)
    FIG12_FIELDS,
    VERIFY_CSV,
    plot_verify_grid,
    verify_rows,
    verify_source,
    write_verify_csv,
)
from seprank.paths import write_text
from seprank.studies import transition as tstudy
from seprank.sweeps.store import Store


@dataclass(frozen=True, eq=False)  # hashed by identity: the keys of FIGURE_NAMES
class Figure:
    """One figure of ``seprank figures``: a row of :data:`FIGURES`.

    Parameters
    ----------
    name : str
        The files' stem (``fig4_heads``: .png, .pdf, .csv), what ``--only`` takes.
    rows : callable
        ``rows(out, quick, measurer)``: its rows, measured, computed, or read from the
        inputs in ``out`` or the committed ones; None when an input is missing (nothing
        is written).
    plot : callable
        ``plot(rows)``: the drawing (a matplotlib Figure).
    fields : sequence of str
        Its CSV's columns.
    rewrites_csv : bool, default True
        False: a CSV of its name already in ``out`` is its input, read, not written back.
    """

    name: str
    rows: Callable
    plot: Callable
    fields: tuple
    rewrites_csv: bool = True

    @property
    def caption(self) -> str:
        """The caption of paper_figures/README.md (:data:`seprank.figures.captions.CAPTIONS`)."""
        return CAPTIONS[self.name]


def _transition_rows(out) -> list[dict]:
    return read_csv(p) if (p := transition_csv(out)) else []


def _experiment_input(out, quick, measurer):
    """Figure 7's rows from the experiment's results.csv; without one, a MISSING note."""
    src = experiment_source()
    if src is None:
        msg = ("figure 7 skipped: no experiment output; make it with "
               "`python -m experiments.depth_width.run --preset cpu --out "
               "experiments/depth_width/results` (in a checkout)")
        print(msg, file=sys.stderr)
        write_text(Path(out) / "fig7_experiment.MISSING.txt", msg + "\n")
        return None
    return experiment_rows(read_csv(src))


def _heads_bound_input(out, quick, measurer):
    """Figure 13's rows: this run's figure 4 CSV (else the committed one) and the
    transition CSV's exact rows."""
    own = Path(out) / "fig4_heads.csv"
    fig4 = read_csv(own if own.exists() else PAPER_FIGURES / "fig4_heads.csv")
    return heads_bound_rows(fig4, transition_exact(_transition_rows(out)))


def _read_input(source, make):
    """Rows ``make(read_csv(p))`` of the input ``source(out)`` finds (None: missing)."""
    return lambda out, quick, measurer: make(read_csv(p)) if (p := source(out)) else None


#: The figures ``seprank figures`` writes, in order (figure 13 after figure 4, whose CSV
#: it reads): name (the files' stem, what ``--only`` takes), rows, drawing, CSV columns.
FIGURES = {f.name: f for f in (
    Figure("fig1_rank_vs_depth", lambda out, quick, m: rank_vs_depth_rows(
        quick, m, _transition_rows(out)), plot_rank_vs_depth, FIG1_FIELDS),
    Figure("fig2_regimes", lambda out, quick, m: regimes_rows(), plot_regimes, FIG2_FIELDS),
    Figure("fig3_transition_depth", lambda out, quick, m: transition_rows(
        quick, m, _transition_rows(out)), plot_transition, FIG3_FIELDS),
    Figure("fig4_heads", lambda out, quick, m: heads_rows(quick, m), plot_heads, FIG4_FIELDS),
    Figure("fig5_exact_vs_float", lambda out, quick, m: float_vs_exact_rows(quick, m),
           plot_float_vs_exact, FIG5_FIELDS),
    Figure("fig6_equal_params", lambda out, quick, m: equal_params_rows(), plot_equal_params,
           FIG6_FIELDS),
    Figure("fig7_experiment", _experiment_input, plot_experiment, FIG7_FIELDS),
    Figure("fig11_block_ranks", _read_input(transition_csv, block_rows), plot_block_ranks,
           FIG11_FIELDS),
    Figure("fig12_verify_grid", _read_input(verify_source, verify_rows), plot_verify_grid,
           FIG12_FIELDS, rewrites_csv=False),
    Figure("fig13_heads_bound", _heads_bound_input, plot_heads_bound, FIG13_FIELDS),
)}

#: Each figure's file name, what ``--only`` takes (``FIGURE_NAMES.values()``).
FIGURE_NAMES = {f: name for name, f in FIGURES.items()}


def write_figure(name: str, out: Path | str, quick: bool = False, measurer=None):
    """Write one figure of :data:`FIGURES` to ``out``: PNG, PDF and its CSV.

    Parameters
    ----------
    name : str
        Its name, e.g. ``"fig4_heads"``.
    out : Path or str
        The folder (it must exist).
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows (None when its input is missing: nothing drawn).
    """
    fig, out = FIGURES[name], Path(out)
    rows = fig.rows(out, quick, measurer)
    if rows is None:
        return None
    csv = out / f"{name}.csv"
    keep = not fig.rewrites_csv and csv.exists()  # read from there: not written back
    save(fig.plot(rows), out, name)
    if not keep:
        write_csv(csv, rows, fig.fields)
    return rows


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
        for r in rows]


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
        Write only these figures (names of :data:`FIGURES`, e.g. ``"fig4_heads"``) and no
        README; None writes every figure and the README.

    Returns
    -------
    list of str
        The names of the figures written (:data:`FIGURES`' order).
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
        for name in FIGURES:
            if only is not None and name not in set(only):
                continue
            t = time.perf_counter()
            write_figure(name, out, quick, m)
            (say or _stderr)(f"{name}: {time.perf_counter() - t:.1f}s")
            done.append(name)

    if only is None:
        write_readme(out, quick)
    return done


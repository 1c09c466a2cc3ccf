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

import csv
import json
import math
import sys
import time
from pathlib import Path

from seprank.engine.measure import measure
from seprank.engine.options import MeasureOptions
from seprank.errors import SeprankError
from seprank.figures.captions import write_readme
from seprank.figures.style import DOUBLE, GREY, SINGLE, apply_style, new_axes, save, width_color
from seprank.nets import LinearSelfAttention, head_counts
from seprank.sweeps import tasks as sweep_tasks
from seprank.sweeps.store import Store
from seprank.theory.bounds import (
    block_bound,
    block_terms,
    generic_block_bound_log10,
    matrix_degree,
    upper_bound,
)
from seprank.theory.guidelines import fit_optimal_shape
from seprank.theory.regimes import (
    GROWTH_THRESHOLD,
    doubled_transition_depth,
    expressivity_optimal_depth,
    formula_growth_ratio,
    formula_transition_depth,
    growth_ratios,
    paper_optimal_depth,
    paper_transition_depth,
    transition_from_ratios,
    width_at_budget,
)

#: The committed figures (data a figure reads when its own output folder lacks it).
PAPER_FIGURES = Path(__file__).resolve().parents[2] / "paper_figures"
TRANSITION_CSV = "fig8_measured_transition.csv"


def _write_csv(path: Path, rows: list[dict], fields: list[str]) -> None:
    def fmt(v):
        if isinstance(v, float) and math.isnan(v):
            return ""
        return v

    with Path(path).open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows({k: fmt(r.get(k, "")) for k in fields} for r in rows)


def _read_csv(path: Path) -> list[dict]:
    with Path(path).open(newline="") as f:
        return list(csv.DictReader(f))


def _truthy(v) -> bool:
    return v is True or str(v) == "True"


def _seq_colors(n: int) -> list:
    """n colours of the cividis map (colour-blind safe) for an ordered quantity that is not
    a width (depth, budget, embedding rank): never confused with :func:`width_color`."""
    import matplotlib

    cmap = matplotlib.colormaps["cividis"]
    return [cmap(0.85 * i / max(1, n - 1)) for i in range(n)]


def transition_csv(out: Path | str | None = None) -> Path | None:
    """The measured-transition CSV (figure 8) a figure reads.

    Parameters
    ----------
    out : Path, str or None
        A figures folder; its ``fig8_measured_transition.csv`` is used if it exists.

    Returns
    -------
    Path or None
        That file, else the committed one in paper_figures/, else None.
    """
    for p in ([Path(out) / TRANSITION_CSV] if out is not None else []) + \
            [PAPER_FIGURES / TRANSITION_CSV]:  # fmt: skip
        if p.exists():
            return p
    return None


def block_ranks(cell) -> list[tuple[int, int]]:
    """The (A-degree, measured rank) pairs of a transition CSV's ``block_ranks`` cell.

    Parameters
    ----------
    cell : str or list
        A JSON list of [A-degree, rank] pairs (the current form), the older
        space-separated ``degree:rank`` form, or empty (not recorded).

    Returns
    -------
    list of (int, int)
        The pairs, A-degree ascending; empty when not recorded.
    """
    if isinstance(cell, list):
        pairs = cell
    elif not cell or not str(cell).strip():
        return []
    elif str(cell).lstrip().startswith("["):
        pairs = json.loads(cell)
    else:
        pairs = [tuple(x.split(":")) for x in str(cell).split()]
    return sorted((int(g), int(r)) for g, r in pairs)


class Measurer:
    """The figures' measurements: exact (modular) ones through the result store ``store``
    (a :class:`seprank.sweeps.store.Store`, or None: measure inline), so a rerun of the figures
    measures nothing already stored; float ones inline (the figure needs their spectrum,
    which the store does not keep)."""

    def __init__(self, store=None):
        self.store = store

    def __call__(self, depth, width, heads, seq_len, *, method="modular", seed=0,
                 max_samples=None, grid=None):  # fmt: skip
        """Measure one network.

        Parameters
        ----------
        depth, width, heads, seq_len : int
            The LinearSelfAttention network.
        method : str
            ``"modular"`` (through the store) or ``"float"`` (inline).
        seed : int
        max_samples : int or None
            The adaptive loop's budget.
        grid : int or None
            A fixed ``grid x grid`` sample with no adaptive stop (for ``"float"``).

        Returns
        -------
        Measurement or SimpleNamespace
            With ``rank``, ``saturated``, ``samples`` (and ``spectrum``, ``tolerance``
            for float).
        """
        net = LinearSelfAttention(depth=depth, width=width, heads=heads, seq_len=seq_len)
        if grid is not None:  # the float engine on a fixed grid (no adaptive stop)
            return measure(net, options=MeasureOptions(method=method, seed=seed, start=grid,
                                                       max_samples=grid))  # fmt: skip
        if self.store is None or method != "modular":
            return measure(net, method=method, seed=seed, max_samples=max_samples)
        from types import SimpleNamespace

        spec = sweep_tasks.spec_for_net("measure", net, method="modular", seed=seed,
                                        max_samples=max_samples, grid="figures")  # fmt: skip
        r = self.store.get(spec["key"])
        if r is None or r["status"] != "done":
            r = sweep_tasks.run_task(spec)
            self.store.put(spec, r)
            if r["status"] != "done":
                raise SeprankError(f"figures: depth={depth} width={width} heads={heads} "
                                   f"seq_len={seq_len}: {r['error']}")  # fmt: skip
        return SimpleNamespace(**r["measurement"])


def _transition_exact(trows) -> list[dict]:
    """Transition CSV rows whose measured rank is exact (proved or saturated)."""
    return [r for r in trows if _truthy(r["exact_proved"]) or _truthy(r["saturated"])]


# --------------------------------------------------------------------------- figure 1
FIG1_FIELDS = ["width", "depth", "measured_rank", "saturated", "exact_proved",
               "log10_formula", "source"]  # fmt: skip


def rank_vs_depth_rows(quick: bool = False, measurer=None, transition_rows=None) -> list[dict]:
    """Figure 1's data: measured exact ranks (H = 1, N = 2 d_x) per width and depth.

    Parameters
    ----------
    quick : bool
        Measure up to a proved bound of 400 instead of 3200.
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).
    transition_rows : list of dict or None
        Rows of the transition CSV (figure 8); its exact H = 1, N = 2 d_x rows add the
        depths the figures' own budget does not reach (to L = 5 for d_x = 2).

    Returns
    -------
    list of dict
        One row per (width, depth): ``measured_rank``, ``saturated``, ``exact_proved``
        (measured = proved bound), ``log10_formula`` (proved) and ``source``.
    """
    _m = measurer or Measurer()
    budget = 400 if quick else 3200
    rows = {}
    for d in range(2, 7):
        for L in range(1, 7):
            bound = block_bound(L, d, d, d)
            if bound > budget:
                break
            m = _m(L, d, 1, 2 * d)
            rows[(d, L)] = {"width": d, "depth": L, "measured_rank": m.rank,
                            "saturated": bool(m.saturated), "exact_proved": m.rank == bound,
                            "log10_formula": round(generic_block_bound_log10(L, d), 6),
                            "source": "seprank figures"}  # fmt: skip
    for r in _transition_exact(transition_rows or []):
        d, L = int(r["width"]), int(r["depth"])
        if int(r["heads"]) != 1 or int(r["seq_len"]) != 2 * d or (d, L) in rows:
            continue
        rows[(d, L)] = {"width": d, "depth": L, "measured_rank": int(r["measured"]),
                        "saturated": _truthy(r["saturated"]),
                        "exact_proved": _truthy(r["exact_proved"]),
                        "log10_formula": round(generic_block_bound_log10(L, d), 6),
                        "source": TRANSITION_CSV}  # fmt: skip
    return [rows[k] for k in sorted(rows)]


def plot_rank_vs_depth(rows, ax=None, widths=range(2, 7), depths=range(1, 6)):
    """Draw figure 1: log10 separation rank against depth, measured and proved.

    Parameters
    ----------
    rows : list of dict
        :func:`rank_vs_depth_rows` (or the rows of its CSV).
    ax : matplotlib Axes or None
        Where to draw; None makes a single-column figure.
    widths, depths : iterable of int
        The widths whose proved formula is drawn, and its depths.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, size=(SINGLE, 2.9))
    depths = list(depths)
    top = 0.0
    for d in widths:
        c = width_color(d)
        form = [generic_block_bound_log10(L, d) for L in depths]
        top = max(top, max(form))
        ax.plot(depths, form, "-", color=c, lw=1, gid=f"d_x={d}", label=f"d_x = {d}")
        ax.plot(depths, [form[0] * 3 ** (L - depths[0]) for L in depths], ":", color=c,
                lw=0.9, gid=f"d_x={d}")  # fmt: skip
        pts = [r for r in rows if int(r["width"]) == d]
        for r in pts:
            top = max(top, math.log10(int(r["measured_rank"])))
        ax.plot([int(r["depth"]) for r in pts], [math.log10(int(r["measured_rank"]))
                for r in pts], "o", color=c, mec="black", mew=0.6, ls="none",
                gid=f"d_x={d}")  # fmt: skip
    from matplotlib.lines import Line2D

    leg1 = ax.legend(loc="upper left", title="H = 1, N = 2 d_x", ncol=1)
    ax.add_artist(leg1)
    exact = all(str(r.get("exact_proved")) == "True" for r in rows)
    ax.legend(handles=[Line2D([], [], color="k", marker="o", mec="black", ls="none",
                              label="measured (GF(p)) = proved bound: exact" if exact
                              else "measured (GF(p))"),
                       Line2D([], [], color="k", ls="-", lw=1, label="proved block formula"),
                       Line2D([], [], color="k", ls=":", lw=0.9,
                              label="3^L shape from L = 1")],
              loc="upper left", bbox_to_anchor=(0.0, 0.6))  # fmt: skip
    ax.set_ylim(0, 1.05 * top)
    ax.set_xticks(depths)
    ax.set_xlabel("depth L (layers)")
    ax.set_ylabel("log10 separation rank")
    return fig


def fig_rank_vs_depth(out: Path, quick: bool, measurer=None):
    """Write figure 1 (PNG, PDF, CSV) to ``out``.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows.
    """
    trows = _read_csv(p) if (p := transition_csv(out)) else []
    rows = rank_vs_depth_rows(quick, measurer, trows)
    save(plot_rank_vs_depth(rows), out, "fig1_rank_vs_depth")
    _write_csv(out / "fig1_rank_vs_depth.csv", rows, FIG1_FIELDS)
    return rows


# --------------------------------------------------------------------------- figure 2
REGIME_WIDTHS = (2, 3, 4, 6, 10, 100)


def regimes_rows(widths=REGIME_WIDTHS, x_max: float = 5.0) -> list[dict]:
    """Figure 2's data: the H = 1 formula's growth ratio per width and depth (proved).

    Parameters
    ----------
    widths : iterable of int
    x_max : float
        Depths up to ``x_max * log3 d_x`` (and at least 4).

    Returns
    -------
    list of dict
        ``width``, ``depth``, ``depth_over_log3_width`` and ``growth_ratio_formula``.
    """
    rows = []
    for d in widths:
        t = paper_transition_depth(d)
        for L in range(1, max(4, math.ceil(x_max * t)) + 1):
            rows.append({"width": d, "depth": L, "depth_over_log3_width": L / t,
                         "growth_ratio_formula": formula_growth_ratio(L, d)})  # fmt: skip
    return rows


def plot_regimes(rows, ax=None):
    """Draw figure 2: growth ratio of the formula against L / log3 d_x.

    Parameters
    ----------
    rows : list of dict
        :func:`regimes_rows`.
    ax : matplotlib Axes or None
        Where to draw; None makes a single-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, size=(SINGLE, 3.1))
    for d in sorted({int(r["width"]) for r in rows}):
        pts = sorted((float(r["depth_over_log3_width"]), float(r["growth_ratio_formula"]))
                     for r in rows if int(r["width"]) == d)  # fmt: skip
        ax.plot(*zip(*pts), "-o", ms=2.5, color=width_color(d), gid=f"d_x={d}",
                label=f"d_x = {d}", mec="black" if d == 100 else None, mew=0.3)
    ax.axhline(3, color=GREY, lw=0.8)
    ax.axhline(GROWTH_THRESHOLD, color=GREY, lw=0.8, ls="-.")
    ax.axvline(1, color="black", lw=0.8, ls="--")
    ax.axvline(2, color="black", lw=0.8, ls=":")
    ax.text(1.03, 3.25, "L = log3 d_x (paper)", fontsize=7, va="top")
    ax.text(2.03, 2.95, "L = 2 log3 d_x", fontsize=7, va="top")
    ax.text(4.95, 2.98, "ratio 3", fontsize=7, ha="right", va="top", color=GREY)
    ax.text(4.95, 2.02, "ratio 2", fontsize=7, ha="right", va="bottom", color=GREY)
    ax.set_xlim(0, 5)
    ax.set_ylim(1, 3.3)
    ax.set_xlabel("L / log3 d_x")
    ax.set_ylabel("log sep(L+1) / log sep(L)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3,
              title="H = 1 block formula (proved)", columnspacing=0.8,
              handlelength=1.5)  # fmt: skip
    return fig


def fig_regimes(out: Path, quick: bool, measurer=None):
    """Write figure 2 (PNG, PDF, CSV) to ``out``.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows.
    """
    rows = regimes_rows()
    save(plot_regimes(rows), out, "fig2_regimes")
    _write_csv(out / "fig2_regimes.csv", rows, ["width", "depth", "growth_ratio_formula",
                                                 "depth_over_log3_width"])  # fmt: skip
    return rows


# --------------------------------------------------------------------------- figure 3
def transition_rows(quick: bool = False, measurer=None, transition_rows=None) -> list[dict]:
    """Figure 3's data: the transition depth against the width, by rule and measured.

    Parameters
    ----------
    quick : bool
        Fewer measured cases and a smaller budget.
    measurer : Measurer or None
    transition_rows : list of dict or None
        Rows of the transition CSV; their exact ranks add depths to the measured series.

    Returns
    -------
    list of dict
        ``source`` (``paper`` log3 d_x, ``doubled`` 2 log3 d_x, ``formula`` the H = 1 block
        formula, ``measured``), ``width``, ``heads``, ``transition_depth`` (empty where
        the measured ratios never cross 2), ``depths_measured``.
    """
    _m = measurer or Measurer()
    ws = sorted({int(round(10 ** (k / 4))) for k in range(1, 17)} | {2, 3})
    rows = []
    for w in ws:
        rows += [{"source": "paper", "width": w, "heads": 1,
                  "transition_depth": paper_transition_depth(w)},
                 {"source": "doubled", "width": w, "heads": 1,
                  "transition_depth": doubled_transition_depth(w)},
                 {"source": "formula", "width": w, "heads": 1,
                  "transition_depth": formula_transition_depth(w)}]  # fmt: skip
    cases = [(2, 1), (2, 2), (3, 1), (3, 3)] if quick else [(2, 1), (2, 2), (3, 1), (3, 3),
                                                             (4, 2), (4, 4)]  # fmt: skip
    extra = _transition_exact(transition_rows or [])
    for w, H in cases:
        logs = {}
        for L in range(1, 5):
            if block_bound(L, w, w, w) > (600 if quick else 3200):
                break
            logs[L] = math.log(_m(L, w, H, 2 * w).rank)
        for r in extra:
            if (int(r["width"]), int(r["heads"]), int(r["seq_len"])) == (w, H, 2 * w):
                logs.setdefault(int(r["depth"]), math.log(int(r["measured"])))
        t = transition_from_ratios(growth_ratios(logs))
        rows.append({"source": "measured", "width": w, "heads": H,
                     "transition_depth": "" if t is None else t,
                     "depths_measured": " ".join(map(str, sorted(logs)))})  # fmt: skip
    return rows


def plot_transition(rows, ax=None):
    """Draw figure 3: transition depth against width.

    Parameters
    ----------
    rows : list of dict
        :func:`transition_rows`.
    ax : matplotlib Axes or None
        Where to draw; None makes a single-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, size=(SINGLE, 2.7))
    styles = {"paper": ("--", "paper: L = log3 d_x"), "doubled": (":", "L = 2 log3 d_x"),
              "formula": ("-", "H = 1 block formula (proved)")}  # fmt: skip
    for src, (ls, label) in styles.items():
        pts = [(int(r["width"]), float(r["transition_depth"])) for r in rows
               if r["source"] == src and r["transition_depth"] not in ("", None)]  # fmt: skip
        ax.plot(*zip(*pts), ls, color="black" if src == "formula" else GREY, lw=1,
                label=label)  # fmt: skip
    got = [r for r in rows if r["source"] == "measured" and r["transition_depth"] not in
           ("", None)]  # fmt: skip
    for r in sorted(got, key=lambda r: int(r["heads"])):
        w, H = int(r["width"]), int(r["heads"])
        one = H == 1  # H = 1: large open circle; H > 1: small filled square inside it
        ax.plot(w, float(r["transition_depth"]), "o" if one else "s", ms=8 if one else 3.5,
                color=width_color(w), mfc="none" if one else width_color(w), mew=1.3,
                ls="none", gid=f"d_x={w}", zorder=3,
                label=f"measured, d_x = {w}, H = {H}")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("width d_x")
    ax.set_ylabel("transition depth L")
    ax.legend(loc="upper left")
    return fig


def fig_transition(out: Path, quick: bool, measurer=None):
    """Write figure 3 (PNG, PDF, CSV) to ``out``.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows.
    """
    trows = _read_csv(p) if (p := transition_csv(out)) else []
    rows = transition_rows(quick, measurer, trows)
    save(plot_transition(rows), out, "fig3_transition_depth")
    _write_csv(out / "fig3_transition_depth.csv", rows,
               ["source", "width", "heads", "transition_depth", "depths_measured"])
    return rows


# --------------------------------------------------------------------------- figure 4
FIG4_FIELDS = ["depth", "width", "seq_len", "heads", "measured_rank", "saturated",
               "upper_proved"]  # fmt: skip


def heads_rows(quick: bool = False, measurer=None) -> list[dict]:
    """Figure 4's data: measured rank against the number of heads at fixed width.

    Parameters
    ----------
    quick : bool
        Three cases instead of five.
    measurer : Measurer or None

    Returns
    -------
    list of dict
        ``depth``, ``width``, ``seq_len``, ``heads``, ``measured_rank`` (GF(p)),
        ``saturated`` and ``upper_proved`` (the proved bound, the same for every H).
    """
    _m = measurer or Measurer()
    cases = [(2, 4, 4), (2, 6, 4), (3, 2, 4)] + ([] if quick else [(2, 6, 6), (2, 8, 4)])
    rows = []
    for L, d, N in cases:
        ub = upper_bound(LinearSelfAttention(depth=L, width=d, heads=1, seq_len=N))["upper"]
        for H in head_counts(d):
            m = _m(L, d, H, N)
            rows.append({"depth": L, "width": d, "seq_len": N, "heads": H,
                         "measured_rank": m.rank, "saturated": bool(m.saturated),
                         "upper_proved": ub})  # fmt: skip
    return rows


def plot_heads(rows, ax=None):
    """Draw figure 4: measured rank against H, with each curve's proved bound.

    Curves of the same width differ by marker and line style; a curve of the same width
    and depth as an earlier one is shifted right by 6% so that equal values stay visible.

    Parameters
    ----------
    rows : list of dict
        :func:`heads_rows`.
    ax : matplotlib Axes or None
        Where to draw; None makes a single-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, size=(SINGLE, 3.7))
    cases = sorted({(int(r["depth"]), int(r["width"]), int(r["seq_len"])) for r in rows},
                   key=lambda c: (c[1], c[0], c[2]))  # fmt: skip
    seen: dict = {}
    for L, d, N in cases:
        pts = sorted((int(r["heads"]), int(r["measured_rank"]), int(r["upper_proved"]))
                     for r in rows if (int(r["depth"]), int(r["width"]), int(r["seq_len"]))
                     == (L, d, N))  # fmt: skip
        k = seen[(L, d)] = seen.get((L, d), -1) + 1
        shift = 1.06**k
        c = width_color(d)
        xs = [h * shift for h, _, _ in pts]
        ax.plot(xs, [m for _, m, _ in pts], ["-o", "--s"][k % 2], color=c, mfc=c if k == 0
                else "white", mew=1, gid=f"d_x={d}",
                label=f"L = {L}, d_x = {d}, N = {N}")  # fmt: skip
        ax.plot([xs[0] / 1.1, xs[-1] * 1.1], [pts[0][2]] * 2, ":", color=c, lw=1,
                gid=f"d_x={d}")  # fmt: skip
    from matplotlib.lines import Line2D

    handles, _ = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="black", ls=":", lw=1, label="proved bound (any H)"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2,
              columnspacing=0.8, handlelength=2.2)  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    hs = sorted({int(r["heads"]) for r in rows})
    ax.set_xticks(hs, [str(h) for h in hs])
    ax.minorticks_off()
    ax.set_xlabel("number of heads H (head size d_x / H)")
    ax.set_ylabel("measured separation rank (GF(p))")
    ax.set_title("Fixed width: the measured rank falls as H grows")
    return fig


def fig_heads(out: Path, quick: bool, measurer=None):
    """Write figure 4 (PNG, PDF, CSV) to ``out``.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows.
    """
    rows = heads_rows(quick, measurer)
    save(plot_heads(rows), out, "fig4_heads")
    _write_csv(out / "fig4_heads.csv", rows, FIG4_FIELDS)
    return rows


# --------------------------------------------------------------------------- figure 5
FIG5_FIELDS = ["depth", "degree", "exact_rank", "float_rank", "float_tolerance",
               "float_grid_rows", "float_grid_cols", "spectrum_s_over_s1"]  # fmt: skip


def float_grid_size(exact_rank: int) -> int:
    """The float grid's side for a network of exact rank ``exact_rank``: larger than it.

    Parameters
    ----------
    exact_rank : int

    Returns
    -------
    int
        ``exact_rank + max(16, exact_rank // 4)``, so the float rank could reach the exact
        one.
    """
    return exact_rank + max(16, exact_rank // 4)


def float_vs_exact_rows(quick: bool = False, measurer=None, depths=None) -> list[dict]:
    """Figure 5's data: exact rank and float64 SVD rank of the same network (d_x = 2, N = 2).

    The float rank is computed on one ``n x n`` grid with n = :func:`float_grid_size` of the
    exact rank, so it is not capped by the grid.

    Parameters
    ----------
    quick : bool
        Depths 1-3 instead of 1-4.
    measurer : Measurer or None
    depths : iterable of int or None
        Overrides ``quick``.

    Returns
    -------
    list of dict
        ``depth``, ``degree`` (3^L), ``exact_rank``, ``float_rank``, ``float_tolerance``,
        ``float_grid_rows``, ``float_grid_cols`` and ``spectrum_s_over_s1`` (a JSON list).
    """
    _m = measurer or Measurer()
    d, N = 2, 2
    rows = []
    for L in depths or ([1, 2, 3] if quick else [1, 2, 3, 4]):
        e = _m(L, d, 1, N)
        f = _m(L, d, 1, N, method="float", grid=float_grid_size(e.rank))
        s = [float(x) / float(f.spectrum[0]) for x in f.spectrum]
        rows.append({"depth": L, "degree": 3**L, "exact_rank": e.rank, "float_rank": f.rank,
                     "float_tolerance": f.tolerance, "float_grid_rows": f.samples[0],
                     "float_grid_cols": f.samples[1],
                     "spectrum_s_over_s1": json.dumps([float(f"{x:.4g}") for x in s])})
    return rows


def plot_float_vs_exact(rows, ax=None):
    """Draw figure 5: exact and float rank against the degree; the float spectra.

    Parameters
    ----------
    rows : list of dict
        :func:`float_vs_exact_rows`.
    ax : sequence of two matplotlib Axes or None
        Left and right panel; None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (a1, a2) = new_axes(ax, ncols=2, size=(DOUBLE, 2.6))
    rows = sorted(rows, key=lambda r: int(r["depth"]))
    degs = [int(r["degree"]) for r in rows]
    c = width_color(2)
    a1.plot(degs, [int(r["exact_rank"]) for r in rows], "-o", color=c, gid="d_x=2",
            label="exact (GF(p), measured)")  # fmt: skip
    a1.plot(degs, [int(r["float_rank"]) for r in rows], "--s", color="black", mfc="white",
            label="float64 SVD rank")  # fmt: skip
    a1.plot(degs, [int(r["float_grid_rows"]) for r in rows], ":", color=GREY,
            label="float grid side n (n x n)")  # fmt: skip
    a1.set_xscale("log", base=3)
    a1.set_yscale("log")
    a1.set_xticks(degs, [str(x) for x in degs])
    a1.minorticks_off()
    a1.set_xlabel(f"polynomial degree 3^L (L = 1 .. {int(rows[-1]['depth'])})")
    a1.set_ylabel("rank")
    a1.set_title("d_x = 2, N = 2, H = 1")
    a1.legend(loc="upper left")
    cols = _seq_colors(len(rows))
    for col, r in zip(cols, rows):
        s = json.loads(r["spectrum_s_over_s1"]) if isinstance(r["spectrum_s_over_s1"], str) \
            else r["spectrum_s_over_s1"]  # fmt: skip
        s = [max(x, 1e-300) for x in s]
        a2.semilogy(range(1, len(s) + 1), s, color=col, lw=1,
                    label=f"L = {r['depth']}: exact rank {r['exact_rank']}, "
                    f"float {r['float_rank']}")  # fmt: skip
        a2.axvline(int(r["exact_rank"]), color=col, ls=":", lw=1)
    a2.set_xscale("log")
    a2.set_xlabel("singular value index i (dotted: exact rank)")
    a2.set_ylabel("s_i / s_1 (float64, n x n grid)")
    a2.set_title("float64 spectra")
    a2.legend(loc="lower left")
    return fig


def fig_float_vs_exact(out: Path, quick: bool, measurer=None):
    """Write figure 5 (PNG, PDF, CSV) to ``out``.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows.
    """
    rows = float_vs_exact_rows(quick, measurer)
    save(plot_float_vs_exact(rows), out, "fig5_exact_vs_float")
    _write_csv(out / "fig5_exact_vs_float.csv", rows, FIG5_FIELDS)
    return rows


# --------------------------------------------------------------------------- figure 6
def _budget_curve(P: float, L: int) -> float:
    """log10 sep of the H=1 formula at depth L with the width spending the budget P."""
    return generic_block_bound_log10(L, width_at_budget(P, L))


def budget_asymptote(P: float) -> float:
    """The reference R(P) = P log10(3) / 24 of figure 6.

    It is the large-depth value m log10(3^L) of the formula's log10 with m = d^2 / 2 and a
    real width d = sqrt(P / 12 L). With an integer width and m = d(d + 1) / 2 the formula
    can exceed it (it does at the largest depths drawn).

    Parameters
    ----------
    P : float
        The non-embedding parameter budget 12 L d_x^2.

    Returns
    -------
    float
    """
    return P * math.log10(3) / 24


def depth_reaching(P: float, frac: float, hi: int = 4000) -> int:
    """Smallest depth whose log10 sep (H = 1 formula) reaches ``frac`` of R(P).

    Parameters
    ----------
    P : float
        The budget 12 L d_x^2.
    frac : float
        The share of :func:`budget_asymptote` to reach.
    hi : int
        The largest depth searched (returned if none below reaches it).

    Returns
    -------
    int
    """
    target = frac * budget_asymptote(P)
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _budget_curve(P, mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


FIG6_FIELDS = ["kind", "params", "depth_or_fit", "value_or_ours", "fraction_or_paper_rule",
               "gain_or_depth90", "width", "params_used"]  # fmt: skip
FIG6_BUDGETS = (1e8, 1e10, 1e12, 1e14)


def equal_params_rows(budgets=FIG6_BUDGETS) -> list[dict]:
    """Figure 6's data (all from the proved H = 1 formula, nothing measured).

    Parameters
    ----------
    budgets : iterable of float
        The budgets P = 12 L d_x^2 of the curves.

    Returns
    -------
    list of dict
        ``kind`` ``curve`` rows (per budget and depth: log10 sep, its fraction of R(P),
        the gain per layer, the integer width and the parameters it spends),
        ``depth_90_99`` rows and ``optimum`` rows (per budget: the paper's fit, the last
        depth-efficient depth, the paper's rule, the 90% depth). Column names as in the
        CSV (:data:`FIG6_FIELDS`).
    """
    rows = []
    Ls = sorted({int(round(10 ** (k / 20))) for k in range(0, 71)})  # 1 .. 3162, log-spaced
    for P in budgets:
        A = budget_asymptote(P)
        v = [_budget_curve(P, L) for L in Ls]
        gain = [(v[j + 1] - v[j]) / (Ls[j + 1] - Ls[j]) / A for j in range(len(Ls) - 1)]
        for L, x, g in zip(Ls, v, gain + [""]):
            w = width_at_budget(P, L)
            rows.append({"kind": "curve", "params": P, "depth_or_fit": L, "value_or_ours": x,
                         "fraction_or_paper_rule": x / A, "gain_or_depth90": g, "width": w,
                         "params_used": 12 * L * w * w})  # fmt: skip
        rows.append({"kind": "depth_90_99", "params": P, "depth_or_fit": depth_reaching(P, 0.9),
                     "value_or_ours": depth_reaching(P, 0.99)})  # fmt: skip
    for k in range(10, 27):
        P = 10 ** (k / 2)
        rows.append({"kind": "optimum", "params": P,
                     "depth_or_fit": fit_optimal_shape(P)["depth"],
                     "value_or_ours": expressivity_optimal_depth(P),
                     "fraction_or_paper_rule": paper_optimal_depth(P),
                     "gain_or_depth90": depth_reaching(P, 0.9)})  # fmt: skip
    return rows


def plot_equal_params(rows, ax=None):
    """Draw figure 6: the H = 1 formula at fixed parameter budgets (three panels).

    Parameters
    ----------
    rows : list of dict
        :func:`equal_params_rows`.
    ax : sequence of three matplotlib Axes or None
        Share of R(P), gain per layer, optimal depth; None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        import matplotlib.pyplot as plt

        apply_style()
        fig = plt.figure(figsize=(DOUBLE, 4.9))
        gs = fig.add_gridspec(2, 2)
        a1, a2, a3 = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1]), \
            fig.add_subplot(gs[1, :])  # fmt: skip
    else:
        fig, (a1, a2, a3) = new_axes(ax, ncols=3)
    budgets = sorted({float(r["params"]) for r in rows if r["kind"] == "curve"})
    for col, P in zip(_seq_colors(len(budgets)), budgets):
        cur = [r for r in rows if r["kind"] == "curve" and float(r["params"]) == P]
        Ls = [int(r["depth_or_fit"]) for r in cur]
        a1.plot(Ls, [float(r["fraction_or_paper_rule"]) for r in cur], color=col,
                label=f"P = {P:.0e}")  # fmt: skip
        q = next(r for r in rows if r["kind"] == "depth_90_99" and float(r["params"]) == P)
        a1.plot([int(q["depth_or_fit"]), int(q["value_or_ours"])], [0.9, 0.99], "o",
                color=col, mec="black", mew=0.5, ls="none")  # fmt: skip
        pos = [(math.sqrt(a * b), 100 * float(r["gain_or_depth90"])) for a, b, r in
               zip(Ls, Ls[1:], cur) if r["gain_or_depth90"] != "" and
               float(r["gain_or_depth90"]) > 0]  # fmt: skip
        a2.plot(*zip(*pos), color=col, label=f"P = {P:.0e}")
    a1.axhline(1, color=GREY, lw=0.8, ls="--")
    a1.plot([], [], "o", color=GREY, mec="black", mew=0.5, label="depths reaching 0.9, 0.99")
    a1.set_xscale("log")
    a1.set_xlabel("depth L (d_x = sqrt(P / 12 L) rounded; R(P) = P log10(3) / 24)")
    a1.set_ylabel("log10 sep / R(P)")
    a1.legend(loc="upper left")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("depth L (geometric mid of the step)")
    a2.set_ylabel("gain per added layer (% of R(P))")
    a2.legend(loc="lower left")
    opt = [r for r in rows if r["kind"] == "optimum"]
    Ps = [float(r["params"]) for r in opt]
    a3.plot(Ps, [float(r["depth_or_fit"]) for r in opt], "-", color="black",
            label="paper's empirical fit (its depth for P)")  # fmt: skip
    a3.plot(Ps, [float(r["value_or_ours"]) for r in opt], "-o", ms=2.5, color=GREY,
            label="last depth-efficient L (H = 1 formula, proved)")  # fmt: skip
    a3.plot(Ps, [float(r["fraction_or_paper_rule"]) for r in opt], "--", color=GREY,
            label="paper's rule L = log3 d_x")  # fmt: skip
    a3.plot(Ps, [float(r["gain_or_depth90"]) for r in opt], ":", color="black", lw=1.5,
            label="depth reaching 0.9 R(P) (formula)")  # fmt: skip
    for (name, P, L), mk in zip((("GPT-3 175B: 96 layers", 175e9, 96),
                                 ("1T model (its authors): 92 layers", 1e12, 92)), "*P"):
        a3.plot(P, L, mk, ms=8, color="white", mec="black", ls="none", label=name)
    a3.set_xscale("log")
    a3.set_yscale("log")
    a3.set_xlabel("non-embedding parameters P = 12 L d_x^2")
    a3.set_ylabel("depth L (layers)")
    a3.set_ylim(0.05, 400)
    a3.legend(loc="lower right", ncol=2)
    return fig


def fig_equal_params(out: Path, quick: bool, measurer=None):
    """Write figure 6 (PNG, PDF, CSV) to ``out``.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows.
    """
    rows = equal_params_rows()
    save(plot_equal_params(rows), out, "fig6_equal_params")
    _write_csv(out / "fig6_equal_params.csv", rows, FIG6_FIELDS)
    return rows


# --------------------------------------------------------------------------- figure 7
FIG7_FIELDS = ["budget", "depth", "n_seeds", "val_loss_mean", "val_loss_std"]


def experiment_source() -> Path | None:
    """The depth-width experiment's results.csv.

    Returns
    -------
    Path or None
        experiments/depth_width/results/results.csv under the working directory, else the
        repository's, else None.
    """
    rel = Path("experiments/depth_width/results/results.csv")
    for p in (rel, Path(__file__).resolve().parents[2] / rel):
        if p.exists():
            return p
    return None


def experiment_rows(results) -> list[dict]:
    """Figure 7's data: validation loss per budget and depth, over seeds (measured).

    Parameters
    ----------
    results : list of dict
        Rows of the experiment's results.csv (``budget``, ``depth``, ``val_loss``).

    Returns
    -------
    list of dict
        ``budget``, ``depth``, ``n_seeds``, ``val_loss_mean`` and ``val_loss_std`` (the
        sample std, NaN where there is one seed: no spread is known).
    """
    by: dict = {}
    for r in results:
        by.setdefault((int(r["budget"]), int(r["depth"])), []).append(float(r["val_loss"]))
    rows = []
    for (b, L), v in sorted(by.items()):
        m = sum(v) / len(v)
        sd = (sum((x - m) ** 2 for x in v) / (len(v) - 1)) ** 0.5 if len(v) > 1 else math.nan
        rows.append({"budget": b, "depth": L, "n_seeds": len(v), "val_loss_mean": m,
                     "val_loss_std": sd})  # fmt: skip
    return rows


def plot_experiment(rows, ax=None, title: str | None = None):
    """Draw figure 7: validation loss against depth per budget; bars only for n >= 2 seeds.

    Parameters
    ----------
    rows : list of dict
        :func:`experiment_rows` (or its CSV's rows: an empty std is NaN).
    ax : matplotlib Axes or None
        Where to draw; None makes a single-column figure.
    title : str or None

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, size=(SINGLE, 2.7))
    budgets = sorted({int(r["budget"]) for r in rows})
    for col, b in zip(_seq_colors(len(budgets)), budgets):
        rs = sorted((r for r in rows if int(r["budget"]) == b), key=lambda r: int(r["depth"]))
        L = [int(r["depth"]) for r in rs]
        m = [float(r["val_loss_mean"]) for r in rs]
        n = sorted({int(r["n_seeds"]) for r in rs})
        nl = f"{n[0]}" if len(n) == 1 else f"{n[0]}-{n[-1]}"
        ax.plot(L, m, "-o", color=col, gid=f"budget={b}",
                label=f"{b:,} params, {nl} seed{'s' if n[-1] > 1 else ''}")  # fmt: skip
        bars = [(x, y, float(r["val_loss_std"])) for x, y, r in zip(L, m, rs)
                if int(r["n_seeds"]) >= 2]  # fmt: skip
        if bars:
            ax.errorbar([x for x, _, _ in bars], [y for _, y, _ in bars],
                        yerr=[s for _, _, s in bars], fmt="none", ecolor=col, capsize=2,
                        label=f"_errorbar budget={b}")  # fmt: skip
    ax.set_xscale("log", base=2)
    Ls = sorted({int(r["depth"]) for r in rows})
    ax.set_xticks(Ls, [str(x) for x in Ls])
    ax.minorticks_off()
    ax.set_xlabel("depth L (width spends the budget)")
    ax.set_ylabel("validation loss (nats/byte)")
    if title:
        ax.set_title(title)
    ax.legend(loc="best", title="non-embedding budget (bars: std, n >= 2)")
    return fig


def fig_experiment(out: Path, quick: bool, measurer=None):
    """Write figure 7 (PNG, PDF, CSV) to ``out`` from the experiment's results.csv.

    Without one, a MISSING note is written instead.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows (None when its input is missing).
    """
    src = experiment_source()
    if src is None:
        msg = ("figure 7 skipped: no experiment output; make it with "
               "`seprank experiment --preset cpu --out experiments/depth_width/results`")
        print(msg, file=sys.stderr)
        (out / "fig7_experiment.MISSING.txt").write_text(msg + "\n")
        return None
    rows = experiment_rows(_read_csv(src))
    save(plot_experiment(rows), out, "fig7_experiment")
    _write_csv(out / "fig7_experiment.csv", rows, FIG7_FIELDS)
    return rows


# --------------------------------------------------------------------------- figure 11
FIG11_FIELDS = ["width", "heads", "seq_len", "depth", "a_degree", "measured_block_rank",
                "block_bound", "source"]  # fmt: skip


def block_rows(trows) -> list[dict]:
    """Figure 11's data: each graded block's measured rank beside its proved bound.

    The bound of the block of A-degree 2j + 1 is min(b_k, a_{D-k}) with k = D - j
    (:func:`seprank.theory.bounds.block_terms`). A transition row without recorded block
    ranks is completed only where the measured numbers force every block: each block's
    measured rank is at most its bound, so when the measured total equals the bounds' sum
    minus the largest block's shortfall, and no other block's bound reaches the largest
    measured block, the largest block is the one of largest bound and every other block
    is at its bound (``source`` says so).

    Parameters
    ----------
    trows : list of dict
        Rows of the transition CSV (figure 8).

    Returns
    -------
    list of dict
        One row per configuration and A-degree.
    """
    rows = []
    for r in trows:
        L, d, H, N = (int(r[c]) for c in ("depth", "width", "heads", "seq_len"))
        ub = upper_bound(LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N))
        terms = block_terms(L, d, ub["n_query_side"], ub["n_other_side"])
        D = matrix_degree(L)
        bound = {2 * (D - k) + 1: t for k, t in enumerate(terms)}
        got, src = block_ranks(r.get("block_ranks", "")), "measured (block_ranks)"
        if not got:
            big, total = int(r["largest_block"]), int(r["measured"])
            top = max(bound, key=bound.get)
            rest = sum(bound.values()) - bound[top]
            if total - big != rest or any(v >= big for g, v in bound.items() if g != top):
                continue  # not forced: left out
            got = [(g, big if g == top else v) for g, v in sorted(bound.items())]
            src = "derived: measured total and largest block, proved block bounds"
        for g, m in got:
            rows.append({"width": d, "heads": H, "seq_len": N, "depth": L, "a_degree": g,
                         "measured_block_rank": m, "block_bound": bound[g], "source": src})
    return rows


def plot_block_ranks(rows, ax=None):
    """Draw figure 11: measured block rank against its bound; where H = 1 blocks fall short.

    Parameters
    ----------
    rows : list of dict
        :func:`block_rows`.
    ax : sequence of two matplotlib Axes or None
        Left (measured against bound, every block) and right (one row per H = 1
        configuration: a dot per block at its bound, a cross where it is below, labelled
        with both numbers); None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    fig, (a1, a2) = new_axes(ax, ncols=2, size=(DOUBLE, 3.0))
    marks = {1: "o", 2: "s", 3: "^", 4: "D", 5: "v"}

    def key(r):
        return (int(r["width"]), int(r["heads"]), int(r["seq_len"]), int(r["depth"]))

    configs = sorted({key(r) for r in rows})
    hi = 1
    ones = [c for c in configs if c[1] == 1]
    for d, H, N, L in configs:
        rs = [r for r in rows if key(r) == (d, H, N, L)]
        x = [int(r["block_bound"]) for r in rs]
        y = [int(r["measured_block_rank"]) for r in rs]
        hi = max(hi, *x)
        c = width_color(d)
        a1.plot(x, y, marks.get(L, "o"), color=c, mfc=c if H == 1 else "white", mew=0.8,
                ms=3.5, ls="none", gid=f"d_x={d}", zorder=3 if H == 1 else 2)  # fmt: skip
        if H != 1:
            continue
        row = ones.index((d, H, N, L))
        at = [int(r["a_degree"]) for r in rs if int(r["block_bound"]) ==
              int(r["measured_block_rank"])]  # fmt: skip
        a2.plot(at, [row] * len(at), "o", color=c, ms=2.5, ls="none", gid=f"d_x={d}")
        for r in rs:
            if int(r["block_bound"]) > int(r["measured_block_rank"]):
                g = int(r["a_degree"])
                a2.plot(g, row, "x", color="black", ms=7, mew=1.5, zorder=4)
                a2.annotate(f"A-degree {g}: measured {r['measured_block_rank']},\n"
                            f"proved bound {r['block_bound']}", (g, row), xytext=(6, 5),
                            textcoords="offset points", fontsize=7, va="bottom")  # fmt: skip
    a1.plot([1, hi * 1.5], [1, hi * 1.5], "-", color=GREY, lw=0.8, zorder=0)
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel("proved block bound min(b_k, a_{D-k})")
    a1.set_ylabel("measured block rank (GF(p))")
    depths = sorted({c[3] for c in configs})
    h = [Line2D([], [], marker=marks.get(L, "o"), color="black", ls="none", mfc="black",
                label=f"L = {L}") for L in depths]  # fmt: skip
    h += [Line2D([], [], marker="o", color="black", mfc="white", ls="none", label="H > 1"),
          Line2D([], [], color=GREY, lw=0.8, label="measured = bound")]
    a1.legend(handles=h, loc="upper left", ncol=2)
    a2.set_yticks(range(len(ones)), [f"L = {L}, d_x = {d}, N = {N}" for d, _, N, L in ones])
    a2.set_ylim(len(ones) - 0.5, -0.5)
    a2.set_xscale("log")
    a2.set_xlabel("A-degree of the block (H = 1)")
    a2.legend(handles=[Line2D([], [], marker="o", color="black", ms=2.5, ls="none",
                              label="measured = proved bound"),
                       Line2D([], [], marker="x", color="black", ms=6, mew=1.5, ls="none",
                              label="measured < proved bound")],
              loc="center right")  # fmt: skip
    return fig


def fig_block_ranks(out: Path, quick: bool, measurer=None):
    """Write figure 11 (PNG, PDF, CSV) to ``out`` from the transition CSV.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows (None when its input is missing).
    """
    p = transition_csv(out)
    if p is None:
        return None
    rows = block_rows(_read_csv(p))
    save(plot_block_ranks(rows), out, "fig11_block_ranks")
    _write_csv(out / "fig11_block_ranks.csv", rows, FIG11_FIELDS)
    return rows


# --------------------------------------------------------------------------- figure 12
FIG12_FIELDS = ["depth", "width", "heads", "seq_len", "residual", "measured", "saturated",
                "upper", "tight"]  # fmt: skip
VERIFY_CSV = "fig12_verify_grid.csv"


def verify_source(out: Path | str | None = None) -> Path | None:
    """The verify rows figure 12 reads.

    Parameters
    ----------
    out : Path, str or None
        A figures folder.

    Returns
    -------
    Path or None
        ``out``/fig12_verify_grid.csv if it exists, else the committed one (written by
        :func:`write_verify_csv` from ``seprank verify --quick``'s results.csv), else None.
    """
    for p in ([Path(out) / VERIFY_CSV] if out is not None else []) + [PAPER_FIGURES / VERIFY_CSV]:
        if p.exists():
            return p
    return None


def verify_rows(results) -> list[dict]:
    """Figure 12's data: the verify grid's measured rank beside the proved bound.

    Parameters
    ----------
    results : list of dict
        Rows of ``seprank verify``'s results.csv.

    Returns
    -------
    list of dict
        Per configuration: ``depth``, ``width``, ``heads``, ``seq_len``, ``residual``,
        ``measured``, ``saturated``, ``upper`` (proved), ``tight`` (measured = upper).
    """
    return [{k: r[k] for k in FIG12_FIELDS} for r in results]


def write_verify_csv(results_csv: Path | str, out: Path | str = "paper_figures") -> Path:
    """Copy the columns figure 12 needs from a verify results.csv into ``out``.

    Parameters
    ----------
    results_csv : Path or str
        ``seprank verify --quick``'s results.csv.
    out : Path or str
        The figures folder.

    Returns
    -------
    Path
        ``out``/fig12_verify_grid.csv.
    """
    p = Path(out) / VERIFY_CSV
    _write_csv(p, verify_rows(_read_csv(Path(results_csv))), FIG12_FIELDS)
    return p


def plot_verify_grid(rows, ax=None):
    """Draw figure 12: measured / proved over (L, d_x), one panel for H = 1 and one for H > 1.

    Each cell is coloured by the smallest measured / proved over the configurations in it
    (sequence lengths, residual or not, head counts) and says how many are tight.

    Parameters
    ----------
    rows : list of dict
        :func:`verify_rows`.
    ax : sequence of two matplotlib Axes or None
        None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np

    fig, axes = new_axes(ax, ncols=2, size=(DOUBLE, 2.5))
    Ls = sorted({int(r["depth"]) for r in rows})
    ds = sorted({int(r["width"]) for r in rows})
    im = None
    for a, (name, sel) in zip(axes, (("H = 1", lambda h: h == 1), ("H > 1", lambda h: h > 1))):
        z = np.full((len(Ls), len(ds)), np.nan)
        for i, L in enumerate(Ls):
            for j, d in enumerate(ds):
                rs = [r for r in rows if int(r["depth"]) == L and int(r["width"]) == d
                      and sel(int(r["heads"]))]  # fmt: skip
                if not rs:
                    a.text(j, i, "not in grid", ha="center", va="center", fontsize=7)
                    continue
                q = [int(r["measured"]) / int(r["upper"]) for r in rs]
                z[i, j] = min(q)
                t = sum(_truthy(r["tight"]) for r in rs)
                a.text(j, i, f"{t}/{len(rs)} tight\nmin {min(q):.3f}", ha="center",
                       va="center", fontsize=7, color="black" if min(q) > 0.6 else "white")
        im = a.imshow(z, origin="lower", cmap="cividis", vmin=0.5, vmax=1, aspect="auto")
        a.set_xticks(range(len(ds)), [str(d) for d in ds])
        a.set_yticks(range(len(Ls)), [str(L) for L in Ls])
        a.grid(False)
        a.set_xlabel("width d_x")
        a.set_ylabel("depth L")
        a.set_title(f"{name}: measured / proved bound")
    fig.colorbar(im, ax=axes[-1], label="min measured / proved")
    return fig


def fig_verify_grid(out: Path, quick: bool, measurer=None):
    """Write figure 12 (PNG, PDF) to ``out`` from the verify results (its CSV).

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

    Returns
    -------
    list of dict or None
        The figure's rows (None when its input is missing).
    """
    p = verify_source(out)
    if p is None:
        return None
    rows = verify_rows(_read_csv(p))
    save(plot_verify_grid(rows), out, "fig12_verify_grid")
    if p != Path(out) / VERIFY_CSV:
        _write_csv(Path(out) / VERIFY_CSV, rows, FIG12_FIELDS)
    return rows


# --------------------------------------------------------------------------- figure 13
FIG13_FIELDS = ["depth", "width", "seq_len", "heads", "measured_rank", "upper_proved",
                "source"]  # fmt: skip


def heads_bound_rows(fig4_rows, trows) -> list[dict]:
    """Figure 13's data: measured rank and proved bound per head count, from figure 4's
    rows and the transition CSV's exact rows.

    Parameters
    ----------
    fig4_rows : list of dict
        :func:`heads_rows` (or figure 4's CSV).
    trows : list of dict
        Rows of the transition CSV.

    Returns
    -------
    list of dict
        ``depth``, ``width``, ``seq_len``, ``heads``, ``measured_rank``, ``upper_proved``
        and ``source``, for depths >= 2 and (L, d_x, N) with more than one head count.
    """
    ints = ("depth", "width", "seq_len", "heads", "measured_rank", "upper_proved")
    rows = [{**{k: int(r[k]) for k in ints}, "source": "fig4"} for r in fig4_rows]
    have = {(r["depth"], r["width"], r["seq_len"], r["heads"]) for r in rows}
    for r in trows:
        k = tuple(int(r[c]) for c in ("depth", "width", "seq_len", "heads"))
        if k not in have:
            rows.append({"depth": k[0], "width": k[1], "seq_len": k[2], "heads": k[3],
                         "measured_rank": int(r["measured"]),
                         "upper_proved": int(r["upper_proved"]), "source": TRANSITION_CSV})
    cases: dict = {}
    for r in rows:
        cases.setdefault((r["depth"], r["width"], r["seq_len"]), []).append(r)
    # H = 1 and H > 1 both present; depth 1 left out (every depth-1 measurement is tight)
    return [r for (L, _, _), rs in cases.items() if len(rs) > 1 and L > 1 for r in rs]


def plot_heads_bound(rows, ax=None):
    """Draw figure 13: measured / proved bound against the head size d_x / H.

    Each line after the first of its width is shifted 6% right (so that lines ending at the
    same point stay visible).

    Parameters
    ----------
    rows : list of dict
        :func:`heads_bound_rows`.
    ax : matplotlib Axes or None
        None makes a single-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_axes(ax, size=(SINGLE, 3.0))
    marks = {1: "o", 2: "s", 3: "^", 4: "D", 5: "v"}
    cases = sorted({(int(r["depth"]), int(r["width"]), int(r["seq_len"])) for r in rows})
    seen: dict = {}
    for L, d, N in cases:
        k = seen[d] = seen.get(d, -1) + 1  # same d_x as an earlier line: shifted 6% right
        pts = sorted((int(d) // int(r["heads"]) * 1.06**k, int(r["measured_rank"]) /
                      int(r["upper_proved"])) for r in rows
                     if (int(r["depth"]), int(r["width"]), int(r["seq_len"])) == (L, d, N))
        ax.plot(*zip(*pts), "-" + marks.get(L, "o"), color=width_color(d), ms=3.5, lw=0.8,
                mfc="white" if N < 2 * d else width_color(d), gid=f"d_x={d}")  # fmt: skip
    from matplotlib.lines import Line2D

    ws = sorted({c[1] for c in cases})
    ls = sorted({c[0] for c in cases})
    h = [Line2D([], [], color=width_color(d), lw=2, label=f"d_x = {d}") for d in ws]
    h += [Line2D([], [], marker=marks.get(L, "o"), color="black", ls="none",
                 label=f"L = {L}") for L in ls]  # fmt: skip
    h.append(Line2D([], [], marker="o", mfc="white", color="black", ls="none",
                    label="hollow: N < 2 d_x"))  # fmt: skip
    ax.legend(handles=h, loc="lower right", ncol=2)
    ax.set_xscale("log", base=2)
    hs = sorted({int(r["width"]) // int(r["heads"]) for r in rows})
    ax.set_xticks(hs, [str(x) for x in hs])
    ax.minorticks_off()
    ax.set_xlabel("head size d_x / H (H = 1 at the right end of a line)")
    ax.set_ylabel("measured / proved bound")
    return fig


def fig_heads_bound(out: Path, quick: bool, measurer=None, fig4_rows=None):
    """Write figure 13 (PNG, PDF, CSV) to ``out`` from figure 4's CSV and the transition CSV.

    Parameters
    ----------
    out : Path
        The folder the files are written to.
    quick : bool
        Fewer measured points (figures without measurements ignore it).
    measurer : Measurer or None
        Unused (the figure reads CSVs).
    fig4_rows : list of dict or None
        Figure 4's rows (None: read ``out``/fig4_heads.csv).

    Returns
    -------
    list of dict or None
        The figure's rows.
    """
    if fig4_rows is None:
        fig4_rows = _read_csv(out / "fig4_heads.csv")
    trows = _read_csv(p) if (p := transition_csv(out)) else []
    rows = heads_bound_rows(fig4_rows, _transition_exact(trows))
    save(plot_heads_bound(rows), out, "fig13_heads_bound")
    _write_csv(out / "fig13_heads_bound.csv", rows, FIG13_FIELDS)
    return rows


FIGURES = [fig_rank_vs_depth, fig_regimes, fig_transition, fig_heads, fig_float_vs_exact,
           fig_equal_params, fig_experiment, fig_block_ranks, fig_verify_grid,
           fig_heads_bound]  # fmt: skip


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def make_all(out: Path, quick: bool = False, db: Path | str | None = None,
             say=None) -> list[str]:
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
            t = time.perf_counter()
            f(out, quick, m)
            (say or _stderr)(f"{f.__name__}: {time.perf_counter() - t:.1f}s")
            done.append(f.__name__)

    write_readme(out, quick)
    return done

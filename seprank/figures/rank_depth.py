"""Figures 1-3: separation rank against depth, the growth ratio's regimes, the transition depth."""

from __future__ import annotations

import math

from seprank.figures.common import (
    TRANSITION_CSV,
    Measurer,
    transition_exact,
    truthy,
)
from seprank.figures.style import GREY, SINGLE, new_axes, width_color
from seprank.theory.bounds import (
    block_bound,
    generic_block_bound_log10,
)
from seprank.theory.regimes import (
    GROWTH_THRESHOLD,
    doubled_transition_depth,
    formula_growth_ratio,
    formula_transition_depth,
    growth_ratios,
    paper_transition_depth,
    transition_from_ratios,
)

# --------------------------------------------------------------------------- figure 1
FIG1_FIELDS = ["width", "depth", "measured_rank", "label", "saturated", "exact_proved",
               "log10_formula", "source"]


def rank_vs_depth_rows(quick: bool = False, measurer=None, transition_rows=None) -> list[dict]:
    """Figure 1's data: measured exact ranks (:math:`H = 1`, :math:`N = 2 d_x`) per width and depth.

    Parameters
    ----------
    quick : bool
        Measure up to a proved bound of 400 instead of 3200.
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).
    transition_rows : list of dict or None
        Rows of the transition CSV (figure 8); its exact :math:`H = 1`, :math:`N = 2 d_x`
        rows add the depths the figures' own budget does not reach (to :math:`L = 5` for
        :math:`d_x = 2`).

    Returns
    -------
    list of dict
        One row per (width, depth): ``measured_rank``, ``saturated``, ``exact_proved``
        (measured = proved bound), ``log10_formula`` (proved) and ``source`` (the CSV adds
        ``label``: :mod:`seprank.figures.row_labels`).
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
                            "source": "seprank figures"}
    for r in transition_exact(transition_rows or []):
        d, L = int(r["width"]), int(r["depth"])
        if int(r["heads"]) != 1 or int(r["seq_len"]) != 2 * d or (d, L) in rows:
            continue
        rows[(d, L)] = {"width": d, "depth": L, "measured_rank": int(r["measured"]),
                        "saturated": truthy(r["saturated"]),
                        "exact_proved": truthy(r["exact_proved"]),
                        "log10_formula": round(generic_block_bound_log10(L, d), 6),
                        "source": TRANSITION_CSV}
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
        The widths whose proved formula is drawn, and its depths (for a width measured
        deeper, to its deepest measured depth too).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """
    fig, ax = new_axes(ax, size=(SINGLE, 2.9))
    depths = list(depths)
    top, ticks = 0.0, set(depths)
    for d in widths:
        c = width_color(d)
        pts = [r for r in rows if int(r["width"]) == d]
        ds = sorted(set(depths) | {int(r["depth"]) for r in pts})  # and a measured depth
        ticks |= set(ds)  # beyond them (the formula drawn to it, for that width only)
        form = [generic_block_bound_log10(L, d) for L in ds]
        top = max(top, max(form))
        ax.plot(ds, form, "-", color=c, lw=1, gid=f"d_x={d}", label=f"$d_x = {d}$")
        ax.plot(ds, [form[0] * 3 ** (L - ds[0]) for L in ds], ":", color=c,
                lw=0.9, gid=f"d_x={d}")
        for r in pts:
            top = max(top, math.log10(int(r["measured_rank"])))
        ax.plot([int(r["depth"]) for r in pts], [math.log10(int(r["measured_rank"]))
                for r in pts], "o", color=c, mec="black", mew=0.6, ls="none",
                gid=f"d_x={d}")
    from matplotlib.lines import Line2D

    leg1 = ax.legend(loc="upper left", title="$H = 1,\\ N = 2 d_x$", ncol=1)
    ax.add_artist(leg1)
    exact = all(str(r.get("exact_proved")) == "True" for r in rows)
    gfp = r"measured (over $\mathrm{GF}(p)$)"
    ax.legend(handles=[Line2D([], [], color="k", marker="o", mec="black", ls="none",
                              label=gfp + " = proved bound: exact" if exact else gfp),
                       Line2D([], [], color="k", ls="-", lw=1, label="proved block formula"),
                       Line2D([], [], color="k", ls=":", lw=0.9,
                              label="$3^L$ shape from $L = 1$")],
              loc="upper left", bbox_to_anchor=(0.0, 0.6))
    ax.set_ylim(0, 1.05 * top)
    ax.set_xticks(sorted(ticks))
    ax.set_xlabel("depth $L$ (layers)")
    ax.set_ylabel(r"$\log_{10}$ separation rank")
    return fig


# --------------------------------------------------------------------------- figure 2
REGIME_WIDTHS = (2, 3, 4, 6, 10, 100)
FIG2_FIELDS = ["width", "depth", "growth_ratio_formula", "depth_over_log3_width"]


def regimes_rows(widths=REGIME_WIDTHS, x_max: float = 5.0) -> list[dict]:
    r"""Figure 2's data: the :math:`H = 1` formula's growth ratio per width and depth (proved).

    Parameters
    ----------
    widths : iterable of int
        The widths drawn.
    x_max : float
        Depths up to :math:`x_\mathrm{max} \log_3 d_x` (and at least 4).

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
                         "growth_ratio_formula": formula_growth_ratio(L, d)})
    return rows


def plot_regimes(rows, ax=None):
    r"""Draw figure 2: growth ratio of the formula against :math:`L / \log_3 d_x`.

    Parameters
    ----------
    rows : list of dict
        :func:`regimes_rows`.
    ax : matplotlib Axes or None
        Where to draw; None makes a single-column figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """
    fig, ax = new_axes(ax, size=(SINGLE, 3.1))
    for d in sorted({int(r["width"]) for r in rows}):
        pts = sorted((float(r["depth_over_log3_width"]), float(r["growth_ratio_formula"]))
                     for r in rows if int(r["width"]) == d)
        ax.plot(*zip(*pts), "-o", ms=2.5, color=width_color(d), gid=f"d_x={d}",
                label=f"$d_x = {d}$", mec="black" if d == 100 else None, mew=0.3)
    ax.axhline(3, color=GREY, lw=0.8)
    ax.axhline(GROWTH_THRESHOLD, color=GREY, lw=0.8, ls="-.")
    ax.axvline(1, color="black", lw=0.8, ls="--")
    ax.axvline(2, color="black", lw=0.8, ls=":")
    ax.text(1.03, 3.25, r"$L = \log_3 d_x$ (paper)", fontsize=7, va="top")
    ax.text(2.03, 2.95, r"$L = 2 \log_3 d_x$", fontsize=7, va="top")
    ax.text(4.95, 2.98, "ratio 3", fontsize=7, ha="right", va="top", color=GREY)
    ax.text(4.95, 2.02, "ratio 2", fontsize=7, ha="right", va="bottom", color=GREY)
    ax.set_xlim(0, 5)
    ax.set_ylim(1, 3.3)
    ax.set_xlabel(r"$L \,/\, \log_3 d_x$")
    ax.set_ylabel(r"$\log \mathrm{sep}(L{+}1) \,/\, \log \mathrm{sep}(L)$")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3,
              title="$H = 1$ block formula (proved)", columnspacing=0.8,
              handlelength=1.5)
    return fig


# --------------------------------------------------------------------------- figure 3
FIG3_FIELDS = ["source", "width", "heads", "transition_depth", "depths_measured"]


def transition_rows(quick: bool = False, measurer=None, transition_rows=None) -> list[dict]:
    r"""Figure 3's data: the transition depth against the width, by rule and measured.

    Parameters
    ----------
    quick : bool
        Fewer measured cases and a smaller budget.
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).
    transition_rows : list of dict or None
        Rows of the transition CSV; their exact ranks add depths to the measured series.

    Returns
    -------
    list of dict
        ``source`` (``paper``: :math:`\log_3 d_x`, ``doubled``: :math:`2 \log_3 d_x`,
        ``formula``: the :math:`H = 1` block formula, ``measured``), ``width``, ``heads``,
        ``transition_depth`` (empty where the measured ratios never cross 2),
        ``depths_measured``.
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
                  "transition_depth": formula_transition_depth(w)}]
    cases = [(2, 1), (2, 2), (3, 1), (3, 3)] if quick else [(2, 1), (2, 2), (3, 1), (3, 3),
                                                             (4, 2), (4, 4)]
    extra = transition_exact(transition_rows or [])
    for w, H in cases:
        logs = {}
        for L in range(1, 5):
            if block_bound(L, w, w, w) > (600 if quick else 3200):
                break
            m = _m(L, w, H, 2 * w)
            if not m.saturated and m.rank != block_bound(L, w, w, w):
                break  # neither saturated nor exact, proved: not used for a transition
            logs[L] = math.log(m.rank)
        for r in extra:
            if (int(r["width"]), int(r["heads"]), int(r["seq_len"])) == (w, H, 2 * w):
                logs.setdefault(int(r["depth"]), math.log(int(r["measured"])))
        t = transition_from_ratios(growth_ratios(logs))
        rows.append({"source": "measured", "width": w, "heads": H,
                     "transition_depth": "" if t is None else t,
                     "depths_measured": " ".join(map(str, sorted(logs)))})
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
        The figure drawn into (new, or the one holding ``ax``).
    """
    fig, ax = new_axes(ax, size=(SINGLE, 2.7))
    styles = {"paper": ("--", r"paper: $L = \log_3 d_x$"), "doubled": (":", r"$L = 2 \log_3 d_x$"),
              "formula": ("-", "$H = 1$ block formula (proved)")}
    for src, (ls, label) in styles.items():
        pts = [(int(r["width"]), float(r["transition_depth"])) for r in rows
               if r["source"] == src and r["transition_depth"] not in ("", None)]
        ax.plot(*zip(*pts), ls, color="black" if src == "formula" else GREY, lw=1,
                label=label)
    got = [r for r in rows if r["source"] == "measured" and r["transition_depth"] not in
           ("", None)]
    for r in sorted(got, key=lambda r: int(r["heads"])):
        w, H = int(r["width"]), int(r["heads"])
        one = H == 1  # H = 1: large open circle; H > 1: small filled square inside it
        ax.plot(w, float(r["transition_depth"]), "o" if one else "s", ms=8 if one else 3.5,
                color=width_color(w), mfc="none" if one else width_color(w), mew=1.3,
                ls="none", gid=f"d_x={w}", zorder=3,
                label=f"measured, $d_x = {w},\\ H = {H}$")
    ax.set_xscale("log")
    ax.set_xlabel("width $d_x$")
    ax.set_ylabel("transition depth $L$")
    ax.legend(loc="upper left")
    return fig

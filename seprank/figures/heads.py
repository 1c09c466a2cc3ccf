"""Figures 4 and 13: the rank against the number of heads, and against its proved bound."""

from __future__ import annotations

from seprank.figures.common import (
    TRANSITION_CSV,
    Measurer,
    truthy,
)
from seprank.figures.style import SINGLE, new_axes, width_color
from seprank.nets import LinearSelfAttention, head_counts
from seprank.theory.bounds import (
    theorem_bound,
)

# --------------------------------------------------------------------------- figure 4
FIG4_FIELDS = ["depth", "width", "seq_len", "heads", "measured_rank", "label", "saturated",
               "upper_proved"]


def heads_rows(quick: bool = False, measurer=None) -> list[dict]:
    """Figure 4's data: measured rank against the number of heads at fixed width.

    Parameters
    ----------
    quick : bool
        Three cases instead of five.
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).

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
        ub = theorem_bound(LinearSelfAttention(depth=L, width=d, heads=1, seq_len=N))["upper"]
        for H in head_counts(d):
            m = _m(L, d, H, N)
            rows.append({"depth": L, "width": d, "seq_len": N, "heads": H,
                         "measured_rank": m.rank, "saturated": bool(m.saturated),
                         "upper_proved": ub})
    return rows


#: Labelled ticks per decade tried in turn on a narrow log axis, until three are in view.
LOG_SUBS = ((1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
            (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0))


def _label_narrow_log_axis(ax) -> None:
    """A log y axis spanning under two decades (the quick grid) gets 3 or more labelled
    ticks (matplotlib labels only the powers of ten: one label, or none)."""
    import math

    from matplotlib.ticker import LogLocator, MaxNLocator, ScalarFormatter

    lo, hi = ax.get_ylim()
    if hi / lo >= 100:
        return
    locator = MaxNLocator(5)  # under a factor of about 1.5: evenly spaced values
    for subs in LOG_SUBS:
        ticks = [m * 10**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)))
                 for m in subs if lo <= m * 10**e <= hi]
        if len(ticks) >= 3:
            locator = LogLocator(subs=subs)
            break
    ax.yaxis.set_major_locator(locator)
    ax.yaxis.set_major_formatter(ScalarFormatter())


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
        The figure drawn into (new, or the one holding ``ax``).
    """
    fig, ax = new_axes(ax, size=(SINGLE, 3.7))
    cases = sorted({(int(r["depth"]), int(r["width"]), int(r["seq_len"])) for r in rows},
                   key=lambda c: (c[1], c[0], c[2]))
    seen: dict = {}
    for L, d, N in cases:
        pts = sorted((int(r["heads"]), int(r["measured_rank"]), int(r["upper_proved"]))
                     for r in rows if (int(r["depth"]), int(r["width"]), int(r["seq_len"]))
                     == (L, d, N))
        k = seen[(L, d)] = seen.get((L, d), -1) + 1
        shift = 1.06**k
        c = width_color(d)
        xs = [h * shift for h, _, _ in pts]
        ax.plot(xs, [m for _, m, _ in pts], ["-o", "--s"][k % 2], color=c, mfc=c if k == 0
                else "white", mew=1, gid=f"d_x={d}",
                label=f"$L = {L},\\ d_x = {d},\\ N = {N}$")
        ax.plot([xs[0] / 1.1, xs[-1] * 1.1], [pts[0][2]] * 2, ":", color=c, lw=1,
                gid=f"d_x={d}")
    from matplotlib.lines import Line2D

    handles, _ = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="black", ls=":", lw=1, label="proved bound (any $H$)"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2,
              columnspacing=0.8, handlelength=2.2)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    hs = sorted({int(r["heads"]) for r in rows})
    ax.set_xticks(hs, [str(h) for h in hs])
    _label_narrow_log_axis(ax)
    ax.minorticks_off()
    ax.set_xlabel("number of heads $H$ (head size $d_x / H$)")
    ax.set_ylabel(r"measured separation rank (over $\mathrm{GF}(p)$)")
    ax.set_title("Fixed width: the measured rank falls as $H$ grows")
    return fig


# --------------------------------------------------------------------------- figure 13
FIG13_FIELDS = ["depth", "width", "seq_len", "heads", "measured_rank", "label", "saturated",
                "upper_proved", "source"]


def heads_bound_rows(fig4_rows, trows) -> list[dict]:
    r"""Figure 13's data: measured rank and proved bound per head count.

    From figure 4's rows and the transition CSV's exact rows.

    Parameters
    ----------
    fig4_rows : list of dict
        :func:`heads_rows` (or figure 4's CSV).
    trows : list of dict
        Rows of the transition CSV.

    Returns
    -------
    list of dict
        ``depth``, ``width``, ``seq_len``, ``heads``, ``measured_rank``, ``saturated`` (as
        its source row records it), ``upper_proved`` and ``source``, for depths :math:`L \ge 2`
        and :math:`(L, d_x, N)` with more than one head count (the CSV adds ``label``).
    """
    ints = ("depth", "width", "seq_len", "heads", "measured_rank", "upper_proved")
    rows = [{**{k: int(r[k]) for k in ints}, "saturated": truthy(r["saturated"]),
             "source": "fig4"} for r in fig4_rows]
    have = {(r["depth"], r["width"], r["seq_len"], r["heads"]) for r in rows}
    for r in trows:
        k = tuple(int(r[c]) for c in ("depth", "width", "seq_len", "heads"))
        if k not in have:
            rows.append({"depth": k[0], "width": k[1], "seq_len": k[2], "heads": k[3],
                         "measured_rank": int(r["measured"]),
                         "saturated": truthy(r["saturated"]),
                         "upper_proved": int(r["upper_proved"]), "source": TRANSITION_CSV})
    cases: dict = {}
    for r in rows:
        cases.setdefault((r["depth"], r["width"], r["seq_len"]), []).append(r)
    # H = 1 and H > 1 both present; depth 1 left out (every depth-1 measurement meets its
    # bound)
    return [r for (L, _, _), rs in cases.items() if len(rs) > 1 and L > 1 for r in rs]


def plot_heads_bound(rows, ax=None):
    """Draw figure 13: measured / proved bound against the head size :math:`d_x / H`.

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
        The figure drawn into (new, or the one holding ``ax``).
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
                mfc="white" if N < 2 * d else width_color(d), gid=f"d_x={d}")
    from matplotlib.lines import Line2D

    ws = sorted({c[1] for c in cases})
    ls = sorted({c[0] for c in cases})
    h = [Line2D([], [], color=width_color(d), lw=2, label=f"$d_x = {d}$") for d in ws]
    h += [Line2D([], [], marker=marks.get(L, "o"), color="black", ls="none",
                 label=f"$L = {L}$") for L in ls]
    h.append(Line2D([], [], marker="o", mfc="white", color="black", ls="none",
                    label="hollow: $N < 2 d_x$"))
    ax.legend(handles=h, loc="lower right", ncol=2)
    ax.set_xscale("log", base=2)
    hs = sorted({int(r["width"]) // int(r["heads"]) for r in rows})
    ax.set_xticks(hs, [str(x) for x in hs])
    ax.minorticks_off()
    ax.set_xlabel("head size $d_x / H$ ($H = 1$ at the right end of a line)")
    ax.set_ylabel("measured / proved bound")
    return fig

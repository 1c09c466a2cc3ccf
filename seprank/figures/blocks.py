"""Figure 11: each graded block's measured rank beside its proved bound."""

from __future__ import annotations

from seprank.figures.common import block_ranks
from seprank.figures.style import DOUBLE, GREY, new_axes, width_color
from seprank.nets import LinearSelfAttention
from seprank.theory.bounds import (
    block_terms,
    matrix_degree,
    theorem_bound,
)

# --------------------------------------------------------------------------- figure 11
FIG11_FIELDS = ["width", "heads", "seq_len", "depth", "a_degree", "measured_block_rank",
                "label", "block_bound", "source"]


def block_rows(trows) -> list[dict]:
    r"""Figure 11's data: each graded block's measured rank beside its proved bound.

    The bound of the block of :math:`A`-degree :math:`2j + 1` is :math:`\min(b_k, a_{D-k})`
    with :math:`k = D - j`
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
        ub = theorem_bound(LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N))
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
        The figure drawn into (new, or the one holding ``ax``).
    """
    from matplotlib.lines import Line2D

    fig, (a1, a2) = new_axes(ax, ncols=2, size=(DOUBLE, 3.0))
    marks = {1: "o", 2: "s", 3: "^", 4: "D", 5: "v", 6: "p", 7: "h"}

    def key(r):
        return (int(r["width"]), int(r["heads"]), int(r["seq_len"]), int(r["depth"]))

    configs = sorted({key(r) for r in rows})
    hi = 1
    ones = [c for c in configs if c[1] == 1]
    reach = [1] * len(ones)  # the largest A-degree drawn (or annotated) on each row
    for d, H, N, L in configs:
        rs = [r for r in rows if key(r) == (d, H, N, L)]
        x = [int(r["block_bound"]) for r in rs]
        y = [int(r["measured_block_rank"]) for r in rs]
        hi = max(hi, *x)
        c = width_color(d)
        a1.plot(x, y, marks.get(L, "o"), color=c, mfc=c if H == 1 else "white", mew=0.8,
                ms=3.5, ls="none", gid=f"d_x={d}", zorder=3 if H == 1 else 2)
        if H != 1:
            continue
        row = ones.index((d, H, N, L))
        at = [int(r["a_degree"]) for r in rs if int(r["block_bound"]) ==
              int(r["measured_block_rank"])]
        a2.plot(at, [row] * len(at), "o", color=c, ms=2.5, ls="none", gid=f"d_x={d}")
        reach[row] = max([reach[row]] + at)
        for r in rs:
            if int(r["block_bound"]) > int(r["measured_block_rank"]):
                g = int(r["a_degree"])
                a2.plot(g, row, "x", color="black", ms=7, mew=1.5, zorder=4)
                for near in (row - 1, row):  # the label's two lines, above its row
                    if near >= 0:
                        reach[near] = float("inf")
                a2.annotate(f"$A$-degree {g}: measured {r['measured_block_rank']},\n"
                            f"proved bound {r['block_bound']}", (g, row), xytext=(6, 5),
                            textcoords="offset points", fontsize=7, va="bottom")
    a1.plot([1, hi * 1.5], [1, hi * 1.5], "-", color=GREY, lw=0.8, zorder=0)
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel(r"proved block bound $\min(b_k,\, a_{D-k})$")
    a1.set_ylabel(r"measured block rank (over $\mathrm{GF}(p)$)")
    depths = sorted({c[3] for c in configs})
    h = [Line2D([], [], marker=marks.get(L, "o"), color="black", ls="none", mfc="black",
                label=f"$L = {L}$") for L in depths]
    h += [Line2D([], [], marker="o", color="black", mfc="white", ls="none", label="$H > 1$"),
          Line2D([], [], color=GREY, lw=0.8, label="measured = bound")]
    lo, hi = a1.get_ylim()
    a1.set_ylim(lo, hi * 300)  # two decades above the points: the legend covers none
    a1.legend(handles=h, loc="upper left", ncol=2)
    a2.set_yticks(range(len(ones)), [f"$L = {L},\\ d_x = {d},\\ N = {N}$" for d, _, N, L in ones])
    a2.set_ylim(len(ones) - 0.5, -0.5)
    a2.set_xscale("log")
    a2.set_xlabel("$A$-degree of the block ($H = 1$)")
    a2.legend(handles=[Line2D([], [], marker="o", color="black", ms=2.5, ls="none",
                              label="measured = proved bound"),
                       Line2D([], [], marker="x", color="black", ms=6, mew=1.5, ls="none",
                              label="measured < proved bound")],
              loc="center right", bbox_to_anchor=(1.0, _free_rows(reach)))
    return fig


def _free_rows(reach: list) -> float:
    """The height (axes fraction) of the two adjacent rows whose dots end furthest left:
    where the right panel's legend, at its right end, covers no dot."""
    n = len(reach)
    if n < 2:
        return 0.5
    r = min(range(n - 1), key=lambda i: (max(reach[i], reach[i + 1]), -i))
    return (n - 1 - r) / n  # rows run downward: row i's centre is at (n - 0.5 - i) / n

"""Figure 6: what the H = 1 formula says at a fixed parameter budget."""

from __future__ import annotations

import math

from seprank.figures.common import seq_colors
from seprank.figures.style import DOUBLE, GREY, apply_style, new_axes
from seprank.theory.bounds import (
    generic_block_bound_log10,
)
from seprank.theory.guidelines import fit_optimal_shape
from seprank.theory.regimes import (
    expressivity_optimal_depth,
    paper_optimal_depth,
    width_at_budget,
)


# --------------------------------------------------------------------------- figure 6
def _budget_curve(P: float, L: int) -> float:
    """log10 sep of the H=1 formula at depth L with the width spending the budget P."""
    return generic_block_bound_log10(L, width_at_budget(P, L))


def budget_asymptote(P: float) -> float:
    r"""The reference :math:`R(P) = P \log_{10} 3 / 24` of figure 6.

    It is the large-depth value :math:`m \log_{10} 3^L` of the formula's :math:`\log_{10}`
    with :math:`m = d^2 / 2` and a real width :math:`d = \sqrt{P / 12 L}`. With an integer
    width and :math:`m = d(d + 1) / 2` the formula can exceed it (it does at the largest
    depths drawn).

    Parameters
    ----------
    P : float
        The non-embedding parameter budget :math:`12 L d_x^2`.

    Returns
    -------
    float
    """
    return P * math.log10(3) / 24


def depth_reaching(P: float, frac: float, hi: int = 4000) -> int:
    r"""Smallest depth whose :math:`\log_{10}` sep (:math:`H = 1` formula) reaches ``frac`` of R(P).

    Parameters
    ----------
    P : float
        The budget :math:`12 L d_x^2`.
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
               "gain_or_depth90", "width", "params_used"]
FIG6_BUDGETS = (1e8, 1e10, 1e12, 1e14)


def equal_params_rows(budgets=FIG6_BUDGETS) -> list[dict]:
    """Figure 6's data (all from the proved :math:`H = 1` formula, nothing measured).

    Parameters
    ----------
    budgets : iterable of float
        The budgets :math:`P = 12 L d_x^2` of the curves.

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
                         "params_used": 12 * L * w * w})
        rows.append({"kind": "depth_90_99", "params": P, "depth_or_fit": depth_reaching(P, 0.9),
                     "value_or_ours": depth_reaching(P, 0.99)})
    for k in range(10, 27):
        P = 10 ** (k / 2)
        rows.append({"kind": "optimum", "params": P,
                     "depth_or_fit": fit_optimal_shape(P)["depth"],
                     "value_or_ours": expressivity_optimal_depth(P),
                     "fraction_or_paper_rule": paper_optimal_depth(P),
                     "gain_or_depth90": depth_reaching(P, 0.9)})
    return rows


def _budget(P: float) -> str:
    """A budget as mathtext: ``$P = 10^{9}$`` (``$P = 3 \\times 10^{9}$``)."""
    m, e = f"{P:.0e}".split("e")
    return f"$P = 10^{{{int(e)}}}$" if m == "1" else f"$P = {m} \\times 10^{{{int(e)}}}$"


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
        The figure drawn into (new, or the one holding ``ax``).
    """
    if ax is None:
        import matplotlib.pyplot as plt

        apply_style()
        fig = plt.figure(figsize=(DOUBLE, 4.9))
        gs = fig.add_gridspec(2, 2)
        a1, a2, a3 = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1]), \
            fig.add_subplot(gs[1, :])
    else:
        fig, (a1, a2, a3) = new_axes(ax, ncols=3)
    budgets = sorted({float(r["params"]) for r in rows if r["kind"] == "curve"})
    for col, P in zip(seq_colors(len(budgets)), budgets):
        cur = [r for r in rows if r["kind"] == "curve" and float(r["params"]) == P]
        Ls = [int(r["depth_or_fit"]) for r in cur]
        a1.plot(Ls, [float(r["fraction_or_paper_rule"]) for r in cur], color=col,
                label=_budget(P))
        q = next(r for r in rows if r["kind"] == "depth_90_99" and float(r["params"]) == P)
        a1.plot([int(q["depth_or_fit"]), int(q["value_or_ours"])], [0.9, 0.99], "o",
                color=col, mec="black", mew=0.5, ls="none")
        pos = [(math.sqrt(a * b), 100 * float(r["gain_or_depth90"])) for a, b, r in
               zip(Ls, Ls[1:], cur) if r["gain_or_depth90"] != "" and
               float(r["gain_or_depth90"]) > 0]
        a2.plot(*zip(*pos), color=col, label=_budget(P))
    a1.axhline(1, color=GREY, lw=0.8, ls="--")
    a1.plot([], [], "o", color=GREY, mec="black", mew=0.5, label="depths reaching 0.9, 0.99")
    a1.set_xscale("log")
    a1.set_xlabel(r"depth $L$ ($d_x = \sqrt{P / 12L}$ rounded; $R(P) = P\,\log_{10} 3\,/\,24$)")
    a1.set_ylabel(r"$\log_{10} \mathrm{sep} \,/\, R(P)$")
    a1.legend(loc="upper left")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("depth $L$ (geometric mid of the step)")
    a2.set_ylabel(r"gain per added layer (% of $R(P)$)")
    a2.legend(loc="lower left")
    opt = [r for r in rows if r["kind"] == "optimum"]
    Ps = [float(r["params"]) for r in opt]
    a3.plot(Ps, [float(r["depth_or_fit"]) for r in opt], "-", color="black",
            label="paper's empirical fit (its depth for $P$)")
    a3.plot(Ps, [float(r["value_or_ours"]) for r in opt], "-o", ms=2.5, color=GREY,
            label="last depth-efficient $L$ ($H = 1$ formula, proved)")
    a3.plot(Ps, [float(r["fraction_or_paper_rule"]) for r in opt], "--", color=GREY,
            label=r"paper's rule $L = \log_3 d_x$")
    a3.plot(Ps, [float(r["gain_or_depth90"]) for r in opt], ":", color="black", lw=1.5,
            label="depth reaching $0.9\\,R(P)$ (formula)")
    for (name, P, L), mk in zip((("GPT-3 175B: 96 layers", 175e9, 96),
                                 ("1T model (its authors): 92 layers", 1e12, 92)), "*P"):
        a3.plot(P, L, mk, ms=8, color="white", mec="black", ls="none", label=name)
    a3.set_xscale("log")
    a3.set_yscale("log")
    a3.set_xlabel("non-embedding parameters $P = 12 L d_x^2$")
    a3.set_ylabel("depth $L$ (layers)")
    a3.set_ylim(0.05, 400)
    a3.legend(loc="lower right", ncol=2)
    return fig

"""The theorem figures. ``make_all(out, quick)`` writes each as PNG + PDF + CSV.

Measured points come from :func:`seprank.measure` (exact modular ranks); lines from the
proven formulas in :mod:`seprank.theory`. Every figure says which is which.
"""

from __future__ import annotations

import csv
import math
import sys
import time
from pathlib import Path

from seprank.engine.measure import measure
from seprank.errors import SeprankError
from seprank.figures.captions import write_readme
from seprank.figures.style import COLORS, apply_style, save
from seprank.nets import LinearSelfAttention, head_counts
from seprank.sweeps import tasks as sweep_tasks
from seprank.sweeps.store import Store
from seprank.theory.bounds import block_bound, generic_block_bound_log10
from seprank.theory.guidelines import fit_optimal_shape
from seprank.theory.regimes import (
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


def _csv(path: Path, header: list[str], rows: list) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


class Measurer:
    """The figures' measurements: exact (modular) ones through the result store ``store``
    (a :class:`seprank.sweeps.store.Store`, or None: measure inline), so a rerun of the figures
    measures nothing already stored; float ones inline (the figure needs their spectrum,
    which the store does not keep)."""

    def __init__(self, store=None):
        self.store = store

    def __call__(self, depth, width, heads, seq_len, *, method="modular", seed=0,
                 max_samples=None):  # fmt: skip
        net = LinearSelfAttention(depth=depth, width=width, heads=heads, seq_len=seq_len)
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


# --------------------------------------------------------------------------- figure 1
def fig_rank_vs_depth(out: Path, quick: bool, measurer=None):
    _m = measurer or Measurer()
    import matplotlib.pyplot as plt

    budget = 400 if quick else 3200
    rows, fig = [], plt.figure(figsize=(7, 4.6))
    ax = fig.gca()
    for i, d in enumerate(range(2, 7)):
        c = COLORS[i]
        Ls = list(range(1, 7))
        form = [generic_block_bound_log10(L, d) for L in Ls]
        ax.plot(Ls, form, "-", color=c, label=f"d_x={d}: block formula (proved bound)")
        # Paper-style asymptotic shapes, anchored at L = 1: Theta(3^L log d) and Theta(d^2 L).
        eff = [form[0] * 3 ** (L - 1) for L in Ls]
        ax.plot(Ls, eff, ":", color=c, lw=1, alpha=0.7)
        for L in Ls:
            if 10 ** form[L - 1] > budget:
                break
            m = _m(L, d, 1, 2 * d)
            rows.append([d, L, m.rank, m.saturated, round(form[L - 1], 6)])
            ax.plot(L, math.log10(m.rank), "o", color=c, mec="black", ms=6)
    ax.plot([], [], "ok", mec="black", label="measured exact rank (H=1, N=2d_x)")
    ax.plot([], [], ":k", label="paper's efficient-regime shape 3^L (anchored at L=1)")
    ax.set_ylim(0, 40)
    ax.set_xlabel("depth L (layers)")
    ax.set_ylabel("log10 separation rank")
    ax.set_title("Separation rank vs depth: measured (points) and formula (lines)")
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    save(fig, out, "fig1_rank_vs_depth")
    _csv(out / "fig1_rank_vs_depth.csv", ["width", "depth", "measured_rank", "saturated",
                                          "log10_formula"], rows)  # fmt: skip


# --------------------------------------------------------------------------- figure 2
def fig_regimes(out: Path, quick: bool, measurer=None):
    import matplotlib.pyplot as plt

    widths = [2, 10, 100, 1000, 10000]
    markers = ["o", "s", "^", "D", "v"]
    fig, ax = plt.subplots(figsize=(7.6, 5))
    rows = []
    for i, d in enumerate(widths):
        Ls = list(range(1, 22))
        r = [formula_growth_ratio(L, d) for L in Ls]
        rows += [[d, L, x] for L, x in zip(Ls, r)]
        ax.plot(Ls, r, "-", marker=markers[i], ms=4, mfc="none", color=COLORS[i],
                label=f"d_x={d}")  # fmt: skip
        ax.axvline(paper_transition_depth(d), color=COLORS[i], ls="--", lw=1)
        ax.axvline(doubled_transition_depth(d), color=COLORS[i], ls=":", lw=1.5)
    ax.axhline(3, color="gray", lw=0.8)
    ax.axhline(2, color="gray", lw=0.8, ls="-.")
    note = ("2 log3 d = log3 d^2: the dotted line of\nd_x = 10 (100) is the dashed one of\n"
            "d_x = 100 (10^4), at L = 4.2 (8.4)")
    ax.text(15.0, 2.25, note, fontsize=7, bbox={"fc": "white", "ec": "gray", "lw": 0.5})
    ax.plot([], [], "k--", lw=1, label="paper: L = log3 d_x")
    ax.plot([], [], "k:", lw=1.5, label="L = 2 log3 d_x")
    ax.plot([], [], "-", color="gray", lw=0.8, label="ratio 3: log sep triples per layer")
    ax.plot([], [], "-.", color="gray", label="ratio 2: our threshold (>= 2 efficient)")
    ax.set_xlabel("depth L (layers)")
    ax.set_ylabel("growth ratio log sep(L+1) / log sep(L)")
    ax.set_title("Regimes from the H=1 block formula: depth-efficient while the ratio >= 2")
    ax.legend(fontsize=7, loc="upper right")
    save(fig, out, "fig2_regimes")
    _csv(out / "fig2_regimes.csv", ["width", "depth", "growth_ratio_formula"], rows)


# --------------------------------------------------------------------------- figure 3
def fig_transition(out: Path, quick: bool, measurer=None):
    _m = measurer or Measurer()
    import matplotlib.pyplot as plt

    ws = sorted({int(round(10 ** (k / 4))) for k in range(1, 17)} | {2, 3})
    fig, ax = plt.subplots(figsize=(7, 4.6))
    ax.plot(ws, [paper_transition_depth(w) for w in ws], "--", color=COLORS[0],
            label="paper: log3 d_x")
    ax.plot(ws, [doubled_transition_depth(w) for w in ws], ":", color=COLORS[1],
            label="2 log3 d_x")
    ft = [formula_transition_depth(w) for w in ws]
    ax.plot(ws, ft, "-", color=COLORS[2], label="H=1 block formula (ratio crosses 2)")
    rows = [["formula", w, 1, t] for w, t in zip(ws, ft)]
    cases = [(2, 1), (2, 2), (3, 1), (3, 3)] if quick else [(2, 1), (2, 2), (3, 1), (3, 3),
                                                             (4, 2), (4, 4)]  # fmt: skip
    for w, H in cases:
        logs = {}
        for L in range(1, 5):
            N = 2 * w
            if block_bound(L, w, w, w) > (600 if quick else 3200):
                break
            m = _m(L, w, H, N)
            logs[L] = math.log(m.rank)
        t = transition_from_ratios(growth_ratios(logs))
        rows.append(["measured", w, H, t])
        if t is not None:
            ax.plot(w, t, "o" if H == 1 else "s", color=COLORS[3 if H == 1 else 4], mec="black")
    ax.plot([], [], "o", color=COLORS[3], mec="black", label="measured, H=1")
    ax.plot([], [], "s", color=COLORS[4], mec="black", label="measured, H>1")
    ax.set_xscale("log")
    ax.set_xlabel("width d_x")
    ax.set_ylabel("transition depth L (layers)")
    ax.set_title("Where depth stops paying: transition depth vs width")
    ax.legend(fontsize=8)
    save(fig, out, "fig3_transition_depth")
    _csv(out / "fig3_transition_depth.csv", ["source", "width", "heads", "transition_depth"],
         rows)  # fmt: skip


# --------------------------------------------------------------------------- figure 4
def fig_heads(out: Path, quick: bool, measurer=None):
    _m = measurer or Measurer()
    import matplotlib.pyplot as plt

    cases = [(2, 4, 4), (2, 6, 4), (3, 2, 4)] + ([] if quick else [(2, 6, 6), (2, 8, 4)])
    fig, ax = plt.subplots(figsize=(7, 4.6))
    rows = []
    for i, (L, d, N) in enumerate(cases):
        Hs = head_counts(d)
        ranks = [_m(L, d, H, N).rank for H in Hs]
        rows += [[L, d, N, H, r] for H, r in zip(Hs, ranks)]
        ax.plot(Hs, ranks, "-o", color=COLORS[i], label=f"L={L}, d_x={d}, N={N}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("number of heads H (head size d_x / H)")
    ax.set_ylabel("measured separation rank (exact, saturated)")
    ax.set_title("More heads at fixed width: the rank does not grow")
    ax.legend(fontsize=8)
    save(fig, out, "fig4_heads")
    _csv(out / "fig4_heads.csv", ["depth", "width", "seq_len", "heads", "measured_rank"], rows)


# --------------------------------------------------------------------------- figure 5
def fig_float_vs_exact(out: Path, quick: bool, measurer=None):
    _m = measurer or Measurer()
    import matplotlib.pyplot as plt

    d, N = 2, 2
    Ls = [1, 2, 3] if quick else [1, 2, 3, 4]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.4))
    rows, exact, flo = [], [], []
    for i, L in enumerate(Ls):
        e = _m(L, d, 1, N)
        f = _m(L, d, 1, N, method="float", max_samples=max(e.samples))
        exact.append(e.rank)
        flo.append(f.rank)
        rows.append([L, 3**L, e.rank, f.rank, f.tolerance])
        s = f.spectrum / f.spectrum[0]
        a2.semilogy(range(1, len(s) + 1), s, color=COLORS[i], label=f"L={L} (exact rank {e.rank})")
        a2.axvline(e.rank, color=COLORS[i], ls=":", lw=1)
    a2.axhline(f.tolerance / f.spectrum[0], color="gray", ls="--", lw=1,
               label="float tolerance (last run)")
    degs = [3**L for L in Ls]
    a1.plot(degs, exact, "-o", color=COLORS[0], label="exact (GF(p), certified)")
    a1.plot(degs, flo, "-s", color=COLORS[1], label="float64 SVD rank")
    a1.set_xscale("log", base=3)
    a1.set_yscale("log")
    a1.set_xlabel("polynomial degree 3^L")
    a1.set_ylabel("rank")
    a1.set_title(f"Exact vs float rank (d_x={d}, N={N}, H=1)")
    a1.legend(fontsize=8)
    a2.set_xlabel("singular value index")
    a2.set_ylabel("s_i / s_1 (float64 grid)")
    a2.set_title("Spectra: the gap vanishes as the degree grows")
    a2.legend(fontsize=7)
    save(fig, out, "fig5_exact_vs_float")
    _csv(out / "fig5_exact_vs_float.csv", ["depth", "degree", "exact_rank", "float_rank",
                                           "float_tolerance"], rows)  # fmt: skip


# --------------------------------------------------------------------------- figure 6
def _budget_curve(P: float, L: int) -> float:
    """log10 sep of the H=1 formula at depth L with the width spending the budget P."""
    return generic_block_bound_log10(L, width_at_budget(P, L))


def budget_asymptote(P: float) -> float:
    """log10 sep as L -> infinity at a fixed budget: m log10(3^L) with m = d^2/2 = P/(24L)."""
    return P * math.log10(3) / 24


def depth_reaching(P: float, frac: float, hi: int = 4000) -> int:
    """Smallest depth whose log10 sep reaches ``frac`` of the budget's asymptote."""
    target = frac * budget_asymptote(P)
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _budget_curve(P, mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def fig_equal_params(out: Path, quick: bool, measurer=None):
    import matplotlib.pyplot as plt

    budgets = [1e8, 1e10, 1e12, 1e14]  # widths >= 50 everywhere: integer rounding stays small
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(15, 4.8))
    rows = []
    Ls = sorted({int(round(10 ** (k / 20))) for k in range(0, 71)})  # 1 .. 3162, log-spaced
    for i, P in enumerate(budgets):
        A = budget_asymptote(P)
        v = [_budget_curve(P, L) for L in Ls]
        a1.plot(Ls, [x / A for x in v], color=COLORS[i], label=f"{P:.0e} params")
        d90, d99 = depth_reaching(P, 0.9), depth_reaching(P, 0.99)
        a1.plot([d90, d99], [0.9, 0.99], "o", color=COLORS[i], mec="black", ms=5)
        # gain per layer as the secant between grid depths (averages the width rounding)
        gain = [(v[j + 1] - v[j]) / (Ls[j + 1] - Ls[j]) / A for j in range(len(Ls) - 1)]
        mid = [math.sqrt(Ls[j] * Ls[j + 1]) for j in range(len(Ls) - 1)]
        pos = [(x, 100 * g) for x, g in zip(mid, gain) if g > 0]
        a2.plot([x for x, _ in pos], [g for _, g in pos], color=COLORS[i], label=f"{P:.0e} params")
        rows += [["curve", P, L, x, x / A, g] for L, x, g in zip(Ls, v, gain + [""])]
        rows.append(["depth_90_99", P, d90, d99, "", ""])
    a1.axhline(1, color="gray", lw=1, ls="--")
    a1.plot([], [], "o", color="gray", mec="black", label="depths reaching 90% and 99%")
    a1.plot([], [], "--", color="gray", label="asymptote P log10(3) / 24")
    a1.set_xscale("log")
    a1.set_xlabel("depth L (width spends the budget: 12 L d_x^2)")
    a1.set_ylabel("log10 sep / its limit as L -> infinity")
    a1.set_title("Fixed budget: share of the asymptote reached (H=1 formula)")
    a1.legend(fontsize=7, loc="upper left")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("depth L (layers)")
    a2.set_ylabel("gain per added layer (% of the asymptote)")
    a2.set_title("Marginal gain per added layer")
    a2.legend(fontsize=7, loc="upper right")
    Ps = [10 ** (k / 2) for k in range(10, 27)]
    fit_d = [fit_optimal_shape(P)["depth"] for P in Ps]
    ours = [expressivity_optimal_depth(P) for P in Ps]
    paper = [paper_optimal_depth(P) for P in Ps]
    d90s = [depth_reaching(P, 0.9) for P in Ps]
    rows += [["optimum", P, f, o, p, q] for P, f, o, p, q in zip(Ps, fit_d, ours, paper, d90s)]
    a3.plot(Ps, fit_d, "-", color=COLORS[0], label="paper's empirical fit d=exp(5.039+0.0555L)")
    a3.plot(Ps, ours, "-o", ms=3, color=COLORS[1],
            label="theory: last depth-efficient L (H=1 formula)")  # fmt: skip
    a3.plot(Ps, paper, "--", color=COLORS[2], label="paper's rule L = log3 d_x")
    a3.plot(Ps, d90s, ":", color=COLORS[5], lw=2, label="depth reaching 90% of the asymptote")
    stars = (("GPT-3 175B: 96 layers", 175e9, 96, COLORS[3]),
             ("1T model, authors: 92 layers", 1e12, 92, COLORS[4]))  # fmt: skip
    for name, P, L, c in stars:  # in the legend, not as labels: nothing to collide
        a3.plot(P, L, "*", ms=13, color=c, mec="black", label=name)
    a3.set_xscale("log")
    a3.set_yscale("log")
    a3.set_xlabel("non-embedding parameters (12 L d_x^2)")
    a3.set_ylabel("depth L (layers)")
    a3.set_title("Optimal depth per budget: theory vs the paper's fit")
    a3.legend(fontsize=6.5, loc="lower right")
    save(fig, out, "fig6_equal_params")
    _csv(out / "fig6_equal_params.csv", ["kind", "params", "depth_or_fit", "value_or_ours",
                                         "fraction_or_paper_rule", "gain_or_depth90"],
         rows)  # fmt: skip


# --------------------------------------------------------------------------- figure 7
def fig_experiment(out: Path, quick: bool, measurer=None):
    import matplotlib.pyplot as plt

    here = Path(__file__).resolve().parents[2] / "experiments/depth_width/results/results.csv"
    cands = [Path("experiments/depth_width/results/results.csv"), here]
    src = next((p for p in cands if p.exists()), None)
    if src is None:
        msg = ("figure 7 skipped: no experiment output; make it with "
               "`seprank experiment --preset cpu --out experiments/depth_width/results`")
        print(msg, file=sys.stderr)
        (out / "fig7_experiment.MISSING.txt").write_text(msg + "\n")
        return
    with src.open() as f:
        rows = list(csv.DictReader(f))
    by: dict = {}
    for r in rows:
        by.setdefault(int(r["budget"]), {}).setdefault(int(r["depth"]), []).append(
            float(r["val_loss"]))
    fig, ax = plt.subplots(figsize=(7, 4.6))
    out_rows = []
    for i, (b, dd) in enumerate(sorted(by.items())):
        Ls = sorted(dd)
        mean = [sum(dd[L]) / len(dd[L]) for L in Ls]
        sd = [(sum((x - m) ** 2 for x in dd[L]) / (len(dd[L]) - 1)) ** 0.5 if len(dd[L]) > 1
              else 0.0 for L, m in zip(Ls, mean)]  # fmt: skip
        ax.errorbar(Ls, mean, yerr=sd, marker="o", capsize=3, color=COLORS[i],
                    label=f"{b:,} non-emb. params")
        out_rows += [[b, L, m, s] for L, m, s in zip(Ls, mean, sd)]
    ax.set_xscale("log", base=2)
    ax.set_xlabel("depth L (layers; width spends the budget)")
    ax.set_ylabel("validation loss (nats/byte)")
    ax.set_title(f"Torch experiment: loss vs depth at fixed budgets ({src.parent.name})")
    ax.legend(fontsize=8)
    save(fig, out, "fig7_experiment")
    _csv(out / "fig7_experiment.csv", ["budget", "depth", "val_loss_mean", "val_loss_std"],
         out_rows)  # fmt: skip


FIGURES = [fig_rank_vs_depth, fig_regimes, fig_transition, fig_heads, fig_float_vs_exact,
           fig_equal_params, fig_experiment]  # fmt: skip


def make_all(out: Path, quick: bool = False, db: Path | str | None = None) -> list[str]:
    """Write every figure to ``out`` (PNG, PDF, CSV) and a README with captions. With
    ``db`` (a result store path) the exact measurements are read from it where stored and
    stored as they finish (:class:`Measurer`)."""
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
            print(f"{f.__name__}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
            done.append(f.__name__)

    write_readme(out, quick)
    return done

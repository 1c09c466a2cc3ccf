"""Figure 8: the measured transition, drawn from the CSV that ``seprank transition`` writes.

Left: log10 of the measured separation rank against depth, per (width, heads), with the
proved bound as lines. Right: the growth ratio log sep(L+1) / log sep(L) from measured
ranks (markers) beside the bound's (lines); 3 is doubly-exponential growth (depth pays),
(L+1)/L the linear regime. Vertical ticks: the paper's transition log3 d_x.
"""

from __future__ import annotations

import math
from pathlib import Path

from seprank.figures.style import COLORS, apply_style, save
from seprank.studies.transition import CSV_NAME, read
from seprank.theory.regimes import paper_transition_depth

NAME = "fig8_measured_transition"


def draw(out: Path | str) -> Path:
    """Draw figure 8 (PNG + PDF) into ``out`` from ``out``/fig8_measured_transition.csv."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    apply_style()
    out = Path(out)
    rows = read(out / CSV_NAME)
    series: dict = {}
    for r in rows:
        series.setdefault((int(r["width"]), int(r["heads"])), []).append(r)
    from matplotlib.lines import Line2D

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11.5, 4.8))
    handles = []
    for i, ((d, H), rs) in enumerate(sorted(series.items())):
        rs.sort(key=lambda r: int(r["depth"]))
        c = COLORS[i % len(COLORS)]
        mk = "o" if H == 1 else "s"
        ls = "-" if H == 1 else ":"
        L = [int(r["depth"]) for r in rs]
        for r in rs:  # filled: exact (meets the proved bound); hollow: a lower bound
            exact = r["exact_proved"] == "True" or r["saturated"] == "True"
            ax.plot(int(r["depth"]), math.log10(int(r["measured"])), mk, mec=c if not exact
                    else "black", mfc=c if exact else "white", mew=1.5, ms=7, zorder=3)
        ax.plot(L, [math.log10(int(r["upper_proved"])) for r in rs], ls, color=c, lw=1.2)
        rf = [(int(r["depth"]), float(r["ratio_formula"])) for r in rs if r["ratio_formula"]]
        by_depth = {int(r["depth"]): r for r in rs}
        for Ld, r in by_depth.items():  # hollow where either end is only a lower bound
            nxt = by_depth.get(Ld + 1)
            if nxt is None or int(r["measured"]) < 2:
                continue
            ratio = math.log(int(nxt["measured"])) / math.log(int(r["measured"]))
            exact = all(x["exact_proved"] == "True" or x["saturated"] == "True"
                        for x in (r, nxt))  # fmt: skip
            bx.plot(Ld, ratio, mk, mec="black" if exact else c, mfc=c if exact else "white",
                    mew=1.5, ms=7, zorder=3)  # fmt: skip
        if rf:
            bx.plot(*zip(*rf), ls, color=c, lw=1.2)
        handles.append(Line2D([], [], color=c, marker=mk, mec="black", ls=ls,
                              label=f"d_x={d}, H={H} (N={rs[0]['seq_len']})"))  # fmt: skip
    for d in sorted({d for d, _ in series}):
        bx.axvline(paper_transition_depth(d), color="grey", lw=0.8, ls="--")
        bx.text(paper_transition_depth(d), 1.03, f"log3 {d}", fontsize=7, ha="center",
                color="grey", rotation=90, va="bottom")  # fmt: skip
    bx.axhline(3, color="black", lw=0.6)
    bx.axhline(2, color="black", lw=0.6, ls=":")
    ax.set_xlabel("depth L (layers)")
    ax.set_ylabel("log10 separation rank")
    ax.set_title("Measured separation rank (markers) vs proved bound (lines)")
    bx.set_xlabel("depth L (ratio from L to L+1)")
    bx.set_ylabel("growth ratio log sep(L+1) / log sep(L)")
    bx.set_title("Growth per added layer: 3 = doubly exponential, 2 = threshold")
    bx.set_ylim(1, 3.3)
    for a in (ax, bx):
        a.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        a.margins(x=0.08, y=0.08)
    handles += [Line2D([], [], color="grey", marker="o", mec="black", ls="",
                       label="filled: measured = proved bound (exact)"),
                Line2D([], [], color="grey", marker="o", mfc="white", ls="",
                       label="hollow: measured, a lower bound only"),
                Line2D([], [], color="grey", ls="-", label="lines: proved bound (solid H=1, "
                       "dotted H>1)")]  # fmt: skip
    ax.legend(handles=handles, fontsize=7.5, loc="upper left")
    save(fig, out, NAME)
    return out / f"{NAME}.png"

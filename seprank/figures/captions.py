"""paper_figures/README.md: each figure, its caption and the command that made it."""

from __future__ import annotations

from pathlib import Path

from seprank.figures.csv_rows import read_rows
from seprank.paths import write_text

CAPTIONS = {
    "fig1_rank_vs_depth": (
        r"$\log_{10}$ separation rank against depth $L$, one head, $N = 2 d_x$ positions "
        r"($d_x$ per side), balanced partition. Markers: measured ranks ($\mathrm{GF}(p)$, "
        "seed 0): depths up to a proved bound of 3200 measured by `seprank figures`, deeper "
        "ones (to $L = 6$ for $d_x = 2$) read from fig8_measured_transition.csv; the CSV's "
        "`source` says which. Every marker equals the proved bound (`exact_proved`). Solid "
        "lines: the proved block formula. Dotted lines: the shape $3^L$, anchored at the "
        "formula's $L = 1$ value; the y range is cut at the largest formula value drawn."),
    "fig2_regimes": (
        r"Growth ratio $\log \operatorname{sep}(L+1) / \log \operatorname{sep}(L)$ of the "
        r"proved $H = 1$ block formula against $L / \log_3 d_x$, for $d_x$ = 2, 3, 4, 6, 10 "
        r"and 100. Vertical lines: the paper's transition $L = \log_3 d_x$ (dashed, at 1) and "
        r"$L = 2 \log_3 d_x$ (dotted, at 2); horizontal lines: ratio 3 and the threshold 2. "
        "Computed from the formula; nothing measured."),
    "fig3_transition_depth": (
        "Transition depth (the first depth where the growth ratio falls below 2, linearly "
        r"interpolated) against the width: the paper's $\log_3 d_x$ and $2 \log_3 d_x$ "
        "(rules), the proved $H = 1$ block formula, and the measured transitions (from ranks "
        "that are saturated or equal to the proved bound, measured by `seprank figures` and "
        "read from fig8_measured_transition.csv; open circle $H = 1$, filled square $H > 1$, "
        "drawn over each other where they coincide). MEASURED_COUNT"),
    "fig4_heads": (
        r"Measured separation rank ($\mathrm{GF}(p)$) against the number of heads $H$ at fixed "
        "depth $L$, width $d_x$ and sequence length $N$, one line per $(L, d_x, N)$; dotted: "
        "the proved bound of each line (it does not depend on $H$). The two $d_x = 6$ lines "
        "($N = 4$ and $N = 6$) have equal measured ranks and equal bounds; the $N = 6$ line "
        "(dashed, hollow squares) is drawn 6% to the right."),
    "fig5_exact_vs_float": (
        r"One network ($d_x = 2$, $N = 2$, $H = 1$, seed 0) at depths $L = 1, \dots, 4$. Left: "
        r"the exact rank ($\mathrm{GF}(p)$, measured) and the float64 SVD rank (numpy's "
        "default tolerance), both against the degree $3^L$; the float rank is computed on one "
        r"$n \times n$ grid with n = exact rank + max(16, exact rank / 4) (dotted), so the "
        "grid does not cap it. Right: the float64 singular values over the largest; dotted "
        "verticals: the exact rank. The CSV's float_label says whether each float rank passed "
        "the trust criteria (float estimate, trusted or untrusted; a float rank is never "
        "saturated)."),
    "fig6_equal_params": (
        "The proved $H = 1$ block formula at fixed budgets $P = 12 L d_x^2$, with $d_x = "
        r"\sqrt{P / 12 L}$ rounded to an integer; nothing measured. Top left: $\log_{10} "
        r"\operatorname{sep}$ divided by $R(P) = P \log_{10} 3 / 24$ (the large-depth value of "
        "the formula for a real width with $m = d_x^2 / 2$); markers: the first depths "
        "reaching 0.9 and 0.99 of $R(P)$. $R(P)$ is not a bound: the formula has $m = d_x "
        "(d_x + 1) / 2 > d_x^2 / 2$, and the rounded width can spend more than P (the CSV's "
        "params_used). FIG6_EXCESS Top right: the gain of one more layer, in % of R(P), as "
        "the secant between neighbouring depths of the grid. Bottom: depth against budget for "
        r"the paper's empirical fit, the formula's last depth-efficient depth (ratio $\ge 2$), "
        r"the paper's rule $L = \log_3 d_x$ and the depth reaching $0.9\,R(P)$; open markers: "
        "GPT-3 (star; 175e9 parameters, 96 layers) and a 1e12-parameter model (plus; 92 "
        "layers)."),
    "fig7_experiment": (
        "The torch experiment (experiments/depth_width, CPU preset): validation loss "
        "(nats/byte, measured) against depth at fixed non-embedding budgets. Error bars: "
        "sample std over seeds, drawn only where a point has at least two seeds; the legend "
        "gives the number of seeds per budget (the CSV's n_seeds; its std is empty for one "
        "seed)."),
    "fig11_block_ranks": (
        "The graded blocks of every network in fig8_measured_transition.csv: left, each "
        r"block's measured rank ($\mathrm{GF}(p)$) against its proved bound $\min(b_k, "
        "a_{D-k})$ (`seprank.theory.bounds.block_terms`; the block of $A$-degree $2j + 1$ has "
        "$k = D - j$), filled $H = 1$, hollow $H > 1$, grey line equality; right, one row per "
        "$H = 1$ network: a dot per block whose measured rank equals its bound, a cross "
        "(labelled with both numbers) where it is below. The block ranks of the ($L = 3$, "
        "$d_x = 4$, $N = 8$) row come from a re-run of that row's own measurement (`seprank "
        "measure --depth 3 --width 4 --seq-len 8 --json`: seed 0, prime 67108859, 1 Dec 2026; "
        "the run stored on 30 Nov kept only its total and largest block), and `--strategy "
        "catalecticant` gives the same 14 block ranks."),
    "fig12_verify_grid": (
        "The grid of `seprank verify --quick` ($L = 1, 2, 3$, $d_x = 2, 3, 4$, every head "
        r"count dividing $d_x$, $N$ = 2, 4, 6, residual at $L \le 2$, only configurations "
        "whose proved bound is at most 1500): per $(L, d_x)$ cell, the smallest measured rank "
        r"($\mathrm{GF}(p)$) divided by the proved bound over the cell's configurations, and "
        "how many are exact, proved (measured = proved bound); left $H = 1$, right $H > 1$. "
        "The CSV holds the columns of verify's results.csv this needs, copied by "
        "`seprank.figures.paper.write_verify_csv` (results.csv of `seprank verify --quick`, "
        "about 5 s with a store that holds the grid)."),
    "fig13_heads_bound": (
        r"Measured rank ($\mathrm{GF}(p)$) divided by the proved bound against the head size "
        r"$d_x / H$, one line per $(L, d_x, N)$ with $L \ge 2$ (at $L = 1$ every measured rank "
        "in these CSVs equals the bound), from fig4_heads.csv and the saturated or exact, "
        "proved rows of fig8_measured_transition.csv; hollow markers: $N < 2 d_x$ (a side "
        "with fewer positions than the width); each line after the first of its width is "
        "drawn 6% to the right."),
}

#: Figures made by their own command (expensive or separate), kept in the README when
#: ``seprank figures`` rewrites it: name -> (caption, command).
OTHER = {
    "fig8_measured_transition": (
        "The measured transition (widths 2, 3, 4; $N = 2 d_x$; one head and more). Left: "
        r"$\log_{10}$ of the measured separation rank ($\mathrm{GF}(p)$, graded strategy; "
        "filled: exact, proved (equal to the proved bound) or saturated; hollow: a lower "
        "bound only) against depth, circles $H = 1$, squares $H > 1$ (drawn 0.15 to the "
        "right); lines: the proved block bound (the same for every $H$). Right: the growth "
        r"ratio $\log \operatorname{sep}(L+1) / \log \operatorname{sep}(L)$ from the measured "
        "ranks (markers; filled where both ends are exact, proved or saturated) and from the "
        "proved bound (lines); grey lines at 3 and 2. A configuration missing from the CSV "
        "was not measured (`seprank transition` continues where it stopped; `seprank "
        "transition --plot-only` redraws from the CSV, and draws beside it fig8_overview, "
        "the site's front-page figure: the one-head rows only, its text legible in a web "
        "column). The ($L = 6$, $d_x = 2$, $H = 1$) row, 2,826,912 (exact, proved), is "
        "assembled from its 365 committed blocks (proofs/data/l6_d2_blocks.jsonl, `seprank "
        "blocks --data`; 3.6 hours of block ranks), nothing ranked again: `seprank "
        "transition --plot-only --blocks proofs/data/l6_d2_blocks.jsonl`.",
        "seprank transition --blocks proofs/data/l6_d2_blocks.jsonl"),
    "fig9_vocab_bottleneck": (
        "The vocabulary bottleneck, measured: linearised self-attention on tokens "
        "(`embedded-attention`: vocabulary $V = 6$ one-hot tokens through a rank-$r$ "
        r"embedding, $N = 6$, one head, partition $A = \{0, 1, 2\}$), the measured rank "
        r"($\mathrm{GF}(p)$, saturated) of the complete token grid ($216 \times 216$, nothing "
        "sampled) against the model width $d_x$, one line per embedding rank $r$, dotted "
        "verticals at $d_x = r$. Every curve rises until $d_x = r$ and is flat after it: the "
        "width stops adding rank exactly at the embedding rank. Expectation: Wies, Levine, "
        "Jannai, Shashua, ICML 2021 (recalled, not read in the primary text).",
        "python -m seprank.figures.vocab_bottleneck"),
    "fig10_teacher_student": (
        "Teacher-student (issue 15), measured: test error (fraction of variance unexplained, "
        "FVU; median over 3 seeds, bars seed min..max, cut at 10) against the target's "
        "separation rank $R$ across the balanced partition of $N = 8$ positions, one line per "
        "student depth, at the largest budget (6,000 non-embedding parameters); left the "
        "linearised network (with skip connection), right the softmax + layer-norm block of "
        "the depth_width experiment. Filled circles: sums of $R$ = 1, 4, 16 products of "
        "smooth functions of each side (rank measured by float SVD of a grid); open squares: "
        "a random depth-2 linearised-attention teacher (rank 17-18, measured by seprank). "
        "Dotted: FVU = 0.1. The CSV also holds the best depth per student, budget and target "
        "(rows `best_depth`; experiments/teacher_student/results/summary.md), and each "
        "target's `label` (float estimate, untrusted for the float SVD ranks; the teacher's "
        r"$\mathrm{GF}(p)$ ranks over its seeds).",
        "python -m experiments.teacher_student.analysis "
        "experiments/teacher_student/results/results.csv --figure "
        "paper_figures/fig10_teacher_student"),
    "mixers_compare": (
        r"The sequence mixers side by side (issue 25, docs/mixers.md): $\log_{10}$ of the "
        r"measured separation rank ($\mathrm{GF}(p)$; each row of the CSV labelled, in the "
        "words of docs/explanation/labels.md, exact, given the architecture's stated bound "
        "(each mixer's [D] bound, derived in its module), lower bound, saturated or lower "
        "bound, not saturated; hollow: a lower bound only) against depth, $N = 4$, one line "
        "per mixer, at matched non-embedding parameters per layer (small ~16, large ~36; the "
        r"CSV's params_per_layer), balanced $A = \{0, 2\}$ and prefix $A = \{0, 1\}$. Linear "
        "attention and retention coincide on the balanced partition. Depths 1-5; a mixer's "
        "line ends where a row did not finish within 300 s, took over 90 s or was not "
        "saturated (the CSV's `stopped` column; about 56 minutes of one thread on 1 Dec "
        "2026). mixers_params.png: the same ranks against the parameter count. `--plot-only` "
        "redraws from the CSV, `--relabel` recomputes its labels.",
        "python -m experiments.mixers_compare"),
    "mixers_length": (
        "How the gap between s6 and linear attention grows with the sequence length (issue "
        r"25, the Cohen-Karlik et al. check in docs/mixers.md): $\log_{10}$ of the measured "
        r"separation rank ($\mathrm{GF}(p)$; every row lower bound, saturated or exact, given "
        r"the architecture's stated bound [D]) against $N = 4, \dots, 8$ for s6 (d 2, n 2), "
        "gla (d 2) and causal linear attention (d 2), depths 1 and 2 (linear attention also "
        r"at depth 3, to $N = 6$); left the prefix partition ($A$ = the first $\lfloor N/2 "
        r"\rfloor$ positions), right the balanced one ($A$ = the even positions). The mixers "
        "are drawn slightly shifted in N so that equal values stay visible. A line ends where "
        "a row did not finish in its time (the CSV's `stopped` column).",
        "python -m experiments.mixers_length, then --mixers s6,gla --max-len 6 --timeout 1200 "
        "--resume and --mixers linear-attention --depths 3 --max-len 6 --timeout 600 --resume "
        "(docs/mixers.md)"),
}


def _measured_count(out: Path) -> str:
    """How many measured transition points figure 3 has (read from its CSV)."""
    if not (out / "fig3_transition_depth.csv").exists():
        return ""
    rows = [r for r in read_rows(out / "fig3_transition_depth.csv") if r["source"] == "measured"]
    got = [r for r in rows if r["transition_depth"]]
    widths = sorted({int(r["width"]) for r in got})
    return (f"{len(got)} of the {len(rows)} measured (width, heads) series cross 2 (widths "
            f"{', '.join(map(str, widths)) or 'none'}); the others end before the ratio "
            "crosses 2 (the CSV's depths_measured).")


def _fig6_excess(out: Path) -> str:
    """Where figure 6's curves exceed R(P) (read from its CSV)."""
    if not (out / "fig6_equal_params.csv").exists():
        return ""
    rows = [r for r in read_rows(out / "fig6_equal_params.csv") if r["kind"] == "curve"]
    said = []
    for P in sorted({float(r["params"]) for r in rows}):
        over = [r for r in rows if float(r["params"]) == P and
                float(r["fraction_or_paper_rule"]) > 1]
        if over:
            top = max(over, key=lambda r: float(r["fraction_or_paper_rule"]))
            said.append(f"P = {P:.0e} exceeds 1 from L = {over[0]['depth_or_fit']} on, at most "
                        f"{float(top['fraction_or_paper_rule']):.3f} (L = {top['depth_or_fit']}, "
                        f"d_x = {top['width']}, {int(top['params_used']):,} parameters)")
    return ("In the CSV's range " + "; ".join(said) + ".") if said else \
        "No curve exceeds 1 in the CSV's range."


def write_readme(out: Path, quick: bool) -> None:
    cmd = "seprank figures" + (" --quick" if quick else "") + (
        f" --out {out}" if Path(out) != Path("paper_figures") else ""
    )
    lines = [
        "# Theorem figures",
        "",
        f"Made by `{cmd}` (deterministic: seed 0 everywhere) unless a figure names its own "
        "command. Each figure has PNG (300 dpi), PDF and the CSV of its data beside it. "
        "Separation ranks marked *measured* are ranks over $\\mathrm{GF}(p)$, certified lower "
        "bounds, "
        "saturated or exact, proved where a figure says so (figures 7 "
        "and 10: losses of training runs); lines marked *proved* or *formula* are proved "
        "bounds. Every CSV row with a measured rank has a `label` column in the words of "
        "docs/explanation/labels.md (exact, proved | lower bound, saturated | lower bound, "
        "not saturated | exact, given the architecture's stated bound (SOURCE) | float "
        "estimate, trusted or untrusted), derived from the row's own fields: "
        "`seprank figures --relabel` recomputes it, measuring nothing.",
        "",
        "In a notebook every figure of `seprank.figures.paper` is two calls, data then "
        "drawing: `rows = paper.heads_rows(quick=True)`, then "
        "`paper.plot_heads(rows, ax=ax)` (an Axes, or a sequence of Axes for a multi-panel "
        "figure; it returns the Figure); likewise `seprank.figures.transition.plot` and "
        "`seprank.figures.vocab_bottleneck.plot`.",
        "",
    ]
    for name, cap in CAPTIONS.items():
        cap = cap.replace("MEASURED_COUNT", _measured_count(Path(out)))
        cap = cap.replace("FIG6_EXCESS", _fig6_excess(Path(out)))
        if (Path(out) / f"{name}.png").exists():
            lines += [f"## {name}", "", f"![{name}]({name}.png)", "", cap, "",
                      f"Data: `{name}.csv`. Command: `{cmd}`.", ""]
        else:
            lines += [f"## {name}", "", "Not produced: see the message printed by the "
                      "command (for figure 7: run the experiment first).", ""]
    for name, (cap, other_cmd) in OTHER.items():
        if (Path(out) / f"{name}.png").exists():
            lines += [f"## {name}", "", f"![{name}]({name}.png)", "", cap, "",
                      f"Data: `{name}.csv`. Command: `{other_cmd}`.", ""]
    write_text(Path(out) / "README.md", "\n".join(lines))

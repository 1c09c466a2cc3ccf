"""paper_figures/README.md: each figure, its caption and the command that made it."""

from __future__ import annotations

from pathlib import Path

CAPTIONS = {
    "fig1_rank_vs_depth": "Separation rank vs depth, H = 1, N = 2 d_x (both sides generic). "
    "Points: measured exact ranks (GF(p), saturated). Lines: the proven block formula. "
    "Dotted: the paper's depth-efficient shape log sep ~ 3^L log d_x, anchored at L = 1.",
    "fig2_regimes": "Growth ratio log sep(L+1) / log sep(L) of the H = 1 block formula for "
    "widths 2 to 10^4. Solid grey line at 3: log sep triples per layer (the depth-efficient "
    "shape 3^L); dash-dotted grey line at 2: our threshold (a step is depth-efficient while "
    "the ratio is >= 2). Dashed verticals: the paper's transition log3 d_x; dotted: 2 log3 d_x "
    "(2 log3 d = log3 d^2, so the dotted line of d_x = 10 is the dashed one of d_x = 100, and "
    "that of 100 the dashed one of 10^4). The ratio falls below 2 near 2 log3 d_x, not at "
    "log3 d_x.",
    "fig3_transition_depth": "Transition depth (where the growth ratio crosses 2) vs width: "
    "the paper's log3 d_x, 2 log3 d_x, the H = 1 formula, and measured points (H = 1 circles, "
    "H > 1 squares) where exact measurement reaches. MEASURED_COUNT",
    "fig4_heads": "Measured separation rank against the number of heads at fixed depth and "
    "width: the rank never grows with H. The d_x=6 curves for N=4 and N=6 coincide (same "
    "measured ranks), so only one is visible.",
    "fig5_exact_vs_float": "Left: exact rank (GF(p)) and float64 SVD rank as the degree 3^L "
    "grows (d_x = 2, N = 2). Right: normalised singular values; dotted verticals mark the "
    "exact rank. The float rank fails once the spectrum has no gap at the true rank.",
    "fig6_equal_params": "What the H = 1 formula says at a fixed budget P = 12 L d_x^2 (width "
    "rounded to an integer, hence the small wiggles). Left: log10 sep as a share of its limit "
    "as L -> infinity, P log10(3) / 24 (the formula tends to m log10 3^L with m = d_x^2 / 2 = "
    "P / 24L); dots: the depths reaching 90% and 99% of it (90%: 96 layers at 1e8, 179 at "
    "1e12; 99%: 627 and 1563). Middle: the gain of one more layer, in % of that limit: it "
    "peaks near the transition and then falls roughly like 1/L^2. So deeper never loses "
    "expressivity at a fixed budget, but past the transition (about 10-20 layers here) each "
    "layer adds little: the formula supports the paper's 'depth-inefficient' regime, with a "
    "transition that grows only like log of the budget. Right: optimal depth per budget: the "
    "last depth-efficient L of the formula and the paper's rule L = log3 d_x, far below the "
    "paper's empirical fit (GPT-3 and a 1T model marked); the 90% depth is far above it.",
    "fig7_experiment": "The torch experiment (experiments/depth_width): validation loss "
    "against depth at fixed non-embedding budgets; error bars: std over seeds.",
}

#: Figures made by their own command (expensive or separate), kept in the README when
#: ``seprank figures`` rewrites it: name -> (caption, command).
OTHER = {
    "fig8_measured_transition": (
        "The measured transition. Left: log10 of the exact measured separation rank "
        "(markers: GF(p), saturated, graded strategy) against depth for widths 2 (depths "
        "1-5), 3 and 4 (depths 1-3), N = 2 d_x, one head and more; lines: the proved block "
        "bound (for H = 1 the formula). Right: the growth ratio log sep(L+1) / log sep(L) from "
        "measured ranks (markers) beside the bound's (lines); 3 is doubly exponential growth "
        "(depth pays), (L+1)/L the linear regime; dashed verticals: the paper's transition "
        "log3 d_x. A configuration missing from the CSV was not measured yet (`seprank "
        "transition` continues where it stopped).",
        "seprank transition (resumable; `--plot-only` redraws)"),
    "fig9_vocab_bottleneck": (
        "The vocabulary bottleneck, measured: linearised self-attention on tokens "
        "(`embedded-attention`: vocabulary V = 6 one-hot tokens through a rank-r embedding, "
        "N = 6, one head, partition {0,1,2}), exact separation rank of the complete token grid "
        "(216 x 216, nothing sampled) against the model width d_x, one line per embedding rank "
        "r, dotted verticals at d_x = r. Every curve rises until d_x = r and is flat after it: "
        "the width stops adding rank exactly at the embedding rank. Expectation: Wies, Levine, "
        "Jannai, Shashua, ICML 2021 (recalled, not read in the primary text).",
        "python -m seprank.figures.vocab_bottleneck (about 10 s)"),
    "mixers_compare": (
        "The sequence mixers side by side (issue 25, docs/mixers.md): log10 of the exact "
        "separation rank (GF(p), saturated; hollow: a lower bound) against depth, N = 4, one "
        "line per mixer, at matched non-embedding parameters per layer (small ~16, large "
        "~36; the CSV's params_per_layer), balanced A = {0, 2} and prefix A = {0, 1}. Linear "
        "attention and retention coincide on the balanced partition. A mixer's line ends "
        "where a row did not finish within 20 s or took over 5 s (the CSV's `stopped` column). "
        "mixers_params.png: the same ranks against the parameter count.",
        "python -m experiments.mixers_compare (about 4.5 min; `--plot-only` redraws)"),
}


def _measured_count(out: Path) -> str:
    """How many measured transition points figure 3 has (read from its CSV)."""
    import csv

    path = out / "fig3_transition_depth.csv"
    if not path.exists():
        return ""
    with path.open() as f:
        rows = [r for r in csv.DictReader(f) if r["source"] == "measured"]
    got = [r for r in rows if r["transition_depth"]]
    widths = sorted({int(r["width"]) for r in got})
    return (f"Only {len(got)} measured points so far (of {len(rows)} widths and head counts "
            f"tried; widths {', '.join(map(str, widths)) or 'none'}): for larger widths exact "
            "measurement does not yet reach the depth where the ratio crosses 2; the rest of "
            "the figure is formula.")


def write_readme(out: Path, quick: bool) -> None:
    cmd = "seprank figures" + (" --quick" if quick else "") + (
        f" --out {out}" if Path(out) != Path("paper_figures") else ""
    )
    lines = [
        "# Theorem figures",
        "",
        f"Made by `{cmd}` (deterministic: seed 0 everywhere). Each figure has PNG, PDF and "
        "the CSV of its data beside it. Points marked *measured* come from exact modular "
        "rank computations; lines marked *formula* are proven bounds.",
        "",
    ]
    for name, cap in CAPTIONS.items():
        cap = cap.replace("MEASURED_COUNT", _measured_count(Path(out)))
        if (Path(out) / f"{name}.png").exists():
            lines += [f"## {name}", "", f"![{name}]({name}.png)", "", cap, "",
                      f"Data: `{name}.csv`. Command: `{cmd}`.", ""]  # fmt: skip
        else:
            lines += [f"## {name}", "", "Not produced: see the message printed by the "
                      "command (for figure 7: run the experiment first).", ""]  # fmt: skip
    for name, (cap, other_cmd) in OTHER.items():
        if (Path(out) / f"{name}.png").exists():
            lines += [f"## {name}", "", f"![{name}]({name}.png)", "", cap, "",
                      f"Data: `{name}.csv`. Command: `{other_cmd}`.", ""]  # fmt: skip
    (Path(out) / "README.md").write_text("\n".join(lines))

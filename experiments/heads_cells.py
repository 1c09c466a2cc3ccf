"""Measure the heads showcase cells of the paper's network (issue 39, item 4) and append
each as one JSON line: {"width", "heads", "seq_len", "depth", "strategy", "max_samples",
"measurement": m.to_dict()} or, where the planner refuses, {"...", "refused": message}.

N = seq_len = 2 * width, seed 0 (seed 1 too where a cell is not labelled saturated).
Usage: python -m experiments.heads_cells OUT.jsonl [--only W,H,L ...] [--budget SECONDS]
Cells already in OUT (same width, heads, depth, seed) are skipped: the run resumes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import seprank
from experiments.script_args import Parser, out_file, seconds
from seprank.engine.options import MeasureOptions
from seprank.engine.planner import plan
from seprank.engine.strategies import catalecticant, sketch
from seprank.errors import SeprankError
from seprank.nets import LinearSelfAttention

#: (width, heads, depth) in the issue's order, cheapest first.
CELLS = ([(5, h, L) for h in (1, 5) for L in (1, 2)]
         + [(6, h, L) for h in (1, 2, 3, 6) for L in (1, 2)]
         + [(3, 3, L) for L in (1, 2)] + [(4, h, L) for h in (2, 4) for L in (1, 2)]
         + [(3, 3, 3), (4, 2, 3), (4, 4, 3), (2, 2, 4), (2, 2, 5), (5, 1, 3), (6, 1, 3),
            (5, 5, 3), (6, 6, 3), (6, 3, 3), (6, 2, 3), (3, 3, 4)])
#: Estimate budgets (seconds) other than --budget's, per cell: the width-5 showcase cell.
BUDGET = {(5, 5, 3): 600.0, (3, 3, 4): 900.0}
#: Sketch caps tried, largest first, for a cell whose uncapped estimate is over budget.
CAPS = (8000, 6000, 5000, 4000, 3000, 2000)


def choose(net, budget: float):
    """(strategy, max_samples, why): the cheaper estimate of catalecticant and sketch
    (H = 1: catalecticant, its blocks' ranks are their bounds); a cap on the sketch when
    its estimate at the proved bounds is over ``budget`` seconds or memory."""
    A = tuple(range(net.seq_len // 2))
    mem = sketch.available_memory() // 4
    sk = sketch.estimate(net, A)
    fits_cat = catalecticant.fits(*max(catalecticant.block_shapes(net),
                                       key=lambda rc: rc[0] * rc[1]))
    cat_s = sum(2 / 3 * min(r, c) ** 3 for r, c in catalecticant.block_shapes(net)) / 3e10
    if net.heads == 1:
        return "catalecticant", None, f"one head: catalecticant, estimate {cat_s:.3g} s"
    if sk["expected_seconds"] <= min(budget, max(cat_s, 30.0)) and sk["peak_bytes"] <= mem:
        return "sketch", None, f"sketch estimate {sk['expected_seconds']:.3g} s"
    if fits_cat and cat_s <= budget:
        return "catalecticant", None, (f"catalecticant estimate {cat_s:.3g} s, sketch's at "
                                       f"the proved bounds {sk['expected_seconds']:.3g} s")
    for cap in CAPS:
        e = sketch.estimate(net, A, cap)
        if e["expected_seconds"] <= budget and e["peak_bytes"] <= mem:
            return "sketch", cap, f"sketch capped at {cap}: estimate {e['expected_seconds']:.3g} s"
    return "sketch", None, "no cap fits the budget"


def done(path: Path) -> set:
    if not path.exists():
        return set()
    out = set()
    for line in path.read_text().splitlines():
        r = json.loads(line)
        seed = r.get("measurement", {}).get("seed", r.get("seed", 0))
        out.add((r["width"], r["heads"], r["depth"], seed))
    return out


def one(path: Path, w: int, h: int, L: int, seed: int, budget: float) -> dict:
    net = LinearSelfAttention(depth=L, width=w, heads=h, seq_len=2 * w)
    strategy, cap, why = choose(net, budget)
    row = {"width": w, "heads": h, "seq_len": 2 * w, "depth": L, "strategy": strategy,
           "max_samples": cap, "choice": why}
    t = time.time()
    try:
        m = seprank.measure(net, strategy=strategy, seed=seed, max_samples=cap)
        row["measurement"] = m.to_dict()
    except SeprankError as exc:
        row["seed"] = seed
        row["refused"] = f"{type(exc).__name__}: {exc}"
        if net.heads == 1:  # the planner's own refusal (auto), beside the strategy's
            try:
                plan(net, options=MeasureOptions(seed=seed), inputs=False)
            except SeprankError as exc2:
                row["refused_auto"] = f"{type(exc2).__name__}: {exc2}"
    row["wall_seconds"] = time.time() - t
    with path.open("a") as f:
        f.write(json.dumps(row) + "\n")
    return row


def main(argv=None) -> int:
    ap = Parser(prog="python -m experiments.heads_cells",
                description="The heads showcase cells, one JSON line each.")
    ap.add_argument("out", help="the JSON-lines file (appended to; done cells skipped)")
    ap.add_argument("--only", nargs="*", default=None, help="cells W,H,L (default: all)")
    ap.add_argument("--budget", type=seconds, default=300.0,
                    help="estimated seconds a cell may take (a sketch is capped to fit)")
    args = ap.parse_args(argv)
    try:
        cells = CELLS if not args.only else [tuple(int(x) for x in c.split(","))
                                             for c in args.only]
    except ValueError:
        ap.error(f"--only: {args.only!r} must be cells W,H,L of integers")
    if any(len(c) != 3 or min(c) < 1 for c in cells):
        ap.error(f"--only: {args.only!r} must be cells W,H,L of positive integers")
    path = out_file(ap, args.out)
    for w, h, L in cells:
        for seed in (0, 1):
            if (w, h, L, seed) in done(path):
                continue
            if seed == 1:  # the second seed only where the first is not saturated
                first = [json.loads(x) for x in path.read_text().splitlines()]
                first = [r for r in first if (r["width"], r["heads"], r["depth"]) == (w, h, L)
                         and "measurement" in r]
                if not first or first[0]["measurement"]["saturated"] \
                        or first[0]["measurement"]["budget_hit"]:
                    continue
            r = one(path, w, h, L, seed, BUDGET.get((w, h, L), args.budget))
            m = r.get("measurement", {})
            print(w, h, L, seed, r["strategy"], r["max_samples"], m.get("rank"), m.get("label"),
                  f"{r['wall_seconds']:.0f}s", r.get("refused", ""), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: the catalecticant strategy (no grid; the blocks from the structural
polynomial's coefficients) beside the graded grid strategy, one process per case so that
each peak resident memory is its own.

Run: ``python -m experiments.benchmark_catalecticant [--with-grid] [--seq-len N ...]
[--cases L,d,H,N ...] [--device cuda]``. Default cases (3, 4, 1, 8) and (5, 2, 1, 4);
``--seq-len 10`` repeats each case at N = 10 (the ranks must not change:
proofs/catalecticant_reduction.md). ``--with-grid`` adds the graded strategy (minutes and
GBs at (3, 4, 1, 8)). Output: a Markdown table (time, peak memory, total, block ranks that
fall short of their bound).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASES = [(3, 4, 1, 8), (5, 2, 1, 4)]

CHILD = """
import json, resource, sys, time
from seprank import measure
from seprank.nets import LinearSelfAttention
L, d, H, N, strategy, device = json.loads(sys.argv[1])
t = time.perf_counter()
m = measure(LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N), strategy=strategy,
            device=device)
sec = time.perf_counter() - t
short = [[b["degree"], b["rank"], b.get("bound")] for b in m.blocks
         if b.get("bound") is not None and b["rank"] < b["bound"]]
print(json.dumps({"rank": m.rank, "seconds": sec, "strategy": m.strategy,
                  "build": getattr(m.detail, "build_seconds", None),
                  "eval": m.eval_seconds, "rank_s": m.rank_seconds,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "blocks": [[b["degree"], b["rank"]] for b in m.blocks], "short": short}))
"""


def run_case(L, d, H, N, strategy, device="cpu") -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD,
                          json.dumps([L, d, H, N, strategy, device])],
                         capture_output=True, text=True)
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--with-grid", action="store_true", help="also the graded grid strategy")
    ap.add_argument("--seq-len", type=int, nargs="*", default=[],
                    help="also measure each case at these sequence lengths")
    ap.add_argument("--cases", nargs="*", default=None, help="L,d,H,N (default: the two)")
    ap.add_argument("--json", action="store_true", help="one JSON line per run as well")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                    help="cuda: also rank the catalecticant blocks with the array backend "
                         "on torch CUDA (the rows say cuda; an error row without a GPU)")
    a = ap.parse_args(argv)
    cases = CASES if a.cases is None else [tuple(int(v) for v in c.split(",")) for c in a.cases]
    runs = []
    for L, d, H, N in cases:
        for n in [N] + [n for n in a.seq_len if n != N]:
            for strategy in ["catalecticant"] + (["graded"] if a.with_grid else []):
                runs.append(((L, d, H, n), strategy, run_case(L, d, H, n, strategy)))
            if a.device == "cuda":
                runs.append(((L, d, H, n), "catalecticant (cuda)",
                             run_case(L, d, H, n, "catalecticant", "cuda")))
    print("| L, d, H, N | strategy | time (s) | build F (s) | fill or grid (s) | rank (s) "
          "| peak MB | total | blocks short of min(b_k, a_{D-k}) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cfg, strategy, r in runs:
        if "error" in r:
            print(f"| {cfg} | {strategy} | error: {r['error']} |||||||")
            continue
        build = "-" if r["build"] is None else f"{r['build']:.1f}"
        fill = r["eval"] - (r["build"] or 0.0)
        print(f"| {cfg} | {strategy} | {r['seconds']:.1f} | {build} | {fill:.1f} | "
              f"{r['rank_s']:.1f} | {r['maxrss_mb']:.0f} | {r['rank']} | {r['short']} |")
        if a.json:
            print(json.dumps({"config": cfg, "strategy": strategy, **r}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

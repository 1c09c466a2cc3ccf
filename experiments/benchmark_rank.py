"""Benchmark: seprank's modular engine vs a hand-written float baseline and sympy; the
graded strategy vs the direct one; what the adaptive loop's changes buy.

Run: ``python -m experiments.benchmark_rank [--quick] [--big]``. Three Markdown tables:

1. the direct strategy (one grid matrix) against flint, float and sympy, as below;
2. graded vs direct on the same configurations, with direct/graded time ratios from the
   same run; with ``--big`` also (5, 2, 1, 4) and (3, 4, 1, 8) (graded only: the direct
   matrix would not fit in memory), each in its own process so that its peak resident
   memory is reported;
3. the adaptive loop: incremental elimination vs re-ranking from scratch at each step,
   and the growth factor, on the same configurations.

Table 1: for each configuration it prints
time and rank for (a) seprank.measure (modular, adaptive, grid and rank times apart),
(b) the same measurement with python-flint's nmod_mat as the rank engine (the previous
engine; flint/blas is the ratio of rank times), (c) the naive float baseline a user would
write (numpy grid of the same size as seprank's final sample + np.linalg.matrix_rank),
(d) sympy symbolic expansion where it is small enough, and the ratios. A float rank that
differs from the exact one is flagged WRONG. Output: a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

from seprank import measure
from seprank.errors import TooBigError
from seprank.nets import LinearSelfAttention

CONFIGS = [  # (depth, width, heads, seq_len)
    (2, 2, 1, 4),
    (3, 2, 1, 4),
    (2, 4, 1, 8),
    (3, 3, 1, 8),   # target: certified in < 30 s
    (4, 2, 1, 4),   # target: certified in < 30 s
]
QUICK = CONFIGS[:3]


def naive_float(L, d, H, N, n, seed=0):
    """What a user writes by hand: random float weights, an n x n grid, matrix_rank."""
    rng = np.random.default_rng(seed)
    a = d // H
    W = [[(rng.standard_normal((a, d)), rng.standard_normal((a, d)), rng.standard_normal((a, d)),
           rng.standard_normal((d, a))) for _ in range(H)] for _ in range(L)]

    def f(X):  # X: (B, N, d)
        Y = X
        for layer in W:
            out = 0
            for Wq, Wk, Wv, Wo in layer:
                q, k, v = Y @ Wq.T, Y @ Wk.T, Y @ Wv.T
                out = out + (q @ k.transpose(0, 2, 1)) @ v @ Wo.T
            Y = out
        return Y[:, 0, 0]

    half = N // 2
    XA = rng.standard_normal((n, half, d))
    XB = rng.standard_normal((n, N - half, d))
    F = np.empty((n, n))
    for r in range(n):
        X = np.concatenate([np.repeat(XA[r : r + 1], n, axis=0), XB], axis=1)
        F[r] = f(X)
    return int(np.linalg.matrix_rank(F))


COLUMNS = ["config (L,d,H,N)", "exact rank", "rank < sample", "samples", "grid s", "rank s",
           "total s", "target", "flint-rank total s", "flint/blas", "float rank", "float s",
           "float/seprank", "sympy rank", "sympy s", "sympy/seprank"]
TARGETS = {(3, 3, 1, 8): 30.0, (4, 2, 1, 4): 30.0}
GRADED = [(3, 2, 1, 4), (3, 2, 2, 4), (2, 4, 1, 8), (3, 3, 1, 8), (4, 2, 1, 4), (4, 2, 2, 4)]
BIG = [(5, 2, 1, 4), (3, 4, 1, 8)]
#: (config, strategy): the adaptive-loop variants compared in table 3.
LOOP = [((4, 2, 1, 4), "direct"), ((3, 3, 1, 8), "direct"), ((4, 2, 1, 4), "graded"),
        ((3, 3, 1, 8), "graded")]


def _net(cfg):
    L, d, H, N = cfg
    return LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)


def graded_table(quick: bool, big: bool) -> None:
    cols = ["config (L,d,H,N)", "rank", "rank < sample", "blocks", "largest block", "samples",
            "graded s (grid / rank)", "direct rank", "direct s", "direct/graded",
            "peak RSS"]
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for cfg in GRADED[:3] if quick else GRADED:
        g = measure(_net(cfg), strategy="graded")
        d = measure(_net(cfg), strategy="direct")
        flag = "" if d.rank == g.rank else " DISAGREE"
        below = "yes" if g.sample_saturated else "NO"
        print(f"| {cfg} | {g.rank}{flag} | {below} | {len(g.blocks)} "
              f"| {max(b['rank'] for b in g.blocks)} | {g.samples[0]} | {g.seconds:.2f} "
              f"({g.eval_seconds:.2f} / {g.rank_seconds:.2f}) | {d.rank} | {d.seconds:.2f} | "
              f"{d.seconds / g.seconds:.1f} | - |", flush=True)
    for cfg in BIG if big else []:
        L, d, H, N = cfg
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "seprank", "measure", "--depth", str(L), "--width", str(d),
             "--heads", str(H), "--seq-len", str(N), "--json"],
            capture_output=True, text=True, check=True).stdout
        wall = time.perf_counter() - t
        g = json.loads(out)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # KiB -> GiB
        need = (g["rank"] + 1) ** 2 * 8 / 1e9
        print(f"| {cfg} | {g['rank']} | {'yes' if g['sample_saturated'] else 'NO'} | "
              f"{len(g['blocks'])} | {max(b['rank'] for b in g['blocks'])} | {g['samples'][0]} "
              f"| {g['seconds']:.0f} ({g['eval_seconds']:.0f} / {g['rank_seconds']:.0f}); "
              f"wall {wall:.0f} | - | not run: one {g['rank'] + 1}-square matrix needs "
              f"{need:.0f} GB | - | {rss:.2f} GiB (max over subprocesses so far) |",
              flush=True)


def loop_table(quick: bool) -> None:
    cols = ["config (L,d,H,N)", "strategy", "variant", "rank", "samples", "rank s", "total s",
            "vs scratch, growth default"]
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for cfg, strategy in LOOP[::2] if quick else LOOP:
        base = None
        for name, kw in (("scratch, default growth", dict(incremental=False)),
                         ("incremental, default growth", dict(incremental=True)),
                         ("incremental, growth 1.1", dict(incremental=True, growth=1.1))):
            m = measure(_net(cfg), strategy=strategy, **kw)
            base = base or m.seconds
            print(f"| {cfg} | {strategy} | {name} | {m.rank} | {m.samples[0]} | "
                  f"{m.rank_seconds:.2f} | {m.seconds:.2f} | {base / m.seconds:.2f}x |",
                  flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--big", action="store_true",
                    help="also the graded rows (5,2,1,4) and (3,4,1,8) (tens of minutes)")
    args = ap.parse_args(argv)
    for strategy in ("direct", "graded"):  # compile the kernels once
        measure(LinearSelfAttention(depth=2, width=2, seq_len=4), strategy=strategy)
    measure(LinearSelfAttention(depth=1, width=2, seq_len=2), rank_engine="flint")
    print("\n### Graded vs direct\n")
    graded_table(args.quick, args.big)
    print("\n### Adaptive loop: incremental elimination and growth\n")
    loop_table(args.quick)
    print("\n### Direct strategy vs flint, float and sympy\n")
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for L, d, H, N in QUICK if args.quick else CONFIGS:
        net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
        m = measure(net, strategy="direct")  # BLAS rank engine
        mf = measure(net, rank_engine="flint", strategy="direct")  # same grid, flint's rank
        if mf.rank != m.rank:
            print(f"ENGINES DISAGREE on {(L, d, H, N)}: blas {m.rank}, flint {mf.rank}")
            return 1
        t = time.perf_counter()
        fr = naive_float(L, d, H, N, max(m.samples))
        tf = time.perf_counter() - t
        try:
            t = time.perf_counter()
            sr = measure(net, method="symbolic").rank
            ts = time.perf_counter() - t
            sym = [str(sr), f"{ts:.2f}", f"{ts / m.seconds:.1f}"]
        except TooBigError:
            sym = ["-", "too big", "-"]
        target = TARGETS.get((L, d, H, N))
        verdict = "-" if target is None else (
            f"< {target:.0f} s: {'met' if m.sample_saturated and m.seconds < target else 'MISSED'}")
        row = [str((L, d, H, N)), str(m.rank), "yes" if m.sample_saturated else "NO",
               f"{m.samples[0]}x{m.samples[1]}", f"{m.eval_seconds:.2f}", f"{m.rank_seconds:.2f}",
               f"{m.seconds:.2f}", verdict, f"{mf.seconds:.2f}",
               f"{mf.rank_seconds / max(m.rank_seconds, 1e-9):.1f}",
               str(fr) + ("" if fr == m.rank else " WRONG"), f"{tf:.2f}",
               f"{tf / m.seconds:.1f}", *sym]
        print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

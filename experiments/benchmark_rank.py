"""Benchmark: seprank's modular engine vs a hand-written float baseline and sympy.

Run: ``python experiments/benchmark_rank.py [--quick]``. For each configuration it prints
time and rank for (a) seprank.measure (modular, adaptive, grid and rank times apart),
(b) the same measurement with python-flint's nmod_mat as the rank engine (the previous
engine; flint/blas is the ratio of rank times), (c) the naive float baseline a user would
write (numpy grid of the same size as seprank's final sample + np.linalg.matrix_rank),
(d) sympy symbolic expansion where it is small enough, and the ratios. A float rank that
differs from the exact one is flagged WRONG. Output: a Markdown table.
"""

from __future__ import annotations

import argparse
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


COLUMNS = ["config (L,d,H,N)", "exact rank", "saturated", "samples", "grid s", "rank s",
           "total s", "target", "flint-rank total s", "flint/blas", "float rank", "float s",
           "float/seprank", "sympy rank", "sympy s", "sympy/seprank"]  # fmt: skip
TARGETS = {(3, 3, 1, 8): 30.0, (4, 2, 1, 4): 30.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    measure(LinearSelfAttention(depth=1, width=2, seq_len=2))  # compile the kernels once
    measure(LinearSelfAttention(depth=1, width=2, seq_len=2), rank_engine="flint")
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for L, d, H, N in QUICK if args.quick else CONFIGS:
        net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
        m = measure(net)  # default: BLAS rank engine
        mf = measure(net, rank_engine="flint")  # same grid, flint's nmod_mat for the rank
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
            f"< {target:.0f} s: {'met' if m.saturated and m.seconds < target else 'MISSED'}")
        row = [str((L, d, H, N)), str(m.rank), "yes" if m.saturated else "NO",
               f"{m.samples[0]}x{m.samples[1]}", f"{m.eval_seconds:.2f}", f"{m.rank_seconds:.2f}",
               f"{m.seconds:.2f}", verdict, f"{mf.seconds:.2f}",
               f"{mf.rank_seconds / max(m.rank_seconds, 1e-9):.1f}",
               str(fr) + ("" if fr == m.rank else " WRONG"), f"{tf:.2f}",
               f"{tf / m.seconds:.1f}", *sym]  # fmt: skip
        print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

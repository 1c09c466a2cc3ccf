"""Benchmark: seprank's modular engine vs a hand-written float baseline and sympy.

Run: ``python experiments/benchmark_rank.py [--quick]``. For each configuration it prints
time and rank for (a) seprank.measure (modular, adaptive, grid and rank times apart),
(b) the naive float baseline a user would write (numpy grid of the same size as seprank's
final sample + np.linalg.matrix_rank), (c) sympy symbolic expansion where it is small
enough, and the ratios. A float rank that differs from the exact one is flagged WRONG.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    measure(LinearSelfAttention(depth=1, width=2, seq_len=2))  # compile the kernel once
    head = (f"{'config (L,d,H,N)':<18}{'exact':>7}{'sat':>5}{'samples':>11}{'grid s':>8}"
            f"{'rank s':>8}{'total s':>9}{'float':>7}{'float s':>9}{'sympy':>7}{'sympy s':>9}"
            f"{'float/seprank':>15}{'sympy/seprank':>15}")  # fmt: skip
    print(head)
    for L, d, H, N in QUICK if args.quick else CONFIGS:
        net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
        m = measure(net)
        t = time.perf_counter()
        fr = naive_float(L, d, H, N, max(m.samples))
        tf = time.perf_counter() - t
        try:
            t = time.perf_counter()
            sr = measure(net, method="symbolic").rank
            ts = time.perf_counter() - t
            sym = (str(sr), f"{ts:.2f}", f"{ts / m.seconds:.2f}")
        except TooBigError:
            sym = ("-", "too big", "-")
        flag = "" if fr == m.rank else " WRONG"
        print(f"{str((L, d, H, N)):<18}{m.rank:>7}{str(m.saturated)[0]:>5}"
              f"{'%dx%d' % m.samples:>11}{m.eval_seconds:>8.2f}{m.rank_seconds:>8.2f}"
              f"{m.seconds:>9.2f}{str(fr) + flag:>7}{tf:>9.2f}{sym[0]:>7}{sym[1]:>9}"
              f"{tf / m.seconds:>15.2f}{sym[2]:>15}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

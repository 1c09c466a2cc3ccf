"""Benchmark: the exact GF(p) elimination against this machine's dgemm, in one run.

Run: ``python -m experiments.benchmark_elimination [--n 10000] [--device cuda]``.

Prints a Markdown table: dgemm's rate (float64 n x n times n x n, 2 n^3 flops), then the
BLAS elimination (:mod:`seprank.algebra.blas_elimination`) on a random n x n matrix of
residues (full rank w.h.p.; the rank is printed) at two primes: 8388593 (below 2^23: one
centred product per update, the catalecticant strategy's prime for large blocks) and the
default 67108859 (below 2^26: two split products). Each rate counts (2/3) n^3 flops, the
work of an LU of an n x n matrix, and is given as a fraction of dgemm's. With ``--device
cuda`` the array backend on torch CUDA (:mod:`seprank.algebra.array_elimination`) runs on
the same matrix (skipped with a line saying why when torch or a device is missing).
Every engine warms up on a small matrix first (numba compile, CUDA context).
"""

from __future__ import annotations

import time

import numpy as np

from experiments.script_args import Parser, guarded, int_at_least
from seprank.algebra import array_elimination, blas_elimination
from seprank.algebra.domains import DEFAULT_PRIME

FAST_PRIME = 8388593


def dgemm_rate(n: int) -> float:
    """Flops per second of one float64 n x n product (the better of two runs)."""
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n)), rng.random((n, n))
    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return 2.0 * n**3 / best


def timed(fn) -> tuple[int, float]:
    t = time.perf_counter()
    r = fn()
    return int(r), time.perf_counter() - t


def main(argv=None) -> None:
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int_at_least(2, 40_000), default=10_000,
                    help="matrix size, 2..40000 (default 10000)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                    help="cuda: also the array backend on torch CUDA")  # fmt: skip
    args = ap.parse_args(argv)
    guarded(ap, lambda: _table(args.n, args.device))


def _table(n: int, device: str) -> None:
    """Time and print the table for an n x n matrix."""
    peak = dgemm_rate(min(n, 4096))
    work = 2.0 / 3.0 * n**3
    rows = [("dgemm (float64, numpy's BLAS)", "", "", f"{peak / 1e9:.1f}", "1.00")]
    rng = np.random.default_rng(1)
    for p in (FAST_PRIME, DEFAULT_PRIME):
        F = rng.integers(0, p, (n, n)).astype(np.float64)
        blas_elimination.rank_blocked(F[:300, :300], p)  # compile
        mode = "one product" if blas_elimination.single_product(p, blas_elimination.BLOCK) \
            else "two split products"  # fmt: skip
        r, sec = timed(lambda F=F, p=p: blas_elimination.rank_blocked(F, p, overwrite=True))
        rows.append((f"GF({p}) elimination, {mode}", str(r), f"{sec:.2f}",
                     f"{work / sec / 1e9:.1f}", f"{work / sec / peak:.2f}"))  # fmt: skip
    if device == "cuda":
        try:
            backend = array_elimination.get_backend("torch", "cuda")
        except Exception as exc:  # no torch or no device: say so, keep the CPU rows
            print(f"cuda skipped: {exc}")
        else:
            F = rng.integers(0, FAST_PRIME, (n, n)).astype(np.int64)
            array_elimination.rank(F[:300, :300], FAST_PRIME, backend)
            r, sec = timed(lambda: array_elimination.rank(F, FAST_PRIME, backend))
            rows.append((f"GF({FAST_PRIME}) array backend, torch cuda", str(r), f"{sec:.2f}",
                         f"{work / sec / 1e9:.1f}", f"{work / sec / peak:.2f}"))  # fmt: skip
    print(f"n = {n}; rates in GFLOP/s, the elimination's as (2/3) n^3 / time\n")
    print("| engine | rank | seconds | GFLOP/s | fraction of dgemm |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()

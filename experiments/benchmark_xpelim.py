"""Benchmark: the GF(p) rank engines on square matrices of rank below their size.

Run: ``python -m experiments.benchmark_xpelim [--sizes 1000 3000] [--torch-threads N]``.
Times, from one run, :mod:`seprank.algebra.blas_elimination` (numba panels, the default CPU
engine) against :mod:`seprank.algebra.array_elimination` on numpy, torch CPU and, when a
CUDA device is present, torch CUDA;
prints a Markdown table with each time's ratio to blas_elimination. Every engine must return the
same rank (a mismatch is flagged WRONG). Each engine is warmed up once (numba compile,
torch import, CUDA context) on a small matrix before it is timed.
"""

from __future__ import annotations

import time

import numpy as np

from experiments.script_args import Parser, int_at_least, nonneg_int, prime_arg, thread_count
from seprank.algebra import array_elimination, blas_elimination
from seprank.algebra.domains import DEFAULT_PRIME


def matrix(n: int, rank: int, p: int, seed: int = 0) -> np.ndarray:
    """An n x n matrix of rank ``rank`` mod p (w.h.p.): U @ V, entries below 2**10, so the
    float64 product (below 2**20 * rank < 2**53) is exact."""
    rng = np.random.default_rng(seed)
    U = rng.integers(0, 1 << 10, (n, rank)).astype(np.float64)
    V = rng.integers(0, 1 << 10, (rank, n)).astype(np.float64)
    return np.mod(U @ V, p).astype(np.int64)


def engines(torch_threads: int | None):
    """(name, rank function) for every engine that can run here."""
    out = [
        ("blas_elimination (numba)", lambda F, p: blas_elimination.rank_blocked(F, p)),
        ("array-numpy",
         lambda F, p: array_elimination.rank(F, p, array_elimination.get_backend("numpy"))),
    ]
    try:
        import torch
    except ImportError:
        return out
    if torch_threads:
        torch.set_num_threads(torch_threads)
    cpu = array_elimination.get_backend("torch", "cpu")
    out.append(
        (
            f"array-torch cpu ({torch.get_num_threads()} threads)",
            lambda F, p: array_elimination.rank(F, p, cpu),
        )
    )
    if torch.cuda.is_available():
        cuda = array_elimination.get_backend("torch", "cuda")
        out.append(
            (
                f"array-torch cuda ({torch.cuda.get_device_name()})",
                lambda F, p: array_elimination.rank(F, p, cuda),
            )
        )
    return out


def main(argv=None) -> None:
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int_at_least(2, 30_000), nargs="+", default=[1000, 3000])
    ap.add_argument("--deficit", type=nonneg_int, default=100, help="rank = size - deficit")
    ap.add_argument("--prime", type=prime_arg, default=DEFAULT_PRIME)
    ap.add_argument("--torch-threads", type=thread_count, default=None,
                    help="torch.set_num_threads")
    args = ap.parse_args(argv)
    if args.deficit >= min(args.sizes):
        ap.error(f"--deficit: {args.deficit} must be below every --sizes value "
                 f"(the smallest is {min(args.sizes)})")
    p = args.prime
    todo = engines(args.torch_threads)
    warm = matrix(64, 60, p)
    for _, run in todo:
        run(warm, p)
    print("| size | rank | engine | time (s) | time / blas_elimination |")
    print("|---|---|---|---|---|")
    for n in args.sizes:
        F = matrix(n, n - args.deficit, p, seed=n)
        base = None
        want = None
        for name, run in todo:
            t = time.perf_counter()
            r = run(F, p)
            dt = time.perf_counter() - t
            base = dt if base is None else base
            want = r if want is None else want
            flag = "" if r == want else " WRONG"
            print(f"| {n} | {r}{flag} | {name} | {dt:.2f} | {dt / base:.2f} |", flush=True)


if __name__ == "__main__":
    main()

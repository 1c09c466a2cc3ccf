"""Compile (or load) the compiled kernels ahead of a long run, saying so only when the
compiler runs."""

from __future__ import annotations

import time

import numpy as np

from seprank.algebra import lu_rank
from seprank.algebra.domains import DEFAULT_PRIME
from seprank.engine import kernels, structural_poly
from seprank.engine.measure import measure
from seprank.nets import LinearSelfAttention


def warm_up(say=None) -> bool:
    """Compile (or load) every kernel with a tiny measurement.

    Parameters
    ----------
    say : callable, optional
        Called with one line before a compile (:func:`seprank.engine.kernels.will_compile`)
        and, after it, with the time it took; never when the kernels are loaded from the
        cache or already in memory.

    Returns
    -------
    bool
        Whether numba's compiler ran (counted, not predicted).
    """
    if not kernels.will_compile():
        return False
    if say is not None:
        say(kernels.compiling_message())
    before, t0 = kernels.compile_count(), time.perf_counter()
    # (3, 2, 1, 4) reaches a 275 x 275 grid: the kernel and the blocked rank engine both run
    # (direct: auto would take the catalecticant strategy, which evaluates no grid)
    measure(LinearSelfAttention(depth=3, width=2, heads=1, seq_len=4), rank_engine="blas",
            strategy="direct")
    # and the recursive LU (the catalecticant strategy and every rank outside a growth),
    # at both kinds of prime: one product below 2^23, two split products above; a small
    # matrix's rank is one leaf (the batch kernel), a given leaf width runs the recursion
    for p in (8388593, DEFAULT_PRIME):
        A = np.random.default_rng(0).integers(0, p, (64, 64))
        lu_rank.rank(A, p)
        lu_rank.rank(A, p, leaf=lu_rank.LEAF)
        lu_rank.left_kernel(A[:, :40], p)
    # and the catalecticant matrices' fill (one signature: its paths are run-time choices)
    keys = np.array([0, 1, 3], dtype=np.int64)
    structural_poly.catalecticant(keys, np.ones((3, 2), dtype=np.int64), keys, keys)
    compiled = kernels.compile_count() > before
    if compiled and say is not None:
        say(f"compiled kernels in {time.perf_counter() - t0:.1f} s")
    return compiled

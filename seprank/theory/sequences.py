"""Polynomial-time sums of the form sum_k min(b_k, a_{D-k}) for huge D.

The side dimensions b_k, a_j of :mod:`seprank.theory.bounds` are nondecreasing in k and
are, for every k >= 0, polynomials in k:

- a generic side (at least d_x positions): b_k = C(m-1+k, m-1), a_j = d C(m-1+j, m-1),
  m = d(d+1)/2 (closed forms);
- a side with n < d_x positions: b_k is the Hilbert function of the coordinate ring of
  symmetric d x d matrices of rank <= n (a Cohen-Macaulay domain with rational
  singularities, so its Hilbert function is a polynomial for all k >= 0), of degree
  e = n d - n(n-1)/2 - 1; a_j (a torsion-free module over that ring) is a polynomial of
  the same degree. Both are recovered exactly from their first e + 1 values by Newton's
  forward differences and checked at e + 1 (tests check e + 6 values on small cases).

With r-fold cumulative sums in closed form (hockey stick: sum_{k<=K} C(k+r, i+r) =
C(K+r+1, i+r+1)), the block bound is B_1(K) + A_{r+1}(D-K-1), where K is the crossover
found by bisection: O(log D) exact evaluations instead of a list of length D + 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from seprank.theory.combinatorics import log_comb


class Generic:
    """factor * C(m - 1 + k, m - 1): dimensions on a side with at least d_x positions."""

    def __init__(self, m: int, factor: int = 1):
        self.m, self.factor = m, factor

    def value(self, k: int, r: int = 0) -> int:
        """r-fold cumulative sum at k (0 for k < 0), exact."""
        if k < 0:
            return 0
        return self.factor * math.comb(self.m - 1 + r + k, self.m - 1 + r)

    def log10(self, k: int, r: int = 0) -> float:
        """log10 of :meth:`value`, in floating point (-inf for k < 0)."""
        if k < 0:
            return -math.inf
        return math.log10(self.factor) + log_comb(self.m - 1 + r + k, self.m - 1 + r) / math.log(10)


class Newton:
    """An integer polynomial sequence from its first values: f(k) = sum_i c_i C(k, i)."""

    def __init__(self, values: list[int]):
        coeffs, row = [], list(values)
        while row:
            coeffs.append(row[0])
            row = [row[i + 1] - row[i] for i in range(len(row) - 1)]
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs.pop()
        self.coeffs = coeffs

    def value(self, k: int, r: int = 0) -> int:
        """r-fold cumulative sum at k (0 for k < 0), exact."""
        if k < 0:
            return 0
        return sum(c * math.comb(k + r, i + r) for i, c in enumerate(self.coeffs) if c)


def last_true(pred: Callable[[int], bool], lo: int, hi: int) -> int:
    """Largest k in [lo, hi] with pred(k), for pred true on a prefix and pred(lo) true."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def min_sum(b, a, D: int, r: int = 0) -> int:
    """sum_{k=0..D} min(b(k), A_r(D - k)), A_r the r-fold cumulative sum of a. Exact.

    b is nondecreasing and A_r(D - k) nonincreasing in k, so the minimum switches once.
    """
    K = last_true(lambda k: b.value(k) <= a.value(D - k, r), -1, D)
    return b.value(K, 1) + a.value(D - K - 1, r + 1)


def min_sum_log10(b: Generic, a: Generic, D: int, r: int = 0) -> float:
    """log10 of :func:`min_sum` for generic sides, in floating point (any size).

    Near the crossover both terms are nearly equal, so a crossover off by a few steps
    (float resolution) changes the log10 of the sum only in the last digits.
    """
    K = last_true(lambda k: b.log10(k) <= a.log10(D - k, r), -1, D)
    terms = [t for t in (b.log10(K, 1), a.log10(D - K - 1, r + 1)) if t > -math.inf]
    top = max(terms)
    return top + math.log10(sum(10 ** (t - top) for t in terms))


def hilbert_degree(width: int, n: int) -> int:
    """Degree e of b_k and a_j in k for a side of n < width positions."""
    return n * width - n * (n - 1) // 2 - 1


def bounded_rank_terms(width: int, n: int, limit: int) -> int:
    """Schur dimensions summed to build b and a for a side of n < width positions.

    Exact when at most ``limit``; otherwise some number above ``limit`` (the count stops
    early, so the estimate itself is cheap).
    """
    e, r = hilbert_degree(width, n), min(width, n)
    top = 2 * e + 3
    if top > 2 * limit:  # at least one partition of every size up to top
        return top
    ways = [1] + [0] * top  # partitions into parts <= p, i.e. (conjugate) at most p parts
    total = top + 1
    for p in range(1, min(r, top) + 1):
        for s in range(p, top + 1):
            ways[s] += ways[s - p]
        total = sum(ways)
        if total > limit:
            break
    return total

"""The recursive LU rank over GF(p) against flint, and exactness at the limits of its
delayed reductions and product chunks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seprank.algebra import lu_rank
from seprank.algebra.domains import DEFAULT_PRIME
from seprank.algebra.rank import rank_modp
from tests.algebra.test_blas_elimination import low_rank

#: Five primes: tiny, the largest with lazy leaves (below 2**23), one above, the default.
PRIMES = [2, 3, 65521, 8388593, 33554393, DEFAULT_PRIME]


@settings(deadline=None, max_examples=60)
@given(n=st.integers(1, 90), m=st.integers(1, 90), k=st.integers(0, 90),
       p=st.sampled_from(PRIMES), seed=st.integers(0, 2**16), dup=st.booleans(),
       leaf=st.sampled_from([1, 2, 5, 16]))
def test_lu_rank_equals_flint(n, m, k, p, seed, dup, leaf):
    rng = np.random.default_rng(seed)
    F = low_rank(rng, n, m, min(k, n, m), p)
    if dup and n > 2 and m > 2:  # repeated rows and a zero column: pivot search corner cases
        F[1] = F[0]
        F[:, -1] = 0
    # leaf 1: the recursion all the way down
    assert lu_rank.rank(F, p, leaf=leaf) == rank_modp(F, p, engine="flint")


@pytest.mark.parametrize("p", [8388593, DEFAULT_PRIME])
@pytest.mark.parametrize("n,m,k", [(700, 450, 300), (450, 700, 449), (520, 520, 520),
                                   (600, 300, 0)])
def test_lu_rank_tall_wide_full_and_zero(p, n, m, k, monkeypatch):
    monkeypatch.setattr(lu_rank, "TILE_ROWS", 100)  # many tiles, ragged edges
    monkeypatch.setattr(lu_rank, "TILE_COLS", 130)
    rng = np.random.default_rng(n + m + k)
    F = low_rank(rng, n, m, k, p) if k < min(n, m) else rng.integers(0, p, (n, m))
    A = F.astype(np.float64)
    assert lu_rank.rank(A, p, overwrite=True) == rank_modp(F, p, engine="flint") == k


def test_lazy_leaf_is_the_float64_bound():
    assert lu_rank.lazy_leaf(8388593, 128)  # 2**23 - 15: 128 updates fit
    assert not lu_rank.lazy_leaf(8388593, 129)
    assert lu_rank.lazy_leaf(DEFAULT_PRIME, 2) and not lu_rank.lazy_leaf(DEFAULT_PRIME, 3)


@pytest.mark.parametrize("p", [8388593, 33554393, DEFAULT_PRIME])
def test_worst_case_entries_are_exact(p):
    """Every entry p - 1 (the largest products), inner dimensions past one exact chunk, and
    a leaf that runs lazily to its bound: the product and the rank equal integer arithmetic."""
    k = 2 * lu_rank._chunk(p) + 3
    C = np.zeros((3, 2))
    lu_rank.gemm_sub(C, np.full((3, k), p - 1.0), np.full((k, 2), p - 1.0), p)
    assert C.tolist() == [[float(-k * (p - 1) ** 2 % p)] * 2] * 3
    rng = np.random.default_rng(0)
    F = np.full((300, 200), p - 1, dtype=np.int64)
    F[rng.integers(0, 300, 150), rng.integers(0, 200, 150)] = 1
    assert lu_rank.rank(F, p) == rank_modp(F, p, engine="flint")


def test_trsm_solves_a_unit_lower_system(monkeypatch):
    monkeypatch.setattr(lu_rank, "TRSM_LEAF", 4)
    p, rng = 8388593, np.random.default_rng(3)
    k, w = 37, 11
    L = np.tril(rng.integers(0, p, (k, k)), -1) + np.eye(k, dtype=np.int64)
    X = rng.integers(0, p, (k, w))
    B = (L.astype(object) @ X.astype(object)) % p
    B = B.astype(np.float64)
    lu_rank.trsm(L.astype(np.float64), B, p)
    assert B.astype(np.int64).tolist() == X.tolist()


def test_refusals():
    with pytest.raises(ValueError, match="p="):
        lu_rank.rank(np.eye(3), 1 << 26)
    with pytest.raises(ValueError, match="leaf="):
        lu_rank.rank(np.eye(3), 7, leaf=0)
    assert lu_rank.rank(np.zeros((0, 4)), 7) == 0
    assert lu_rank.rank(np.array([[-1, 8]]), 7) == 1  # reduced mod p first


@settings(deadline=None, max_examples=40)
@given(n=st.integers(1, 70), m=st.integers(1, 70), k=st.integers(0, 70),
       p=st.sampled_from(PRIMES), seed=st.integers(0, 2**16), leaf=st.sampled_from([1, 3, 16]))
def test_left_kernel_is_a_basis(n, m, k, p, seed, leaf):
    """K F = 0 mod p and K has rows - rank independent rows (the identity on the non-pivot
    rows): exactly a basis of the left kernel."""
    rng = np.random.default_rng(seed)
    F = low_rank(rng, n, m, min(k, n, m), p)
    K = lu_rank.left_kernel(F, p, leaf=leaf)
    r = rank_modp(F, p, engine="flint")
    assert K.shape == (n - r, n)
    prod = (K.astype(np.int64).astype(object) @ F.astype(object)) % p
    assert not prod.any()
    assert rank_modp(K.astype(np.int64), p, engine="flint") == n - r

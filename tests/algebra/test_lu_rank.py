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


@pytest.mark.parametrize("p", [65521, 8388593, 16777213])
def test_room_is_the_float64_bound(p):
    h, t = (p - 1) // 2, lu_rank.room(p)
    assert 3 * p + t * h * h <= 2**53
    assert t == 1 << 20 or 3 * p + (t + 1) * h * h > 2**53


@pytest.mark.parametrize("p", [8388593, 16777213])
def test_delayed_reduction_reduces_before_the_bound(p):
    """Two updates whose terms together pass :func:`lu_rank.room`: the first is left
    unreduced, the second must reduce first. The terms are odd and the total is past 2**53,
    so a float64 sum without the reduction would round (the assertion would fail)."""
    t, v = lu_rank.room(p), float((p - 1) // 2 - 1)  # odd: every product (p-1)/2-1 squared
    C, terms = np.zeros((2, 3)), np.zeros(3, dtype=np.int64)
    lu_rank.gemm_sub(C, np.full((2, t - 3), v), np.full((t - 3, 3), p - v), p, terms=terms)
    assert terms.tolist() == [t - 3] * 3 and C[0, 0] == (t - 3) * int(v) ** 2  # delayed
    lu_rank.gemm_sub(C, np.full((2, 5), v), np.full((5, 3), p - v), p, terms=terms)
    assert terms.tolist() == [5] * 3
    assert (t + 2) * int(v) ** 2 > 2**53
    assert np.mod(C, p).tolist() == [[float((t + 2) * int(v) ** 2 % p)] * 3] * 2


@pytest.mark.parametrize("n,m,k", [(700, 450, 300), (640, 640, 639), (300, 900, 290)])
def test_delayed_reductions_over_many_levels(n, m, k):
    """p = 2**24 - 3 leaves room for 128 terms: columns past 128 pivots are reduced late,
    many times over; the rank and the left kernel still equal flint's."""
    p, rng = 16777213, np.random.default_rng(n * m + k)
    F = low_rank(rng, n, m, k, p)
    F[:, : m // 3] = (p - 1) // 2  # large centred entries in the first columns
    r = rank_modp(F, p, engine="flint")
    assert lu_rank.rank(F, p) == r
    K = lu_rank.left_kernel(F, p)
    assert K.shape == (n - r, n)
    assert not ((K.astype(np.int64).astype(object) @ F.astype(object)) % p).any()


def test_leaf_reduces_entries_that_hold_terms():
    """A leaf whose entries hold the most terms :func:`gemm_sub` leaves (magnitudes near
    2**53) is eliminated as its residues are: it reduces them before its own updates."""
    p, rng = 16777213, np.random.default_rng(5)
    t, h = lu_rank.room(p), (p - 1) // 2
    R = rng.integers(0, p, (40, 16)).astype(np.float64)
    A = R - float(t * h * h // p * p)
    assert lu_rank.lazy_leaf(p, 16) and np.abs(A).max() > 2**52
    ipiv_r, ipiv_a = np.arange(40), np.arange(40)
    zeros, held = np.zeros(16, dtype=np.int64), np.full(16, t, dtype=np.int64)
    cols_r = lu_rank._factor(R, 0, 0, 16, p, ipiv_r, 16, True, zeros)
    cols_a = lu_rank._factor(A, 0, 0, 16, p, ipiv_a, 16, True, held)
    assert cols_a == cols_r and A.tolist() == R.tolist() and (held == 0).all()


def test_trsm_with_terms_held_equals_the_reduced_solve(monkeypatch):
    """B holding 300 terms beyond its residues (as the factorisation leaves it) solves to
    the same residues as B reduced first."""
    monkeypatch.setattr(lu_rank, "TRSM_LEAF", 4)
    p, rng = 16777213, np.random.default_rng(4)
    k, w = 45, 9
    L = (np.tril(rng.integers(0, p, (k, k)), -1) + np.eye(k, dtype=np.int64)).astype(float)
    R = rng.integers(0, p, (k, w)).astype(np.float64)
    B = R - float(100 * ((p - 1) // 2) ** 2 // p * p)  # 100 terms' worth, the same residues
    want = R.copy()
    lu_rank.trsm(L, want, p)
    lu_rank.trsm(L, B, p, np.full(w, 100, dtype=np.int64))
    assert B.tolist() == want.tolist()


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


@settings(deadline=None, max_examples=40)
@given(shapes=st.lists(st.tuples(st.integers(1, 64), st.integers(1, 200), st.integers(0, 64)),
                       min_size=1, max_size=12),
       p=st.sampled_from(PRIMES), seed=st.integers(0, 2**16))
def test_rank_many_equals_flint_one_by_one(shapes, p, seed):
    """Small matrices ranked in one call (tall and wide: the short side is the leaf's),
    low rank and full, at five primes (lazy leaves and reduced ones): flint's ranks."""
    rng = np.random.default_rng(seed)
    mats = []
    for s, n, k in shapes:
        M = low_rank(rng, s, n, min(k, s, n), p).astype(np.float64)
        mats.append(M if rng.random() < 0.5 else np.ascontiguousarray(M.T))
    keep = [M.copy() for M in mats]
    assert lu_rank.rank_many(mats, p) == [rank_modp(M, p, engine="flint") for M in keep]
    assert all(np.array_equal(M, K) for M, K in zip(mats, keep))  # not modified


def test_small_rank_is_one_leaf_and_the_recursion_agrees():
    p, rng = 8388593, np.random.default_rng(6)
    F = low_rank(rng, 50, 300, 37, p).astype(np.float64)
    assert lu_rank.small(F.shape) and not lu_rank.small((65, 65))
    assert lu_rank.rank(F, p) == lu_rank.rank(F, p, leaf=lu_rank.LEAF) == 37
    G = F.copy()
    assert lu_rank.rank(G, p, overwrite=True) == 37 and not np.array_equal(G, F)  # in place


def test_rank_many_refusals_name_the_matrix():
    ok = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"mats\[1\] must be a small"):
        lu_rank.rank_many([ok, np.zeros((65, 65))], 7)
    with pytest.raises(ValueError, match=r"mats\[1\] must be a small 2-d float64"):
        lu_rank.rank_many([ok, np.zeros((3, 3), dtype=np.int64)], 7)
    with pytest.raises(ValueError, match=r"mats\[2\] has an entry that is not a residue"):
        lu_rank.rank_many([ok, ok, np.array([[1.0, 7.0]])], 7)
    with pytest.raises(ValueError, match=r"mats\[0\] has an entry"):
        lu_rank.rank_many([np.array([[0.5]])], 7)
    with pytest.raises(ValueError, match="p="):
        lu_rank.rank_many([ok], 1 << 26)
    assert lu_rank.rank_many([], 7) == []


def test_engine_rank_many_takes_what_rank_takes():
    """The BLAS engine batches small residue matrices and ranks anything else (integers,
    entries outside [0, p), large matrices) one by one, as its rank does."""
    from seprank.algebra.rank_engines.base import RankEngine

    p, rng = 8388593, np.random.default_rng(7)
    engine = RankEngine.choose("blas", p)
    small_ok = [low_rank(rng, 20, 30, 5, p).astype(np.float64) for _ in range(3)]
    assert engine.rank_many(small_ok) == [5, 5, 5]
    odd = [small_ok[0], np.array([[-1.0, 2.0], [1.0, -2.0]]), np.eye(70, dtype=np.int64)]
    assert engine.rank_many(odd) == [5, 1, 70]

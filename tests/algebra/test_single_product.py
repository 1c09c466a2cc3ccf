"""The one-product path of the BLAS GF(p) engine (small primes): its exactness limit, its
worst cases, the tiled trailing update and the copy-free entry point."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seprank.algebra import blas_elimination as be
from seprank.algebra.rank import RankEngine, rank_modp


def _largest_prime_below(n):
    return next(q for q in range(n - 1, 2, -1) if all(q % d for d in range(2, int(q**0.5) + 1)))


P23 = _largest_prime_below(1 << 23)  # 8388593
P22 = _largest_prime_below(1 << 22)


def test_single_product_limit_is_the_exactness_bound():
    """k ((p-1)/2)^2 + p <= 2^53 exactly: 512 columns at the largest prime below 2^23,
    not 513; 2048 below 2^22; never for the default prime's size at one block."""
    assert be.single_product(P23, 512) and not be.single_product(P23, 513)
    assert be.single_product(P22, 2048) and not be.single_product(P22, 2049)
    assert not be.single_product(67108859, be.BLOCK)
    h = (P23 - 1) // 2
    assert 512 * h * h + P23 <= 2**53 < 513 * h * h + P23


@pytest.mark.parametrize("p,k", [(P23, 512), (P22, 2048)])
def test_single_product_worst_case_equals_python_ints(p, k):
    """Every entry (p - 1)/2 (the largest centred value) and (p + 1)/2 (the most negative),
    at the longest inner dimension the limit allows: exact."""
    h = (p - 1) // 2
    for a, b in [(h, h), (h + 1, h + 1), (h, h + 1)]:
        A = np.full((2, k), float(a))
        B = np.full((k, 3), float(b))
        want = k * a * b % p
        assert be.single_product(p, k)
        assert be.matmul_mod(A, B, p).tolist() == [[float(want)] * 3] * 2


@settings(deadline=None, max_examples=40)
@given(n=st.integers(1, 90), m=st.integers(1, 90), k=st.integers(0, 90),
       rows=st.integers(1, 40), chunk=st.integers(1, 40), seed=st.integers(0, 2**16),
       p=st.sampled_from([P23, 67108859, 65521]))
def test_tiled_trailing_update_equals_flint(n, m, k, rows, chunk, seed, p):
    """Small tiles (rows x chunk) force many products per update, in both the one-product
    (P23) and the split (the default prime) paths."""
    import unittest.mock as mock

    rng = np.random.default_rng(seed)
    k = min(k, n, m)
    U = rng.integers(0, p, (n, k)).astype(object)
    V = rng.integers(0, p, (k, m)).astype(object)
    F = np.asarray((U @ V) % p, dtype=np.int64) if k else np.zeros((n, m), np.int64)
    with mock.patch.object(be, "ROWS", rows), mock.patch.object(be, "CHUNK", chunk):
        got = be.rank_blocked(F, p, block=8)
    assert got == rank_modp(F, p, engine="flint")


def test_float_residues_are_ranked_without_conversion_and_overwrite_consumes():
    rng = np.random.default_rng(3)
    F = (rng.integers(0, P23, (60, 4)) @ rng.integers(0, 5, (4, 600))) % P23  # wider than a block
    H = F.astype(np.float64)
    keep = H.copy()
    assert be.rank_blocked(H, P23) == 4 and np.array_equal(H, keep)  # untouched
    assert RankEngine.choose("blas", P23).rank(H, overwrite=True) == 4
    assert not np.array_equal(H, keep)  # eliminated in place: no copy was made
    for bad in (np.array([[0.5, 1.0]]), np.array([[-1.0, 2.0]]), np.array([[float(P23), 1.0]])):
        assert be._residues_body(bad, float(P23)) is False
        assert be._residues(bad, float(P23)) is False
    assert be.rank_blocked(np.array([[-1.0, 2.0], [1.0, -2.0]]), 7) == 1  # reduced first


def test_python_bodies_of_the_fused_passes_match_their_definitions():
    p = P23
    pf, pinv = float(p), 1.0 / p
    X = np.array([[0.0, 1.0, (p - 1) / 2, (p + 1) / 2, p - 1.0]])
    assert be._center_body(X, pf).tolist() == [[0.0, 1.0, (p - 1) / 2, -(p - 1) / 2, -1.0]]
    T = np.array([[-3.0 * p - 1, 2.0**52, -(2.0**52), 0.0]])
    want = [int(v) % p for v in T[0]]
    be._reduce_body(T, pf, pinv)
    assert T.astype(np.int64).tolist() == [want]
    C, S = np.array([[0.0, 5.0]]), np.array([[1.0, -(2.0**52)]])
    be._subtract_reduce_body(C, S, pf, pinv)
    assert C.astype(np.int64).tolist() == [[p - 1, (5 + 2**52) % p]]

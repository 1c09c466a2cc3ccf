"""The left kernel read from one BLAS elimination (pivots(factors=...)), against
python-flint: K A = 0 and rank K = n - rank A, at both product paths and the corner cases."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seprank.algebra import blas_elimination as be
from seprank.algebra.left_kernel import left_kernel, matmul_mod_long
from seprank.algebra.rank import rank_modp

PRIMES = [2, 3, 101, 8388593, 67108859]


def _low_rank(rng, n, m, k, p):
    U = rng.integers(0, p, (n, k)).astype(object)
    V = rng.integers(0, p, (k, m)).astype(object)
    return np.asarray((U @ V) % p, dtype=np.float64) if k else np.zeros((n, m))


def _check(F, p, block):
    A = F.copy()
    factors: dict = {}
    r = len(be.pivots(A, p, block, factors=factors)[0])
    K = left_kernel(A, factors, p)
    n = F.shape[0]
    assert r == rank_modp(F.astype(np.int64), p, engine="flint")
    assert K.shape == (n - r, n)
    assert not matmul_mod_long(K, F, p).any()  # every row kills F
    if K.shape[0]:
        assert rank_modp(K.astype(np.int64), p, engine="flint") == n - r  # a basis
    assert ((K >= 0) & (K < p)).all()


@settings(deadline=None, max_examples=60)
@given(n=st.integers(1, 40), m=st.integers(1, 40), k=st.integers(0, 40),
       block=st.sampled_from([1, 3, 8, 256]), p=st.sampled_from(PRIMES),
       seed=st.integers(0, 2**16), dup=st.booleans())
def test_left_kernel_is_a_basis_of_the_left_null_space(n, m, k, block, p, seed, dup):
    rng = np.random.default_rng(seed)
    F = _low_rank(rng, n, m, min(k, n, m), p)
    if dup and n > 2 and m > 2:
        F[1] = F[0]  # a repeated row; a zero column: steps with no pivot
        F[:, 0] = 0
    _check(F, p, block)


@pytest.mark.parametrize("p", [8388593, 67108859])
def test_corner_cases(p):
    _check(np.zeros((5, 4)), p, 8)  # rank 0: K is the identity
    _check(np.eye(6)[:, :6] * 3 % p, p, 8)  # full rank: K empty
    _check(np.arange(1, 8, dtype=float)[:, None], p, 8)  # one column
    rng = np.random.default_rng(0)
    _check(_low_rank(rng, 300, 700, 280, p), p, 64)  # several steps, long rows
    _check(_low_rank(rng, 700, 300, 250, p), p, 64)  # tall: many non-pivot rows


@pytest.mark.parametrize("p", [8388593, 67108859])
def test_matmul_mod_long_any_inner_dimension(p):
    """Inner dimension 20000 (past one product's limit on both paths), worst-case entries."""
    k = 20000
    A = np.full((2, k), p - 1.0)
    B = np.full((k, 3), p - 1.0)
    assert matmul_mod_long(A, B, p).tolist() == [[float(k * (p - 1) ** 2 % p)] * 3] * 2
    rng = np.random.default_rng(1)
    A = rng.integers(0, p, (3, 9000)).astype(object)
    B = rng.integers(0, p, (9000, 4)).astype(object)
    want = ((A @ B) % p).astype(np.int64)
    got = matmul_mod_long(A.astype(np.float64), B.astype(np.float64), p).astype(np.int64)
    assert np.array_equal(got, want)

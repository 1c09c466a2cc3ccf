"""The BLAS GF(p) rank engine against flint, and worst-case exactness of both fast paths."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seprank import modlu
from seprank.domains import DEFAULT_PRIME, MAX_PRIME, ModP, Symbolic
from seprank.nets import LinearSelfAttention
from seprank.nets._attention_kernel import grid_modp
from seprank.rank import rank_modp

PRIMES = [2, 3, 7, 65521, DEFAULT_PRIME]


def low_rank(rng, n, m, k, p, entries=None):
    """An n x m matrix of rank <= k mod p: U @ V with U, V entries below ``entries``
    (default p; products in Python ints, so exact)."""
    hi = p if entries is None else entries
    kind = object if hi * hi * max(k, 1) >= 2**62 else np.int64
    U = rng.integers(0, hi, (n, k)).astype(kind)
    V = rng.integers(0, hi, (k, m)).astype(kind)
    return np.asarray((U @ V) % p, dtype=np.int64) if k else np.zeros((n, m), np.int64)


@settings(deadline=None)
@given(n=st.integers(1, 60), m=st.integers(1, 60), k=st.integers(0, 60),
       block=st.integers(1, 40), p=st.sampled_from(PRIMES), seed=st.integers(0, 2**16),
       dup=st.booleans())  # fmt: skip
def test_blas_rank_equals_flint(n, m, k, block, p, seed, dup):
    rng = np.random.default_rng(seed)
    F = low_rank(rng, n, m, min(k, n, m), p)
    if dup and n > 2 and m > 2:  # repeated rows and a zero column: pivot search corner cases
        F[1] = F[0]
        F[:, -1] = 0
    assert modlu.rank_blocked(F, p, block=block) == rank_modp(F, p, engine="flint")


@pytest.mark.parametrize("chunk", [modlu.CHUNK, 100])
def test_blas_rank_larger_than_one_block_and_rectangular(chunk, monkeypatch):
    monkeypatch.setattr(modlu, "CHUNK", chunk)  # 100: the trailing update in many pieces
    rng = np.random.default_rng(1)
    p = DEFAULT_PRIME
    for n, m, k in [(700, 450, 300), (450, 700, 449), (600, 600, 600)]:
        F = low_rank(rng, n, m, k, p, entries=50) if k < min(n, m) else rng.integers(0, p, (n, m))
        assert modlu.rank_blocked(F, p) == rank_modp(F, p, engine="flint") == k


def test_matmul_mod_worst_case_all_p_minus_1():
    """Largest accepted prime, every entry p-1, longest allowed inner dimension: exact."""
    p = max(q for q in range(modlu.MAX_PRIME - 100, modlu.MAX_PRIME)
            if all(q % d for d in range(2, int(q**0.5) + 1)))  # fmt: skip
    k = 1 << 13
    A = np.full((3, k), p - 1, dtype=np.float64)
    B = np.full((k, 2), p - 1, dtype=np.float64)
    assert modlu.matmul_mod(A, B, p).tolist() == [[float(k * (p - 1) ** 2 % p)] * 2] * 3
    with pytest.raises(ValueError, match="inner dimension"):
        modlu.matmul_mod(np.ones((1, k + 1)), np.ones((k + 1, 1)), p)


def test_rank_engines_refuse_or_fall_back_by_prime():
    F = np.full((4, 4), MAX_PRIME - 1, dtype=np.int64)
    with pytest.raises(ValueError, match="p="):
        modlu.rank_blocked(F, MAX_PRIME)
    assert rank_modp(F, MAX_PRIME) == 1  # auto: flint for primes >= 2**26
    with pytest.raises(ValueError, match="engine="):
        rank_modp(F, 7, engine="gpu")


@pytest.mark.parametrize("p,shape", [(MAX_PRIME, (2, 2, 1, 2)), (DEFAULT_PRIME, (2, 4, 2, 3)),
                                     (3, (3, 3, 1, 4))])  # fmt: skip
def test_kernel_worst_case_all_p_minus_1(p, shape):
    """The compiled grid kernel on all-(p-1) weights and inputs equals Python integers."""
    L, d, H, N = shape
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=True)
    F = ModP(p)
    params = {k: np.full(v.shape, p - 1, dtype=np.int64)
              for k, v in net.init(np.random.default_rng(0), F).items()}  # fmt: skip
    A, B = (0,), tuple(range(1, N))
    Ap = np.full((2, 1, d), p - 1, dtype=np.int64)
    Bp = np.full((3, N - 1, d), p - 1, dtype=np.int64)
    got = grid_modp(net, params, Ap, Bp, A, B, p)
    assert got is not None
    X = np.full((1, N, d), p - 1, dtype=object)
    exact = net.apply({k: v.astype(object) for k, v in params.items()}, X, Symbolic())[0]
    assert got.tolist() == [[int(exact) % p] * 3] * 2

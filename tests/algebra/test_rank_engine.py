"""The one rank engine object: every engine, through the same three methods, agrees with
an independent exact rank (sympy over GF(p)) and finds a nonsingular minor."""

import numpy as np
import pytest

from seprank.algebra.rank import RankEngine, rank_modp
from seprank.errors import ConfigError

P = 65521


def _matrix(rng, rows, cols, rank):
    return (rng.integers(0, P, (rows, rank)) @ rng.integers(0, P, (rank, cols))) % P


def _gf_rank(M) -> int:
    """Gaussian elimination over GF(P) in Python ints (the reference)."""
    A = [[int(v) % P for v in row] for row in M.tolist()]
    r = 0
    for c in range(len(A[0]) if A else 0):
        piv = next((i for i in range(r, len(A)) if A[i][c]), None)
        if piv is None:
            continue
        A[r], A[piv] = A[piv], A[r]
        inv = pow(A[r][c], -1, P)
        A[r] = [v * inv % P for v in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c]:
                f = A[i][c]
                A[i] = [(a - f * b) % P for a, b in zip(A[i], A[r])]
        r += 1
    return r


@pytest.mark.parametrize("shape, rank", [((7, 9), 4), ((12, 5), 5), ((6, 6), 0), ((1, 8), 1)])
def test_rank_and_pivots_agree_with_the_reference(rank_engine, rng, shape, rank):
    M = _matrix(rng, *shape, rank)
    want = _gf_rank(M)
    assert rank_engine.rank(M) == want
    rows, cols = rank_engine.pivots(M)
    assert len(rows) == len(cols) == want
    assert _gf_rank(M[np.ix_(rows, cols)]) == want  # the minor is nonsingular


def test_growing_rank_matches_the_whole_matrix(rank_engine, rng):
    M = _matrix(rng, 20, 20, 9)
    for incremental in (True, False):
        g = rank_engine.grow(incremental)
        g.add(np.zeros((0, 5)), M[:5, :5])
        g.add(M[:5, 5:12], M[5:12, :12])
        assert g.add(M[:12, 12:], M[12:, :]) == _gf_rank(M) == 9
        rows, cols = g.minor()
        assert _gf_rank(M[np.ix_(rows, cols)]) == 9


def test_auto_is_resolved_once_and_never_stays_auto():
    eng = RankEngine.choose("auto", P)
    assert eng.name in ("blas", "flint") and eng.p == P
    assert RankEngine.choose("auto", 2**31 - 1).name == "flint"  # beyond the float64 engines


def test_rank_modp_is_the_engine_rank(rng):
    M = _matrix(rng, 8, 8, 3)
    assert rank_modp(M, P) == RankEngine.choose("flint", P).rank(M) == 3


def test_a_bad_engine_is_refused_naming_the_argument():
    with pytest.raises(ConfigError, match=r"^rank_engine='gpu' must be one of"):
        RankEngine.choose("gpu", P, arg="rank_engine")
    with pytest.raises(ConfigError, match=r"needs prime < 2\*\*26"):
        RankEngine.choose("blas", 2**31 - 1)

"""The one rank engine object: every engine, through the same three methods, agrees with
an independent exact rank (sympy over GF(p)) and finds a nonsingular minor."""

import numpy as np
import pytest

from seprank.algebra.rank import RankEngine, rank_modp
from seprank.errors import ConfigError
from tests._truth import rank_mod_p

P = 65521


def _matrix(rng, rows, cols, rank):
    return (rng.integers(0, P, (rows, rank)) @ rng.integers(0, P, (rank, cols))) % P


@pytest.mark.parametrize("shape, rank", [((7, 9), 4), ((12, 5), 5), ((6, 6), 0), ((1, 8), 1)])
def test_rank_and_pivots_agree_with_the_reference(rank_engine, rng, shape, rank):
    M = _matrix(rng, *shape, rank)
    want = rank_mod_p(M, P)
    assert rank_engine.rank(M) == want
    rows, cols = rank_engine.pivots(M)
    assert len(rows) == len(cols) == want
    assert rank_mod_p(M[np.ix_(rows, cols)], P) == want  # the minor is nonsingular


def test_growing_rank_matches_the_whole_matrix(rank_engine, rng):
    M = _matrix(rng, 20, 20, 9)
    for incremental in (True, False):
        g = rank_engine.grow(incremental)
        g.add(np.zeros((0, 5)), M[:5, :5])
        g.add(M[:5, 5:12], M[5:12, :12])
        assert g.add(M[:12, 12:], M[12:, :]) == rank_mod_p(M, P) == 9
        rows, cols = g.minor()
        assert rank_mod_p(M[np.ix_(rows, cols)], P) == 9


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

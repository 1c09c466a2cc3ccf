"""The incremental GF(p) elimination equals a from-scratch rank at every growth step."""

import numpy as np
import pytest

from seprank.algebra.incremental import IncrementalRank
from seprank.algebra.rank import rank_modp


def _low_rank(rng, n, m, r, p):
    A = rng.integers(0, p, (n, r)).astype(object)
    B = rng.integers(0, p, (r, m)).astype(object)
    return np.array((A @ B) % p, dtype=np.int64)


@pytest.mark.parametrize("p", [3, 7, 31, 67108859])
@pytest.mark.parametrize("seed", range(6))
def test_every_step_matches_flint(p, seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(5, 70)), int(rng.integers(5, 70))
    M = _low_rank(rng, n, m, int(rng.integers(1, 40)), p)
    if seed % 3 == 0:
        M[:, :3] = 0  # zero leading columns: the first pivots are not where they would be
    if seed % 2 == 0 and n > 7:
        M[5:7] = M[1:3]  # duplicated rows
    inc, r0, c0 = IncrementalRank(p), 0, 0
    steps = 0
    while r0 < n or c0 < m:
        r1 = min(n, r0 + int(rng.integers(0, 9)))
        c1 = min(m, c0 + int(rng.integers(0, 9)))
        got = inc.extend(M[:r0, c0:c1], M[r0:r1, :c1])
        assert got == rank_modp(M[:r1, :c1], p, engine="flint"), (r1, c1)
        assert inc.shape == (r1, c1)
        r0, c0, steps = r1, c1, steps + 1
    assert steps > 3


def test_worst_case_residues_and_negative_entries():
    p = 67108859
    M = np.full((40, 40), p - 1, dtype=np.int64)
    M[np.arange(40), np.arange(40)] = p - 2  # full rank, entries near p
    inc = IncrementalRank(p)
    assert inc.extend(np.zeros((0, 20)), M[:20, :20]) == 20
    assert inc.extend(M[:20, 20:], M[20:]) == rank_modp(M, p, engine="flint") == 40
    neg = IncrementalRank(7)
    assert neg.extend(np.zeros((0, 2)), np.array([[-1, -2], [-2, -4]])) == 1


def test_shape_mismatch_is_refused():
    inc = IncrementalRank(7)
    inc.extend(np.zeros((0, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="do not fit"):
        inc.extend(np.ones((3, 1)), np.ones((1, 3)))

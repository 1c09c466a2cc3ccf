"""The catalecticant matrix's compiled fill (structural_poly._fill): the same matrix as a
dictionary lookup per entry and as the numpy passes it replaced, through the dense table
and the search (galloping where the inner keys ascend, binary otherwise), transposed or
not."""

from __future__ import annotations

import numpy as np
import pytest

from seprank.engine import structural_poly as sp


def _truth(keys, values, rk, ck, transpose):
    """H by a dictionary lookup per entry (no table, no search)."""
    at = {int(k): i for i, k in enumerate(keys)}
    d = values.shape[1]
    H = np.zeros((rk.size, ck.size * d))
    for g, r in enumerate(rk):
        for q, c in enumerate(ck):
            a = at.get(int(r + c))
            if a is not None:
                H[g, q * d:(q + 1) * d] = values[a]
    return H.T.copy() if transpose else H


@pytest.mark.parametrize("trial", range(12))
def test_the_compiled_fill_is_the_lookup(trial, monkeypatch):
    rng = np.random.default_rng(trial)
    big = trial % 2 == 1  # keys beyond DENSE_TABLE: the search
    n = int(rng.integers(1, 400))
    keys = np.unique(rng.integers(0, 10**11 if big else 10**5, 3 * n))[:n]
    values = rng.integers(1, 1000, (keys.size, int(rng.integers(1, 4))))
    rk = np.unique(np.concatenate([[0, 1, 2], rng.integers(0, 40, int(rng.integers(1, 40)))]))
    ck = np.concatenate([keys[: n // 2], keys[n // 4:] - 1, rng.integers(0, keys.max() + 5, 30)])
    ck = np.unique(ck[ck >= 0])
    if trial % 3 == 0:  # keys in any order: the binary search, not the galloping one
        rng.shuffle(ck)
        rng.shuffle(rk)
    for transpose in (False, True):
        got = sp.catalecticant(keys, values, rk, ck, transpose)
        truth = _truth(keys, values, rk, ck, transpose)
        assert np.count_nonzero(truth) > 0 and np.array_equal(got, truth)
        with monkeypatch.context() as m:
            m.setattr(sp, "_fill", None)  # the numpy passes
            assert np.array_equal(sp.catalecticant(keys, values, rk, ck, transpose), truth)

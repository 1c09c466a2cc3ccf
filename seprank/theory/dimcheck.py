"""Measured dimensions of the function spaces behind the block bound.

The dimension of a space of polynomials is the rank of its evaluation matrix at enough
random points; computed exactly over GF(p), it is a certified lower bound (equal with high
probability). Used to check the formulas ``b_dim`` and ``a_dim`` independently of them.

>>> evaluation_dim(k=1, width=2, positions=1, kind="b")
3
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from seprank.algebra.domains import DEFAULT_PRIME
from seprank.algebra.rank import rank_modp


def evaluation_dim(k: int, width: int, positions: int, kind: str, seed: int = 0,
                   p: int = DEFAULT_PRIME) -> int:
    """Rank over GF(p) of the evaluations of one side's spanning functions.

    X is width x positions, S = X X^T. ``kind="b"``: the degree-k monomials in the entries
    of S. ``kind="a"``: x^1_c times those monomials (x^1 the first column of X).
    """
    if kind not in ("a", "b"):
        raise ValueError(f"kind={kind!r} must be 'a' or 'b'")
    rng = np.random.default_rng(seed)
    iu = [(i, j) for i in range(width) for j in range(i, width)]
    mons = list(itertools.combinations_with_replacement(range(len(iu)), k))
    coords = range(width) if kind == "a" else [None]
    cols = [(c, mon) for c in coords for mon in mons]
    rows = []
    for _ in range(len(cols) + 5):
        X = rng.integers(0, p, size=(width, positions)).astype(object)
        S = X.dot(X.T)
        ent = [int(S[i, j]) % p for i, j in iu]
        rows.append([(1 if c is None else int(X[c, 0])) * math.prod(ent[t] for t in mon) % p
                     for c, mon in cols])
    return rank_modp(np.array(rows, dtype=np.int64), p)

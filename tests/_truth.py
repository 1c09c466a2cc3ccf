"""An independent ground truth for rank tests: f written out by hand as an exact polynomial
(python-flint fmpq_mpoly) and the rank over Q of its coefficient matrix.

Nothing here runs seprank's engines, domains or networks: a test writes the polynomial the
architecture should compute and compares seprank's number with this one.

>>> X, _ = inputs(2, 2)
>>> rank_over_q(X[0][0] * X[1][0] + X[0][1] * X[1][1], [0])
2
"""

from __future__ import annotations

import flint
import numpy as np


def inputs(seq_len: int, width: int):
    """The variables ``X[n][c]`` (position n, coordinate c) and their polynomial context."""
    names = [f"x{n}_{c}" for n in range(seq_len) for c in range(width)]
    ctx = flint.fmpq_mpoly_ctx.get(names, "lex")
    gens = ctx.gens()
    X = [[gens[n * width + c] for c in range(width)] for n in range(seq_len)]
    return X, ctx


def rank_over_q(poly, A) -> int:
    """The rank over Q of the matrix (monomials in x_A) x (monomials in x_B) of ``poly``.

    ``A`` lists positions; each variable's position is read from its name (``x{n}_{c}``).
    """
    names = poly.context().names()
    pos = [int(name[1:].split("_")[0]) for name in names]
    a_vars = [i for i, n in enumerate(pos) if n in set(A)]
    b_vars = [i for i, n in enumerate(pos) if n not in set(A)]
    rows, cols, entries = {}, {}, {}
    for exps, coeff in poly.terms():
        ra = tuple(exps[i] for i in a_vars)
        cb = tuple(exps[i] for i in b_vars)
        r = rows.setdefault(ra, len(rows))
        c = cols.setdefault(cb, len(cols))
        entries[r, c] = coeff
    if not entries:
        return 0
    m = flint.fmpq_mat(len(rows), len(cols))
    for (r, c), v in entries.items():
        m[r, c] = v
    return m.rank()


def rank_mod_p(M, p: int) -> int:
    """Gaussian elimination over GF(p) in Python integers (independent of every engine)."""
    A = [[int(v) % p for v in row] for row in np.asarray(M).tolist()]
    r = 0
    for c in range(len(A[0]) if A else 0):
        piv = next((i for i in range(r, len(A)) if A[i][c]), None)
        if piv is None:
            continue
        A[r], A[piv] = A[piv], A[r]
        inv = pow(A[r][c], -1, p)
        A[r] = [v * inv % p for v in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c]:
                f = A[i][c]
                A[i] = [(a - f * b) % p for a, b in zip(A[i], A[r])]
        r += 1
    return r


"""Exact rank over Q of a polynomial's coefficient matrix (the symbolic engine's rank)."""

from __future__ import annotations

from seprank.errors import TooBigError


def coefficient_matrix(poly, a_vars: set[int]) -> tuple[dict, dict, list]:
    """Sparse coefficient matrix of ``poly`` (a sympy PolyElement).

    Rows: monomials in the generators with index in ``a_vars``; columns: monomials in
    the others. Returns (row index, column index, [(r, c, coeff), ...]).
    """
    rows: dict = {}
    cols: dict = {}
    entries = []
    for monom, coeff in poly.terms():
        ma = tuple(e if i in a_vars else 0 for i, e in enumerate(monom))
        mb = tuple(e if i not in a_vars else 0 for i, e in enumerate(monom))
        r = rows.setdefault(ma, len(rows))
        c = cols.setdefault(mb, len(cols))
        entries.append((r, c, coeff))
    return rows, cols, entries


#: Largest coefficient matrix (rows * cols) the symbolic engine accepts.
SYMBOLIC_MAX_CELLS = 4_000_000


def rank_coefficients(poly, a_vars: set[int]) -> tuple[int, tuple[int, int]]:
    """Exact rank over Q of the coefficient matrix (= the separation rank of ``poly``)."""
    import flint

    rows, cols, entries = coefficient_matrix(poly, a_vars)
    R, C = len(rows), len(cols)
    if R == 0 or C == 0:
        return 0, (R, C)
    if R * C > SYMBOLIC_MAX_CELLS:
        raise TooBigError(
            f"method=symbolic: coefficient matrix {R}x{C} exceeds {SYMBOLIC_MAX_CELLS} cells"
        )
    from sympy import QQ

    fracs = [(r, c, int(QQ.numer(v)), int(QQ.denom(v))) for r, c, v in entries]
    if all(q == 1 for *_, q in fracs):
        M = flint.fmpz_mat(R, C)
        for r, c, n, _ in fracs:
            M[r, c] = n
    else:  # rational constants in the network (1/2 for a mean): rank over Q
        M = flint.fmpq_mat(R, C)
        for r, c, n, q in fracs:
            M[r, c] = flint.fmpq(n, q)
    return int(M.rank()), (R, C)

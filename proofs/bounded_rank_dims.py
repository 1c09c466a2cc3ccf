"""Claim (proved, any number n of positions, n < d included): the side dimensions b_k and
a_j of seprank.theory.bounds. Statement and proof: proofs/bounded_rank_dims.md (the
invariants of [X; v^T] linear in v, and GL_{d+1} -> GL_d x GL_1 branching).

Check: the formulas equal exact ranks of evaluation matrices; the false variant (the
n >= d closed form used at n < d) does not.
"""
import math

#: (d, n, j) checked by default (fast) and by --extended (minutes).
DEFAULT = [(2, 1, 3), (3, 1, 2), (3, 2, 2), (4, 2, 2), (4, 3, 1)]
EXTENDED = [(d, n, j) for d in (2, 3, 4) for n in range(1, d) for j in range(5)] + \
    [(5, n, j) for n in range(1, 5) for j in range(3)]


def check(cases=None) -> bool:
    from seprank.theory.bounds import a_dim, b_dim
    from seprank.theory.dimcheck import evaluation_dim

    ok = True
    for d, n, j in cases or DEFAULT:
        ok &= evaluation_dim(j, d, n, "a") == a_dim(j, d, n)
        ok &= evaluation_dim(j, d, n, "b") == b_dim(j, d, n)
    return bool(ok)


def false_variant_fails() -> bool:
    """The closed form d C(m+j-1, j) (valid for n >= d) is wrong at n < d."""
    from seprank.theory.dimcheck import evaluation_dim

    d, n, j = 3, 2, 2
    m = d * (d + 1) // 2
    return evaluation_dim(j, d, n, "a") != d * math.comb(m + j - 1, j)


if __name__ == "__main__":
    import sys

    print(check(EXTENDED if "--extended" in sys.argv else None), false_variant_fails())

"""Claim (proved): the generic block bound B(L, d) = sum_{k=0..D} min(b_k, a_{D-k}), with
m = d(d+1)/2, D = (3^L - 1)/2, b_k = C(m+k-1, k), a_j = d b_j, satisfies

    C(m + floor(D/2), floor(D/2)) <= B(L, d) <= d (d + 1) (D + 1) C(m + ceil(D/2), ceil(D/2)).

Statement and proof: proofs/transition.md. The check compares exact integers; the false
variant (half the degree replaced by the whole degree, C(m + D, D) <= B) fails.
"""

import math


def _B(L, d):
    from seprank.theory.bounds import generic_block_bound

    return generic_block_bound(L, d)


def _sandwich(L, d, n_of=lambda D: (D // 2, (D + 1) // 2)) -> bool:
    m, D = d * (d + 1) // 2, (3**L - 1) // 2
    lo_n, hi_n = n_of(D)
    B = _B(L, d)
    return math.comb(m + lo_n, lo_n) <= B <= d * (d + 1) * (D + 1) * math.comb(m + hi_n, hi_n)


CASES = [(L, d) for d in (2, 3, 4, 6, 10, 30, 100) for L in range(1, 9)]


def check() -> bool:
    return all(_sandwich(L, d) for L, d in CASES)


def false_variant_fails() -> bool:
    """With n = D instead of D/2 the lower bound C(m + D, D) <= B is false somewhere."""
    return not all(_sandwich(L, d, n_of=lambda D: (D, D)) for L, d in CASES)


if __name__ == "__main__":
    print(check(), false_variant_fails())

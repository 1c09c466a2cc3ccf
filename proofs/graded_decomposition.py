"""Claim (proved): if f is a homogeneous polynomial of total degree T in the inputs, and
f_k is its part of degree k in the A-side inputs (so f(tA, B) = sum_k t^k f_k(A, B)), then

    sep(f; A, B) = sum_k sep(f_k; A, B).

Hypotheses: f is a polynomial over a field (Q, or GF(p) for the modular measurement);
nothing else (no attention structure is used).

Proof. For a polynomial g, sep(g; A, B) equals the rank of its coefficient matrix C(g)
(rows: monomials x_A^alpha, columns: monomials x_B^beta, entries the coefficients):
a separation g = sum_{r<=R} u_r(x_A) v_r(x_B) with polynomial u_r, v_r writes C(g) as a
sum of R rank-one matrices, and conversely a rank factorisation of C(g) is a separation;
for arbitrary functions u_r, v_r a grid at points where the monomial evaluation matrices
have full column rank gives rank C(g) <= R. Now f is homogeneous of degree T, so
C(f)[alpha, beta] != 0 only if |alpha| + |beta| = T. Group the rows by k = |alpha| and the
columns by |beta|: the entry in row group k and column group T - k' vanishes unless
k = k'. So C(f) is block diagonal with diagonal blocks C_k = C(f_k), and
rank C(f) = sum_k rank C(f_k). QED.

What the graded strategy computes from it (seprank/engine/strategies/graded.py): for distinct
t_1..t_m and the set K of degrees that occur, f(t_j a, b) = sum_{k in K} t_j^k f_k(a, b),
a generalised Vandermonde system V c = g, solved exactly over GF(p) (V is inverted
exactly and refused if singular). So each block grid F_k[r, c] = f_k(a_r, b_c) mod p is
exact, rank_GF(p) F_k <= rank_Q F_k <= sep(f_k), and the sum of the block ranks is a
lower bound on sep(f). The set K is found by interpolating f(t a, b) at T + 1 points for
random (a, b): a degree k with f_k != 0 is missed with probability <= (T/p)^probes
(Schwartz-Zippel), reported with every graded measurement.

Check (exact, over Q): for tiny networks the coefficient-matrix rank of f equals the sum
of those of its A-degree parts, and the graded measurement equals the symbolic rank; a
non-homogeneous f (residual) is the false variant: its blocks do not add up.
"""


def _ranks(net, A, seed=1):
    import numpy as np

    from seprank.algebra.coefficients import coefficient_matrix, rank_coefficients
    from seprank.algebra.domains import Symbolic, symbolic_inputs

    dom = Symbolic()
    params = net.init(np.random.default_rng(seed), dom)
    R, X = symbolic_inputs(net.seq_len, net.width)
    f = R(net.apply(params, X, dom)[0])
    a_vars = {n * net.width + c for n in A for c in range(net.width)}
    parts: dict = {}
    for monom, coeff in f.terms():
        k = sum(e for i, e in enumerate(monom) if i in a_vars)
        parts[k] = parts.get(k, R(0)) + R({monom: coeff})
    whole = rank_coefficients(f, a_vars)[0]
    assert coefficient_matrix(f, a_vars)[2] or whole == 0
    return whole, sum(rank_coefficients(g, a_vars)[0] for g in parts.values()), params


def check() -> bool:
    from seprank import measure
    from seprank.nets import LinearSelfAttention

    ok = True
    for L, d, H, N, A in [(1, 2, 1, 4, (0, 1)), (2, 2, 1, 2, (0,)), (2, 2, 1, 4, (1, 3)),
                          (1, 3, 3, 4, (0, 2))]:
        net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
        whole, blocks, w = _ranks(net, A)
        ok &= whole == blocks
        ok &= measure(net, A, strategy="graded", weights={k: v for k, v in w.items()}).rank \
            == whole
    return bool(ok)


def false_variant_fails() -> bool:
    """With the residual connection f is not homogeneous: the blocks over-count."""
    from seprank.nets import LinearSelfAttention

    whole, blocks, _ = _ranks(LinearSelfAttention(depth=2, width=2, seq_len=4, residual=True),
                              (0, 1))
    return blocks > whole


if __name__ == "__main__":
    print(check(), false_variant_fails())

"""Claim (proved): y^{L,i} = P_L(S) x^i with S = sum_j x^j x^j^T, P_L a d x d matrix
polynomial in the entries of S, homogeneous of degree D = (3^L - 1)/2 without residual
(degree <= D with residual).

Proof. Induction on L. L = 0: P_0 = I (degree 0). Step: suppose y^{l,j} = P x^j for all j
with P = P_l(S). Then S_l := sum_j y^{l,j} y^{l,j}^T = P S P^T, and one layer gives
    y^{l+1,i} = sum_h W^O_h sum_j <W^Q_h y^i, W^K_h y^j> W^V_h y^j
              = sum_h W^O_h W^V_h (sum_j y^j y^j^T) W^K_h^T W^Q_h y^i = M(S_l) y^{l,i},
M(S_l) = sum_h W^O_h W^V_h S_l W^K_h^T W^Q_h, linear in S_l. So P_{l+1} = M(P S P^T) P
(plus P with residual), of degree 2 deg P + 1 + deg P = 3 deg P + 1 in S. With
deg P_0 = 0: D_L = (3^L - 1)/2. QED. The same holds for any number of heads.

Check: for random integer weights, the network output at position i equals
e_p^T P_L(S) x^i computed from S alone (exact integers).
"""

import numpy as np


def check(depth=3, width=3, heads=1, seq_len=4, residual=False, seed=0,
          recursion_residual=None) -> bool:
    """Network output == e_p^T P_L(S) x^i; ``recursion_residual`` (default: ``residual``)
    is the residual term the recursion uses (the false variant drops it)."""
    if recursion_residual is None:
        recursion_residual = residual
    from seprank.algebra.domains import Symbolic
    from seprank.nets import LinearSelfAttention

    net = LinearSelfAttention(depth=depth, width=width, heads=heads, seq_len=seq_len,
                              residual=residual)
    rng = np.random.default_rng(seed)
    W = net.init(rng, Symbolic())
    X = rng.integers(-3, 4, size=(1, seq_len, width)).astype(object)
    direct = net.apply(W, X, Symbolic())[0]
    S = sum(np.outer(X[0, j], X[0, j]) for j in range(seq_len))
    P = np.eye(width, dtype=int).astype(object)
    for layer in range(depth):
        Sl = P.dot(S).dot(P.T)
        M = sum(W["Wo"][layer, h].dot(W["Wv"][layer, h]).dot(Sl).dot(W["Wk"][layer, h].T)
                .dot(W["Wq"][layer, h]) for h in range(heads))
        P = M.dot(P) + (P if recursion_residual else 0)
    via_S = P.dot(X[0, 0])[0]
    return int(direct) == int(via_S)


def false_variant_fails() -> bool:
    """A residual network checked against the recursion without its residual term."""
    return not check(2, 2, 1, 4, residual=True, recursion_residual=False)


if __name__ == "__main__":
    print(all(check(L, d, H, 4, r) for L in (1, 2, 3) for d, H in ((2, 1), (4, 2)) for r in (0, 1)))

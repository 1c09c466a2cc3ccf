"""Claim (proved from classical invariant theory): with X the d x n matrix of a side's
inputs and S = X X^T,

    b_k = dim Poly_k(S) = sum_{mu |- k, l(mu) <= min(d, n)} dim S_{2 mu}(C^d)
    a_j = dim span{(X e_1)_c g(S) : deg g = j}
        = sum_{lambda |- 2j+1, exactly one odd part, l(lambda) <= min(d, n)} dim S_lambda(C^d)

Proof sketch. Cauchy: Poly(C^{d x n}) = sum_lambda S_lambda(C^d) (x) S_lambda(C^n). Polynomials
in S = X X^T are the O(n)-invariants (first fundamental theorem), and S_lambda(C^n) has a
one-dimensional O(n)-invariant iff lambda is even (Gelfand pair (GL_n, O_n)), giving b_k.
The functions x^1_c g(S) are the first coordinates of the O(n)-covariants C^n-valued,
sum_c g_c(S) r_c (r_c the rows of X; FFT for vector covariants), and taking the first
coordinate is injective on covariants; the standard representation occurs once in
S_lambda(C^n)|O(n) iff lambda has exactly one odd part (Littlewood's branching, one box
added to an even partition). For n >= d these reduce to C(m+k-1, k) and d C(m+j-1, j).
The branching step is the least standard: the executable check below compares both
formulas with exact ranks of evaluation matrices (tests/test_theory.py does more cases).

Status: b_k proved; a_j proved modulo the cited branching rule, and checked.
"""


def check() -> bool:
    from seprank.theory.bounds import a_dim, b_dim
    from seprank.theory.dimcheck import evaluation_dim

    return evaluation_dim(2, 3, 2, "a") == a_dim(2, 3, 2) and \
        evaluation_dim(3, 3, 2, "b") == b_dim(3, 3, 2)  # fmt: skip


if __name__ == "__main__":
    print(check())

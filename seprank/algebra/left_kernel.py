"""The left kernel of a matrix over GF(p) from one BLAS elimination, and the rank of a
matrix grown by more columns from it, without eliminating the first part again.

:func:`seprank.algebra.blas_elimination.pivots` with ``steps`` keeps, per elimination
step t (pivot rows at offsets off_t..off_t+k_t, pivot columns cols_t), the multipliers
L_t of every row below in A's columns cols_t, and moves whole rows. After the last step
the row order is [pivot rows R | other rows N] and the original rows satisfy

    h_R = L_R U,   h_N = L_N U,   L_R block unit lower triangular,

U the pivot rows as reduced by the steps before theirs (the non-pivot rows end at zero:
the rank is complete). So h_N = Y h_R with Y L_R = L_N, and the rows of [-Y | I] are a
basis of the left kernel (its dimension is n - rank); Y costs (n - rank) rank^2
multiply-adds, a solve by block back-substitution.

For more columns X: rank [H | X] = rank H + rank(K X), K the left kernel of H (a vector
kills [H | X] exactly when it is in K and kills X). With few non-pivot rows, K X is a
thin matrix: the columns of X are never eliminated.
"""

from __future__ import annotations

import numpy as np

from seprank.algebra import blas_elimination as be


def matmul_mod_long(A: np.ndarray, B: np.ndarray, p: int) -> np.ndarray:
    """(A @ B) mod p for float64 residues, any inner dimension: chunks of the longest
    inner dimension one exact product allows (2**13 for two split products), summed; one
    product (:func:`~seprank.algebra.blas_elimination.matmul_mod`) when it fits in one."""
    step = next((s for s in (8192, 4096, 2048, 1024, 512, 256) if be.single_product(p, s)),
                8192)
    if A.shape[1] <= step:
        return be.matmul_mod(A, B, p)
    out = np.zeros((A.shape[0], B.shape[1]))
    for s in range(0, A.shape[1], step):
        out += be.matmul_mod(np.ascontiguousarray(A[:, s:s + step]),
                             np.ascontiguousarray(B[s:s + step]), p)
        out[out >= p] -= p
    return out


def left_kernel(A: np.ndarray, factors: dict, p: int) -> np.ndarray:
    """Basis of the left kernel of the matrix that ``pivots(A, p, factors=factors)``
    eliminated: (n - rank) x n residues, row j the vector with 1 at the j-th non-pivot
    row (rows in the original order)."""
    n = A.shape[0]
    steps, order = factors["steps"], factors["order"]
    r = sum(k for _, k, _ in steps)
    q = n - r
    K = np.zeros((q, n))
    if q == 0:
        return K
    Y = np.zeros((q, r))
    for t in range(len(steps) - 1, -1, -1):
        off_t, k_t, cols_t = steps[t]
        acc = np.array(A[r:, cols_t])  # L_N, block t
        for off_s, k_s, _ in steps[t + 1:]:
            acc -= matmul_mod_long(Y[:, off_s:off_s + k_s], np.ascontiguousarray(
                A[off_s:off_s + k_s][:, cols_t]), p)
            acc[acc < 0] += p
        Y[:, off_t:off_t + k_t] = acc
    K[:, order[:r]] = np.where(Y > 0, p - Y, 0.0)
    K[np.arange(q), order[r:]] = 1.0
    return K

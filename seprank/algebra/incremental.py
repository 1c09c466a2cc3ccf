"""Exact GF(p) rank of a matrix that grows by rows and columns, without starting over.

The adaptive loop measures the rank of F (n x n), then of a larger F' that contains F.
Re-eliminating F' from scratch repeats all the work done on F; here the elimination is
kept and extended (a blocked LU whose pivot blocks are appended step by step):

- ``Z`` holds the matrix with rows ordered [pivot rows in pivot order | other rows] and
  columns [pivot columns in pivot order | other columns]; pivot row j holds its values
  reduced by the pivots before it (the U factor), other rows are fully reduced, hence
  zero (the rank is complete);
- where the reduced values are zero by construction (row i at the columns of the pivot
  blocks before its own, or at every pivot column for a non-pivot row), ``Z`` stores
  instead row i's multipliers for those pivots (the L factor): an in-place LU, one
  matrix of memory;
- new columns are reduced through the pivot blocks in order (L^-1 applied), new rows are
  eliminated against them (U); the remaining Schur complement is small (new rows x new
  columns plus the new columns of the non-pivot rows) and its pivots become a new block.

The arithmetic is that of :mod:`seprank.algebra.blas_elimination` (float64 residues,
p < 2**26, products
split so every float sum is an exact integer below 2**53), so the rank is exact; the
tests compare it with a from-scratch elimination at every step.

>>> import numpy as np
>>> inc = IncrementalRank(7)
>>> inc.extend(np.zeros((0, 2)), np.array([[1, 2], [2, 4]]))
1
>>> inc.extend(np.array([[1], [3]]), np.array([[0, 1, 5]]))
3
"""

from __future__ import annotations

import numpy as np

from seprank.algebra import blas_elimination
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT

#: Largest inner dimension per split product (blas_elimination's exactness bound is 2**13).
_INNER = 4096


def _mulmod(A: np.ndarray, B: np.ndarray, p: int) -> np.ndarray:
    """(A @ B) mod p for float64 residues, any inner dimension (chunks of _INNER)."""
    out = None
    for s in range(0, max(A.shape[1], 1), _INNER):
        part = blas_elimination.matmul_mod(np.ascontiguousarray(A[:, s : s + _INNER]),
                                np.ascontiguousarray(B[s : s + _INNER]), p)
        out = part if out is None else np.mod(out + part, float(p))
    return out


def _submod(C: np.ndarray, A: np.ndarray, B: np.ndarray, p: int) -> None:
    """C <- (C - A @ B) mod p in place (blas_elimination's fused update, inner chunks of _INNER)."""
    if not (A.shape[0] and A.shape[1] and B.shape[1]):
        return
    pf = float(p)
    for s in range(0, A.shape[1], _INNER):
        H, Lo = blas_elimination.split_products(np.ascontiguousarray(A[:, s : s + _INNER]),
                                      np.ascontiguousarray(B[s : s + _INNER]))
        blas_elimination.subtract_products(C, H, Lo, pf, 1.0 / pf)


class IncrementalRank:
    """Rank over GF(p) (p prime < 2**26) of a matrix grown by :meth:`extend`."""

    def __init__(self, p: int):
        if not 2 <= p < FLOAT64_PRIME_LIMIT:
            raise ValueError(f"p={p} must be a prime below 2**26")
        self.p = int(p)
        self.Z = np.zeros((0, 0))
        self.row_ids = np.zeros(0, dtype=np.int64)  # original index of each row of Z
        self.col_ids = np.zeros(0, dtype=np.int64)
        self.blocks: list[tuple[int, int, np.ndarray]] = []  # (offset, size, S^-1)
        self.rank = 0

    @property
    def shape(self) -> tuple[int, int]:
        return self.Z.shape

    def extend(self, new_cols, new_rows) -> int:
        """Append columns, then rows; return the rank of the grown matrix.

        ``new_cols``: (rows so far) x (c new columns), rows in their original order;
        ``new_rows``: (r new rows) x (columns so far + c), columns in original order.
        Entries are integers (any sign); they are reduced mod p.
        """
        p = float(self.p)
        nr, nc = self.Z.shape
        X = np.asarray(new_cols, dtype=np.float64)
        Y = np.asarray(new_rows, dtype=np.float64)
        c = X.shape[1]
        if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != nr or Y.shape[1] != nc + c:
            raise ValueError(f"extend: new_cols {X.shape} and new_rows {Y.shape} do not fit "
                             f"a {nr}x{nc} matrix")
        X = np.mod(X[self.row_ids], p)
        for off, k, _ in self.blocks:  # L^-1 on the new columns, block by block
            _submod(X[off + k :], self.Z[off + k :, off : off + k], X[off : off + k], self.p)
        col_ids = np.concatenate([self.col_ids, np.arange(nc, nc + c)])
        Y = np.mod(Y[:, col_ids], p)
        for off, k, Sinv in self.blocks:  # eliminate the new rows against each block
            ell = _mulmod(Y[:, off : off + k], Sinv, self.p)
            U = np.concatenate([self.Z[off : off + k, off + k :], X[off : off + k]], axis=1)
            _submod(Y[:, off + k :], ell, U, self.p)
            Y[:, off : off + k] = ell  # the reduced values there are zero: keep L instead
        self.Z = np.concatenate([np.concatenate([self.Z, X], axis=1), Y])
        self.row_ids = np.concatenate([self.row_ids, np.arange(nr, nr + Y.shape[0])])
        self.col_ids = col_ids
        self._new_block()
        return self.rank

    def _new_block(self) -> None:
        """Pivots of the Schur complement (the non-pivot part) become one new block."""
        r = self.rank
        W = self.Z[r:, r:]
        if W.size == 0:
            return
        rel_r, rel_c = blas_elimination.pivots(np.array(W), self.p)
        k = len(rel_r)
        if k == 0:
            return
        rows = np.concatenate([rel_r, np.setdiff1d(np.arange(W.shape[0]), rel_r)]) + r
        cols = np.concatenate([rel_c, np.setdiff1d(np.arange(W.shape[1]), rel_c)]) + r
        self.Z[r:] = self.Z[rows]
        self.row_ids[r:] = self.row_ids[rows]
        self.Z[:, r:] = self.Z[:, cols]
        self.col_ids[r:] = self.col_ids[cols]
        block = np.ascontiguousarray(self.Z[r : r + k, r : r + k])
        Sinv = blas_elimination.inverse_mod(block, self.p)
        self.Z[r + k :, r : r + k] = _mulmod(self.Z[r + k :, r : r + k], Sinv, self.p)  # L
        self.Z[r + k :, r + k :] = 0.0  # fully reduced: zero, since the rank is now complete
        self.blocks.append((r, k, Sinv))
        self.rank = r + k

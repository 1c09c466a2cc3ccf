"""Blocked Gaussian elimination over GF(p) on float64 BLAS: the fast exact rank engine.

For primes ``p < 2**26`` (the default prime is one) every residue is an exact float64
and a product of two residues is below ``2**52``. A product of two matrices mod p is done
as two BLAS matrix products: split the right factor ``B = 2**13 * B_hi + B_lo`` with
entries of both halves below ``2**13``; then each entry of ``A @ B_lo`` (or ``A @ B_hi``)
is a sum of ``k`` terms below ``2**39``, exact in float64 while ``k <= 2**13`` (the inner
dimension here is one block, at most ``BLOCK`` columns). So the arithmetic is exact, not
approximate: the result is the rank over GF(p), the same number flint computes (the
tests check this on random low-rank matrices).

For small primes one product suffices: with residues centred in ``(-p/2, p/2]`` a sum of
``k`` products is below ``k ((p - 1)/2)**2``, exact in float64 while that plus ``p`` stays
at most ``2**53`` (:func:`single_product`: ``p < 2**23`` with ``k <= 512``, ``p < 2**22``
with ``k <= 2048``). Every product then costs one BLAS call instead of two, the rate that
matters for the catalecticant blocks (``experiments/benchmark_elimination.py``).

The elimination runs over column blocks: the pivots of a block are found (recursively,
on narrow strips that fit in cache), then one matrix product applies the block's row
operations to the rest of the matrix, tile by tile (the product of a tile lands in a
buffer that stays in cache, and one fused pass subtracts and reduces it).
"""

from __future__ import annotations

import numpy as np

from seprank.algebra.field_array import matmul_modp
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.errors import EliminationError
from seprank.paths import jit

try:  # numba is a declared dependency, but keep import-time failures soft.
    import numba as _nb
except Exception:  # pragma: no cover
    _nb = None

#: Columns per outer block (inner dimension of the big products; must stay <= 2**13).
BLOCK = 256
#: Columns per inner strip, eliminated by the scalar routine.
INNER = 32
#: Columns per trailing-update product (bounds the temporaries' memory).
CHUNK = 4096
#: Rows per tile of the trailing update (with CHUNK columns: the product buffer's shape).
ROWS = 1024
#: Matrices up to this size are inverted by Gauss-Jordan, larger ones by blocks.
LEAF = 64
_SPLIT = float(1 << 13)


def single_product(p: int, k: int) -> bool:
    """Whether a product of centred residues mod ``p`` with inner dimension ``k`` is exact
    in one float64 BLAS call: every partial sum is an integer of absolute value at most
    ``k ((p - 1) / 2)**2``, and one subtraction from a residue adds less than ``p``."""
    h = (int(p) - 1) // 2
    return int(k) * h * h + int(p) <= (1 << 53)


def _mod(x, p, pinv):
    """x mod p in [0, p) for an exact float64 integer x with |x| + p + 2 <= 2**53 (one
    quotient guess, at most one off, and one correction)."""
    r = x - np.floor(x * pinv) * p
    r = r + p if r < 0 else r  # selects, not branches: loops that inline this vectorise
    return r - p if r >= p else r


def _inv(a, p, pinv):
    """Inverse of a nonzero residue by Fermat's little theorem (float64 square-and-multiply)."""
    result = 1.0
    base = a
    e = int(p) - 2
    while e > 0:
        if e & 1:
            result = _mod(result * base, p, pinv)
        base = _mod(base * base, p, pinv)
        e >>= 1
    return result


def _panel_pivots_body(W, p, pinv):
    """Pivots of the (narrow) block W over GF(p) by scalar elimination; W is destroyed.

    Returns (pivot rows, pivot columns) in the order found, so the pivot rows x pivot
    columns submatrix of the original W has every leading principal minor nonzero.
    """
    rows, b = W.shape
    used = np.zeros(rows, dtype=np.bool_)
    pivrow = np.empty(b, dtype=np.int64)
    pivcol = np.empty(b, dtype=np.int64)
    prow = np.empty(b)
    k = 0
    for c in range(b):
        i = -1
        for t in range(rows):
            if not used[t] and W[t, c] != 0.0:
                i = t
                break
        if i < 0:
            continue
        used[i] = True
        pivrow[k] = i
        pivcol[k] = c
        k += 1
        inv = _inv(W[i, c], p, pinv)
        for e in range(c, b):
            prow[e] = _mod(W[i, e] * inv, p, pinv)
        for t in range(rows):
            f = W[t, c]
            if not used[t] and f != 0.0:
                g = p - f
                for e in range(c, b):
                    W[t, e] = _mod(W[t, e] + g * prow[e], p, pinv)
    return pivrow[:k].copy(), pivcol[:k].copy()


def _gj_inverse_body(S, p, pinv):
    """Inverse of the invertible matrix S over GF(p) (Gauss-Jordan with row pivoting).

    Raises EliminationError if S is singular (no pivot left in a column).
    """
    k = S.shape[0]
    M = np.zeros((k, 2 * k))
    for s in range(k):
        for c in range(k):
            M[s, c] = S[s, c]
        M[s, k + s] = 1.0
    for c in range(k):
        i = c
        while i < k and M[i, c] == 0.0:
            i += 1
        if i == k:
            raise EliminationError("inverse_mod: singular pivot block (no pivot in a column)")
        if i != c:
            for e in range(2 * k):
                M[i, e], M[c, e] = M[c, e], M[i, e]
        inv = _inv(M[c, c], p, pinv)
        for e in range(2 * k):
            M[c, e] = _mod(M[c, e] * inv, p, pinv)
        for t in range(k):
            f = M[t, c]
            if t != c and f != 0.0:
                g = p - f
                for e in range(2 * k):
                    M[t, e] = _mod(M[t, e] + g * M[c, e], p, pinv)
    return M[:, k:].copy()


def _move_rows_body(A, order, r, rel, j0):
    """Bring rows r + rel[0], r + rel[1], ... to positions r, r+1, ... by swaps.

    Only columns >= j0 move (earlier ones are never read again); ``order`` (the original
    index of the row at each position) is permuted alongside. ``rel`` must hold distinct
    offsets in [0, n - r): anything else raises EliminationError, never an out-of-range
    write (the compiled code does no bounds checks of its own).
    """
    n = A.shape[0] - r
    if r < 0 or n < rel.shape[0] or j0 < 0 or order.shape[0] != A.shape[0]:
        raise EliminationError("_move_rows: more pivot rows than rows left")
    seen = np.zeros(max(n, 0), dtype=np.bool_)
    for t in range(rel.shape[0]):
        if rel[t] < 0 or rel[t] >= n or seen[rel[t]]:
            raise EliminationError("_move_rows: pivot row offset out of range or repeated")
        seen[rel[t]] = True
    where = np.arange(n)  # where[row as it was] = its current position
    at = np.arange(n)  # at[position] = the row as it was
    for t in range(rel.shape[0]):
        src = where[rel[t]]
        if src != t:
            for e in range(j0, A.shape[1]):
                A[r + t, e], A[r + src, e] = A[r + src, e], A[r + t, e]
            order[r + t], order[r + src] = order[r + src], order[r + t]
            o = at[t]
            at[t] = rel[t]
            at[src] = o
            where[rel[t]] = t
            where[o] = src


def _join(h, lo, p, pinv):
    """(h * 2**13 + lo) mod p for the two halves of a split product (exact below 2**52)."""
    return _mod(_mod(h, p, pinv) * _SPLIT + lo, p, pinv)


def _combine_body(H, Lo, p, pinv):
    """H <- (H * 2**13 + Lo) mod p, elementwise, in place."""
    for i in range(H.shape[0]):
        for j in range(H.shape[1]):
            H[i, j] = _join(H[i, j], Lo[i, j], p, pinv)


def _subtract_body(C, H, Lo, p, pinv):
    """C <- (C - (H * 2**13 + Lo)) mod p, elementwise, in place (fused update)."""
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            x = C[i, j] - _join(H[i, j], Lo[i, j], p, pinv)
            C[i, j] = x + p if x < 0 else x


def _center_body(X, p):
    """A copy of the residues X in [0, p) moved to (-p/2, p/2] (x - p above (p - 1)/2)."""
    h = (p - 1.0) / 2.0
    out = np.empty(X.shape)
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            x = X[i, j]
            out[i, j] = x - p if x > h else x
    return out


def _reduce_body(T, p, pinv):
    """T <- T mod p in [0, p), elementwise, in place (exact integers, |T| + p + 2 <= 2**53;
    T may be a strided view): each row through a contiguous buffer, where the loop
    vectorises."""
    buf = np.empty(T.shape[1])
    for i in range(T.shape[0]):
        row = T[i]
        for j in range(buf.shape[0]):
            buf[j] = row[j]
        for j in range(buf.shape[0]):
            buf[j] = _mod(buf[j], p, pinv)
        for j in range(buf.shape[0]):
            row[j] = buf[j]


def _subtract_reduce_body(C, T, p, pinv):
    """C <- (C - T) mod p, elementwise, in place (one fused pass after a single product)."""
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = _mod(C[i, j] - T[i, j], p, pinv)


def _residues_body(F, p):
    """Whether every entry of the float64 matrix F is an integer in [0, p) (row by row,
    each row's test without a branch, so that it vectorises)."""
    for i in range(F.shape[0]):
        bad = 0
        for j in range(F.shape[1]):
            x = F[i, j]
            bad |= (x < 0.0) | (x >= p) | (x != np.floor(x))
        if bad:
            return False
    return True


if _nb is not None:
    _mod = jit(_nb, _mod, inline="always")
    _join = jit(_nb, _join, inline="always")
    _inv = jit(_nb, _inv)
    _panel = jit(_nb, _panel_pivots_body)
    _gj_inverse = jit(_nb, _gj_inverse_body)
    _move_rows = jit(_nb, _move_rows_body)
    _combine = jit(_nb, _combine_body)
    #: C <- C - (A @ B) mod p from split_products(A, B) (incremental.py uses it too)
    subtract_products = jit(_nb, _subtract_body)
    _center = jit(_nb, _center_body)
    _residues = jit(_nb, _residues_body)
    _reduce = jit(_nb, _reduce_body)
    _subtract_reduce = jit(_nb, _subtract_reduce_body)
else:  # pragma: no cover
    _panel = None

#: The compiled scalar kernels other eliminations share (:mod:`seprank.algebra.lu_rank`):
#: x mod p, a residue's inverse, centred copy, reduction in place, residue check, fused
#: subtract-and-reduce.
mod_p, inverse_p, centred, reduce_p = _mod, _inv, _center, _reduce
all_residues, subtract_reduce = _residues, _subtract_reduce


def available() -> bool:
    return _panel is not None


def split_products(A, B):
    """(A @ B_hi, A @ B_lo) with B = 2**13 * B_hi + B_lo: both exact in float64."""
    if A.shape[1] > (1 << 13):
        raise ValueError("inner dimension exceeds 2**13")
    B_hi = np.floor(B / _SPLIT)
    return A @ B_hi, A @ (B - B_hi * _SPLIT)


def split_exact(p: int, k: int) -> bool:
    """Whether :func:`split_products` is exact in float64 for residues mod ``p`` and inner
    dimension ``k``: both halves' sums, and their join, stay below 2**53 (p < 2**26 with
    k <= 2**13 always; p near 2**31 only for k <= 16)."""
    q, s = int(p) - 1, int(_SPLIT)
    return k * q * (q // s) <= (1 << 53) and k * q * (s - 1) + s * int(p) < (1 << 53)


def matmul_mod(A: np.ndarray, B: np.ndarray, p: int) -> np.ndarray:
    """(A @ B) mod p, exactly, for float64 residues: one product of the centred residues
    where :func:`single_product` allows, two (:func:`split_products`) where
    :func:`split_exact` does, else in int64 (:func:`~seprank.algebra.field_array.matmul_modp`:
    primes above 2**26, which no elimination here takes, reach it from the graded strategy)."""
    if single_product(p, A.shape[1]):
        C = _center(np.ascontiguousarray(A), float(p)) @ _center(np.ascontiguousarray(B), float(p))
        _reduce(C, float(p), 1.0 / p)
        return C
    if not split_exact(p, A.shape[1]) or A.shape[1] > (1 << 13):
        exact = matmul_modp(A.astype(np.int64), B.astype(np.int64), int(p))
        return exact.astype(np.float64)
    C, Lo = split_products(A, B)
    _combine(C, Lo, float(p), 1.0 / p)
    return C


def _trailing_update(A: np.ndarray, r: int, rn: int, L: np.ndarray, j1: int, p: int) -> None:
    """A[rn:, j1:] <- (A[rn:, j1:] - L @ A[r:rn, j1:]) mod p, tile by tile (ROWS x CHUNK):
    each tile's product lands in one buffer and one fused pass subtracts and reduces."""
    n, m = A.shape
    pf, pinv = float(p), 1.0 / p
    single = single_product(p, L.shape[1])
    if single:
        Lw = _center(np.ascontiguousarray(L), pf)
        Uw = _center(np.ascontiguousarray(A[r:rn, j1:]), pf)
    else:
        Lw, Uw = np.ascontiguousarray(L), np.ascontiguousarray(A[r:rn, j1:])
        U_hi = np.floor(Uw / _SPLIT)
        Uw = (U_hi, Uw - U_hi * _SPLIT)
        lo_buf = np.empty((min(ROWS, n - rn), min(CHUNK, m - j1)))
    buf = np.empty((min(ROWS, n - rn), min(CHUNK, m - j1)))
    for c0 in range(j1, m, CHUNK):
        c1 = min(m, c0 + CHUNK)
        if single:
            U = np.ascontiguousarray(Uw[:, c0 - j1:c1 - j1])
        else:
            U = [np.ascontiguousarray(h[:, c0 - j1:c1 - j1]) for h in Uw]
        for i0 in range(rn, n, ROWS):
            i1 = min(n, i0 + ROWS)
            T = buf[:i1 - i0, :c1 - c0]
            if single:
                np.matmul(Lw[i0 - rn:i1 - rn], U, out=T)
                _subtract_reduce(A[i0:i1, c0:c1], T, pf, pinv)
            else:
                Lo = lo_buf[:i1 - i0, :c1 - c0]
                np.matmul(Lw[i0 - rn:i1 - rn], U[0], out=T)
                np.matmul(Lw[i0 - rn:i1 - rn], U[1], out=Lo)
                subtract_products(A[i0:i1, c0:c1], T, Lo, pf, pinv)


def inverse_mod(S: np.ndarray, p: int) -> np.ndarray:
    """Inverse over GF(p) of S, whose leading principal minors are all nonzero.

    Recursive 2 x 2 block inversion through the Schur complement (whose leading minors
    are then nonzero too), so the work is matrix products; Gauss-Jordan below LEAF.
    """
    k = S.shape[0]
    pf = float(p)
    if k <= LEAF:
        return _gj_inverse(S, pf, 1.0 / pf)
    h = k // 2
    I11 = inverse_mod(np.ascontiguousarray(S[:h, :h]), p)
    T = matmul_mod(S[h:, :h], I11, p)  # S21 S11^-1
    U = matmul_mod(I11, S[:h, h:], p)  # S11^-1 S12
    C = np.mod(S[h:, h:] - matmul_mod(T, S[:h, h:], p), pf)  # Schur complement
    IC = inverse_mod(C, p)
    UIC = matmul_mod(U, IC, p)
    out = np.empty_like(S)
    out[:h, :h] = np.mod(I11 + matmul_mod(UIC, T, p), pf)
    out[:h, h:] = np.mod(-UIC, pf)
    out[h:, :h] = np.mod(-matmul_mod(IC, T, p), pf)
    out[h:, h:] = IC
    return out


def pivots(A: np.ndarray, p: int, block: int = BLOCK, factors: dict | None = None):
    """Pivot rows and columns of A over GF(p): A[rows][:, cols] is invertible and
    ``len(rows)`` is the rank. ``A`` (float64 residues) is overwritten.

    Column blocks of width ``block``; each block's pivots are found by the same routine
    on a copy with blocks of width INNER (so the scalar elimination works on a strip that
    stays in cache), then one product per block updates the rest of the matrix.

    ``factors`` (a dict) receives ``steps`` (per step: offset of its pivot rows, their
    number, its pivot columns) and ``order`` (the final row order); A then keeps each
    step's multipliers in its pivot columns and whole rows move, so that
    :func:`seprank.algebra.left_kernel.left_kernel` can read the factors.
    """
    n, m = A.shape
    pf = float(p)
    pinv = 1.0 / pf
    order = np.arange(n)
    found_rows, found_cols = [], []
    r = 0
    for j0 in range(0, m, block):
        j1 = min(m, j0 + block)
        strip = np.array(A[r:, j0:j1])
        if j1 - j0 <= INNER:
            rel, pc = _panel(strip, pf, pinv)
        else:
            rel, pc = pivots(strip, p, INNER)
        k = len(rel)
        if k == 0:
            continue
        keep = factors is not None
        _move_rows(A, order, r, np.asarray(rel, dtype=np.int64), 0 if keep else j0)
        rn = r + k
        if rn < n and (j1 < m or keep):
            Sinv = inverse_mod(np.ascontiguousarray(A[r:rn, j0 + pc]), p)
            L = matmul_mod(A[rn:, j0 + pc], Sinv, p)
            if keep:  # those columns are never read again by the elimination
                A[rn:, j0 + pc] = L
            if j1 < m:
                _trailing_update(A, r, rn, L, j1, p)
        if keep:
            factors.setdefault("steps", []).append((r, k, j0 + pc))
        found_rows.append(order[r:rn].copy())
        found_cols.append(j0 + pc)
        r = rn
        if r == n:
            break
    if factors is not None:
        factors.setdefault("steps", [])
        factors["order"] = order
    if not found_rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found_rows), np.concatenate(found_cols)


def rank_blocked(F: np.ndarray, p: int, block: int = BLOCK, overwrite: bool = False) -> int:
    """Exact rank of the integer matrix ``F`` over GF(p), p prime below 2**26.

    A float64 ``F`` whose entries are already residues (integers in [0, p), checked) is
    copied once, or not at all with ``overwrite`` (then ``F`` is destroyed)."""
    if not available():  # pragma: no cover
        raise RuntimeError("numba is not available")
    if not 2 <= p < FLOAT64_PRIME_LIMIT:
        raise ValueError(f"p={p} must be a prime below 2**26")
    if not 1 <= block <= (1 << 13):
        raise ValueError(f"block={block} must be in 1..8192")
    if isinstance(F, np.ndarray) and F.dtype == np.float64 and F.ndim == 2 and F.size \
            and _residues(F, float(p)):
        A = F if overwrite and F.flags.c_contiguous else np.array(F, order="C")
        return len(pivots(A, p, block)[0])
    F = np.asarray(F, dtype=np.int64)
    if F.size and (F.min() < 0 or F.max() >= p):
        F = np.mod(F, p)
    A = F.astype(np.float64)
    if A.size == 0:
        return 0
    return len(pivots(A, p, block)[0])

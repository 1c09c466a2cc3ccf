"""The rank over GF(p) by a recursive in-place LU on float64 BLAS (Toledo's recursion).

The columns are split in halves, recursively: the left half is factored (its pivot rows
move to the top, by whole-row swaps, its multipliers stay below its pivots), then the
right half is updated by one triangular solve, ``U12 = L11^-1 A12``, and one product,
``A22 <- A22 - L21 U12``, and factored in turn. A column with no pivot left is skipped,
so the number of pivots is the rank (a PLUQ with the column order fixed). Unlike
:func:`seprank.algebra.blas_elimination.pivots`, nothing is inverted, no panel is
eliminated twice, and the products are as large as the matrix allows: at the top level
they are ``n/2`` square. That is FFLAS-FFPACK's design (recursive PLUQ, products on BLAS,
reduction delayed while exact) without its Winograd products (which do not pay here: with
at most 512 exact terms per product below 2**23, the extra additions and reductions of a
Winograd level would cost more passes over memory than the eighth of the products it
saves: an estimate, not a measurement).

Exactness. Residues are integers in ``[0, p)``, ``p < 2**26``, held exactly in float64.

- Products: a product with inner dimension ``k`` is done by BLAS on the centred residues
  (in ``(-p/2, p/2]``, so each term is at most ``h**2``, ``h = (p-1)/2``), in one call
  that updates the block where it lies (:mod:`seprank.algebra.blas_call`), or by two
  split products (:func:`~seprank.algebra.blas_elimination.split_products`, exact for
  ``p < 2**26`` and ``k <= 2**13``) where fewer than 64 terms would fit (``p`` above about
  ``2**24.5``).
- Delayed reduction. An entry below ``p`` that absorbs ``t`` such terms stays an integer
  of absolute value at most ``p + t h**2``; while that plus ``2 p`` is at most ``2**53``
  (:func:`room`: 512 terms for ``p < 2**23``, 128 for ``p = 2**24 - 3``) every partial sum
  BLAS forms, in any order, is exact, and so is the reduction (its quotient guess
  ``floor(x / p)`` may be one off; the multiple of p it subtracts is within ``p + 2`` of
  ``x``). So an entry is reduced mod p only when the next product would take
  it past that: the factorisation counts, per column, the terms its active rows hold
  (every active row of a column has had the same updates), and a product, a leaf or a
  triangular solve that needs residues reduces first. The operands of every product are
  residues (leaves and solves end reduced), centred into a copy.
- Leaves (at most ``LEAF`` columns) are eliminated by scalar code on a transposed copy of
  the panel (the updates run down contiguous columns). An update ``x - l y`` with residues
  ``l, y`` changes ``x`` by less than ``(p - 1)**2``; a leaf entry gets at most one update
  per earlier column of the leaf, so while ``p + LEAF (p - 1)**2 < 2**53``
  (:func:`lazy_leaf`; every p below 2**23 at these widths) the reduction mod p is delayed
  until the entry's column is reached (it is reduced before it is tested for zero or used
  as a multiplier). Otherwise every update is reduced at once. The triangular solve's
  leaves (``TRSM_LEAF`` rows) follow the same rule: a row is reduced before it is used.

The tests check the ranks against python-flint's nmod_mat at several primes, on random
low-rank, rank-deficient, wide and tall matrices.
"""

from __future__ import annotations

import numpy as np

from seprank.algebra import blas_call
from seprank.algebra.blas_elimination import (
    all_residues,
    centred,
    inverse_p,
    mod_p,
    reduce_p,
    single_product,
    split_exact,
    subtract_products,
    subtract_reduce,
)
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.paths import jit

try:  # numba is a declared dependency, but keep import-time failures soft.
    import numba as _nb
except Exception:  # pragma: no cover
    _nb = None

#: Columns per leaf, eliminated by scalar code (a leaf panel is ``rows x LEAF``).
LEAF = 16
#: Rows per leaf of the triangular solve.
TRSM_LEAF = 32
#: Rows per tile of a product (the product buffer is at most ``TILE_ROWS x TILE_COLS``).
TILE_ROWS = 512
#: Columns per tile of a product.
TILE_COLS = 2048


def lazy_leaf(p: int, width: int = LEAF) -> bool:
    """Whether a leaf of ``width`` columns may delay its reductions mod ``p``: an entry
    below ``p`` plus ``width`` updates below ``(p - 1)**2`` each stays below ``2**53``."""
    return int(p) + int(width) * (int(p) - 1) ** 2 < (1 << 53)


def _leaf_body(WT, ipiv, cols, p, pinv, lazy):
    """Eliminate a leaf panel in place, held transposed (``WT[e, s]``: row s, column e),
    so that every update runs down a whole column, contiguous in memory.

    Pivot rows move to rows 0, 1, ... by swaps (``ipiv[t] = s``: rows t and s were
    swapped, in order); each pivot's multipliers replace the entries below it; a column
    with no nonzero entry left is skipped. ``cols`` receives each pivot's column. Returns
    the number of pivots. Every entry is a residue in [0, p) at the end.
    """
    w, rows = WT.shape
    t = 0
    k = 0
    for j in range(w):
        if t == rows:  # every row is a pivot row: their entries are reduced already
            break
        col = WT[j]
        for s in range(t, rows):
            col[s] = mod_p(col[s], p, pinv)
        i = -1
        for s in range(t, rows):
            if col[s] != 0.0:
                i = s
                break
        if i < 0:
            continue
        ipiv[t] = i
        if i != t:
            for e in range(w):
                WT[e, t], WT[e, i] = WT[e, i], WT[e, t]
        inv = inverse_p(col[t], p, pinv)
        for s in range(t + 1, rows):
            col[s] = mod_p(col[s] * inv, p, pinv)  # the multipliers
        for e in range(j + 1, w):
            row = WT[e]
            y = mod_p(row[t], p, pinv)
            row[t] = y
            if y != 0.0:
                if lazy:
                    for s in range(t + 1, rows):
                        row[s] -= col[s] * y
                else:
                    for s in range(t + 1, rows):
                        row[s] = mod_p(row[s] - col[s] * y, p, pinv)
        cols[k] = j
        k += 1
        t += 1
    return k


def _rank_many_body(flat, shapes, lazy, p, pinv, out):
    """out[b] = rank of matrix b, packed transposed in ``flat`` (``shapes[b] = (w, rows)``:
    its w columns, each of ``rows`` entries, one after another), by one leaf elimination
    each; -1 where an entry is not a residue (an integer in [0, p))."""
    at = 0
    for b in range(shapes.shape[0]):
        w, rows = shapes[b, 0], shapes[b, 1]
        WT = flat[at:at + w * rows].reshape((w, rows))
        at += w * rows
        if not all_residues(WT, p):
            out[b] = -1
            continue
        out[b] = _leaf(WT, np.empty(w, dtype=np.int64), np.empty(w, dtype=np.int64), p,
                       pinv, lazy[b])


def _swap_rows_body(A, ipiv, t0, t1, c0, c1):
    """Apply the swaps ``ipiv[t0:t1]`` (row t with row ipiv[t], in order) to the columns of A
    outside [c0, c1)."""
    m = A.shape[1]
    for t in range(t0, t1):
        s = ipiv[t]
        if s != t:
            for e in range(0, c0):
                A[t, e], A[s, e] = A[s, e], A[t, e]
            for e in range(c1, m):
                A[t, e], A[s, e] = A[s, e], A[t, e]


def _gather_body(A, r0, cols, center, p):
    """A[r0:, cols] as a new contiguous matrix, its residues centred in (-p/2, p/2] when
    ``center`` (the left factor of a single product), else as they are."""
    rows, k = A.shape[0] - r0, cols.shape[0]
    h = (p - 1.0) / 2.0
    out = np.empty((rows, k))
    for i in range(rows):
        for j in range(k):
            x = A[r0 + i, cols[j]]
            out[i, j] = x - p if center and x > h else x
    return out


def _trsm_leaf_body(L, B, p, pinv, lazy):
    """B <- L^-1 B mod p for a unit lower triangular L (only its entries below the diagonal
    are read): row j, reduced once it has all its updates, is subtracted from the rows below."""
    k, w = B.shape
    for j in range(k):
        for e in range(w):
            B[j, e] = mod_p(B[j, e], p, pinv)
        for i in range(j + 1, k):
            f = L[i, j]
            if f != 0.0:
                g = p - f
                if lazy:
                    for e in range(w):
                        B[i, e] += g * B[j, e]
                else:
                    for e in range(w):
                        B[i, e] = mod_p(B[i, e] + g * B[j, e], p, pinv)


if _nb is not None:
    _leaf = jit(_nb, _leaf_body)
    _swap_rows = jit(_nb, _swap_rows_body)
    _trsm_leaf = jit(_nb, _trsm_leaf_body)
    _gather = jit(_nb, _gather_body)
    _rank_many = jit(_nb, _rank_many_body)
else:  # pragma: no cover
    _leaf = None


def available() -> bool:
    """Whether the compiled leaves loaded (numba)."""
    return _leaf is not None


def _chunk(p: int) -> int:
    """Largest inner dimension of one exact product step mod p (see the module docstring)."""
    k = 1 << 13
    while k > 1 and not single_product(p, k):
        k //= 2
    if k >= 64:
        return k
    return 1 << 13 if split_exact(p, 1 << 13) else 16


def room(p: int) -> int:
    """How many product terms of centred residues an entry below ``p`` absorbs exactly and
    can still be reduced exactly: the largest ``t`` with ``3 p + t ((p - 1)/2)**2 <= 2**53``
    (the entry is at most ``p + t h**2``; its reduction forms a multiple of p within
    ``p + 2`` of it), 512 for ``p = 2**23 - 15``, capped at ``2**20``; below 64 the
    products are split instead (:func:`_chunk`)."""
    h = (int(p) - 1) // 2
    return min(1 << 20, ((1 << 53) - 3 * int(p)) // (h * h)) if h else 1 << 20


def gemm_sub(C: np.ndarray, L: np.ndarray, U: np.ndarray, p: int,
             lcols: np.ndarray | None = None, terms: np.ndarray | None = None) -> None:
    """C <- C - L @ U mod p in place; C, L and U may be views of larger matrices.

    ``lcols``: the factor is ``L[:, lcols]``, gathered one chunk at a time (never copied
    whole). Without ``terms`` C ends reduced to residues. ``terms`` (one count per column
    of C, the same for every row: the product terms its entries hold beyond a residue)
    delays the reduction: C is reduced only before a product that would take an entry
    past :func:`room`, and ``terms`` is updated. L and U must be residues.
    """
    rows, cols = C.shape
    inner = L.shape[1] if lcols is None else lcols.size
    if rows == 0 or cols == 0 or inner == 0:
        return
    pf, pinv = float(p), 1.0 / p
    most = room(p)
    if most < 64 or not blas_call.available():
        _gemm_sub_tiled(C, L, U, p, lcols)
        return
    held = 0 if terms is None else int(terms.max())
    for k0 in range(0, inner, most):
        k1 = min(inner, k0 + most)
        if held + (k1 - k0) > most:
            reduce_p(C, pf, pinv)
            held = 0
        if lcols is not None:
            Lk = _gather(L, 0, lcols[k0:k1], True, pf)
        else:
            Lk = centred(L[:, k0:k1], pf)
        blas_call.subtract_product(C, Lk, centred(U[k0:k1], pf))
        held += k1 - k0
    if terms is None:
        reduce_p(C, pf, pinv)
    else:
        terms[:] = held


def _gemm_sub_tiled(C, L, U, p, lcols=None) -> None:
    """:func:`gemm_sub` through numpy: the inner dimension cut into exact chunks (split
    products where one product is not exact), the output into tiles; each tile's product
    lands in one buffer and one fused pass subtracts and reduces it."""
    rows, cols = C.shape
    inner = L.shape[1] if lcols is None else lcols.size
    pf, pinv = float(p), 1.0 / p
    step = _chunk(p)
    single = single_product(p, min(step, inner))
    buf = np.empty((min(TILE_ROWS, rows), min(TILE_COLS, cols)))
    lo_buf = None if single else np.empty_like(buf)
    for k0 in range(0, inner, step):
        k1 = min(inner, k0 + step)
        if lcols is not None:
            Lk = _gather(L, 0, lcols[k0:k1], single, pf)
        else:
            Lk = centred(L[:, k0:k1], pf) if single else np.ascontiguousarray(L[:, k0:k1])
        if single:
            Uk = centred(U[k0:k1], pf)
        else:
            Uk = np.ascontiguousarray(U[k0:k1])
            U_hi = np.floor(Uk / 2.0**13)
            Uk = (U_hi, Uk - U_hi * 2.0**13)
        for c0 in range(0, cols, TILE_COLS):
            c1 = min(cols, c0 + TILE_COLS)
            if single:
                Ut = np.ascontiguousarray(Uk[:, c0:c1])
            else:
                Ut = [np.ascontiguousarray(h[:, c0:c1]) for h in Uk]
            for i0 in range(0, rows, TILE_ROWS):
                i1 = min(rows, i0 + TILE_ROWS)
                T = buf[: i1 - i0, : c1 - c0]
                if single:
                    np.matmul(Lk[i0:i1], Ut, out=T)  # Lk's row slice: a BLAS operand
                    subtract_reduce(C[i0:i1, c0:c1], T, pf, pinv)
                else:
                    Lo = lo_buf[: i1 - i0, : c1 - c0]
                    np.matmul(Lk[i0:i1], Ut[0], out=T)
                    np.matmul(Lk[i0:i1], Ut[1], out=Lo)
                    subtract_products(C[i0:i1, c0:c1], T, Lo, pf, pinv)


def trsm(L: np.ndarray, B: np.ndarray, p: int, terms: np.ndarray | None = None) -> None:
    """B <- L^-1 B mod p in place, for a unit lower triangular L (k x k; L may be any view,
    B a view with contiguous rows): halves recursively, the off-diagonal block applied by
    :func:`gemm_sub`. ``terms`` (per column of B, as in :func:`gemm_sub`): B's entries may
    hold that many product terms beyond a residue. B ends reduced."""
    k = L.shape[0]
    if terms is None:
        terms = np.zeros(B.shape[1], dtype=np.int64)
    if k <= TRSM_LEAF:  # on a contiguous copy of B (the leaf runs faster); L by index
        W = np.ascontiguousarray(B)
        if terms.any():
            reduce_p(W, float(p), 1.0 / p)
        if k > 1:
            _trsm_leaf(L, W, float(p), 1.0 / p, lazy_leaf(p, TRSM_LEAF))
        if W is not B:
            B[...] = W
        return
    h = k // 2
    below = terms.copy()  # rows h.. keep theirs while rows ..h are solved
    trsm(L[:h, :h], B[:h], p, terms)
    gemm_sub(B[h:], L[h:, :h], B[:h], p, terms=below)
    trsm(L[h:, h:], B[h:], p, below)


def _factor(A: np.ndarray, t0: int, c0: int, c1: int, p: int, ipiv: np.ndarray,
            leaf: int, lazy: bool, terms: np.ndarray) -> list:
    """Factor columns [c0, c1) of A's rows t0..; returns their pivot columns (the pivot
    rows are then t0, t1, ...). ``terms[j]``: the product terms column j's rows t0..
    hold beyond a residue (reductions delayed by :func:`gemm_sub`)."""
    n = A.shape[0]
    if t0 >= n or c0 >= c1:
        return []
    pf, pinv = float(p), 1.0 / p
    if c1 - c0 <= leaf:
        WT = np.ascontiguousarray(A[t0:, c0:c1].T)
        if terms[c0:c1].any():
            reduce_p(WT, pf, pinv)
        cols = np.empty(c1 - c0, dtype=np.int64)
        swaps = np.empty(c1 - c0, dtype=np.int64)
        k = _leaf(WT, swaps, cols, pf, pinv, lazy)
        A[t0:, c0:c1] = WT.T
        terms[c0:c1] = 0
        ipiv[t0 : t0 + k] = swaps[:k] + t0
        _swap_rows(A, ipiv, t0, t0 + k, c0, c1)
        return list(cols[:k] + c0)
    h = c0 + max(leaf, ((c1 - c0) // 2) // leaf * leaf)
    left = _factor(A, t0, c0, h, p, ipiv, leaf, lazy, terms)
    k1 = len(left)
    t1 = t0 + k1
    if k1:
        piv = np.asarray(left, dtype=np.int64)
        # the solve reduces rows t0..t1 of these columns; rows t1.. keep their terms
        trsm(np.ascontiguousarray(A[t0:t1][:, piv]), A[t0:t1, h:c1], p, terms[h:c1].copy())
        if t1 < n:  # L21 = A[t1:, piv], columns left of h: apart from the updated ones
            gemm_sub(A[t1:, h:c1], A[t1:], A[t0:t1, h:c1], p, lcols=piv, terms=terms[h:c1])
    return left + _factor(A, t1, h, c1, p, ipiv, leaf, lazy, terms)


def _residues_of(F, p: int, overwrite: bool, leaf: int) -> np.ndarray:
    """A C-ordered float64 matrix of F's residues mod p (F itself with ``overwrite`` when it
    is one already); the arguments checked."""
    if not available():  # pragma: no cover
        raise RuntimeError("numba is not available")
    if not 2 <= p < FLOAT64_PRIME_LIMIT:
        raise ValueError(f"p={p} must be a prime below 2**26")
    if not 1 <= leaf <= 128:
        raise ValueError(f"leaf={leaf} must be in 1..128")
    if isinstance(F, np.ndarray) and F.dtype == np.float64 and F.ndim == 2 and F.size \
            and all_residues(F, float(p)):
        return F if overwrite and F.flags.c_contiguous else np.array(F, order="C")
    F = np.asarray(F, dtype=np.int64)
    if F.size and (F.min() < 0 or F.max() >= p):
        F = np.mod(F, p)
    return F.astype(np.float64)


def _pivots(A: np.ndarray, p: int, leaf: int) -> tuple[np.ndarray, np.ndarray]:
    """(pivot columns, swaps) of A, factored in place (see :func:`_factor`)."""
    ipiv = np.arange(A.shape[0], dtype=np.int64)
    if A.size == 0:
        return np.zeros(0, dtype=np.int64), ipiv
    terms = np.zeros(A.shape[1], dtype=np.int64)
    cols = _factor(A, 0, 0, A.shape[1], p, ipiv, leaf, lazy_leaf(p, leaf), terms)
    return np.asarray(cols, dtype=np.int64), ipiv


#: Blocks up to this short side (and SMALL_ENTRIES entries) go to :func:`rank_many`.
SMALL_SIDE = 64
SMALL_ENTRIES = 1 << 20


def small(shape: tuple[int, int]) -> bool:
    """Whether a matrix of this shape is small enough to be ranked in a batch."""
    return min(shape) <= SMALL_SIDE and shape[0] * shape[1] <= SMALL_ENTRIES


def rank(F: np.ndarray, p: int, overwrite: bool = False, leaf: int | None = None) -> int:
    """Exact rank of the integer matrix ``F`` over GF(p), p prime below 2**26.

    A float64 ``F`` of residues (integers in [0, p), checked) is copied once, or not at
    all with ``overwrite`` (then ``F`` is destroyed). ``leaf``: columns per scalar leaf
    (default ``LEAF``); given, the recursion runs even on a :func:`small` matrix, which
    by default is one leaf (:func:`rank_many`).
    """
    A = _residues_of(F, p, overwrite, LEAF if leaf is None else leaf)
    if leaf is None and A.size and small(A.shape):
        return rank_many([A], p, overwrite=True)[0]  # A is F only where F may go
    return int(_pivots(A, p, LEAF if leaf is None else leaf)[0].size)


def pack(mats: list, p: int, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(flat, shapes, lazy): the small float64 matrices ``mats`` packed for one compiled
    call, each with its short side as the leaf's columns (``shapes[b] = (w, rows)``),
    column after column; ``lazy[b]``: whether its leaf may delay reductions. With
    ``overwrite``, one C-ordered matrix with no more rows than columns is not copied:
    ``flat`` is its memory."""
    if not 2 <= p < FLOAT64_PRIME_LIMIT:
        raise ValueError(f"p={p} must be a prime below 2**26")
    views, shapes = [], np.zeros((len(mats), 2), dtype=np.int64)
    for b, M in enumerate(mats):
        M = np.asarray(M)
        if M.ndim != 2 or M.dtype != np.float64 or not small(M.shape):
            raise ValueError(f"mats[{b}] must be a small 2-d float64 matrix (short side "
                             f"<= {SMALL_SIDE}), not {M.dtype} {M.shape}")
        V = M if M.shape[0] <= M.shape[1] else M.T  # the leaf's columns as V's rows
        shapes[b] = V.shape
        views.append(V)
    widths = np.unique(shapes[:, 0])
    fits = {int(w): lazy_leaf(p, max(int(w), 1)) for w in widths}
    lazy = np.array([fits[int(w)] for w in shapes[:, 0]], dtype=np.bool_)
    if overwrite and len(views) == 1 and views[0].flags.c_contiguous:
        return views[0].reshape(-1), shapes, lazy  # its own memory
    flat = np.empty(int((shapes[:, 0] * shapes[:, 1]).sum()))
    at = 0
    for V in views:  # one copy each, straight into place
        size = V.size
        flat[at:at + size].reshape(V.shape)[...] = V
        at += size
    return flat, shapes, lazy


def rank_many(mats: list, p: int, overwrite: bool = False) -> list[int]:
    """Exact ranks over GF(p) of small float64 matrices of residues (:func:`small`), in
    one compiled call (:func:`pack`, then one leaf elimination each), so no call is made
    per matrix. The matrices are not modified, but for ``overwrite`` (:func:`pack`); an
    entry that is not a residue raises ValueError naming the matrix."""
    if not available():  # pragma: no cover
        raise RuntimeError("numba is not available")
    flat, shapes, lazy = pack(mats, p, overwrite)
    out = np.zeros(len(mats), dtype=np.int64)
    if len(mats):
        _rank_many(flat, shapes, lazy, float(p), 1.0 / p, out)
    bad = np.flatnonzero(out < 0)
    if bad.size:
        raise ValueError(f"mats[{bad[0]}] has an entry that is not a residue mod {p}")
    return [int(r) for r in out]


def left_kernel(F: np.ndarray, p: int, overwrite: bool = False, leaf: int = LEAF) -> np.ndarray:
    """A basis of the left kernel of ``F`` mod p: (rows - rank) x rows float64 residues,
    row j the vector with 1 at the j-th non-pivot row (rows in F's order).

    After the factorisation the rows in their final order are ``[R; N] = [L11; L21] U``
    with L11 unit lower triangular, so ``N = Y R`` with ``Y L11 = L21``: the rows of
    ``[-Y | I]`` (put back in F's row order) span the left kernel. Y is one triangular
    solve, done as ``J L11^T J (J Y^T) = J L21^T`` (J reverses the order) by :func:`trsm`.
    """
    A = _residues_of(F, p, overwrite, leaf)
    n = A.shape[0]
    piv, ipiv = _pivots(A, p, leaf)
    r = piv.size
    K = np.zeros((n - r, n))
    if n == r:
        return K
    order = np.arange(n)
    for t in range(r):  # the swaps, in the order they were made
        s = ipiv[t]
        order[t], order[s] = order[s], order[t]
    B = np.ascontiguousarray(A[r:][:, piv].T[::-1])  # J L21^T
    if r:
        trsm(A[:r][:, piv].T[::-1, ::-1], B, p)  # a view: the solve reads L by index
    Y = B[::-1].T
    K[:, order[:r]] = np.where(Y > 0, p - Y, 0.0)
    K[np.arange(n - r), order[r:]] = 1.0
    return K

"""Exact rank over GF(p), written once over an array backend: numpy, or torch (CPU or CUDA).

The same blocked elimination as :mod:`seprank.algebra.blas_elimination`, but with no
compiled scalar code:
every step is a whole-array operation of a small backend object (:class:`NumpyBackend`,
:class:`TorchBackend`), so the one algorithm runs on a GPU through torch when one is
present. Torch is imported only when a torch backend is made.

Algorithm. Columns are taken in strips (widths ``WIDTHS`` = 256, 64, 8, 1, recursively).
The pivots of a strip are found on a copy of it, which also yields the multipliers
``Lneg`` with ``W[rest] + Lneg @ W[pivots] = 0 (mod p)`` on the strip's pivot columns;
then the pivot rows move to the top and one product updates the live columns. Lneg is
tracked without any inverse: the strip's copy carries extra columns ``E``, and when a
row becomes pivot number j its column ``E[:, j]`` is set to the unit vector of that
row (lazily: before that, the row was never added to another row, so its column of the
accumulated row transform is still that unit vector). The row operations applied to the
strip are applied to ``E`` too, so on the non-pivot rows ``E`` ends up as Lneg. A strip
of width 1 is one pivot: an argmax on the nonzero mask and an elementwise rank-1 update.

Exactness (why every float64 result is the exact integer on every backend)
--------------------------------------------------------------------------
Residues are floats in [0, p), p < 2**26 (every array entry, L and E included, is
one: inputs are reduced mod p and every update ends in ``_mod``). Integers of magnitude
below 2**53 are exact float64 values, and IEEE 754 add, subtract, multiply (correctly
rounded on CPUs and on CUDA GPUs; ``--use_fast_math`` touches only float32) and floor
return the exact result whenever that result is such an integer. So it suffices that
the exact value of every operation is an integer below 2**53; then the order of
operations, a fused multiply-add (one rounding of an exact integer result) or any
summation order changes nothing. Each operation:

* ``_mod(x)``, for integers 0 <= x < 2**26 * p (so x < 2**52): pinv = fl(1/p) (rounded
  once, on the host) and y = fl(x * pinv) = (x/p)(1+e1)(1+e2) with |e1|, |e2| <= 2**-53,
  so |y - x/p| < 2**26 * 2**-52 * (1 + 2**-54) < 1/p (as p <= 2**26 - 5). If x/p is
  not an integer it lies at least 1/p above floor(x/p) and 1/p below the next integer,
  so q = floor(y) = floor(x/p); if it is an integer, q is x/p or x/p - 1. Thus q * p <= x
  is an exact integer and r = x - q * p is in [0, p] (exact, fused into one FMA or not);
  one select maps r = p to 0. Every call below has 0 <= x < 2**26 * p:
* rank-1 update (width-1 strip), ``X + l * y`` elementwise with X, l, y residues: the
  product is at most (p-1)**2 < 2**52 and x <= (p-1) + (p-1)**2 < p**2. The multiplier
  ``(p - w) * inv`` (w a residue, inv = w_pivot**(p-2) mod p in Python integers) is at
  most p * (p-1).
* strip update ``X + L @ Y`` with L residues and k <= 2**12 columns (k <= 256 here):
  Y = 2**13 * Y_hi + Y_lo with Y_hi = floor(Y / 2**13) (division by a power of two and
  floor are exact) and Y_lo = Y - 2**13 * Y_hi, both in [0, 2**13). Every term of
  ``L @ Y_hi`` and ``L @ Y_lo`` is an integer in [0, 2**39) and all terms are >= 0, so
  every partial sum, in any order, blocking, split-K reduction or FMA chain, is an
  integer in [0, k * (p-1) * (2**13-1)], inside [0, 2**51): each matmul is exact, and
  L @ Y_hi < 2**25 * p is a valid ``_mod`` input. Then x = X + 2**13 * (L @ Y_hi mod p)
  + L @ Y_lo <= (p-1) * (1 + 2**13 + 2**25) < 2**26 * p, again a sum of nonnegative
  integers, so exact in any order.
* matrix products: the argument assumes the backend's float64 matmul forms sums of
  products (OpenBLAS, MKL and cuBLAS DGEMM do; no Strassen-type scheme). On CUDA,
  TF32 and reduced-precision reductions concern float32/float16 only (whatever
  ``torch.backends.cuda.matmul.allow_tf32`` says); every tensor here is float64, which
  :meth:`TorchBackend.matmul` checks before each product, so cuBLAS runs DGEMM.
  :func:`check_exact` runs the worst case (all entries p-1, p = 2**26 - 5, k = 2**12)
  once per backend object before it is used, and refuses a backend that fails it.

Example
-------
>>> import numpy as np
>>> rank(np.array([[1, 2, 3], [2, 4, 6], [0, 0, 1]]), 7)
2
"""

from __future__ import annotations

import importlib.util

import numpy as np

from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.errors import ConfigError

#: Strip widths, outermost first; the last must be 1 (the elementwise pivot step).
WIDTHS = (256, 64, 8, 1)  # 4 levels: elementwise work ~halved against (256, 32, 1)
#: Columns per update product (bounds the temporaries' memory).
CHUNK = 4096
#: Largest inner dimension of a split product (the exactness bound above).
MAX_INNER = 1 << 12
_SPLIT = float(1 << 13)


class NumpyBackend:
    """numpy arrays on the CPU: the reference backend."""

    name = "numpy"
    device = "cpu"

    def from_numpy(self, a):
        """A float64 copy of the numpy array ``a`` on this backend."""
        return np.array(a, dtype=np.float64)

    def to_numpy(self, x):
        return np.asarray(x)

    def index(self, idx):
        """An integer index array (for gathers and scatters)."""
        return np.asarray(idx, dtype=np.int64)

    def zeros(self, shape):
        return np.zeros(shape, dtype=np.float64)

    def copy(self, x):
        return x.copy()

    def floor(self, x):
        return np.floor(x)

    def where(self, cond, a, b):
        return np.where(cond, a, b)

    def matmul(self, a, b):
        return a @ b

    def first_nonzero(self, col):
        """(index, value) of the first nonzero of the vector ``col``, or (-1, 0.0)."""
        i = int(np.argmax(col != 0))
        v = float(col[i])
        return (i, v) if v != 0 else (-1, 0.0)


class TorchBackend:
    """torch float64 tensors on ``device`` ("cpu" or "cuda"); torch is imported here."""

    name = "torch"

    def __init__(self, device: str = "cpu"):
        import torch

        self._t = torch
        self.device = torch.device(device)

    def from_numpy(self, a):
        return self._t.tensor(np.asarray(a), dtype=self._t.float64, device=self.device)

    def to_numpy(self, x):
        return x.cpu().numpy()

    def index(self, idx):
        return self._t.as_tensor(np.asarray(idx, dtype=np.int64), device=self.device)

    def zeros(self, shape):
        return self._t.zeros(shape, dtype=self._t.float64, device=self.device)

    def copy(self, x):
        return x.clone()

    def floor(self, x):
        return self._t.floor(x)

    def where(self, cond, a, b):
        return self._t.where(cond, a, b)

    def matmul(self, a, b):
        if a.dtype != self._t.float64 or b.dtype != self._t.float64:  # never TF32 / half
            raise TypeError(f"matmul needs float64 tensors, got {a.dtype} and {b.dtype}")
        return a @ b

    def first_nonzero(self, col):
        i = int(self._t.argmax((col != 0).to(self._t.uint8)))  # the first maximum
        v = float(col[i])
        return (i, v) if v != 0 else (-1, 0.0)


def cuda_problem() -> str | None:
    """Why ``device="cuda"`` cannot run here (one line), or None when it can."""
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed"
    import torch

    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False"
    return None


def get_backend(name: str = "numpy", device: str = "cpu"):
    """The backend object ``name`` ("numpy" or "torch") on ``device`` ("cpu" or "cuda")."""
    if name == "numpy" and device == "cpu":
        return NumpyBackend()
    if name != "torch":
        raise ConfigError(f"backend={name!r} on device={device!r}: expected numpy (cpu) or torch")
    if device == "cuda" and (why := cuda_problem()):
        raise ConfigError(f"device='cuda' is unavailable: {why}")
    if importlib.util.find_spec("torch") is None:
        raise ConfigError("backend='torch' needs torch (pip install 'seprank[torch]')")
    return TorchBackend(device)


def _mod(xp, x, p: int, pinv: float):
    """x mod p for an array of integers 0 <= x < 2**26 * p (see the module's proof)."""
    r = x - xp.floor(x * pinv) * p
    return xp.where(r >= p, r - p, r)


def _addmul(xp, X, L, Y, p: int):
    """X <- (X + L @ Y) mod p in place (X a view), by column chunks; exact (module proof)."""
    k = L.shape[1]
    if k == 0 or X.shape[0] == 0 or X.shape[1] == 0:
        return
    if k > MAX_INNER:
        raise ValueError(f"inner dimension {k} exceeds 2**12")
    pinv = 1.0 / p
    for c0 in range(0, X.shape[1], CHUNK):
        c1 = min(X.shape[1], c0 + CHUNK)
        Y_c = Y[:, c0:c1]
        if k == 1:  # a rank-1 update: the elementwise product of residues is below 2**52
            X[:, c0:c1] = _mod(xp, X[:, c0:c1] + L * Y_c, p, pinv)
            continue
        Y_hi = xp.floor(Y_c / _SPLIT)
        Y_lo = Y_c - Y_hi * _SPLIT
        H = _mod(xp, xp.matmul(L, Y_hi), p, pinv)
        X[:, c0:c1] = _mod(xp, X[:, c0:c1] + H * _SPLIT + xp.matmul(L, Y_lo), p, pinv)


def _move_rows(xp, X, perm: np.ndarray):
    """Rows of X (a view) reordered to X[perm], moving only the rows that change place."""
    dst = np.flatnonzero(perm != np.arange(len(perm)))
    if dst.size and X.shape[1]:
        X[xp.index(dst)] = X[xp.index(perm[dst])]


def _column(xp, w, p: int):
    """The width-1 strip ``w`` (rows x 1): its pivot (the first nonzero row) and Lneg."""
    rows = w.shape[0]
    order = np.arange(rows)
    i, v = xp.first_nonzero(w[:, 0])
    if i < 0:
        return order, np.zeros(0, dtype=np.int64), None
    order[0], order[i] = i, 0
    inv = pow(int(v), p - 2, p)
    g = _mod(xp, (p - w[:, 0]) * float(inv), p, 1.0 / p)  # -w / w[i], per row
    g[i] = g[0]  # the non-pivot rows in the new order: row 0 now sits at position i
    return order, np.zeros(1, dtype=np.int64), g[1:].reshape(rows - 1, 1)


def _strip(xp, W, p: int, widths: tuple, track: bool):
    """Pivots of W (rows x b, overwritten) over GF(p), by strips of width ``widths[0]``.

    Returns ``(order, cols, Lneg)``: ``order`` permutes the rows (``order[:k]`` are the
    pivot rows in the order found, k the rank), ``cols`` the pivot columns; with
    ``track``, ``Lneg`` ((rows - k) x k) has ``W[order[k:]] + Lneg @ W[order[:k]] = 0``
    (mod p) on the columns ``cols``; without, Lneg is None and W is used in place.
    """
    rows, b = W.shape
    work = W
    if track:
        work = xp.zeros((rows, b + min(rows, b)))  # [W | E], E the tracked coefficients
        work[:, :b] = W
    order = np.arange(rows)
    cols = []
    r = 0
    for s0 in range(0, b, widths[0]):
        if r == rows:
            break
        s1 = min(b, s0 + widths[0])
        strip = xp.copy(work[r:, s0:s1])
        if s1 - s0 == 1:
            sub_order, sub_cols, L = _column(xp, strip, p)
        else:
            sub_order, sub_cols, L = _strip(xp, strip, p, widths[1:], True)
        k = len(sub_cols)
        if k == 0:
            continue
        end = b + r + k if track else b  # live columns: rest of W, coefficients so far
        _move_rows(xp, work[r:, s1:end], sub_order)
        order[r:] = order[r:][sub_order]
        if track:  # pivot r + j gets its unit coefficient column b + r + j
            diag = xp.index(np.arange(r, r + k))
            work[diag, diag + b] = 1.0
        _addmul(xp, work[r + k :, s1:end], L, work[r : r + k, s1:end], p)
        cols.extend((s0 + sub_cols).tolist())
        r += k
    Lneg = work[r:, b : b + r] if track else None
    return order, np.asarray(cols, dtype=np.int64), Lneg


def check_exact(xp) -> None:
    """Raise RuntimeError unless ``xp`` does the worst-case strip update exactly.

    All entries p-1 for the largest accepted prime and the longest inner dimension
    (2**12): ``(p-1) + 2**12 * (p-1)**2 mod p``, computed with Python integers.
    """
    p = FLOAT64_PRIME_LIMIT - 5  # 67108859, the largest prime below 2**26
    X = xp.from_numpy(np.full((2, 3), p - 1))
    L = xp.from_numpy(np.full((2, MAX_INNER), p - 1))
    Y = xp.from_numpy(np.full((MAX_INNER, 3), p - 1))
    _addmul(xp, X, L, Y, p)
    want = ((p - 1) + MAX_INNER * (p - 1) ** 2) % p
    if xp.to_numpy(X).tolist() != [[float(want)] * 3] * 2:
        raise RuntimeError(f"backend {xp.name} on {xp.device} is not exact in float64")
    xp.checked = True


def pivots(F: np.ndarray, p: int, xp=None) -> tuple[np.ndarray, np.ndarray]:
    """Pivot rows and columns of the integer matrix F over GF(p), p prime below 2**26.

    ``F[rows][:, cols]`` is invertible mod p and ``len(rows)`` is the rank. ``xp`` is a
    backend object (default :class:`NumpyBackend`); see :func:`get_backend`.
    """
    xp = NumpyBackend() if xp is None else xp
    if not 2 <= p < FLOAT64_PRIME_LIMIT:
        raise ValueError(f"p={p} must be a prime below 2**26")
    if WIDTHS[-1] != 1 or WIDTHS[0] > MAX_INNER:
        raise ValueError(f"WIDTHS={WIDTHS} must end with 1 and start at most at 2**12")
    F = np.asarray(F, dtype=np.int64)
    if F.ndim != 2:
        raise ValueError(f"F must be a matrix, got shape {F.shape}")
    if F.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if not getattr(xp, "checked", False):
        check_exact(xp)
    A = xp.from_numpy(np.mod(F, p))
    order, cols, _ = _strip(xp, A, p, WIDTHS, track=False)
    return order[: len(cols)].copy(), cols


def rank(F: np.ndarray, p: int, xp=None) -> int:
    """Exact rank of the integer matrix ``F`` over GF(p), p prime below 2**26."""
    return len(pivots(F, p, xp)[1])

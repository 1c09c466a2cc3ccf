"""``C <- C - A @ B`` in place on float64 views, by one BLAS ``dgemm`` call.

numpy's ``matmul`` needs a contiguous output, so an update of a block inside a larger
matrix would go through a buffer and a second pass over memory. BLAS takes leading
dimensions: a row-major view with unit column stride is, read column-major, the
transpose with the same leading dimension, so ``C <- C - A B`` is
``C^T <- C^T - B^T A^T``, one ``dgemm('N', 'N')`` with ``alpha = -1, beta = 1``, and C is
updated where it lies. The routine is scipy's (``scipy.linalg.cython_blas``: the same
Fortran interface on every platform scipy ships); without it, numpy does the product and
the subtraction (a buffer, the same result).

Exactness is the caller's business: on integers whose partial sums stay below ``2**53``
every BLAS sum, in any order, is exact (:mod:`seprank.algebra.lu_rank`).
"""

from __future__ import annotations

import ctypes

import numpy as np

_INT_MAX = 2**31 - 1


def _load():
    """scipy's dgemm as a ctypes function, or None where it cannot be reached."""
    try:
        import scipy.linalg.cython_blas as cython_blas

        capsule = cython_blas.__pyx_capi__["dgemm"]
        api = ctypes.pythonapi
        api.PyCapsule_GetName.restype = ctypes.c_char_p
        api.PyCapsule_GetName.argtypes = [ctypes.py_object]
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        address = api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))
    except Exception:  # pragma: no cover - scipy is a dependency; keep the fallback honest
        return None
    i, d, v = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double), ctypes.c_void_p
    kind = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p, i, i, i, d, v, i, v, i,
                            d, v, i)
    return kind(address)


_DGEMM = _load()


def available() -> bool:
    """Whether products go straight to BLAS (else through numpy and a buffer)."""
    return _DGEMM is not None


def _lead(X: np.ndarray, name: str) -> int:
    """X's leading dimension (its row stride in elements); X must be a float64 matrix
    whose rows are contiguous and do not overlap."""
    if X.dtype != np.float64 or X.ndim != 2:
        raise ValueError(f"{name} must be a 2-d float64 array, not {X.dtype} of {X.ndim} dims")
    rows, cols = X.shape
    lead = X.strides[0] // 8 if rows > 1 else max(cols, 1)
    if cols > 1 and X.strides[1] != 8 or X.strides[0] % 8 or lead < max(cols, 1):
        raise ValueError(f"{name} must have contiguous, separate rows (strides {X.strides})")
    if max(lead, rows) > _INT_MAX:
        raise ValueError(f"{name} is too large for 32-bit BLAS dimensions ({X.shape})")
    return lead


def subtract_product(C: np.ndarray, A: np.ndarray, B: np.ndarray) -> None:
    """C <- C - A @ B in place (float64; C, A and B may be views with contiguous rows).

    An operand that may overlap C is copied first (BLAS does not allow it)."""
    m, n = C.shape
    if A.shape[0] != m or B.shape[1] != n or A.shape[1] != B.shape[0]:
        raise ValueError(f"shapes {C.shape} - {A.shape} @ {B.shape} do not match")
    if m == 0 or n == 0 or A.shape[1] == 0:
        return
    lc = _lead(C, "C")
    if not C.flags.writeable:
        raise ValueError("C must be writeable")
    if _DGEMM is None:  # pragma: no cover
        C -= A @ B
        return
    A = np.array(A) if np.may_share_memory(A, C) else A
    B = np.array(B) if np.may_share_memory(B, C) else B
    la, lb = _lead(A, "A"), _lead(B, "B")
    c_int, one = ctypes.c_int, ctypes.c_double
    _DGEMM(b"N", b"N", c_int(n), c_int(m), c_int(A.shape[1]), one(-1.0),
           B.ctypes.data, c_int(lb), A.ctypes.data, c_int(la), one(1.0), C.ctypes.data,
           c_int(lc))

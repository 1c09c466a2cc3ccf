"""Exact (generalised) Vandermonde systems over GF(p): interpolation of a polynomial in t.

If ``g(t) = sum_i c_i t^(e_i)`` then the values at distinct points ``t_j`` satisfy
``g = V c`` with ``V[j, i] = t_j^(e_i)``; ``c = V^(-1) g``. python-flint does the exact
inverse over GF(p) (the systems here are at most a few hundred unknowns).

>>> inv = vandermonde_inverse([1, 2, 3], [0, 1, 2], 101)
>>> [int(v) for v in (inv @ [6, 11, 18]) % 101]  # g(t) = 3 + 2 t + t^2 at t = 1, 2, 3
[3, 2, 1]
"""

from __future__ import annotations

import numpy as np

from seprank.errors import SamplingError


def vandermonde_matrix(ts, exps, p: int) -> np.ndarray:
    """``V[j, i] = ts[j] ** exps[i] mod p`` as int64 residues (exact Python powers)."""
    return np.array([[pow(int(t), int(e), p) for e in exps] for t in ts], dtype=np.int64)


def vandermonde_inverse(ts, exps, p: int) -> np.ndarray:
    """Inverse of ``vandermonde_matrix(ts, exps, p)`` over GF(p), as int64 residues.

    Raises SamplingError when the (generalised) Vandermonde matrix is singular mod p.
    """
    import flint

    m = len(ts)
    if m != len(exps):
        raise ValueError("need as many points as exponents")
    V = vandermonde_matrix(ts, exps, p)
    M = flint.nmod_mat(m, m, [int(v) for v in V.ravel()], int(p))
    try:
        inv = M.inv()
    except ZeroDivisionError:
        raise SamplingError(
            f"prime={p}: the interpolation points give a singular Vandermonde system"
        ) from None
    return np.array([[int(inv[i, j]) for j in range(m)] for i in range(m)], dtype=np.int64)


def interpolate(ts, values, p: int) -> np.ndarray:
    """Coefficients c_0..c_(m-1) of the polynomial of degree < m through (ts, values)."""
    inv = vandermonde_inverse(ts, range(len(ts)), p)
    vals = np.asarray(values, dtype=object) % p
    return np.array([int(v) % p for v in inv.astype(object) @ vals], dtype=np.int64)

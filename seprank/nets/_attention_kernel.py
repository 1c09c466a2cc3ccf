"""Compiled GF(p) grid evaluation for LinearSelfAttention (numba).

An accelerator only: it computes exactly what ``LinearSelfAttention.apply`` computes in
``ModP`` (the generic path stays the reference and the tests check they agree), but it
fuses each network evaluation into registers instead of materialising intermediates.
Overflow: every operand is reduced to [0, p), so a product is < (p-1)**2, and each
accumulator adds at most ``max(width, seq_len)`` such products before one reduction.
``grid_modp`` refuses (returns None, so the caller falls back to the generic path) unless
``max(width, seq_len) * (p-1)**2 <= 2**63 - 1``: no int64 overflow.
"""

from __future__ import annotations

import numpy as np

try:  # numba is a declared dependency, but keep import-time failures soft.
    import numba as _nb
except Exception:  # pragma: no cover
    _nb = None


def _kernel_body(A, Bc, pos_a, pos_b, Wq, Wk, Wv, Wo, p, qpos, coord, residual, out):
    P, Q = out.shape
    L, H, da, d = Wq.shape
    N = pos_a.shape[0] + pos_b.shape[0]
    for r in _prange(P):
        Y = np.empty((N, d), dtype=np.int64)
        Yn = np.empty((N, d), dtype=np.int64)
        q = np.empty((N, da), dtype=np.int64)
        k = np.empty((N, da), dtype=np.int64)
        v = np.empty((N, da), dtype=np.int64)
        z = np.empty(da, dtype=np.int64)
        for c in range(Q):
            for t in range(pos_a.shape[0]):
                for e in range(d):
                    Y[pos_a[t], e] = A[r, t, e]
            for t in range(pos_b.shape[0]):
                for e in range(d):
                    Y[pos_b[t], e] = Bc[c, t, e]
            for layer in range(L):
                last = layer == L - 1
                for n in range(N):
                    for e in range(d):
                        Yn[n, e] = Y[n, e] if residual else 0
                for h in range(H):
                    for n in range(N):
                        for a in range(da):
                            sq = 0
                            sk = 0
                            sv = 0
                            for e in range(d):
                                y = Y[n, e]
                                sq += Wq[layer, h, a, e] * y
                                sk += Wk[layer, h, a, e] * y
                                sv += Wv[layer, h, a, e] * y
                            q[n, a] = sq % p
                            k[n, a] = sk % p
                            v[n, a] = sv % p
                    for i in range(N):
                        if last and i != qpos:
                            continue
                        for a in range(da):
                            z[a] = 0
                        for j in range(N):
                            s = 0
                            for a in range(da):
                                s += q[i, a] * k[j, a]
                            s = s % p
                            for a in range(da):
                                z[a] += s * v[j, a]
                        for a in range(da):
                            z[a] = z[a] % p
                        for e in range(d):
                            o = 0
                            for a in range(da):
                                o += Wo[layer, h, e, a] * z[a]
                            Yn[i, e] = (Yn[i, e] + o % p) % p
                for n in range(N):
                    for e in range(d):
                        Y[n, e] = Yn[n, e]
            out[r, c] = Y[qpos, coord]


if _nb is not None:
    _prange = _nb.prange
    _kernel = _nb.njit(parallel=True, cache=True)(_kernel_body)
else:  # pragma: no cover
    _prange = range
    _kernel = None


def available() -> bool:
    return _kernel is not None


def grid_modp(net, params, A, B, pos_a, pos_b, p: int) -> np.ndarray:
    """F[r, c] = f(A[r] on pos_a, B[c] on pos_b) mod p, or None if p is too large."""
    if max(net.width, net.seq_len) * (p - 1) ** 2 > 2**63 - 1:
        return None
    out = np.empty((A.shape[0], B.shape[0]), dtype=np.int64)
    _kernel(
        np.ascontiguousarray(A, dtype=np.int64),
        np.ascontiguousarray(B, dtype=np.int64),
        np.asarray(pos_a, dtype=np.int64),
        np.asarray(pos_b, dtype=np.int64),
        np.ascontiguousarray(params["Wq"], dtype=np.int64),
        np.ascontiguousarray(params["Wk"], dtype=np.int64),
        np.ascontiguousarray(params["Wv"], dtype=np.int64),
        np.ascontiguousarray(params["Wo"], dtype=np.int64),
        np.int64(p),
        np.int64(net.query_position),
        np.int64(net.output_coord),
        bool(net.residual),
        out,
    )
    return out

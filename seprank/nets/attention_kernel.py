"""Compiled GF(p) grid evaluation for LinearSelfAttention (numba).

An accelerator only: it computes exactly what ``LinearSelfAttention.apply`` computes in
``ModP`` (the generic path stays the reference and the tests check they agree), but it
evaluates a tile of TILE grid columns at once in small per-thread buffers (the tile is the
innermost, vectorised loop) instead of materialising batched intermediates.
Overflow: every operand is reduced to [0, p), so a product is < (p-1)**2, and each
accumulator adds at most ``max(width, seq_len)`` such products before one reduction.
``grid_modp`` refuses (returns None, so the caller falls back to the generic path) unless
``max(width, seq_len) * (p-1)**2 <= 2**63 - 1`` (no int64 overflow) and
``max(width, seq_len) * p < 2**50`` (the division-free reduction ``_rem`` is exact).
"""

from __future__ import annotations

import numpy as np

from seprank.paths import jit

try:  # numba is a declared dependency, but keep import-time failures soft.
    import numba as _nb
except Exception:  # pragma: no cover
    _nb = None


#: Columns evaluated together; every inner loop runs over the tile, so it vectorises.
TILE = 64


def _rem(x, p, pinv):
    """x mod p for 0 <= x < 2**63 without an integer division (branch-free, vectorisable).

    y = x * (1/p) in float64 is within (x/p) * 2**-51 of x/p, below 1/2 because
    ``grid_modp`` requires max(width, seq_len) * p < 2**50 (x/p < that bound); so
    q = trunc(y) is floor(x/p) - 1, floor(x/p) or floor(x/p) + 1, and x - q*p (exact:
    int64 wraps and the true value fits) lies in [-p, 2p): one correction each way.
    """
    r = x - np.int64(np.float64(x) * pinv) * p
    r = r + p if r < 0 else r
    return r - p if r >= p else r


def _kernel_body(A, Bc, pos_a, pos_b, Wq, Wk, Wv, Wo, p, pinv, qpos, coord, residual, out):
    P, Q = out.shape
    L, H, da, d = Wq.shape
    N = pos_a.shape[0] + pos_b.shape[0]
    T = TILE
    for r in _prange(P):
        Y = np.empty((N, d, T), dtype=np.int64)
        Yn = np.empty((N, d, T), dtype=np.int64)
        q = np.empty((N, da, T), dtype=np.int64)
        k = np.empty((N, da, T), dtype=np.int64)
        v = np.empty((N, da, T), dtype=np.int64)
        z = np.empty((da, T), dtype=np.int64)
        s = np.empty(T, dtype=np.int64)
        for c0 in range(0, Q, T):
            for t in range(T):
                c = min(c0 + t, Q - 1)  # the last tile repeats its last column
                for i in range(pos_a.shape[0]):
                    for e in range(d):
                        Y[pos_a[i], e, t] = A[r, i, e]
                for i in range(pos_b.shape[0]):
                    for e in range(d):
                        Y[pos_b[i], e, t] = Bc[c, i, e]
            for layer in range(L):
                last = layer == L - 1
                for n in range(N):
                    for e in range(d):
                        for t in range(T):
                            Yn[n, e, t] = Y[n, e, t] if residual else 0
                for h in range(H):
                    for n in range(N):
                        for a in range(da):
                            for t in range(T):
                                q[n, a, t] = 0
                                k[n, a, t] = 0
                                v[n, a, t] = 0
                            for e in range(d):
                                wq = Wq[layer, h, a, e]
                                wk = Wk[layer, h, a, e]
                                wv = Wv[layer, h, a, e]
                                for t in range(T):
                                    y = Y[n, e, t]
                                    q[n, a, t] += wq * y
                                    k[n, a, t] += wk * y
                                    v[n, a, t] += wv * y
                            for t in range(T):
                                q[n, a, t] = _rem(q[n, a, t], p, pinv)
                                k[n, a, t] = _rem(k[n, a, t], p, pinv)
                                v[n, a, t] = _rem(v[n, a, t], p, pinv)
                    for i in range(N):
                        if last and i != qpos:
                            continue  # the last layer only feeds the query position
                        for a in range(da):
                            for t in range(T):
                                z[a, t] = 0
                        for j in range(N):
                            for t in range(T):
                                s[t] = 0
                            for a in range(da):
                                for t in range(T):
                                    s[t] += q[i, a, t] * k[j, a, t]
                            for t in range(T):
                                s[t] = _rem(s[t], p, pinv)
                            for a in range(da):
                                for t in range(T):
                                    z[a, t] += s[t] * v[j, a, t]
                        for a in range(da):
                            for t in range(T):
                                z[a, t] = _rem(z[a, t], p, pinv)
                        for e in range(d):
                            if last and e != coord:
                                continue
                            for t in range(T):
                                s[t] = 0
                            for a in range(da):
                                w = Wo[layer, h, e, a]
                                for t in range(T):
                                    s[t] += w * z[a, t]
                            for t in range(T):
                                o = Yn[i, e, t] + _rem(s[t], p, pinv)
                                Yn[i, e, t] = o - p if o >= p else o
                for n in range(N):
                    for e in range(d):
                        for t in range(T):
                            Y[n, e, t] = Yn[n, e, t]
            for t in range(min(T, Q - c0)):
                out[r, c0 + t] = Y[qpos, coord, t]


if _nb is not None:
    _prange = _nb.prange
    _rem = jit(_nb, _rem, inline="always")
    _kernel = jit(_nb, _kernel_body, parallel=True)
else:  # pragma: no cover
    _prange = range
    _kernel = None


def available() -> bool:
    return _kernel is not None


def evaluator(form):
    """The grid evaluator of the capability ``kernel()`` for a network of the structural
    form ``form`` (:class:`~seprank.nets.capabilities.StructuralForm`), weights in the
    paper's layout; None where numba is missing."""
    if not available():
        return None

    def evaluate(params, A, B, pos_a, pos_b, p: int):
        return grid_modp(form, params, A, B, pos_a, pos_b, p)

    return evaluate


def grid_modp(net, params, A, B, pos_a, pos_b, p: int) -> np.ndarray:
    """F[r, c] = f(A[r] on pos_a, B[c] on pos_b) mod p, or None if p is too large
    (``net``: anything with the structural form's fields)."""
    m = max(net.width, net.seq_len)
    if m * (p - 1) ** 2 > 2**63 - 1 or m * p >= 2**50:
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
        np.float64(1.0 / p),
        np.int64(net.query_position),
        np.int64(net.output_coord),
        bool(net.residual),
        out,
    )
    return out

"""An independent rebuild of the structural polynomial F(S) = e_c^T P_L(S) over GF(p), for
checking catalecticant certificates without trusting the measurement's builder.

Written apart from :mod:`seprank.engine.structural_poly` (no python-flint polynomial, no
shared code): a polynomial is a pair of numpy arrays, its sorted monomial keys and their
nonzero coefficients mod p, and products are outer sums of keys followed by a sort and a
segmented sum. The layer recursion is read off the network's definition: head h maps
y_i to W^O_h sum_j (W^V_h y_j) <W^Q_h y_i, W^K_h y_j>, so with y_j = P x_j and
S = sum_j x_j x_j^T,

    P' = sum_h (W^O_h W^V_h) (P S P^T) (W^K_h^T W^Q_h) P   (+ P with the residual).

A monomial prod_e s_e^alpha_e (s_e the entries s_ab, a <= b, of S in row-major order) has
the key sum_e alpha_e radix^e: keys add as exponents do while no exponent reaches
``radix`` (the certificate's ``key_radix``: D + 1, or 2D + 1 with the residual).
"""

from __future__ import annotations

import numpy as np

#: Cells of one outer product of keys (bounds a product's temporaries).
CHUNK = 1 << 22


def _dtype(p: int):
    return np.int64 if p < 2**31 else object  # products of residues below 2^62


def _collect(keys, vals, p: int):
    """Sum the coefficients of equal keys mod p; drop the zeros."""
    if keys.size == 0:
        return keys, vals
    order = np.argsort(keys, kind="stable")
    keys, vals = keys[order], vals[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    sums = np.add.reduceat(vals % p, starts) % p
    keep = sums != 0
    return keys[starts][keep], sums[keep]


class Ring:
    """Polynomials in m variables over GF(p), keyed in base ``radix``."""

    def __init__(self, m: int, radix: int, p: int):
        self.m, self.radix, self.p, self.dtype = m, radix, p, _dtype(p)
        self.zero = (np.zeros(0, np.int64), np.zeros(0, self.dtype))
        self.one = (np.zeros(1, np.int64), np.ones(1, self.dtype))

    def lin(self, cs, polys):
        """sum_k cs[k] polys[k], the cs integers."""
        parts = [(k, v * (int(c) % self.p) % self.p) for c, (k, v) in zip(cs, polys)
                 if int(c) % self.p and k.size]
        if not parts:
            return self.zero
        return _collect(np.concatenate([k for k, _ in parts]),
                        np.concatenate([v for _, v in parts]), self.p)

    def times_var(self, a, e: int):
        """a s_e."""
        return a[0] + self.radix**e, a[1]

    def mul(self, a, b):
        """a b."""
        (ka, va), (kb, vb) = a, b
        if ka.size == 0 or kb.size == 0:
            return self.zero
        step = max(1, CHUNK // kb.size)
        ks, vs = [], []
        for s in range(0, ka.size, step):
            k, v = _collect((ka[s:s + step, None] + kb[None, :]).ravel(),
                            (va[s:s + step, None] * vb[None, :] % self.p).ravel(), self.p)
            ks.append(k)
            vs.append(v)
        return _collect(np.concatenate(ks), np.concatenate(vs), self.p)

    def dot(self, row, col):
        """sum_k row[k] col[k] (polynomials)."""
        prods = [self.mul(a, b) for a, b in zip(row, col)]
        return self.lin([1] * len(prods), prods)


def _int_matrix(M, p: int) -> list:
    return [[int(v) % p for v in r] for r in np.asarray(M, dtype=object)]


def _matmul_int(X, Y, p: int) -> list:
    """X Y mod p for integer matrices (lists)."""
    return [[sum(X[i][k] * Y[k][j] for k in range(len(Y))) % p for j in range(len(Y[0]))]
            for i in range(len(X))]


def reference_F(net, params, p: int, radix: int) -> list:
    """F_c for c = 0..d-1: a list of d pairs (keys, values), the sorted keys of F_c's
    monomials and their coefficients mod p (not yet times alpha!)."""
    d = net.width
    var = _variables(d)
    R = Ring(d * (d + 1) // 2, radix, p)
    P = [[R.one if i == j else R.zero for j in range(d)] for i in range(d)]
    for layer in range(net.depth):
        C, E = [], []
        for h in range(net.heads):
            wq, wk, wv, wo = (_int_matrix(params[k][layer, h], p)
                              for k in ("Wq", "Wk", "Wv", "Wo"))
            C.append(_matmul_int(wo, wv, p))  # W^O W^V
            E.append(_matmul_int([list(r) for r in zip(*wk)], wq, p))  # W^K^T W^Q
        PS = [[R.lin([1] * d, [R.times_var(P[i][k], var[k, j]) for k in range(d)])
               for j in range(d)] for i in range(d)]
        M = [[R.dot(PS[i], P[j]) for j in range(d)] for i in range(d)]  # P S P^T
        last = layer == net.depth - 1
        rows = [net.output_coord] if last else range(d)
        N = []  # rows of sum_h C_h M E_h
        for i in rows:
            CM = [[R.lin([C[h][i][k] for k in range(d)], [M[k][j] for k in range(d)])
                   for j in range(d)] for h in range(net.heads)]  # (C_h M)[i, :]
            N.append([R.lin([E[h][k][j] for h in range(net.heads) for k in range(d)],
                            [CM[h][k] for h in range(net.heads) for k in range(d)])
                      for j in range(d)])
        cols = [[P[k][j] for k in range(d)] for j in range(d)]
        new = [[R.dot(n, cols[j]) for j in range(d)] for n in N]
        if net.residual:
            new = [[R.lin([1, 1], [x, P[i][j]]) for j, x in enumerate(r)]
                   for i, r in zip(rows, new)]
        if last:
            return new[0]
        P = new
    raise ValueError("depth must be at least 1")


def _variables(d: int) -> dict:
    """(a, b) and (b, a) -> the index of s_ab (a <= b, row-major)."""
    out, n = {}, 0
    for a in range(d):
        for b in range(a, d):
            out[a, b] = out[b, a] = n
            n += 1
    return out


def digits(keys, m: int, radix: int) -> np.ndarray:
    """The exponents alpha (one row per key) of keys in base ``radix``, m digits."""
    rest = np.asarray(keys, dtype=np.int64).copy()
    out = np.zeros((rest.size, m), dtype=np.int64)
    for e in range(m):
        rest, out[:, e] = np.divmod(rest, radix)
    return out


def entries(F, alpha_keys, coords, p: int, m: int, radix: int) -> np.ndarray:
    """coef_c(alpha) alpha! mod p for each key of alpha and coordinate c (same shapes)."""
    alpha_keys = np.asarray(alpha_keys, dtype=np.int64)
    coords = np.broadcast_to(np.asarray(coords, dtype=np.int64), alpha_keys.shape)
    flat, cs = alpha_keys.ravel(), coords.ravel()
    out = np.zeros(flat.size, dtype=_dtype(p))
    for c, (k, v) in enumerate(F):
        at = np.flatnonzero(cs == c)
        if at.size == 0 or k.size == 0:
            continue
        idx = np.minimum(np.searchsorted(k, flat[at]), k.size - 1)
        found = k[idx] == flat[at]
        out[at[found]] = v[idx[found]]
    fact = np.ones(radix, dtype=_dtype(p))
    for i in range(1, radix):
        fact[i] = fact[i - 1] * i % p
    rest = flat.copy()
    for _ in range(m):
        rest, digit = np.divmod(rest, radix)
        out = out * fact[digit] % p
    return out.reshape(alpha_keys.shape)

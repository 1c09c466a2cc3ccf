"""The structural lemma's polynomial F(S) = e_c^T P_L(S) of a LinearSelfAttention network,
its coefficients over GF(p), and its catalecticant (flattening) matrices.

For the linearised attention network (no mask, no biases) y^{L,i} = P_L(S) x^i with
S = sum_j x^j x^j^T over all positions, P_0 = I and

    P_{l+1} = sum_h W^O_h W^V_h P_l S P_l^T W^K_h^T W^Q_h P_l   (+ P_l with the residual)

(proofs/structural_lemma.md). The measured output is f = F(S) x^i with F = e_c^T P_L, a row
of d polynomials in the m = d(d+1)/2 entries s_{ab} (a <= b) of S, of degree
D = (3^L - 1)/2 (homogeneous without the residual).

:func:`build_F` computes F with python-flint's ``nmod_mpoly`` (a lazy import); the shared
middle factor M = P S P^T is symmetric, and at the last layer only the row e_c^T P_L is
formed. :func:`coefficient_table` turns F into sorted mixed-radix keys (key(alpha) =
sum_e alpha_e (D+1)^e, additive: key(gamma + delta) = key(gamma) + key(delta)) and the
values coef_c(alpha) * alpha! mod p; :func:`catalecticant` fills one matrix
H[gamma, (delta, c)] = coef_c(gamma + delta) (gamma + delta)! with one searchsorted per row
chunk (proofs/catalecticant_reduction.md says why its rank is a separation rank).
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

#: Largest key range looked up through a dense table instead of a binary search.
DENSE_TABLE = 1 << 26
#: Cells of a catalecticant matrix filled per chunk (bounds the key temporaries).
CHUNK_CELLS = 1 << 21


def variable_pairs(d: int) -> list[tuple[int, int]]:
    """The entries (a, b), a <= b, of a symmetric d x d matrix, in variable order."""
    return [(a, b) for a in range(d) for b in range(a, d)]


def build_F(net, params, p: int):
    """(context, F): F the list of d ``nmod_mpoly`` F_c over GF(p), F = e_c^T P_L(S),
    for ``net`` (LinearSelfAttention) at integer ``params`` (reduced mod p)."""
    import flint  # optional dependency, as in seprank.algebra.rank

    d, H = net.width, net.heads
    pairs = variable_pairs(d)
    ctx = flint.nmod_mpoly_ctx.get(("s", len(pairs)), modulus=p)
    gens = ctx.gens()
    zero, one = ctx.from_dict({}), ctx.from_dict({(0,) * len(pairs): 1})
    S = [[zero] * d for _ in range(d)]
    for n, (a, b) in enumerate(pairs):
        S[a][b] = S[b][a] = gens[n]

    def const(M):
        return [[int(v) % p for v in row] for row in np.asarray(M, dtype=object)]

    def combo(cs, polys):  # sum_k cs[k] * polys[k], cs integers mod p
        out = zero
        for c, q in zip(cs, polys):
            if c:
                out += q * c
        return out

    def row_times(r, P):  # row vector r (polys) times the matrix P (polys)
        return [sum((r[k] * P[k][j] for k in range(d) if r[k] != 0 and P[k][j] != 0), zero)
                for j in range(d)]

    P = [[one if i == j else zero for j in range(d)] for i in range(d)]
    heads = [tuple(const(params[k][layer, h]) for k in ("Wq", "Wk", "Wv", "Wo"))
             for layer in range(net.depth) for h in range(H)]
    for layer in range(net.depth):
        hs = heads[layer * H:(layer + 1) * H]
        C = [const(np.asarray(wo, dtype=object) @ np.asarray(wv, dtype=object) % p)
             for wq, wk, wv, wo in hs]  # W^O W^V, d x d
        E = [const(np.asarray(wk, dtype=object).T @ np.asarray(wq, dtype=object) % p)
             for wq, wk, wv, wo in hs]  # W^K^T W^Q, d x d
        last = layer == net.depth - 1
        PS = [[combo([1] * d, [P[i][k] * S[k][j] for k in range(d)]) for j in range(d)]
              for i in range(d)]
        c = net.output_coord
        if last and H <= (d + 1) // 2:  # rows only: H d^2 + d^2 products
            acc = [zero] * d
            for Ch, Eh in zip(C, E):
                r = [combo([Ch[c][k] for k in range(d)], [PS[k][j] for k in range(d)])
                     for j in range(d)]  # (e_c^T C_h P) S
                t = row_times(r, [list(col) for col in zip(*P)])  # times P^T
                acc = [acc[j] + combo([Eh[k][j] for k in range(d)], t) for j in range(d)]
            F = row_times(acc, P)
            return ctx, [F[j] + P[c][j] for j in range(d)] if net.residual else F
        M = [[zero] * d for _ in range(d)]  # P S P^T, symmetric
        for i in range(d):
            for j in range(i, d):
                M[i][j] = M[j][i] = sum((PS[i][k] * P[j][k] for k in range(d)), zero)
        N = [[zero] * d for _ in range(d)]
        for Ch, Eh in zip(C, E):
            CM = [[combo([Ch[i][k] for k in range(d)], [M[k][j] for k in range(d)])
                   for j in range(d)] for i in range(d)]
            for i in range(d):
                for j in range(d):
                    N[i][j] += combo([Eh[k][j] for k in range(d)], CM[i])
        rows = [N[c]] if last else N
        new = [row_times(r, P) for r in rows]
        if net.residual:
            old = [P[c]] if last else P
            new = [[x + y for x, y in zip(r, s)] for r, s in zip(new, old)]
        if last:
            return ctx, new[0]
        P = new
    raise AssertionError("depth >= 1")  # pragma: no cover


def coefficient_table(F, m: int, D: int, p: int, radix: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys, values): the sorted keys (base ``radix``) of every monomial of some F_c
    (degree <= D), and the (n, d) int64 array values[i, c] = coef_c(alpha_i) alpha_i! mod p.

    Keys add without carries while every exponent sum stays below ``radix``: D + 1 for the
    homogeneous blocks (|gamma| + |delta| = D), 2D + 1 for the residual's full matrix.
    Each F_c is first mapped to one variable t by s_e -> t^(radix^e) (a Kronecker
    substitution, one-to-one on exponents below ``radix``), so its exponents are the keys
    and come out as one integer per monomial; the digits give alpha back."""
    import flint

    if radix ** m >= 2**62:
        raise OverflowError(f"mixed-radix keys (D+1)^m = {radix}^{m} overflow int64")
    fact = np.ones(D + 1, dtype=np.int64)
    for i in range(1, D + 1):
        fact[i] = fact[i - 1] * i % p
    per = []
    for f in F:
        one = flint.nmod_mpoly_ctx.get(("t", 1), modulus=p)
        t = one.gens()[0]
        g = f.compose(*[t ** (radix**e) for e in range(m)], ctx=one)
        k = np.fromiter(itertools.chain.from_iterable(g.monoms()), dtype=np.int64)
        val = np.array(g.coeffs(), dtype=np.int64) % p
        rest = k.copy()
        for _ in range(m):
            rest, digit = np.divmod(rest, radix)
            val = val * fact[digit] % p
        per.append((k, val))
    keys = np.unique(np.concatenate([k for k, _ in per])) if per else np.zeros(0, np.int64)
    values = np.zeros((keys.size, len(F)), dtype=np.int64)
    for c, (k, v) in enumerate(per):
        values[np.searchsorted(keys, k), c] = v
    return keys, values


#: (m, radix) -> [keys of degree 0, 1, ...]: each degree from the one before, once per
#: measurement (a block asks for two degrees; the table is at most as long as F's).
_DEGREES: dict = {}
_DEGREES_LOCK = threading.Lock()


def degree_keys(k: int, m: int, radix: int) -> np.ndarray:
    """Sorted keys of the exponents of degree k in m variables (base ``radix`` > k), a
    read-only array. The degrees below k are built on the way and kept for the next call
    (the keys of degree j + 1 are those of degree j plus one unit, deduplicated)."""
    unit = np.array([radix**e for e in range(m)], dtype=np.int64)
    with _DEGREES_LOCK:
        table = _DEGREES.get((m, radix))
        if table is None:
            while len(_DEGREES) >= 2:  # two measurements' tables at most
                _DEGREES.pop(next(iter(_DEGREES)))
            first = np.zeros(1, dtype=np.int64)
            first.flags.writeable = False
            table = _DEGREES[(m, radix)] = [first]
        while len(table) <= k:
            nxt = np.unique((table[-1][:, None] + unit[None, :]).ravel())
            nxt.flags.writeable = False
            table.append(nxt)
        return table[k]


def keys_up_to(D: int, m: int, radix: int) -> np.ndarray:
    """Sorted keys of the exponents of degree <= D in m variables."""
    return np.unique(np.concatenate([degree_keys(k, m, radix) for k in range(D + 1)]))


def _fill_body(keys, vals, table, row_keys, col_keys, out, transpose, ascending):
    """out[g, q d + c] = vals[a, c] where keys[a] = row_keys[g] + col_keys[q] (``transpose``:
    out[q d + c, g]), in one pass; out starts at zero, which stays where no key matches.
    ``table``: key -> a (len(keys) where none), or empty for a search of the sorted keys:
    where the inner loop's keys ascend (``ascending``), a galloping search from the last
    match, else a binary search of all of them."""
    n, d = keys.shape[0], vals.shape[1]
    nr, nc = row_keys.shape[0], col_keys.shape[0]
    top = table.shape[0]
    outer, inner = (nc, nr) if transpose else (nr, nc)
    for i in range(outer):
        start = 0  # with ascending inner keys: every later key is at or after it
        for j in range(inner):
            g, q = (j, i) if transpose else (i, j)
            key = row_keys[g] + col_keys[q]
            if top > 0:
                a = table[key] if key < top else n
            else:
                lo, hi = 0, n
                if ascending:
                    lo, step = start, 1
                    while lo + step < n and keys[lo + step] < key:
                        step *= 2
                    hi = min(n, lo + step + 1)
                    lo = lo + step // 2 if step > 1 else lo
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if keys[mid] < key:
                        lo = mid + 1
                    else:
                        hi = mid
                a = lo if lo < n and keys[lo] == key else n
                start = lo
            if a < n:
                for c in range(d):
                    if transpose:
                        out[q * d + c, g] = vals[a, c]
                    else:
                        out[g, q * d + c] = vals[a, c]


try:  # numba is a declared dependency; without it the numpy passes below fill the matrix
    import numba as _nb

    from seprank.paths import jit

    _fill = jit(_nb, _fill_body)
except ImportError:  # pragma: no cover
    _fill = None


def catalecticant(keys: np.ndarray, values: np.ndarray, row_keys: np.ndarray,
                  col_keys: np.ndarray, transpose: bool = False) -> np.ndarray:
    """float64 matrix H[g, (q, c)] = values[alpha, c] where key(alpha) = row_keys[g] +
    col_keys[q] (0 where alpha is not a monomial of F): integer residues. The keys may
    come in any order. ``transpose``: H^T, filled as a C-contiguous array.

    One compiled pass (each key looked up in a dense table, or by binary search where the
    keys' range exceeds :data:`DENSE_TABLE`), written straight into the matrix; the numpy
    passes it replaced (a key grid, an index grid, a gather, a copy) only where numba is
    missing."""
    d = values.shape[1]
    nr, nc = row_keys.size, col_keys.size
    out = np.zeros((nc * d, nr) if transpose else (nr, nc * d), dtype=np.float64)
    if nr == 0 or nc == 0 or keys.size == 0:
        return out
    top = int(row_keys.max() + col_keys.max()) + 1
    table = np.zeros(0, dtype=np.int64)  # empty: keys searched, not looked up
    if top <= DENSE_TABLE:  # key -> row of values (keys.size: none)
        table = np.full(top, keys.size, dtype=np.int64)
        inside = keys < top
        table[keys[inside]] = np.nonzero(inside)[0]
    if _fill is not None:
        inner = row_keys if transpose else col_keys
        ascending = bool(inner.size < 2 or np.all(inner[1:] > inner[:-1]))
        _fill(np.ascontiguousarray(keys, dtype=np.int64),
              np.ascontiguousarray(values, dtype=np.float64), table,
              np.ascontiguousarray(row_keys, dtype=np.int64),
              np.ascontiguousarray(col_keys, dtype=np.int64), out, bool(transpose),
              ascending)
        return out
    step = max(1, CHUNK_CELLS // max(1, nc))
    vals = np.vstack([values.astype(np.float64), np.zeros((1, d))])  # last row: absent
    for r0 in range(0, nr, step):
        grid = row_keys[r0:r0 + step, None] + col_keys[None, :]
        if table.size:
            idx = table[grid]
        else:
            idx = np.minimum(np.searchsorted(keys, grid), keys.size - 1)
            idx[keys[idx] != grid] = keys.size
        block = vals[idx].reshape(idx.shape[0], nc * d)  # (rows, nc, d) flattened
        if transpose:
            out[:, r0:r0 + step] = block.T
        else:
            out[r0:r0 + step] = block
    return out

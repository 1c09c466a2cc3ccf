"""Sketch strategy: the catalecticant blocks' ranks from random sketches that are never
materialised from the blocks, so the cost follows the ranks rather than the block sizes.

For LinearSelfAttention (no mask, no biases, no residual) F = e_c^T P_L(S) is a row of d
forms of degree D = (3^L - 1)/2 in the m = d(d+1)/2 entries of S, and the catalecticant
strategy (:mod:`seprank.engine.strategies.catalecticant`, proofs/catalecticant_reduction.md)
ranks each block H_k[gamma, (delta, c)] = coef_c(gamma + delta) (gamma + delta)!, |gamma| = k
(the side without the query), |delta| = D - k. With H > 1 heads the blocks are as large as
with one head while their ranks are far lower; eliminating a block costs its size.

**The sketch.** For points y, z in GF(p)^m and u in GF(p)^d, Taylor's formula gives

    [t^(D-k)] F(y + t z) u = sum_{gamma, delta, c} H_k[gamma, (delta, c)]
                             (y^gamma / gamma!) (z^delta / delta!) u_c,

so with rows y_1..y_s and columns (z_1, u_1)..(z_s, u_s) drawn uniformly from GF(p), the
s x s matrix R_k[i, j] = [t^(D-k)] F(y_i + t z_j) u_j is Omega H_k Psi with
Omega[i, gamma] = y_i^gamma / gamma! and Psi[(delta, c), j] = z_j^delta / delta! u_jc.
Each entry costs D + 1 evaluations of P_L at a numeric d x d matrix (t = 0..D, then
interpolation; one evaluation gives the entry of every block at once), and R_k is ranked
by the run inputs' GF(p) rank engine, growing (:meth:`RankEngine.grow`). Nothing of size
|H_k| is ever formed. p > D (the factorials and the interpolation).

Per block the sketch grows (by the run inputs' growth factor, nested: the first s rows and
columns of a larger sketch are the smaller one) until rank R_k < s (stopped), or s
reaches the block's short side + 1 (then rank R_k <= short side < s: stopped too), or
the sample budget ``max_samples`` when one is given (then the block is *not* stopped:
its rank is a lower bound only, never labelled saturated).

**Always (certified lower bound).** rank R_k = rank(Omega H_k Psi) <= rank_GF(p) H_k <=
rank_Q H_k of the integer-weight network, which is the block's separation rank: every
sketch rank is a certified lower bound, whatever was drawn.

**Lemma (saturation, Schwartz-Zippel).** Let r* be the block's rank for generic weights,
U >= r* any upper bound (the proved block bound min(b_k, a_{D-k}), else the short side),
w = 2 (3^L - 1) the degree of F's coefficients in the weights and e = D + 1. Then the
block's stopped rank is below r* with probability at most

    U w / p  +  e / p * sum over the sketch sizes s_i ranked of min(s_i, U)

over the weights and the sketch draws together (the sum depends on where the run stopped:
read it as (iii) states). Proof. Let rho = rank_GF(p) H_k(w). (i)
rho < r* only if the weights are a zero of a nonzero r* x r* minor of the generic block,
a polynomial of degree <= r* w in them: probability <= r* w / p <= U w / p (as for the
catalecticant strategy). (ii) Fix the weights. The vectors (y^gamma / gamma!)_gamma over
y in the algebraic closure span all of K^{n_r} (the monomials of degree k are linearly
independent), and likewise (z^delta / delta! u_c)_{delta, c}; so rows and columns can be
chosen greedily with the rows of Omega H_k independent and then the columns of
Omega H_k Psi independent, up to min(s, rho) of them: the leading min(s, rho) minor of
R_k is a nonzero polynomial in (y, z, u). Its row i has degree k in y_i, its column j
degree D - k in z_j and 1 in u_j, so the minor has degree <= min(s, rho)(D + 1), and it
vanishes with probability <= min(s, rho) e / p (Schwartz-Zippel, entries uniform in
GF(p)). (iii) The sizes s_1 < s_2 < ... follow a fixed schedule (start, growth, target),
and the draws are nested. Let E_i be the event rank R_{s_i} < min(s_i, rho). The stopped
rank is wrong (below rho) exactly when, at the step where it stopped, E_i holds (every
earlier step had rank R_k = s). The bound B reported sums min(s_i, U) e / p over the steps
ranked; it is a valid bound in the sense P(wrong and B <= x) <= x + U w / p for every x:
if B <= x the run stopped by the step i_x, the last one whose partial sum is <= x (fixed by
the schedule), so "wrong and B <= x" lies in the union of E_1..E_{i_x}, of probability
at most sum_{i <= i_x} min(s_i, rho) e / p <= x. With (i), the total; so a block labelled
saturated (B plus the weight term at most the threshold) is wrong with probability at most
the threshold. If the stopped rank equals the short
side it equals rho with no sketch probability (rank R_k <= rho <= short side), and the
sketch term is left out for that block. The measurement sums the blocks' bounds (a union
bound); :func:`seprank.engine.saturation.label` reads each block's ``sketch`` sizes and
``sketch_degree`` beside the weight term. The rank over GF(p)-bar equals that over Q for
all but finitely many primes (confirm with other primes and seeds).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from seprank.algebra.domains import DEFAULT_PRIME
from seprank.algebra.vandermonde import vandermonde_inverse
from seprank.engine.estimate import MAX_SECONDS, Cost, TheoryFacts, format_seconds
from seprank.engine.result import Measurement
from seprank.engine.sample_grid import available_memory
from seprank.engine.saturation import Ground, GroundContext
from seprank.engine.strategies.base import BASE_BYTES, say
from seprank.engine.strategies.catalecticant import (
    DEGREE_CONVENTION,
    CatalecticantDetail,
    blocks_ground,
)
from seprank.engine.strategies.catalecticant_sizes import block_shapes, form_of
from seprank.engine.strategies.registry import Strategy, register
from seprank.errors import TooBigError
from seprank.paths import jit

#: What a sketch rank certifies (the Measurement's ``certified``).
CERTIFIED = ("lower bound (sum over the blocks of exact ranks over GF(p) of random sketches "
             "Omega H_k Psi of the catalecticant matrices H_k of an integer-weight network's "
             "structural polynomial F; each is at most its block's rank over GF(p), at most "
             "its rank over Q, which is its separation rank)")
#: The first sketch size (rows = columns) when none is given by ``start``.
FIRST = 16
#: Mult-adds mod p per second assumed for the evaluation kernel (a planning figure only).
EVAL_RATE = 2e9
#: Flops per second assumed for the growing GF(p) elimination (a planning figure only).
RANK_RATE = 1e10
#: Depth limit (D + 1 evaluations per entry; D = (3^L - 1)/2).
MAX_DEPTH = 8


# ---------------------------------------------------------------------------------------
# F's evaluation at S = y + t z, as the linear maps of its layers


def layer_maps(net, params, p: int) -> np.ndarray:
    """(L, d, d, m) int64: K_l[a, b, e] with N = sum_h C_h M E_h = sum_e K_l[:, :, e] M_e for
    a symmetric M given by its m entries M_e, e = (x, y), x <= y (C_h = W^O_h W^V_h,
    E_h = W^K_h^T W^Q_h of layer l)."""
    d, L, H = net.width, net.depth, net.heads
    pairs = [(a, b) for a in range(d) for b in range(a, d)]
    K = np.zeros((L, d, d, len(pairs)), dtype=np.int64)
    for layer in range(L):
        acc = np.zeros((d, d, len(pairs)), dtype=object)
        for h in range(H):
            W = {k: np.asarray(params[k][layer, h], dtype=object) for k in ("Wq", "Wk", "Wv", "Wo")}
            C = (W["Wo"] @ W["Wv"]) % p
            E = (W["Wk"].T @ W["Wq"]) % p
            for e, (x, y) in enumerate(pairs):
                acc[:, :, e] += np.outer(C[:, x], E[y, :])
                if x != y:
                    acc[:, :, e] += np.outer(C[:, y], E[x, :])
        K[layer] = (acc % p).astype(np.int64)
    return K


def _red(x, p, pinv):  # pragma: no cover (compiled)
    """x mod p for an int64 0 <= x < 2^62, without a division or a branch: the float64
    quotient guess is off by at most one there (x / p < 2^37, relative error 2^-52),
    then one correction each way."""
    r = x - np.int64(np.float64(x) * pinv) * p
    r += p & (r >> 63)
    r -= p & ((p - 1 - r) >> 63)
    return r


def _matmul(X, Y, out, acc, p, pinv):  # pragma: no cover (compiled)
    """out[a, b, t] = sum_q X[a, q, t] Y[q, b, t] mod p, for every row a of ``out``."""
    d, T = Y.shape[0], Y.shape[2]
    for a in range(out.shape[0]):
        for b in range(Y.shape[1]):
            acc[:] = 0
            for q in range(d):
                for t in range(T):
                    acc[t] += X[a, q, t] * Y[q, b, t]
            for t in range(T):
                out[a, b, t] = _red(acc[t], p, pinv)


def _layer(P, S, PS, Mv, N, K, layer, last, c, acc, p, pinv):  # pragma: no cover (compiled)
    """One layer on (d, d, T) arrays: M = P S P^T (its m upper entries), N = K_l(M) (row c
    only at the last layer, into row 0), then P <- N P (the last layer: row 0 of PS)."""
    d, T, m = P.shape[0], P.shape[2], Mv.shape[0]
    _matmul(P, S, PS, acc, p, pinv)
    e = 0
    for x in range(d):  # M = (P S) P^T, upper entries
        for y in range(x, d):
            acc[:] = 0
            for q in range(d):
                for t in range(T):
                    acc[t] += PS[x, q, t] * P[y, q, t]
            for t in range(T):
                Mv[e, t] = _red(acc[t], p, pinv)
            e += 1
    rows = 1 if last else d
    for ra in range(rows):
        a = c if last else ra
        for b in range(d):  # N = K_l(M), row a
            acc[:] = 0
            for e in range(m):
                kv = K[layer, a, b, e]
                if kv != 0:
                    for t in range(T):
                        acc[t] += kv * Mv[e, t]
            for t in range(T):
                N[ra, b, t] = _red(acc[t], p, pinv)
    if last:
        _matmul(N, P, PS[:1], acc, p, pinv)
    else:
        _matmul(N, P, PS, acc, p, pinv)
        P[:, :, :] = PS


#: Columns j evaluated together by the kernel (its inner loops run over t and j: long
#: enough to vectorise).
BATCH = 16


def _eval_body(A, B, Y, Z, U, K, Vinv, ks, c, p, pinv, out):  # pragma: no cover (compiled)
    """out[n, i, j] = [t^(D-k)] e_c^T P_L(Y_i + t Z_j) U_j mod p for k = ks[n], from the
    values at t = 0..D, with the first layer's P_1 = A_i + t B_j (linear in S) given.
    The columns are taken BATCH at a time: the arrays' last axis is (j, t), j-major.
    int64 residues < 2^26: a product is below 2^52, so a sum of up to 2^10 products is
    reduced once (:func:`_red`; ``pinv`` = 1 / p, correctly rounded, from the caller)."""
    L, d, m, T = K.shape[0], K.shape[1], K.shape[3], Vinv.shape[0]
    W = BATCH * T
    S = np.zeros((d, d, W), dtype=np.int64)
    P = np.zeros((d, d, W), dtype=np.int64)
    PS = np.zeros((d, d, W), dtype=np.int64)
    N = np.zeros((d, d, W), dtype=np.int64)
    Mv = np.zeros((m, W), dtype=np.int64)
    acc = np.zeros(W, dtype=np.int64)
    vals = np.zeros(W, dtype=np.int64)
    nz = Z.shape[0]
    for i in range(Y.shape[0]):
        for j0 in range(0, nz, BATCH):
            nb = min(BATCH, nz - j0)
            for jj in range(BATCH):  # a short last batch repeats its first column
                j = j0 + (jj if jj < nb else 0)
                for a in range(d):
                    for b in range(d):
                        for t in range(T):
                            P[a, b, jj * T + t] = _red(A[i, a, b] + t * B[j, a, b], p, pinv)
                e = 0
                for a in range(d):
                    for b in range(a, d):
                        for t in range(T):
                            v = _red(Y[i, e] + t * Z[j, e], p, pinv)
                            S[a, b, jj * T + t] = v
                            S[b, a, jj * T + t] = v
                        e += 1
            for layer in range(1, L):
                _layer(P, S, PS, Mv, N, K, layer, layer == L - 1, c, acc, p, pinv)
            row = c if L == 1 else 0
            vals[:] = 0
            for jj in range(nb):
                j = j0 + jj
                for b in range(d):  # (row of P_L) . U_j
                    for t in range(T):
                        x = (P[row, b, jj * T + t] if L == 1 else PS[row, b, jj * T + t]) \
                            * U[j, b]
                        vals[jj * T + t] = _red(vals[jj * T + t] + x, p, pinv)
                for n in range(ks.shape[0]):  # coefficient of t^(D-k): row D - k of Vinv
                    tot = 0
                    for t in range(T):
                        tot += Vinv[T - 1 - ks[n], t] * vals[jj * T + t]
                    out[n, i, j] = _red(tot, p, pinv)


_KERNEL: list = []


def _kernel():
    if not _KERNEL:
        try:
            import numba as nb

            globals()["_red"] = jit(nb, _red, inline="always")
            # fastmath touches the float ops only: the quotient guesses of _red (1 / p is
            # computed here, correctly rounded; a guess off by one is corrected)
            globals()["_matmul"] = jit(nb, _matmul, fastmath=True)
            globals()["_layer"] = jit(nb, _layer, fastmath=True)
            _KERNEL.append(jit(nb, _eval_body, fastmath=True))
        except Exception:  # noqa: BLE001 - no numba: the same body, interpreted (slow)
            _KERNEL.append(_eval_body)
    return _KERNEL[0]


def first_layer(V, K, p: int) -> np.ndarray:
    """(n, d, d) int64: P_1(S) = K_0(S) for each row of ``V`` (S's m entries): the first
    layer is linear in S."""
    return np.ascontiguousarray(((K[0] @ V.T) % p).transpose(2, 0, 1))  # sums < 2^63


def sketch_entries(Y, Z, U, K, Vinv, c: int, p: int, ks=None) -> np.ndarray:
    """(len(ks), rows, cols) int64: entry [n, i, j] of the sketch R_k, k = ks[n] (default
    every block, k = 0..D; module docstring)."""
    ks = np.arange(Vinv.shape[0]) if ks is None else np.asarray(ks, dtype=np.int64)
    out = np.zeros((ks.size, Y.shape[0], Z.shape[0]), dtype=np.int64)
    if Y.shape[0] and Z.shape[0] and ks.size:
        _kernel()(first_layer(Y, K, p), first_layer(Z, K, p), np.ascontiguousarray(Y),
                  np.ascontiguousarray(Z), np.ascontiguousarray(U), K, Vinv, ks, int(c),
                  int(p), 1.0 / int(p), out)
    return out


# ---------------------------------------------------------------------------------------
# The run


def _draws(rng, n: int, width: int, p: int) -> np.ndarray:
    return rng.integers(0, p, size=(n, width), dtype=np.int64)


def _grow(inputs, K, Vinv, target: list[int], growth: float) -> dict:
    """The growth loop: every live block's sketch grown by ``growth`` (nested draws) until
    its rank is below its size or the size is its target; per block its rank, sizes
    ranked, whether it stopped, and its ranking seconds."""
    net, p = form_of(inputs.net), inputs.domain.p
    d, T = net.width, len(target)
    m = d * (d + 1) // 2
    rng_y = np.random.default_rng([inputs.seed, 3, 0])
    rng_z = np.random.default_rng([inputs.seed, 3, 1])
    Y, Z, U = np.zeros((0, m), np.int64), np.zeros((0, m), np.int64), np.zeros((0, d), np.int64)
    grow = [inputs.engine.grow(inputs.incremental) for _ in range(T)]
    st = {"rank": [0] * T, "steps": [[] for _ in range(T)], "stopped": [False] * T,
          "seconds": [0.0] * T, "history": [], "rank_seconds": 0.0, "size": 0}
    live, s = list(range(T)), 0
    while live:
        want = max(inputs.start or FIRST, FIRST) if s == 0 else max(s + 1, math.ceil(s * growth))
        new = min(want, max(target[k] for k in live))
        Y = np.vstack([Y, _draws(rng_y, new - s, m, p)])
        Z = np.vstack([Z, _draws(rng_z, new - s, m, p)])
        U = np.vstack([U, _draws(rng_z, new - s, d, p)])
        ks = np.array(live, dtype=np.int64)  # a live block has size s < its target
        right = sketch_entries(Y[:s], Z[s:new], U[s:new], K, Vinv, net.output_coord, p, ks)
        bottom = sketch_entries(Y[s:new], Z[:new], U[:new], K, Vinv, net.output_coord, p, ks)
        for n, k in enumerate(ks.tolist()):
            tk = min(new, target[k])
            tr = time.perf_counter()
            r = grow[k].add(right[n, :s, : tk - s].astype(np.float64),
                            bottom[n, : tk - s, :tk].astype(np.float64))
            dt = time.perf_counter() - tr
            st["rank"][k] = int(r)
            st["steps"][k].append(tk)
            st["rank_seconds"] += dt
            st["seconds"][k] += dt
            if r < tk or tk >= target[k]:
                st["stopped"][k] = r < tk
                grow[k].drop()
                live.remove(k)
        del right, bottom
        s = st["size"] = new
        st["history"].append((s, s, int(sum(st["rank"]))))
        say(inputs.progress, f"  sketch {s}x{s}: {len(live)} block(s) still growing, "
                           f"ranks so far {sum(st['rank'])}")
    return st


#: How a sketch is built (the detail's ``sketch``).
SKETCH = ("R_k = Omega H_k Psi from F(y + t z) u, never materialising H_k "
          "(seprank.engine.strategies.sketch)")


@dataclass(frozen=True)
class SketchDetail(CatalecticantDetail):
    """The catalecticant's detail (F never built: ``monomials`` None), and the sketch.

    Parameters
    ----------
    D, variables, monomials, build_seconds, query_side, sides, degree, residual : object
        As :class:`~seprank.engine.strategies.catalecticant.CatalecticantDetail`'s.
    sketch : str
        How a sketch is built (:data:`SKETCH`).
    cap : int or None
        The most rows and columns a block's sketch may reach (None: its short side).
    """

    sketch: str
    cap: int | None


def run(inputs, cap: int | None = None, reason: str = "") -> Measurement:
    """Grow every block's sketch until its rank stops below the sketch size (module
    docstring); ``cap``: the largest sketch (None: the short side + 1)."""
    net, p = form_of(inputs.net), inputs.domain.p
    d, D = net.width, net.matrix_degree
    nq, no = net.sides(inputs.A)
    query_on_A = net.query_position in set(inputs.A)
    t0 = time.perf_counter()
    K = layer_maps(net, inputs.params, p)
    Vinv = vandermonde_inverse(list(range(D + 1)), list(range(D + 1)), p)
    shapes = block_shapes(net)
    target = [min(r, c) + 1 for r, c in shapes]  # rank <= short side < target: stops
    if cap is not None:
        target = [min(t, int(cap)) for t in target]
    growth = inputs.growth if inputs.growth and inputs.growth > 1 else 1.5
    st = _grow(inputs, K, Vinv, target, growth)
    blocks = []
    for k, (r, c) in enumerate(shapes):
        size = st["steps"][k][-1]
        b = {"degree": 2 * (D - k) + 1 if query_on_A else 2 * k, "other_s_degree": k,
             "rank": st["rank"][k], "shape": [int(r), int(c)], "ranked_shape": [size, size],
             "sketch": st["steps"][k], "sketch_degree": D + 1, "stopped": st["stopped"][k],
             "seconds": st["seconds"][k]}
        if not st["stopped"][k]:
            b["saturated"] = False
        blocks.append(b)
    blocks.sort(key=lambda b: b["degree"])
    info = SketchDetail(D=D, variables=d * (d + 1) // 2, monomials=None, build_seconds=0.0,
                        query_side="A" if query_on_A else "B", sides=(nq, no),
                        degree=DEGREE_CONVENTION, residual=False, sketch=SKETCH, cap=cap)
    done = all(st["stopped"])
    return Measurement(
        rank=int(sum(st["rank"])), saturated=done, certified=CERTIFIED, method=inputs.method,
        prime=p, samples=(st["size"], st["size"]), seconds=time.perf_counter() - inputs.t_start,
        seed=inputs.seed, config=inputs.config, partition=inputs.A, sampler="sketch",
        eval_seconds=time.perf_counter() - t0 - st["rank_seconds"],
        rank_seconds=st["rank_seconds"], history=st["history"], budget_hit=not done,
        strategy="sketch", strategy_reason=reason, blocks=blocks, detail=info)


# ---------------------------------------------------------------------------------------
# Applicability and cost


def refusal(net, A, method: str, sampler: str, p: int | None) -> str | None:
    """Why the sketch strategy does not apply (None: it applies)."""
    form = form_of(net)
    if form is None:
        return (f"needs a network that declares its structural form (the capability "
                f"structural_polynomial; {type(net).__name__} does not)")
    if method != "modular":
        return f"needs method='modular' (got method={method!r})"
    if sampler not in ("random", "auto"):
        return f"draws its own sketch; sampler={sampler!r} has no meaning for it"
    if form.residual:
        return "needs a network without the residual (its F is not homogeneous)"
    if form.depth > MAX_DEPTH:
        return f"needs depth <= {MAX_DEPTH} (got {form.depth})"
    nq, no = form.sides(A)
    if min(nq, no) < form.width:
        return (f"needs at least width={form.width} positions on each side (query side {nq}, "
                f"other side {no}): with fewer the coefficient reduction does not hold; use "
                "'graded' or 'direct'")
    D = form.matrix_degree
    if p is None or p <= D or p >= 2**26:
        return f"needs D = {D} < prime < 2^26 (got prime={p})"
    return None


def rank_guesses(net, A, facts: TheoryFacts | None = None, shapes=None) -> list[int]:
    """Per block the rank the cost model assumes: the proved block bound min(b_k, a_{D-k})
    (an upper bound on the rank for every H; with H > 1 heads the ranks are lower, so
    the estimate is one from above), else the short side (``facts``: the request's;
    ``shapes``: the blocks', :func:`block_shapes`)."""
    facts = facts or TheoryFacts(net, A)
    shapes = block_shapes(facts.form) if shapes is None else shapes
    per = facts.block_bounds
    return [min(min(r, c), per.get(k) or min(r, c)) for k, (r, c) in enumerate(shapes)]


def estimate(net, A, cap: int | None = None, growth: float = 1.5,
             facts: TheoryFacts | None = None) -> dict:
    """Seconds and peak bytes with every block's rank at :func:`rank_guesses` (capped by
    ``cap``): the evaluation of the largest sketch, the growing eliminations, and every
    block's sketch held at once."""
    facts = facts or TheoryFacts(net, A)
    form = facts.form
    d, L, D = form.width, form.depth, form.matrix_degree
    m = d * (d + 1) // 2
    sizes = []
    shapes = block_shapes(form)
    for (r, c), g in zip(shapes, rank_guesses(net, A, facts, shapes)):
        s = min(min(r, c) + 1, math.ceil((g + 1) * growth))
        sizes.append(s if cap is None else min(s, int(cap)))
    big = max(sizes)
    per_eval = L * (2 * d**3 + d * d * m + d * m) + m
    flops_eval = big * big * (D + 1) * (per_eval + D + 1)
    flops_rank = sum(2 * s**3 for s in sizes)
    last = sum(s * s for s in sizes if s * growth > big)  # blocks evaluated at the last step
    peak = BASE_BYTES + sum(16 * s * s for s in sizes) + 8 * last
    return {"strategy": "sketch", "sizes": sizes,
            "expected_seconds": flops_eval / EVAL_RATE + flops_rank / RANK_RATE,
            "peak_bytes": int(peak),
            "note": "ranks assumed at their proved block bounds (H > 1 ranks are lower: the "
                    "sketch stops at rank + 1), so an estimate from above"
                    + ("" if cap is None else f"; sketches capped at {cap}")}


class Sketch(Strategy):
    """Random sketches Omega H_k Psi of the catalecticant blocks, from evaluations of F:
    cost in the ranks, not the block sizes (only when requested)."""

    name = "sketch"
    order = 22
    auto = False
    budget = None
    grid = False
    certifies = False

    def applies(self, req) -> str | None:
        if req.requested != self.name:
            return "only when requested (strategy='sketch')"
        if not req.random_weights:
            return ("needs random weights: with given weights its sketch bound could not "
                    "cover them")
        return refusal(req.net, req.A, req.method, req.sampler, self.prime(req)[0])

    def prime(self, req) -> tuple[int | None, str]:
        if req.method != "modular":
            return None, ""
        return (int(req.options.prime) if req.options.prime is not None
                else DEFAULT_PRIME), ""

    def _cap(self, req):
        ms = req.options.max_samples
        return None if ms is None else int(ms)

    def cost(self, req, budget) -> Cost:
        """:func:`estimate` (ranks at their proved bounds, the sketch capped by
        ``max_samples`` when given)."""
        est = estimate(req.net, req.A, self._cap(req), facts=req.facts)
        return Cost(est["expected_seconds"], est["peak_bytes"], est["note"], est)

    def ground(self, raw, ctx: GroundContext) -> Ground:
        """The catalecticant's :func:`blocks_ground` with each block's sketch term."""
        return blocks_ground(raw, ctx)

    def confirm(self, req) -> str | None:
        """TooBigError when :func:`estimate` (ranks at their proved bounds, sketches capped
        by ``max_samples``) is over a quarter of the memory or the time limit."""
        est = self.cost(req, None).model
        allowed = available_memory() // 4
        big = max(est["sizes"])
        if est["peak_bytes"] > allowed or est["expected_seconds"] > MAX_SECONDS:
            raise TooBigError(
                f"strategy='sketch': with every block's rank at its proved bound its sketches "
                f"(up to {big} x {big}) need about {est['peak_bytes'] / 2**30:.1f} GiB "
                f"({allowed / 2**30:.1f} GiB allowed) and about "
                f"{format_seconds(est['expected_seconds'])} (limit "
                f"{format_seconds(MAX_SECONDS)}); pass max_samples= to cap the sketches "
                "(a block whose sketch reaches the cap is a lower bound, not saturated)")
        return None

    def reason(self, req) -> str:
        return ("requested: random sketches of the catalecticant blocks from evaluations of "
                "F (seprank.engine.strategies.sketch); both sides have at least width "
                "positions and D < prime")

    def run(self, mp) -> Measurement:
        return run(mp.run, self._cap_of(mp), mp.reason)

    @staticmethod
    def _cap_of(mp):
        ms = mp.options.max_samples
        return None if ms is None else int(ms)


STRATEGY = register(Sketch())

"""Catalecticant strategy: the blocks' ranks from the coefficients of the structural
lemma's polynomial, with no grid and no interpolation.

For LinearSelfAttention (no mask, no biases) f = F(S) x^i with F = e_c^T P_L(S) a row of d
polynomials of degree D = (3^L - 1)/2 in the m = d(d+1)/2 entries of S = S_A + S_B
(:mod:`seprank.engine.structural_poly`). Call Q the side holding the query i and O the
other side. If both sides have at least d positions (proofs/catalecticant_reduction.md):

    sep(f; A, B) = rank H,   H[gamma, (delta, c)] = coef_c(gamma + delta) (gamma + delta)!

gamma over the exponents in S_O, delta over those in S_Q, c over the d coordinates of x^i.
Without the residual F is homogeneous and H is block diagonal: block k (gamma of degree k,
delta of degree D - k) is the graded block of A-degree 2(D - k) + 1 if the query is on A,
2k if not; the label step puts its rank beside the proved bound min(b_k, a_{D-k})
(:func:`seprank.engine.bound_compare.attach_blocks`; for comparison only, never computed
here). With the residual H is one matrix over all degrees (|gamma| + |delta| <= D).

Over GF(p) the factorials must be invertible: p > D. The rank over GF(p) is at most the
rank over Q of the integer-weight network's matrix, so the result is a certified lower
bound; nothing is sampled, so saturation is a Schwartz-Zippel bound on the weights only
(:func:`seprank.engine.saturation.label`). A side with fewer than d positions is refused:
there S_Q or S_O does not fill the symmetric matrices and the reduction can fail (the
false variant of the proof's check).

:func:`run` is :func:`prepare` (F's table), :func:`measure_block` for each block and
:func:`assemble`; each block is a pure function of the network, seed, prime and k, so
:mod:`seprank.sweeps.block_tasks` runs them as stored, resumable tasks.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from seprank.algebra import blas_elimination
from seprank.algebra.domains import DEFAULT_PRIME
from seprank.algebra.left_kernel import left_kernel, matmul_mod_long
from seprank.engine import structural_poly as sp
from seprank.engine.result import CERTIFIED, Measurement
from seprank.engine.sample_grid import available_memory
from seprank.engine.strategies import catalecticant_minors as minors
from seprank.engine.strategies.base import Plan
from seprank.errors import TooBigError
from seprank.nets.attention import LinearSelfAttention, SoftmaxSelfAttention
from seprank.theory import bounds


def _fits(rows: int, cols: int) -> bool:
    """Whether a block matrix (float64, eliminated in place) fits in a quarter of the
    available memory."""
    return rows * cols * 8 <= available_memory() // 4


def _check_fits(rows: int, cols: int) -> None:
    """Refuse a block matrix over a quarter of the available memory, before it is
    allocated."""
    if not _fits(rows, cols):
        raise TooBigError(f"catalecticant: a {rows}x{cols} block needs "
                          f"{rows * cols * 8 / 2**30:.1f} GiB, over the "
                          f"{available_memory() // 4 / 2**30:.1f} GiB allowed")  # fmt: skip


def _size_refusal(net) -> str | None:
    """Why F is too large to tabulate (None: it is not), from sizes alone."""
    d = net.width
    m = d * (d + 1) // 2
    if net.depth > 40:  # D = (3^L - 1)/2 over 10^19: no table of F is possible
        return f"needs depth <= 40 (got {net.depth}): F has degree (3^L - 1)/2"
    D = bounds.matrix_degree(net.depth)
    if D + 1 > MAX_BLOCKS:
        return f"needs at most {MAX_BLOCKS} blocks (D + 1 = {D + 1} at depth {net.depth})"
    log_terms = math.lgamma(D + m) - math.lgamma(D + 1) - math.lgamma(m)  # ln C(D+m-1, D)
    if log_terms > math.log(MAX_MONOMIALS):
        return (f"needs F to have at most {MAX_MONOMIALS:.0e} coefficients (its degree-{D} "
                f"part alone has about 10^{log_terms / math.log(10):.0f})")
    radix = 2 * D + 1 if net.residual else D + 1
    if m * math.log2(radix) >= 62:
        return f"needs radix^m < 2^62 for its monomial keys (radix {radix}, m = {m})"
    return None


def refusal(net, A, method: str, sampler: str, p: int | None) -> str | None:
    """Why the catalecticant strategy does not apply (None: it applies)."""
    if type(net) is not LinearSelfAttention or isinstance(net, SoftmaxSelfAttention):
        return f"needs a LinearSelfAttention network (got {type(net).__name__})"
    if method != "modular":
        return f"needs method='modular' (got method={method!r})"
    if sampler not in ("random", "auto"):
        return f"samples nothing; sampler={sampler!r} has no meaning for it"
    nq, no = bounds.sides(net.seq_len, A, net.query_position)
    if min(nq, no) < net.width:
        return (f"needs at least width={net.width} positions on each side (query side {nq}, "
                f"other side {no}): with fewer, S on that side does not fill the symmetric "
                "matrices and the coefficient reduction does not hold; use 'graded' or "
                "'direct'")  # fmt: skip
    too_big = _size_refusal(net)
    if too_big is not None:
        return too_big
    D = bounds.matrix_degree(net.depth)
    if p is None or p <= D:
        return f"needs prime > D = {D} (the factorials up to D! must be invertible mod p)"
    return None


#: Most coefficients of F the strategy tabulates (a refusal above: the table is int64).
MAX_MONOMIALS = 10**8
#: Most blocks (D + 1) of one measurement (width 1 has D + 1 blocks of one entry each).
MAX_BLOCKS = 100_000
#: The largest prime below 2**23: the BLAS elimination needs one float64 product per step
#: instead of two (seprank.algebra.blas_elimination.single_product), about 1.6 times faster.
FAST_PRIME = 8388593
#: Short side of the largest block from which the strategy, left to choose its prime,
#: takes FAST_PRIME (below it the default prime's smaller Schwartz-Zippel bound is free).
FAST_FROM = 2048


def block_shapes(net) -> list[tuple[int, int]]:
    """(rows, columns) of every matrix the strategy forms, before any is built: block k
    is C(k+m-1, k) x d C(D-k+m-1, D-k) (exponents of degree k and D - k in m = d(d+1)/2
    variables); with the residual one matrix over all degrees <= D."""
    d, D = net.width, bounds.matrix_degree(net.depth)
    m = d * (d + 1) // 2
    if net.residual:
        n = math.comb(D + m, m)
        return [(n, n * d)]
    return [(math.comb(k + m - 1, k), d * math.comb(D - k + m - 1, D - k)) for k in range(D + 1)]


def check_sizes(net) -> None:
    """TooBigError, before F is built, when the smallest matrix the strategy must rank for
    some block (its short side by s + MARGIN entries of the long one) does not fit in a
    quarter of the available memory (:func:`rank_block` forms nothing smaller)."""
    if _size_refusal(net) is not None:
        return  # refused with its own reason
    d = net.width

    def smallest(r, c):  # what rank_block forms first: the subset, or the whole block
        if net.residual:
            return r, c
        s = min(r, c)
        if c > s + MARGIN * d:  # a subset of whole deltas (d columns each)
            return s, min(c, -(-(s + MARGIN) // d) * d)
        if r > s + MARGIN:  # a subset of the rows
            return s, s + MARGIN
        return r, c  # the whole block

    need = max((smallest(r, c) for r, c in block_shapes(net)), key=lambda rc: rc[0] * rc[1])
    if not _fits(*need):
        raise TooBigError(
            f"depth/width: the catalecticant strategy must rank a {need[0]}x{need[1]} "
            f"matrix for its largest block, {need[0] * need[1] * 8 / 2**30:.1f} GiB, over the "
            f"{available_memory() // 4 / 2**30:.1f} GiB allowed (a quarter of the available "
            "memory): lower the sizes, or use a machine with more memory")  # fmt: skip


def choose_prime(net, prime: int | None, blas: bool = True) -> tuple[int, str]:
    """The modulus and why: the caller's; else FAST_PRIME when the blocks are ranked by
    the BLAS engine (``blas``: rank_engine auto or blas, on the CPU), the largest block's
    short side is at least FAST_FROM and D < FAST_PRIME; else the default prime."""
    if prime is not None:
        return int(prime), ""
    if not blas:  # the one-product speed-up is the BLAS engine's: nothing to gain
        return DEFAULT_PRIME, ""
    if _size_refusal(net) is not None:  # refused later, with that reason
        return DEFAULT_PRIME, ""
    short = max(min(r, c) for r, c in block_shapes(net))
    if short >= FAST_FROM and bounds.matrix_degree(net.depth) < FAST_PRIME:
        return FAST_PRIME, (f"; prime {FAST_PRIME}, the largest below 2^23 (its largest "
                            f"block has a short side of {short}: the GF(p) elimination "
                            "needs one float64 product per step there, not two; the "
                            f"Schwartz-Zippel bounds are {DEFAULT_PRIME / FAST_PRIME:.0f}x "
                            f"those at the default prime {DEFAULT_PRIME}: pass prime= "
                            "for another)")  # fmt: skip
    return DEFAULT_PRIME, ""


def auto_pick(net, A, method: str, sampler: str, prime: int | None,
              random_weights: bool = True,
              blas: bool = True) -> tuple[str, int | None]:  # fmt: skip
    """Whether ``strategy='auto'`` takes this strategy: (why, its prime) when it does,
    (why not, None) when not. It is taken when it applies (:func:`refusal`), the weights
    are random, and each of its matrices fits in memory: it ranks matrices of the graded
    blocks' sizes (the same ranks) without evaluating any grid, so where it applies it is
    the cheaper one. With given weights it samples nothing random, so it could not earn a
    saturation label; the grid strategies' random points can."""
    if type(net) is not LinearSelfAttention:
        return "", None
    if not random_weights:
        return (" (catalecticant not taken: with given weights nothing in it is random, "
                "so it could not label saturation)"), None  # fmt: skip
    why = refusal(net, A, method, sampler, DEFAULT_PRIME if prime is None else prime)
    if why is None:
        p, prime_why = choose_prime(net, prime, blas)
        why = refusal(net, A, method, sampler, p)
    if why is not None:
        return f" (catalecticant not taken: it {why.split('; use ')[0]})", None
    big = max(block_shapes(net), key=lambda rc: rc[0] * rc[1])
    if not _fits(*big):
        return (f" (catalecticant not taken: its largest matrix, {big[0]}x{big[1]}, needs "
                f"{big[0] * big[1] * 8 / 2**30:.1f} GiB, over the "
                f"{available_memory() // 4 / 2**30:.1f} GiB allowed)"), None  # fmt: skip
    return ("auto: catalecticant (both sides have at least width positions and prime > D, "
            "proofs/catalecticant_reduction.md; no grid: the graded blocks' ranks from F's "
            f"coefficients; largest matrix {big[0]}x{big[1]})" + prime_why), p


#: Extra entries of the long side kept in the first, sub-matrix attempt at a block.
MARGIN = 16


def _subset(rng, keys, count: int):
    """``count`` of ``keys`` (sorted), chosen at random."""
    return np.sort(rng.choice(keys, size=min(count, keys.size), replace=False))


#: Long-side entries filled per product with the left kernel (bounds that matrix's memory).
REST_CHUNK = 4096


def rank_block(plan: Plan, keys, values, rows, cols) -> tuple[int, list[int], float, float]:
    """(rank, shape ranked, fill seconds, rank seconds) of the block H[rows, (cols, c)].

    The rank is at most s = min(rows, d cols). A block whose long side has more than
    s + MARGIN entries is first ranked on a random subset of s + MARGIN of them (whole
    deltas on the column side: d columns each): a submatrix's rank is a lower bound, and
    when it reaches s it is the block's rank, with no probability. When it falls short,
    the BLAS engine goes on from that elimination (:func:`_rest_through_kernel`); other
    engines rank the whole block."""
    d = values.shape[1]
    nr, nc = rows.size, cols.size * d
    small = min(nr, nc)
    t_fill = t_rank = 0.0
    tries = []
    if nc > small + MARGIN * d:
        tries.append((rows, _subset(plan.pts_rng, cols, -(-(small + MARGIN) // d))))
    elif nr > small + MARGIN:
        tries.append((_subset(plan.pts_rng, rows, small + MARGIN), cols))
    tries.append((rows, cols))
    rec = minors.recording(plan)  # certifying: the pivots too (no left-kernel shortcut)
    for r_keys, c_keys in tries:
        _check_fits(r_keys.size, c_keys.size * d)
        whole = r_keys is rows and c_keys is cols
        t0 = time.perf_counter()
        flip = nc < nr  # the short side as rows: the elimination's factors then hold K
        H = sp.catalecticant(keys, values, r_keys, c_keys, transpose=flip)
        t1 = time.perf_counter()
        if rec:
            r, minor = minors.pivots_of(plan, H, r_keys, c_keys, flip, d)
            rest = None
        elif whole or plan.engine.name != "blas":
            r = plan.engine.rank(H, overwrite=True)
            rest = None
        else:
            factors: dict = {}
            r = len(blas_elimination.pivots(H, plan.domain.p, factors=factors)[0])
            rest = None if r == small else (np.setdiff1d(rows, r_keys) if flip
                                            else np.setdiff1d(cols, c_keys))  # fmt: skip
        t_fill, t_rank = t_fill + t1 - t0, t_rank + time.perf_counter() - t1
        if rest is not None:
            tk = time.perf_counter()
            K = left_kernel(H, factors, plan.domain.p)
            del H, factors  # the subset's matrix is not needed past its kernel
            t_rank += time.perf_counter() - tk
            if _fits(K.shape[0], rest.size * (1 if flip else d)):  # K X: deficit x rest
                r2, tf, tr = _rest_through_kernel(plan, keys, values, K, rows, cols, rest,
                                                  flip)  # fmt: skip
                return int(r + r2), [nr, nc], t_fill + tf, t_rank + tr
            del K  # a deficit too large for K X: the whole block, as other engines do
            continue
        del H
        if r == small or whole:
            if rec:
                minors.keep(plan, rows, cols, minor)
            return int(r), [nr, nc] if whole else [r_keys.size, c_keys.size * d], t_fill, t_rank
    raise AssertionError("the whole block is always tried")  # pragma: no cover


def _rest_through_kernel(plan, keys, values, K, rows, cols, rest, flip):
    """(rank added, fill s, rank s) by the entries ``rest`` of the long side that the
    eliminated submatrix H left out: rank [H | X] = rank H + rank(K X), K a basis of H's
    left kernel (exact; :mod:`seprank.algebra.left_kernel`). H's rows are the short side
    (the block's rows, or with ``flip`` its columns), all of them, so K X has as many
    rows as H's deficit: the left-out entries are never eliminated."""
    p = plan.domain.p
    t0 = time.perf_counter()
    parts = []
    t_fill = 0.0
    for s in range(0, rest.size, REST_CHUNK):
        part = rest[s:s + REST_CHUNK]
        tf = time.perf_counter()
        X = sp.catalecticant(keys, values, part, cols, transpose=True) if flip \
            else sp.catalecticant(keys, values, rows, part)  # fmt: skip
        t_fill += time.perf_counter() - tf
        parts.append(matmul_mod_long(K, X, p))
    r2 = plan.engine.rank(np.hstack(parts))
    return r2, t_fill, time.perf_counter() - t0 - t_fill


@dataclass
class Prepared:
    """F's coefficient table and what every block of one measurement needs: deterministic
    from the network's config, the weights' seed and the prime (:func:`prepare`)."""

    keys: np.ndarray
    values: np.ndarray
    D: int
    m: int
    radix: int
    build_seconds: float


def prepare(plan: Plan) -> Prepared:
    """Build F and its coefficient table (the part of :func:`run` before any block)."""
    net, p = plan.net, plan.domain.p
    d, D = net.width, bounds.matrix_degree(net.depth)
    m = d * (d + 1) // 2
    t0 = time.perf_counter()
    _, F = sp.build_F(net, plan.params, p)
    radix = 2 * D + 1 if net.residual else D + 1
    keys, values = sp.coefficient_table(F, m, D, p, radix)
    t_build = time.perf_counter() - t0
    plan.say(f"  catalecticant: F built in {t_build:.2f}s ({keys.size} monomials)")
    return Prepared(keys, values, D, m, radix, t_build)


def block_count(net) -> int:
    """How many matrices :func:`measure_block` ranks: D + 1 blocks, or the residual's one."""
    return 1 if net.residual else bounds.matrix_degree(net.depth) + 1


def measure_block(plan: Plan, prep: Prepared, k: int) -> tuple[dict, float, float]:
    """(block, fill seconds, rank seconds) of block k (S-degree k on the side without the
    query; with the residual, k = 0 is the one matrix). A pure function of the plan's
    network, weights and prime and of k: the sub-matrix of a first attempt
    (:func:`rank_block`) is drawn from ``default_rng([seed, 1, k])``, so the blocks can be
    ranked in any order, anywhere, and give the same result."""
    net, d = plan.net, plan.net.width
    _, _, query_on_A = _sides(net, plan.A)
    te = time.perf_counter()
    if net.residual:
        ks = sp.keys_up_to(prep.D, prep.m, prep.radix)
        _check_fits(ks.size, ks.size * d)
        H = sp.catalecticant(prep.keys, prep.values, ks, ks)
        tf = time.perf_counter() - te
        tr = time.perf_counter()
        if minors.recording(plan):
            r, minor = minors.pivots_of(plan, H, ks, ks, False, d)
            minors.keep(plan, ks, ks, minor)
        else:
            r = plan.engine.rank(H, overwrite=True)
        tr = time.perf_counter() - tr
        return {"degree": None, "other_s_degree": None, "rank": int(r), "shape": list(H.shape),
                "seconds": time.perf_counter() - te}, tf, tr  # fmt: skip
    D = prep.D
    rows, cols = sp.degree_keys(k, prep.m, prep.radix), sp.degree_keys(D - k, prep.m, prep.radix)
    own = replace(plan, pts_rng=np.random.default_rng([plan.seed, 1, k]))
    r, ranked, tf, tr = rank_block(own, prep.keys, prep.values, rows, cols)
    a_deg = 2 * (D - k) + 1 if query_on_A else 2 * k
    block = {"degree": a_deg, "other_s_degree": k, "rank": r,
             "shape": [int(rows.size), int(cols.size * d)], "ranked_shape": ranked,
             "seconds": time.perf_counter() - te}  # fmt: skip
    plan.say(f"  block A-degree {a_deg}: rank {r} of {block['shape']} "
             f"(ranked {ranked}, {block['seconds']:.1f}s)")
    return block, tf, tr


def _sides(net, A):
    nq, no = bounds.sides(net.seq_len, A, net.query_position)
    return nq, no, net.query_position in set(A)


def run(plan: Plan, reason: str = "") -> Measurement:
    """Build F, form each block (or the residual's one matrix), rank it."""
    prep = prepare(plan)
    results = [measure_block(plan, prep, k) for k in range(block_count(plan.net))]
    return assemble(plan, int(prep.keys.size), prep.build_seconds, results, reason)


def assemble(plan: Plan, monomials: int, build_seconds: float, results: list,
             reason: str = "", seconds: float | None = None) -> Measurement:  # fmt: skip
    """The Measurement from every block's :func:`measure_block` result, k = 0..D in order
    (``seconds``: the total to report; default the time since the plan was made)."""
    net, p = plan.net, plan.domain.p
    D = bounds.matrix_degree(net.depth)
    nq, no, query_on_A = _sides(net, plan.A)
    blocks = [dict(b) for b, _, _ in results]
    if not net.residual:
        blocks.sort(key=lambda b: b["degree"])
    t_eval = build_seconds + sum(tf for _, tf, _ in results)
    t_rank = sum(tr for _, _, tr in results)
    total = sum(b["rank"] for b in blocks)
    big = max(blocks, key=lambda b: b["shape"][0] * b["shape"][1])
    info = {"D": D, "variables": net.width * (net.width + 1) // 2, "monomials": int(monomials),
            "build_seconds": build_seconds, "query_side": "A" if query_on_A else "B",
            "sides": [nq, no],
            "degree": "A-side degree in x (graded's convention); other_s_degree: the degree "
                      "in S of the side without the query",
            "residual": bool(net.residual)}  # fmt: skip
    if seconds is None:
        seconds = time.perf_counter() - plan.t_start
    return Measurement(
        rank=int(total), saturated=True, certified=CERTIFIED["catalecticant"],
        method=plan.method, prime=p, samples=tuple(big["shape"]),
        seconds=seconds, seed=plan.seed, config=plan.config,
        partition=plan.A, sampler="coefficients", eval_seconds=t_eval, rank_seconds=t_rank,
        history=[(big["shape"][0], big["shape"][1], int(total))], strategy="catalecticant",
        strategy_reason=reason, blocks=blocks, catalecticant=info,
        minors=minors.collect(plan, blocks, D),
    )  # fmt: skip

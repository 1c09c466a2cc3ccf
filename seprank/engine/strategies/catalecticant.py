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

:func:`run` is :func:`prepare` (F's table), :func:`measure_block` for each block (the small
ones together, :func:`measure_small_blocks`, with the same results) and :func:`assemble`;
each block is a pure function of the network, seed, prime and k, so
:mod:`seprank.sweeps.block_tasks` runs them as stored, resumable tasks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from seprank.algebra import lu_rank
from seprank.algebra.domains import DEFAULT_PRIME
from seprank.algebra.rank_engines.base import RankEngine
from seprank.engine import capability_check
from seprank.engine import structural_poly as sp
from seprank.engine.detail import Detail
from seprank.engine.estimate import Cost
from seprank.engine.result import Measurement
from seprank.engine.sample_grid import available_memory
from seprank.engine.saturation import Ground, GroundContext, given_weights, unstopped
from seprank.engine.strategies import catalecticant_minors as minors
from seprank.engine.strategies.base import BASE_BYTES, RunInputs
from seprank.engine.strategies.catalecticant_sizes import (  # noqa: F401 (re-exported)
    FAST_FROM,
    FAST_PRIME,
    MARGIN,
    MAX_BLOCKS,
    MAX_MONOMIALS,
    block_shapes,
    check_fits,
    check_sizes,
    choose_prime,
    fits,
    form_of,
    refusal,
)
from seprank.engine.strategies.registry import Strategy, register
from seprank.nets.registry import shipped_function


def _subset(rng, keys, count: int):
    """``count`` of ``keys`` (sorted), chosen at random."""
    return np.sort(rng.choice(keys, size=min(count, keys.size), replace=False))


#: Long-side entries filled per product with the left kernel (bounds that matrix's memory).
REST_CHUNK = 4096


def _tries(inputs: RunInputs, rows, cols, d: int) -> list[tuple]:
    """The (row keys, column keys) a block is ranked on, in order: a random subset of the
    long side first where it has more than s + MARGIN entries (whole deltas on the column
    side: d columns each), then the whole block."""
    nr, nc = rows.size, cols.size * d
    small = min(nr, nc)
    tries = []
    if nc > small + MARGIN * d:
        tries.append((rows, _subset(inputs.pts_rng, cols, -(-(small + MARGIN) // d))))
    elif nr > small + MARGIN:
        tries.append((_subset(inputs.pts_rng, rows, small + MARGIN), cols))
    tries.append((rows, cols))
    return tries


def rank_block(inputs: RunInputs, keys, values, rows, cols) -> tuple[int, list[int], float, float]:
    """(rank, shape ranked, fill seconds, rank seconds) of the block H[rows, (cols, c)].

    The rank is at most s = min(rows, d cols). A block whose long side has more than
    s + MARGIN entries is first ranked on a random subset of s + MARGIN of them
    (:func:`_tries`): a submatrix's rank is a lower bound, and when it reaches s it is the
    block's rank, with no probability. When it falls short, an engine with a left kernel
    (the BLAS one) goes on from that elimination (:func:`_rest_through_kernel`); other
    engines rank the whole block."""
    d = values.shape[1]
    nr, nc = rows.size, cols.size * d
    small = min(nr, nc)
    t_fill = t_rank = 0.0
    tries = _tries(inputs, rows, cols, d)
    rec = minors.recording(inputs)  # certifying: the pivots too (no left-kernel shortcut)
    for r_keys, c_keys in tries:
        check_fits(r_keys.size, c_keys.size * d)
        whole = r_keys is rows and c_keys is cols
        t0 = time.perf_counter()
        flip = nc < nr  # the short side as rows: the elimination's factors then hold K
        H = sp.catalecticant(keys, values, r_keys, c_keys, transpose=flip)
        t1 = time.perf_counter()
        if rec:
            r, minor = minors.pivots_of(inputs, H, r_keys, c_keys, flip, d)
            rest = None
        elif whole or not inputs.engine.has_left_kernel:
            r = inputs.engine.rank(H, overwrite=True)
            rest = None
        else:
            K = inputs.engine.left_kernel(H, overwrite=True)  # H's rows: the short side
            r = H.shape[0] - K.shape[0]
            rest = None if r == small else (np.setdiff1d(rows, r_keys) if flip
                                            else np.setdiff1d(cols, c_keys))
        t_fill, t_rank = t_fill + t1 - t0, t_rank + time.perf_counter() - t1
        if rest is not None:
            del H  # the subset's matrix is not needed past its kernel
            if fits(K.shape[0], rest.size * (1 if flip else d)):  # K X: deficit x rest
                r2, tf, tr = _rest_through_kernel(inputs, keys, values, K, rows, cols, rest,
                                                  flip)
                return int(r + r2), [nr, nc], t_fill + tf, t_rank + tr
            del K  # a deficit too large for K X: the whole block, as other engines do
            continue
        del H
        if r == small or whole:
            if rec:
                minors.keep(inputs, rows, cols, minor)
            return int(r), [nr, nc] if whole else [r_keys.size, c_keys.size * d], t_fill, t_rank
    raise AssertionError("the whole block is always tried")  # pragma: no cover


def _rest_through_kernel(inputs, keys, values, K, rows, cols, rest, flip):
    """(rank added, fill s, rank s) by the entries ``rest`` of the long side that the
    eliminated submatrix H left out: rank [H | X] = rank H + rank(K X), K a basis of H's
    left kernel (exact; the engine's ``left_kernel``). H's rows are the short side
    (the block's rows, or with ``flip`` its columns), all of them, so K X has as many
    rows as H's deficit: the left-out entries are never eliminated."""
    t0 = time.perf_counter()
    parts = []
    t_fill = 0.0
    for s in range(0, rest.size, REST_CHUNK):
        part = rest[s:s + REST_CHUNK]
        tf = time.perf_counter()
        X = sp.catalecticant(keys, values, part, cols, transpose=True) if flip \
            else sp.catalecticant(keys, values, rows, part)
        t_fill += time.perf_counter() - tf
        parts.append(inputs.engine.matmul(K, X))
    r2 = inputs.engine.rank(np.hstack(parts))
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


def prepare(inputs: RunInputs) -> Prepared:
    """Build F and its coefficient table (the part of :func:`run` before any block)."""
    net, p = form_of(inputs.net), inputs.domain.p
    d, D = net.width, net.matrix_degree
    m = d * (d + 1) // 2
    t0 = time.perf_counter()
    _, F = sp.build_F(net, inputs.params, p)
    if capability_check.needed(inputs.net):  # a user's declared form: against its apply
        capability_check.check_form(inputs.net, net, inputs.params, inputs.domain, F, inputs.seed)
    radix = 2 * D + 1 if net.residual else D + 1
    keys, values = sp.coefficient_table(F, m, D, p, radix)
    t_build = time.perf_counter() - t0
    inputs.say(f"  catalecticant: F built in {t_build:.2f}s ({keys.size} monomials)")
    return Prepared(keys, values, D, m, radix, t_build)


def block_count(net) -> int:
    """How many matrices :func:`measure_block` ranks: D + 1 blocks, or the residual's one."""
    net = form_of(net)
    return 1 if net.residual else net.matrix_degree + 1


def measure_block(inputs: RunInputs, prep: Prepared, k: int) -> tuple[dict, float, float]:
    """(block, fill seconds, rank seconds) of block k (S-degree k on the side without the
    query; with the residual, k = 0 is the one matrix). A pure function of the run inputs'
    network, weights and prime and of k: the sub-matrix of a first attempt
    (:func:`rank_block`) is drawn from ``default_rng([seed, 1, k])``, so the blocks can be
    ranked in any order, anywhere, and give the same result."""
    net = form_of(inputs.net)
    d = net.width
    te = time.perf_counter()
    if net.residual:
        ks = sp.keys_up_to(prep.D, prep.m, prep.radix)
        check_fits(ks.size, ks.size * d)
        H = sp.catalecticant(prep.keys, prep.values, ks, ks)
        tf = time.perf_counter() - te
        tr = time.perf_counter()
        if minors.recording(inputs):
            r, minor = minors.pivots_of(inputs, H, ks, ks, False, d)
            minors.keep(inputs, ks, ks, minor)
        else:
            r = inputs.engine.rank(H, overwrite=True)
        tr = time.perf_counter() - tr
        return {"degree": None, "other_s_degree": None, "rank": int(r), "shape": list(H.shape),
                "seconds": time.perf_counter() - te}, tf, tr
    rows, cols = _block_keys(prep, k)
    own = replace(inputs, pts_rng=np.random.default_rng([inputs.seed, 1, k]))
    r, ranked, tf, tr = rank_block(own, prep.keys, prep.values, rows, cols)
    shape = [int(rows.size), int(cols.size * d)]
    return _record(inputs, prep, k, r, shape, ranked, time.perf_counter() - te), tf, tr


def _record(inputs: RunInputs, prep: Prepared, k: int, r: int, shape: list, ranked: list,
            seconds: float, how: str = "") -> dict:
    """Block k's record (rank ``r`` of a block of ``shape``, ranked on ``ranked``), said on
    the progress line."""
    a_deg = 2 * (prep.D - k) + 1 if _sides(form_of(inputs.net), inputs.A)[2] else 2 * k
    block = {"degree": a_deg, "other_s_degree": k, "rank": int(r), "shape": shape,
             "ranked_shape": ranked, "seconds": seconds}
    inputs.say(f"  block A-degree {a_deg}: rank {r} of {block['shape']} "
               f"(ranked {ranked}{how}, {seconds:.1f}s)")
    return block


def _sides(net, A):
    nq, no = net.sides(A)
    return nq, no, net.query_position in set(A)


def run(inputs: RunInputs, reason: str = "") -> Measurement:
    """Build F, form each block (or the residual's one matrix), rank it: the small blocks
    together (:func:`measure_small_blocks`), the others one by one."""
    prep = prepare(inputs)
    ks = list(range(block_count(inputs.net)))
    done = measure_small_blocks(inputs, prep, ks)
    results = [done[k] if k in done else measure_block(inputs, prep, k) for k in ks]
    return assemble(inputs, int(prep.keys.size), prep.build_seconds, results, reason)


def _block_keys(prep: Prepared, k: int):
    """Block k's row keys (S-degree k) and column keys (S-degree D - k)."""
    return sp.degree_keys(k, prep.m, prep.radix), sp.degree_keys(prep.D - k, prep.m, prep.radix)


#: Entries of the matrices ranked in one batch, at most (bounds the batch's memory).
BATCH_ENTRIES = 1 << 23


def _groups(batch: dict, d: int) -> list[list]:
    """The keys of ``batch`` ({k: (row keys, column keys)}) in groups of at most
    BATCH_ENTRIES entries (a matrix larger than that alone)."""
    groups, size = [[]], 0
    for k, (r_keys, c_keys) in batch.items():
        n = r_keys.size * c_keys.size * d
        if groups[-1] and size + n > BATCH_ENTRIES:
            groups.append([])
            size = 0
        groups[-1].append(k)
        size += n
    return [g for g in groups if g]


def measure_small_blocks(inputs: RunInputs, prep: Prepared, ks) -> dict:
    """{k: :func:`measure_block`'s result} for the blocks among ``ks`` that the engine
    ranks in one call (:meth:`~seprank.algebra.rank_engines.base.RankEngine.rank_many`,
    small blocks: :func:`seprank.algebra.lu_rank.small`), ranked in batches: the first
    try of each (:func:`_tries`, the same random subsets), then the whole blocks whose try
    fell short. The ranks, and the records, are :func:`measure_block`'s; a block's
    ``seconds`` is its fill time plus its share of the batches' rank time, by entries.
    Empty with the residual, while certifying (pivots are kept per block), or where the
    engine has no batched rank (BLAS engine only)."""
    net = form_of(inputs.net)
    if net.residual or minors.recording(inputs) or \
            type(inputs.engine).rank_many is RankEngine.rank_many:
        return {}
    d = net.width
    todo = {}
    for k in ks:
        rows, cols = _block_keys(prep, k)
        if lu_rank.small((rows.size, cols.size * d)):
            own = replace(inputs, pts_rng=np.random.default_rng([inputs.seed, 1, k]))
            todo[k] = (rows, cols, _tries(own, rows, cols, d))
    fill = dict.fromkeys(todo, 0.0)
    share = dict.fromkeys(todo, 0.0)
    ranks, ranked = {}, {}
    for attempt in (0, 1):
        batch = {k: t[2][attempt] for k, t in todo.items()
                 if k not in ranks and attempt < len(t[2])}
        for group in _groups(batch, d):
            mats = {}
            for k in group:
                (rows, cols, _), (r_keys, c_keys) = todo[k], batch[k]
                t0 = time.perf_counter()
                mats[k] = sp.catalecticant(prep.keys, prep.values, r_keys, c_keys,
                                           transpose=cols.size * d < rows.size)
                fill[k] += time.perf_counter() - t0
            t0 = time.perf_counter()
            got = inputs.engine.rank_many(list(mats.values()))
            spent = time.perf_counter() - t0
            entries = sum(M.size for M in mats.values()) or 1
            for (k, M), r in zip(mats.items(), got):
                share[k] += spent * M.size / entries
                (rows, cols, _), (r_keys, c_keys) = todo[k], batch[k]
                if r_keys is rows and c_keys is cols or r == min(rows.size, cols.size * d):
                    ranks[k] = int(r)
                    ranked[k] = [int(r_keys.size), int(c_keys.size * d)]
    out = {}
    for k, (rows, cols, _) in todo.items():
        shape = [int(rows.size), int(cols.size * d)]
        block = _record(inputs, prep, k, ranks[k], shape, ranked[k], fill[k] + share[k],
                        " in a batch")
        out[k] = (block, fill[k], share[k])
    return out


#: What a catalecticant rank certifies (the Measurement's ``certified``).
CERTIFIED = ("lower bound (sum over the blocks of exact ranks over GF(p) of the "
             "catalecticant matrices of an integer-weight network's structural polynomial F; "
             "each is at most that block's rank over Q, which is its separation rank)")
#: What a block's ``degree`` and ``other_s_degree`` mean (the detail's ``degree``).
DEGREE_CONVENTION = ("A-side degree in x (graded's convention); other_s_degree: the degree "
                     "in S of the side without the query")


@dataclass(frozen=True)
class CatalecticantDetail(Detail):
    """What the catalecticant strategy records: F's size and the degree convention.

    Parameters
    ----------
    D : int
        F's degree in S (the blocks are k = 0..D).
    variables : int
        The variables of S (d (d + 1) / 2).
    monomials : int or None
        F's monomials (None: not built).
    build_seconds : float
        Time to build F's coefficients.
    query_side : str
        ``"A"`` or ``"B"``: the side of the query position.
    sides : tuple of int
        Positions on the query's side and on the other.
    degree : str
        The blocks' degree convention (:data:`DEGREE_CONVENTION`).
    residual : bool
        Whether F is the residual form's.
    """

    key: ClassVar[str] = "catalecticant"
    after: ClassVar[str] = "graded"
    null_when_absent: ClassVar[bool] = True
    shows_blocks: ClassVar[bool] = True

    D: int
    variables: int
    monomials: int | None
    build_seconds: float
    query_side: str
    sides: tuple
    degree: str
    residual: bool


def assemble(inputs: RunInputs, monomials: int, build_seconds: float, results: list,
             reason: str = "", seconds: float | None = None) -> Measurement:
    """The Measurement from every block's :func:`measure_block` result, k = 0..D in order
    (``seconds``: the total to report; default the time since the run inputs were made)."""
    net, p = form_of(inputs.net), inputs.domain.p
    D = net.matrix_degree
    nq, no, query_on_A = _sides(net, inputs.A)
    blocks = [dict(b) for b, _, _ in results]
    if not net.residual:
        blocks.sort(key=lambda b: b["degree"])
    t_eval = build_seconds + sum(tf for _, tf, _ in results)
    t_rank = sum(tr for _, _, tr in results)
    total = sum(b["rank"] for b in blocks)
    big = max(blocks, key=lambda b: b["shape"][0] * b["shape"][1])
    info = CatalecticantDetail(D=D, variables=net.width * (net.width + 1) // 2,
                               monomials=int(monomials), build_seconds=build_seconds,
                               query_side="A" if query_on_A else "B", sides=(nq, no),
                               degree=DEGREE_CONVENTION, residual=bool(net.residual))
    if seconds is None:
        seconds = time.perf_counter() - inputs.t_start
    return Measurement(
        rank=int(total), saturated=True, certified=CERTIFIED,
        method=inputs.method, prime=p, samples=tuple(big["shape"]),
        seconds=seconds, seed=inputs.seed, config=inputs.config,
        partition=inputs.A, sampler="coefficients", eval_seconds=t_eval, rank_seconds=t_rank,
        history=[(big["shape"][0], big["shape"][1], int(total))], strategy="catalecticant",
        strategy_reason=reason, blocks=blocks, detail=info,
        minors=minors.collect(inputs, blocks, D),
    )


def weight_degree(net) -> int:
    """Degree in the weights of each coefficient of F = e_c^T P_L(S) (LinearSelfAttention):
    a layer multiplies four weight matrices into three copies of P, so w_{l+1} = 4 + 3 w_l,
    w_0 = 0: w_L = 2 (3^L - 1)."""
    return 2 * (3**net.depth - 1)


def blocks_ground(raw, ctx: GroundContext) -> Ground:
    """The ground of a rank summed over the structural polynomial's blocks, nothing sampled.

    A block's GF(p) rank is below its generic rank R only if the random weights hit the
    zero set of a nonsingular R x R minor of the generic block, of degree <= R w in the
    weights: probability <= R w / p. R is unknown, so the block's upper bound stands for it
    (the proved bound where there is one, else its short side); the blocks are summed (a
    union bound).

    A block ranked through random sketches (the sketch strategy: ``sketch``, the sizes
    ranked, and ``sketch_degree``, the degree of a sketch entry in its draws) adds
    sum over its sizes of min(s, upper) x sketch_degree / p (proved in
    :mod:`seprank.engine.strategies.sketch`), except where its rank is its short side; a
    sketch that did not stop leaves the whole a lower bound, each block labelled on its own.
    """
    sketched = any("sketch" in b for b in raw.blocks)
    if not raw.saturated:
        own = _blocks_ground(raw, ctx).blocks if sketched else None
        return Ground(False, None, unstopped(raw).reason + (
            "; the blocks whose sketch stopped below its cap are labelled on their own"
            if sketched else ""), blocks=own)
    return _blocks_ground(raw, ctx)


def _blocks_ground(raw, ctx: GroundContext) -> Ground:
    if not ctx.random_weights:
        return given_weights("catalecticant")
    w, threshold, p = weight_degree(ctx.net), ctx.threshold, raw.prime
    total, blocks = 0.0, []
    sketched = any("sketch" in b for b in raw.blocks)
    for b in raw.blocks:
        upper = min(b["shape"]) if b.get("bound") is None else min(b["bound"], *b["shape"])
        own = upper * w / p
        if "sketch" in b and b["rank"] < min(b["shape"]):
            own += sum(min(s, upper) for s in b["sketch"]) * b["sketch_degree"] / p
        total += own
        bound = min(1.0, own)
        # a sketch that reached its cap did not stop: a lower bound only, whatever its bound
        blocks.append({**b, "saturation_bound": bound,
                       "saturated": bound <= threshold and b.get("stopped", True)})
    bound = min(1.0, total)
    what = ("sketches (the weights and the sketch points random): a block's sketch rank is "
            "below its generic rank only if the weights hit a minor's zero set or the sketch "
            "points hit its sketch minor's, probability <= sum over the blocks of (upper "
            f"bound) x weight degree {w} / p + sum over its sketch sizes s of min(s, upper) x "
            f"sketch degree / p = {bound:.2g}" if sketched else
            "coefficients (nothing sampled; only the weights random): the GF(p) rank is below "
            "the generic rank only if the weights hit a minor's zero set, probability <= sum "
            f"over the blocks of (upper bound) x weight degree {w} / p = {bound:.2g}")
    whose = "seprank's own code" if shipped_function(type(ctx.net)) else "the code"
    return Ground(bound <= threshold, bound, what + " (Schwartz-Zippel; the generic rank over "
        f"GF(p): the constants of {whose} and the finitely many primes where it is below the "
        f"rank over Q are not covered at prime {p}: --confirm K measures at other primes)" + (
        "" if bound <= threshold else
        f" > threshold {threshold:g}; each block is labelled on its own" + _small_prime(p)),
        blocks=blocks)


def _small_prime(p: int) -> str:
    """What a prime below the default one costs the bound, said where it is not met."""
    if p >= DEFAULT_PRIME:
        return ""
    return (f"; prime {p} makes each term {DEFAULT_PRIME / p:.0f}x what the default prime "
            f"{DEFAULT_PRIME} would (pass prime= to choose), and --confirm K measures again "
            "with independent seeds and primes and states the product of their bounds "
            "(--confirm auto: as many runs as that takes, or the reason none would do)")


#: Flops per second assumed for a block's elimination (this machine's measured rate,
#: experiments/benchmark_elimination.py: a planning figure only).
CAT_FLOPS = 3e10
#: short^2 x long per second assumed by a part's (a block's) time estimate, for the order
#: and the time left, never reported as measured: (L6,d2,H1,N4)'s largest block, 23005 x
#: 23256, took 584 s on a shared 2-core machine (serial executor).
PART_RATE = 2e10


class Catalecticant(Strategy):
    """No grid: the graded blocks' ranks from F's coefficients, for a network that
    declares its structural form with at least width positions on each side."""

    name = "catalecticant"
    order = 20
    budget = None
    grid = False
    fills = True
    certifies = True
    splits = True

    def applies(self, req) -> str | None:
        net = req.net
        if req.requested == "auto" and form_of(net) is not None and not req.random_weights:
            return ("with given weights nothing in it is random, so it could not label "
                    "saturation")
        why = refusal(net, req.A, req.method, req.sampler, req.modulus)
        if why is None and req.method == "modular":
            why = refusal(net, req.A, req.method, req.sampler, self.prime(req)[0])
        if why is not None or req.requested != "auto":
            return why
        big = max(block_shapes(net), key=lambda rc: rc[0] * rc[1])
        if not fits(*big):
            return (f"its largest matrix, {big[0]}x{big[1]}, needs "
                    f"{big[0] * big[1] * 8 / 2**30:.1f} GiB, over the "
                    f"{available_memory() // 4 / 2**30:.1f} GiB allowed")
        return None

    def confirm(self, req) -> str | None:
        if req.requested == self.name:
            check_sizes(req.net)  # TooBigError before F is built
        return None

    def not_taken(self, req, why: str) -> str:
        if req.method != "modular" or form_of(req.net) is None:
            return ""
        if why.startswith(("with given weights", "its largest matrix")):
            return f" (catalecticant not taken: {why})"
        return f" (catalecticant not taken: it {why.split('; use ')[0]})"

    def prime(self, req) -> tuple[int | None, str]:
        if req.method != "modular":
            return None, ""
        return choose_prime(req.net, req.options.prime, req.blas)

    def reason(self, req) -> str:
        if req.requested == self.name:
            return ("requested: both sides have at least width positions and prime > D "
                    "(proofs/catalecticant_reduction.md)")
        big = max(block_shapes(req.net), key=lambda rc: rc[0] * rc[1])
        return ("auto: catalecticant (both sides have at least width positions and prime > D, "
                "proofs/catalecticant_reduction.md; no grid: the graded blocks' ranks from F's "
                f"coefficients; largest matrix {big[0]}x{big[1]})")

    def cost(self, req, budget) -> Cost:
        """The largest block's matrix twice (it and a working copy); (2/3) s^3 flops a
        block."""
        shapes = block_shapes(req.net)
        big = max(r * c for r, c in shapes)
        return Cost(sum(2 / 3 * min(r, c) ** 3 for r, c in shapes) / CAT_FLOPS,
                    int(BASE_BYTES + 2 * 8 * big), "no grid; matrices of the proved block "
                    "sizes at most (blocks, in the Measurement)")

    def run(self, mp) -> Measurement:
        return run(mp.run, mp.reason)

    def ground(self, raw, ctx: GroundContext) -> Ground:
        """:func:`blocks_ground`: nothing sampled, only the weights random."""
        return blocks_ground(raw, ctx)

    # The split (what ``seprank blocks`` runs as stored tasks): how many parts and their
    # shapes, a preparation shared by the parts, one part, and the assembly.

    def parts(self, net) -> list[tuple[int, int]]:
        """(rows, columns) of each part's matrix, k = 0..count - 1."""
        return block_shapes(net)  # one per block: D + 1, or the residual's one

    def part_cost(self, rows: int, cols: int, net) -> tuple[float, int]:
        """(seconds, peak bytes) of one part: its first attempt is the short side against
        at most short + MARGIN entries of the long one (:func:`rank_block`)."""
        short = min(rows, cols)
        tried = min(max(rows, cols), short + MARGIN * form_of(net).width)
        return short * short * tried / PART_RATE, int(BASE_BYTES + 16 * short * tried)

    def prepare(self, run_plan):
        return prepare(run_plan)

    def part(self, run_plan, prep, k: int):
        return measure_block(run_plan, prep, k)

    def assemble(self, run_plan, *args, **kw) -> Measurement:
        return assemble(run_plan, *args, **kw)


STRATEGY = register(Catalecticant())

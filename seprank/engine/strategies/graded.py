"""Graded strategy: for a homogeneous f, one grid per A-side degree, ranked separately.

If f has total degree T in all inputs, write f(tA, B) = sum_k t^k f_k(A, B), f_k being the
part of degree k in the A-side inputs (so of degree T - k in the B side). The coefficient
matrix of f (rows: A-monomials, columns: B-monomials) is then block diagonal, block k
holding the A-monomials of degree k, so (proofs/graded_decomposition.py)

    sep(f; A, B) = sum_k sep(f_k; A, B).

Each f_k is measured on its own grid, F_k[r, c] = f_k(a_r, b_c): evaluate f(t_j a_r, b_c)
at m distinct t_j (m = number of degrees that occur, found by interpolation at random
points) and solve the Vandermonde system cell by cell, as one matrix product. The rank
cost falls from (sum_k n_k)^3 to sum_k n_k^3 and the memory to the unsaturated blocks.

Every block saturates on its own; a saturated block is never re-ranked and its matrix is
dropped. The grid is streamed in row chunks straight into the block matrices.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from seprank.algebra.vandermonde import interpolate, vandermonde_inverse
from seprank.engine import estimate as _estimate
from seprank.engine import feasibility
from seprank.engine.detail import Detail
from seprank.engine.estimate import Cost, TheoryFacts
from seprank.engine.result import Measurement
from seprank.engine.sample_grid import check_matrix_fits
from seprank.engine.saturation import Ground, GroundContext, grid_ground, step_sizes
from seprank.engine.strategies.base import (
    DEFAULT_MAX_SAMPLES,
    RunInputs,
    grid_cost,
    grid_model_cost,
)
from seprank.engine.strategies.registry import Strategy, register
from seprank.errors import ConfigError, MeasurementInterrupted, SamplingError
from seprank.nets.capabilities import homogeneous_by_theorem

#: Probes (random points) used to find which A-degrees occur.
SUPPORT_PROBES = 3
#: Cells (rows x columns x t-values) evaluated per chunk (bounds the temporaries).
CHUNK_CELLS = 1 << 22


def degree_support(inputs: RunInputs, T: int) -> tuple[list[int], float]:
    """The A-side degrees k with f_k != 0, and a bound on the chance one was missed.

    For each probe (random a, b), g(t) = f(t a, b) is interpolated at T+1 points; k is in
    the support if some probe has a nonzero coefficient of t^k. A nonzero f_k of degree T
    vanishes at a random point with probability <= T/p (Schwartz-Zippel), so a degree is
    missed by every probe with probability <= (T/p)^probes; the union over T+1 degrees
    gives the returned bound.
    """
    p = inputs.domain.p
    ts = list(range(T + 1))
    support: set[int] = set()
    for _ in range(SUPPORT_PROBES):
        a = inputs.new_points(1, inputs.A, tag="probe")
        b = inputs.new_points(1, inputs.B, tag="probe")
        rows = np.concatenate([(t * a) % p for t in ts])
        c = interpolate(ts, inputs.evaluate(rows, b)[:, 0], p)
        support |= {int(k) for k in np.nonzero(c)[0]}
    return sorted(support), min(1.0, (T + 1) * (T / p) ** SUPPORT_PROBES)


def _interpolation(inputs: RunInputs, support: list[int]):
    """Points t_1..t_m and the inverse generalised Vandermonde matrix (float64 residues)."""
    p, m = inputs.domain.p, len(support)
    ts = list(range(1, m + 1))
    for attempt in range(6):
        try:
            return ts, vandermonde_inverse(ts, support, p).astype(np.float64)
        except SamplingError:
            if attempt == 5:
                raise
            inputs.draws.append(["choice", m])
            ts = [int(v) for v in inputs.pts_rng.choice(np.arange(1, p), size=m, replace=False)]
    raise AssertionError  # pragma: no cover


class _Block:
    """One A-degree block: its growing matrix until it saturates, then only its result."""

    def __init__(self, degree: int, index: int, inputs: RunInputs):
        self.degree, self.index = degree, index
        self.matrix = inputs.engine.grow(inputs.incremental)
        self.rank, self.n, self.saturated = 0, 0, False
        self.minor: tuple[list[int], list[int]] | None = None

    def result(self) -> dict:
        return {"degree": self.degree, "rank": int(self.rank), "samples": [self.n, self.n],
                "saturated": bool(self.saturated)}


def _fill(inputs: RunInputs, live, ts, Vinv, rows_A, cols_B) -> list[np.ndarray]:
    """F_k[r, c] = f_k(rows_A[r], cols_B[c]) for every live block k: evaluate f(t a, b) at
    every t, interpolate. Row chunks bound the temporaries."""
    p = inputs.domain.p
    P, Q = rows_A.shape[0], cols_B.shape[0]
    out = [np.empty((P, Q)) for _ in live]
    if P == 0 or Q == 0 or not live:  # no live block: f has no degree component (f = 0)
        return out
    m = len(ts)
    V = np.ascontiguousarray(Vinv[[b.index for b in live]])
    step = max(1, CHUNK_CELLS // (m * Q))
    for s0 in range(0, P, step):
        chunk = rows_A[s0 : s0 + step]
        rc = chunk.shape[0]
        scaled = np.concatenate([(int(t) * chunk) % p for t in ts])
        G = inputs.evaluate(scaled, cols_B).astype(np.float64).reshape(m, rc * Q)
        Fk = inputs.engine.matmul(V, G)  # row i: f_k on this chunk, k = live[i].degree
        for i in range(len(live)):
            out[i][s0 : s0 + rc] = Fk[i].reshape(rc, Q)
    return out


#: What a graded rank certifies (the Measurement's ``certified``).
CERTIFIED = ("lower bound (sum over the A-degree blocks of exact ranks over GF(p) of an "
             "integer-weight network's component grids)")


@dataclass(frozen=True)
class GradedDetail(Detail):
    """What the graded strategy records beside the rank.

    f's total degree, its A-degree support (each degree with a block) and the
    Schwartz-Zippel bounds of that support and of the homogeneity it rests on.

    Parameters
    ----------
    total_degree : int
        The total degree T of the homogeneous f.
    support : tuple of int
        The A-degrees with a nonzero component, in order.
    t_values : int
        How many scalings t the interpolation evaluated.
    support_miss_bound : float
        Probability bound on a degree missed by the support's probe.
    homogeneity : str
        Where homogeneity comes from (declared, checked at random points...).
    homogeneity_false_bound : float
        Probability bound on a false homogeneity.
    """

    key: ClassVar[str] = "graded"
    after: ClassVar[str] = "blocks"
    null_when_absent: ClassVar[bool] = True
    shows_blocks: ClassVar[bool] = True

    total_degree: int
    support: tuple
    t_values: int
    support_miss_bound: float
    homogeneity: str
    homogeneity_false_bound: float

    def lines(self, m) -> list[str]:
        """The blocks' summary and the support's and homogeneity's bounds.

        Parameters
        ----------
        m : Measurement
            The measurement (its blocks).

        Returns
        -------
        list of str
            Two lines.
        """
        out = []
        if m.blocks:
            done = sum(b["saturated"] for b in m.blocks)
            big = max(m.blocks, key=lambda b: b["rank"])
            out.append(f"  {len(m.blocks)} blocks (A-degrees {self.support[0]}.."
                       f"{self.support[-1]}), {done} saturated, largest {big['rank']} at "
                       f"degree {big['degree']}")
        else:  # f = 0: no A-degree block at all
            out.append("  no blocks: f is identically zero (rank 0)")
        out.append(f"  chance a degree was missed <= {self.support_miss_bound:.1e}; "
                   f"homogeneity: {self.homogeneity} "
                   f"(false <= {self.homogeneity_false_bound:.1e})")
        return out


def run(inputs: RunInputs, T: int, homogeneity, reason: str = "") -> Measurement:
    """The adaptive loop of the graded strategy for f homogeneous of total degree T."""
    p = inputs.domain.p
    if T + 1 >= p:
        raise ConfigError(f"prime={p} is too small for graded measurement of degree {T}: "
                          f"needs prime > {T + 1}")
    te = time.perf_counter()
    support, miss = degree_support(inputs, T)
    ts, Vinv = _interpolation(inputs, support)
    blocks = [_Block(k, i, inputs) for i, k in enumerate(support)]
    info = GradedDetail(total_degree=int(T), support=tuple(support), t_values=len(ts),
                        support_miss_bound=miss, homogeneity=homogeneity.source,
                        homogeneity_false_bound=homogeneity.false_bound)
    t_eval, t_rank = time.perf_counter() - te, 0.0
    inputs.say(f"  graded: total degree {T}, {len(support)} A-degree blocks")
    n = min(max(2, inputs.start), inputs.max_samples)
    Ap = Bp = None
    history: list = []
    last = None
    while True:
        live = [b for b in blocks if not b.saturated]
        try:
            _check_memory(len(live), n)
            te = time.perf_counter()
            old = 0 if Ap is None else Ap.shape[0]
            new_A = inputs.new_points(n - old, inputs.A)
            new_B = inputs.new_points(n - old, inputs.B)
            Ap = new_A if Ap is None else np.concatenate([Ap, new_A])
            Bp = new_B if Bp is None else np.concatenate([Bp, new_B])
            right = _fill(inputs, live, ts, Vinv, Ap[:old], Bp[old:])  # new columns
            bottom = _fill(inputs, live, ts, Vinv, Ap[old:], Bp)  # new rows
            t_eval += time.perf_counter() - te
            tr = time.perf_counter()
            for b, r_b, b_b in zip(live, right, bottom):
                b.rank, b.n = b.matrix.add(r_b, b_b), n
                b.saturated = b.rank < n
                final = b.saturated or n >= inputs.max_samples or b.matrix.incremental
                b.minor = b.matrix.minor() if final else None  # from-scratch pivots cost
                if b.saturated:
                    b.matrix.drop()
            del right, bottom
            t_rank += time.perf_counter() - tr
        except KeyboardInterrupt:
            raise MeasurementInterrupted(
                "measurement interrupted; the last finished step is kept", partial=last
            ) from None
        total = sum(b.rank for b in blocks)
        saturated = all(b.saturated for b in blocks)
        done = sum(b.saturated for b in blocks)
        history.append((n, n, total))
        inputs.say(f"  samples {n}x{n}: rank {total} ({done}/{len(blocks)} blocks below the "
                 "sample size)")
        inputs.advance(n, f"rank {total}, {done}/{len(blocks)} blocks below their sample")
        budget_hit = not saturated and n >= inputs.max_samples
        last = Measurement(
            rank=int(total), saturated=saturated, certified=CERTIFIED,
            method=inputs.method, prime=p, samples=(n, n),
            seconds=time.perf_counter() - inputs.t_start, seed=inputs.seed, config=inputs.config,
            partition=inputs.A, sampler=inputs.sampler, eval_seconds=t_eval, rank_seconds=t_rank,
            budget_hit=budget_hit, history=list(history), strategy="graded",
            strategy_reason=reason, blocks=[b.result() for b in blocks], detail=info,
            minors=_minors(blocks), draws=[list(d) for d in inputs.draws],
        )
        if saturated or budget_hit:
            return last
        n = inputs.next_size(n)


def blocks_cost(net, A, B, blocks, max_samples: int, start: int, fast: bool,
                facts: TheoryFacts | None = None) -> Cost:
    """The graded run's cost with the proved bounds ``blocks`` of its A-degree blocks
    (:attr:`seprank.engine.estimate.TheoryFacts.graded_blocks`): one grid of f(t a, b) per
    block degree t, each block ranked on its own and grown until it stops (x1.25 overshoots
    a block's rank by at most 25%).

    Parameters
    ----------
    net : Architecture
        The network.
    A, B : tuple of int
        The sides.
    blocks : sequence of int
        The blocks' proved bounds.
    max_samples : int
        The budget of each block's sample.
    start : int
        The first sample size.
    fast : bool
        Whether the compiled kernel may evaluate the grid.
    facts : TheoryFacts, optional
        The request's facts (the network's figures); default asked here.

    Returns
    -------
    Cost
        Its ``model`` holds the grid model's figures, ``blocks`` and ``largest_block``.
    """
    item, m, top = 8, len(blocks), max(blocks)
    facts = facts or TheoryFacts(net, A)
    cell = facts.cell_seconds(fast)
    n0 = min(max(2, start), max_samples)
    dim = facts.input_dim

    def final(bound):
        return min(max_samples, int(1.25 * bound) + 2)

    def seconds(n, every_block_grows=False):
        ranks = sum(1.42 * (n if every_block_grows else min(final(t), n)) ** 3 for t in blocks)
        return m * n * n * cell + ranks / _estimate.RANK_OPS_PER_S

    lg = math.log10(max(1, sum(blocks)))
    est = {"degree": facts.degree, "log10_expected_rank": lg,
           "strategy": "graded", "blocks": m, "largest_block": top,
           "param_bytes": facts.param_count * item,
           "first_grid_bytes": n0 * (len(A) + len(B)) * dim * item + m * n0 * n0 * item,
           "points_bytes_at_budget": max_samples * (len(A) + len(B)) * dim * item,
           "first_grid_seconds": m * n0 * n0 * cell,
           "expected_seconds": seconds(final(top)),
           "worst_seconds": seconds(max_samples, every_block_grows=True),
           "max_samples": max_samples, "method": "modular"}
    n = max_samples if lg >= math.log10(max_samples) else \
        min(max_samples, int(1.25 * 10**lg) + 2)
    note = (f"; graded: {m} A-degree blocks, largest <= {top:,}"
            + ("; that exceeds max_samples, so the result may be a lower bound only"
               if top >= max_samples else ""))
    # each step holds one n x n matrix per block still growing and one working copy
    # (_check_memory): at n = the i-th largest block's final size, i + 1 blocks grow
    finals = sorted((final(t) for t in blocks), reverse=True)
    peak = max((i + 2) * f * f * item for i, f in enumerate(finals))
    return grid_model_cost(est, max(3 * n * n * item, peak), note)


def _minors(blocks) -> list | None:
    """Each block's nonsingular minor (degree, rank, rows, cols), or None if one is missing."""
    if any(b.minor is None for b in blocks):
        return None
    return [{"degree": b.degree, "rank": int(b.rank), "rows": b.minor[0], "cols": b.minor[1]}
            for b in blocks]


def _check_memory(live: int, n: int) -> None:
    """Refuse a step whose block matrices (and one rank working copy) would not fit."""
    check_matrix_fits(n, n * (live + 1))


def _big(n: int) -> str:
    """An integer as text; past 30 digits as ~10^k (str() refuses past 4300 digits)."""
    if n.bit_length() < 100:
        return str(n)
    return f"~10^{n.bit_length() * 0.30103:.0f}"


class Graded(Strategy):
    """One exact rank per A-side degree of a homogeneous f (modular, random points)."""

    name = "graded"
    order = 30
    budget = "graded"
    growth = 1.25
    #: From this sample size on grow by x1.1 (default growth, incremental elimination): a
    #: step then costs in proportion to its new cells, so finer steps cost little and
    #: overshoot the largest block's rank less.
    fine_after = 2048
    certifies = True

    def applies(self, req) -> str | None:
        if req.method != "modular" or req.sampler != "random":
            return (f"graded needs method='modular' and sampler='random' "
                    f"(got method={req.method!r}, sampler={req.sampler!r})")
        return None

    def confirm(self, req) -> str | None:
        h = req.homogeneity()
        if h.homogeneous and h.degree + 1 >= req.modulus and req.requested == "auto":
            return (f"f homogeneous of degree {_big(h.degree)}, but prime={req.modulus} is "
                    "too small to interpolate it")
        return None if h.homogeneous else f"f not homogeneous ({h.source})"

    def certifiable(self, req) -> str | None:
        """A graded certificate's checker needs f homogeneous by theorem (a declared
        structural form without residual), not by a probe."""
        if not homogeneous_by_theorem(req.form):
            return "its certificate needs f homogeneous by theorem (a structural form)"
        return None

    def refusal_error(self, req, why: str) -> str:
        if why.startswith("f not homogeneous"):
            return (f"strategy='graded' needs a homogeneous network; this one is not "
                    f"({req.homogeneity().source}): use strategy='direct'")
        return f"strategy='graded': {why}"

    def reason(self, req) -> str:
        h = req.homogeneity()
        how = "auto" if req.requested == "auto" else "requested"
        return f"{how}: f homogeneous of degree {h.degree} ({h.source})"

    def cost(self, req, budget: int) -> Cost:
        """With the proved block bounds where they are known before any evaluation (the
        paper's network without residual: :func:`blocks_cost`), else the direct model at
        the method's budget."""
        blocks = req.facts.graded_blocks \
            if feasibility.interpolates(req.modulus, req.net) else None
        if not blocks:
            return grid_cost(req, int(req.options.max_samples
                                      or DEFAULT_MAX_SAMPLES[req.method]))
        fast = req.method == "modular" and req.options.use_kernel
        return blocks_cost(req.net, req.A, req.B, blocks, budget, req.options.start, fast,
                           req.facts)

    def run(self, mp) -> Measurement:
        return run(mp.run, mp.homogeneity.degree, mp.homogeneity, mp.reason)

    def ground(self, raw, ctx: GroundContext) -> Ground:
        """The random grid's ground, summed over the blocks (each over the steps it was
        live), plus the chances that a degree was missed or f is not homogeneous."""
        detail, p = raw.detail, raw.prime
        sizes = step_sizes(raw)

        def schwartz_zippel(e: int) -> float:
            total = 0.0
            for b in raw.blocks:
                total += sum(n for n in sizes if n <= b["samples"][0]) * e / p
            total += detail.support_miss_bound + detail.homogeneity_false_bound
            return min(1.0, float(total))

        live = [n for b in raw.blocks for n in sizes if n <= b["samples"][0]]
        return grid_ground(raw, ctx, live, schwartz_zippel,
                           "declarations (degree, homogeneity: tested), ")


STRATEGY = register(Graded())

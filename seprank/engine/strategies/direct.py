"""Direct strategy: one grid matrix F[r, c] = f(row r on A, column c on B), ranked whole.

The general method: it needs nothing of f (residual networks, float, any sampler). The
sample grows geometrically, reusing every evaluated cell, until the rank is strictly
below the sample size (sample-saturated: whether that may be called saturated is
:mod:`seprank.engine.saturation`'s decision) or the budget is hit.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from seprank.algebra.domains import Symbolic
from seprank.algebra.domains import raw as raw_values
from seprank.algebra.float_rank import rank_float
from seprank.engine import sample_grid as _grid
from seprank.engine.result import CERTIFIED, Measurement
from seprank.engine.saturation import (
    Ground,
    GroundContext,
    constants_cover,
    entry_degree,
    given_weights,
    grid_ground,
    uncovered,
)
from seprank.engine.strategies.base import RunInputs
from seprank.engine.strategies.registry import Strategy, register
from seprank.errors import MeasurementInterrupted, SamplingError


def _grow_random(inputs: RunInputs, n: int, Ap, Bp):
    """New random points up to n per side and the new cells only: (Ap, Bp, right, bottom),
    right = old rows x new columns, bottom = new rows x all columns."""
    old = 0 if Ap is None else Ap.shape[0]
    new_A, new_B = inputs.new_points(n - old, inputs.A), inputs.new_points(n - old, inputs.B)
    if Ap is None:
        return new_A, new_B, np.zeros((0, n), dtype=new_A.dtype), inputs.evaluate(new_A, new_B)
    right = inputs.evaluate(Ap, new_B)
    Bp = np.concatenate([Bp, new_B])
    Ap = np.concatenate([Ap, new_A])
    return Ap, Bp, right, inputs.evaluate(new_A, Bp)


def _grow_templates(inputs: RunInputs, n: int, templates):
    """The template grid with enough templates for n rows and columns (re-evaluated)."""
    A, B = inputs.A, inputs.B
    M = max(_grid.templates_needed(n, len(A)), _grid.templates_needed(n, len(B)))
    have = 0 if templates is None else templates.shape[0]
    M = max(M, have + 1) if templates is not None else M
    extra = inputs.new_points(M - have, (0,))[:, 0]
    templates = extra if templates is None else np.concatenate([templates, extra])
    Ap = _grid.template_points(templates, len(A))
    Bp = _grid.template_points(templates, len(B))
    _grid.check_matrix_fits(Ap.shape[0], Bp.shape[0])
    return templates, inputs.evaluate(Ap, Bp)


def _rank_of(inputs: RunInputs, F: np.ndarray, modular: bool):
    """(rank, tolerance, spectrum, scaled_rank) of the whole matrix ``F``: exact over GF(p)
    (the float fields None), or the float SVD rank with what its trust verdict reads."""
    if modular:
        return inputs.engine.rank(F), None, None, None
    fr = rank_float(F, inputs.tol)
    return fr.rank, fr.tolerance, fr.spectrum, fr.scaled_rank


def _alphabet(inputs: RunInputs, reason: str) -> Measurement:
    """The complete grid over the net's input alphabet: every assignment of its M symbols to
    the A positions (rows) and to the B positions (columns), ranked once. The matrix is the
    exact (A, B) matricisation of the net's tensor over the alphabet, so nothing is sampled:
    its rank over Q is that tensor's separation rank, and the GF(p) rank a lower bound equal
    to it unless p divides every maximal nonzero minor (probability about rank * degree / p
    over the random weights)."""
    modular = inputs.method == "modular"
    symbols = inputs.net.alphabet(inputs.domain)
    M = symbols.shape[0]
    rows, cols = M ** len(inputs.A), M ** len(inputs.B)
    if max(rows, cols) > inputs.max_samples:
        raise SamplingError(
            f"max_samples={inputs.max_samples}: the complete grid over the alphabet is "
            f"{rows}x{cols} ({M} symbols on {len(inputs.A)} and {len(inputs.B)} positions); raise "
            f"max_samples or lower seq_len")
    _grid.check_matrix_fits(rows, cols)
    te = time.perf_counter()
    F = inputs.evaluate(_grid.template_points(symbols, len(inputs.A)),
                      _grid.template_points(symbols, len(inputs.B)))
    t_eval = time.perf_counter() - te
    tr = time.perf_counter()
    rank, tolerance, spectrum, scaled = _rank_of(inputs, F, modular)
    t_rank = time.perf_counter() - tr
    inputs.say(f"  complete alphabet grid {rows}x{cols}: rank {rank}")
    return Measurement(
        rank=int(rank), saturated=True, certified=CERTIFIED[inputs.method] + "; complete grid "
        "over the alphabet (nothing sampled)", method=inputs.method,
        prime=inputs.domain.p if modular else None, samples=(int(rows), int(cols)),
        seconds=time.perf_counter() - inputs.t_start, seed=inputs.seed, config=inputs.config,
        partition=inputs.A, sampler="alphabet", eval_seconds=t_eval, rank_seconds=t_rank,
        tolerance=tolerance, scaled_rank=scaled, history=[(int(rows), int(cols), int(rank))],
        spectrum=spectrum,
        strategy="direct", strategy_reason=reason,
        blocks=[{"degree": None, "rank": int(rank), "samples": [int(rows), int(cols)],
                 "saturated": True}],
    )


#: Templates: the rank must be unchanged over this many growth steps before stopping.
TEMPLATE_PLATEAU = 2


def templates_saturated(F: np.ndarray, rank: int, history: list) -> bool:
    """Stop rule for the template grid (evidence only, never a proof: see
    :mod:`seprank.engine.saturation`).

    A template grid repeats rows and columns: attention is symmetric in the positions
    other than the query, so assignments that permute templates over those positions give
    equal rows (or columns). A rank below the number of rows proves nothing when it equals
    the number of *distinct* rows; so require the rank below the distinct rows and the
    distinct columns, and unchanged over ``TEMPLATE_PLATEAU`` growth steps.
    """
    if rank < 0:
        return False
    distinct = min(np.unique(F, axis=0).shape[0], np.unique(F, axis=1).shape[1])
    if not rank < distinct:
        return False
    last = [h[2] for h in history[-TEMPLATE_PLATEAU:]]
    return len(last) == TEMPLATE_PLATEAU and all(r == rank for r in last)


def run(inputs: RunInputs, reason: str = "") -> Measurement:
    """The adaptive loop of the direct strategy."""
    if inputs.sampler == "alphabet":
        return _alphabet(inputs, reason)
    modular = inputs.method == "modular"
    n = min(max(2, inputs.start), inputs.max_samples)
    Ap = Bp = F = templates = None
    growing = inputs.engine.grow(inputs.incremental) if (
        modular and inputs.sampler == "random") else None
    t_eval = t_rank = 0.0
    history: list = []
    last = None
    while True:
        try:
            te = time.perf_counter()
            if inputs.sampler == "random":
                Ap, Bp, right, bottom = _grow_random(inputs, n, Ap, Bp)
                if growing is None:  # float: keep the whole matrix
                    F = bottom if F is None else np.concatenate(
                        [np.concatenate([F, right], axis=1), bottom])
            else:
                templates, F = _grow_templates(inputs, n, templates)
            t_eval += time.perf_counter() - te
            tr = time.perf_counter()
            if growing is not None:
                rank, tolerance, spectrum, scaled = growing.add(right, bottom), None, None, None
            else:
                rank, tolerance, spectrum, scaled = _rank_of(inputs, F, modular)
            t_rank += time.perf_counter() - tr
        except KeyboardInterrupt:
            raise MeasurementInterrupted(
                "measurement interrupted; the last finished step is kept", partial=last
            ) from None
        rows, cols = (n, n) if growing is not None else F.shape
        saturated = 0 <= rank < min(rows, cols)
        if inputs.sampler == "templates":
            saturated = templates_saturated(F, rank, history)
        history.append((rows, cols, rank))
        stop = " (below the sample size: stop)" if saturated else ""
        inputs.say(f"  samples {rows}x{cols}: rank {rank}{stop}")
        inputs.advance(max(rows, cols), f"rank {rank}")
        budget_hit = not saturated and max(rows, cols) >= inputs.max_samples
        minor = growing.minor() if growing is not None and (
            saturated or budget_hit or growing.incremental) else None
        last = Measurement(
            rank=int(rank), saturated=bool(saturated), certified=CERTIFIED[inputs.method],
            method=inputs.method, prime=inputs.domain.p if modular else None,
            samples=(int(rows), int(cols)), seconds=time.perf_counter() - inputs.t_start,
            seed=inputs.seed, config=inputs.config, partition=inputs.A, sampler=inputs.sampler,
            eval_seconds=t_eval, rank_seconds=t_rank, budget_hit=budget_hit,
            tolerance=tolerance, scaled_rank=scaled, history=list(history), spectrum=spectrum,
            strategy="direct", strategy_reason=reason,
            blocks=[{"degree": None, "rank": int(rank), "samples": [int(rows), int(cols)],
                     "saturated": bool(saturated)}],
            minors=None if minor is None else [
                {"degree": None, "rank": int(rank), "rows": minor[0], "cols": minor[1]}],
            draws=[list(d) for d in inputs.draws],
        )
        if saturated or budget_hit or rank < 0:
            return last
        n = inputs.next_size(n)


class Direct(Strategy):
    """The general strategy: one grid matrix (any method but symbolic, any sampler)."""

    name = "direct"
    order = 40
    growth = 1.5
    certifies = True

    def applies(self, req) -> str | None:
        if req.method not in ("modular", "float"):
            return f"needs method='modular' or 'float' (got method={req.method!r})"
        return None

    def budget_key(self, req) -> str:
        """The default budget's key: the method's."""
        return req.method

    def reason(self, req) -> str:
        if req.requested == self.name:
            return "requested"
        why = req.refusals.get("graded")
        return f"auto: {why}" if why else "auto: direct"

    def run(self, mp) -> Measurement:
        return run(mp.run, mp.reason)

    def ground(self, raw, ctx: GroundContext) -> Ground:
        """The complete grid over an alphabet (:func:`alphabet_ground`), else the random
        grid's ground."""
        if raw.sampler == "alphabet" and raw.saturated:
            return alphabet_ground(raw, ctx)
        return grid_ground(raw, ctx)


def alphabet_ground(raw, ctx: GroundContext) -> Ground:
    """The complete grid over an alphabet: nothing sampled, only the weights random (none
    random: given weights, no bound)."""
    if not ctx.random_weights:
        return given_weights("complete grid over the alphabet")
    net, threshold = ctx.net, ctx.threshold
    e = entry_degree(net, ctx.random_weights)
    # the rank over Q, R, is unknown but at most the grid's short side (not the GF(p)
    # rank, which may have fallen below R): the bound must not depend on the draw
    b = 1.0 if e is None else min(1.0, min(raw.samples) * e / raw.prime)
    cover = constants_cover(raw, ctx, [min(raw.samples)], points=_alphabet_bits(net))
    if cover is None:
        return uncovered(raw.prime, ctx.prime_drawn)
    b = min(1.0, b + cover[0])
    return Ground(b <= threshold, b, (
        f"complete grid over the alphabet (nothing sampled): its GF(p) rank is below the "
        f"rank over Q only if the random weights hit a minor's zero set (short side x "
        f"entry degree / p) or p divides what the constants and the alphabet produce: "
        f"probability <= {b:.1e}, covering the weights, {cover[1]}" + (
            "" if b <= threshold else f" > threshold {threshold}")))


def _alphabet_bits(net) -> int | None:
    """Bits of the largest letter's entry (integer alphabets), None for another alphabet."""
    try:
        letters = np.asarray(raw_values(net.alphabet(Symbolic())), dtype=object).ravel()
        vals = [Fraction(v) for v in letters]
    except Exception:  # noqa: BLE001 - no exact letters: not covered
        return None
    if any(v.denominator != 1 for v in vals):
        return None
    return max([abs(int(v)).bit_length() for v in vals] + [0])


STRATEGY = register(Direct())

"""What every measurement strategy receives (its run inputs) and shares (the sample
points; the ranks come from the inputs' :class:`~seprank.algebra.rank.RankEngine`).

A strategy is a function ``run(inputs) -> Measurement``; its :class:`RunInputs` hold
everything the planner decided once (network, weights, domain, sides, the grid
evaluator, budgets), so the strategy is the adaptive loop only. (A *plan* is the
planner's whole decision, :class:`seprank.engine.planner.MeasurementPlan`; its ``run``
is a RunInputs. The class was called ``Plan`` before: that name still answers,
deprecated.)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seprank.algebra.rank import RankEngine
from seprank.engine import bars
from seprank.engine import estimate as _estimate
from seprank.engine import sample_grid as _grid
from seprank.engine import weights as _weights
from seprank.nets.base import input_dim
from seprank.registry import deprecated, old_names


def say(progress, msg: str) -> None:
    """One progress line: on stderr if ``progress`` is True, to it if it is a callable.

    Parameters
    ----------
    progress : bool, callable or None
        True: print ``msg`` on stderr through tqdm (above a bar being drawn, e.g. a
        sweep's or this measurement's own); a callable: call it with ``msg``; else
        nothing.
    msg : str
        The line.
    """
    if progress is True:
        bars.write(msg)
    elif callable(progress):
        progress(msg)


#: The measurement's bar: the sample size against the budget, the time, the last rank
#: (no rate: the steps grow geometrically, so samples per second means little).
SAMPLE_BAR = "{desc}: samples {n_fmt} of at most {total_fmt} [{elapsed}{postfix}]"


@dataclass
class RunInputs:
    """Everything a strategy's run needs, decided before any grid is evaluated (a
    :class:`~seprank.engine.planner.MeasurementPlan`'s ``run``)."""

    net: Any
    params: Any
    domain: Any
    A: tuple[int, ...]
    B: tuple[int, ...]
    evaluate: Callable
    method: str
    sampler: str
    seed: int
    config: dict
    max_samples: int
    start: int
    growth: float
    rank_engine: str
    tol: float | None
    progress: Any
    pts_rng: np.random.Generator
    incremental: bool = True
    device: str = "cpu"
    #: The GF(p) rank engine, chosen once (None for float).
    engine: RankEngine | None = None
    #: From this sample size on, grow by ``fine_growth`` instead (None: never).
    fine_after: int | None = None
    fine_growth: float = 1.1
    t_start: float = field(default_factory=time.perf_counter)
    #: Every draw from ``pts_rng``, in order: [tag, count, positions] (tag "A" or "B" for
    #: grid rows or columns, "probe" for other points) or ["choice", m]. A certificate
    #: stores it, so that the sample points can be regenerated from the seed.
    draws: list = field(default_factory=list)
    #: The tqdm bar of the sample size (progress=True where one can be drawn); False once
    #: none can be (a log or a pipe: the lines only).
    bar: Any = field(default=None, repr=False)
    #: Catalecticant only: a dict to record each block's nonsingular minor in (a
    #: certificate is wanted; :mod:`seprank.engine.strategies.catalecticant_minors`).
    minors: dict | None = field(default=None, repr=False)

    def say(self, msg: str) -> None:
        """One progress line (:func:`say`)."""
        say(self.progress, msg)

    def advance(self, size: int, note: str = "") -> None:
        """Move the measurement's bar to sample size ``size`` of ``max_samples``.

        Only with ``progress=True`` and where a bar can be drawn (a terminal, a notebook:
        :func:`seprank.engine.bars.interactive`); elsewhere the lines of :meth:`say` are
        the progress.

        Parameters
        ----------
        size : int
            The sample size (grid side) just ranked.
        note : str
            Shown after the bar, e.g. ``rank 18``.
        """
        if self.progress is not True or self.bar is False:
            return
        if self.bar is None:
            self.bar = bars.make_bar(self.max_samples, "measure", unit="samples", leave=False,
                                     bar_format=SAMPLE_BAR) or False
            if self.bar is False:
                return
        self.bar.n = min(int(size), int(self.max_samples))
        self.bar.set_postfix_str(note, refresh=False)
        self.bar.refresh()

    def close_progress(self) -> None:
        """Close the measurement's bar, if one was drawn (the run ended, or stopped)."""
        if self.bar:
            self.bar.close()
        self.bar = None

    def next_size(self, n: int) -> int:
        g = self.growth
        if self.fine_after is not None and n >= self.fine_after:
            g = min(g, self.fine_growth)
        return min(self.max_samples, max(n + 1, int(math.ceil(n * g))))

    def new_points(self, count: int, side: tuple[int, ...], tag: str | None = None) -> np.ndarray:
        """``count`` random points on ``side``; ``tag`` (default "A" or "B" by the side) is
        recorded in :attr:`draws`."""
        if tag is None:
            tag = "A" if tuple(side) == tuple(self.A) else "B"
        self.draws.append([tag, int(count), len(side)])
        return _grid.random_points(self.domain, self.pts_rng, count, len(side),
                                   input_dim(self.net))


#: Default budget on the sample size (rows = columns): per matrix, so per block if graded.
DEFAULT_MAX_SAMPLES = {"modular": 6000, "float": 2500, "graded": 16000}
#: Bytes an idle worker already holds (interpreter, numpy, numba, seprank): a task's peak
#: memory estimate adds them.
BASE_BYTES = 200 * 2**20


def grid_cost(req, budget: int) -> _estimate.Cost:
    """The direct grid model (:func:`seprank.engine.estimate.estimate`) as a Cost, with its
    peak: the grid matrix at its expected final size, with room for the elimination's
    working copies."""
    fast = req.method == "modular" and req.options.use_kernel
    est = _estimate.estimate(req.net, req.A, req.B, method=req.method, max_samples=budget,
                             start=req.options.start, fast=fast, facts=req.facts)
    lg = est["log10_expected_rank"]
    n = budget if lg is None or lg >= math.log10(budget) else min(budget, int(1.25 * 10**lg) + 2)
    return grid_model_cost(est, 3 * n * n * 8)


def grid_model_cost(est: dict, matrix_bytes: int, budget_note: str | None = None):
    """A grid model's figures ``est`` as a Cost: its peak the weights, the points at the
    budget and ``matrix_bytes``; its note :func:`seprank.engine.estimate.describe`'s line
    (``budget_note``: the strategy's word on the budget)."""
    est["peak_bytes"] = int(BASE_BYTES + est["param_bytes"] + est["points_bytes_at_budget"]
                            + matrix_bytes)
    return _estimate.Cost(est["expected_seconds"], est["peak_bytes"],
                          _estimate.describe(est, budget_note), est)


def params_for(net, domain, seed: int, weights: dict | None):
    """The drawn weights (``net.init(default_rng(seed), domain)``), or the given ones
    (checked by the planner) in ``domain``."""
    if weights is not None:
        return _weights.weights_in(domain, weights)
    return net.init(np.random.default_rng(seed), domain)


#: The run inputs' name before "plan" meant the planner's decision only.
PLAN_CLASS = deprecated("seprank.engine.strategies.Plan", since="0.2.0",
                        instead="use seprank.engine.strategies.RunInputs (a plan is a "
                        "MeasurementPlan; its run is a RunInputs)")


#: ``Plan``, the run inputs' old name, with a DeprecationWarning.
__getattr__ = old_names(__name__, {"Plan": (RunInputs, PLAN_CLASS)})

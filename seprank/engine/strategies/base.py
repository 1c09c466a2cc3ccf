"""What every measurement strategy receives (a plan) and shares (the sample points; the
ranks come from the plan's :class:`~seprank.algebra.rank.RankEngine`).

A strategy is a function ``run(plan) -> Measurement``; the plan holds everything decided
once (network, weights, domain, sides, the grid evaluator, budgets), so the strategy is
the adaptive loop only.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seprank.algebra.rank import RankEngine
from seprank.engine import sample_grid as _grid
from seprank.nets.base import input_dim


def say(progress, msg: str) -> None:
    """One progress line: on stderr if ``progress`` is True, to it if it is a callable."""
    if progress is True:
        print(msg, file=sys.stderr, flush=True)
    elif callable(progress):
        progress(msg)


@dataclass
class Plan:
    """Everything a strategy needs, decided before any grid is evaluated."""

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

    def say(self, msg: str) -> None:
        say(self.progress, msg)

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

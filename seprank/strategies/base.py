"""What every measurement strategy receives (a plan) and shares (points, ranks, results).

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

from .. import grid as _grid


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
        from ..nets.base import input_dim

        if tag is None:
            tag = "A" if tuple(side) == tuple(self.A) else "B"
        self.draws.append([tag, int(count), len(side)])
        return _grid.random_points(self.domain, self.pts_rng, count, len(side),
                                   input_dim(self.net))


def _blas(p: int, engine: str, device: str) -> bool:
    from .. import modlu

    return (engine in ("auto", "blas") and device == "cpu" and p < modlu.MAX_PRIME
            and modlu.available())  # fmt: skip


def rank_residues(M: np.ndarray, p: int, engine: str, device: str = "cpu") -> int:
    """Exact GF(p) rank of a matrix of residues (float64 or int64); ``M`` is not modified."""
    from .. import modlu
    from ..rank import rank_modp

    if _blas(p, engine, device):
        return len(modlu.pivots(np.array(M, dtype=np.float64), p)[0])
    return rank_modp(np.asarray(M, dtype=np.int64), p, engine=engine, device=device)


def nonsingular_minor(M: np.ndarray, p: int) -> tuple[list[int], list[int]] | None:
    """(rows, cols) of a nonsingular rank x rank minor of the residue matrix ``M``."""
    from .. import modlu

    if M.size == 0:
        return [], []
    if p < modlu.MAX_PRIME and modlu.available():
        rows, cols = modlu.pivots(np.array(M, dtype=np.float64), p)
        return [int(i) for i in rows], [int(i) for i in cols]
    import flint

    def pivot_cols(X):
        R, r = flint.nmod_mat(X.shape[0], X.shape[1], [int(v) % p for v in X.ravel()],
                              int(p)).rref()  # fmt: skip
        out = []
        for i in range(r):
            out.append(next(j for j in range(X.shape[1]) if int(R[i, j]) != 0))
        return out

    M = np.asarray(M, dtype=np.int64)
    cols = pivot_cols(M)
    rows = pivot_cols(np.ascontiguousarray(M[:, cols].T))
    return rows, cols


class GrowingRank:
    """Exact GF(p) rank of a grid matrix that grows by new columns (for the rows so far)
    and new rows (for all columns), as the adaptive loop produces them.

    ``incremental=True`` extends one elimination (:class:`seprank.incremental.
    IncrementalRank`, BLAS engine on the CPU, p < 2**26); otherwise the whole matrix is
    kept and re-ranked from scratch at each step (any engine or device). Both are exact
    and agree.
    """

    def __init__(self, p: int, engine: str, incremental: bool, device: str = "cpu"):
        from ..incremental import IncrementalRank

        self.p, self.engine, self.device = p, engine, device
        self.inc = IncrementalRank(p) if (incremental and _blas(p, engine, device)) else None
        self.M = np.zeros((0, 0))
        self.rank = 0

    @property
    def incremental(self) -> bool:
        return self.inc is not None

    def add(self, right: np.ndarray, bottom: np.ndarray) -> int:
        """Append ``right`` (old rows x new columns) and ``bottom`` (new rows x all columns)."""
        if self.inc is not None:
            self.rank = self.inc.extend(right, bottom)
            return self.rank
        old_r, old_c = self.M.shape
        M = np.empty((old_r + bottom.shape[0], old_c + right.shape[1]))
        M[:old_r, :old_c] = self.M
        M[:old_r, old_c:] = right
        M[old_r:] = bottom
        self.M = M
        self.rank = rank_residues(M, self.p, self.engine, self.device)
        return self.rank

    def minor(self) -> tuple[list[int], list[int]] | None:
        """Row and column indices (of the grown matrix) of a nonsingular rank x rank minor,
        or None when none is available (a non-BLAS engine above 2**26)."""
        if self.inc is not None:
            r = self.inc.rank
            return ([int(i) for i in self.inc.row_ids[:r]],
                    [int(i) for i in self.inc.col_ids[:r]])  # fmt: skip
        if self.M is None:
            return None
        return nonsingular_minor(self.M, self.p)

    def drop(self) -> None:
        """Free the matrix (a saturated block is never extended again)."""
        self.inc, self.M = None, None

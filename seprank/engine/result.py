"""The result of a measurement: ``Measurement`` (what was measured, how, and what it certifies)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

CERTIFIED = {
    "modular": "lower bound (exact rank over GF(p) of an integer-weight network's grid)",
    "graded": "lower bound (sum over the A-degree blocks of exact ranks over GF(p) of an "
    "integer-weight network's component grids)",
    "catalecticant": "lower bound (sum over the blocks of exact ranks over GF(p) of the "
    "catalecticant matrices of an integer-weight network's structural polynomial F; each is "
    "at most that block's rank over Q, which is its separation rank)",
    "symbolic": "exact (rank over Q of the coefficient matrix of an integer-weight network)",
    "float": "none (floating-point estimate)",
}


@dataclass
class Measurement:
    """One measured separation rank and everything needed to reproduce it.

    ``strategy`` is ``direct`` (one grid matrix) or ``graded`` (one matrix per A-side
    degree of a homogeneous f; ``blocks`` lists each block's degree, rank, sample size
    and saturation, and ``graded`` the degree support and its Schwartz-Zippel bounds).
    The total is saturated only when every block is. ``catalecticant`` (no grid): ``blocks``
    lists each block's degree, rank, matrix shape, proved bound and time, and
    ``catalecticant`` F's size and the degree convention.

    Saturation (:mod:`seprank.engine.saturation`): ``sample_saturated`` says the rank stopped
    below the sample size (every block); ``saturated`` says more: that the rank equals the
    separation rank except with probability at most ``saturation_bound`` (a Schwartz-Zippel
    bound, or None where none applies), which must not exceed ``saturation_threshold``.
    ``saturation_reason`` says which ground the label rests on, or why it is refused.
    ``minors`` (one per block: degree, rank, rows, cols of a nonsingular minor) and
    ``draws`` (the sampling schedule) make a certificate
    (:mod:`seprank.verdicts.certificates`); they are
    left out of :meth:`to_dict` unless asked for.
    """

    rank: int
    saturated: bool
    certified: str
    method: str
    prime: int | None
    samples: tuple[int, int]
    seconds: float
    seed: int
    config: dict
    partition: tuple[int, ...]
    sampler: str = "random"
    eval_seconds: float = 0.0
    rank_seconds: float = 0.0
    budget_hit: bool = False
    tolerance: float | None = None
    scaled_rank: int | None = None
    history: list = field(default_factory=list)
    spectrum: np.ndarray | None = field(default=None, repr=False)
    strategy: str = "direct"
    strategy_reason: str = ""
    blocks: list = field(default_factory=list)
    graded: dict | None = None
    catalecticant: dict | None = None
    sample_saturated: bool = False
    saturation_bound: float | None = None
    saturation_threshold: float | None = None
    saturation_reason: str = ""
    minors: list | None = field(default=None, repr=False)
    draws: list = field(default_factory=list, repr=False)

    @property
    def kind(self) -> str:
        """'measured' always: this number comes from a computation, not a formula."""
        return "measured"

    def to_dict(self, spectrum: bool = False, minors: bool = False) -> dict:
        d = asdict(self)
        if not minors:
            d.pop("minors")
            d.pop("draws")
        d["samples"] = list(self.samples)
        d["partition"] = list(self.partition)
        d["kind"] = self.kind
        d["spectrum"] = (
            None if (self.spectrum is None or not spectrum) else [float(s) for s in self.spectrum]
        )
        return d

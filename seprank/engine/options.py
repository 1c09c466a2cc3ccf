"""``MeasureOptions``: every setting of one measurement, frozen and validated once.

:func:`seprank.measure` builds one from its keyword arguments (what a user sets); the
internal knobs (``start``, ``chunk``, ``use_kernel``) are set only here, for tests,
benchmarks and the certificate checker. A bad value raises ConfigError naming the field.

>>> MeasureOptions(method="float").method
'float'
>>> MeasureOptions(growth=1.0)
Traceback (most recent call last):
...
seprank.errors.ConfigError: growth=1.0 must be > 1
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields

import numpy as np

from seprank.algebra.rank import DEVICES, RANK_ENGINES
from seprank.engine import strategies
from seprank.engine.sample_grid import DEFAULT_CHUNK, check_matrix_fits
from seprank.engine.saturation import DEFAULT_THRESHOLD, check_threshold
from seprank.errors import ConfigError

METHODS = ("modular", "float", "symbolic", "auto")
SAMPLERS = ("auto", "random", "templates", "alphabet")


def _is_int(v) -> bool:
    return not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, np.integer))


def _is_real(v) -> bool:
    """A real number (numpy scalars included), not a bool."""
    return not isinstance(v, (bool, np.bool_)) and isinstance(v, numbers.Real)


def _choice(name: str, value, choices) -> None:
    if not isinstance(value, str) or value not in choices:
        raise ConfigError(f"{name}={value!r} must be one of {', '.join(choices)}")


@dataclass(frozen=True)
class MeasureOptions:
    """The settings of one measurement (see :func:`seprank.measure` for the user-facing
    ones: method, seed, max_samples, sampler, prime, tol, growth, rank_engine, strategy,
    incremental, device, saturation_threshold).

    Internal knobs, not in ``measure``'s signature:

    start : first sample size of the adaptive loop (rows = columns; default 16).
    chunk : network evaluations per vectorised batch of the generic grid path (bounds its
        memory; default ``seprank.engine.sample_grid.DEFAULT_CHUNK``).
    use_kernel : use the compiled GF(p) attention kernel where it applies (default True;
        False runs the generic numpy path, the kernel's reference).
    """

    method: str = "modular"
    seed: int = 0
    max_samples: int | None = None
    sampler: str = "auto"
    prime: int | None = None
    tol: float | None = None
    growth: float | None = None
    rank_engine: str = "auto"
    strategy: str = "auto"
    incremental: bool = True
    device: str = "cpu"
    saturation_threshold: float = DEFAULT_THRESHOLD
    start: int = 16
    chunk: int = DEFAULT_CHUNK
    use_kernel: bool = True

    def __post_init__(self):
        _choice("method", self.method, METHODS)
        _choice("strategy", self.strategy, strategies.names())
        _choice("sampler", self.sampler, SAMPLERS)
        _choice("rank_engine", self.rank_engine, RANK_ENGINES)
        _choice("device", self.device, DEVICES)
        if not _is_int(self.seed) or self.seed < 0:
            raise ConfigError(f"seed={self.seed!r} must be a non-negative integer")
        if self.max_samples is not None:
            if not _is_int(self.max_samples):
                raise ConfigError(f"max_samples={self.max_samples!r} must be an integer")
            if self.max_samples < 2:
                raise ConfigError(f"max_samples={self.max_samples} must be >= 2")
            check_matrix_fits(int(self.max_samples), int(self.max_samples))
        if self.growth is not None:
            if not _is_real(self.growth) or math.isnan(self.growth) or math.isinf(self.growth):
                raise ConfigError(f"growth={self.growth!r} must be a number > 1")
            if not self.growth > 1:
                raise ConfigError(f"growth={self.growth} must be > 1")
        if self.tol is not None and (not _is_real(self.tol) or not self.tol >= 0):
            raise ConfigError(f"tol={self.tol!r} must be a number >= 0")
        check_threshold(self.saturation_threshold)
        for name in ("incremental", "use_kernel"):  # bool, numpy bool, or 0/1 as before
            v = getattr(self, name)
            if not (isinstance(v, (bool, np.bool_)) or (_is_int(v) and v in (0, 1))):
                raise ConfigError(f"{name}={v!r} must be True or False")
            object.__setattr__(self, name, bool(v))
        if not _is_int(self.start) or self.start < 2:
            raise ConfigError(f"start={self.start!r} must be an integer >= 2")
        if not _is_int(self.chunk) or self.chunk < 1:
            raise ConfigError(f"chunk={self.chunk!r} must be an integer >= 1")

    @classmethod
    def user_fields(cls) -> tuple[str, ...]:
        """The fields :func:`seprank.measure` takes as keyword arguments."""
        return tuple(f.name for f in fields(cls) if f.name not in ("start", "chunk", "use_kernel"))

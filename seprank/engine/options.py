"""``MeasureOptions``: every setting of one measurement, frozen and validated once.

:func:`seprank.measure` builds one from its keyword arguments (what a user sets); the
internal knobs (``start``, ``chunk``, ``use_kernel``) are set only here, for tests,
benchmarks and the certificate checker. A bad value raises ConfigError naming the field
(DomainError for the prime), with the message of :func:`seprank.engine.parameters.validate`.

>>> MeasureOptions(method="float").method
'float'
>>> MeasureOptions(growth=1.0)
Traceback (most recent call last):
...
seprank.errors.ConfigError: growth=1.0 must be a finite number > 1
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from seprank.engine import parameters as _p
from seprank.engine.parameters import METHODS, SAMPLERS
from seprank.engine.sample_grid import check_matrix_fits

__all__ = ["METHODS", "SAMPLERS", "MeasureOptions"]


@dataclass(frozen=True)
class MeasureOptions:
    """The settings of one measurement (see :func:`seprank.measure` for the user-facing
    ones: method, seed, max_samples, sampler, prime, tol, growth, rank_engine, strategy,
    incremental, device, saturation_threshold). Each field is one row of
    :mod:`seprank.engine.parameters`: its default, its range and its refusal come from there.

    Internal knobs, not in ``measure``'s signature:

    start : first sample size of the adaptive loop (rows = columns; default 16).
    chunk : network evaluations per vectorised batch of the generic grid path (bounds its
        memory; default ``seprank.engine.sample_grid.DEFAULT_CHUNK``).
    use_kernel : use the compiled GF(p) attention kernel where it applies (default True;
        False runs the generic numpy path, the kernel's reference).
    """

    method: str = _p.default("method")
    seed: int = _p.default("seed")
    max_samples: int | None = _p.default("max_samples")
    sampler: str = _p.default("sampler")
    prime: int | None = _p.default("prime")
    tol: float | None = _p.default("tol")
    growth: float | None = _p.default("growth")
    rank_engine: str = _p.default("rank_engine")
    strategy: str = _p.default("strategy")
    incremental: bool = _p.default("incremental")
    device: str = _p.default("device")
    saturation_threshold: float = _p.default("saturation_threshold")
    start: int = _p.default("start")
    chunk: int = _p.default("chunk")
    use_kernel: bool = _p.default("use_kernel")

    def __post_init__(self):
        for f in fields(self):  # the table's check, in field order (flags become bools)
            object.__setattr__(self, f.name, _p.validate(f.name, getattr(self, f.name)))
        if self.max_samples is not None:
            check_matrix_fits(int(self.max_samples), int(self.max_samples))

    @classmethod
    def user_fields(cls) -> tuple[str, ...]:
        """The fields :func:`seprank.measure` takes as keyword arguments."""
        return tuple(f.name for f in fields(cls) if f.name not in ("start", "chunk", "use_kernel"))

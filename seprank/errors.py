"""The package's exception hierarchy: one base class, a subclass per kind of misuse.

Every message names the argument, what was expected and what came, in one line,
e.g. ``heads=3 must divide width=8``.
"""

from __future__ import annotations


class SeprankError(Exception):
    """Base class of every error seprank raises on purpose."""


class ConfigError(SeprankError, ValueError):
    """An architecture or run configuration is invalid (bad sizes, partitions...)."""


class DomainError(SeprankError, ValueError):
    """A number system is misused (non-prime modulus, float-only net in ModP...)."""


class SamplingError(SeprankError, ValueError):
    """A grid or sample request cannot be honoured (too big for memory, budget...)."""


class TooBigError(SamplingError):
    """A case is too large for the requested engine; the message gives the estimate."""


class RunAborted(SeprankError):
    """A run stopped mid-way for a reason outside its input.

    The CLI prints one line and exits 1; every task stored before is kept.
    """


class StoreWriteError(RunAborted):
    """The result store could not be written mid-run (disk full, permissions)."""


class OutputError(RunAborted):
    """An output file or stream could not be written (disk full, permissions, stdout).

    The CLI prints one line and exits 1; no partial file is left
    (:func:`seprank.paths.atomic_write`).
    """


class NoWorkerError(RunAborted):
    """A Dask cluster had no live worker for longer than the sweep's worker timeout."""


class EliminationError(SeprankError, ArithmeticError):
    """An exact elimination met a state its invariants exclude.

    A singular pivot block or a pivot row out of range: a bug or corrupted input, reported
    instead of a crash.
    """


class MeasurementInterrupted(SeprankError):
    """Raised on Ctrl-C during an adaptive measurement; carries the last finished step.

    Parameters
    ----------
    message : str
        The error message.
    partial : Measurement or None, default None
        The last completed (unsaturated) measurement, so nothing computed is lost; kept as
        the attribute ``partial``.
    """

    def __init__(self, message: str, partial=None):
        super().__init__(message)
        self.partial = partial


def heads_error(heads: int, width: int) -> ConfigError:
    """The refusal of a head count that does not divide the width, listing the ones that do.

    Parameters
    ----------
    heads : int
        The head count asked for.
    width : int
        The width it must divide.

    Returns
    -------
    ConfigError
        ``heads=2 must divide width=3 (the heads that do: 1, 3)``, to raise.
    """
    ok = ", ".join(str(h) for h in range(1, width + 1) if width % h == 0)
    return ConfigError(f"heads={heads} must divide width={width} (the heads that do: {ok})")

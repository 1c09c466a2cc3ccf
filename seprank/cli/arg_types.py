"""The command line's argument types, public: what scripts outside the package parse with.

The repository's scripts (``experiments/``) check their numbers and output folders with
these, so that a script and a ``seprank`` sub-command refuse the same input in the same
words (``--depth: must be >= 1, got 0``), exit 2. Each type is an ``argparse`` type: it
turns the text into the value or raises ``argparse.ArgumentTypeError`` with the reason.

- :func:`bounded_int` makes an integer type for a range; ``nonneg_int`` (>= 0),
  ``pos_int`` (>= 1), ``sample_count`` (a grid side, 2 to 10**7), ``thread_count`` (1 to
  1024), ``worker_count`` (1 to 4096) are the ones the sub-commands use;
- ``prime_arg``: a prime within the modulus limits; ``real_arg(lo, hi, lo_open=False)``
  makes a finite-real type for [lo, hi] (or (lo, hi]);
- :func:`check_out_dir`: an output folder, made if needed and checked writable;
- :func:`atomic_write`, :func:`write_text`: the one writer of every file seprank writes (a
  temporary file beside it, then an atomic rename; never through a link).
"""

from __future__ import annotations

from seprank.cli._common import (
    MAX_INT,
    _bounded_int,
    nonneg_int,
    pos_int,
    prime_arg,
    real_arg,
    sample_count,
    thread_count,
    worker_count,
)
from seprank.paths import atomic_write, check_out_dir, write_text

__all__ = ["MAX_INT", "atomic_write", "bounded_int", "check_out_dir", "nonneg_int", "pos_int",
           "prime_arg", "real_arg", "sample_count", "thread_count", "worker_count", "write_text"]


def bounded_int(lo: int, hi: int = MAX_INT):
    """An argument type: an integer in [lo, hi], written in at most 19 digits.

    Parameters
    ----------
    lo : int
        The least value accepted.
    hi : int, default MAX_INT
        The largest value accepted (at most ``MAX_INT``, what the result store and
        numpy's int64 hold).

    Returns
    -------
    callable
        ``parse(text) -> int``; any other text raises ``argparse.ArgumentTypeError``
        (``must be >= 1, got 0``, ``expected an integer, got 'x'``).
    """
    return _bounded_int(lo, hi)

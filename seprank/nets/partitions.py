"""Partitions of the positions: the A side (validated) and the default split."""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable, Sized

import numpy as np

from seprank.errors import ConfigError

#: The most positions a partition (either side) may list: the CLI's limit too; a larger
#: sequence is refused before a side is listed (``seq_len=2**62``).
MAX_POSITIONS = 10**6


def _size(name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise ConfigError(f"{name}={v!r:.40} must be an integer")
    return int(v)


def check_partition(partition, seq_len: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Validate a partition (the A side) and return (A, B) as sorted tuples.

    Sizes are checked before anything is listed: a sequence of more than MAX_POSITIONS
    positions, or a partition longer than the sequence (``range(10**9)``), is refused at
    once. Each position must be an integral number (a numpy integer is one); a bool, a
    float (``[0.5]``) or a string (``"01"``) is refused, never coerced.
    """
    N = _size("seq_len", seq_len)
    if N > MAX_POSITIONS:
        raise ConfigError(f"seq_len={N} is over {MAX_POSITIONS:,} positions: a partition's "
                          "sides are listed, so longer sequences are refused")
    if isinstance(partition, (str, bytes)) or not isinstance(partition, Iterable):
        raise ConfigError(f"partition={partition!r:.60} must be a list of positions "
                          "(integers)")
    n = len(partition) if isinstance(partition, Sized) else None
    if n is not None and n > N:
        raise ConfigError(f"partition has {n:,} positions, more than seq_len={N}")
    A = []
    for a in itertools.islice(partition, N + 1):
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Integral):
            raise ConfigError(f"partition={_show(partition)} must be a list of positions "
                              f"(integers), got {a!r:.20} ({type(a).__name__})")
        A.append(int(a))
    if len(A) > N:
        raise ConfigError(f"partition has more than seq_len={N} positions")
    if not A:
        raise ConfigError("partition=[] is empty: the A side needs at least one position")
    if len(set(A)) != len(A):
        raise ConfigError(f"partition={_show(A)} repeats a position")
    bad = [a for a in A if not 0 <= a < N]
    if bad:
        raise ConfigError(f"partition={_show(A)} has positions out of range 0..{N - 1}: "
                          f"{_show(bad)}")
    in_a = set(A)
    B = [n for n in range(N) if n not in in_a]
    if not B:
        raise ConfigError(f"partition={_show(A)} takes every position: the B side would be "
                          "empty")
    return tuple(sorted(A)), tuple(B)


def _show(v) -> str:
    text = repr(list(v) if isinstance(v, (list, tuple)) else v)
    return text if len(text) <= 80 else text[:77] + "..."


def default_partition(seq_len: int) -> tuple[int, ...]:
    """The first N//2 positions (contains the default query position 0)."""
    N = _size("seq_len", seq_len)
    if N > MAX_POSITIONS:
        raise ConfigError(f"seq_len={N} is over {MAX_POSITIONS:,} positions: its default "
                          "partition (the first half) is not listed")
    return tuple(range(N // 2))

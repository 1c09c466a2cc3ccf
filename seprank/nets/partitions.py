"""Partitions of the positions: the A side (validated) and the default split."""

from __future__ import annotations

from seprank.errors import ConfigError


def check_partition(partition, seq_len: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Validate a partition (the A side) and return (A, B) as sorted tuples."""
    try:
        A = [int(a) for a in partition]
    except (TypeError, ValueError):
        raise ConfigError(f"partition={partition!r} must be a list of positions") from None
    if not A:
        raise ConfigError("partition=[] is empty: the A side needs at least one position")
    if len(set(A)) != len(A):
        raise ConfigError(f"partition={A} repeats a position")
    bad = [a for a in A if not 0 <= a < seq_len]
    if bad:
        raise ConfigError(f"partition={A} has positions out of range 0..{seq_len - 1}: {bad}")
    in_a = set(A)
    B = [n for n in range(seq_len) if n not in in_a]
    if not B:
        raise ConfigError(f"partition={A} takes every position: the B side would be empty")
    return tuple(sorted(A)), tuple(B)


def default_partition(seq_len: int) -> tuple[int, ...]:
    """The first N//2 positions (contains the default query position 0)."""
    return tuple(range(seq_len // 2))

"""What the sequence mixers (linear attention, retention, gla, s4, s6, hyena, mixer) share:
the validation of the read-out (position and coordinate) and the degree of a causal
recurrence, position by position.

Every mixer reads one scalar: coordinate ``output_coord`` of the last layer's output at
position ``query_position`` (None: the last position for a causal model, 0 otherwise).
"""

from __future__ import annotations

from dataclasses import field

from seprank.errors import ConfigError
from seprank.nets.base import check_int


def seq_len_field():
    """The ``seq_len`` field of a mixer: positions N >= 2, default 4."""
    return field(default=4, metadata={"help": "positions N >= 2"})


def query_field(default_position: str = "last"):
    """The ``query_position`` field: None reads ``default_position`` (said in the help)."""
    return field(default=None, metadata={"help": f"read-out position (none: {default_position})"})


def coord_field():
    """The ``output_coord`` field: the coordinate read, default 0."""
    return field(default=0, metadata={"help": "read-out coordinate"})


def check_readout(net, causal: bool) -> int:
    """Validate ``net.query_position`` and ``net.output_coord``; the query position."""
    q = net.query_position
    if q is not None:
        check_int("query_position", q, 0)
        if q >= net.seq_len:
            raise ConfigError(f"query_position={q} must be < seq_len={net.seq_len}")
    check_int("output_coord", net.output_coord, 0)
    if net.output_coord >= net.width:
        raise ConfigError(f"output_coord={net.output_coord} must be < width={net.width}")
    if q is None:
        return net.seq_len - 1 if causal else 0
    return int(q)


class Readout:
    """Mixin: ``query``, the position read (validated): the last position of a causal
    model (``causal`` true, the default), else 0 unless ``query_position`` says."""

    causal = True

    @property
    def query(self) -> int:
        return check_readout(self, bool(self.causal))


class GatedRecurrence(Readout):
    """Mixin: the degree of a gated causal recurrence (:func:`gated_degrees`, one read-out
    and one gate linear form, ``WRITE`` linear forms in the written term); not
    homogeneous (the key j carries i - j gate factors)."""

    WRITE = 2
    homogeneous = False

    def position_degrees(self) -> list[int]:
        """The top degree of the last layer's output at positions 0..query."""
        deg = [1] * (self.query + 1)
        for _ in range(self.depth):
            deg = gated_degrees(deg, read=1, gate=1, write=self.WRITE)
        return deg

    @property
    def degree(self) -> int:
        """The top degree at the query (the j = 0 key carries i gate factors)."""
        return self.position_degrees()[self.query]


def check_choice(name: str, value, choices) -> None:
    """ConfigError unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ConfigError(f"{name}={value!r} must be one of {', '.join(map(str, choices))}")


def gated_degrees(deg: list[int], read: int, gate: int, write: int) -> list[int]:
    """Top degree at every position i of a gated causal recurrence's output
    ``out_i = r_i . sum_{j<=i} (prod_{j<t<=i} g_t) w_j`` whose read-out r_i, gate g_t and
    written term w_j are products of ``read``, ``gate`` and ``write`` linear forms of the
    layer input (degrees ``deg`` per position): max over j of
    read*deg[i] + write*deg[j] + gate*sum_{j<t<=i} deg[t]."""
    out = []
    for i in range(len(deg)):
        best = max(write * deg[j] + gate * sum(deg[j + 1 : i + 1]) for j in range(i + 1))
        out.append(read * deg[i] + best)
    return out


def prefix_without_query(partition, seq_len: int, query: int) -> bool:
    """Whether one side of the partition is a prefix {0..k-1} not containing the query."""
    A = tuple(sorted(set(partition)))
    B = tuple(n for n in range(seq_len) if n not in A)
    return any(side == tuple(range(len(side))) and query not in side for side in (A, B))

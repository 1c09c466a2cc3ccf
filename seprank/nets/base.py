"""What an architecture is, for seprank: a frozen config with ``init`` and ``apply``.

Bring your own architecture by writing a frozen dataclass with

- ``seq_len`` and ``width`` attributes (inputs are ``seq_len`` vectors of ``width``),
- ``query_position`` (int) if the function is read at one position (used for bounds
  and for which side of a partition the query sits on; may be 0),
- ``init(rng, domain) -> params`` drawing weights with ``domain.random``,
- ``apply(params, X, domain) -> f`` mapping a batch ``X`` of shape (B, seq_len, width)
  to the scalar outputs of shape (B,), using only the domain's operations.

Then :func:`seprank.measure` measures its separation rank in every domain.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Architecture(Protocol):
    seq_len: int
    width: int

    def init(self, rng: np.random.Generator, domain) -> Any: ...

    def apply(self, params: Any, X: np.ndarray, domain) -> np.ndarray: ...


def config_of(net) -> dict:
    """A JSON-friendly dict of an architecture's config (its dataclass fields)."""
    from dataclasses import asdict, is_dataclass

    d = asdict(net) if is_dataclass(net) else dict(vars(net))
    d["architecture"] = type(net).__name__
    return d

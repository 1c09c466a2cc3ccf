"""After a rank is measured: the upper bounds it is compared with, for its label only.

The rank is measured without them (a measurement path never calls the formula it is
checked against); afterwards :func:`seprank.engine.measure.execute` puts beside it:

- each block's proved bound (:func:`seprank.theory.architecture_bounds.block_bounds`),
  for a measurement whose blocks are those of the paper's structural polynomial (a block
  with an ``other_s_degree``): the saturation bound of such a block reads it;
- the architecture's own bound for the partition
  (:func:`seprank.theory.architecture_bounds.bound_of`), recorded in ``Measurement.bound``
  with its status, so that a certified lower bound that meets it is labelled ``exact,
  proved`` (a proof in proofs/) or ``exact, given ...`` (a bound seprank did not prove),
  exactly as ``seprank certify`` says, and one above it says the bound is false.
"""

from __future__ import annotations

from seprank.errors import SeprankError
from seprank.labels import ARCHITECTURE
from seprank.nets.bound import Bound
from seprank.theory.architecture_bounds import block_bounds, bound_of


def with_block_bounds(blocks: list, net, partition) -> list:
    """The blocks with each structural polynomial block's proved bound (``bound``, None:
    not known) placed before its ``seconds`` (the order the blocks always had); other blocks
    are returned unchanged.

    Parameters
    ----------
    blocks : list of dict
        A raw measurement's blocks.
    net : Architecture
        The network.
    partition : tuple of int
        The A side.

    Returns
    -------
    list of dict
        New block dicts where a bound was placed.
    """
    if not any("other_s_degree" in b for b in blocks):
        return blocks
    try:
        per = block_bounds(net, partition)
    except SeprankError:  # too costly to compute: the blocks are compared with nothing
        per = {}
    return [_with_bound(b, per.get(b["other_s_degree"])) if "other_s_degree" in b
            else b for b in blocks]


def _with_bound(block: dict, bound) -> dict:
    if "bound" in block or "seconds" not in block:
        return {**block, "bound": bound}
    out = {}
    for k, v in block.items():
        if k == "seconds":
            out["bound"] = bound
        out[k] = v
    return out


def compared_bound(net, partition, method: str) -> Bound | None:
    """The architecture's bound for a modular measurement, ``Measurement.bound`` (None for
    the other methods, or where there is none).

    Parameters
    ----------
    net : Architecture
        The network.
    partition : tuple of int
        The A side.
    method : str
        The measurement's method.

    Returns
    -------
    Bound or None
        The architecture's Bound (:func:`~seprank.theory.architecture_bounds.bound_of`); or
        one of value None whose source says why none was compared (its own
        ``upper_bound`` is broken).
    """
    if method != "modular":
        return None
    try:
        b = bound_of(net, partition)
    except SeprankError as exc:  # the architecture's own upper_bound is broken: say so
        return Bound(None, f"no bound compared: {exc}", ARCHITECTURE)
    except Exception as exc:  # noqa: BLE001 - a user's upper_bound raising: the rank stands
        return Bound(None, f"no bound compared: {type(net).__name__}.upper_bound raised "
                     f"{type(exc).__name__}: {exc}", ARCHITECTURE)
    return None if b is None or b.value is None else b

"""After a rank is measured: the upper bounds it is compared with, for its label only.

The rank is measured without them (a measurement path never calls the formula it is
checked against); afterwards the label step (:func:`label`) puts beside it:

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

from seprank.engine import saturation
from seprank.errors import SeprankError
from seprank.theory.architecture_bounds import block_bounds, bound_of


def label(m, net, threshold: float, random_weights: bool, prime_drawn: bool = False,
          weights: dict | None = None):
    """The whole label step of a finished measurement: the blocks' proved bounds
    (:func:`attach_blocks`), saturation (:func:`seprank.engine.saturation.label`), then
    the bound (:func:`attach`). Returns m."""
    attach_blocks(m, net)
    saturation.label(m, net, threshold, random_weights=random_weights,
                     prime_drawn=prime_drawn, weights=weights)
    attach(m, net)
    return m


def attach_blocks(m, net) -> None:
    """Set ``bound`` (None: not known) in each block of the structural polynomial, placed
    before its ``seconds`` (the order the blocks always had); other blocks are unchanged."""
    if not any("other_s_degree" in b for b in m.blocks):
        return
    try:
        per = block_bounds(net, m.partition)
    except SeprankError:  # too costly to compute: the blocks are compared with nothing
        per = {}
    m.blocks = [_with_bound(b, per.get(b["other_s_degree"])) if "other_s_degree" in b
                else b for b in m.blocks]  # fmt: skip


def _with_bound(block: dict, bound) -> dict:
    if "bound" in block or "seconds" not in block:
        return {**block, "bound": bound}
    out = {}
    for k, v in block.items():
        if k == "seconds":
            out["bound"] = bound
        out[k] = v
    return out


def attach(m, net) -> None:
    """Set ``m.bound`` for a modular measurement (unchanged for the other methods)."""
    if m.method != "modular":
        return
    try:
        b = bound_of(net, m.partition)
    except SeprankError as exc:  # the architecture's own upper_bound is broken: say so
        m.bound = {"upper": None, "note": f"no bound compared: {exc}"}
        return
    except Exception as exc:  # noqa: BLE001 - a user's upper_bound raising: the rank stands
        m.bound = {"upper": None, "note": f"no bound compared: {type(net).__name__}."
                   f"upper_bound raised {type(exc).__name__}: {exc}"}  # fmt: skip
        return
    if b is None or b.value is None:
        return
    m.bound = {"upper": b.value, "status": b.status, "source": b.source,
               "kind": b.kind or None}  # fmt: skip

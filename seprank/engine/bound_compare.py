"""After a GF(p) rank is measured: the architecture's upper bound, for its label only.

The rank is measured without it (a measurement path never calls the formula it is checked
against); afterwards the bound seprank knows for the network and partition is recorded in
``Measurement.bound`` with its status, so that a certified lower bound that meets it is
labelled ``exact, proved`` (a proof in proofs/) or ``exact, given ...`` (a bound seprank
did not prove), exactly as ``seprank certify`` says, and one above it says the bound is
false.
"""

from __future__ import annotations

from seprank import labels
from seprank.engine import saturation
from seprank.errors import SeprankError
from seprank.theory.architecture_bounds import architecture_bound


def label(m, net, threshold: float, random_weights: bool):
    """The whole label step of a finished measurement: saturation
    (:func:`seprank.engine.saturation.label`), then the bound (:func:`attach`). Returns m."""
    saturation.label(m, net, threshold, random_weights=random_weights)
    attach(m, net)
    return m


def attach(m, net) -> None:
    """Set ``m.bound`` for a modular measurement (unchanged for the other methods)."""
    if m.method != "modular":
        return
    try:
        b = architecture_bound(net, m.partition)
    except SeprankError as exc:  # the architecture's own upper_bound is broken: say so
        m.bound = {"upper": None, "note": f"no bound compared: {exc}"}
        return
    except Exception as exc:  # noqa: BLE001 - a user's upper_bound raising: the rank stands
        m.bound = {"upper": None, "note": f"no bound compared: {type(net).__name__}."
                   f"upper_bound raised {type(exc).__name__}: {exc}"}  # fmt: skip
        return
    if b is None or b.get("upper") is None:
        return
    m.bound = {"upper": int(b["upper"]), "status": labels.bound_status(b.get("tag")),
               "source": b.get("source"), "kind": b.get("kind")}  # fmt: skip

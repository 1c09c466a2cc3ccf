"""How often the call path crosses back up the layers of docs/architecture.md while the
planner asks a strategy its cost (at most 4 times, each strategy).

The path is the sequence of seprank modules entered, in call order (``sys.setprofile``'s
``call`` events; modules outside seprank are skipped), each mapped to its layer, repeats
of one layer merged, starting at the planner's (engine). A crossing back up is a step to
a higher layer than the one before (theory -> engine, nets -> theory, errors -> engine...):
a lower layer's answer handed back to a higher one that then goes on. A cost model that
asks theory/ one fact at a time crosses back once per fact; one that reads
``Request.facts`` (asked once per request) does not.

``python tests/engine/test_call_crossings.py`` prints each strategy's numbers.
"""

from __future__ import annotations

import sys

import pytest

from seprank.engine import planner
from seprank.engine.options import MeasureOptions
from seprank.engine.strategies import get
from seprank.nets import MPS, LinearSelfAttention

#: docs/architecture.md's layers, top first (one row: siblings of one layer).
LAYERS = (("cli",), ("figures",), ("studies",), ("sweeps",), ("verdicts",), ("engine",),
          ("theory",), ("nets", "algebra"), ("paths", "labels", "registry"), ("errors",))
ENGINE = 5
#: The most crossings back up a strategy's cost may take (issue 43).
MOST = 4

#: (strategy, network, partition, options) where the planner asks that strategy its cost.
CASES = {
    "catalecticant": (LinearSelfAttention(depth=2, width=2, seq_len=4), (0, 1), {}),
    "graded": (LinearSelfAttention(depth=2, width=3, seq_len=4), (0, 1), {}),
    "direct": (MPS(seq_len=4, phys_dim=2, bond=2), (0, 1), {}),
    "coefficients": (LinearSelfAttention(depth=1, width=2, seq_len=4), (0, 1),
                     {"method": "symbolic"}),
    "expand": (LinearSelfAttention(depth=1, width=2, seq_len=4), (0, 1),
               {"strategy": "expand"}),
    "sketch": (LinearSelfAttention(depth=2, width=2, seq_len=4), (0, 1),
               {"strategy": "sketch"}),
}


def layer(module: str) -> int | None:
    """The layer of a seprank module (None: not in a layer, or not seprank's)."""
    parts = module.split(".")
    if parts[0] != "seprank" or len(parts) < 2:
        return None
    return next((i for i, names in enumerate(LAYERS) if parts[1] in names), None)


def traced(fn, *args, **kw) -> tuple[object, list[int]]:
    """(fn's result, the layers its call path enters, merged, from the planner's)."""
    path = [ENGINE]

    def profile(frame, event, arg):
        if event == "call":
            at = layer(frame.f_globals.get("__name__", ""))
            if at is not None and at != path[-1]:
                path.append(at)

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        out = fn(*args, **kw)
    finally:
        sys.setprofile(old)
    return out, path


def crossings(path: list[int]) -> int:
    """Steps of the path to a higher layer than the one before."""
    return sum(1 for a, b in zip(path, path[1:]) if b < a)


def cost_path(name: str) -> list[int]:
    """The layers entered while the planner asks strategy ``name`` its cost, for its case
    (the request built first, as the planner builds it; its facts asked by the cost)."""
    net, A, kw = CASES[name]
    req = planner._request(net, A, MeasureOptions(**kw), None)
    req.facts.gather()  # as the planner does, once per request, before any cost
    s = get(name)
    assert s.applies(req) is None, s.applies(req)
    _, path = traced(s.cost, req, planner._budget(s, req))
    return path


def gather_path(name: str) -> list[int]:
    """The layers entered while the planner gathers the request's facts (once per
    request, shared by every strategy it asks)."""
    net, A, kw = CASES[name]
    req = planner._request(net, A, MeasureOptions(**kw), None)
    return traced(req.facts.gather)[1]


def plan_path(name: str) -> list[int]:
    """The layers entered by the whole plan (validation, every strategy asked, the
    weights and the evaluator), for comparison."""
    net, A, kw = CASES[name]
    return traced(planner.plan, net, A, MeasureOptions(**kw))[1]


def names(path: list[int]) -> str:
    return " > ".join("|".join(LAYERS[i]) for i in path)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_strategys_cost_crosses_back_up_at_most_four_times(name):
    path = cost_path(name)
    assert crossings(path) <= MOST, names(path)


def test_the_count_sees_a_crossing():
    assert crossings([ENGINE, 6, 7, 6, 5, 6]) == 2  # theory > nets > theory > engine > theory
    assert layer("seprank.theory.bounds") == 6 and layer("seprank.algebra.rank") == 7
    assert layer("numpy.linalg") is None and layer("seprank") is None


if __name__ == "__main__":
    for n in sorted(CASES):
        p = cost_path(n)
        print(f"{n:14s} cost: {crossings(p)} crossings back up ({names(p)}); the request's "
              f"facts: {crossings(gather_path(n))}; the whole plan: {crossings(plan_path(n))}")

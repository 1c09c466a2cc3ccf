"""theory/regimes.py and theory/guidelines.py at their limits: defaults used at the
depth where they bite, thresholds met exactly, and where each search stops. Each test
kills mutants that the mutation run found surviving (docs/dev/mutation.md)."""

import inspect
import math
import typing

import pytest

from seprank.theory import guidelines as gl
from seprank.theory import regimes as rg


@pytest.mark.parametrize("module", [rg, gl])
def test_public_annotations_resolve(module):
    """The annotations (strings under ``from __future__ import annotations``) evaluate:
    typing.get_type_hints is what documentation tools and runtime checkers call."""
    funcs = [f for name, f in inspect.getmembers(module, inspect.isfunction)
             if f.__module__ == module.__name__]
    assert len(funcs) >= 8
    for f in funcs:
        typing.get_type_hints(f)


# ---------------------------------------------------------------------------- regimes
def _first_ratio_below_2(width: int, max_depth: int) -> int | None:
    return next((L for L in range(1, max_depth + 1)
                 if rg.formula_growth_ratio(L, width) < rg.GROWTH_THRESHOLD), None)


def test_formula_transition_default_search_is_40_layers():
    """Widths near 3**20 (d = 4e9 and 8e9) whose ratio first drops below 2 at L = 40 and
    at L = 41: the default search (40 layers) finds the first and not the second."""
    w40, w41 = 4 * 10**9, 8 * 10**9
    assert _first_ratio_below_2(w40, 45) == 40 and _first_ratio_below_2(w41, 45) == 41
    r39, r40 = rg.formula_growth_ratio(39, w40), rg.formula_growth_ratio(40, w40)
    assert rg.formula_transition_depth(w40) == pytest.approx(39 + (r39 - 2) / (r39 - r40))
    assert rg.formula_transition_depth(w41) is None
    assert 40 < rg.formula_transition_depth(w41, max_depth=41) < 41


def _spy(monkeypatch, name):
    """Record the arguments of every call to ``regimes.<name>`` (the real one still runs)."""
    calls, real = [], getattr(rg, name)

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(rg, name, spy)
    return calls


@pytest.mark.parametrize("width, last", [(1000, 12), (1, 2)])
def test_formula_transition_search_stops_at_the_first_ratio_below_2(monkeypatch, width, last):
    """The ratios are computed for L = 1 up to the first one below 2 and no further,
    however deep the search may go (at width 1000 that is L = 12, at width 1 L = 2)."""
    calls = _spy(monkeypatch, "formula_growth_ratio")
    t = rg.formula_transition_depth(width, max_depth=100)
    assert [args[0] for args, _ in calls] == list(range(1, last + 1))
    assert last - 1 <= t < last


def test_expressivity_search_stops_after_four_inefficient_depths(monkeypatch):
    """At 1e12 the depth-efficient depths are 1..19; the search probes L = 1..23 (four
    depth-inefficient depths in a row) at each depth's own width, searched as deep as
    the depth search goes, and stops."""
    calls = _spy(monkeypatch, "formula_transition_depth")
    best = rg.expressivity_optimal_depth(1e12)
    assert best == 19
    widths = [args[0] for args, _ in calls]
    assert widths == [rg.width_at_budget(1e12, L) for L in range(1, best + 5)]
    assert {kwargs["max_depth"] for _, kwargs in calls} == {400}
    for L in range(best + 1, best + 5):  # the four depths past the answer: inefficient
        t = rg.formula_transition_depth(rg.width_at_budget(1e12, L))
        assert t is not None and t < L


def test_expressivity_depth_cap_is_400(monkeypatch):
    """Every width depth-efficient at every depth (its transition beyond the search): the
    answer is the cap, 400 by default."""
    monkeypatch.setattr(rg, "formula_transition_depth", lambda width, max_depth=40: None)
    assert rg.expressivity_optimal_depth(1e12) == 400
    assert rg.expressivity_optimal_depth(1e12, max_depth=7) == 7


def test_a_depth_exactly_at_its_transition_is_depth_efficient(monkeypatch):
    """Depth-efficient means L <= transition depth: with every width's transition exactly
    5 the answer is 5 (a stand-in transition; the formula's are never whole numbers)."""
    monkeypatch.setattr(rg, "formula_transition_depth", lambda width, max_depth=40: 5.0)
    assert rg.expressivity_optimal_depth(1e12) == 5


def test_a_ratio_of_exactly_2_does_not_end_the_transition_search(monkeypatch):
    """A step with ratio exactly 2 is depth-efficient (>= 2), so the search goes on to the
    first ratio below 2 and interpolates from the 2 (stand-in ratios)."""
    ratios = {1: 3.0, 2: 2.0, 3: 1.0}
    monkeypatch.setattr(rg, "formula_growth_ratio", lambda L, width: ratios.get(L, 0.5))
    assert rg.formula_transition_depth(10) == 2.0


def test_expressivity_without_depths_to_search_is_one_layer():
    """max_depth 0: nothing searched, the shallowest network (one layer)."""
    assert rg.expressivity_optimal_depth(1e12, max_depth=0) == 1


@pytest.mark.parametrize("max_depth", [1, 400])
def test_expressivity_refuses_a_negative_budget(max_depth):
    """No width spends a negative budget: refused (ValueError) from the first depth on."""
    with pytest.raises(ValueError):
        rg.expressivity_optimal_depth(-1.0, max_depth=max_depth)


def test_expressivity_optimal_depth_past_the_default_transition_search():
    """At 1e22 the widths of L = 1..5 (2.9e10 down to 1.3e10) keep the ratio >= 2 beyond 40
    layers, where formula_transition_depth's default search ends: they are depth-efficient
    (before the fix they counted as not, and the answer was 1). The answer is the last
    depth-efficient depth, the next one is not."""
    budget = 1e22
    assert rg.formula_transition_depth(rg.width_at_budget(budget, 5)) is None
    L = rg.expressivity_optimal_depth(budget)
    t = {k: rg.formula_transition_depth(rg.width_at_budget(budget, k), max_depth=400)
         for k in (L, L + 1)}
    assert L > 5 and L <= t[L] and t[L + 1] < L + 1


# ------------------------------------------------------------------------- guidelines
def test_fit_root_exactly_at_the_brackets_low_end():
    """Budgets whose g is exactly 0 at the bracket's low end L = 1e-9 (ln budget equals
    ln(12e-9) + 2 ln d(1e-9) to the last bit; a handful of floats do): that end is the
    root, not "below the fit's range"."""
    lo = 1e-9
    c = math.log(12 * lo) + 2 * (gl.FIT_INTERCEPT + gl.FIT_SLOPE * lo)
    b = math.exp(c)
    for _ in range(40):
        b = math.nextafter(b, 0)
    found = []
    for _ in range(80):
        if math.log(b) == c:
            found.append(b)
        b = math.nextafter(b, 1)
    assert found  # math.log is faithful: about 10 of these floats map onto c exactly
    for b in found[:2]:
        r = gl.fit_optimal_shape(b)
        assert r["depth"] == lo and "note" not in r and r["width"] == gl.fit_width(lo)


def _shape_at_exact_ratio(factor):
    """(depth, width) with 12 L d**2 equal to a round budget P and depth / fit depth(P)
    equal to ``factor`` to the last bit: L = fit depth * factor, and d among the floats
    next to sqrt(P / 12 L) (found for some P in a few tries)."""
    for P in [k * 1e9 for k in range(1, 40)]:
        L = gl.fit_optimal_shape(P)["depth"] * factor
        w = math.sqrt(P / (12 * L))
        for _ in range(8):
            w = math.nextafter(w, 0)
        for _ in range(17):
            if gl.params(L, w) == P and L / gl.fit_optimal_shape(P)["depth"] == factor:
                return L, w
            w = math.nextafter(w, math.inf)
    raise AssertionError(f"no shape with ratio exactly {factor}")


@pytest.mark.parametrize("factor", [1.15, 0.87])
def test_verdict_at_exactly_the_thresholds_is_near_the_fit(factor):
    """A shape is "too deep" past depth / fit depth 1.15, "too shallow" below 0.87: exactly at
    either threshold it is still on the fit."""
    L, w = _shape_at_exact_ratio(factor)
    v = gl.verdict(L, w)
    assert L / v["fit_depth_at_params"] == factor and v["verdict"] == "near the fit"

"""The paper's depth regimes, and where they are seen in the numbers.

- Paper's rule: depth-efficient while L < log_3(d_x), depth-inefficient beyond.
- Growth rule: the ratio log sep(L+1) / log sep(L) is about 3 in the depth-efficient
  regime and tends to (L+1)/L in the depth-inefficient one; we call a step
  depth-efficient when the ratio is >= ``GROWTH_THRESHOLD`` = 2 (between the two).
- The transition depth for a width is where the ratio crosses 2, linearly interpolated
  between integer depths. For H = 1 it is computed from the block formula (measured to
  be exact for H = 1 in every case tried); for H > 1 from measured ranks.

>>> paper_regime(1, 8)
'depth-efficient'
>>> round(paper_transition_depth(9), 6)
2.0
"""

from __future__ import annotations

import math

from seprank.theory.bounds import generic_block_bound_log10

GROWTH_THRESHOLD = 2.0


def paper_transition_depth(width: float) -> float:
    """The paper's transition depth log_3(d_x)."""
    return math.log(width, 3)


def doubled_transition_depth(width: float) -> float:
    """2 log_3(d_x): where 3**L ~ d_x**2 (our analysis of the single-head formula)."""
    return 2 * math.log(width, 3)


def paper_regime(depth: int, width: int) -> str:
    return "depth-efficient" if depth < paper_transition_depth(width) else "depth-inefficient"


def growth_regime(ratio: float | None) -> str:
    if ratio is None or not math.isfinite(ratio):
        return "unknown"
    return "depth-efficient" if ratio >= GROWTH_THRESHOLD else "depth-inefficient"


def growth_ratios(log_seps: dict[int, float]) -> dict[int, float]:
    """{L: log sep(L+1) / log sep(L)} for consecutive depths present in ``log_seps``."""
    out = {}
    for L in sorted(log_seps):
        if L + 1 in log_seps and log_seps[L] > 0:
            out[L] = log_seps[L + 1] / log_seps[L]
    return out


def formula_growth_ratio(depth: int, width: int) -> float:
    """Growth ratio of the H = 1 block formula (generic sides) from L to L + 1."""
    return generic_block_bound_log10(depth + 1, width) / generic_block_bound_log10(depth, width)


def transition_from_ratios(ratios: dict[int, float]) -> float | None:
    """First depth where the ratio drops below the threshold, interpolated; None if never."""
    Ls = sorted(ratios)
    for idx, L in enumerate(Ls):
        r = ratios[L]
        if r < GROWTH_THRESHOLD:
            if idx == 0:
                return float(L)
            L0, r0 = Ls[idx - 1], ratios[Ls[idx - 1]]
            return L0 + (r0 - GROWTH_THRESHOLD) / (r0 - r) * (L - L0)
    return None


def formula_transition_depth(width: int, max_depth: int = 40) -> float | None:
    """Transition depth of the H = 1 block formula for a width (any width)."""
    ratios = {}
    for L in range(1, max_depth + 1):  # up to the first ratio below the threshold
        ratios[L] = formula_growth_ratio(L, width)
        if ratios[L] < GROWTH_THRESHOLD:
            break
    return transition_from_ratios(ratios)


def width_at_budget(budget: float, depth: int) -> int:
    """Integer width spending ``budget`` = 12 L d**2 (at least 1)."""
    return max(1, int(round(math.sqrt(budget / (12 * depth)))))


def expressivity_optimal_depth(budget: float, max_depth: int = 400) -> int:
    """Deepest L still depth-efficient at its own width d = sqrt(budget / 12 L).

    At a fixed budget the H = 1 formula's log sep keeps rising with depth but only
    marginally once L passes the width's transition (it tends to budget * ln 3 / 24), so
    an argmax would be "infinitely deep". The meaningful optimum, in the paper's sense,
    is the largest depth not past the transition: L <= transition_depth(d(L)). A width
    whose ratio stays >= 2 up to ``max_depth`` has its transition beyond every depth
    searched (depth-efficient). The search stops after four depth-inefficient depths in
    a row (so a gap of up to 3 depths would be bridged).
    """
    best = 1
    for L in range(1, max_depth + 1):
        t = formula_transition_depth(width_at_budget(budget, L), max_depth=max_depth)
        if t is None or L <= t:
            best = L
        elif L > best + 3:
            break
    return best


def paper_optimal_depth(budget: float) -> float:
    """The paper's rule at a budget: L = log_3 d with 12 L d**2 = budget (real L)."""
    from scipy.optimize import brentq

    def g(L):
        return L - paper_transition_depth(math.sqrt(budget / (12 * L)))

    return brentq(g, 1e-6, 1e4) if g(1e-6) < 0 else 0.0

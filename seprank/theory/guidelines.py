"""The paper's empirical depth-width fit and what it says about real models.

Fit (the paper's ablations): optimal width for depth L is d_x = exp(5.039 + 0.0555 L);
non-embedding parameters 12 L d_x**2. Every number here is computed from the fit
(kind "fit"), beside the figures the paper or its authors quoted (kind "quoted").

>>> round(fit_width(96))
31793
"""

from __future__ import annotations

import math

from seprank.errors import ConfigError

FIT_INTERCEPT = 5.039
FIT_SLOPE = 0.0555

#: What the paper and its authors quoted (not computed here).
QUOTED = {
    "gpt3": {"depth": 96, "width": 12288, "params": 175e9},
    "trillion": {"params": 1e12, "width_paper": 30_000, "depth_authors": 92},
}

#: GatorTron (clinical LMs sized with this paper's guideline), from their README.
GATORTRON = [
    {"name": "GatorTron-base", "params": 345e6, "depth": 24, "width": None, "heads": None},
    {"name": "GatorTron-medium", "params": 3.9e9, "depth": 48, "width": 2560, "heads": 40},
    {"name": "GatorTron-large", "params": 8.9e9, "depth": 56, "width": 3560, "heads": 56},
]


def fit_width(depth: float) -> float:
    """The fit's optimal width for a depth."""
    return math.exp(FIT_INTERCEPT + FIT_SLOPE * depth)


def fit_depth(width: float) -> float:
    """The depth for which the fit calls ``width`` optimal."""
    if width <= 0:
        raise ConfigError(f"width={width} must be > 0")
    return (math.log(width) - FIT_INTERCEPT) / FIT_SLOPE


def params(depth: float, width: float) -> float:
    """Non-embedding parameter count 12 L d**2."""
    return 12 * depth * width**2


def fit_optimal_shape(budget: float) -> dict:
    """Depth and width (real numbers) on the fit with 12 L d(L)**2 = budget."""
    from scipy.optimize import brentq

    if not budget > 0 or not math.isfinite(budget):
        raise ConfigError(f"params={budget} must be a positive number")

    def g(L):
        return math.log(12 * L) + 2 * (FIT_INTERCEPT + FIT_SLOPE * L) - math.log(budget)

    lo, hi = 1e-9, 1e4
    if g(lo) > 0:
        return {"depth": 0.0, "width": fit_width(0.0), "params": budget, "kind": "fit",
                "note": "budget below the fit's range"}  # fmt: skip
    L = brentq(g, lo, hi)
    return {"depth": L, "width": fit_width(L), "params": budget, "kind": "fit"}


def verdict(depth: float, width: float) -> dict:
    """Where a shape sits against the fit: too deep, too shallow, or on the fit."""
    if depth <= 0:
        raise ConfigError(f"depth={depth} must be > 0")
    if width <= 0:
        raise ConfigError(f"width={width} must be > 0")
    P = params(depth, width)
    opt = fit_optimal_shape(P)
    ideal_depth_for_width = fit_depth(width)
    ratio = depth / opt["depth"] if opt["depth"] > 0 else math.inf
    if ratio > 1.15:
        v = "too deep"
    elif ratio < 0.87:
        v = "too shallow"
    else:
        v = "near the fit"
    return {
        "depth": depth, "width": width, "params": P, "verdict": v,
        "fit_depth_at_params": opt["depth"], "fit_width_at_params": opt["width"],
        "fit_width_for_depth": fit_width(depth), "fit_depth_for_width": ideal_depth_for_width,
        "kind": "fit",
    }  # fmt: skip


def gpt3_report() -> dict:
    q = QUOTED["gpt3"]
    v = verdict(q["depth"], q["width"])
    v["quoted_params"] = q["params"]
    return v


def trillion_report() -> dict:
    q = QUOTED["trillion"]
    opt = fit_optimal_shape(q["params"])
    return {
        "params": q["params"], "fit_depth": opt["depth"], "fit_width": opt["width"],
        "quoted_width_paper": q["width_paper"], "quoted_depth_authors": q["depth_authors"],
        "width_difference_pct": 100 * (opt["width"] - q["width_paper"]) / q["width_paper"],
        "depth_difference": opt["depth"] - q["depth_authors"],
    }  # fmt: skip


def gatortron_report() -> list[dict]:
    rows = []
    for m in GATORTRON:
        width = m["width"]
        derived = width is None
        if derived:  # the README gives only params and depth: width from 12 L d^2
            width = math.sqrt(m["params"] / (12 * m["depth"]))
        v = verdict(m["depth"], width)
        v.update(name=m["name"], quoted_params=m["params"], width_derived=derived,
                 params_12Ld2_vs_quoted=v["params"] / m["params"])  # fmt: skip
        rows.append(v)
    return rows

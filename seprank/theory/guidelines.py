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
    r"""The fit's optimal width for a depth, :math:`\exp(5.039 + 0.0555 L)`.

    Parameters
    ----------
    depth : float
        Depth L.

    Returns
    -------
    float
        The width :math:`d_x = \exp(5.039 + 0.0555 L)` (kind "fit").
    """
    return math.exp(FIT_INTERCEPT + FIT_SLOPE * depth)


def fit_depth(width: float) -> float:
    r"""The depth for which the fit calls ``width`` optimal.

    Parameters
    ----------
    width : float
        Embedding width :math:`d_x > 0`.

    Returns
    -------
    float
        :math:`(\ln d_x - 5.039) / 0.0555`.

    Raises
    ------
    ConfigError
        If ``width <= 0``.
    """
    if width <= 0:
        raise ConfigError(f"width={width} must be > 0")
    return (math.log(width) - FIT_INTERCEPT) / FIT_SLOPE


def params(depth: float, width: float) -> float:
    """Non-embedding parameter count :math:`12 L d^2`.

    Parameters
    ----------
    depth : float
        Depth L.
    width : float
        Embedding width d.

    Returns
    -------
    float
        ``12 * depth * width**2``.

    Examples
    --------
    >>> params(2, 10)
    2400
    """
    return 12 * depth * width**2


def fit_optimal_shape(budget: float) -> dict:
    r"""Depth and width (real numbers) on the fit with :math:`12 L\, d(L)^2 = \mathrm{budget}`.

    Parameters
    ----------
    budget : float
        Non-embedding parameter count (positive, finite).

    Returns
    -------
    dict
        ``depth``, ``width``, ``params`` (the budget) and ``kind`` (``"fit"``); a budget too
        small for any positive depth gives depth 0.0 and a ``note``.

    Raises
    ------
    ConfigError
        If ``budget`` is not a positive finite number.
    """
    from scipy.optimize import brentq

    if not budget > 0 or not math.isfinite(budget):
        raise ConfigError(f"params={budget} must be a positive number")

    def g(L):
        return math.log(12 * L) + 2 * (FIT_INTERCEPT + FIT_SLOPE * L) - math.log(budget)

    lo, hi = 1e-9, 1e4
    if g(lo) > 0:
        return {"depth": 0.0, "width": fit_width(0.0), "params": budget, "kind": "fit",
                "note": "budget below the fit's range"}
    L = brentq(g, lo, hi)
    return {"depth": L, "width": fit_width(L), "params": budget, "kind": "fit"}


def verdict(depth: float, width: float) -> dict:
    """Where a shape sits against the fit: too deep, too shallow, or on the fit.

    Parameters
    ----------
    depth : float
        Depth L (> 0).
    width : float
        Embedding width :math:`d_x > 0`.

    Returns
    -------
    dict
        ``depth``, ``width``, ``params`` (:math:`12 L d^2`), ``verdict`` (``"too deep"`` when the
        depth exceeds the fit's depth at that budget by more than 15%, ``"too shallow"`` when
        it is more than 13% below, else ``"near the fit"``), ``fit_depth_at_params``,
        ``fit_width_at_params``, ``fit_width_for_depth``, ``fit_depth_for_width`` and ``kind``
        (``"fit"``).

    Raises
    ------
    ConfigError
        If ``depth`` or ``width`` is not > 0.
    """
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
    }


def gpt3_report() -> dict:
    """The fit's verdict on GPT-3's quoted shape (96 layers, width 12288).

    Returns
    -------
    dict
        :func:`verdict` of the quoted shape, with ``quoted_params`` (175e9).
    """
    q = QUOTED["gpt3"]
    v = verdict(q["depth"], q["width"])
    v["quoted_params"] = q["params"]
    return v


def trillion_report() -> dict:
    """The fit's optimal shape at 1e12 parameters, beside the quoted ones.

    Returns
    -------
    dict
        ``params``, ``fit_depth`` and ``fit_width`` (computed), ``quoted_width_paper`` and
        ``quoted_depth_authors`` (quoted), ``width_difference_pct`` and ``depth_difference``
        (computed minus quoted).
    """
    q = QUOTED["trillion"]
    opt = fit_optimal_shape(q["params"])
    return {
        "params": q["params"], "fit_depth": opt["depth"], "fit_width": opt["width"],
        "quoted_width_paper": q["width_paper"], "quoted_depth_authors": q["depth_authors"],
        "width_difference_pct": 100 * (opt["width"] - q["width_paper"]) / q["width_paper"],
        "depth_difference": opt["depth"] - q["depth_authors"],
    }


def gatortron_report() -> list[dict]:
    r"""The fit's verdict on each GatorTron model (``GATORTRON``).

    Returns
    -------
    list of dict
        One :func:`verdict` per model, with ``name``, ``quoted_params``, ``width_derived``
        (True where the width is derived from :math:`\mathrm{params} = 12 L d^2`, the README
        giving none) and ``params_12Ld2_vs_quoted``.
    """
    rows = []
    for m in GATORTRON:
        width = m["width"]
        derived = width is None
        if derived:  # the README gives only params and depth: width from 12 L d^2
            width = math.sqrt(m["params"] / (12 * m["depth"]))
        v = verdict(m["depth"], width)
        v.update(name=m["name"], quoted_params=m["params"], width_derived=derived,
                 params_12Ld2_vs_quoted=v["params"] / m["params"])
        rows.append(v)
    return rows

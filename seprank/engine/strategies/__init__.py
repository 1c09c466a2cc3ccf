"""How a rank is measured: ``direct`` (one grid matrix), ``graded`` (one per A-degree) or
``catalecticant`` (no grid: the blocks from the coefficients of the structural lemma's
polynomial, for LinearSelfAttention with at least d_x positions on each side).

For ``strategy="auto"`` the plan first asks :func:`catalecticant.auto_pick` (it applies,
the weights are random, its largest matrix fits in memory); otherwise :func:`choose`
picks graded when the method is modular, the sampler random, and f is homogeneous
(declared by the architecture and checked, or detected at random points: see
:mod:`seprank.engine.homogeneity`), direct otherwise. The reason is recorded in the
Measurement.
"""

from __future__ import annotations

from seprank.engine.homogeneity import Homogeneity, homogeneity
from seprank.engine.strategies import catalecticant, direct, graded
from seprank.engine.strategies.base import Plan
from seprank.errors import ConfigError

STRATEGIES = ("auto", "direct", "graded", "catalecticant")

__all__ = ["STRATEGIES", "Plan", "catalecticant", "choose", "direct", "graded"]


def choose(strategy: str, plan: Plan, rng) -> tuple[str, str, Homogeneity | None]:
    """(strategy to run, why, homogeneity outcome or None if not examined).

    ``strategy`` is one of STRATEGIES (validated by the caller, :func:`seprank.measure`)."""
    if strategy == "direct":
        return "direct", "requested", None
    if strategy == "catalecticant":
        why = catalecticant.refusal(plan.net, plan.A, plan.method, plan.sampler, plan.domain.p
                                    if plan.method == "modular" else None)  # fmt: skip
        if why is not None:
            raise ConfigError(f"strategy='catalecticant' {why}")
        catalecticant.check_sizes(plan.net)
        return "catalecticant", ("requested: both sides have at least width positions and "
                                 "prime > D (proofs/catalecticant_reduction.md)"), None
    if plan.method != "modular" or plan.sampler != "random":
        why = (f"graded needs method='modular' and sampler='random' "
               f"(got method={plan.method!r}, sampler={plan.sampler!r})")  # fmt: skip
        if strategy == "graded":
            raise ConfigError(f"strategy='graded': {why}")
        return "direct", f"auto: {why}", None
    h = homogeneity(plan.net, plan.params, plan.domain, rng)
    if h.homogeneous and h.degree + 1 >= plan.domain.p and strategy == "auto":
        return "direct", (f"auto: f homogeneous of degree {_big(h.degree)}, but prime="
                          f"{plan.domain.p} is too small to interpolate it"), h  # fmt: skip
    if h.homogeneous:
        return "graded", f"{'auto' if strategy == 'auto' else 'requested'}: f homogeneous of " \
                         f"degree {h.degree} ({h.source})", h  # fmt: skip
    if strategy == "graded":
        raise ConfigError(
            f"strategy='graded' needs a homogeneous network; this one is not ({h.source}): "
            f"use strategy='direct'"
        )
    return "direct", f"auto: f not homogeneous ({h.source})", h


def _big(n: int) -> str:
    """An integer as text; past 30 digits as ~10^k (str() refuses past 4300 digits)."""
    if n.bit_length() < 100:
        return str(n)
    return f"~10^{n.bit_length() * 0.30103:.0f}"

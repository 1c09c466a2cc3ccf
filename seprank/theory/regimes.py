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
    r"""The paper's transition depth :math:`\log_3 d_x`.

    Parameters
    ----------
    width : float
        Embedding width :math:`d_x`.

    Returns
    -------
    float
        :math:`\log_3 d_x`.
    """
    return math.log(width, 3)


def doubled_transition_depth(width: float) -> float:
    r"""Twice the paper's transition depth, :math:`2 \log_3 d_x`.

    This is where :math:`3^L \approx d_x^2` (our analysis of the single-head formula).

    Parameters
    ----------
    width : float
        Embedding width :math:`d_x`.

    Returns
    -------
    float
        :math:`2 \log_3 d_x`.
    """
    return 2 * math.log(width, 3)


def paper_regime(depth: int, width: int) -> str:
    r"""The paper's regime of a shape: depth-efficient while :math:`L < \log_3 d_x`.

    Parameters
    ----------
    depth : int
        Number of layers :math:`L`.
    width : int
        Embedding width :math:`d_x`.

    Returns
    -------
    str
        ``"depth-efficient"`` or ``"depth-inefficient"``.

    Examples
    --------
    >>> paper_regime(3, 8)
    'depth-inefficient'
    """
    return "depth-efficient" if depth < paper_transition_depth(width) else "depth-inefficient"


def growth_regime(ratio: float | None) -> str:
    r"""The regime a growth ratio :math:`\log \mathrm{sep}(L+1) / \log \mathrm{sep}(L)` indicates.

    Parameters
    ----------
    ratio : float or None
        The growth ratio (None or non-finite: unknown).

    Returns
    -------
    str
        ``"depth-efficient"`` when ``ratio >= GROWTH_THRESHOLD``, ``"depth-inefficient"``
        below it, ``"unknown"`` without a finite ratio.
    """
    if ratio is None or not math.isfinite(ratio):
        return "unknown"
    return "depth-efficient" if ratio >= GROWTH_THRESHOLD else "depth-inefficient"


#: The regimes a step of depth can show (the study's and ``seprank bounds``' vocabulary).
EFFICIENT, INEFFICIENT, NO_GAIN, UNDETERMINED = (
    "depth-efficient", "depth-inefficient", "no gain", "undetermined")


def step_regime(ratio: float | None, degree_law: float | None, linear_law: float | None, *,
                lower_bound: bool = False) -> tuple[str, str]:
    """The regime of one step of depth L -> L' from its growth ratio log r(L') / log r(L).

    Two laws bracket the ratio: the degree law (log r grows like f's degree: ratio
    deg f(L') / deg f(L), 3 a layer for attention) and the linear law (log r grows like
    the depth: ratio L'/L). The step is depth-efficient when its ratio is nearer the
    degree law on a log scale (at least their geometric mean), depth-inefficient when
    nearer the linear law, and "no gain" when the rank did not grow (ratio <= 1). A
    ratio that is only a lower bound can show depth-efficiency, never the opposite.

    Parameters
    ----------
    ratio : float or None
        The growth ratio (None: undetermined).
    degree_law, linear_law : float or None
        The two laws' ratios (the degree law None where f's degree is unknown).
    lower_bound : bool, default False
        Whether ``ratio`` is only a lower bound on the true ratio.

    Returns
    -------
    tuple of (str, str)
        The regime (``EFFICIENT``, ``INEFFICIENT``, ``NO_GAIN`` or ``UNDETERMINED``) and
        why, in words.

    Examples
    --------
    >>> step_regime(2.8, 3.0, 2.0)[0]
    'depth-efficient'
    >>> step_regime(1.6, 3.0, 1.5)[0]
    'depth-inefficient'
    """
    if ratio is None or not math.isfinite(ratio):
        return UNDETERMINED, "no ratio"
    if ratio <= 1 and not lower_bound:
        return NO_GAIN, f"ratio {ratio:.3f} <= 1: the rank did not grow"
    if degree_law is None or linear_law is None or degree_law <= linear_law:
        why = ("f's degree unknown" if degree_law is None else
               f"the degree law {degree_law:.3g} does not exceed the linear law")
        return UNDETERMINED, f"{why}: no two laws to tell apart"
    mid = math.sqrt(degree_law * linear_law)
    laws = f"degree law {degree_law:.3g}, linear law {linear_law:.3g}, midpoint {mid:.3f}"
    if ratio >= mid:
        return EFFICIENT, f"ratio {ratio:.3f} nearer the degree law ({laws})" + (
            " although only a lower bound" if lower_bound else "")
    if lower_bound:
        return UNDETERMINED, (f"lower bound {ratio:.3f} below the midpoint ({laws}): the true "
                              "ratio may be larger")
    return INEFFICIENT, f"ratio {ratio:.3f} nearer the linear law ({laws})"


def growth_ratios(log_seps: dict[int, float]) -> dict[int, float]:
    r"""Growth ratios :math:`\log \mathrm{sep}(L+1) / \log \mathrm{sep}(L)` for consecutive depths.

    Parameters
    ----------
    log_seps : dict of int to float
        log sep(L) by depth L (any logarithm base).

    Returns
    -------
    dict of int to float
        ``{L: log_seps[L + 1] / log_seps[L]}`` for every L with L + 1 present and
        ``log_seps[L] > 0``.

    Examples
    --------
    >>> growth_ratios({1: 1.0, 2: 3.0, 3: 4.5})
    {1: 3.0, 2: 1.5}
    """
    out = {}
    for L in sorted(log_seps):
        if L + 1 in log_seps and log_seps[L] > 0:
            out[L] = log_seps[L + 1] / log_seps[L]
    return out


def formula_growth_ratio(depth: int, width: int) -> float:
    """Growth ratio of the H = 1 block formula (generic sides) from L to L + 1.

    Parameters
    ----------
    depth : int
        Depth L.
    width : int
        Embedding width d.

    Returns
    -------
    float
        log sep(L + 1) / log sep(L) of :func:`~seprank.theory.bounds.generic_block_bound`.
    """
    return generic_block_bound_log10(depth + 1, width) / generic_block_bound_log10(depth, width)


def transition_from_ratios(ratios: dict[int, float]) -> float | None:
    """First depth where the growth ratio drops below the threshold, interpolated.

    Parameters
    ----------
    ratios : dict of int to float
        Growth ratios by depth (:func:`growth_ratios`).

    Returns
    -------
    float or None
        The depth where the ratio crosses ``GROWTH_THRESHOLD``, linearly interpolated between
        integer depths (the first depth itself if it is already below); None if it never does.
    """
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
    """Transition depth of the H = 1 block formula for a width (any width).

    Parameters
    ----------
    width : int
        Embedding width d.
    max_depth : int, default 40
        Deepest depth whose ratio is computed.

    Returns
    -------
    float or None
        The interpolated depth where the formula's growth ratio crosses ``GROWTH_THRESHOLD``,
        or None if it stays above it up to ``max_depth``.
    """
    ratios = {}
    for L in range(1, max_depth + 1):  # up to the first ratio below the threshold
        ratios[L] = formula_growth_ratio(L, width)
        if ratios[L] < GROWTH_THRESHOLD:
            break
    return transition_from_ratios(ratios)


def width_at_budget(budget: float, depth: int) -> int:
    r"""Integer width spending a parameter budget :math:`12 L d^2` at a depth.

    Parameters
    ----------
    budget : float
        Non-embedding parameter count.
    depth : int
        Depth :math:`L`.

    Returns
    -------
    int
        :math:`\operatorname{round}\bigl(\sqrt{\mathrm{budget} / 12 L}\bigr)`, at least 1.
    """
    return max(1, int(round(math.sqrt(budget / (12 * depth)))))


def expressivity_optimal_depth(budget: float, max_depth: int = 400) -> int:
    r"""Deepest L still depth-efficient at its own width :math:`d = \sqrt{\mathrm{budget} / 12 L}`.

    At a fixed budget the :math:`H = 1` formula's :math:`\log \operatorname{sep}` keeps
    rising with depth but only marginally once :math:`L` passes the width's transition (it
    tends to :math:`\mathrm{budget} \cdot \ln 3 / 24`), so an argmax would be "infinitely
    deep". The meaningful optimum, in the paper's sense, is the largest depth not past the
    transition: :math:`L \le \mathrm{transition\_depth}(d(L))`. A width whose ratio stays
    at least 2 up to ``max_depth`` has its transition beyond every depth
    searched (depth-efficient). The search stops after four depth-inefficient depths in
    a row (so a gap of up to 3 depths would be bridged).

    Parameters
    ----------
    budget : float
        Non-embedding parameter count :math:`12 L d^2`.
    max_depth : int, default 400
        Deepest depth searched.

    Returns
    -------
    int
        The depth (at least 1).
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
    r"""The paper's rule at a budget: :math:`L = \log_3 d` with :math:`12 L d^2 = \mathrm{budget}`.

    Parameters
    ----------
    budget : float
        Non-embedding parameter count.

    Returns
    -------
    float
        The real depth :math:`L` solving :math:`L = \log_3 \sqrt{\mathrm{budget} / 12 L}`, or
        0.0 when none is positive.
    """
    from scipy.optimize import brentq

    def g(L):
        return L - paper_transition_depth(math.sqrt(budget / (12 * L)))

    return brentq(g, 1e-6, 1e4) if g(1e-6) < 0 else 0.0

"""Float SVD rank with an explicit tolerance, and when a float rank can be believed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FloatRank:
    """Float SVD rank: ``rank`` = number of singular values above ``tolerance``;
    ``scaled_rank`` the same rule applied to the row-and-column equilibrated matrix
    (:func:`equilibrated_rank`); computed only when 0 < rank < min(shape), the one case a
    trust verdict reads it (:func:`float_distrust` refuses every other rank first), else
    None."""

    rank: int
    tolerance: float
    spectrum: np.ndarray
    scaled_rank: int | None = None


def equilibrated_rank(F: np.ndarray, sweeps: int = 3) -> int:
    """SVD rank (numpy's default tolerance) of D_r F D_c, where the diagonal D_r and D_c
    scale rows and then columns to unit 2-norm (``sweeps`` alternating passes; zero rows and
    columns are left alone).

    D_r and D_c are nonsingular, so the exact rank is unchanged; a float rank that exists
    only in one scaling is a round-off artefact. A graded grid (entries over tens of
    decades, degree 3**L at depth 4) has a huge s_max that hides its smaller directions
    below the tolerance; equilibrating brings them back and the two ranks differ.
    """
    G = np.array(F, dtype=np.float64)
    for _ in range(sweeps):
        for axis in (1, 0):
            n = np.linalg.norm(G, axis=axis, keepdims=True)
            G = G / np.where(n > 0, n, 1.0)
    s = np.linalg.svd(G, compute_uv=False)
    tol = s[0] * max(G.shape) * np.finfo(np.float64).eps if s.size else 0.0
    return int(np.sum(s > tol))


def rank_float(F: np.ndarray, tol: float | None = None) -> FloatRank:
    """SVD rank with an explicit tolerance.

    The default tolerance is numpy's: ``s_max * max(rows, cols) * eps``. The full
    singular-value spectrum is returned so that failures can be seen.
    """
    F = np.asarray(F, dtype=np.float64)
    if F.size == 0:
        return FloatRank(0, 0.0, np.zeros(0))
    if not np.all(np.isfinite(F)):
        return FloatRank(-1, float("nan"), np.full(min(F.shape), np.nan))
    s = np.linalg.svd(F, compute_uv=False)
    if tol is None:
        tol = float(s[0] * max(F.shape) * np.finfo(np.float64).eps) if s.size else 0.0
    r = int(np.sum(s > tol))
    return FloatRank(r, float(tol), s, equilibrated_rank(F) if 0 < r < len(s) else None)


#: A float rank is trusted only if the spectrum drops by this factor at the rank.
FLOAT_GAP = 1e6


def float_distrust(m) -> str | None:
    """Why a float rank cannot be believed, naming the criterion that failed with its
    value; None when it can. The criteria, in order:

    1. the sample saturated (the rank stopped below the sample size: ``sample_saturated``);
    2. the spectrum is finite;
    3. a cliff at the rank: s[r-1] / s[r] >= FLOAT_GAP;
    4. s[r-1] >= FLOAT_GAP * tolerance (the last kept value is far above round-off);
    5. scale invariance: the row-and-column equilibrated grid has the same float rank
       (``scaled_rank``, :func:`equilibrated_rank`).

    Criterion 5 replaces an older test on the span of the discarded values s[r:]. Those
    values lie below the tolerance, that is, at round-off level: their spread (how far
    below round-off the smallest one happens to come out) depends on the LAPACK build and
    flipped the verdict for a right rank (numpy 2.4.6: s[-1] = 1.7e-19, span 1.7e6 against
    1e6). The exact rank is invariant under nonsingular diagonal scaling while round-off is
    not, so a rank seen in both scalings does not rest on the last digits. It keeps the
    case the tail test was for: at depth 4, width 2 (seed 22) the grid is graded over 60
    decades and shows float rank 1 with a cliff of 1e20; equilibrated it shows more.
    """
    s = getattr(m, "spectrum", None)
    r = getattr(m, "rank", -1)
    tol = getattr(m, "tolerance", None)
    if s is None or tol is None:
        return "no float spectrum (not a float measurement)"
    # the stop below the sample: a labelled Measurement keeps it in sample_saturated (its
    # saturated is False: a float rank is never saturated), a bare result in saturated
    stopped = getattr(m, "sample_saturated", None)
    if stopped is None:
        stopped = getattr(m, "saturated", False)
    if not stopped or r <= 0 or r >= len(s):
        return (f"no singular value below the tolerance (rank {r} of a {len(s)}-value "
                "spectrum: the rank reached the sample size)")
    if not np.all(np.isfinite(s)):
        return "the spectrum is not finite (the grid overflowed float64)"
    cliff = s[r - 1] / max(s[r], 1e-300)
    if not cliff >= FLOAT_GAP:
        return f"no clear cliff at the rank: s[r-1]/s[r] = {cliff:.3g} < {FLOAT_GAP:g}"
    above = s[r - 1] / tol if tol else float("inf")
    if not above >= FLOAT_GAP:
        return (f"the last kept value is near round-off: s[r-1]/tolerance = {above:.3g} "
                f"< {FLOAT_GAP:g}")
    scaled = getattr(m, "scaled_rank", None)
    if scaled is None:
        return "the equilibrated grid's rank was not measured (scale invariance unchecked)"
    if scaled != r:
        return (f"not scale invariant: the row-and-column equilibrated grid has float rank "
                f"{scaled}, not {r} (the grid is graded; its small directions hide below "
                f"round-off)")
    return None


def float_trustworthy(m) -> bool:
    """Whether a float rank can be believed: every criterion of :func:`float_distrust`.

    Parameters
    ----------
    m : Measurement
        A float measurement (its spectrum, tolerance and ``scaled_rank`` are read).

    Returns
    -------
    bool
        True when :func:`float_distrust` finds no reason to distrust the rank.
    """
    return float_distrust(m) is None

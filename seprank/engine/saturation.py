"""When may a measured rank be called *saturated*, and on which ground.

A modular measurement stops when the rank of its grid matrix is strictly below the sample
size ("sample-saturated"). That alone proves nothing: the grid is a random sample, and an
unlucky sample can have a rank below the separation rank at every size. What it gives is
a probability bound, and only when the prime is large compared with a degree.

**The degree argument (Schwartz-Zippel).** Let R be the separation rank of f over the
algebraic closure of GF(p) for generic weights, and e the total degree of one grid entry
f(a, b) as a polynomial in everything drawn at random: the weights and the coordinates
of the row point a and of the column point b. For LinearSelfAttention a layer maps a
polynomial of degree e_l to one of degree 4 + 3 e_l (four weight matrices, a cubic in y),
so from e_0 = 1, e = 3^(L+1) - 2 = 3^L (inputs) + 2 (3^L - 1) (weights); with given
(not random) weights only the inputs are random and e = 3^L. For m <= R the determinant of
the leading m x m grid minor is a nonzero polynomial (R linearly independent functions on
each side have a nonsingular m x m evaluation matrix at generic points), of total degree
at most m e; the weights and points are uniform in GF(p), so it vanishes with probability
at most m e / p. A step with an n x n grid stops falsely (rank < min(n, R)) only if the
leading min(n, R) minor vanishes: probability <= n e / p. A union bound over the steps
that were run gives

    bound = e / p * sum over steps of n      (direct; graded: summed over the blocks, each
                                              over the steps it was live, plus the chances
                                              that a degree was missed or f is not
                                              homogeneous)

capped at 1. ``saturated`` is reported only when this bound is at most a threshold (default
``DEFAULT_THRESHOLD`` = 1e-2). With 26-bit primes the bound is vacuous for large ranks
(rank 10^4 at depth 5 gives about 10^4 * 727 / 6.7e7 per step); there a rank is exact only
when it meets a proved upper bound (:mod:`seprank.verdicts.certificates`), with no
probability at all.

Caveat: R is the rank over GF(p)-bar. It equals the rank over Q except for the finitely
many primes dividing every coefficient of every R x R minor; ``confirm`` repeats with
other primes (and seeds) for that reason too.

Other grounds: ``method="symbolic"`` is exact (no sampling); f's whole coefficient matrix
over GF(p) (sampler ``coefficients``, the ``expand`` strategy) is labelled by its random
weights alone (short side x entry degree / p); ``method="float"`` is never
saturated: it is *trusted* (``trusted``) when
:func:`seprank.algebra.float_rank.float_trustworthy` accepts its spectrum (else "untrusted",
with the spectral ratio), and for a network that is not a polynomial neither: its float
rank on one grid estimates no finite separation rank; the ``templates`` sampler is never called
saturated (its grid is not a generic sample; a rank plateau is evidence, not a bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from seprank import labels
from seprank.algebra.degree import DegreeDomain
from seprank.algebra.domains import DEFAULT_PRIME
from seprank.algebra.float_rank import float_distrust
from seprank.engine import constants as _constants
from seprank.engine import row_check
from seprank.engine.evaluate import evaluate
from seprank.errors import DomainError
from seprank.nets.base import input_dim
from seprank.nets.capabilities import capability
from seprank.nets.registry import shipped_function

#: Largest Schwartz-Zippel bound under which a sample-saturated rank is called saturated
#: (checked as the parameter ``saturation_threshold``, :mod:`seprank.engine.parameters`).
DEFAULT_THRESHOLD = 1e-2


def entry_degree(net, random_weights: bool = True) -> int | None:
    """Total degree of one grid entry in the random quantities (module docstring), or None
    when it cannot be bounded (an architecture that is not a polynomial).

    An architecture seprank ships that declares the capability ``entry_degree`` (the
    paper's network: the formula above): its value (a user's class's declaration cannot be
    checked, so its degree is traced instead). Other shipped classes: ``degree`` (inputs)
    plus a declared ``weight_degree``; every other class (a user's declared degree is a
    claim, not a bound): a proved upper bound computed by running its own ``apply`` in
    :func:`traced_degree` (a larger e only makes the bound more conservative)."""
    closed_form = capability(net, "entry_degree") if shipped_function(type(net)) else None
    if closed_form is not None:  # a user's declaration is not checkable: traced instead
        return int(closed_form(random_weights))
    if getattr(net, "polynomial", True) is False:
        return None
    T = getattr(net, "degree", None)
    wd = getattr(net, "weight_degree", None)
    if shipped_function(type(net)) and T is not None and (wd is not None or not random_weights):
        return int(T) + (int(wd) if random_weights else 0)
    return traced_degree(net, random_weights)  # a user's degree declarations: not trusted


def trace_degree(net, random_weights: bool = True) -> int:
    """Upper bound on the total degree of ``net``'s output in the random weights (unless
    ``random_weights`` is False) and inputs, found by running its ``apply`` in
    :class:`~seprank.algebra.degree.DegreeDomain`; DomainError saying why when ``apply``
    does not run there.

    >>> from seprank.nets import LinearSelfAttention
    >>> trace_degree(LinearSelfAttention(depth=2, width=2, seq_len=3))  # 9 + 2 (9 - 1)
    25
    """
    dom = DegreeDomain()
    params = net.init(np.random.default_rng(0), dom)
    if not random_weights:
        params = _constants_of_degree_zero(params)
    X = dom.random(None, (1, net.seq_len, input_dim(net)))  # inputs: degree 1
    try:
        out = evaluate(net, params, X, dom)
    except Exception as exc:  # noqa: BLE001 - any failure means: no checkable degree
        raise DomainError(f"{type(net).__name__}.apply does not run on degree arrays "
                          f"({type(exc).__name__}: {exc}); seprank cannot bound its degree "
                          "or check its arithmetic, so it does not measure it exactly "
                          "(method=float still does)") from None
    return int(np.max(out))


def _constants_of_degree_zero(params):
    """Every array of ``params`` (dicts, lists, tuples of them) as int64 zeros: constants."""
    if isinstance(params, dict):
        return {k: _constants_of_degree_zero(v) for k, v in params.items()}
    if isinstance(params, (list, tuple)):
        return type(params)(_constants_of_degree_zero(v) for v in params)
    return np.zeros(np.shape(params), dtype=np.int64)


def traced_degree(net, random_weights: bool = True) -> int | None:
    """:func:`trace_degree`, or None when ``apply`` does not run on degree arrays (an
    architecture that needs real numbers, e.g. softmax, or one that left polynomial
    arithmetic: no bound, so no probability label)."""
    try:
        return trace_degree(net, random_weights)
    except DomainError:
        return None


@dataclass(frozen=True)
class Ground:
    """What a measured rank may be called, and why.

    A strategy's answer (:meth:`seprank.engine.strategies.registry.Strategy.ground`).

    Parameters
    ----------
    saturated : bool
        Whether the rank may be called the separation rank.
    bound : float or None
        Probability bound on a false saturation (None where none applies).
    reason : str
        The ground, or why it is refused.
    trusted : bool or None, default None
        Float only: whether the spectrum passed the trust criterion.
    blocks : list or None, default None
        The blocks, each labelled on its own (None: as they were).
    """

    saturated: bool
    bound: float | None
    reason: str
    trusted: bool | None = None
    blocks: list | None = None


@dataclass(frozen=True)
class GroundContext:
    """What every ground may read besides the raw result.

    Parameters
    ----------
    net : Architecture
        The network measured.
    threshold : float
        The most a saturation bound may be for the label (``saturation_threshold``).
    random_weights : bool, default True
        Whether the weights were drawn from the seed (else given).
    prime_drawn : bool, default False
        Whether the prime was drawn at random (:mod:`seprank.engine.constants`): the bound
        then covers the constants of the code and the given ``weights`` too.
    weights : dict or None, default None
        The given weights.
    """

    net: Any
    threshold: float = DEFAULT_THRESHOLD
    random_weights: bool = True
    prime_drawn: bool = False
    weights: dict | None = None


def polynomial_of(net) -> bool | None:
    """Whether ``net`` declares itself a polynomial (None: unknown, an operation seprank's
    interpreter does not know)."""
    poly = bool(getattr(net, "polynomial", True))
    if not poly and getattr(net, "polynomial_unknown", False):
        return None
    return poly


def label(raw, strategy, ctx: GroundContext) -> Ground:
    """What the raw result's rank may be called.

    Exact for a symbolic rank, never saturated for a float one (:func:`float_ground`),
    else the strategy's own ground
    (:meth:`~seprank.engine.strategies.registry.Strategy.ground`: the random grid's
    :func:`grid_ground` unless the strategy says otherwise). No branch on a strategy.

    Parameters
    ----------
    raw : Measurement
        The strategy's result, ``saturated`` its stop (the rank below the sample size) and
        ``sample_saturated`` the same.
    strategy : Strategy
        The strategy that measured it.
    ctx : GroundContext
        The network, the threshold and what was random.

    Returns
    -------
    Ground
        Saturated or not, the bound on a false saturation, and why.
    """
    if raw.method == "symbolic":
        return Ground(True, 0.0, "exact: rank of the coefficient matrix (no sampling)")
    if raw.method == "float":
        return float_ground(raw, ctx)
    return strategy.ground(raw, ctx)


def unstopped(raw) -> Ground:
    """The rank reached the sample size (or the budget): a lower bound only."""
    return Ground(False, None, "budget hit: the rank reached the sample size; a lower bound "
                  "only" if raw.budget_hit else "the rank reached the sample size")


def given_weights(what: str, of: str = "the separation rank") -> Ground:
    """Nothing sampled and nothing random (the weights given): not saturated, no bound."""
    return Ground(False, None, f"{what} with given weights: nothing random, so no "
                  f"probability bound; the rank over GF(p) is a lower bound on {of} of this "
                  "integer network")


def uncovered(prime: int, prime_drawn: bool) -> Ground:
    """Not saturated: nothing covers the constants (:func:`constants_cover` gave None)."""
    return Ground(False, None, (
        (f"prime {prime} was fixed (prime=), and the constants of code seprank does "
         "not ship and given weights are not random: no probability covers them (they "
         "may cancel mod p); leave prime unset to have it drawn at random, which does"
         if not prime_drawn else
         "the prime was drawn at random to cover the constants, but apply does not run "
         "on the coefficient-size arrays (seprank.algebra.height), so no bound covers "
         "them") + "; a lower bound only"))


def float_ground(raw, ctx: GroundContext) -> Ground:
    """A float rank is never saturated; trusted or not, and of a non-polynomial neither."""
    net, poly = ctx.net, polynomial_of(ctx.net)
    why = float_distrust(raw) if raw.saturated else ("the rank reached the sample size" + (
        " (budget hit)" if raw.budget_hit else ""))
    trusted = why is None and poly is True
    if poly is None:  # not known to be a polynomial, nor known not to be
        reason = (
            f"untrusted: {getattr(net, 'polynomial_reason', None) or 'an unsupported operation'}"
            "; seprank cannot tell whether the module is a polynomial, so a float rank on one "
            "grid is an estimate only, never trusted" + (f"; also {why}" if why else ""))
    elif not poly:
        reason = (
            f"{labels.NOT_POLYNOMIAL}: the network is not a polynomial, so its separation "
            "rank need not be finite and a float rank on one grid (which grows with the "
            "grid) is a number about that grid only" + (f"; also {why}" if why else ""))
    elif why is None:
        reason = ("float: a clear gap at the rank, the same rank after "
                  "equilibration (float_trustworthy); an estimate with no "
                  "probability bound, never saturated")
    else:
        reason = f"untrusted: {why}; an estimate only"
    return Ground(False, None, reason, trusted=trusted)


def step_sizes(raw) -> list[int]:
    """The grid sizes of the steps run (the short side of each), as the Schwartz-Zippel
    bound sums them."""
    return [min(int(r), int(c)) for r, c, _ in raw.history]


def grid_ground(raw, ctx: GroundContext, sizes: list[int] | None = None,
                schwartz_zippel=None, declared: str = "") -> Ground:
    """The random grid's ground, shared by the grid strategies (module docstring).

    Parameters
    ----------
    raw : Measurement
        The raw result (``saturated``: its stop).
    ctx : GroundContext
        The network, the threshold and what was random.
    sizes : list of int, optional
        The steps' sizes the bound sums (default :func:`step_sizes`).
    schwartz_zippel : callable, optional
        ``schwartz_zippel(e)``: the sampling term at entry degree e (default e / p times
        the sum of ``sizes``, capped at 1).
    declared : str, default ""
        What else the bound covers, said before the constants.

    Returns
    -------
    Ground
        Saturated only when the bound is at most the threshold.
    """
    net, threshold = ctx.net, ctx.threshold
    if not raw.saturated:
        return unstopped(raw)
    if raw.sampler != "random":
        return Ground(False, None, "templates sampler: the rank plateaued below the number of "
                      "distinct rows and columns, but a template grid is not a generic "
                      "sample: no probability bound; a lower bound only")
    e = entry_degree(net, ctx.random_weights)
    if e is None:
        return Ground(False, None, f"{type(net).__name__} is not a polynomial seprank can "
                      "bound the degree of: no probability bound on a false saturation; a "
                      "lower bound only")
    sizes = step_sizes(raw) if sizes is None else sizes
    sz = (min(1.0, float(sum(sizes) * e / raw.prime)) if schwartz_zippel is None
          else schwartz_zippel(e))
    cover = constants_cover(raw, ctx, sizes, weights=ctx.weights)
    if cover is None:
        return uncovered(raw.prime, ctx.prime_drawn)
    b = min(1.0, sz + cover[0])
    if b > threshold:
        return Ground(False, b, (
            f"not saturated: the bound on a false saturation is {b:.3g} > "
            f"threshold {threshold:g} (prime {raw.prime} too small for rank {raw.rank} at "
            f"entry degree {e}); the rank stopped below the sample size but is a lower "
            "bound only"))
    return Ground(True, b, (
        f"probability bound: a false saturation (the rank over GF({raw.prime}) below the "
        f"separation rank over Q) has probability <= {b:.2g}, covering the "
        f"random {'weights and ' if ctx.random_weights else ''}sample points (Schwartz-Zippel, "
        f"entry degree {e}, prime {raw.prime}), {declared}{cover[1]}; threshold {threshold:g}"))


def constants_cover(raw, ctx: GroundContext, sizes, points: int | None = 0,
                    weights: dict | None = None,
                    rows: bool = True) -> tuple[float, str] | None:
    """(the constants' term of the bound, what the text says of them); None: nothing
    covers them (a fixed prime and constants seprank did not write, or a drawn prime but
    no bound on the constants' integers could be traced). ``points``: bits of the grid's
    constant points (an alphabet's letters; None: unknown). With ``rows`` (a grid ``apply``
    evaluated in batches), a class seprank does not ship adds the one-row check's term and
    sentence (:func:`seprank.engine.row_check.spot_cover`)."""
    cover = _constants_term(raw, ctx, sizes, points, weights)
    spot = row_check.spot_cover(ctx.net) if rows and cover is not None else None
    return cover if spot is None else (cover[0] + spot[0], f"{cover[1]}, {spot[1]}")


def _constants_term(raw, ctx: GroundContext, sizes, points: int | None = 0,
                    weights: dict | None = None) -> tuple[float, str] | None:
    """:func:`constants_cover` without the one-row check."""
    net, prime_drawn = ctx.net, ctx.prime_drawn
    if not prime_drawn and (weights is not None or not shipped_function(type(net))):
        return None  # constants seprank did not write, at a prime fixed before them
    if not prime_drawn:  # a class seprank ships, drawn weights: the prime is never drawn
        why = ("seprank's default prime, which its own classes keep so that their results "
               "and certificates are reproducible" if raw.prime == DEFAULT_PRIME else
               "fixed by the caller (prime=)")
        return 0.0, ("not the integer constants of seprank's own code nor the finitely many "
                     "primes where the ranks over GF(p) and Q differ (no bound on them is "
                     f"stated at a fixed prime): prime {raw.prime} is {why}; confirm with "
                     "other primes: --confirm K")
    size = _constants.size_bits(net, weights)
    if size is None or points is None:
        return None
    if points:  # the grid's points are constants (an alphabet): |f(a)| grows by |a|^degree
        e_in = entry_degree(net, random_weights=False) or 0
        size = (size[0] + e_in * points, size[1], size[2])
    c = _constants.bound(sizes, size)
    return c, (f"constants{' and given weights' if weights is not None else ''} (prime "
               f"{raw.prime} drawn at random from [2^25, 2^26): it divides the integers they "
               f"produce with probability <= {c:.1g})")

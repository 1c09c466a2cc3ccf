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

from fractions import Fraction

import numpy as np

from seprank import labels
from seprank.algebra.degree import DegreeDomain
from seprank.algebra.domains import Symbolic, raw
from seprank.algebra.float_rank import float_distrust
from seprank.engine import constants as _constants
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
                          "(method=float still does)") from None  # fmt: skip
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


def schwartz_zippel_bound(m, e: int) -> float:
    """The bound of the module docstring for a modular, random-sampler Measurement."""
    p = m.prime
    sizes = [min(int(r), int(c)) for r, c, _ in m.history]
    if _detail(m, "graded") is not None:  # one matrix per block, and the degree support's bounds
        total = 0.0
        for b in m.blocks:
            total += sum(n for n in sizes if n <= b["samples"][0]) * e / p
        g = _detail(m, "graded") or {}
        total += g.get("support_miss_bound", 0.0) + g.get("homogeneity_false_bound", 0.0)
    else:
        total = sum(sizes) * e / p
    return min(1.0, float(total))


def _detail(m, key: str) -> dict | None:
    """The measurement's detail as a dict when it is written under ``key``, else None."""
    d = getattr(m, "detail", None)
    return d.to_dict() if d is not None and d.key == key else None


def weight_degree(net) -> int:
    """Degree in the weights of each coefficient of F = e_c^T P_L(S) (LinearSelfAttention):
    a layer multiplies four weight matrices into three copies of P, so w_{l+1} = 4 + 3 w_l,
    w_0 = 0: w_L = 2 (3^L - 1)."""
    return 2 * (3**net.depth - 1)


def _given_weights(m, what: str, of: str = "the separation rank"):
    """Nothing sampled and nothing random (the weights given): not saturated, no bound."""
    m.saturated, m.saturation_bound = False, None
    m.saturation_reason = (f"{what} with given weights: nothing random, so no probability "
                           f"bound; the rank over GF(p) is a lower bound on {of} of this "
                           "integer network")  # fmt: skip
    return m


def _label_coefficients(m, net, threshold: float, random_weights: bool):
    """The catalecticant strategy samples nothing: a block's GF(p) rank is below its
    generic rank R only if the random weights hit the zero set of a nonsingular R x R
    minor of the generic block, of degree <= R w in the weights: probability <= R w / p.
    R is unknown, so the block's upper bound stands for it (the proved bound where there
    is one, else its short side); the blocks are summed (a union bound).

    A block ranked through random sketches (the sketch strategy: ``sketch``, the sizes
    ranked, and ``sketch_degree``, the degree of a sketch entry in its draws) adds
    sum over its sizes of min(s, upper) x sketch_degree / p (proved in
    :mod:`seprank.engine.strategies.sketch`), except where its rank is its short side."""
    if not random_weights:
        return _given_weights(m, "catalecticant")
    w = weight_degree(net)
    total = 0.0
    sketched = any("sketch" in b for b in m.blocks)
    for b in m.blocks:
        upper = min(b["shape"]) if b.get("bound") is None else min(b["bound"], *b["shape"])
        own = upper * w / m.prime
        if "sketch" in b and b["rank"] < min(b["shape"]):
            own += sum(min(s, upper) for s in b["sketch"]) * b["sketch_degree"] / m.prime
        total += own
        b["saturation_bound"] = min(1.0, own)
        # a sketch that reached its cap did not stop: a lower bound only, whatever its bound
        b["saturated"] = b["saturation_bound"] <= threshold and b.get("stopped", True)
    bound = min(1.0, total)
    m.saturation_bound, m.saturated = bound, bound <= threshold
    what = ("sketches (the weights and the sketch points random): a block's sketch rank is "
            "below its generic rank only if the weights hit a minor's zero set or the sketch "
            "points hit its sketch minor's, probability <= sum over the blocks of (upper "
            f"bound) x weight degree {w} / p + sum over its sketch sizes s of min(s, upper) x "
            f"sketch degree / p = {bound:.2g}" if sketched else
            "coefficients (nothing sampled; only the weights random): the GF(p) rank is below "
            "the generic rank only if the weights hit a minor's zero set, probability <= sum "
            f"over the blocks of (upper bound) x weight degree {w} / p = {bound:.2g}")
    m.saturation_reason = what + " (Schwartz-Zippel)" + ("" if m.saturated else
        f" > threshold {threshold:g}; each block is labelled on its own")  # fmt: skip
    return m


def _label_expanded(m, net, threshold: float, random_weights: bool, prime_drawn: bool = False):
    """f's coefficient matrix over GF(p), expanded (nothing sampled): its rank is below the
    rank over Q only if p divides every maximal minor; with random weights, a nonzero R x R
    minor of the generic matrix (R at most s, the most monomials on the short side, from
    the degree: the expand detail's ``side_bound``, which no draw can shrink, unlike the reduced
    matrix's shape) has degree <= R e in them (e the entry degree): probability <= s e / p."""
    if not random_weights:
        return _given_weights(m, "coefficient matrix", "the rank over Q")
    e, side = entry_degree(net, random_weights), (_detail(m, "expand") or {}).get("side_bound")
    b = 1.0 if e is None or side is None else min(1.0, side * e / m.prime)
    cover = _constants_cover(m, net, None, prime_drawn, [side or 0])
    if cover is None:
        return _uncovered(m, prime_drawn)
    b = min(1.0, b + cover[0])
    m.saturation_bound, m.saturated = b, b <= threshold
    m.saturation_reason = (
        f"coefficient matrix (nothing sampled; only the weights random): its GF(p) rank is "
        f"below the rank over Q only if the weights hit a minor's zero set (short side's "
        f"monomials x entry degree / p) or p divides what the constants produce: "
        f"probability <= {b:.1e}, covering the weights, {cover[1]}" + ("" if m.saturated else
                                                   f" > threshold {threshold:g}"))  # fmt: skip
    return m


def _uncovered(m, prime_drawn: bool):
    """Not saturated: nothing covers the constants (:func:`_constants_cover` gave None)."""
    m.saturated, m.saturation_bound = False, None
    m.saturation_reason = (
        (f"prime {m.prime} was fixed (prime=), and the constants of code seprank does "
         "not ship and given weights are not random: no probability covers them (they "
         "may cancel mod p); leave prime unset to have it drawn at random, which does"
         if not prime_drawn else
         "the prime was drawn at random to cover the constants, but apply does not run "
         "on the coefficient-size arrays (seprank.algebra.height), so no bound covers "
         "them") + "; a lower bound only")  # fmt: skip
    return m


def _label_float(m, stopped: bool, net=None):
    """A float rank is never saturated; trusted or not, and of a non-polynomial neither."""
    # the trust criteria read the raw stop (m.saturated, still the engine's) first
    why = float_distrust(m) if stopped else ("the rank reached the sample size" + (
        " (budget hit)" if m.budget_hit else ""))  # fmt: skip
    m.saturated, m.saturation_bound = False, None
    m.trusted = why is None and m.polynomial is True
    if m.polynomial is None:  # not known to be a polynomial, nor known not to be
        m.saturation_reason = (
            f"untrusted: {getattr(net, 'polynomial_reason', None) or 'an unsupported operation'}"
            "; seprank cannot tell whether the module is a polynomial, so a float rank on one "
            "grid is an estimate only, never trusted" + (f"; also {why}" if why else ""))
    elif not m.polynomial:
        m.saturation_reason = (
            f"{labels.NOT_POLYNOMIAL}: the network is not a polynomial, so its separation "
            "rank need not be finite and a float rank on one grid (which grows with the "
            "grid) is a number about that grid only" + (f"; also {why}" if why else ""))
    elif why is None:
        m.saturation_reason = ("float: a clear gap at the rank, the same rank after "
                               "equilibration (float_trustworthy); an estimate with no "
                               "probability bound, never saturated")  # fmt: skip
    else:
        m.saturation_reason = f"untrusted: {why}; an estimate only"
    return m


def label(m, net, threshold: float = DEFAULT_THRESHOLD, random_weights: bool = True,
          prime_drawn: bool = False, weights: dict | None = None):
    """Set ``sample_saturated``, ``saturated``, ``saturation_bound`` and ``_reason`` on m.

    ``prime_drawn``: the prime was drawn at random (:mod:`seprank.engine.constants`), so
    the bound covers the constants of the code and the given ``weights`` too."""
    raw = bool(m.saturated)
    m.sample_saturated, m.saturation_threshold = raw, float(threshold)
    if m.method == "symbolic":
        m.saturation_bound, m.saturated = 0.0, True
        m.saturation_reason = "exact: rank of the coefficient matrix (no sampling)"
        return m
    m.polynomial = bool(getattr(net, "polynomial", True))
    if not m.polynomial and getattr(net, "polynomial_unknown", False):
        m.polynomial = None  # an operation seprank's interpreter does not know: unknown
    if m.method == "float":
        return _label_float(m, raw, net)
    if not raw:
        if _detail(m, "catalecticant") is not None and any("sketch" in b for b in m.blocks):
            _label_coefficients(m, net, threshold, random_weights)  # each block on its own
            m.saturation_bound = None  # the whole is a lower bound: no probability to state
        m.saturated = False
        m.saturation_reason = ("budget hit: the rank reached the sample size; a lower bound only"
                               if m.budget_hit else "the rank reached the sample size") + (
            "; the blocks whose sketch stopped below its cap are labelled on their own"
            if any("sketch" in b for b in m.blocks) else "")  # fmt: skip
        return m
    if _detail(m, "catalecticant") is not None:  # its blocks, nothing sampled: weights random
        return _label_coefficients(m, net, threshold, random_weights)
    if m.sampler == "coefficients":  # f's whole coefficient matrix over GF(p): no sample
        return _label_expanded(m, net, threshold, random_weights, prime_drawn)
    if m.sampler == "alphabet" and not random_weights:  # complete grid, given weights
        return _given_weights(m, "complete grid over the alphabet")
    if m.sampler == "alphabet":  # the complete grid: nothing sampled, only the weights random
        return _label_alphabet(m, net, threshold, random_weights, prime_drawn)
    if m.sampler != "random":
        m.saturated = False
        m.saturation_reason = ("templates sampler: the rank plateaued below the number of "
                               "distinct rows and columns, but a template grid is not a "
                               "generic sample: no probability bound; a lower bound only")
        return m
    e = entry_degree(net, random_weights)
    if e is None:
        m.saturated = False
        m.saturation_reason = (f"{type(net).__name__} is not a polynomial seprank can bound "
                               "the degree of: no probability bound on a false saturation; "
                               "a lower bound only")  # fmt: skip
        return m
    sz = schwartz_zippel_bound(m, e)
    cover = _constants_cover(m, net, weights, prime_drawn, _step_sizes(m))
    if cover is None:
        return _uncovered(m, prime_drawn)
    b = min(1.0, sz + cover[0])
    m.saturation_bound = b
    if b > threshold:
        m.saturated = False
        m.saturation_reason = (
            f"not saturated: the bound on a false saturation is {b:.3g} > "
            f"threshold {threshold:g} (prime {m.prime} too small for rank {m.rank} at entry "
            f"degree {e}); the rank stopped below the sample size but is a lower bound only")
        return m
    m.saturated = True
    declared = ("declarations (degree, homogeneity: tested), " if _detail(m, "graded") is not None
                else "")  # fmt: skip
    m.saturation_reason = (
        f"probability bound: a false saturation (the rank over GF({m.prime}) below the "
        f"separation rank over Q) has probability <= {b:.2g}, covering the "
        f"random {'weights and ' if random_weights else ''}sample points (Schwartz-Zippel, "
        f"entry degree {e}, prime {m.prime}), {declared}{cover[1]}; threshold {threshold:g}")
    return m


def _label_alphabet(m, net, threshold: float, random_weights: bool, prime_drawn: bool):
    """The complete grid over an alphabet with random weights: nothing sampled."""
    e = entry_degree(net, random_weights)
    # the rank over Q, R, is unknown but at most the grid's short side (not the GF(p)
    # rank, which may have fallen below R): the bound must not depend on the draw
    b = 1.0 if e is None else min(1.0, min(m.samples) * e / m.prime)
    cover = _constants_cover(m, net, None, prime_drawn, [min(m.samples)],
                             points=_alphabet_bits(net))
    if cover is None:
        return _uncovered(m, prime_drawn)
    b = min(1.0, b + cover[0])
    m.saturation_bound = b
    m.saturated = b <= threshold
    m.saturation_reason = (
        f"complete grid over the alphabet (nothing sampled): its GF(p) rank is below the "
        f"rank over Q only if the random weights hit a minor's zero set (short side x "
        f"entry degree / p) or p divides what the constants and the alphabet produce: "
        f"probability <= {b:.1e}, covering the weights, {cover[1]}" + (
            "" if m.saturated else f" > threshold {threshold}"))  # fmt: skip
    return m


def _step_sizes(m) -> list[int]:
    """The grid sizes of the steps run (per block for graded), as the Schwartz-Zippel
    bound sums them."""
    sizes = [min(int(r), int(c)) for r, c, _ in m.history]
    if _detail(m, "graded") is not None:
        return [n for b in m.blocks for n in sizes if n <= b["samples"][0]]
    return sizes


def _alphabet_bits(net) -> int | None:
    """Bits of the largest letter's entry (integer alphabets), None for another alphabet."""
    try:
        letters = np.asarray(raw(net.alphabet(Symbolic())), dtype=object).ravel()
        vals = [Fraction(v) for v in letters]
    except Exception:  # noqa: BLE001 - no exact letters: not covered
        return None
    if any(v.denominator != 1 for v in vals):
        return None
    return max([abs(int(v)).bit_length() for v in vals] + [0])


def _constants_cover(m, net, weights, prime_drawn: bool, sizes,
                     points: int | None = 0) -> tuple[float, str] | None:  # fmt: skip
    """(the constants' term of the bound, what the text says of them); None: nothing
    covers them (a fixed prime and constants seprank did not write, or a drawn prime but
    no bound on the constants' integers could be traced)."""
    if not prime_drawn and (weights is not None or not shipped_function(type(net))):
        return None  # constants seprank did not write, at a prime fixed before them
    if not prime_drawn:
        given = " and the given weights" if weights is not None else ""
        return 0.0, (f"not the constants of the code{given}"
                     f" nor the finitely many primes where the ranks over GF(p) and Q "
                     f"differ: prime {m.prime} was fixed (leave prime unset to have it drawn "
                     "at random, which covers them; or confirm with other primes: "
                     "--confirm K)")  # fmt: skip
    size = _constants.size_bits(net, weights)
    if size is None or points is None:
        return None
    if points:  # the grid's points are constants (an alphabet): |f(a)| grows by |a|^degree
        e_in = entry_degree(net, random_weights=False) or 0
        size = (size[0] + e_in * points, size[1], size[2])
    c = _constants.bound(sizes, size)
    return c, (f"constants{' and given weights' if weights is not None else ''} (prime "
               f"{m.prime} drawn at random from [2^25, 2^26): it divides the integers they "
               f"produce with probability <= {c:.1g})")  # fmt: skip

"""Is f homogeneous, and of which degree? Declared by the architecture or checked at points.

An architecture may declare ``degree`` (total degree of f in the inputs) and
``homogeneous`` (bool). seprank never takes a declaration on trust:

- declared homogeneous of degree T: check ``f(tX) = t^T f(X)`` at random (t, X); a
  failure is a ConfigError (the declaration is wrong);
- degree declared, homogeneity not: interpolate ``g(t) = f(tX)`` at T+1 points and test
  the claim beyond itself: the interpolant must give g at two random t outside them (a
  polynomial of degree <= T always passes; a larger degree D fails except with
  probability <= 2 D / p per probe); then f is homogeneous iff every probe's g has one
  nonzero coefficient, at the same power;
- nothing declared: find the degree of g by interpolation with growing point counts
  (up to MAX_DEGREE), then as above.

Every check is probabilistic only through Schwartz-Zippel: the returned
``false_bound`` bounds the probability that a non-homogeneous f (or a wrong degree)
passed it. A false declaration's chance of passing is computed with D, an upper bound on
f's true degree that does not trust the declaration: for a class seprank does not ship,
the degree traced by running its ``apply`` on degree arrays
(:func:`seprank.engine.saturation.trace_degree`); the declared one otherwise (a shipped
class's declarations are tested code). Only GF(p) is supported (exact arithmetic).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seprank.algebra.vandermonde import interpolate
from seprank.engine import line_check, saturation
from seprank.engine.evaluate import evaluate
from seprank.errors import ConfigError
from seprank.nets.base import input_dim

#: Probes (independent random inputs) per check.
PROBES = 3
#: Degrees searched when an architecture declares none.
MAX_DEGREE = 1024


@dataclass(frozen=True)
class Homogeneity:
    """Outcome: ``homogeneous``, its ``degree`` T, how it was established (``source``) and
    a Schwartz-Zippel upper bound ``false_bound`` on the chance that the check misled."""

    homogeneous: bool
    degree: int | None
    source: str
    false_bound: float = 0.0


def _values(net, params, domain, X, ts):
    """g(t) = f(tX) for every t in ts, one batch."""
    batch = np.concatenate([(int(t) * X) % domain.p for t in ts])
    return np.asarray(evaluate(net, params, batch, domain), dtype=np.int64) % domain.p


def _probe(net, domain, rng):
    return domain.random(rng, (1, net.seq_len, input_dim(net)))


def _find_degree(net, params, domain, rng) -> int | None:
    """Degree of g(t) = f(tX) (max over probes) by interpolation, or None if > MAX_DEGREE."""
    p = domain.p
    n = 4
    while n <= min(MAX_DEGREE, p - 3):
        ts = list(range(n + 1))
        found = 0
        for _ in range(PROBES):
            X = _probe(net, domain, rng)
            c = interpolate(ts, _values(net, params, domain, X, ts), p)
            extra = [int(v) for v in rng.integers(n + 1, p, size=2)]
            pred = [sum(int(ci) * pow(t, k, p) for k, ci in enumerate(c)) % p for t in extra]
            if pred != [int(v) for v in _values(net, params, domain, X, extra)]:
                break
            nz = np.nonzero(c)[0]
            found = max(found, int(nz[-1]) if nz.size else 0)
        else:
            return found
        n *= 2
    return None


def homogeneity(net, params, domain, rng) -> Homogeneity:
    """Decide whether f (the net with these params, over GF(p)) is homogeneous."""
    p = domain.p
    declared = getattr(net, "homogeneous", None)
    T = getattr(net, "degree", None)
    if declared is False:
        return Homogeneity(False, T, "declared not homogeneous by the architecture")
    D = _true_degree_bound(net, T)
    if declared and T is not None and p > 2:  # GF(2) has no t != 0, 1 to probe with
        for _ in range(PROBES):
            X = _probe(net, domain, rng)
            t = int(rng.integers(2, p))
            f1, ft = _values(net, params, domain, X, [1, t])
            if int(ft) != pow(t, T, p) * int(f1) % p:
                raise ConfigError(
                    f"net={type(net).__name__} declares homogeneous of degree={T}, but "
                    f"f(tX) != t^{T} f(X) at a random point"
                )
        return Homogeneity(
            True, T, f"declared by the architecture, checked at {PROBES} random points",
            _per_probe(2 * max(T, D), p),
        )
    source = "declared degree" if T is not None else "detected degree"
    if T is None:
        T = _find_degree(net, params, domain, rng)
        if T is None:
            return Homogeneity(False, None, f"degree not found up to {MAX_DEGREE}")
    if T + 1 >= p:
        return Homogeneity(False, T, f"prime={p} too small to interpolate degree {T}")
    if T + 3 >= p:
        return Homogeneity(False, T, f"prime={p} too small to test degree {T} beyond itself")
    ts = list(range(T + 1))
    powers = set()
    for _ in range(PROBES):
        X = _probe(net, domain, rng)
        c = interpolate(ts, _values(net, params, domain, X, ts), p)
        if source == "declared degree":  # the claim tested beyond itself
            extra = [int(v) for v in rng.integers(T + 1, p, size=2)]
            got = [int(v) for v in _values(net, params, domain, X, extra)]
            if got != [_horner(c, t, p) for t in extra]:
                raise ConfigError(
                    f"net={type(net).__name__} declares degree={T}, but f(tX) at a random "
                    f"point is not a polynomial of degree <= {T} in t (interpolated at "
                    f"{T + 1} points, tested at 2 more): the declared degree is too small")
        powers |= set(int(k) for k in np.nonzero(c)[0])
    if len(powers) > 1:
        return Homogeneity(False, T, f"{source}; components of degrees {sorted(powers)} found")
    T = powers.pop() if powers else T
    how = ("tested beyond the claim at 2 more points per probe, " if source ==
           "declared degree" else "")
    # a false pass: per probe, X kills a top component (<= D/p) or the two extra t are
    # roots of g minus the interpolant (<= (D/(p - T - 1))^2); then the single-power test
    # (a component missed at X: (T + 1) T / p over the probes)
    # (the detected degree passed the same kind of test: interpolation, then 2 more points)
    Dm = max(D, T)
    miss = _per_probe(Dm / p + (Dm / max(1, p - T - 1)) ** 2, 1.0)
    return Homogeneity(
        True, T, f"{source}, {how}homogeneity checked by interpolation at {PROBES} random "
        "points", min(1.0, miss + (T + 1) * (max(T, D) / p) ** PROBES),
    )


def _horner(c, t: int, p: int) -> int:
    """The polynomial with coefficients ``c`` (lowest first) at t, mod p."""
    v = 0
    for ci in reversed([int(x) for x in c]):
        v = (v * t + ci) % p
    return v


def _per_probe(chance: float, p: float) -> float:
    """(chance / p) ** PROBES, at most 1: PROBES independent probes all passing."""
    q = chance / p
    return 1.0 if q >= 1 else q**PROBES


def _true_degree_bound(net, T) -> int:
    """D: an upper bound on f's degree in its inputs that does not trust a declaration
    (module docstring); the declared T where nothing else is known."""
    if line_check.needs_check(net):  # the total degree (weights too) bounds the inputs' one
        traced = saturation.traced_degree(net)
        if traced is not None:
            return max(int(traced), int(T or 0))
    return int(T or 0)

"""Weights a user gives (``measure(weights=...)``): checked against ``init``'s structure and
converted exactly, so the float, modular and symbolic engines see the same function.

Every value is read by the rule the domains apply to constants: integers and bools as they
are, ``fractions.Fraction`` as it is, and a finite float as the exact binary fraction it
holds (0.5 is 1/2; 0.1 is 3602879701896397/36028797018963968, the number a float
computation uses: give Fraction(1, 10) for a tenth). A value with no exact reading is
refused in one line naming the key, the value and the fix; so are a missing key, an extra
key and a wrong shape. Nothing is truncated: the modular and symbolic engines compute with
these exact values; the float engine reads each as the nearest float64 (1/3, or an integer
above 2^53, is rounded there: a float rank is an estimate anyway, and its label says so).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from seprank.algebra.domains import Float64, raw
from seprank.algebra.field_array import exact_float
from seprank.errors import ConfigError, DomainError


def _exact(key: str, v) -> int | Fraction:
    """One weight as an int or a Fraction, or a ConfigError naming ``key``."""
    if isinstance(v, (bool, np.bool_, int, np.integer)):
        return int(v)
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (float, np.floating)):
        q = exact_float(v)
        if q is not None:
            return q
        raise ConfigError(f"weights[{key!r}] holds {v!r}, not a finite float64: give "
                          "integers or fractions.Fraction values")
    raise ConfigError(f"weights[{key!r}] holds a {type(v).__name__} ({v!r}): give integers, "
                      "fractions.Fraction or exact floats")


def _structure(net, seed: int):
    """``init``'s weights under Float64: the keys and shapes the given weights must have."""
    expected = net.init(np.random.default_rng(seed), Float64())
    if not isinstance(expected, dict):
        raise ConfigError(f"weights=: {type(net).__name__}.init returns a "
                          f"{type(expected).__name__}, not a dict of arrays, so its weights "
                          "cannot be given by name")
    return expected


def check_weights(net, weights, seed: int = 0) -> dict:
    """The given weights as exact numbers (object arrays of int/Fraction), checked.

    Parameters
    ----------
    net : Architecture
        The network; its ``init`` gives the expected keys and shapes.
    weights : dict
        Arrays (or nested lists, or scalars) by key.
    seed : int, default 0
        Seed for the structure-only call of ``init``.

    Returns
    -------
    dict
        The same keys, each an object ndarray of ints and Fractions.

    Raises
    ------
    ConfigError
        If ``weights`` is not a dict, a key is missing or unknown, a shape differs from
        ``init``'s, or a value is not an exact rational.
    """
    if not isinstance(weights, dict):
        raise ConfigError(f"weights={type(weights).__name__}: must be a dict of arrays (the "
                          "keys of net.init)")
    expected = _structure(net, seed)
    missing = [k for k in expected if k not in weights]
    if missing:
        raise ConfigError(f"weights: key {missing[0]!r} is missing (expected keys: "
                          f"{', '.join(map(str, expected))})")
    extra = [k for k in weights if k not in expected]
    if extra:
        raise ConfigError(f"weights: key {extra[0]!r} is not a weight of "
                          f"{type(net).__name__} (expected keys: "
                          f"{', '.join(map(str, expected))})")
    out = {}
    for k, want in expected.items():
        got = np.array(weights[k], dtype=object)
        if got.shape != np.shape(raw(want)):
            raise ConfigError(f"weights[{k!r}]: shape {got.shape} given, "
                              f"{np.shape(raw(want))} expected (as net.init draws it)")
        out[k] = np.array([_exact(k, v) for v in got.ravel()], dtype=object).reshape(got.shape)
    return out


def weights_in(domain, exact: dict) -> dict:
    """Checked weights (:func:`check_weights`) as ``domain``'s raw arrays.

    Parameters
    ----------
    domain : Domain
        The number system.
    exact : dict
        Object arrays of ints and Fractions.

    Returns
    -------
    dict
        The same keys, as the arrays ``init`` would return in ``domain``.

    Raises
    ------
    ConfigError
        If a weight has no value in the domain (a denominator or a nonzero numerator
        divisible by the prime), naming the key.
    """
    out = {}
    for k, v in exact.items():
        try:
            out[k] = raw(domain.constant(v))
        except DomainError as exc:
            raise ConfigError(f"weights[{k!r}]: {exc}") from None
    return out

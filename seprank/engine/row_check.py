"""The one-row protocol, checked before any measurement of a class seprank does not ship.

seprank evaluates ``apply`` on batches: row i of the output must be f at row i of the input,
whatever the other rows hold. Code that mixes the batch axis (``X - X.mean(axis=0)``, a
one-character slip for ``axis=1``; a sum over axis 0) computes something else on every grid,
and the rank of that grid would be printed under the function's name. So ``apply`` is run
on a batch of random inputs, on a permuted copy of it (rows permuted the same way) and on
its two halves; the outputs must agree row by row (exactly in GF(p); to a relative 1e-9
in float64), or the measurement is refused.

The property belongs to the code, not to a partition: one network object passes once per
process for a domain and seed (:func:`check_rows` remembers the last 32 objects that
passed, by identity, and holds them so that an identity is never reused; a failure is never
remembered), so measuring it on many partitions checks it once. An equal configuration in
another object (a module edited and reloaded, a class redefined) is checked again.
"""

from __future__ import annotations

import numpy as np

from seprank.algebra.domains import raw
from seprank.engine.evaluate import evaluate
from seprank.errors import ConfigError
from seprank.nets.base import input_dim

#: Rows of the probe batch (even, so it has two halves).
ROWS = 4
#: Relative tolerance of the float64 comparison.
FLOAT_RTOL = 1e-9


def _inputs(net, domain, rng) -> np.ndarray:
    shape = (ROWS, net.seq_len, input_dim(net))
    if getattr(domain, "p", None) is not None:
        return rng.integers(0, domain.p, size=shape, dtype=np.int64)
    alphabet = getattr(net, "alphabet", None)
    if callable(alphabet):  # a net on tokens: rows of its alphabet at random
        letters = np.asarray(raw(alphabet(domain)), dtype=np.float64)
        return letters[rng.integers(0, len(letters), size=shape[:2])]
    return rng.standard_normal(shape)


def _same(a, b, exact: bool) -> np.ndarray:
    """Row by row: do ``a`` and ``b`` agree?"""
    if exact:
        return a == b
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)))
    return np.abs(a - b) <= FLOAT_RTOL * scale


def check_rows(net, domain, seed: int) -> None:
    """ConfigError unless ``apply`` computes each output row from its own input row.

    Parameters
    ----------
    net : Architecture
        The network (drawn weights from ``init(default_rng([seed, 6]))``).
    domain : Domain
        The number system of the measurement (ModP, or Float64 otherwise).
    seed : int
        The measurement's seed.

    Raises
    ------
    ConfigError
        If a row of the output changed when only other rows of the input changed.
    """
    key = (id(net), domain, int(seed))
    if _PASSED.get(key, (None,))[0] is not net:
        _check(net, domain, seed)
        _PASSED[key] = (net,)  # held: its id cannot be reused while it is remembered
        while len(_PASSED) > 32:
            _PASSED.pop(next(iter(_PASSED)))
    return None


#: (id of the network, domain, seed) -> (the network,) for the objects that passed, oldest
#: first.
_PASSED: dict = {}


def _check(net, domain, seed: int) -> None:
    """The check itself (:func:`check_rows`, which remembers a pass)."""
    rng = np.random.default_rng([seed, 6])
    params = net.init(rng, domain)
    X = _inputs(net, domain, rng)
    exact = getattr(domain, "p", None) is not None
    whole = evaluate(net, params, X, domain)
    perm = rng.permutation(ROWS)
    while np.array_equal(perm, np.arange(ROWS)):
        perm = rng.permutation(ROWS)
    permuted = np.empty_like(whole)
    permuted[perm] = evaluate(net, params, X[perm], domain)
    halves = np.concatenate([evaluate(net, params, X[: ROWS // 2], domain),
                             evaluate(net, params, X[ROWS // 2 :], domain)])  # fmt: skip
    for how, other in (("the batch was permuted", permuted), ("the batch was halved", halves)):
        bad = ~_same(whole, other, exact)
        if bad.any():
            i = int(np.nonzero(bad)[0][0])
            raise ConfigError(f"{type(net).__name__}.apply mixes the batch axis: row {i} of "
                              f"the output changed when other rows changed ({how}); row i "
                              "of the output must depend on row i of the input only (an "
                              "axis=0 reduction, e.g. X.mean(axis=0) for axis=1?)")  # fmt: skip

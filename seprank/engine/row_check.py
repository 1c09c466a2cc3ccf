"""The one-row protocol, checked before any measurement of a class seprank does not ship.

seprank evaluates ``apply`` on batches: row i of the output must be f at row i of the input,
whatever the other rows hold. Code that mixes the batch axis (``X - X.mean(axis=0)``, a
one-character slip for ``axis=1``; a sum over axis 0) computes something else on every grid,
and the rank of that grid would be printed under the function's name. So ``apply`` is run
on a batch of random inputs, on a permuted copy of it (rows permuted the same way) and on
its two halves; the outputs must agree row by row (exactly in GF(p); to a relative 1e-9
in float64), or the measurement is refused.

That probe looks at 4 rows; a measurement evaluates batches of other sizes (up to
``chunk`` rows), and code may behave differently there (a branch on ``len(X)``, a buffer
sized once). So the batches a measurement of such a class evaluates are checked too
(:class:`SpotChecker`, called by :func:`seprank.engine.sample_grid.evaluate_grid`): the
first batch of every size the measurement evaluates has one random row recomputed alone
(a batch of one row), or (a fair coin decides) ``SPOT_ROWS`` random rows together in
another order with a fresh row (a batch of another size and composition), and any
mismatch refuses the measurement. Code whose output changes with the batch size on a
fraction q of the rows passes the check of that size with probability at most 1 - q;
code that changes one row position of one batch size only, or only some batches of a
size already checked, can pass (no check short of recomputing every entry excludes
that).

The 4-row probe belongs to the code, not to a partition: one network object passes once per
process for a kind of domain and seed (:func:`check_rows` remembers the last 32 objects that
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
#: Rows of each evaluated batch that :func:`spot_check` recomputes in other batches.
SPOT_ROWS = 2


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
    key = (id(net), domain.name, int(seed))  # the code's property, whatever the prime
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


class SpotChecker:
    """:func:`spot_check` on the first batch of every size one evaluator sees.

    Parameters
    ----------
    rng : numpy.random.Generator
        The checks' own stream (the sample points never move).
    """

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.sizes: set[int] = set()

    def __call__(self, net, params, domain, X, out) -> None:
        """Check this batch if it is the first of its size (:func:`spot_check`).

        Parameters
        ----------
        net : Architecture
            The network.
        params : object
            The weights the batch was evaluated with.
        domain : Domain
            The number system.
        X : numpy.ndarray
            The batch.
        out : numpy.ndarray
            Its outputs.
        """
        if len(X) not in self.sizes:
            self.sizes.add(len(X))
            spot_check(net, params, domain, X, out, self.rng)


def spot_check(net, params, domain, X, out, rng: np.random.Generator) -> None:
    """ConfigError unless random rows of a batch the measurement evaluated come out the
    same in a batch of another size and composition (module docstring).

    Parameters
    ----------
    net : Architecture
        The network.
    params : object
        The weights the batch was evaluated with.
    domain : Domain
        The number system (ModP or Float64).
    X : numpy.ndarray
        The batch, shape (n, seq_len, width).
    out : numpy.ndarray
        Its outputs, shape (n,).
    rng : numpy.random.Generator
        The check's own stream (the sample points never move).

    Raises
    ------
    ConfigError
        If a recomputed row differs from the batch's.
    """
    n = len(X)
    k = min(SPOT_ROWS, n)
    rows = rng.choice(n, size=k, replace=False)
    fresh = X[rng.integers(0, n, size=1 + (n == k + 1))]  # another row (or two): size != n
    alone = X[rows[:1]] if n > 1 else np.concatenate([X[rows[:1]], fresh[:1]])
    mixed = np.concatenate([X[rows[::-1]], fresh])
    exact = getattr(domain, "p", None) is not None
    if rng.integers(2):  # one more evaluation per batch: alone or mixed, at random
        size, want, got = len(alone), out[rows[:1]], evaluate(net, params, alone, domain)[:1]
    else:
        size, want, got = len(mixed), out[rows], evaluate(net, params, mixed, domain)[:k][::-1]
    bad = ~_same(np.asarray(want), np.asarray(got), exact)
    if bad.any():
        raise ConfigError(f"{type(net).__name__}.apply gives another value for the same "
                          f"input row in a batch of {n} rows than in a batch of {size}: "
                          "row i of the output must depend on row i of the input only, "
                          "whatever the batch's size and other rows (a branch on "
                          "len(X), a buffer of fixed size?)")  # fmt: skip

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
sized once, a slip at one index). So every batch a measurement of such a class evaluates
is checked too (:class:`SpotChecker`, called by
:func:`seprank.engine.sample_grid.evaluate_grid`): a sentinel row (a random input,
drawn as the probe's rows; over GF(p), the arithmetic check's point t = 0, evaluated
with the measurement's weights: :func:`seprank.engine.line_check.check_line`) is
evaluated alone once, and ``COPIES`` copies of it are placed at positions drawn
uniformly at random in every batch (drawn once per batch size: each batch's places are
uniform; the batch grows by ``COPIES`` rows, evaluated in the same call, so the check
costs at most one one-row evaluation per measurement); each copy must come out as the
sentinel did alone, or the measurement is refused.

What that bounds (:data:`MISS`, which joins the saturation bound: :func:`spot_cover`):
code that gives at least a fraction ``COVERED`` of the positions of some batch a value
other than the row's value alone, whatever rows those positions hold (a branch on the
batch size, a reduction over the batch axis, a buffer of fixed size that wraps), passes
the check of that batch with probability at most (1 - COVERED) ** COPIES = 1.0e-04 (the
copies' positions are drawn without replacement, independently of the code). Not
covered: a violation at fewer positions of every batch (one row position of one batch
size), or one that depends on the values of the rows there (only some rows, only some
batches): the sentinel can miss it, and no check short of recomputing every entry alone
excludes it.

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
from seprank.nets.registry import ARCHITECTURES

#: Rows of the probe batch (even, so it has two halves).
ROWS = 4
#: Relative tolerance of the float64 comparison.
FLOAT_RTOL = 1e-9
#: Copies of the sentinel row placed in every evaluated batch (:class:`SpotChecker`).
COPIES = 32
#: The fraction of a batch's positions a violation the check bounds reaches at least.
COVERED = 0.25
#: The chance that the copies miss such a violation in a batch: (1 - COVERED) ** COPIES.
MISS = (1.0 - COVERED) ** COPIES


def _inputs(net, domain, rng, rows: int = ROWS) -> np.ndarray:
    shape = (rows, net.seq_len, input_dim(net))
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
                             evaluate(net, params, X[ROWS // 2 :], domain)])
    for how, other in (("the batch was permuted", permuted), ("the batch was halved", halves)):
        bad = ~_same(whole, other, exact)
        if bad.any():
            i = int(np.nonzero(bad)[0][0])
            raise ConfigError(f"{type(net).__name__}.apply mixes the batch axis: row {i} of "
                              f"the output changed when other rows changed ({how}); row i "
                              "of the output must depend on row i of the input only (an "
                              "axis=0 reduction, e.g. X.mean(axis=0) for axis=1?)")


class SpotChecker:
    """Every batch one evaluator sees, evaluated with copies of a sentinel row at random
    positions, checked against the sentinel's value alone (module docstring).

    Parameters
    ----------
    rng : numpy.random.Generator
        The checks' own stream (the sample points never move).
    sentinel : tuple, optional
        (p, input row, its value alone, with the weights the batches are evaluated with)
        from :func:`seprank.engine.line_check.check_line`: used over GF(p) at that p,
        instead of evaluating a random row alone.
    """

    def __init__(self, rng: np.random.Generator, sentinel: tuple | None = None):
        self.rng = rng
        self.given = sentinel
        self.row: np.ndarray | None = None
        self.copies = self.want = None
        self.places: dict = {}

    def evaluate(self, net, params, domain, X) -> np.ndarray:
        """``evaluate(net, params, X, domain)``, checked: X's outputs, computed in one batch
        with :data:`COPIES` copies of the sentinel row at random positions.

        Parameters
        ----------
        net : Architecture
            The network.
        params : object
            The weights.
        domain : Domain
            The number system (ModP or Float64).
        X : numpy.ndarray
            The batch, shape (n, seq_len, width), n >= 1.

        Returns
        -------
        numpy.ndarray
            The outputs of X's rows, shape (n,).

        Raises
        ------
        ConfigError
            If a copy came out other than the sentinel alone.
        """
        n = len(X)
        if n == 0:
            return evaluate(net, params, X, domain)
        exact = getattr(domain, "p", None) is not None
        if self.row is None:  # the sentinel: a random input (not a grid row: t = 0 in
            # graded's interpolation makes rows with a zero side), evaluated alone
            if self.given is not None and self.given[0] == getattr(domain, "p", None):
                self.row = np.asarray(self.given[1], dtype=X.dtype)
                alone = np.array([self.given[2]], dtype=np.int64)
            else:
                self.row = _inputs(net, domain, self.rng, 1)[0]
                alone = evaluate(net, params, self.row[None], domain)[:1]
            self.copies = np.repeat(self.row[None], COPIES, axis=0)
            self.want = np.repeat(alone, COPIES)
        m = n + COPIES
        if m not in self.places:  # drawn once per batch size: each batch's are uniform
            self.places[m] = _places(self.rng, n)
        at, inside, free = self.places[m]
        batch = np.concatenate([X, self.copies])
        if inside.size:  # X's rows at the copies' places move to the places left free
            batch[free] = X[inside]
            batch[inside] = self.row
        out = evaluate(net, params, batch, domain)
        got = out[at]
        if not (np.array_equal(got, self.want) if exact else _same(got, self.want, False).all()):
            raise ConfigError(f"{type(net).__name__}.apply gives another value for the same "
                              f"input row in a batch of {m} rows than in a batch of 1: row "
                              "i of the output must depend on row i of the input only, "
                              "whatever the batch's size, the row's position and the other "
                              "rows (a branch on len(X), a buffer of fixed size, a sum over "
                              "the batch axis?)")
        if not inside.size:
            return out[:n]
        values = out[:n].copy()
        values[inside] = out[free]
        return values


def _places(rng: np.random.Generator, n: int) -> tuple:
    """The copies' places in a batch of n + COPIES rows, a uniform COPIES-subset ``at``
    (a permutation's head; a large batch: Floyd's sampling, O(COPIES)), with the places
    below n it takes (``inside``) and the places at n and above it leaves (``free``)."""
    m = n + COPIES
    at = rng.permutation(m)[:COPIES] if m <= 256 else rng.choice(m, size=COPIES, replace=False)
    low = at < n
    tail = np.ones(COPIES, dtype=bool)
    tail[at[~low] - n] = False
    return at, at[low], np.flatnonzero(tail) + n


def spot_cover(net) -> tuple[float, str] | None:
    """The one-row check's term of the saturation bound, and what the text says of it.

    Parameters
    ----------
    net : Architecture
        The network.

    Returns
    -------
    tuple or None
        (:data:`MISS`, its sentence) for a class seprank does not ship (its batches are
        checked by :class:`SpotChecker`); None for a shipped class (tested code).
    """
    if type(net) in set(ARCHITECTURES.values()):  # as line_check.needs_check decides
        return None
    return MISS, (f"the one-row property ({COPIES} copies of a sentinel row at random "
                  "positions of every batch apply evaluated: code that gives at least "
                  f"{COVERED:.0%} of a batch's positions another value than the row alone, "
                  f"whatever rows they hold, passes with probability <= {MISS:.1g}; a "
                  "violation at fewer positions or only for some rows' values is not "
                  "covered)")

"""The arithmetic of an architecture outside seprank, checked before its rank is trusted.

Field arrays make ordinary numpy exact in GF(p), but code can still step outside them
(``np.asarray(x)`` then int64 products that overflow, a preallocated numpy buffer, a
library with its own number type) and come back as plain numbers. Then the grid is not
the function's and a "certified" rank would be false. So before a modular measurement
of a class seprank does not ship, its output f is checked to be what the degree trace
says: with e the traced degree in the weights and inputs (DegreeArrays), the restriction
g(t) = f(W0 + t (W1 - W0), X0 + t (X1 - X0)) to a random line has degree <= e, i.e. its
(e+1)-th finite difference at t = 0..e+1 vanishes mod p. A polynomial of degree <= e
always passes (the check never refuses a right computation); arithmetic that left GF(p),
or a trace that under-counted the degree, fails except with small probability.
"""

from __future__ import annotations

import math

import numpy as np

from seprank.algebra.exact_array import ExactArray
from seprank.engine.evaluate import evaluate
from seprank.engine.saturation import trace_degree
from seprank.errors import DomainError
from seprank.nets.base import input_dim
from seprank.nets.registry import ARCHITECTURES


def needs_check(net) -> bool:
    """Every architecture except the classes seprank ships (whose code is tested)."""
    return type(net) not in set(ARCHITECTURES.values())


def _raw(a):
    return a.raw if isinstance(a, ExactArray) else np.asarray(a)


def _on_line(w0, w1, t: int, p: int):
    """The point W0 + t (W1 - W0) of nested dicts/lists of arrays (constants kept)."""
    if isinstance(w0, dict):
        return {k: _on_line(w0[k], w1[k], t, p) for k in w0}
    if isinstance(w0, (list, tuple)):
        return type(w0)(_on_line(a, b, t, p) for a, b in zip(w0, w1))
    a, b = _raw(w0), _raw(w1)
    if not isinstance(w0, np.ndarray) or a.dtype.kind not in "iu" or np.array_equal(a, b):
        return w0  # a constant: the same in both draws
    a, b = a.astype(object), b.astype(object)
    return np.asarray((a + t * (b - a)) % p, dtype=np.int64)


def check_arithmetic(net, domain, seed: int) -> int:
    """Run the check of the module docstring over ``domain`` (ModP); return e."""
    return check_line(net, domain, seed)[0]


def check_line(net, domain, seed: int, params=None) -> tuple[int, tuple | None]:
    """:func:`check_arithmetic`, the line starting at the measurement's own weights
    ``params`` when given: then its point t = 0 is apply's value alone (a batch of one
    row) at a random input, returned as a sentinel for the one-row check
    (:class:`seprank.engine.row_check.SpotChecker`), so that it costs no evaluation.

    Parameters
    ----------
    net : Architecture
        The network.
    domain : ModP
        The field.
    seed : int
        The measurement's seed.
    params : object, optional
        The measurement's weights in ``domain`` (default: drawn from ``[seed, 3]``).

    Returns
    -------
    tuple
        (e, the sentinel (p, input row, its value alone) or None without ``params``).
    """
    e = trace_degree(net)  # DomainError when apply does not run on degree arrays
    p = domain.p
    if e + 2 >= p:  # too small a prime to tell degree e from anything
        raise DomainError(f"prime={p} is too small to check the arithmetic of "
                          f"{type(net).__name__} (degree {e} needs p > {e + 2})")
    W0 = net.init(np.random.default_rng([seed, 3]), domain) if params is None else params
    W1 = net.init(np.random.default_rng([seed, 4]), domain)
    rng = np.random.default_rng([seed, 5])
    shape = (1, net.seq_len, input_dim(net))
    X0, X1 = rng.integers(0, p, size=shape), rng.integers(0, p, size=shape)
    g = [int(evaluate(net, _on_line(W0, W1, t, p), _on_line(X0, X1, t, p), domain)[0])
         for t in range(e + 2)]
    diff = sum((-1) ** (e + 1 - k) * math.comb(e + 1, k) * g[k] for k in range(e + 2)) % p
    if diff:
        raise DomainError(f"{type(net).__name__}.apply is not a polynomial of degree <= {e} "
                          f"over GF({p}) along a random line: some arithmetic left the field "
                          "arrays (np.asarray or .view(np.ndarray) then products, a numpy "
                          "buffer filled with products, another library's numbers); keep "
                          "to the arrays apply is given")
    return e, (None if params is None else (p, X0[0], g[0]))

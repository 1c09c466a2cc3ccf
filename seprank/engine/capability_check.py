"""A capability declared by a class seprank does not ship is checked against its ``apply``
before a fast path trusts it (seprank never takes a declaration on trust).

The shipped classes' capabilities are tested in the test suite; a user's class that
declares one gets the same fast path only once its declaration agrees with its own
``apply`` over GF(p) at random points (a wrong declaration is a ConfigError naming it):

- ``kernel()``: its grid against :func:`~seprank.engine.sample_grid.evaluate_grid` on a
  small random grid;
- ``structural_polynomial()``: f = F(S) x^i, from the declared form and the weights, against
  ``apply`` at random inputs.

Both differ, for a wrong declaration, except where random points hit the zero set of the
difference: probability at most (its degree) / p per point.
"""

from __future__ import annotations

import numpy as np

from seprank.engine import line_check
from seprank.engine import sample_grid as _grid
from seprank.engine import structural_poly as sp
from seprank.engine.evaluate import evaluate
from seprank.errors import ConfigError
from seprank.nets.base import input_dim

#: Random inputs each check compares at.
POINTS = 3


def needed(net) -> bool:
    """Whether ``net``'s declarations must be checked (a class seprank does not ship)."""
    return line_check.needs_check(net)


def check_kernel(net, kernel, params, domain, A, B, seed: int) -> None:
    """ConfigError unless the declared kernel's grid equals ``apply``'s on a random grid.

    Parameters
    ----------
    net : Architecture
        The network.
    kernel : callable
        What ``net.kernel()`` returned.
    params : object
        The weights in ``domain``.
    domain : ModP
        The field.
    A, B : tuple of int
        The sides.
    seed : int
        The measurement's seed (the check draws from ``default_rng([seed, 3])``).
    """
    rng = np.random.default_rng([seed, 3])
    d = input_dim(net)
    a_pts = _grid.random_points(domain, rng, POINTS, len(A), d)
    b_pts = _grid.random_points(domain, rng, POINTS + 1, len(B), d)
    got = kernel(params, a_pts, b_pts, A, B, domain.p)
    if got is None:
        return  # it declines this prime: the generic path evaluates
    want = _grid.evaluate_grid(net, params, domain, a_pts, b_pts, A, B)
    if not np.array_equal(np.asarray(got, dtype=np.int64) % domain.p,
                          np.asarray(want, dtype=np.int64) % domain.p):
        raise ConfigError(f"net={type(net).__name__} declares kernel(), but its grid differs "
                          "from apply's at random points over GF(p): the declaration is "
                          "wrong (remove it, or fix it)")


def check_form(net, form, params, domain, F, seed: int) -> None:
    """ConfigError unless f = F(S) x^i (the declared structural form, F built from the
    weights) equals ``apply`` at random inputs.

    Parameters
    ----------
    net : Architecture
        The network.
    form : StructuralForm
        What ``net.structural_polynomial()`` returned.
    params : object
        The weights in ``domain``.
    domain : ModP
        The field.
    F : list
        The d polynomials F_c in the entries of S (:func:`seprank.engine.structural_poly.build_F`).
    seed : int
        The measurement's seed (the check draws from ``default_rng([seed, 3])``).
    """
    p, d = domain.p, form.width
    X = domain.random(np.random.default_rng([seed, 3]), (POINTS, net.seq_len, d))
    want = np.asarray(evaluate(net, params, X, domain), dtype=np.int64).reshape(-1) % p
    pairs = sp.variable_pairs(d)
    for n in range(POINTS):
        x = [[int(v) for v in row] for row in np.asarray(X[n], dtype=np.int64)]
        S = [sum(row[a] * row[b] for row in x) % p for a, b in pairs]
        xi = x[form.query_position]
        got = sum(int(F[c](*S)) * xi[c] for c in range(d)) % p
        if got != int(want[n]):
            raise ConfigError(f"net={type(net).__name__} declares structural_polynomial(), "
                              "but F(S) x^i differs from apply at a random point over GF(p): "
                              "the declaration is wrong (remove it, or fix it)")

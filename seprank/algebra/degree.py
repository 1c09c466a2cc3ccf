"""A domain that computes degree upper bounds instead of values.

Every value is an integer array holding, per entry, an upper bound on its total degree as
a polynomial in the random quantities (weights drawn by ``random``: degree 1; inputs: 1;
constants from ``from_ints``: 0). The architecture's own ``apply`` then yields a proved
upper bound on the degree of its output, for any architecture written against the domain
operations: ``add`` takes the maximum, ``mul`` the sum, and ``einsum`` of two operands the
largest degree of ``a`` plus the largest of ``b`` (a sum of products of entries).

:func:`seprank.engine.saturation.traced_degree` runs an architecture in it.

>>> import numpy as np
>>> d = DegreeDomain()
>>> w = d.random(None, (2, 2))  # degree 1 each
>>> d.mul(d.einsum("ij,jk->ik", w, w), w).tolist()  # (w @ w) * w: degree 3
[[3, 3], [3, 3]]
"""

from __future__ import annotations

import numpy as np

from seprank.algebra.domains import Domain


class DegreeDomain(Domain):
    """Degree bounds (see the module docstring); exact arithmetic is not involved."""

    name = "degree"

    def einsum(self, spec, a, b):
        a, b = np.asarray(a), np.asarray(b)
        shape = np.einsum(spec, np.zeros(a.shape), np.zeros(b.shape)).shape
        top = (a.max() if a.size else 0) + (b.max() if b.size else 0)
        return np.full(shape, top, dtype=np.int64)

    def add(self, a, b):
        return np.maximum(a, b)

    def mul(self, a, b):
        return np.asarray(a) + np.asarray(b)

    def random(self, rng, shape):
        return np.ones(shape, dtype=np.int64)

    def from_ints(self, arr):
        return np.zeros(np.shape(arr), dtype=np.int64)

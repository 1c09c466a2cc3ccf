"""A domain that computes degree upper bounds instead of values.

Every value is an integer array holding, per entry, an upper bound on its total degree as
a polynomial in the random quantities (weights drawn by ``random``: degree 1; inputs: 1;
constants from ``from_ints``: 0). The architecture's own ``apply`` then yields a proved
upper bound on the degree of its output, for any architecture written against the domain
operations: ``add`` takes the maximum, ``mul`` the sum, and ``einsum`` of two operands the
largest degree of ``a`` plus the largest of ``b`` (a sum of products of entries).

>>> import numpy as np
>>> from seprank.nets import LinearSelfAttention
>>> net = LinearSelfAttention(depth=2, width=2, seq_len=3)
>>> output_degree(net)  # 3**2 in the inputs + 2 (3**2 - 1) in the weights
25
"""

from __future__ import annotations

import numpy as np

from .domains import Domain


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


def output_degree(net, random_weights: bool = True) -> int | None:
    """Upper bound on the total degree of ``net``'s output in the random weights (unless
    ``random_weights`` is False) and inputs; None if ``apply`` does not run in this domain."""
    from .nets.base import input_dim

    dom = DegreeDomain()
    params = net.init(np.random.default_rng(0), dom)
    if not random_weights:
        params = {k: np.zeros(np.shape(v), dtype=np.int64) for k, v in params.items()}
    X = np.ones((1, net.seq_len, input_dim(net)), dtype=np.int64)
    try:
        out = net.apply(params, X, dom)
    except Exception:  # an architecture that needs real numbers (e.g. softmax)
        return None
    return int(np.max(out))

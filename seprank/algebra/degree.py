"""A domain that computes degree upper bounds instead of values.

Every value is an integer array holding, per entry, an upper bound on its total degree as
a polynomial in the random quantities (weights drawn by ``random``: degree 1; inputs: 1;
constants: 0). The architecture's own ``apply`` then yields a proved upper bound on the
degree of its output, whether it is written with the domain operations or with plain
numpy on the :class:`DegreeArray` s it is handed: a sum takes the maximum, a product the
sum, a contraction the largest degree of each operand added, ``x ** k`` k times the
degree, a division by a constant nothing; moving entries keeps them, and every other
operation (``np.exp``, a comparison...) is refused (DomainError), so that no bound is
guessed.

:func:`seprank.engine.saturation.traced_degree` runs an architecture in it.

>>> import numpy as np
>>> d = DegreeDomain()
>>> w = d.random(None, (2, 2))  # degree 1 each
>>> d.mul(d.einsum("ij,jk->ik", w, w), w).raw.tolist()  # (w @ w) * w: degree 3
[[3, 3], [3, 3]]
>>> W = d.wrap(w)
>>> ((W @ W) * W + 1).raw.tolist()  # the same in plain numpy
[[3, 3], [3, 3]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seprank.algebra.domains import Domain
from seprank.algebra.exact_array import Arithmetic, ExactArray


class DegreeArray(ExactArray):
    """Per-entry degree upper bounds; arithmetic as in the module docstring."""


def _top(a) -> int:
    return int(a.max()) if np.size(a) else 0


@dataclass(frozen=True)
class DegreeBounds(Arithmetic):
    """Degree-bound arithmetic on raw int64 arrays."""

    array_type = DegreeArray
    where = "polynomial arithmetic (degree tracing)"

    def __str__(self):
        return "degrees"

    def constant(self, x):
        return np.zeros(np.shape(x), dtype=np.int64)

    def add(self, a, b):
        return np.maximum(a, b)

    subtract = add

    def multiply(self, a, b):
        return np.add(a, b)

    def negative(self, a):
        return a.copy()

    def power(self, a, k: int):
        return a * k

    def divide_constant(self, a, c):
        return np.broadcast_to(a, np.broadcast_shapes(np.shape(a), np.shape(c))).copy()

    def matmul(self, a, b):
        shape = np.matmul(np.zeros(a.shape, np.int8), np.zeros(b.shape, np.int8)).shape
        return np.full(shape, _top(a) + _top(b), dtype=np.int64)

    def einsum2(self, spec, a, b):
        shape = np.einsum(spec, np.zeros(a.shape, np.int8), np.zeros(b.shape, np.int8)).shape
        return np.full(shape, _top(a) + _top(b), dtype=np.int64)

    def einsum1(self, spec, a):
        ins, out = spec.split("->")
        if set(ins) <= set(out):  # a transpose or a diagonal: entries kept
            return np.einsum(spec, a)
        return np.full(np.einsum(spec, np.zeros(a.shape, np.int8)).shape, _top(a), np.int64)

    def reduce(self, name, a, axes):
        if name == "add":
            return np.maximum.reduce(a, axis=axes, initial=0)
        return np.add.reduce(a, axis=axes)

    def accumulate(self, name, a, axis):
        if name == "add":
            return np.maximum.accumulate(a, axis=axis)
        return np.add.accumulate(a, axis=axis)


DEGREES = DegreeBounds()


class DegreeDomain(Domain):
    """Degree bounds (see the module docstring); exact arithmetic is not involved. Weights
    (``random``) are DegreeArrays of ones and ``from_ints`` constants DegreeArrays of
    zeros; any other array an operation meets is a constant (degree 0), never read as
    degrees."""

    name = "degree"
    exact_array = DEGREES

    def einsum(self, spec, *operands):
        if len(operands) != 2:
            return np.einsum(spec, *(DEGREES.wrap(DEGREES.operand(x)) for x in operands))
        a, b = (DEGREES.operand(x) for x in operands)
        return DEGREES.wrap(DEGREES.einsum2(spec, a, b))

    def add(self, a, b):
        return DEGREES.wrap(np.maximum(DEGREES.operand(a), DEGREES.operand(b)))

    def mul(self, a, b):
        return DEGREES.wrap(np.add(DEGREES.operand(a), DEGREES.operand(b)))

    def random(self, rng, shape):
        return DEGREES.wrap(np.ones(shape, dtype=np.int64))

    def from_ints(self, arr):
        return DEGREES.wrap(np.zeros(np.shape(arr), dtype=np.int64))

"""Domains that bound the size of f's coefficients instead of computing values.

Constants in an architecture's code (``(p + 1) * t``, ``x / 3``, given weights) are not
random, so no Schwartz-Zippel argument covers them; what covers them is a random prime
(:mod:`seprank.engine.constants`), and that needs a bound on the integers the constants
produce. Two traces of the architecture's own ``apply`` give it:

- :class:`HeightDomain`: every value is an int64 array holding, per entry, an upper bound
  on log2 of the l1 norm of its coefficients as a polynomial over Q in the random
  quantities (weights drawn by ``random`` and inputs: norm 1, so 0; a constant c:
  log2 |c| rounded up; 0: a sentinel below every bound). A sum takes the larger bound
  plus one, a product the sum, a contraction over K terms adds ceil(log2 K), ``x ** k``
  multiplies by k, a division by a constant c subtracts log2 |c| rounded down.
- :class:`DenominatorDomain`: per entry, an upper bound on how many non-integer
  constants (and divisions by constants) multiply in one term: as
  :class:`~seprank.algebra.degree.DegreeDomain`, with such a constant of degree 1.

Both record every denominator they meet (``denominators``): with L their lcm and e the
second trace's bound, L^e clears every denominator of f's coefficients.

>>> h = HeightDomain()
>>> x = h.random(None, (3,))
>>> (h.wrap(x) * 5 + h.wrap(x) * 3).raw.tolist()  # |5| + |3| <= 2^4
[4, 4, 4]
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from seprank.algebra.degree import DegreeBounds
from seprank.algebra.domains import Domain
from seprank.algebra.exact_array import Arithmetic, ExactArray

#: The bound of an entry that is 0 (below every other; kept there by every operation).
ZERO = -(1 << 40)


def _fraction(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)  # floats: their exact value


def _up(c: Fraction) -> int:
    """An integer >= log2 |c| (c != 0)."""
    return abs(c.numerator).bit_length() - (c.denominator.bit_length() - 1)


def _down(c: Fraction) -> int:
    """An integer <= log2 |c| (c != 0)."""
    return (abs(c.numerator).bit_length() - 1) - c.denominator.bit_length()


def _clog2(k: int) -> int:
    return max(0, math.ceil(math.log2(k))) if k > 1 else 0


class HeightArray(ExactArray):
    """Per-entry bounds on log2 of the coefficients' l1 norm (module docstring)."""


class HeightBounds(Arithmetic):
    """Coefficient-size arithmetic on raw int64 arrays; records the denominators met."""

    array_type = HeightArray
    where = "polynomial arithmetic (coefficient size tracing)"

    def __init__(self):
        self.denominators: set[int] = set()

    def __str__(self):
        return "heights"

    def _each(self, x, fn):
        arr = np.asarray(x, dtype=object)
        out = np.empty(arr.shape, dtype=np.int64)
        for idx, v in np.ndenumerate(arr):
            out[idx] = fn(_fraction(v.item() if hasattr(v, "item") else v))
        return out

    def constant(self, x):
        def one(c: Fraction) -> int:
            if c == 0:
                return ZERO
            if c.denominator > 1:
                self.denominators.add(c.denominator)
            return _up(c)

        return self._each(x, one)

    @staticmethod
    def _clip(a):
        return np.maximum(a, ZERO)

    def add(self, a, b):
        a, b = np.broadcast_arrays(a, b)
        out = np.maximum(a, b) + 1
        return np.where(a <= ZERO, b, np.where(b <= ZERO, a, out))

    subtract = add

    def multiply(self, a, b):
        a, b = np.broadcast_arrays(a, b)
        return np.where((a <= ZERO) | (b <= ZERO), ZERO, a + b)

    def negative(self, a):
        return a.copy()

    def power(self, a, k: int):
        if k == 0:
            return np.zeros_like(a)
        return np.where(a <= ZERO, ZERO, a * k)

    def divide_constant(self, a, c):
        def one(v: Fraction) -> int:
            if abs(v.numerator) > 1:
                self.denominators.add(abs(v.numerator))
            return _down(v)

        down = self._each(c, one)
        a, down = np.broadcast_arrays(a, down)
        return np.where(a <= ZERO, ZERO, a - down)

    def _contract(self, a, b, terms: int, shape):
        top = max(int(a.max(initial=ZERO)), ZERO) + max(int(b.max(initial=ZERO)), ZERO)
        val = ZERO if (np.size(a) == 0 or np.size(b) == 0 or a.max() <= ZERO
                       or b.max() <= ZERO) else top + _clog2(terms)
        return np.full(shape, val, dtype=np.int64)

    def matmul(self, a, b):
        shape = np.matmul(np.zeros(a.shape, np.int8), np.zeros(b.shape, np.int8)).shape
        return self._contract(a, b, a.shape[-1] if a.ndim else 1, shape)

    def einsum2(self, spec, a, b):
        ins, out = spec.split("->")
        ia, ib = ins.split(",")
        sizes = {**dict(zip(ia, a.shape)), **dict(zip(ib, b.shape))}
        terms = math.prod(sizes[c] for c in set(ia + ib) - set(out))
        shape = np.einsum(spec, np.zeros(a.shape, np.int8), np.zeros(b.shape, np.int8)).shape
        return self._contract(a, b, terms, shape)

    def einsum1(self, spec, a):
        ins, out = spec.split("->")
        if set(ins) <= set(out):  # a transpose or a diagonal: entries kept
            return np.einsum(spec, a)
        sizes = dict(zip(ins, a.shape))
        terms = math.prod(sizes[c] for c in set(ins) - set(out))
        shape = np.einsum(spec, np.zeros(a.shape, np.int8)).shape
        top = int(a.max(initial=ZERO))
        return np.full(shape, ZERO if top <= ZERO else top + _clog2(terms), np.int64)

    def reduce(self, name, a, axes):
        count = math.prod(a.shape[ax] for ax in np.atleast_1d(axes)) if axes is not None \
            else a.size
        if name == "add":
            top = np.maximum.reduce(a, axis=axes, initial=ZERO)
            return np.where(top <= ZERO, ZERO, top + _clog2(count))
        zero = np.logical_or.reduce(a <= ZERO, axis=axes)
        return np.where(zero, ZERO, np.add.reduce(np.maximum(a, 0), axis=axes))

    def accumulate(self, name, a, axis):
        if name == "add":
            top = np.maximum.accumulate(a, axis=axis)
            k = np.arange(1, a.shape[axis] + 1)
            grow = np.array([_clog2(int(v)) for v in k], dtype=np.int64)
            shape = [1] * a.ndim
            shape[axis] = -1
            return np.where(top <= ZERO, ZERO, top + grow.reshape(shape))
        zero = np.logical_or.accumulate(a <= ZERO, axis=axis)
        return np.where(zero, ZERO, np.add.accumulate(np.maximum(a, 0), axis=axis))


class DenominatorBounds(DegreeBounds):
    """Degree arithmetic in the non-integer constants (module docstring)."""

    where = "polynomial arithmetic (denominator tracing)"

    def __init__(self):
        self.denominators: set[int] = set()

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def __str__(self):
        return "denominator degrees"

    def constant(self, x):
        arr = np.asarray(x, dtype=object)
        out = np.zeros(arr.shape, dtype=np.int64)
        for idx, v in np.ndenumerate(arr):
            c = _fraction(v.item() if hasattr(v, "item") else v)
            if c.denominator > 1:
                self.denominators.add(c.denominator)
                out[idx] = 1
        return out

    def divide_constant(self, a, c):
        arr = np.asarray(c, dtype=object)
        more = np.zeros(arr.shape, dtype=np.int64)
        for idx, v in np.ndenumerate(arr):
            v = _fraction(v.item() if hasattr(v, "item") else v)
            if abs(v.numerator) > 1:
                self.denominators.add(abs(v.numerator))
                more[idx] = 1
            if v.denominator > 1:
                self.denominators.add(v.denominator)
        a, more = np.broadcast_arrays(a, more)
        return a + more


class _Traced(Domain):
    """A tracing domain: weights drawn by ``random`` are variables (0), constants go
    through the arithmetic's ``constant``."""

    def __init__(self, ops):
        self.exact_array = ops

    def einsum(self, spec, *operands):
        return np.einsum(spec, *(self.exact_array.wrap(self.exact_array.operand(x))
                                 for x in operands))

    def add(self, a, b):
        return self.exact_array.wrap(self.exact_array.operand(a)) + b

    def mul(self, a, b):
        return self.exact_array.wrap(self.exact_array.operand(a)) * b

    def random(self, rng, shape):
        return self.exact_array.wrap(np.zeros(shape, dtype=np.int64))

    def from_ints(self, arr):
        return self.exact_array.wrap(self.exact_array.constant(np.asarray(arr)))

    @property
    def denominators(self) -> set[int]:
        """Every denominator met so far."""
        return self.exact_array.denominators


class HeightDomain(_Traced):
    """Coefficient-size bounds (see the module docstring)."""

    name = "height"

    def __init__(self):
        super().__init__(HeightBounds())


class DenominatorDomain(_Traced):
    """Degree in the non-integer constants (see the module docstring)."""

    name = "denominators"

    def __init__(self):
        super().__init__(DenominatorBounds())

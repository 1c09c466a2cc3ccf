"""Field arrays: numpy arrays whose ordinary arithmetic is exact in GF(p).

The ModP domain hands an architecture's ``apply`` its inputs and weights as
:class:`FieldArray` s, so that plain numpy code (``X @ W``, ``a * b - c``, ``x ** 2``,
``np.einsum`` with any number of operands, ``mean``, ``cumsum``, ``np.tril``, integer and
rational constants) computes the exact values mod p; every operation that would leave the
field raises DomainError naming it (see :mod:`seprank.algebra.exact_array`).

>>> F = field([3, 5], 7)
>>> (F * F - 1).raw.tolist(), (F / 2).raw.tolist(), (F.mean() * 2).raw.tolist()
([1, 3], [5, 6], 1)
>>> import numpy as np
>>> try:
...     np.exp(F)
... except DomainError as exc:
...     print(exc)
numpy.exp on a FieldArray leaves GF(7): not a polynomial operation seprank can compute exactly

Overflow contract: residues are in [0, p) with p <= 2**31 - 1, so one product is below
2**62; contractions add at most ``(2**63 - 1) // (p - 1)**2`` products before a reduction
mod p (:func:`einsum_modp`, :func:`matmul_modp` split longer ones; where that would mean
many short sums, as for p near 2**31, they split the first factor into 16-bit limbs, whose
products with a residue are below 2**47), sums at most 2**32 residues.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from seprank.algebra.exact_array import Arithmetic, ExactArray
from seprank.errors import DomainError

_INT64_MAX = 2**63 - 1
#: Formerly the largest denominator a float constant could have; no longer a limit: every
#: finite float16/32/64 is the exact binary fraction k / 2**j it holds, read as it is (0.1
#: is 3602879701896397 / 2**55, the number the code computes with; write Fraction(1, 10)
#: for a tenth). Kept for code that imports it.
MAX_FLOAT_DENOMINATOR = None


class FieldArray(ExactArray):
    """Residues mod ``ops.p`` (int64 in [0, p)); arithmetic exact in GF(p)."""

    @property
    def p(self) -> int:
        return self.ops.p


def max_terms(p: int) -> int:
    """Most products a contraction may add before one reduction mod p."""
    return _INT64_MAX // max((p - 1) ** 2, 1)


#: a factor's limb size in bits, where residues are split to keep contractions long
LIMB = 16


def _limb_terms(p: int) -> int:
    """Most products of a 16-bit limb and a residue one sum may hold."""
    return _INT64_MAX // max(((1 << LIMB) - 1) * (p - 1), 1)


def _chunks(total: int, limit: int) -> int:
    return -(-total // max(limit, 1))


def _by_limbs(contract, a, p: int, total: int):
    """``contract(a, limit)`` mod p, or, where that needs more than twice the sums (or
    cannot be split at ``max_terms``), from ``a``'s 16-bit limbs: a = hi 2**16 + lo, each
    limb times a residue below 2**47, so a sum holds 2**16 products even for p near 2**31
    (where ``max_terms`` is 2)."""
    if _chunks(total, max_terms(p)) <= 2 * _chunks(total, _limb_terms(p)):
        try:
            return contract(a, max_terms(p))
        except DomainError:
            pass  # too long to split at max_terms: the limbs may still make it exact
    a = np.asarray(a, dtype=np.int64)
    hi = contract(a >> LIMB, _limb_terms(p))
    lo = contract(a & ((1 << LIMB) - 1), _limb_terms(p))
    return (hi * (1 << LIMB) + lo) % p


def _integers(x):
    """``x`` as an integer array: float residues (exact below 2**53) become int64."""
    x = np.asarray(x)
    return x.astype(np.int64) if x.dtype.kind == "f" else x


def einsum_modp(spec: str, a, b, p: int) -> np.ndarray:
    """Two-operand einsum mod p, the longest summed letter split into chunks if needed
    (a letter of size 1 in one operand broadcasts against the other, as in numpy)."""
    a, b = _integers(a), _integers(b)
    ins, out = spec.replace(" ", "").split("->")
    sa, sb = ins.split(",")
    sizes: dict[str, int] = {}
    for letters, arr in ((sa, a), (sb, b)):
        for ch, n in zip(letters, np.shape(arr)):
            sizes[ch] = max(sizes.get(ch, 1), n)
    summed = "".join(ch for ch in dict.fromkeys(sa + sb) if ch not in out)
    total = math.prod(sizes[ch] for ch in summed) if summed else 1
    if total <= max_terms(p):
        return np.einsum(spec, a, b) % p

    def cut(arr, letters, ch, sl):
        return arr[tuple(sl if c == ch and n > 1 else slice(None)
                         for c, n in zip(letters, np.shape(arr)))]

    def contract(a, limit):
        if total <= limit:
            return np.einsum(spec, a, b) % p
        ch = max(summed, key=lambda c: sizes[c])
        rest = total // sizes[ch]
        if rest > limit:
            raise DomainError(f"prime={p}: contraction over {summed} too long to be exact")
        step = max(limit // rest, 1)
        acc = None
        for start in range(0, sizes[ch], step):
            sl = slice(start, start + step)
            part = np.einsum(spec, cut(a, sa, ch, sl), cut(b, sb, ch, sl)) % p
            acc = part if acc is None else (acc + part) % p
        return acc

    return _by_limbs(contract, a, p, total)


def matmul_modp(a, b, p: int) -> np.ndarray:
    """``a @ b`` mod p (numpy's broadcasting), the contraction split into safe chunks."""
    a, b = _integers(a), _integers(b)
    n = np.shape(a)[-1]
    if n <= max_terms(p):
        return np.matmul(a, b) % p

    def contract(a, step):
        acc = None
        for s in range(0, n, step):
            pb = b[s : s + step] if np.ndim(b) == 1 else b[..., s : s + step, :]
            part = np.matmul(a[..., s : s + step], pb) % p
            acc = part if acc is None else (acc + part) % p
        return acc

    return _by_limbs(contract, a, p, n)


def multiple_of_p(v, p: int) -> DomainError:
    """The refusal of a nonzero constant that is 0 mod p: GF(p) would compute another
    function (the Schwartz-Zippel bound covers the random weights and points, not the
    constants of the code)."""
    return DomainError(f"the constant {v} is a nonzero multiple of the prime p={p}: it is 0 "
                       "in GF(p), so the rank there could fall below the rank over Q; "
                       "measure with another prime (prime=..., --prime)")


def check_no_multiples(a: np.ndarray, p: int) -> None:
    """DomainError if an integer array holds a nonzero multiple of ``p``."""
    hit = (a % p == 0) & (a != 0)
    if hit.any():
        raise multiple_of_p(a[hit].ravel()[0], p)


def exact_float(v) -> Fraction | None:
    """A float as the exact binary fraction it is (0.5 is 1/2, 0.1 is 3602879701896397 /
    2**55: the value the code computes with): the one rule by which seprank reads a float
    constant or weight; None for a float wider than float64 or not finite."""
    if np.dtype(type(v)).itemsize > 8 or not math.isfinite(v):
        return None
    return Fraction(float(v))


def _residue(v, p: int) -> int:
    """One constant as a residue: ints, bools, Fractions, finite floats (exactly).
    A nonzero multiple of ``p`` (or a numerator divisible by it) is refused."""
    if isinstance(v, (bool, np.bool_, int, np.integer)):
        if int(v) % p == 0 and int(v) != 0:
            raise multiple_of_p(int(v), p)
        return int(v) % p
    if isinstance(v, np.floating) and np.dtype(type(v)).itemsize > 8:
        raise DomainError(f"a {np.dtype(type(v))} constant is not read exactly: use a Fraction")
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            raise DomainError(f"the constant {v!r} is not a number of GF({p})")
        q = exact_float(v)
        if q is None:
            raise DomainError(f"the float constant {float(v)!r} is not read exactly: use a "
                              "fractions.Fraction")
        v = q
    if isinstance(v, Fraction):
        if v.denominator % p == 0:
            raise DomainError(f"the constant {v} has a denominator divisible by p={p}: "
                              "measure with another prime (prime=..., --prime)")
        if v.numerator % p == 0 and v.numerator != 0:
            raise multiple_of_p(v, p)
        return v.numerator * pow(v.denominator, -1, p) % p
    raise DomainError(f"a {type(v).__name__} constant ({v!r}) is not a number of GF({p})")


@dataclass(frozen=True)
class GF(Arithmetic):
    """Arithmetic mod the prime ``p`` on raw residues."""

    p: int
    array_type = FieldArray

    @property
    def where(self) -> str:
        return f"GF({self.p})"

    def __str__(self):
        return f"GF({self.p})"

    def constant(self, x) -> np.ndarray:
        a = np.asarray(x)
        if a.dtype.kind == "f" and a.dtype.itemsize > 8:
            raise DomainError(f"a {a.dtype} constant is not read exactly: use a Fraction")
        if a.dtype.kind in "iub":
            if a.dtype.kind == "u" and a.size and int(a.max()) > _INT64_MAX:
                a = a.astype(object)
            else:
                a = a.astype(np.int64)
                check_no_multiples(a, self.p)
                return a % self.p
        if a.dtype.kind == "f" and a.size and np.all(np.isfinite(a)) and \
                np.all(a == np.round(a)) and float(np.abs(a).max()) < 2**62:
            a = a.astype(np.int64)
            check_no_multiples(a, self.p)
            return a % self.p
        if a.dtype.kind not in "fO":
            raise DomainError(f"a constant of dtype {a.dtype} is not a number of GF({self.p})")
        out = np.empty(a.shape, dtype=np.int64)
        out.ravel()[:] = [_residue(v, self.p) for v in a.ravel()]
        return out

    def add(self, a, b):
        return (a + b) % self.p

    def subtract(self, a, b):
        return (a - b) % self.p

    def multiply(self, a, b):
        return (a * b) % self.p

    def negative(self, a):
        return (-a) % self.p

    def power(self, a, k: int):
        out = np.ones(np.shape(a), dtype=np.int64) % self.p
        base = np.array(a, dtype=np.int64)
        while k:
            if k & 1:
                out = (out * base) % self.p
            base, k = (base * base) % self.p, k >> 1
        return out

    def divide_constant(self, a, c):
        inv = np.vectorize(lambda v: pow(int(v), -1, self.p), otypes=[np.int64])
        den = self.constant(c)
        if np.any(den == 0):
            raise DomainError(f"division by a constant that is 0 mod p={self.p}")
        return (a * inv(den)) % self.p

    def matmul(self, a, b):
        return matmul_modp(a, b, self.p)

    def einsum2(self, spec, a, b):
        return einsum_modp(spec, a, b, self.p)

    def einsum1(self, spec, a):
        return np.einsum(spec, a) % self.p  # at most 2**32 residues per sum

    def reduce(self, name, a, axes):
        if name == "add":
            return np.add.reduce(a, axis=axes) % self.p
        rest = [i for i in range(a.ndim) if i not in axes]
        b = np.transpose(a, list(axes) + rest).reshape((-1,) + tuple(a.shape[i] for i in rest))
        while b.shape[0] > 1:
            if b.shape[0] % 2:
                b = np.concatenate([b, np.ones((1,) + b.shape[1:], dtype=np.int64)])
            b = (b[0::2] * b[1::2]) % self.p
        return b[0] if b.shape[0] else np.ones(b.shape[1:], dtype=np.int64) % self.p

    def accumulate(self, name, a, axis):
        if name == "add":
            return np.add.accumulate(a, axis=axis) % self.p
        out = np.array(a, dtype=np.int64)
        idx = [slice(None)] * a.ndim
        for k in range(1, a.shape[axis]):
            cur, prev = list(idx), list(idx)
            cur[axis], prev[axis] = k, k - 1
            out[tuple(cur)] = (out[tuple(cur)] * out[tuple(prev)]) % self.p
        return out


def field(values, p: int) -> FieldArray:
    """Constants as a field array mod p (integers, Fractions, exact floats)."""
    ops = GF(int(p))
    return ops.wrap(ops.constant(values))

"""Number systems a network is evaluated in: ``Float64``, ``ModP(p)`` and ``Symbolic``.

An architecture is written once against the few operations below (``einsum`` of two
operands, ``add``, ``mul``, ``random`` weights, ``from_ints``) and is then measurable in
every domain. The domain object is passed explicitly; there is no global backend.

>>> import numpy as np
>>> F = ModP(7)
>>> a = F.from_ints(np.array([6, 6])); F.mul(a, a).tolist()
[1, 1]
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from seprank.algebra.limits import MAX_MODULUS
from seprank.errors import DomainError

#: Default prime: the largest prime below 2**26. Small enough that the modular
#: contraction can add 2**11 products before it must reduce (see ``ModP.einsum``),
#: large enough that an unlucky rank drop (probability about rank/p) is rare.
DEFAULT_PRIME = 67108859

_INT64_MAX = 2**63 - 1


@functools.cache
def is_prime(n: int) -> bool:
    """Whether the candidate modulus n is prime, by trial division (exact; at most
    isqrt(2**31 - 1) = 46340 divisions, milliseconds). Moduli are at most ``MAX_MODULUS``:
    a larger n is refused with ``DomainError``, the one place that limit is checked.
    """
    if n > MAX_MODULUS:
        raise DomainError(f"prime={n} is too large: must be <= 2**31-1 so products fit int64")
    if n < 2:
        return False
    for q in range(2, math.isqrt(n) + 1):
        if n % q == 0:
            return False
    return True


def _contracted(spec: str, a, b) -> tuple[str, dict[str, int]]:
    """Letters summed over in a two-operand einsum, and every letter's size."""
    ins, out = spec.replace(" ", "").split("->")
    sa, sb = ins.split(",")
    sizes: dict[str, int] = {}
    for letters, arr in ((sa, a), (sb, b)):
        for ch, n in zip(letters, np.shape(arr)):
            sizes[ch] = n
    summed = "".join(ch for ch in dict.fromkeys(sa + sb) if ch not in out)
    return summed, sizes


class Domain:
    """Interface every number system implements (see the module docstring)."""

    name: str = "domain"
    exact: bool = False

    def einsum(self, spec: str, a, b):  # pragma: no cover - interface
        raise NotImplementedError

    def add(self, a, b):  # pragma: no cover - interface
        raise NotImplementedError

    def mul(self, a, b):  # pragma: no cover - interface
        raise NotImplementedError

    def random(self, rng: np.random.Generator, shape) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def from_ints(self, arr) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def zeros(self, shape) -> np.ndarray:
        return self.from_ints(np.zeros(shape, dtype=np.int64))

    def describe(self) -> dict:
        return {"domain": self.name}


@dataclass(frozen=True)
class Float64(Domain):
    """IEEE double precision. Weights and inputs are standard normal, weights scaled by
    ``scale`` (default 1) so that the network stays in range for moderate depth."""

    scale: float = 1.0
    name: str = field(default="float64", init=False)

    def einsum(self, spec, a, b):
        return np.einsum(spec, a, b)

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return a * b

    def random(self, rng, shape):
        return self.scale * rng.standard_normal(shape)

    def from_ints(self, arr):
        return np.asarray(arr, dtype=np.float64)


@dataclass(frozen=True)
class ModP(Domain):
    """The prime field GF(p), residues stored as int64 in [0, p).

    Overflow contract: inputs are in [0, p) with p <= 2**31 - 1, so one product is at
    most (p-1)**2 < 2**62. ``einsum`` sums at most ``max_terms = (2**63-1) // (p-1)**2``
    products before reducing mod p (it splits a longer contraction into chunks), so no
    intermediate ever exceeds 2**63 - 1. With the default prime (< 2**26) that is
    2**11 products, far more than any contraction of the attention networks.
    """

    p: int = DEFAULT_PRIME
    name: str = field(default="modp", init=False)
    exact: bool = field(default=True, init=False)

    def __post_init__(self):
        p = self.p
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise DomainError(f"prime={p!r} must be an integer")
        if not is_prime(int(p)):  # refuses p > MAX_MODULUS
            raise DomainError(f"prime={p} is not a prime")

    @property
    def max_terms(self) -> int:
        """Most products a contraction may add before one reduction mod p."""
        return _INT64_MAX // max((self.p - 1) ** 2, 1)

    def einsum(self, spec, a, b):
        summed, sizes = _contracted(spec, a, b)
        total = math.prod(sizes[ch] for ch in summed) if summed else 1
        if total <= self.max_terms:
            return np.einsum(spec, a, b) % self.p
        # Split the first summed letter into chunks small enough to be safe.
        ch = summed[0]
        rest = total // sizes[ch]
        step = max(self.max_terms // rest, 1)
        if rest > self.max_terms:
            raise DomainError(f"prime={self.p}: contraction over {summed} too long to be exact")
        ins, out = spec.replace(" ", "").split("->")
        sa, sb = ins.split(",")
        acc = None
        for start in range(0, sizes[ch], step):
            sl = slice(start, start + step)
            pa = a[tuple(sl if c == ch else slice(None) for c in sa)]
            pb = b[tuple(sl if c == ch else slice(None) for c in sb)]
            part = np.einsum(spec, pa, pb) % self.p
            acc = part if acc is None else (acc + part) % self.p
        return acc

    def add(self, a, b):
        return (a + b) % self.p

    def mul(self, a, b):
        return (a * b) % self.p

    def random(self, rng, shape):
        return rng.integers(0, self.p, size=shape, dtype=np.int64)

    def from_ints(self, arr):
        arr = np.asarray(arr)
        if arr.dtype == object:
            return np.array([int(v) % self.p for v in arr.ravel()], dtype=np.int64).reshape(
                arr.shape
            )
        return np.asarray(arr, dtype=np.int64) % self.p

    def describe(self):
        return {"domain": self.name, "prime": self.p}


@dataclass(frozen=True)
class Symbolic(Domain):
    """Exact polynomials over the integers (sympy's sparse ``PolyElement``).

    Weights are random non-zero integers in [-``weight_range``, ``weight_range``]; inputs are
    the generators of a polynomial ring (see :func:`symbolic_inputs`).
    """

    weight_range: int = 9
    name: str = field(default="symbolic", init=False)
    exact: bool = field(default=True, init=False)

    def einsum(self, spec, a, b):
        return np.einsum(spec, np.asarray(a, dtype=object), np.asarray(b, dtype=object))

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return a * b

    def random(self, rng, shape):
        mags = rng.integers(1, self.weight_range + 1, size=shape)
        signs = rng.choice(np.array([-1, 1]), size=shape)
        return self.from_ints(mags * signs)

    def from_ints(self, arr):
        arr = np.asarray(arr)
        out = np.empty(arr.shape, dtype=object)
        out.ravel()[:] = [int(v) for v in arr.ravel()]
        return out


def symbolic_inputs(seq_len: int, width: int):
    """Polynomial ring over the seq_len*width input variables and the input array.

    Returns ``(ring, X)`` where ``X`` has shape (1, seq_len, width) and holds the
    generators ``x{position}_{coordinate}``.
    """
    from sympy import ZZ
    from sympy.polys.rings import ring

    names = [f"x{n}_{c}" for n in range(seq_len) for c in range(width)]
    R, *gens = ring(",".join(names), ZZ)
    X = np.empty((1, seq_len, width), dtype=object)
    X.ravel()[:] = gens
    return R, X


def parse_domain(name: str, prime: int | None = None) -> Domain:
    """Domain from a name: ``float64``, ``modp`` (optionally with ``prime``), ``symbolic``."""
    if name == "float64":
        return Float64()
    if name == "modp":
        return ModP(DEFAULT_PRIME if prime is None else prime)
    if name == "symbolic":
        return Symbolic()
    raise DomainError(f"domain={name!r} must be one of float64, modp, symbolic")

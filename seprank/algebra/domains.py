"""Number systems a network is evaluated in: ``Float64``, ``ModP(p)`` and ``Symbolic``.

An architecture's ``apply`` is handed arrays of its domain (:meth:`Domain.wrap`): float64
arrays, :class:`~seprank.algebra.field_array.FieldArray` s (exact GF(p) under plain numpy
code) or object arrays of polynomials, so one plain numpy implementation is measurable in
every domain. The older domain operations (``einsum`` of two operands, ``add``, ``mul``,
``from_ints``) keep working; ``constant`` turns numbers (ints, Fractions, exact floats)
into the domain's arrays. The domain object is passed explicitly; there is no global
backend.

>>> import numpy as np
>>> F = ModP(7)
>>> a = F.from_ints(np.array([6, 6])); F.mul(a, a).tolist()
[1, 1]
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from seprank.algebra.exact_array import ExactArray
from seprank.algebra.field_array import (
    GF,
    FieldArray,
    check_no_multiples,
    einsum_modp,
    max_terms,
    multiple_of_p,
)
from seprank.algebra.limits import MAX_MODULUS
from seprank.errors import DomainError, TooBigError

#: Default prime: the largest prime below 2**26. Small enough that the modular
#: contraction can add 2**11 products before it must reduce (see ``ModP.einsum``),
#: large enough that an unlucky rank drop (probability about rank/p) is rare.
DEFAULT_PRIME = 67108859
#: The most entries one draw of weights may hold (16 GiB of int64): a larger shape is
#: refused in one line before numpy allocates (``MPS(bond=2**40)``).
MAX_DRAW = 2**31


def _drawable(shape):
    """``shape``, refused (TooBigError) if it holds more than MAX_DRAW entries."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    n = math.prod(int(d) for d in dims)
    if n > MAX_DRAW:
        raise TooBigError(f"weights of shape {dims}: {float(n):.3g} entries, over the "
                          f"{MAX_DRAW:,} one draw may hold (lower the sizes)")
    return shape


@functools.cache
def is_prime(n: int) -> bool:
    """Whether the candidate modulus n is prime (exact: :func:`strong_prime`, microseconds).
    Moduli are at most ``MAX_MODULUS``: a larger n is refused with ``DomainError``, the one
    place that limit is checked.
    """
    if n > MAX_MODULUS:
        raise DomainError(f"prime={n} is too large: must be <= 2**31-1 so products fit int64")
    return strong_prime(n)


def strong_prime(n: int) -> bool:
    """Whether n is prime, for 0 <= n < 3215031751 (above 2**31 - 1): Miller-Rabin with the
    bases 2, 3, 5, 7, which no composite below 3215031751 passes (the least strong
    pseudoprime to all four), so the answer is exact there.

    Parameters
    ----------
    n : int
        The candidate, below 3215031751.

    Returns
    -------
    bool
        Whether n is prime.
    """
    if n < 2 or n % 2 == 0:
        return n == 2
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in (2, 3, 5, 7):
        if a % n == 0:
            continue
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def raw(x) -> np.ndarray:
    """The stored values of an exact array, or ``x`` as an ndarray."""
    return x.raw if isinstance(x, ExactArray) else np.asarray(x)


def _tree(x, leaf):
    """``leaf`` applied to every ndarray inside nested dicts, lists and tuples."""
    if isinstance(x, dict):
        return {k: _tree(v, leaf) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_tree(v, leaf) for v in x)
    return leaf(x) if isinstance(x, np.ndarray) else x


class Domain:
    """Interface every number system implements (see the module docstring).

    ``name`` names the domain and ``exact`` says whether its arithmetic is exact.
    """

    name: str = "domain"
    exact: bool = False

    def einsum(self, spec: str, *operands):  # pragma: no cover - interface
        """Contract arrays of this domain by an einsum ``spec``.

        Parameters
        ----------
        spec : str
            The numpy einsum subscripts, e.g. ``"ij,jk->ik"``.
        *operands : array_like
            The arrays contracted.

        Returns
        -------
        numpy.ndarray
            The contraction, an array of this domain.
        """
        raise NotImplementedError

    def add(self, a, b):  # pragma: no cover - interface
        """Add two arrays of this domain elementwise.

        Parameters
        ----------
        a, b : array_like
            The summands (broadcast as numpy does).

        Returns
        -------
        numpy.ndarray
            ``a + b`` in this domain.
        """
        raise NotImplementedError

    def mul(self, a, b):  # pragma: no cover - interface
        """Multiply two arrays of this domain elementwise.

        Parameters
        ----------
        a, b : array_like
            The factors (broadcast as numpy does).

        Returns
        -------
        numpy.ndarray
            ``a * b`` in this domain.
        """
        raise NotImplementedError

    def random(self, rng: np.random.Generator, shape) -> np.ndarray:  # pragma: no cover
        """Draw random weights of this domain.

        Parameters
        ----------
        rng : numpy.random.Generator
            The random source (seeded by the caller: a measurement is reproducible).
        shape : int or tuple of int
            Shape of the array drawn.

        Returns
        -------
        numpy.ndarray
            The weights (standard normal, uniform residues or small non-zero integers, by domain).
        """
        raise NotImplementedError

    def from_ints(self, arr) -> np.ndarray:  # pragma: no cover - interface
        """Convert integers to an array of this domain.

        Parameters
        ----------
        arr : array_like of int
            The integers (Python ints in an object array are allowed).

        Returns
        -------
        numpy.ndarray
            The same values in this domain (reduced mod p for ModP).
        """
        raise NotImplementedError

    def zeros(self, shape) -> np.ndarray:
        """Make an array of zeros of this domain.

        Parameters
        ----------
        shape : int or tuple of int
            Its shape.

        Returns
        -------
        numpy.ndarray
            Zeros, as :meth:`from_ints` makes them.
        """
        return self.from_ints(np.zeros(shape, dtype=np.int64))

    #: The arithmetic of the exact arrays ``wrap`` makes (None: plain ndarrays).
    exact_array = None

    def wrap(self, x, residues: bool = False):
        """Convert inputs and weights to this domain's arrays.

        An array of another kind is read as constants (exact residues, or DomainError).

        Parameters
        ----------
        x : array_like or dict or list or tuple
            Arrays, or dicts, lists and tuples of them (every ndarray inside is converted).
        residues : bool, default False
            If True, int64 arrays already reduced (seprank's own sample points) are viewed as
            they are, without a pass over them.

        Returns
        -------
        object
            ``x`` with every array as this domain's array (unchanged for domains without exact
            arrays, ``exact_array`` None).

        Raises
        ------
        DomainError
            If a constant has no exact value in the domain.
        """
        ops = self.exact_array
        if ops is None:
            return x

        def leaf(a):
            if isinstance(a, ExactArray):
                return a
            if residues and a.dtype == np.int64:
                return ops.wrap(a)
            return ops.wrap(ops.constant(a))

        return _tree(x, leaf)

    def constant(self, x):
        """Convert numbers (ints, bools, Fractions, floats) to an array of this domain.

        Parameters
        ----------
        x : array_like
            The numbers.

        Returns
        -------
        numpy.ndarray
            The same values in this domain.

        Raises
        ------
        DomainError
            If a number has no exact value in an exact domain (e.g. a float that is not a
            rational: a float wider than float64, or not finite).
        """
        ops = self.exact_array
        return self.from_ints(x) if ops is None else ops.wrap(ops.constant(x))

    def describe(self) -> dict:
        """Describe the domain for a result record.

        Returns
        -------
        dict
            ``{"domain": name}``, and ``prime`` for ModP.
        """
        return {"domain": self.name}


@dataclass(frozen=True)
class Float64(Domain):
    """IEEE double precision.

    Weights and inputs are standard normal, weights scaled by ``scale`` so that the network
    stays in range for moderate depth.

    Parameters
    ----------
    scale : float, default 1.0
        Scale of the random weights.
    """

    scale: float = 1.0
    name: str = field(default="float64", init=False)

    def einsum(self, spec, *operands):
        return np.einsum(spec, *operands)

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return a * b

    def random(self, rng, shape):
        return self.scale * rng.standard_normal(_drawable(shape))

    def from_ints(self, arr):
        return np.asarray(arr, dtype=np.float64)

    def constant(self, x):
        a = np.asarray(x)
        if a.dtype == object:
            return np.array([float(v) for v in a.ravel()], dtype=np.float64).reshape(a.shape)
        return a.astype(np.float64)


@dataclass(frozen=True)
class ModP(Domain):
    r"""The prime field GF(p), residues stored as int64 in [0, p).

    Overflow contract: inputs are in :math:`[0, p)` with :math:`p \le 2^{31} - 1`, so one
    product is at most :math:`(p-1)^2 < 2^{62}`. ``einsum`` sums at most
    :math:`\lfloor (2^{63}-1) / (p-1)^2 \rfloor` products (``max_terms``) before reducing
    mod :math:`p` (it splits a longer contraction into chunks), so no intermediate ever
    exceeds :math:`2^{63} - 1`. With the default prime (:math:`< 2^{26}`) that is
    :math:`2^{11}` products, far more than any contraction of the attention networks.

    Parameters
    ----------
    p : int, default DEFAULT_PRIME
        The prime modulus (at most :math:`2^{31} - 1`); DEFAULT_PRIME is 67108859, the
        largest prime below :math:`2^{26}`.

    Raises
    ------
    DomainError
        If ``p`` is not an integer, not a prime, or larger than :math:`2^{31} - 1`.
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
        return max_terms(self.p)

    @property
    def exact_array(self) -> GF:
        return GF(int(self.p))

    def _out(self, res, *inputs):
        """Field arrays in, a field array out; plain residues in, plain out."""
        if any(isinstance(x, FieldArray) for x in inputs):
            return self.exact_array.wrap(res)
        return res

    def _val(self, x) -> np.ndarray:
        """Residues of a field array, or of a constant (exact, or DomainError)."""
        return self.exact_array.operand(x)

    def einsum(self, spec, *operands):
        if len(operands) != 2:  # any other count: the field arrays' exact einsum
            return np.einsum(spec, *(self.exact_array.wrap(self._val(x)) for x in operands))
        a, b = operands
        return self._out(einsum_modp(spec, self._val(a), self._val(b), self.p), a, b)

    def add(self, a, b):
        return self._out((self._val(a) + self._val(b)) % self.p, a, b)

    def mul(self, a, b):
        return self._out((self._val(a) * self._val(b)) % self.p, a, b)

    def random(self, rng, shape):
        return rng.integers(0, self.p, size=_drawable(shape), dtype=np.int64)

    def from_ints(self, arr):
        arr = np.asarray(arr)
        if arr.dtype == object:
            for v in arr.ravel():
                if int(v) % self.p == 0 and int(v) != 0:
                    raise multiple_of_p(int(v), self.p)
            return np.array([int(v) % self.p for v in arr.ravel()], dtype=np.int64).reshape(
                arr.shape
            )
        arr = np.asarray(arr, dtype=np.int64)
        check_no_multiples(arr, self.p)
        return arr % self.p

    def describe(self):
        return {"domain": self.name, "prime": self.p}


@dataclass(frozen=True)
class Symbolic(Domain):
    """Exact polynomials over the rationals (sympy's sparse ``PolyElement`` over QQ).

    Constants such as 1/2 (a mean) stay exact. Inputs are the generators of a polynomial
    ring (see :func:`symbolic_inputs`).

    Parameters
    ----------
    weight_range : int, default 9
        Weights are random non-zero integers in [-``weight_range``, ``weight_range``].
    """

    weight_range: int = 9
    name: str = field(default="symbolic", init=False)
    exact: bool = field(default=True, init=False)

    def einsum(self, spec, *operands):
        return np.einsum(spec, *(np.asarray(x, dtype=object) for x in operands))

    def constant(self, x):
        """Integers stay integers; Fractions and exact floats become sympy Rationals."""
        from sympy import Rational

        a = np.asarray(x)
        out = np.empty(a.shape, dtype=object)
        out.ravel()[:] = [n if q == 1 else Rational(n, q)
                          for n, q in (_ratio(v) for v in a.ravel())]
        return out

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return a * b

    def random(self, rng, shape):
        mags = rng.integers(1, self.weight_range + 1, size=_drawable(shape))
        signs = rng.choice(np.array([-1, 1]), size=shape)
        return self.from_ints(mags * signs)

    def from_ints(self, arr):
        arr = np.asarray(arr)
        out = np.empty(arr.shape, dtype=object)
        out.ravel()[:] = [int(v) for v in arr.ravel()]
        return out


def _ratio(v) -> tuple[int, int]:
    if isinstance(v, (float, np.floating)) and (np.dtype(type(v)).itemsize > 8
                                                 or not math.isfinite(float(v))):
        raise DomainError(f"the float constant {v!r} is not read exactly: use a "
                          "fractions.Fraction")
    q = Fraction(v) if not isinstance(v, (float, np.floating)) else Fraction(float(v))
    return q.numerator, q.denominator  # a float: the exact binary fraction it holds


def symbolic_inputs(seq_len: int, width: int):
    """Polynomial ring over the seq_len*width input variables and the input array.

    Returns ``(ring, X)`` where ``X`` has shape (1, seq_len, width) and holds the
    generators ``x{position}_{coordinate}``.
    """
    from sympy import QQ
    from sympy.polys.rings import ring

    names = [f"x{n}_{c}" for n in range(seq_len) for c in range(width)]
    R, *gens = ring(",".join(names), QQ)
    X = np.empty((1, seq_len, width), dtype=object)
    X.ravel()[:] = gens
    return R, X


def parse_domain(name: str, prime: int | None = None) -> Domain:
    """Domain from a name: ``float64``, ``modp`` (optionally with ``prime``), ``symbolic``.

    Parameters
    ----------
    name : {"float64", "modp", "symbolic"}
        The domain's name.
    prime : int, optional
        The modulus of ``modp`` (default: ``DEFAULT_PRIME``); ignored by the other domains.

    Returns
    -------
    Domain
        ``Float64()``, ``ModP(prime)`` or ``Symbolic()``.

    Raises
    ------
    DomainError
        If the name is unknown or the prime is not a prime.

    Examples
    --------
    >>> parse_domain("modp", 7)
    ModP(p=7, name='modp', exact=True)
    """
    if name == "float64":
        return Float64()
    if name == "modp":
        return ModP(DEFAULT_PRIME if prime is None else prime)
    if name == "symbolic":
        return Symbolic()
    raise DomainError(f"domain={name!r} must be one of float64, modp, symbolic")

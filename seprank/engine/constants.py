"""Constants covered: a prime drawn at random, and the chance that it divides what the
constants produce.

Schwartz-Zippel covers what is random (the weights drawn, the sample points); the
constants of an architecture's code and given weights are not random, and at a fixed,
public prime they may cancel: ``(p + 1) * t - t`` is 0 mod p, weights (p + 2, 2) are
equal there. The rank over GF(p) of f's generic grid then falls below the rank over Q
for that p, and "saturated" would be false. The argument that covers them:

- A grid of size n over GF(p) has rank below min(n, R) (R: the rank over Q) for every
  draw of the random quantities only if p divides every coefficient of every
  min(n, R)-minor of the generic grid, a polynomial matrix over Q; in particular the
  numerator N of one fixed nonzero coefficient. With H a bound on the l1 norm of f's
  coefficients and L^e a common denominator of them (:mod:`seprank.algebra.height`,
  traced by running the architecture's own ``apply``; given weights are constants),
  |N| <= n! H^n L^(e n): N has at most ``bits(n)`` = log2(n!) + n (log2 H + e log2 L)
  bits.
- The prime is drawn uniformly among the ``PRIMES_IN_RANGE`` primes of
  [2^25, 2^26) (:func:`draw_prime`), after the code and the weights were fixed; a
  nonzero integer of b bits has at most b / 25 prime factors there. So the chance that
  p divides N is at most bits(n) / 25 / PRIMES_IN_RANGE, summed over the grid sizes
  the measurement ran (as the Schwartz-Zippel term is).

A prime passed by the caller (``prime=``, ``--prime``) is fixed: the argument does not
apply, and the saturation text says that the constants are not covered. Code that reads
the prime (``domain.p``) is outside the argument.
"""

from __future__ import annotations

import math

import numpy as np

from seprank.algebra.domains import strong_prime
from seprank.algebra.height import ZERO, DenominatorDomain, HeightDomain
from seprank.engine.evaluate import evaluate
from seprank.nets.base import input_dim

#: The range the prime is drawn from: [2^25, 2^26) (the float64 rank engines' primes).
PRIME_RANGE = (1 << 25, 1 << 26)
#: The number of primes in PRIME_RANGE (counted by a sieve: 3957809 - 2063689).
PRIMES_IN_RANGE = 1894120
#: Each prime in the range has more than this many bits: a b-bit integer has at most
#: b / PRIME_BITS distinct prime factors in the range.
PRIME_BITS = 25


def draw_prime(rng: np.random.Generator | None = None) -> int:
    """A prime drawn uniformly at random from :data:`PRIME_RANGE`.

    Parameters
    ----------
    rng : numpy.random.Generator, optional
        The source (default: fresh operating-system entropy, so that no code written
        before the draw can know the prime).

    Returns
    -------
    int
        The prime.

    Examples
    --------
    >>> p = draw_prime(np.random.default_rng(0))
    >>> from seprank.algebra.domains import is_prime
    >>> PRIME_RANGE[0] <= p < PRIME_RANGE[1] and is_prime(p)
    True
    """
    rng = np.random.default_rng() if rng is None else rng
    while True:  # rejection: the first prime of i.i.d. uniform draws is uniform over them
        # (odd draws: every prime of the range is odd; 64 at once, the composites with a
        # small factor sieved out together, the rest tested in order)
        n = rng.integers(PRIME_RANGE[0] // 2, PRIME_RANGE[1] // 2, size=64) * 2 + 1
        for v in n[np.all(n[:, None] % _SMALL_PRIMES, axis=1)].tolist():
            if strong_prime(v):
                return v


#: The odd primes below 64 (a sieve before Miller-Rabin in :func:`draw_prime`).
_SMALL_PRIMES = np.array([3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61])


def size_bits(net, weights=None) -> tuple[float, int, float] | None:
    """:func:`trace_sizes`, remembered for the last 32 network objects (drawn weights:
    the same network measured on many partitions is traced once).

    Parameters
    ----------
    net : Architecture
        The network.
    weights : dict, optional
        The given weights (then traced every time).

    Returns
    -------
    tuple or None
        As :func:`trace_sizes`.
    """
    if weights is not None:
        return trace_sizes(net, weights)
    hit = _SIZES.get(id(net))
    if hit is not None and hit[0] is net:
        return hit[1]
    value = trace_sizes(net)
    _SIZES[id(net)] = (net, value)  # held: its id cannot be reused while remembered
    while len(_SIZES) > 32:
        _SIZES.pop(next(iter(_SIZES)))
    return value


#: id of a network -> (the network, its traced sizes), oldest first.
_SIZES: dict = {}


def trace_sizes(net, weights=None) -> tuple[float, int, float] | None:
    """(log2 H, e, log2 L) of the module docstring, by tracing ``apply``; None where it
    does not run on the tracing arrays (then no bound covers the constants).

    Parameters
    ----------
    net : Architecture
        The network.
    weights : dict, optional
        The given weights (constants), as checked by the planner; None: drawn (variables).

    Returns
    -------
    tuple or None
        log2 of the l1-norm bound, the denominator degree, log2 of the lcm of the
        denominators.
    """
    out = []
    dens: set[int] = set()
    for dom in (HeightDomain(), DenominatorDomain()):
        try:
            params = net.init(np.random.default_rng(0), dom) if weights is None else \
                {k: dom.exact_array.wrap(dom.exact_array.constant(v))
                 for k, v in weights.items()}
            X = np.zeros((1, net.seq_len, input_dim(net)), dtype=np.int64)
            value = evaluate(net, params, X, dom)
        except Exception:  # noqa: BLE001 - no trace, no bound
            return None
        out.append(int(np.max(value)) if np.size(value) else ZERO)
        dens |= dom.denominators
    h, e = out
    lcm = math.lcm(*dens) if dens else 1
    return (0.0 if h <= ZERO else float(max(h, 0)), max(0, int(e)), math.log2(lcm))


def bits(n: int, size: tuple[float, int, float]) -> float:
    """Bits of the integer N for an n x n grid minor (module docstring)."""
    h, e, log_l = size
    return math.lgamma(n + 1) / math.log(2) + n * (h + e * log_l) + 1


def bound(sizes, size: tuple[float, int, float]) -> float:
    """The chance that a random prime divides one of the N's, for grids of ``sizes``.

    Parameters
    ----------
    sizes : iterable of int
        The grid sizes (the short sides) the measurement ran, one per step (and block).
    size : tuple
        :func:`size_bits`' value.

    Returns
    -------
    float
        At most 1.
    """
    total = sum(math.floor(bits(int(n), size) / PRIME_BITS) for n in sizes if n > 0)
    return min(1.0, total / PRIMES_IN_RANGE)

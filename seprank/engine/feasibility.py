"""What a measurement can do at all, checked from the configuration alone, before any
bound, weight or grid is computed: sizes that cannot finish, and what prime a network needs.

:func:`check_feasible` refuses a network whose very first grid (``start`` x ``start``
evaluations) or whose weights are already beyond the limits of
:func:`seprank.engine.estimate.check_cost` (the finer estimate, which needs the proved
bound, comes after: computing that bound for an absurd depth would itself not finish).

The smallest usable modulus follows from the computation: the graded
strategy interpolates f(t a, b) at T + 1 distinct t in GF(p), so it needs p > T + 1 (T the
total degree of f); the Schwartz-Zippel bound on a false saturation is (sample size) * e / p
(e the degree of a grid entry in the random draws), so it says anything only for p > e.
:func:`prime_floor` gives that floor with both numbers (when they exceed the default prime,
for deep networks: 3^L > 2^26, the default prime, the largest the float64 engines take, is
the floor); :func:`check_prime` refuses below it, for a caller that wants a refusal. The
prime policy of the API, ``seprank measure --prime``, grid files and certificates is one
(:mod:`seprank.engine.parameters`: a prime within the modulus limit) and does not apply
the floor: a smaller prime is measured and labelled what it earned (not saturated), or
refused by the strategy that cannot use it (graded, catalecticant).
"""

from __future__ import annotations

import math

from seprank.algebra.domains import DEFAULT_PRIME
from seprank.engine import estimate as _estimate
from seprank.engine import saturation as _saturation
from seprank.errors import DomainError, TooBigError

#: Depth up to which the proved bound (used by the finer estimate) is computed in seconds:
#: its bisection runs over D = (3^L - 1)/2 with L-digit integers (seprank bounds' limit).
EXACT_DEPTH = 10_000
#: Depth above which 3^L exceeds every allowed modulus: degrees are not computed there.
_DEEP = math.ceil(math.log(2**31, 3))


def check_feasible(net, start: int, limit_bytes: int, budget: int | None = None) -> None:
    """TooBigError when the weights, the first ``start`` x ``start`` grid's points, the
    points at ``budget`` samples (when given; else estimate.check_cost checks the
    strategy's default) or the first grid's time (refused here only for sizes whose finer
    estimate would itself take long: depth > EXACT_DEPTH, or seq_len or width > 10^6;
    below, estimate.check_cost refuses with its fuller line) are beyond the limits (memory first, as
    estimate.check_cost does)."""
    ops = _cell_ops(net)
    n0 = max(2, int(start))
    if getattr(net, "depth", 1) > EXACT_DEPTH:
        raise TooBigError(f"depth={net.depth}: above {EXACT_DEPTH:,} the proved bound that "
                          "plans the run is itself too slow to compute (a bisection over "
                          "(3^L - 1)/2 on L-digit integers), and the run would take hours")
    width, depth = float(net.width), float(getattr(net, "depth", 1))
    weights = 4.0 * depth * width * width * 8 if hasattr(net, "heads") else 0.0
    per_sample = float(net.seq_len) * max(width, 1.0) * 8
    checks = [("width", "the weights", weights),
              ("seq_len", "the first grid's points", n0 * per_sample)]
    if budget is not None:
        checks.append(("max_samples", f"the sample points at max_samples={budget}",
                       budget * per_sample))
    for arg, what, need in checks:
        if need > limit_bytes:
            raise TooBigError(f"{arg}: {what} need {need / 2**30:,.1f} GiB, over the "
                              f"{limit_bytes / 2**30:,.1f} GiB allowed (lower the sizes)")
    first = n0 * n0 * ops / _estimate.KERNEL_OPS_PER_S  # the fastest path: a lower bound
    huge = depth > EXACT_DEPTH or max(net.seq_len, net.width) > 10**6
    if first > _estimate.MAX_SECONDS and huge:
        raise TooBigError(
            f"depth/width/seq_len: even the first {n0}x{n0} grid would take about "
            f"{_estimate.format_seconds(first)} ({ops:.3g} multiply-adds per entry; limit "
            f"{_estimate.format_seconds(_estimate.MAX_SECONDS)}): lower the sizes"
        )


def _cell_ops(net) -> float:
    """Multiply-adds per grid entry, in floating point (any size)."""
    N, d = float(net.seq_len), float(net.width)
    return float(getattr(net, "depth", 1)) * (4 * N * d * d + 2 * N * N * d)


def interpolates(modulus: int, net) -> bool:
    """Whether GF(modulus) has the T + 2 elements the graded interpolation needs."""
    depth = getattr(net, "depth", None)
    if depth is not None and depth > _DEEP:
        return False
    T = getattr(net, "degree", None)
    return T is None or modulus > int(T) + 1


def prime_floor(net) -> tuple[int, str]:
    """The smallest modulus a measurement of ``net`` can use, and why (one clause)."""
    depth = getattr(net, "depth", None)
    if depth is not None and depth > _DEEP:
        return DEFAULT_PRIME, (f"3^{depth} exceeds every allowed modulus, so the default "
                               f"prime {DEFAULT_PRIME} (the float64 engines' largest) is "
                               "the floor")
    T = getattr(net, "degree", None)
    e = _saturation.entry_degree(net, True)
    need = max(int(T) + 2 if T is not None else 3, int(e) + 1 if e is not None else 3, 5)
    why = (f"the graded interpolation needs p > T + 1 = {int(T) + 1} (T = {T}, the total "
           "degree)" if T is not None else "the homogeneity probes need p > 3")
    if e is not None:
        why += f" and the Schwartz-Zippel bound needs p > e = {e} (a grid entry's degree)"
    if need > DEFAULT_PRIME:
        return DEFAULT_PRIME, why + f"; above the default prime {DEFAULT_PRIME}, that is the floor"
    return need, why


def check_prime(net, prime: int, arg: str = "prime") -> None:
    """DomainError naming ``arg`` when ``prime`` is below :func:`prime_floor`."""
    need, why = prime_floor(net)
    if prime < need:
        raise DomainError(f"{arg}={prime} is too small for this network: {why}; use a prime "
                          f">= {need} (default {DEFAULT_PRIME})")

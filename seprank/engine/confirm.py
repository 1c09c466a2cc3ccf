"""Repeat a measurement with other primes and seeds: the combined saturation bound."""

from __future__ import annotations

import math

from seprank.algebra.domains import DEFAULT_PRIME, is_prime
from seprank.engine.line_check import needs_check
from seprank.engine.measure import measure
from seprank.errors import ConfigError


def next_primes_below(p: int, k: int) -> list[int]:
    """p (if prime) and the next primes below it, k in all."""
    out, q = [], int(p)
    while len(out) < k and q > 2:
        if is_prime(q):
            out.append(q)
        q -= 1
    return out


def confirm(net, partition=None, k: int = 3, *, seed: int = 0, prime: int | None = None,
            **kw) -> tuple[object, dict]:
    """Measure k times with independent seeds (seed, seed+1, ...) and primes (prime and
    the next primes below it; for a class seprank does not ship, or given weights, and no
    ``prime``: a prime drawn at random per run, :mod:`seprank.engine.constants`); return
    (the run with the largest rank, summary).

    The true rank exceeds the largest measured one only if every run stopped below it;
    the runs are independent, so that has probability at most the product of the bounds
    of the runs that reached the maximum (a run below it counts as 1). ``saturated`` in
    the summary uses that combined bound against the threshold.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"confirm={k!r} must be an integer >= 1")
    if prime is None and (needs_check(net) or kw.get("weights") is not None):
        primes = [None] * k  # constants not seprank's: each run draws its own prime
    else:
        primes = next_primes_below(DEFAULT_PRIME if prime is None else prime, k)
    runs = [measure(net, partition, seed=seed + i, prime=q, **kw) for i, q in enumerate(primes)]
    best = max(runs, key=lambda m: m.rank)
    top = [m for m in runs if m.rank == best.rank]
    combined = None
    if all(m.saturation_bound is not None and m.sample_saturated for m in top):
        combined = math.prod(m.saturation_bound for m in top)
    thr = best.saturation_threshold
    ok = combined is not None and combined <= thr
    summary = {
        "runs": [{"seed": m.seed, "prime": m.prime, "rank": m.rank,
                  "sample_saturated": m.sample_saturated, "saturation_bound": m.saturation_bound}
                 for m in runs],
        "max_rank": best.rank, "combined_bound": combined, "saturated": ok,
        "threshold": thr, "agree": len(top) == len(runs),
        "reason": (f"{len(top)}/{len(runs)} runs reached {best.rank}; combined bound "
                   + (f"{combined:.3g}" if combined is not None else "unavailable")
                   + (f" <= threshold {thr:g}: saturated" if ok else
                      f" (threshold {thr:g}): not saturated, a lower bound only")),
    }
    return best, summary

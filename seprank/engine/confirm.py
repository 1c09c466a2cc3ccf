"""Repeat a measurement with other primes and seeds: the combined saturation bound."""

from __future__ import annotations

import math

from seprank.algebra.domains import DEFAULT_PRIME, is_prime
from seprank.engine.line_check import needs_check
from seprank.engine.measure import measure
from seprank.errors import ConfigError

#: The most runs ``confirm(..., k="auto")`` makes.
AUTO_MAX = 8


def next_primes_below(p: int, k: int) -> list[int]:
    """p (if prime) and the next primes below it, k in all."""
    out, q = [], int(p)
    while len(out) < k and q > 2:
        if is_prime(q):
            out.append(q)
        q -= 1
    return out


def runs_needed(bound: float | None, threshold: float) -> int | None:
    """How many independent runs, each with saturation bound ``bound``, bring the product
    of their bounds to at most ``threshold`` (None: never, a bound of 1 or more or none)."""
    if bound is None or bound >= 1:
        return None
    if bound <= threshold:
        return 1
    k = max(1, math.ceil(math.log(threshold) / math.log(bound)))
    while bound**k > threshold:  # the product as confirm computes it, in floats
        k += 1
    while k > 1 and bound ** (k - 1) <= threshold:
        k -= 1
    return k


def confirm(net, partition=None, k: int | str = 3, *, seed: int = 0,
            prime: int | None = None, **kw) -> tuple[object, dict]:
    """Measure k times with independent seeds (seed, seed+1, ...) and primes (prime and
    the next primes below it; for a class seprank does not ship, or given weights, and no
    ``prime``: a prime drawn at random per run, :mod:`seprank.engine.constants`); return
    (the run with the largest rank, summary).

    The true rank exceeds the largest measured one only if every run stopped below it;
    the runs are independent, so that has probability at most the product of the bounds
    of the runs that reached the maximum (a run below it counts as 1). ``saturated`` in
    the summary uses that combined bound against the threshold.

    ``k="auto"``: one run first; if it is exact or saturated, nothing more. Otherwise as
    many more as its bound says the product needs (:func:`runs_needed`; each new run's
    own bound is used as it comes), at most :data:`AUTO_MAX` in all; where no number of
    runs would do (a bound of 1: a prime too small for the block sizes), none is made
    and the summary says why (a larger prime is the remedy).
    """
    auto = k == "auto"
    if not auto and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ConfigError(f"confirm={k!r} must be an integer >= 1 or 'auto'")
    drawn = prime is None and (needs_check(net) or kw.get("weights") is not None)
    primes = iter([None] * AUTO_MAX if drawn else next_primes_below(
        DEFAULT_PRIME if prime is None else prime, AUTO_MAX if auto else k))
    runs = []

    def one_more():
        runs.append(measure(net, partition, seed=seed + len(runs), prime=next(primes), **kw))

    one_more()
    why_stop = None
    if auto:
        first = runs[0]
        need = runs_needed(first.saturation_bound if first.sample_saturated else None,
                           first.saturation_threshold)
        if first.label.startswith("exact") or first.saturated:
            why_stop = f"the first run is {first.label}: nothing to confirm"
        elif not first.sample_saturated:
            why_stop = ("no confirmation run made: the first run stopped at its sample cap, "
                        "a lower bound at any prime (raise max_samples)")
        elif need is None or need > AUTO_MAX:
            why_stop = (f"no confirmation run made: the first run's bound "
                        f"{_fmt(first.saturation_bound)} would need "
                        + ("more runs than any number" if need is None else f"{need} runs")
                        + f" (at most {AUTO_MAX}) to reach the threshold "
                        f"{first.saturation_threshold:g}; a larger prime lowers it")
        else:
            while len(runs) < AUTO_MAX and not _summary(runs)["saturated"]:
                one_more()
    else:
        while len(runs) < k:
            one_more()
    summary = _summary(runs)
    if why_stop:
        summary["reason"] += f"; {why_stop}"
    summary["auto"] = auto
    return max(runs, key=lambda m: m.rank), summary


def _fmt(x) -> str:
    return "unavailable" if x is None else f"{x:.3g}"


def _summary(runs: list) -> dict:
    """The runs' combined bound and what it allows (see :func:`confirm`)."""
    best = max(runs, key=lambda m: m.rank)
    top = [m for m in runs if m.rank == best.rank]
    combined = None
    if all(m.saturation_bound is not None and m.sample_saturated for m in top):
        combined = math.prod(m.saturation_bound for m in top)
    thr = best.saturation_threshold
    ok = combined is not None and combined <= thr
    return {
        "runs": [{"seed": m.seed, "prime": m.prime, "rank": m.rank,
                  "sample_saturated": m.sample_saturated, "saturation_bound": m.saturation_bound}
                 for m in runs],
        "max_rank": best.rank, "combined_bound": combined, "saturated": ok,
        "threshold": thr, "agree": len(top) == len(runs),
        "reason": (f"{len(top)}/{len(runs)} runs reached {best.rank}; combined bound "
                   + _fmt(combined)
                   + (f" <= threshold {thr:g}: saturated" if ok else
                      f" (threshold {thr:g}): not saturated, a lower bound only")),
    }

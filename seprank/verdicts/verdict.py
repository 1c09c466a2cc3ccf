"""The verdict row of one network: measured rank against the proved bound, on several partitions."""

from __future__ import annotations

import math
import random
import time

from seprank import labels
from seprank.engine.measure import measure
from seprank.engine.parameters import default
from seprank.nets.partitions import default_partition
from seprank.theory.architecture_bounds import bound_of
from seprank.theory.bounds import theorem_bound
from seprank.theory.regimes import paper_regime

#: The verify row's budget: every grid (one per partition) gets the modular default of
#: :mod:`seprank.engine.parameters`, graded blocks included.
DEFAULT_BUDGET = default("max_samples", "modular")


def _other_partitions(net, k: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Up to k balanced partitions other than the default (one without the query)."""
    N = net.seq_len
    if N < 4 or N % 2:
        return []
    half = N // 2
    k = min(k, math.comb(N, half) - 1)  # there are no more: the loop below must end
    out = [tuple(range(half, N))]  # query (position 0) on the other side
    while len(out) < k:
        p = tuple(sorted(rng.sample(range(N), half)))
        if p != default_partition(N) and p not in out:
            out.append(p)
    return out[:k]


def verify_one(net, *, seed: int = 0, partitions_to_check: int = 2,
               max_samples: int = DEFAULT_BUDGET, with_measurement: bool = False):
    """The verify row of one network (and its Measurement, with ``with_measurement``)."""
    t0 = time.perf_counter()
    m = measure(net, seed=seed, max_samples=max_samples)
    ub = theorem_bound(net)
    rng = random.Random(seed)
    checked, invariant = 0, True
    for p in _other_partitions(net, partitions_to_check, rng):
        checked += 1
        if measure(net, p, seed=seed).rank != m.rank:
            invariant = False
    upper = ub["upper"]
    verdict = bound_verdict(m.rank, m.saturated, upper)  # the proved block bound
    if verdict == "below bound" and net.heads == 1 and not net.residual \
            and ub["n_query_side"] >= net.width and ub["n_other_side"] >= net.width:
        verdict = "below formula (H=1 conjecture fails)"  # where the formula is conjectured exact
    row = {
        "depth": net.depth, "width": net.width, "heads": net.heads, "seq_len": net.seq_len,
        "residual": net.residual, "measured": m.rank,
        "label": labels.rank_label(m.rank, m.saturated, m.budget_hit, upper, labels.PROVED),
        "saturated": m.saturated, "upper": upper, "log10_upper": round(ub["log10_upper"], 4),
        "bound": ub["which"], "exact_proved": m.rank == upper, "gap": upper - m.rank,
        "regime_paper": paper_regime(net.depth, net.width), "regime_growth": "",
        "partitions_checked": checked,
        "partition_invariant": ("yes" if invariant else "NO") if checked else "-",
        "verdict": verdict, "seconds": round(time.perf_counter() - t0, 3),
    }
    return (row, m) if with_measurement else row


def bound_verdict(rank: int, saturated: bool, upper, status: str = labels.PROVED,
                  source=None) -> str:
    """The verdict of a measured rank against an upper bound (None: none known).

    ``VIOLATION`` above a proved bound (a bug); above a bound seprank did not prove, the
    words of :func:`seprank.labels.above_label`; meeting it, :func:`seprank.labels.exact_label`
    (``exact, proved`` only for a proved bound).
    """
    if upper is None:
        return "no upper bound known"
    step = labels.rung(rank, saturated, upper)
    if step == labels.ABOVE:
        return "VIOLATION" if status == labels.PROVED else labels.above_label(status, source)
    if step == labels.MEETS:
        return labels.exact_label(status, source)
    return "below bound" if step == labels.BELOW_SATURATED else "not saturated (lower bound only)"


def verify_partitions(net, partitions, *, seed: int = 0,
                      max_samples: int = DEFAULT_BUDGET, progress=None) -> list[dict]:
    """Any architecture: its rank measured on each partition (None: the default) beside
    its own upper bound (:func:`bound_of`: proved, recalled or stated by the
    architecture; ``status`` says which), where one exists. ``label`` is the
    measurement's label against that bound (:mod:`seprank.labels`). ``progress`` is
    measure's (its estimate line first, before each measurement starts)."""
    rows = []
    for part in partitions or [None]:
        t0 = time.perf_counter()
        A = default_partition(net.seq_len) if part is None else tuple(part)
        m = measure(net, A, seed=seed, max_samples=max_samples, progress=progress)
        ub = bound_of(net, A)
        upper, source = (None, None) if ub is None else (ub.value, ub.source)
        status = labels.bound_status(ub.tag) if upper is not None else None
        label = (m.label if m.method != "modular" else
                 labels.rank_label(m.rank, m.saturated, m.budget_hit, upper, status, source))
        rows.append({"partition": list(m.partition), "measured": m.rank,
                     "saturated": m.saturated, "method": m.method, "upper": upper,
                     "status": status, "source": source, "label": label,
                     "exact_proved": status == labels.PROVED and m.rank == upper,
                     "gap": None if upper is None else upper - m.rank,
                     "verdict": (bound_verdict(m.rank, m.saturated, upper, status, source)
                                 if m.method != "float" else f"{label}: not compared"),
                     "seconds": round(time.perf_counter() - t0, 3)})
    return rows

"""Benchmark: what the strengthened checks of issue 40 add to a measurement.

Run: ``python -m experiments.benchmark_checks [--repeats K] [--clock wall|cpu]``. The two
examples of :mod:`experiments.benchmark_row_check` (the worked example on four partitions;
the torch example from the module to its four ranks), each timed with every check on (as
seprank runs them) and with issue 40's additions replaced (the baseline), best of K, in
one run (and the median over the K repeats of the two run back to back):

- the one-row check of every evaluated batch (:class:`seprank.engine.row_check.SpotChecker`:
  the baseline evaluates the batch alone, without the sentinel's copies);
- the constants' cover: the prime drawn at random (the baseline uses the default prime)
  and the coefficient-size traces of ``apply`` that bound the constants' term
  (:mod:`seprank.engine.constants`);

(the declared degree's test beyond the claim, two more one-row evaluations per probe,
is in both). The target: checked / baseline <= 1.10 for each. The ranks agree (checked).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import statistics
import time
from unittest import mock

import seprank
from experiments.benchmark_row_check import PARTITIONS, TORCH_PARTITIONS, SumProduct, best_of
from experiments.script_args import Parser, int_at_least
from seprank.algebra.domains import DEFAULT_PRIME
from seprank.engine import constants, row_check
from seprank.engine.evaluate import evaluate

PATCHES = {
    "seprank.engine.row_check.SpotChecker.evaluate":
        lambda self, net, params, domain, X: evaluate(net, params, X, domain),
    "seprank.engine.constants.draw_prime": lambda *a, **k: DEFAULT_PRIME,
    "seprank.engine.constants.trace_sizes": lambda *a, **k: (0.0, 0, 0.0),
}


def _worked() -> list[int]:
    net = SumProduct(seq_len=6, width=2, factors=4)
    return [seprank.measure(net, A).rank for A in PARTITIONS]


def _torch() -> list[int]:
    from experiments.benchmark_torch_check import CausalLinearAttention

    net = seprank.from_torch(CausalLinearAttention(2, 5), seq_len=5, width=2)
    return [seprank.measure(net, A).rank for A in TORCH_PARTITIONS]


#: The clock (``--clock``): wall time, or this process's CPU time (steadier on a shared
#: machine, where other processes take the cores: it leaves out the time waiting for one).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = CLOCKS["wall"]


def _timed(fn, patched: bool) -> tuple[float, list[int]]:
    row_check._PASSED.clear()  # a fresh session: nothing checked yet
    constants._SIZES.clear()
    with contextlib.ExitStack() as stack:
        for target, stub in (PATCHES.items() if patched else ()):
            stack.enter_context(mock.patch(target, stub))
        t0 = _clock()
        ranks = fn()
        return _clock() - t0, ranks


def _compare(fn, repeats: int) -> tuple[float, float, list[int], float]:
    """best_of's (baseline, checked, ranks), and the median over the repeats of checked /
    baseline run back to back (steadier than the ratio of the bests when the load moves)."""
    pairs: list = []
    b, c, ranks = best_of(lambda baseline: _timed(fn, baseline), repeats, pairs)
    return b, c, ranks, statistics.median(t / t0 for t, t0 in pairs)


def main(argv=None) -> int:
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int_at_least(1, 50), default=5)
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                    help="wall time, or the process's CPU time (default: wall)")
    args = ap.parse_args(argv)
    global _clock
    _clock = CLOCKS[args.clock]
    cases = [("worked example SumProduct N=6 d=2 K=4, 4 partitions", _worked)]
    if importlib.util.find_spec("torch") is not None:
        cases.append(("torch example, module to 4 ranks", _torch))
    print(f"{args.clock} clock, best of {args.repeats}, load average "
          f"{os.getloadavg()[0]:.2f} at the start")
    print("| measurement | baseline s | with the checks s | ratio | median paired ratio | "
          "ranks |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for name, fn in cases:
        b, c, ranks, paired = _compare(fn, args.repeats)
        worst = max(worst, c / b)
        print(f"| {name} | {b:.4f} | {c:.4f} | {c / b:.3f} | {paired:.3f} | {ranks} |")
    print(f"target ratio <= 1.10: {'met' if worst <= 1.10 else 'NOT met'} (worst {worst:.3f}, "
          f"ratio of the bests; load average {os.getloadavg()[0]:.2f} at the end)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: what the checks on users' code add to a measurement (issue 33).

Run: ``python -m experiments.benchmark_row_check [--repeats K]``. Two examples, each timed
with every check on (as seprank runs them) and with the checks of issue 33 replaced by
no-ops (the baseline), best of K, in one run:

- the worked example (docs/worked_example.md: SumProduct, N = 6, width 2, K = 4) on the
  four partitions the page measures; the check is the one-row protocol
  (:func:`seprank.engine.row_check.check_rows`);
- the torch example (docs/torch_example.md: causal linear attention, N = 5, width 2), from
  the module to its four ranks (``from_torch`` and four measurements); the checks are the
  one-row protocol and the trace-time check
  (:func:`seprank.nets.torch_check.check_trace`).

Each timed run starts with nothing checked (the row check remembers a network that passed,
so it runs once for the four measurements, as in a fresh session). The target: checked /
baseline <= 1.10 for each. The ranks agree (checked).
"""

from __future__ import annotations

import contextlib
import importlib.util
import time
from dataclasses import dataclass
from unittest import mock

import numpy as np

import seprank
from experiments.script_args import Parser, int_at_least
from seprank.engine import row_check

PARTITIONS = [(0,), (0, 1, 2), (0, 2, 4), (5,)]


@dataclass(frozen=True)
class SumProduct:
    """The worked example's f(X) = prod_k <w_k, sum_n x^n>."""

    seq_len: int
    width: int
    factors: int
    homogeneous = True

    @property
    def degree(self):
        return self.factors

    def init(self, rng, domain):
        return {"w": domain.random(rng, (self.factors, self.width))}

    def apply(self, params, X, domain):
        return np.prod(X.sum(axis=1) @ params["w"].T, axis=1)


TORCH_PARTITIONS = [(4,), (0, 4), (1, 2, 4), (0, 1)]
ROW = "seprank.engine.row_check.check_rows"
TRACE = "seprank.nets.torch_module.check_trace"


def _worked() -> list[int]:
    net = SumProduct(seq_len=6, width=2, factors=4)
    return [seprank.measure(net, A).rank for A in PARTITIONS]


def _torch() -> list[int]:
    from experiments.benchmark_torch_check import CausalLinearAttention

    net = seprank.from_torch(CausalLinearAttention(2, 5), seq_len=5, width=2)
    return [seprank.measure(net, A).rank for A in TORCH_PARTITIONS]


def _timed(fn, patches) -> tuple[float, list[int]]:
    row_check._PASSED.clear()  # a fresh session: nothing checked yet
    with contextlib.ExitStack() as stack:
        for target in patches:
            stack.enter_context(mock.patch(target, lambda *a, **k: None))
        t0 = time.perf_counter()
        ranks = fn()
        return time.perf_counter() - t0, ranks


def best_of(timed, repeats: int, pairs: list | None = None) -> tuple[float, float, list[int]]:
    """(best baseline s, best checked s, ranks) over ``repeats`` alternating runs of
    ``timed(baseline: bool) -> (seconds, ranks)``, after one warm-up run; both sides must
    give the same ranks. ``pairs``: a list to receive each repeat's (checked s, baseline
    s), run back to back (which side runs first alternates)."""
    timed(False)  # warm-up: imports, kernels
    checked, base = [], []
    for i in range(repeats):
        if i % 2:
            t0, ranks0 = timed(True)
            t, ranks = timed(False)
        else:
            t, ranks = timed(False)
            t0, ranks0 = timed(True)
        assert ranks == ranks0, (ranks, ranks0)
        checked.append(t)
        base.append(t0)
        if pairs is not None:
            pairs.append((t, t0))
    return min(base), min(checked), ranks


def _compare(fn, patches, repeats: int) -> tuple[float, float, list[int]]:
    return best_of(lambda baseline: _timed(fn, patches if baseline else ()), repeats)


def main(argv=None) -> int:
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int_at_least(1, 50), default=5)
    args = ap.parse_args(argv)
    cases = [("worked example SumProduct N=6 d=2 K=4 (row check)", _worked, (ROW,))]
    if importlib.util.find_spec("torch") is not None:
        cases.append(("torch example, module to 4 ranks (row + trace checks)", _torch,
                      (ROW, TRACE)))
    print("| measurement | baseline s | with the checks s | ratio | ranks |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for name, fn, patches in cases:
        b, c, ranks = _compare(fn, patches, args.repeats)
        worst = max(worst, c / b)
        print(f"| {name} | {b:.4f} | {c:.4f} | {c / b:.3f} | {ranks} |")
    print(f"target ratio <= 1.10: {'met' if worst <= 1.10 else 'NOT met'} (worst {worst:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

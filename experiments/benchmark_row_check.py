"""Benchmark: what the one-row protocol check adds to a measurement of a user's class.

Run: ``python -m experiments.benchmark_row_check [--repeats K]``. It measures the worked
example (docs/worked_example.md: SumProduct, N = 6, width 2, K = 4) on the four partitions
the page measures, with the check (as every measurement of a class seprank does not ship
runs it) and with :func:`seprank.engine.row_check.check_rows` replaced by a no-op (the
baseline), and prints the best of K wall times of the four measurements and their ratio.
The target (issue 33): checked / baseline <= 1.10. The ranks agree (checked).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from unittest import mock

import numpy as np

import seprank
from experiments.script_args import Parser, int_at_least

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


def _run(net) -> tuple[float, list[int]]:
    t0 = time.perf_counter()
    ranks = [seprank.measure(net, A).rank for A in PARTITIONS]
    return time.perf_counter() - t0, ranks


def main(argv=None) -> int:
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int_at_least(1, 50), default=5)
    args = ap.parse_args(argv)
    net = SumProduct(seq_len=6, width=2, factors=4)
    _run(net)  # warm-up: imports, kernels
    checked, base = [], []
    for _ in range(args.repeats):
        t, ranks = _run(net)
        checked.append(t)
        with mock.patch("seprank.engine.row_check.check_rows", lambda *a, **k: None):
            t0, ranks0 = _run(net)
        base.append(t0)
        assert ranks == ranks0, (ranks, ranks0)
    c, b = min(checked), min(base)
    print("| measurement (4 partitions) | baseline s | with row check s | ratio |")
    print("|---|---|---|---|")
    print(f"| worked example SumProduct N=6 d=2 K=4 | {b:.3f} | {c:.3f} | {c / b:.3f} |")
    print(f"ranks {ranks}; target ratio <= 1.10: {'met' if c / b <= 1.10 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

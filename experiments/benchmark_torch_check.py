"""Benchmark: what from_torch's trace-time check adds to the torch example's measurement.

Run: ``python experiments/benchmark_torch_check.py [--repeats K]``. On the model of
docs/torch_example.md (causal linear attention, N = 5, width 2) it times, best of K:

- ``check``: :func:`seprank.nets.torch_check.check_trace` alone (the eager forward, the
  traced graph run by torch and seprank's float64 interpretation at two random inputs);
- ``from_torch``: building the architecture (tracing with example values, functionalising,
  the check);
- ``symbolic_trace``: plain ``torch.fx.symbolic_trace`` of the module, what from_torch did
  before (the baseline of the tracing overhead);
- ``measure``: the example's four measurements (partitions (4,), (0, 4), (1, 2, 4), (0, 1),
  the default method);

and prints the ratio check / (from_torch - check + measure): what the check adds to the
example's time from module to ranks (the target of issue 33: at most 10%), and
(from_torch - symbolic_trace) / (symbolic_trace + measure): all that the new tracing adds.
"""

from __future__ import annotations

import time

import torch
from torch import fx, nn

import seprank
from experiments.script_args import Parser, pos_int
from seprank.nets.torch_check import check_trace

N, D = 5, 2
PARTITIONS = [(4,), (0, 4), (1, 2, 4), (0, 1)]


class CausalLinearAttention(nn.Module):
    """docs/torch_example.md's model."""

    def __init__(self, width, seq_len):
        super().__init__()
        self.q = nn.Linear(width, width, bias=False)
        self.k = nn.Linear(width, width, bias=False)
        self.v = nn.Linear(width, width, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(seq_len, seq_len)))

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(1, 2)
        return (scores * self.mask) @ self.v(x)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=pos_int, default=5)
    args = ap.parse_args(argv)

    def build():
        return seprank.from_torch(CausalLinearAttention(D, N), seq_len=N, width=D,
                                  output=(N - 1, 0))

    net = build()
    t_check = best(lambda: check_trace(net), args.repeats)
    t_build = best(build, args.repeats)
    t_measure = best(lambda: [seprank.measure(net, A) for A in PARTITIONS], args.repeats)
    t_fx = best(lambda: fx.symbolic_trace(CausalLinearAttention(D, N)), args.repeats)
    without = t_build - t_check + t_measure
    print(f"| step | best of {args.repeats}, ms |")
    print("|---|---|")
    print(f"| check_trace | {1e3 * t_check:.1f} |")
    print(f"| from_torch (trace + functionalise + check) | {1e3 * t_build:.1f} |")
    print(f"| measure, 4 partitions | {1e3 * t_measure:.1f} |")
    print(f"| torch.fx.symbolic_trace (the old tracing) | {1e3 * t_fx:.1f} |")
    print(f"\ncheck / (example without the check) = {t_check / without:.1%} (target <= 10%)")
    extra = (t_build - t_fx) / (t_fx + t_measure)
    print(f"(from_torch - symbolic_trace) / (symbolic_trace + measure) = {extra:.1%}")


if __name__ == "__main__":
    main()

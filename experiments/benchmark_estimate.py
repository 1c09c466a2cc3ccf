"""Benchmark: the time estimate printed before a measurement against the real time.

Run: ``python -m experiments.benchmark_estimate [--quick] [--cli]``. For each small
configuration below it plans the measurement (:func:`seprank.engine.measure.plan`, whose
cost model is :mod:`seprank.engine.estimate`), runs it, and prints the estimate's
expected seconds, whether ``seprank measure`` would print it (expected above
``SAY_SECONDS`` and the model trusted there: the expected rank is bounded), the real
seconds (plan and run, the kernels compiled beforehand) and the ratio. The goal (issue 34):
every estimate that is printed is within 3x of the real time. ``--quick`` leaves out the
runs of more than a few seconds; ``--cli`` also runs the README's commands (``seprank
measure``, ``seprank certify``, ``seprank verify --quick``) in a temporary folder and
compares the estimate they print, if any, with their wall time. A loaded machine (the
load average is printed first) makes every real time longer.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time

from experiments.script_args import Parser
from seprank import nets
from seprank.engine import estimate
from seprank.engine.measure import execute, plan
from seprank.engine.options import MeasureOptions
from seprank.engine.warm_up import warm_up

LSA = nets.LinearSelfAttention

#: (label, network, options, quick): small configurations, seconds each on 2 cores.
CONFIGS = [
    ("README Python (L2,d3,N6)", LSA(depth=2, width=3, seq_len=6), {}, True),
    ("README CLI (L3,d2,N4)", LSA(depth=3, width=2, seq_len=4), {}, True),
    ("(L3,d2,N4) direct", LSA(depth=3, width=2, seq_len=4), {"strategy": "direct"}, True),
    ("(L3,d2,N4) graded", LSA(depth=3, width=2, seq_len=4), {"strategy": "graded"}, True),
    ("(L2,d6,N12) direct", LSA(depth=2, width=6, seq_len=12), {"strategy": "direct"}, True),
    ("(L4,d2,N4) graded", LSA(depth=4, width=2, seq_len=4), {"strategy": "graded"}, True),
    ("(L3,d3,N6) graded", LSA(depth=3, width=3, seq_len=6), {"strategy": "graded"}, False),
    ("(L3,d3,N6) direct", LSA(depth=3, width=3, seq_len=6), {"strategy": "direct"}, False),
    ("(L4,d2,N4) direct", LSA(depth=4, width=2, seq_len=4), {"strategy": "direct"}, False),
    ("(L5,d2,N4) direct, max 8000", LSA(depth=5, width=2, seq_len=4),
     {"strategy": "direct", "max_samples": 8000}, False),
    ("(L2,d2,N4) float", LSA(depth=2, width=2, seq_len=4), {"method": "float"}, True),
    ("linear-attention (L2,d2,N4)", nets.LinearAttention(depth=2, width=2, seq_len=4), {}, True),
    ("gla (L2,d2,N4)", nets.GLA(depth=2, width=2, seq_len=4), {}, True),
    ("s6 (L2,d2,N6)", nets.S6(depth=2, width=2, seq_len=6), {}, True),
    ("s4 (L2,d2,N4)", nets.S4(depth=2, width=2, seq_len=4), {}, True),
]

#: The README's commands (README.md, "Two commands" and "On the command line").
README = [
    ["measure", "--depth", "3", "--width", "2", "--seq-len", "4", "--json"],
    ["certify", "--depth", "3", "--width", "2", "--seq-len", "4"],
    ["verify", "--quick"],
]
UNITS = {"s": 1, "min": 60, "h": 3600, "days": 86400}


def printed(cost) -> bool:
    """Whether ``seprank measure`` says this estimate (:func:`estimate.check_cost`)."""
    said = []
    if cost is not None and "expected_seconds" in cost.model:
        estimate.check_cost(cost, 2**62, say=said.append)
    return bool(said)


def row(label: str, net, options: dict) -> str:
    t0 = time.perf_counter()
    mp = plan(net, options=MeasureOptions(**options))
    m = execute(mp)
    real = time.perf_counter() - t0
    est = None if mp.estimate is None else mp.estimate.seconds
    ratio = "-" if est is None else f"{est / real:.2f}"
    shown = "yes" if printed(mp.estimate) else "no"
    e = "-" if est is None else f"{est:.3g}"
    return f"| {label} | {m.strategy} | {m.rank} | {e} | {shown} | {real:.3g} | {ratio} |"


def cli_rows() -> list[str]:
    """The README's commands from an empty folder: the estimate each prints (if any)
    against its wall time (imports and start-up included)."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for argv in README:
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "seprank", *argv], cwd=tmp,
                               capture_output=True, text=True, timeout=600)
            wall = time.perf_counter() - t0
            said = re.search(r"about ([0-9.]+) (s|min|h|days) expected", r.stderr)
            est = float(said.group(1)) * UNITS[said.group(2)] if said else None
            ratio = "-" if est is None else f"{est / wall:.2f}"
            e = "not printed" if est is None else f"{est:.3g}"
            out.append(f"| seprank {' '.join(argv)} | {e} | {wall:.3g} | {ratio} "
                       f"| {r.returncode} |")
    return out


def main(argv=None) -> int:
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the runs of a few seconds")
    ap.add_argument("--cli", action="store_true", help="also the README's commands")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"printed when expected > {estimate.SAY_SECONDS} s and trusted\n")
    warm_up()
    print("| configuration | strategy | rank | estimate (s) | printed | real (s) | est/real |")
    print("|---|---|---|---|---|---|---|")
    for label, net, options, quick in CONFIGS:
        if quick or not args.quick:
            print(row(label, net, options), flush=True)
    if args.cli:
        print("\n| README command | estimate printed (s) | wall (s) | est/wall | exit |")
        print("|---|---|---|---|---|")
        for line in cli_rows():
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The cost of the atomic writer and the bounded readers: ``seprank verify --quick`` and a
40-task sweep, timed with this checkout and with a baseline checkout of the code before.

    python -m experiments.benchmark_io --baseline PATH [--only sweep|verify] [--repeats K]

PATH is a copy of the code to compare with (``git archive COMMIT | tar -x -C PATH``; it
needs only its ``seprank`` folder). Each run is a fresh process (``python -m seprank``)
with a fresh store in a fresh folder, the baseline and this checkout alternating so that a
machine busy with other work slows both alike; one untimed run of each first (numba's
compile cache). Prints the median wall time and CPU time (user + system of the child
process: less sensitive to other work on a shared machine) of each side, their ratio and
whether it is within the issue's 5%. Times are measured here, in this run, on this machine's load;
the serial executor keeps a sweep on one core.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from experiments.script_args import Parser, int_at_least

ROOT = Path(__file__).resolve().parents[1]
#: 20 configurations x 2 seeds = 40 tasks, exact modular ranks.
GRID = """\
[grid]
name = "benchmark-io"
methods = ["modular"]
seeds = [0, 1]
[params]
depth = [1, 2]
width = [2, 3, 4, 5, 6]
seq_len = [4, 6]
"""
TASKS = 40


def _run(code_root: Path, argv: list[str], cwd: Path) -> tuple[tuple[float, float], str]:
    """((wall seconds, CPU seconds of the child), stdout) of ``python -m seprank ARGV``."""
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "seprank", *argv], cwd=cwd, env=env,
                       capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    seconds = (time.perf_counter() - t, cpu)
    if r.returncode != 0:
        raise SystemExit(f"{code_root}: seprank {' '.join(argv)} exited {r.returncode}: "
                         f"{r.stderr.strip()[-300:]}")
    return seconds, r.stdout


def _sweep(code_root: Path) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as d:
        grid = Path(d) / "grid.toml"
        grid.write_text(GRID)
        seconds, out = _run(code_root, ["sweep", str(grid), "--db", str(Path(d) / "r.sqlite"),
                                        "--executor", "serial", "--quiet", "--json"], Path(d))
        planned = json.loads(out)["planned"]
        if planned != TASKS:
            raise SystemExit(f"{code_root}: the grid planned {planned} tasks, not {TASKS}")
        return seconds


def _verify(code_root: Path) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as d:
        return _run(code_root, ["verify", "--quick", "--out", str(Path(d) / "v"),
                                "--executor", "serial", "--quiet"], Path(d))[0]


def main(argv=None) -> int:
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, type=Path,
                    help="a copy of the code before (its seprank folder)")
    ap.add_argument("--only", choices=("sweep", "verify"), default=None,
                    help="time one of the two (default: both)")
    ap.add_argument("--repeats", type=int_at_least(1, 50), default=3,
                    help="timed runs of each side (default 3)")
    args = ap.parse_args(argv)
    if not (args.baseline / "seprank" / "__init__.py").exists():
        ap.error(f"--baseline {args.baseline}: no seprank package there")
    jobs = {"sweep (40 tasks, serial)": _sweep, "verify --quick (serial)": _verify}
    if args.only:
        jobs = {k: v for k, v in jobs.items() if k.startswith(args.only)}
    sides = {"baseline": args.baseline.resolve(), "this checkout": ROOT}
    print(f"{'job':26s} {'what':5s} {'baseline s':>10s} {'this s':>8s} {'ratio':>6s}  within 5%")
    for name, job in jobs.items():
        for root in sides.values():  # untimed: compile caches, imports
            job(root)
        times = {k: [] for k in sides}
        for _ in range(args.repeats):
            for side, root in sides.items():
                times[side].append(job(root))
        for i, what in enumerate(("wall", "CPU")):
            base, this = (statistics.median(t[i] for t in times[k]) for k in sides)
            ratio = this / base
            runs = " | ".join(", ".join(f"{t[i]:.2f}" for t in times[k]) for k in sides)
            print(f"{name:26s} {what:5s} {base:10.2f} {this:8.2f} {ratio:6.3f}  "
                  f"{'yes' if ratio <= 1.05 else 'NO'}  (medians of {args.repeats}: {runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Speed-up of the processes and Dask executors over serial on one grid, from one run.

    python -m experiments.benchmark_sweep [--workers N] [--quick]

Runs the same grid (a few dozen attention configurations, exact modular ranks) three
times, each into a fresh result store: serial, processes, and Dask (a LocalCluster of
single-threaded worker processes started and closed by seprank). Prints the wall time
of each sweep (executor start-up included: it is part of what a user waits for), the
speed-up over serial as a ratio, and whether the three stores hold identical results.
Times are measured on this machine in this run; they are not a promise elsewhere (the
speed-up cannot exceed the number of free cores).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from experiments.script_args import Parser, worker_count

GRID = """\
[grid]
name = "benchmark"
methods = ["modular"]
seeds = [0, 1]
max_bound = {max_bound}
[params]
depth = [1, 2, 3]
width = [2, 3, 4]
heads = "divisors"
seq_len = [4, 6]
"""


def _normalised(store) -> dict:
    return {r["key"]: (r["status"], {k: v for k, v in r["measurement"].items()
                                     if "seconds" not in k})
            for r in store.query()}


def main(argv=None) -> int:
    from seprank.engine.warm_up import warm_up
    from seprank.sweeps.grid_file import read_grid, specs
    from seprank.sweeps.runner import run
    from seprank.sweeps.store import Store

    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--workers",
        type=worker_count,
        default=None,
        help="workers for processes and Dask (default: all cores)",
    )
    ap.add_argument("--quick", action="store_true", help="smaller tasks (max_bound 600)")
    args = ap.parse_args(argv)
    workers = args.workers or os.cpu_count() or 1
    warm_up(lambda m: print(m, file=sys.stderr))  # compile once, outside every timing
    with tempfile.TemporaryDirectory() as tmp:
        grid_file = Path(tmp) / "benchmark.toml"
        grid_file.write_text(GRID.format(max_bound=600 if args.quick else 3000))
        tasks, left_out = specs(read_grid(grid_file))
        print(f"grid: {len(tasks)} tasks (attention, depths 1-3, widths 2-4, every head "
              f"count, N = 4 and 6, 2 seeds; {left_out} configurations over max_bound left "
              f"out); {os.cpu_count()} CPU cores here, {workers} workers")
        results, times, busy, start = {}, {}, {}, {}
        for ex in ("serial", "processes", "dask"):
            with Store(Path(tmp) / f"{ex}.sqlite") as store:
                t0 = time.perf_counter()
                o = run(tasks, store, executor=ex, workers=workers, progress=False,
                        say=lambda m: None)
                times[ex] = time.perf_counter() - t0
                start[ex] = o.start_seconds
                rows = store.query()
                busy[ex] = sum(r["seconds"] or 0 for r in rows)
                results[ex] = _normalised(store)
            if o.done != len(tasks):
                print(f"{ex}: only {o.done} of {len(tasks)} tasks done", file=sys.stderr)
                return 1
    base = times["serial"]
    print(f"{'executor':<10} {'workers':>7} {'wall s':>8} {'start s':>8} {'task s':>8} "
          f"{'speed-up':>9}")
    for ex in times:
        n = 1 if ex == "serial" else workers
        print(f"{ex:<10} {n:>7} {times[ex]:>8.2f} {start[ex]:>8.2f} {busy[ex]:>8.2f} "
              f"{base / times[ex]:>8.2f}x")
    same = results["serial"] == results["processes"] == results["dask"]
    print(
        "wall s: the whole sweep, executor start-up included; start s: creating the pool or "
        "cluster (the process pool spawns its workers on first use, so their start-up shows "
        "in wall s only); task s: the tasks' own times summed; speed-up: serial wall / this "
        "wall (all measured, this run)"
    )
    print(f"identical stored results on the three executors: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

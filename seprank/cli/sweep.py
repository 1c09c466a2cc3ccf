"""``seprank sweep GRID.toml``: a declarative grid through the result store."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from seprank.cli._common import (
    add_output_args,
    add_sweep_args,
    check_executor_flags,
    nonneg_int,
    real_arg,
)
from seprank.engine import parameters
from seprank.errors import ConfigError, SeprankError, TooBigError
from seprank.paths import check_out_dir
from seprank.sweeps.executors import WORKER_TIMEOUT_S, check_scheduler
from seprank.sweeps.grid_file import read_grid, shipped_grid, specs
from seprank.sweeps.runner import run
from seprank.sweeps.store import Store, check_file
from seprank.sweeps.store_health import claims_line, wait_line
from seprank.sweeps.tasks import plan

SWEEP_EPILOG = """\
GRID is a TOML file or the name of a shipped grid (example, verify-quick, verify-default).
Its keys: [grid] name, task, arch (or torch), methods, strategies, seeds, primes,
max_samples, max_bound, partitions; [params] (each a list of values); [[exclude]]
(combinations left out); the module seprank.sweeps.grid_file documents each, and
seprank/sweeps/grids/example.toml is a small grid using some of them.
Each task (one configuration, partition, method, strategy, seed, prime) is keyed by a hash
that includes the seprank version and a fingerprint of the measuring code; tasks already
done in the store are skipped, so a stopped sweep resumes where it stopped. Each finished
task is written in its own transaction. Tasks run large-first (estimated cost from the
proved bound); a task whose estimated memory exceeds a worker's is refused and stored as
such; one that raises is stored with its error and retried (--retries). seprank results
lists what is stored. Two sweeps on one store share it: each task is claimed by one of
them (a claim row with its owner and a heartbeat; a dead sweep's claims are taken over)
and measured once.
The grid file you name is your word: an arch module:Class in it is imported (its code
runs: read a grid you were sent before you sweep it). The store (--db) is data, even one
someone sent: its rows are matched by key and read; no architecture it records is imported.
exit codes: 0 every task done, 1 some failed or were refused (stored, with the reason),
or some are claimed by another sweep and not finished ("N tasks claimed by HOST:PID, not
finished"; --wait waits for them instead), or the store could not be written, or no Dask
worker was left for --worker-timeout (finished tasks are kept), 2 bad input (the grid is
refused whole, nothing is stored; a file that is not a seprank store is left untouched),
130 interrupted."""


def add_parser(sub) -> None:
    s = sub.add_parser("sweep", epilog=SWEEP_EPILOG,
                       help="run a TOML grid of configurations through the result store "
                            "(resumable; serial, processes or Dask)")
    s.add_argument("grid", help="grid TOML file, or a shipped grid's name (e.g. example)")
    s.add_argument(
        "--out",
        default="seprank-results",
        help="folder of the default store (checked before any work)",
    )
    s.add_argument(
        "--seeds", default=None, metavar="S,S,...", help="override the grid's seeds, e.g. 0,1,2"
    )
    s.add_argument(
        "--max-tasks",
        type=nonneg_int,
        default=None,
        help="run at most this many of the tasks not yet in the store",
    )
    add_output_args(s, json_help="print one JSON object (the counts)",
                    quiet_help="no progress bar")
    add_sweep_args(s, "result store (SQLite; default OUT/results.sqlite)")
    s.add_argument("--wait", action="store_true",
                   help="when tasks are claimed by another sweep (on this store, maybe on "
                        "another host), wait for them, with a progress line, instead of "
                        "exiting 1; a dead sweep's claims are taken over once stale")
    s.add_argument("--worker-timeout", type=real_arg(0.0, 86400.0, lo_open=True),
                   default=None, metavar="SECONDS",
                   help="dask: stop (exit 1, finished tasks kept) when the cluster has had no "
                        f"live worker for this long (default {WORKER_TIMEOUT_S:g})")


def _grid_path(text: str) -> Path:
    p = Path(text)
    if p.suffix == ".toml" or p.exists():
        return p
    return shipped_grid(text)


#: Seconds between two looks at the tasks another sweep holds (``--wait``).
WAIT_POLL_S = 5.0


def cmd(args) -> int:
    check_executor_flags(args)
    if args.scheduler is not None:  # unreachable: refused within seconds, nothing written
        check_scheduler(args.scheduler)
    grid = read_grid(_grid_path(args.grid))
    seeds = None
    if args.seeds is not None:
        try:
            seeds = [parameters.parse("seed", x) for x in args.seeds.split(",") if x.strip()]
        except SeprankError as exc:
            raise ConfigError(f"seeds={args.seeds[:40]!r}: {exc}") from None
        if not seeds:
            raise ConfigError(f"seeds={args.seeds!r} must be non-negative integers")
    tasks, left_out = specs(grid, seeds=seeds)
    if not tasks:
        raise ConfigError(f"grid {grid['grid']['name']}: no task to run (max_bound="
                          f"{grid['grid'].get('max_bound')} leaves out all {left_out} "
                          "configurations)")
    db = Path(args.db) if args.db is not None else Path(args.out) / "results.sqlite"
    check_file(db)  # a foreign, corrupt or empty file: refused before the folder is made
    if args.db is None:
        check_out_dir(args.out)
    with Store(db) as store:
        status = store.status_of(t["key"] for t in tasks)
        if args.max_tasks is not None:
            todo = [t for t in tasks if status.get(t["key"]) != "done"][: args.max_tasks]
            tasks = [t for t in tasks if status.get(t["key"]) == "done"] + todo
        _plan_or_refuse([t for t in tasks if status.get(t["key"]) != "done"], grid)
        o, pending = _run_waiting(args, tasks, store, f"sweep {grid['grid']['name']}")
    d = dict(o.to_dict(), grid=grid["grid"]["name"], left_out_by_max_bound=left_out)
    if args.json:
        print(json.dumps(d))
    else:
        print(o.line())
        if left_out:
            print(f"{left_out} configurations left out: proved bound above max_bound")
        if o.failed or o.refused:
            print(f"failed or refused: seprank results --db {o.db} --where status!=done")
    if o.interrupted:
        return 130
    if pending:  # not done, and not by this sweep: the store is incomplete, so exit 1
        print(f"seprank: error: {claims_line(pending)} (another sweep holds them; rerun "
              "when it ends, or with --wait)", file=sys.stderr)
        return 1
    return 1 if (o.failed or o.refused) else 0


def _plan_or_refuse(todo: list, grid: dict) -> None:
    """Plan every task to run (its estimates, kept in the spec: the runner does not plan it
    again); a task the planner refuses as invalid refuses the whole grid, exit 2, before
    any task is stored. One refused as too big is left to the runner, which stores it as
    refused (a grid may hold a few that do not fit)."""
    for t in todo:
        try:
            plan(t)
        except TooBigError:
            continue
        except SeprankError as exc:
            shown = ", ".join(f"{k}={v}" for k, v in t.get("params", {}).items())
            raise ConfigError(f"grid {grid['grid']['name']}: a task cannot run ({shown}; "
                              f"method {t.get('method')}, strategy {t.get('strategy')}): "
                              f"{exc}; nothing was stored") from None


def _planned(spec: dict) -> dict:
    """The runner's planning step: a spec planned by :func:`_plan_or_refuse` as it is."""
    return spec if "est_seconds" in spec else plan(spec)


def _run_waiting(args, tasks, store, label):
    """Run the tasks. Then, while another sweep holds some unfinished: without --wait,
    stop (the caller exits 1); with --wait, look again every WAIT_POLL_S seconds (a
    progress line each time) and run what a dead sweep left. Returns the Outcome (the
    runs' counts added up) and what others still hold."""
    keys = [t["key"] for t in tasks]
    since = time.monotonic()

    def once():
        return run(tasks, store, executor=args.executor, scheduler=args.scheduler,
                   workers=args.workers, worker_memory=args.worker_memory,
                   retries=args.retries, progress=not args.quiet, label=label,
                   worker_timeout=args.worker_timeout or WORKER_TIMEOUT_S,
                   plan_fn=_planned)

    o = once()
    pending = store.claimed_elsewhere(keys)
    while pending and args.wait and not o.interrupted:
        if not args.quiet:
            print(wait_line(pending, since), file=sys.stderr, flush=True)
        try:
            time.sleep(WAIT_POLL_S)
        except KeyboardInterrupt:
            o.interrupted = True
            break
        pending = store.claimed_elsewhere(keys)
        status = store.status_of(keys)
        if not pending and any(status.get(k) != "done" for k in keys):  # a sweep died
            again = once()
            for f in ("done", "failed", "refused", "retried"):
                setattr(o, f, getattr(o, f) + getattr(again, f))
            o.interrupted = again.interrupted
            pending = store.claimed_elsewhere(keys)
    o.elsewhere = sum(pending.values()) if pending else o.elsewhere
    return o, pending

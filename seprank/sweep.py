"""Sweeps: a TOML grid -> task specs -> an executor -> the result store.

A grid file (``seprank sweep GRID.toml``; ``seprank/grids/*.toml`` are the shipped ones)::

    [grid]
    name = "example"          # stored with every task (seprank results --where grid=example)
    task = "measure"          # measure | verify
    arch = "attention"        # seprank archs lists them
    methods = ["modular"]     # default ["auto"]
    strategies = ["auto"]
    seeds = [0, 1]
    primes = [67108859]       # default: the default prime
    max_samples = 6000        # default: measure's default
    max_bound = 1500          # leave out configurations whose proved bound exceeds this
    partitions = ["default"]  # or lists of A-side positions, e.g. [[0, 1], [0, 2]]

    [params]                  # every combination, in this order (the last varies fastest)
    depth = [1, 2]
    width = [2, 4]
    heads = "divisors"        # every head count dividing the width
    seq_len = [4]
    residual = [false, true]

    [[exclude]]               # combinations left out: a value, a list, or {min, max}
    residual = true
    depth = {min = 3}

:func:`run` skips the tasks already ``done`` in the store, orders the rest large-first by
their estimated cost, refuses (and stores) those whose estimated memory exceeds a
worker's, runs them with bounded retries, writes each outcome in its own transaction,
and keeps a progress line; Ctrl-C stops it with every finished task kept.
"""

from __future__ import annotations

import itertools
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import ConfigError, SeprankError

try:  # Python >= 3.11
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

GRID_KEYS = ("name", "task", "arch", "methods", "strategies", "seeds", "primes",
             "max_samples", "max_bound", "partitions")  # fmt: skip
#: Tasks in flight per worker: enough to keep workers busy, few enough to keep the order.
IN_FLIGHT_PER_WORKER = 2


def shipped_grid(name: str) -> Path:
    """Path of a grid shipped in the package (``seprank/grids/NAME.toml``)."""
    from importlib import resources

    p = Path(str(resources.files("seprank") / "grids" / f"{name}.toml"))
    if not p.exists():
        raise ConfigError(f"grid={name!r} is not a shipped grid (seprank/grids/)")
    return p


#: [grid] keys whose value is a list of alternatives.
LIST_KEYS = ("methods", "strategies", "seeds", "primes", "partitions")


def read_grid(path: Path | str) -> dict:
    """The grid file parsed and checked (ConfigError naming the key or the file)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"grid={str(path)!r} cannot be read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"grid={str(path)!r} is not valid TOML ({exc})") from None
    extra = set(data) - {"grid", "params", "exclude"}
    if extra:
        raise ConfigError(f"grid {path.name}: unknown table {sorted(extra)[0]!r}; expected "
                          "[grid], [params] and [[exclude]]")  # fmt: skip
    g = dict(data.get("grid", {}))
    bad = set(g) - set(GRID_KEYS)
    if bad:
        raise ConfigError(f"grid {path.name}: [grid] key {sorted(bad)[0]!r} is unknown; valid: "
                          f"{', '.join(GRID_KEYS)}")  # fmt: skip
    g.setdefault("name", path.stem)
    g.setdefault("task", "measure")
    g.setdefault("arch", "attention")
    from .tasks import KINDS

    if g["task"] not in KINDS:
        raise ConfigError(f"grid {path.name}: task={g['task']!r} must be one of "
                          f"{', '.join(KINDS)}")  # fmt: skip
    from .nets import ARCHITECTURES
    from .nets.base import param_specs

    if g["arch"] not in ARCHITECTURES:
        raise ConfigError(f"grid {path.name}: arch={g['arch']!r} is not an architecture; "
                          f"valid: {', '.join(ARCHITECTURES)}")  # fmt: skip
    names = {s["name"] for s in param_specs(ARCHITECTURES[g["arch"]])}
    params = data.get("params", {})
    for k in params:
        if k not in names:
            raise ConfigError(f"grid {path.name}: [params] {k!r} is not a parameter of "
                              f"{g['arch']}; valid: {', '.join(sorted(names))}")  # fmt: skip
    for k in LIST_KEYS:  # a bare string would be iterated letter by letter
        if k in g and not isinstance(g[k], list):
            raise ConfigError(f"grid {path.name}: [grid] {k} must be a list, e.g. "
                              f"{k} = [{g[k]!r}], got {g[k]!r}")  # fmt: skip
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(r, dict) for r in exclude):
        raise ConfigError(f"grid {path.name}: exclude must be [[exclude]] tables")
    for rule in exclude:
        for k in rule:  # a mistyped key would match nothing and exclude nothing
            if k not in names:
                raise ConfigError(f"grid {path.name}: [[exclude]] {k!r} is not a parameter "
                                  f"of {g['arch']}; valid: {', '.join(sorted(names))}")  # fmt: skip
    return {"grid": g, "params": params, "exclude": exclude, "path": str(path)}


def _values(key, v, combo):
    if key == "heads" and v == "divisors":
        from .nets import head_counts

        return head_counts(combo["width"])
    return v if isinstance(v, list) else [v]


def _excluded(combo: dict, rules: list) -> bool:
    def hit(k, rule):
        v = combo.get(k)
        if isinstance(rule, dict):
            return v is not None and rule.get("min", v) <= v <= rule.get("max", v)
        return v in rule if isinstance(rule, list) else v == rule

    return any(all(hit(k, r) for k, r in rule.items()) for rule in rules)


def combos(grid: dict) -> list[dict]:
    """Every parameter combination of the grid, in file order, minus the excluded ones."""
    out = [{}]
    for key, v in grid["params"].items():
        out = [dict(c, **{key: x}) for c in out for x in _values(key, v, c)]
    return [c for c in out if not _excluded(c, grid["exclude"])]


def proved_bound(net, partition=None) -> int | None:
    """The proved upper bound used to plan (None: none known), never as a measurement."""
    from .nets import LinearSelfAttention

    if isinstance(net, LinearSelfAttention):
        from .theory.bounds import upper_bound

        return upper_bound(net, partition)["upper"]
    known = getattr(net, "known_bound", None)
    if callable(known):
        from .grid import check_partition, default_partition

        A, _ = check_partition(default_partition(net.seq_len) if partition is None
                               else partition, net.seq_len)  # fmt: skip
        return known(A).get("upper")
    return None


def specs(grid: dict, *, seeds=None) -> tuple[list[dict], int]:
    """The grid's task specs, and how many combinations ``max_bound`` left out."""
    from .nets import ARCHITECTURES
    from .tasks import make_spec

    g = grid["grid"]
    cls = ARCHITECTURES[g["arch"]]
    parts = [None if p == "default" else p for p in g.get("partitions", ["default"])]
    out, skipped = [], 0
    for c in combos(grid):
        for part in parts:
            cap = g.get("max_bound")
            if cap is not None:
                try:
                    up = proved_bound(cls(**c), part)
                except SeprankError:  # an invalid combination: its task fails, stored
                    up = 0
                if up is None or up > cap:
                    skipped += 1
                    continue
            for method, strategy, seed, prime in itertools.product(
                g.get("methods", ["auto"]), g.get("strategies", ["auto"]),
                g.get("seeds", [0]) if seeds is None else seeds, g.get("primes", [None]),
            ):  # fmt: skip
                out.append(make_spec(g["task"], g["arch"], c, partition=part, method=method,
                                     strategy=strategy, seed=seed, prime=prime,
                                     max_samples=g.get("max_samples"), grid=g["name"]))  # fmt: skip
    return out, skipped


@dataclass
class Outcome:
    """What a sweep did (counts of this run) and where its results are."""

    planned: int
    skipped: int = 0  # already done in the store: not run again
    done: int = 0
    failed: int = 0
    refused: int = 0
    retried: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    start_seconds: float = 0.0  # of that, starting the executor (a pool, a cluster)
    executor: str = ""
    workers: int = 0
    db: str = ""
    keys: list = field(default_factory=list)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("keys")
        return d

    def line(self) -> str:
        s = (f"{self.planned} tasks: {self.done} measured now, {self.skipped} already in the "
             f"store, {self.failed} failed, {self.refused} refused ({self.executor}, "
             f"{self.workers} workers, {self.seconds:.1f} s; store {self.db})")  # fmt: skip
        return s + (" INTERRUPTED: finished tasks are kept" if self.interrupted else "")


def run(task_specs: list[dict], store, *, executor: str = "processes", scheduler=None,
        workers: int | None = None, worker_memory: int | None = None, retries: int = 2,
        progress: bool = True, dask_processes: bool = True, label: str = "sweep",
        say=None) -> Outcome:  # fmt: skip
    """Run every task not yet ``done`` in ``store``; see the module docstring."""
    from . import executors
    from ._progress import Progress
    from .tasks import memory_refusal, plan

    say = say or (lambda msg: print(msg, file=sys.stderr, flush=True))
    unique = list({s["key"]: s for s in task_specs}.values())
    t0 = time.perf_counter()
    out = Outcome(planned=len(unique), executor=executor, db=str(store.path),
                  keys=[s["key"] for s in unique])  # fmt: skip
    status = store.status_of(out.keys)
    todo = [s for s in unique if status.get(s["key"]) != "done"]
    out.skipped = len(unique) - len(todo)
    if not todo:
        say(f"{label}: all {len(unique)} tasks are in the store {store.path}: nothing to run")
        return out
    bar = Progress(len(unique), out.skipped, enabled=progress, label=label)
    ready = []
    for s in todo:
        try:
            ready.append(plan(s))
        except Exception as exc:  # an invalid configuration: stored as failed, not run
            store.put(s, {"status": "failed", "error": f"{type(exc).__name__}: {exc}"})
            bar.failed += 1
            out.failed += 1
    ready.sort(key=lambda s: -s["est_seconds"])  # large first: the long ones don't end last
    t_start = time.perf_counter()
    ex = executors.make(executor, workers=workers, worker_memory=worker_memory,
                        scheduler=scheduler, dask_processes=dask_processes)  # fmt: skip
    out.start_seconds = time.perf_counter() - t_start
    out.workers = ex.workers
    mem = "" if ex.worker_memory is None else f", {ex.worker_memory / 2**30:,.1f} GiB each"
    peak = max((s["est_bytes"] for s in ready), default=0)
    say(
        f"{label}: {len(unique)} tasks, {out.skipped} already in the store; running "
        f"{len(ready)} on {executor} ({ex.workers} workers{mem}; estimated peak of the "
        f"largest task {peak / 2**20:,.0f} MiB, each task's in the store); store {store.path}"
    )
    queue = []
    for s in ready:
        why = memory_refusal(s, ex.worker_memory)
        if why:
            store.put(s, {"status": "refused", "error": why})
            out.refused += 1
            bar.refused += 1
        else:
            queue.append(s)
    bar.est_left = sum(s["est_seconds"] for s in queue)
    tries: dict[str, int] = {}
    queue.reverse()  # pop() from the end takes the largest first
    suspects: list = []  # lost in another task's crash: rerun one at a time
    interrupted, failed_hard = False, True
    try:
        if queue and (executor != "dask" or scheduler is None):
            from ._firstrun import warm_up  # compile once here, not in every worker at once

            warm_up(say if progress else None)
        def start(s):  # every submission is an attempt
            tries[s["key"]] = tries.get(s["key"], 0) + 1
            ex.submit(s)

        while queue or suspects or ex.in_flight():
            if suspects:  # alone, so that a crash names its task
                if not ex.in_flight():
                    start(suspects.pop())
            else:
                while queue and ex.in_flight() < IN_FLIGHT_PER_WORKER * ex.workers:
                    start(queue.pop())
            bar.running = ex.running()
            bar.update()
            for s, res in ex.wait(timeout=0.5):
                if res.get("lost"):  # not its fault (yet): no attempt charged, not stored
                    tries[s["key"]] -= 1
                    suspects.append(s)
                    continue
                store.put(s, res)
                if res["status"] == "failed" and res.get("retry") and tries[s["key"]] <= retries:
                    out.retried += 1
                    queue.append(s)  # next to run
                    continue
                setattr(out, res["status"], getattr(out, res["status"]) + 1)
                setattr(bar, res["status"], getattr(bar, res["status"]) + 1)
                bar.est_done += s["est_seconds"]
                bar.est_left -= s["est_seconds"]
            bar.running = ex.running()
            bar.update()
        failed_hard = False
    except KeyboardInterrupt:
        interrupted = out.interrupted = True
        failed_hard = False
    finally:  # the pool or cluster is closed on every exit, an unexpected error included
        ex.close(cancel=interrupted or failed_hard)
    bar.running = 0
    bar.close()
    out.seconds = time.perf_counter() - t0
    return out

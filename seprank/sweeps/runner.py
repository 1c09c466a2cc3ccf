"""Sweeps: a TOML grid -> task specs -> an executor -> the result store.

A grid file (its format: :mod:`seprank.sweeps.grid_file`) expands into task specs.

:func:`run` skips the tasks already ``done`` in the store, orders the rest large-first by
their estimated cost, refuses (and stores) those whose estimated memory exceeds a
worker's, runs them with bounded retries, writes each outcome in its own transaction,
and shows its progress (:mod:`seprank.sweeps.progress`: a tqdm bar, or lines in a log);
Ctrl-C stops it with every finished task kept.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from seprank.engine import bars
from seprank.engine.warm_up import warm_up
from seprank.errors import ConfigError, SeprankError, TooBigError
from seprank.sweeps import executors
from seprank.sweeps.progress import Progress
from seprank.sweeps.tasks import memory_refusal, plan, run_task

#: Tasks in flight per worker: enough to keep workers busy, few enough to keep the order.
IN_FLIGHT_PER_WORKER = 2


@dataclass
class Outcome:
    """What a sweep did (counts of this run) and where its results are.

    Returned by :func:`run`; the parameters are its fields.

    Parameters
    ----------
    planned : int
        Distinct tasks given.
    skipped : int, default 0
        Already done in the store: not run again.
    done : int, default 0
        Measured by this run.
    failed : int, default 0
        Failed (after the retries).
    refused : int, default 0
        Refused: estimated memory over a worker's, or too large for the engine.
    retried : int, default 0
        Resubmissions of failed tasks.
    elsewhere : int, default 0
        Claimed by another sweep on the same store: measured there.
    interrupted : bool, default False
        Whether Ctrl-C stopped the run (every finished task is kept).
    seconds : float, default 0.0
        Wall time of the run.
    start_seconds : float, default 0.0
        Of that, starting the executor (a pool, a cluster).
    executor : str, default ""
        The executor's name.
    workers : int, default 0
        Its number of workers.
    db : str, default ""
        The store's path.
    keys : list, default []
        The keys of the tasks given.
    unrun : int, default 0
        Left unrun by ``max_seconds`` (not started: not stored).
    """

    planned: int
    skipped: int = 0  # already done in the store: not run again
    done: int = 0
    failed: int = 0
    refused: int = 0
    retried: int = 0
    elsewhere: int = 0  # claimed by another sweep on the same store: measured there
    interrupted: bool = False
    seconds: float = 0.0
    start_seconds: float = 0.0  # of that, starting the executor (a pool, a cluster)
    executor: str = ""
    workers: int = 0
    db: str = ""
    keys: list = field(default_factory=list)
    unrun: int = 0

    def to_dict(self) -> dict:
        """The counts as a dict (the keys left out).

        Returns
        -------
        dict
            Every field but ``keys``.
        """
        d = asdict(self)
        d.pop("keys")
        return d

    def line(self) -> str:
        """The outcome as one line of text.

        Returns
        -------
        str
            The counts, the executor, the time and the store.
        """
        s = (f"{self.planned} tasks: {self.done} measured now, {self.skipped} already in the "
             f"store, {self.failed} failed, {self.refused} refused"
             + (f", {self.elsewhere} run by another sweep" if self.elsewhere else "")
             + (f", {self.unrun} left unrun (time limit)" if self.unrun else "")
             + f" ({self.executor}, "
             f"{_workers(self.workers)}, {self.seconds:.1f} s; store {self.db})")
        return s + (" INTERRUPTED: finished tasks are kept" if self.interrupted else "")


def _plan_all(todo: list, store, bar, out, plan_fn=plan) -> list:
    """Plan each task (estimates); a task the planner refuses as too big (TooBigError) is
    stored as refused, an invalid configuration (another SeprankError) as failed, neither
    run (as a worker would store them). Any other error while planning (a bug in a user's
    network, which the planner evaluates at a few points) is said in one line and leaves
    the task to run without estimates: it fails there, and is retried as any task is.
    Largest first, so that the long ones do not end last."""
    ready = []
    for s in todo:
        try:
            ready.append(plan_fn(s))
        except TooBigError as exc:
            store.put(s, {"status": "refused", "error": f"refused: {exc}", "retry": False})
            bar.refused += 1
            out.refused += 1
        except SeprankError as exc:
            store.put(s, {"status": "failed", "error": f"{type(exc).__name__}: {exc}"})
            bar.failed += 1
            out.failed += 1
        except Exception as exc:
            bars.write(f"task {s.get('key', '?')[:12]} ({s.get('arch')}): planning raised "
                       f"{type(exc).__name__}: {exc}; it runs without estimates")
            ready.append(dict(s, est_seconds=0.0, est_bytes=None))
    return sorted(ready, key=lambda s: -s["est_seconds"])


def _refuse_oversized(ready: list, worker_memory, store, bar, out) -> list:
    """The tasks that fit a worker's memory; the others are stored as refused."""
    queue = []
    for s in ready:
        why = memory_refusal(s, worker_memory)
        if why:
            if store.claim(s["key"]) is not None:  # another sweep has it
                out.elsewhere += 1
                continue
            store.put(s, {"status": "refused", "error": why})
            out.refused += 1
            bar.refused += 1
        else:
            queue.append(s)
    return queue


def _workers(n: int) -> str:
    return f"{n} worker" + ("" if n == 1 else "s")


def _drain(ex, queue: list, store, bar, out, retries: int, task_fn, on_result=None,
           deadline: float | None = None) -> None:
    """Submit and collect until every task has a stored result. A task lost in another
    task's crash (a broken pool fails all its tasks) is rerun alone and not charged an
    attempt; a failure marked ``retry`` is requeued until ``retries`` is used up. With a
    ``deadline`` (a ``time.perf_counter()`` value), no task starts after it, nor one whose
    estimate would end past it; tasks already running finish, the rest are counted in
    ``out.unrun``."""
    tries: dict[str, int] = {}
    queue.reverse()  # pop() from the end takes the first in the given order
    suspects: list = []

    def fits(s) -> bool:
        if deadline is None:
            return True
        return time.perf_counter() + float(s.get("est_seconds") or 0.0) <= deadline

    def start(s):  # every submission is an attempt, of a task this sweep has claimed
        if tries.get(s["key"]) is None and store.claim(s["key"]) is not None:
            out.elsewhere += 1  # done meanwhile, or running in another sweep
            return
        tries[s["key"]] = tries.get(s["key"], 0) + 1
        ex.submit(task_fn, s)

    while queue or suspects or ex.in_flight():
        if suspects:  # alone, so that a crash names its task
            if not ex.in_flight():
                start(suspects.pop())
        else:
            while queue and ex.in_flight() < IN_FLIGHT_PER_WORKER * ex.workers:
                if not fits(queue[-1]):
                    out.unrun = len(queue)
                    queue.clear()
                    break
                start(queue.pop())
        bar.running = ex.running()
        bar.update()
        for s, res in ex.wait(timeout=0.5):
            if res.get("lost"):  # not its fault (yet): no attempt charged, not stored
                tries[s["key"]] -= 1
                suspects.append(s)
                continue
            store.put(s, res)
            if on_result is not None:
                on_result(s, res)
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


def run(task_specs: list[dict], store, *, executor: str = "processes", scheduler=None,
        workers: int | None = None, worker_memory: int | None = None, retries: int = 2,
        progress: bool = True, dask_processes: bool = True, label: str = "sweep",
        say=None, task_fn=run_task, worker_timeout: float | None = None, plan_fn=plan,
        on_result=None, order: str = "largest", max_seconds: float | None = None
        ) -> Outcome:
    """Run every task not yet ``done`` in ``store``; see the module docstring.

    Parameters
    ----------
    task_specs : list of dict
        The task specs (:mod:`seprank.sweeps.tasks`; duplicates by key run once).
    store : Store
        The result store written (:class:`seprank.sweeps.store.Store`).
    executor : {"serial", "processes", "dask"}, default "processes"
        Where the tasks run (:mod:`seprank.sweeps.executors`).
    scheduler : str, optional
        Address of an existing Dask scheduler (``executor="dask"`` only; default: a
        LocalCluster started and closed here).
    workers : int, optional
        Number of workers (default: all cores; ``serial``: 1).
    worker_memory : int, optional
        Bytes of memory per worker (default: the memory available here); tasks whose estimate
        exceeds it are refused and stored as refused.
    retries : int, default 2
        How many times a failure marked ``retry`` (an unexpected error, or a worker that
        died) is resubmitted.
    progress : bool, default True
        Show a progress bar (tqdm: a widget in notebooks); False (--quiet) also silences
        the notes (``say``).
    dask_processes : bool, default True
        Run a LocalCluster's workers as processes (False: threads).
    label : str, default "sweep"
        The name the messages start with.
    say : callable, optional
        Receives each message line (default: print to stderr).
    task_fn : callable, default run_task
        ``task_fn(spec) -> dict``, what each executor runs on a task
        (:func:`seprank.sweeps.tasks.run_task`; importable by name: workers are spawned).
    worker_timeout : float, optional
        Seconds a Dask cluster may have no live worker before the run stops (default 300).
    plan_fn : callable, default plan
        ``plan_fn(spec) -> spec`` with ``est_seconds`` and ``est_bytes`` filled in
        (:func:`seprank.sweeps.tasks.plan`; identity for specs that carry them already).
    on_result : callable, optional
        ``on_result(spec, outcome)``, called in this process after each outcome is stored
        (e.g. a line per finished task).
    order : {"largest", "cheapest"}, default "largest"
        Which tasks start first, by estimated seconds.
    max_seconds : float, optional
        Start no task after this many seconds from the call, nor one whose estimate would
        end past them; running tasks finish, the others stay unrun (``Outcome.unrun``).

    Returns
    -------
    Outcome
        The counts of this run.

    Raises
    ------
    ConfigError
        If the executor is unknown, or ``scheduler`` is given without ``executor="dask"``.
    StoreWriteError
        If the store cannot be written mid-run (every task stored before is kept).
    NoWorkerError
        If a Dask cluster has no live worker for longer than ``worker_timeout``.
    """
    if order not in ("largest", "cheapest"):
        raise ConfigError(f"order={order!r} must be largest or cheapest")
    if say is None:  # above the bar (tqdm.write); nothing at all without progress (--quiet)
        say = bars.write if progress else (lambda msg: None)
    unique = list({s["key"]: s for s in task_specs}.values())
    t0 = time.perf_counter()
    out = Outcome(planned=len(unique), executor=executor, db=str(store.path),
                  keys=[s["key"] for s in unique])
    status = store.status_of(out.keys)
    todo = [s for s in unique if status.get(s["key"]) != "done"]
    out.skipped = len(unique) - len(todo)
    if not todo:
        say(f"{label}: all {len(unique)} tasks are in the store {store.path}: nothing to run")
        return out
    bar = Progress(len(unique), out.skipped, enabled=progress, label=label)
    ready = _plan_all(todo, store, bar, out, plan_fn)
    if order == "cheapest":
        ready.reverse()
    t_start = time.perf_counter()
    try:
        ex = executors.make(executor, workers=workers, worker_memory=worker_memory,
                            scheduler=scheduler, dask_processes=dask_processes,
                            worker_timeout=worker_timeout)
    except BaseException:
        bar.discard()  # the error line follows alone, not after a half-drawn bar
        raise
    out.start_seconds = time.perf_counter() - t_start
    out.workers = ex.workers
    mem = "" if ex.worker_memory is None else f", {ex.worker_memory / 2**30:,.1f} GiB each"
    peak = max((s["est_bytes"] or 0 for s in ready), default=0)
    say(
        f"{label}: {len(unique)} tasks, {out.skipped} already in the store; running "
        f"{len(ready)} on {executor} ({_workers(ex.workers)}{mem}; estimated peak of the "
        f"largest task {peak / 2**20:,.0f} MiB, each task's in the store); store {store.path}"
    )
    queue = _refuse_oversized(ready, ex.worker_memory, store, bar, out)
    bar.est_left = sum(s["est_seconds"] for s in queue)
    interrupted, failed_hard = False, True
    try:
        if queue and (executor != "dask" or scheduler is None):
            warm_up(say if progress else None)
        deadline = None if max_seconds is None else t0 + max_seconds
        _drain(ex, queue, store, bar, out, retries, task_fn, on_result, deadline)
        failed_hard = False
    except KeyboardInterrupt:
        interrupted = out.interrupted = True
        failed_hard = False
    finally:  # the pool or cluster is closed on every exit, an unexpected error included
        ex.close(cancel=interrupted or failed_hard)
        store.release()
        bar.running = 0
        bar.close()  # the bar ends on every exit too (its last state stays on screen)
    out.seconds = time.perf_counter() - t0
    return out

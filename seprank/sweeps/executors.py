"""Where a sweep's tasks run: ``serial`` (this process), ``processes`` (a local process
pool, all cores by default) or ``dask`` (Dask distributed: an existing scheduler, or a
LocalCluster started and closed here).

Each executor takes task specs (:mod:`seprank.sweeps.tasks`) and hands back ``(spec, outcome)``
pairs; a worker that dies becomes a failed outcome with ``retry`` set, never an exception
that stops the sweep. Only the driver (:mod:`seprank.sweeps.runner`) writes to the store.
"""

from __future__ import annotations

import os
import signal
import socket
from collections import deque

from seprank.engine import sample_grid
from seprank.errors import ConfigError, NoWorkerError

EXECUTORS = ("serial", "processes", "dask")

#: Seconds to fetch a finished task's result from its worker; past it the task counts as
#: lost with its worker (requeued), instead of waiting forever for data that died.
RESULT_TIMEOUT_S = 30.0


def _died(exc: BaseException, lost: bool = False) -> dict:
    """A task whose worker died. ``lost``: it was swept up by another task's crash (a
    broken pool fails every task in it), so the sweep reruns it alone before charging it
    an attempt (:func:`seprank.sweeps.runner.run`)."""
    out = {"status": "failed", "retry": True,
           "error": f"worker lost: {type(exc).__name__}: {exc}".rstrip(": ")}
    if lost:
        out["lost"] = True
    return out


def _memory() -> int:
    return sample_grid.available_memory()


class Serial:
    """Runs each task in this process, one at a time (Ctrl-C stops it mid-task)."""

    name = "serial"

    def __init__(self, workers=None, worker_memory=None):
        self.workers = 1
        self.worker_memory = worker_memory or _memory()
        self._queue: deque = deque()

    def submit(self, fn, spec: dict) -> None:
        """Queue ``fn(spec)``; it runs in :meth:`wait`."""
        self._queue.append((fn, spec))

    def running(self) -> int:
        return min(1, len(self._queue))

    def in_flight(self) -> int:
        return len(self._queue)

    def wait(self, timeout: float) -> list:
        if not self._queue:
            return []
        fn, spec = self._queue.popleft()
        try:
            return [(spec, fn(spec))]
        except Exception as exc:  # a failed outcome, retried, as a pool would report it
            return [(spec, {"status": "failed", "retry": True,
                            "error": f"{type(exc).__name__}: {exc}"})]

    def close(self, cancel: bool = False) -> None:
        self._queue.clear()


def _worker_init(parent: int) -> None:
    """Pool workers: Ctrl-C is the driver's to handle; and a worker whose driver died
    (SIGKILL, a crash) exits instead of waiting for work forever."""
    import threading
    import time

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="seprank-parent-watch").start()


#: One thread per worker process (as Dask's nanny sets for its workers): with one worker
#: per core, threaded BLAS or numba kernels in each would only compete for the cores.
#: Read by the libraries when they load, so set in the environment the workers inherit
#: (a variable the user set is left alone).
SINGLE_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                     "NUMBA_NUM_THREADS")


class _WorkerEnv:
    """While workers are started: one thread each (SINGLE_THREAD_ENV), and SIGINT blocked,
    so a terminal's Ctrl-C (sent to the whole process group) reaches only the driver,
    which stops the sweep and closes the workers: a blocked signal stays blocked in a
    spawned child (the mask survives fork and exec), while one the driver receives in the
    meantime is delivered to it on exit (blocked, not ignored: nothing is lost)."""

    def __enter__(self):
        self.added = [k for k in SINGLE_THREAD_ENV if k not in os.environ]
        os.environ.update({k: "1" for k in self.added})
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def __exit__(self, *exc):
        for k in self.added:
            os.environ.pop(k, None)
        signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)


class _Futures:
    """Counts of an executor that keeps its submitted futures in ``_futures``."""

    def running(self) -> int:
        return min(self.workers, len(self._futures))

    def in_flight(self) -> int:
        return len(self._futures)


class Processes(_Futures):
    """A local process pool (spawned workers; nothing to start by hand)."""

    name = "processes"

    def __init__(self, workers=None, worker_memory=None):
        self.workers = workers or os.cpu_count() or 1
        self.worker_memory = worker_memory or _memory() // self.workers
        self._futures: dict = {}
        self._pool = self._new_pool()

    def _new_pool(self):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        return ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_worker_init,
                                   initargs=(os.getpid(),))

    def submit(self, fn, spec: dict) -> None:
        """Run ``fn(spec)`` in a worker (``fn`` importable by name: workers are spawned)."""
        with _WorkerEnv():  # workers are spawned on submit and inherit this environment
            self._futures[self._pool.submit(fn, spec)] = spec

    def wait(self, timeout: float) -> list:
        from concurrent.futures import FIRST_COMPLETED
        from concurrent.futures import wait as cf_wait
        from concurrent.futures.process import BrokenProcessPool

        if not self._futures:
            return []
        done, _ = cf_wait(self._futures, timeout=timeout, return_when=FIRST_COMPLETED)
        out, broken = [], None
        for f in done:
            spec = self._futures.pop(f)
            try:
                out.append((spec, f.result()))
            except BrokenProcessPool as exc:  # a worker died: the pool is unusable
                broken = exc
                out.append((spec, None))
            except Exception as exc:  # e.g. a result that cannot be sent back
                out.append((spec, _died(exc)))
        if broken is not None:
            # Every task still in the pool dies with it: take them all now (none is left
            # to surface from the old pool later). Which task killed the worker is known
            # only when it was alone; the others are "lost", rerun alone, not charged.
            pending = [(spec, None) for spec in self._futures.values()]
            self._futures.clear()
            victims = [o for o in out if o[1] is None] + pending
            out = [o for o in out if o[1] is not None]
            alone = len(victims) == 1
            out += [(spec, _died(broken, lost=not alone)) for spec, _ in victims]
            self._terminate()
            self._pool = self._new_pool()
        return out

    def _terminate(self) -> None:
        procs = list((getattr(self._pool, "_processes", None) or {}).values())
        for p in procs:
            if p.is_alive():
                p.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def close(self, cancel: bool = False) -> None:
        if cancel:
            self._terminate()
        else:
            self._pool.shutdown(wait=True)
        self._futures.clear()


#: How long a sweep waits for a first worker on a cluster given by --scheduler.
WORKER_WAIT_S = 60
#: How long a running Dask sweep waits with no live worker before it stops (exit 1,
#: finished tasks kept): --worker-timeout.
WORKER_TIMEOUT_S = 300.0


#: How long a sweep waits for the scheduler given by --scheduler to answer.
CONNECT_S = 3.0


def check_scheduler(address: str) -> None:
    """ConfigError unless a TCP connection to ``address`` (``tcp://HOST:PORT`` or
    ``tls://...``) opens within CONNECT_S seconds; other schemes are left to Dask."""
    scheme, sep, rest = address.partition("://")
    if not sep or scheme not in ("tcp", "tls"):
        return
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"scheduler={address!r} must be tcp://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_S).close()
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ConfigError(f"scheduler={address!r}: no TCP connection to {host}:{port} within "
                          f"{CONNECT_S:g} s ({why}); is a Dask scheduler running there?") \
            from None


class Dask(_Futures):
    """Dask distributed: ``scheduler`` ADDRESS of a running cluster, or a LocalCluster of
    ``workers`` single-threaded workers (processes, or threads with ``processes=False``)
    started here and closed by :meth:`close`."""

    name = "dask"

    def __init__(self, workers=None, worker_memory=None, scheduler=None, processes=True,
                 worker_timeout=None):
        self.worker_timeout = WORKER_TIMEOUT_S if worker_timeout is None else worker_timeout
        self._no_worker_since = None
        self._looked = 0.0
        try:
            import distributed
        except ImportError:
            raise ConfigError("executor='dask' needs Dask distributed: pip install "
                              "'seprank[sweep]' (or distributed==2026.8.0)") from None
        import logging

        self._cluster = None
        self._futures: dict = {}
        self._n = 0
        if scheduler:
            check_scheduler(scheduler)  # an unreachable address: refused within CONNECT_S
            try:
                self._client = distributed.Client(scheduler, timeout=f"{CONNECT_S:g}s")
            except Exception as exc:  # silence, or something else answering (a bad reply)
                raise ConfigError(f"scheduler={scheduler!r}: no Dask scheduler answered within "
                                  f"{CONNECT_S:g} s ({type(exc).__name__}: "
                                  f"{str(exc)[:80]})") from None
            try:  # a scheduler without workers would take the tasks and never run them
                self._client.wait_for_workers(1, timeout=WORKER_WAIT_S)
            except (OSError, TimeoutError) as exc:
                self._client.close()
                raise ConfigError(f"scheduler={scheduler!r}: no worker connected within "
                                  f"{WORKER_WAIT_S} s ({type(exc).__name__}); start "
                                  f"'dask worker {scheduler}' on the hosts") from None
        else:
            n = workers or os.cpu_count() or 1
            mem = worker_memory or _memory() // n
            import dask

            # worker processes: one thread each, as for the process pool (set before they
            # start: numba reads NUMBA_NUM_THREADS when it loads)
            spawn_env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
            spawn_env.update({k: "1" for k in SINGLE_THREAD_ENV if k not in os.environ})
            with dask.config.set({"distributed.nanny.pre-spawn-environ": spawn_env}):
                self._cluster = distributed.LocalCluster(
                    n_workers=n, threads_per_worker=1, processes=processes, memory_limit=mem,
                    dashboard_address=":0", silence_logs=logging.ERROR,
                    preload=["seprank.sweeps.dask_worker"] if processes else [],
                )
            self._client = distributed.Client(self._cluster)
        info = self._client.scheduler_info(n_workers=-1)["workers"].values()
        limits = [w.get("memory_limit") or 0 for w in info]
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info))
        known = [m for m in limits if m]
        self.worker_memory = worker_memory or (min(known) if known else None)
        self.address = self._client.scheduler.address

    def submit(self, fn, spec: dict) -> None:
        """Run ``fn(spec)`` on a worker of the cluster (``fn`` importable there)."""
        self._n += 1
        f = self._client.submit(fn, spec, key=f"seprank-{spec['key']}-{self._n}",
                                pure=False, priority=int(spec.get("est_seconds") or 0))
        self._futures[f] = spec

    def wait(self, timeout: float) -> list:
        from distributed import wait as d_wait

        if not self._futures:
            return []
        try:
            done, _ = d_wait(list(self._futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            self._check_workers()
            return []
        out = []
        for f in done:
            spec = self._futures.pop(f)
            try:  # a result held by a worker that died meanwhile never arrives: bounded
                out.append((spec, f.result(timeout=RESULT_TIMEOUT_S)))
            except Exception as exc:  # KilledWorker, CancelledError, a lost connection, that
                out.append((spec, _died(exc)))
            f.release()
        return out

    def _check_workers(self) -> None:
        """NoWorkerError once the cluster has had no live worker for worker_timeout s."""
        import time

        now = time.monotonic()
        if now - self._looked < 1.0:
            return
        self._looked = now
        try:
            n = len(self._client.scheduler_info(n_workers=-1)["workers"])
        except Exception:  # the scheduler itself is gone: no worker either
            n = 0
        if n:
            self._no_worker_since = None
            return
        self._no_worker_since = self._no_worker_since or now
        if now - self._no_worker_since >= self.worker_timeout:
            raise NoWorkerError(f"executor dask: no live worker for {self.worker_timeout:g} s "
                                f"(--worker-timeout); {len(self._futures)} tasks unfinished, "
                                "every finished task is stored (rerun to go on)")

    def close(self, cancel: bool = False) -> None:
        try:
            if cancel and self._futures:
                self._client.cancel(list(self._futures), force=True)
            self._client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()
        self._futures.clear()


def make(name: str, *, workers=None, worker_memory=None, scheduler=None, dask_processes=True,
         worker_timeout=None):
    """An executor by name; ConfigError naming the argument for a bad choice."""
    if name not in EXECUTORS:
        raise ConfigError(f"executor={name!r} must be one of {', '.join(EXECUTORS)}")
    if scheduler and name != "dask":
        raise ConfigError(f"scheduler={scheduler!r} needs --executor dask (got {name!r})")
    if name == "serial":
        return Serial(workers, worker_memory)
    if name == "processes":
        return Processes(workers, worker_memory)
    return Dask(workers, worker_memory, scheduler, processes=dask_processes,
                worker_timeout=worker_timeout)

"""One catalecticant measurement's blocks as tasks of a sweep: stored, resumable and
distributable (serial, a process pool or Dask), for a certification that runs for hours.

The catalecticant strategy (:mod:`seprank.engine.strategies.catalecticant`) ranks D + 1
blocks (one matrix with the residual), each a pure function of the network, the weights'
seed, the prime and its index k. :func:`block_specs` makes one task per block, of kind
``block``, keyed by the parent measurement's key (the key a ``measure`` task of a sweep
would have: architecture, config, partition, seed, prime, version, code fingerprint) and
k, so that a block stored by another configuration, seed, prime or version is never
taken for this one, and a stored block is never ranked again. :func:`run_blocks` runs the
blocks not yet stored through :func:`seprank.sweeps.runner.run` (each finished block in
its own transaction; Ctrl-C keeps the finished ones) and, once every block is stored,
assembles the same Measurement as a one-shot run (ranks, shapes, bounds; only the times
differ) and stores it as the parent ``measure`` task.

Each worker builds F's coefficient table once per measurement (:func:`run_block_task`
keeps it in memory: for (L6,d2,H1,N4) about 10 s, against minutes per large block).
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from seprank.engine import bars, saturation, strategies
from seprank.engine.estimate import format_seconds
from seprank.engine.measure import compose
from seprank.engine.measure import plan as plan_measurement
from seprank.engine.options import MeasureOptions
from seprank.errors import ConfigError
from seprank.sweeps import block_data, runner
from seprank.sweeps.tasks import build_net, run_guarded, spec_for_net

#: The task kind of one block.
TASK = "block"
#: The strategy ``seprank blocks`` splits (the default; any registered one with ``splits``).
STRATEGY = "catalecticant"
#: The keys of a block dict in their order: :func:`catalecticant.measure_block` writes them
#: but ``bound``, which the label step inserts before ``seconds``.
BLOCK_KEYS = ("degree", "other_s_degree", "rank", "shape", "ranked_shape", "bound", "seconds")

_CACHE: dict = {}
_LOCK = threading.Lock()


def measurement_plan(net, partition=None, *, seed: int = 0, prime: int | None = None,
                     rank_engine: str = "auto",
                     saturation_threshold: float = saturation.DEFAULT_THRESHOLD,
                     progress=None):
    """The catalecticant measurement's plan (:func:`seprank.engine.measure.plan`).

    Parameters
    ----------
    net : LinearSelfAttention
        The network.
    partition : iterable of int, optional
        A-side positions (default: the first ``seq_len // 2``).
    seed : int, default 0
        Draws the weights.
    prime : int, optional
        The modulus (default: the strategy's choice, :func:`catalecticant.choose_prime`).
    rank_engine : str, default "auto"
        The GF(p) rank engine (they agree).
    saturation_threshold : float, default 1e-2
        As in :func:`seprank.measure`.
    progress : bool or callable, optional
        Progress lines of the plan.

    Returns
    -------
    MeasurementPlan
        Its ``run`` is the strategy's RunInputs.

    Raises
    ------
    ConfigError
        Where the catalecticant strategy does not apply (its reason), or an option is bad.
    """
    opts = MeasureOptions(method="modular", strategy=STRATEGY, seed=seed, prime=prime,
                          rank_engine=rank_engine, saturation_threshold=saturation_threshold)
    return plan_measurement(net, partition, opts, progress=progress)


def _split(plan_or_spec):
    """The registered strategy a plan (or a block spec) runs, which splits into parts."""
    name = plan_or_spec["strategy"] if isinstance(plan_or_spec, dict) else plan_or_spec.strategy
    strategy = strategies.get(name)
    if not getattr(strategy, "splits", False):
        raise ConfigError(f"strategy={name!r} does not split into stored parts")
    return strategy


def block_specs(mp, partition=None, rank_engine: str = "auto") -> tuple[dict, list[dict]]:
    """The parent ``measure`` spec and one ``block`` spec per block, k = 0..D.

    Parameters
    ----------
    mp : MeasurementPlan
        From :func:`measurement_plan`.
    partition : list of int, optional
        The partition as given (None: the default one), as a sweep's task records it.
    rank_engine : str, default "auto"
        Recorded in each spec for the workers (not in the key: the engines agree).

    Returns
    -------
    tuple of (dict, list of dict)
        The parent spec (:func:`seprank.sweeps.tasks.make_spec`, prime resolved) and the
        block specs: ``block`` (k), ``parent`` (the parent's key), ``est_seconds`` and
        ``est_bytes`` (estimates), ``key`` = sha256(parent key, k).
    """
    net = mp.net
    parent = spec_for_net("measure", net, partition=partition, method="modular",
                          strategy=mp.strategy, seed=int(mp.run.seed),
                          prime=int(mp.run.domain.p))
    split = _split(mp)
    specs = []
    for k, (rows, cols) in enumerate(split.parts(net)):
        key = hashlib.sha256(f"{parent['key']}:{TASK}:{k}".encode()).hexdigest()[:32]
        s = dict(parent, task=TASK, key=key, parent=parent["key"], block=k,
                 grid=f"blocks-{parent['key'][:12]}", rank_engine=rank_engine)
        s["est_seconds"], s["est_bytes"] = split.part_cost(rows, cols, net)
        specs.append(s)
    return parent, specs


def _prepared(spec: dict):
    """(RunInputs, Prepared) of the spec's parent measurement, built once per worker."""
    with _LOCK:
        hit = _CACHE.get(spec["parent"])
        if hit is None:
            net = build_net(spec)
            mp = measurement_plan(net, spec["partition"], seed=spec["seed"],
                                  prime=spec["prime"], rank_engine=spec.get("rank_engine", "auto"))
            hit = (mp.run, _split(mp).prepare(mp.run))
            while len(_CACHE) >= 2:  # a worker serving two measurements keeps both
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[spec["parent"]] = hit
    return hit


def run_block_task(spec: dict) -> dict:
    """Rank one block and return its outcome, as a sweep's task does.

    As :func:`seprank.sweeps.tasks.run_task`, an error is returned, not raised (Ctrl-C
    still stops it).

    Parameters
    ----------
    spec : dict
        A block spec (:func:`block_specs`).

    Returns
    -------
    dict
        ``done`` carries ``extra``: ``block`` (the Measurement's block dict),
        ``fill_seconds``, ``rank_seconds``, ``monomials`` and ``build_seconds`` (F's table,
        built once per worker).
    """
    def work():
        run_plan, prep = _prepared(spec)
        block, tf, tr = _split(spec).part(run_plan, prep, int(spec["block"]))
        return {"measurement": None,
                "extra": {"block": block, "fill_seconds": tf, "rank_seconds": tr,
                          "monomials": int(prep.keys.size),
                          "build_seconds": prep.build_seconds}}

    return run_guarded(work)


@dataclass
class BlockRun:
    """What :func:`run_blocks` did, and the measurement once every block is stored.

    Parameters
    ----------
    key : str
        The parent measurement's key (its ``measure`` row, once assembled).
    blocks : int
        The measurement's blocks.
    stored : int
        Blocks stored as done (this run's included).
    outcome : Outcome or None
        The counts of this run (:class:`seprank.sweeps.runner.Outcome`; None when
        nothing ran).
    measurement : Measurement or None
        The assembled measurement, once every block is stored.
    block_seconds : list, default []
        The time of each block ranked by this run.
    """

    key: str
    blocks: int
    stored: int
    outcome: runner.Outcome | None = None
    measurement: object = None
    block_seconds: list = field(default_factory=list)

    def line(self) -> str:
        """One line: blocks stored of all, the time per block of this run, the store.

        Returns
        -------
        str
            E.g. ``7/14 blocks stored (3 ranked now, 0.01 s per block); store r.sqlite``.
        """
        s = f"{self.stored}/{self.blocks} blocks stored"
        if self.block_seconds:
            n = len(self.block_seconds)
            s += f" ({n} ranked now, {sum(self.block_seconds) / n:.2f} s per block)"
        if self.outcome is not None:
            s += f"; store {self.outcome.db}"
            if self.outcome.interrupted:
                s += "; INTERRUPTED: finished blocks are kept, rerun to go on"
        return s


class _Reporter:
    """A line per stored block: its rank and time, blocks stored, time left (estimated
    from the block estimates' share done, scaled by this run's elapsed time)."""

    def __init__(self, label, say, stored, total, est_left, result: BlockRun):
        self.label, self.say, self.stored, self.total = label, say, stored, total
        self.est_done, self.est_left, self.result = 0.0, est_left, result
        self.t0 = time.perf_counter()

    def __call__(self, spec, res) -> None:
        if res["status"] != "done":
            return
        b = res["extra"]["block"]
        self.stored += 1
        self.est_done += spec["est_seconds"]
        self.est_left -= spec["est_seconds"]
        self.result.block_seconds.append(float(b["seconds"]))
        done = self.result.block_seconds
        elapsed = time.perf_counter() - self.t0
        left = "" if self.est_left <= 0 else (
            f", about {format_seconds(elapsed * self.est_left / self.est_done)} left (estimate)")
        self.say(f"{self.label}: block {spec['block']} (A-degree {b['degree']}): rank "
                 f"{b['rank']} of {b['shape']} in {b['seconds']:.2f} s; {self.stored}/"
                 f"{self.total} stored, {sum(done) / len(done):.2f} s per block{left}")


def _assemble(mp, specs: list, store, threshold: float):
    """The labelled Measurement from the stored blocks; None while one is missing."""
    results, extra = [], None
    for s in specs:
        row = store.get(s["key"])
        if row is None or row["status"] != "done" or not row.get("extra") \
                or (row.get("spec") or {}).get("parent") != s["parent"] \
                or row["spec"].get("block") != s["block"]:
            return None
        extra = row["extra"]
        b = extra["block"]  # the store sorts a JSON object's keys: back to the block's order
        b = {k: b[k] for k in BLOCK_KEYS if k in b} | {k: v for k, v in b.items()
                                                        if k not in BLOCK_KEYS}
        results.append((b, extra["fill_seconds"], extra["rank_seconds"]))
    seconds = extra["build_seconds"] + sum(b["seconds"] for b, _, _ in results)
    m = _split(mp).assemble(mp.run, extra["monomials"], extra["build_seconds"], results,
                               mp.reason, seconds=seconds)
    return compose(mp, m, threshold)  # as measure labels it


def run_blocks(net, store, partition=None, *, seed: int = 0, prime: int | None = None,
               rank_engine: str = "auto", max_blocks: int | None = None,
               saturation_threshold: float = saturation.DEFAULT_THRESHOLD,
               progress: bool = True, say=None, data=None, **executor) -> BlockRun:
    """Rank the blocks of a catalecticant measurement not yet stored, then assemble it.

    Once every block of ``net``'s measurement is in ``store``, the Measurement is
    assembled from them and stored as the parent ``measure`` task.

    Parameters
    ----------
    net : LinearSelfAttention
        The network (the catalecticant strategy must apply).
    store : Store
        The result store (:class:`seprank.sweeps.store.Store`).
    partition : iterable of int, optional
        A-side positions (default: the first ``seq_len // 2``).
    seed : int, default 0
        Draws the weights.
    prime : int, optional
        The modulus (default: the strategy's choice).
    rank_engine : str, default "auto"
        The GF(p) rank engine.
    max_blocks : int, optional
        Rank at most this many of the blocks not yet stored (largest first).
    saturation_threshold : float, default 1e-2
        As in :func:`seprank.measure`.
    progress : bool, default True
        Progress bar and lines on stderr (False: nothing).
    say : callable, optional
        Receives each line (default: stderr, above the bar).
    data : str or Path, optional
        A block data file (:mod:`seprank.sweeps.block_data`): the blocks it holds are
        taken as done, and every block stored as done is appended to it.
    **executor
        ``executor`` (default "serial"), ``scheduler``, ``workers``, ``worker_memory``,
        ``retries``, ``dask_processes``, ``worker_timeout``: as for
        :func:`seprank.sweeps.runner.run`.

    Returns
    -------
    BlockRun
        The counts, and the Measurement once every block is stored.

    Raises
    ------
    ConfigError
        If the strategy does not apply or an option is bad (nothing is stored).
    """
    if say is None:
        say = bars.write if progress else (lambda msg: None)
    part = None if partition is None else [int(p) for p in partition]
    mp = measurement_plan(net, part, seed=seed, prime=prime, rank_engine=rank_engine,
                          saturation_threshold=saturation_threshold)
    parent, specs = block_specs(mp, part, rank_engine)
    record = lambda spec, res: None  # noqa: E731
    if data is not None:
        path = Path(data)
        lines = block_data.read(path)
        taken = block_data.take_into(store, specs, lines, path)
        if taken:
            say(f"blocks {_name(net)}: {taken} taken as done from {path}")
        engine = mp.run.engine.name
        terms = block_data.proved_terms(net, mp.run.A)

        def record(spec, res):
            if res["status"] == "done" and block_data.identity(spec) not in lines:
                term = terms.get(res["extra"]["block"].get("other_s_degree"))
                block_data.append(path, spec, res["extra"], engine, term)
                lines[block_data.identity(spec)] = {"result": res["extra"]}

    status = store.status_of(s["key"] for s in specs)
    todo = sorted((s for s in specs if status.get(s["key"]) != "done"),
                  key=lambda s: -s["est_seconds"])
    out = BlockRun(key=parent["key"], blocks=len(specs), stored=len(specs) - len(todo))
    left = sum(s["est_seconds"] for s in todo)  # of the whole measurement, for the time left
    if max_blocks is not None:
        todo = todo[:max_blocks]
    if todo:
        label = f"blocks {_name(net)}"
        report = _Reporter(label, say, out.stored, len(specs), left, out)
        executor.setdefault("executor", "serial")
        stored = [s for s in specs if status.get(s["key"]) == "done"]  # counted as skipped

        def on_result(spec, res):
            record(spec, res)
            report(spec, res)

        out.outcome = runner.run(stored + todo, store, progress=progress, label=label, say=say,
                                 task_fn=run_block_task, plan_fn=_as_planned,
                                 on_result=on_result, **executor)
        out.stored = report.stored
    if data is not None:  # blocks stored before (a run without --data) go to the file too
        for s in specs:
            row = store.get(s["key"]) if block_data.identity(s) not in lines else None
            if row is not None and row["status"] == "done" and row.get("extra"):
                record(s, row)
    out.measurement = _assemble(mp, specs, store, saturation_threshold)
    if out.measurement is not None and store.status_of([parent["key"]]).get(parent["key"]) \
            != "done":
        store.put(parent, {"status": "done", "measurement": out.measurement.to_dict(),
                           "extra": None, "seconds": out.measurement.seconds,
                           "host": f"{socket.gethostname()}:{os.getpid()}"})
    return out


def _as_planned(spec: dict) -> dict:
    """A block spec carries its estimates already (:func:`block_specs`)."""
    return spec


def _name(net) -> str:
    res = ",res" if net.residual else ""
    return f"(L{net.depth},d{net.width},H{net.heads},N{net.seq_len}{res})"

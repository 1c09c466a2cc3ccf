"""Measuring a study's cells: each through the planner and the result store, with its
label, bound, parameter count and f's degree (:func:`measure_cells`, the one path of
``seprank study`` and ``seprank transition``)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
from pathlib import Path

import numpy as np

from seprank import labels
from seprank.algebra.domains import ModP
from seprank.algebra.vandermonde import vandermonde_inverse, vandermonde_matrix
from seprank.engine.evaluate import evaluate
from seprank.errors import SeprankError, TooBigError
from seprank.nets.base import input_dim
from seprank.studies import study_analysis as sa
from seprank.studies import study_cells as sc
from seprank.studies.study_result import json_list
from seprank.sweeps import tasks as sweep_tasks
from seprank.sweeps.runner import run as sweep_run
from seprank.sweeps.store import DEFAULT_DB, Store
from seprank.theory.architecture_bounds import bound_of

#: Degrees searched by interpolation (f's degree, for the degree law).
MAX_DEGREE = 4096


def f_degree(net, seed: int = 0, prime: int | None = None) -> int | None:
    """The total degree of f, measured over GF(p) by interpolation along random lines.

    g(t) = f(tX) is interpolated at n + 1 points for n = 4, 8, ... until two further points
    agree with the interpolant, at three random X. The degree found is a lower bound on
    f's that equals it except with probability at most 3 T / p (Schwartz-Zippel). The
    three lines are evaluated in one batch, each point once (a doubling of n evaluates
    only the new points), and one Vandermonde inverse per n serves the three.

    Parameters
    ----------
    net : Architecture
        A polynomial network (the modular engine evaluates it).
    seed : int, default 0
        Seeds the weights and the points.
    prime : int, optional
        The modulus (default: the default prime).

    Returns
    -------
    int or None
        The degree, or None when the network is not evaluated over GF(p) or the degree
        exceeds ``MAX_DEGREE``.
    """
    dom = ModP() if prime is None else ModP(prime)
    p, rng = dom.p, np.random.default_rng([seed, 7])
    try:
        params = net.init(rng, dom)
        probes = np.stack([np.asarray(dom.random(rng, (1, net.seq_len, input_dim(net))),
                                      dtype=np.int64)[0] for _ in range(3)])
        vals = np.zeros((0, len(probes)), dtype=object)  # g_X(t) at t = 0, 1, ...: (t, X)
        n = 4
        while n <= min(MAX_DEGREE, p - 4):
            m = n + 3  # n + 1 points to interpolate, two to check
            if len(vals) < m:
                ts = np.arange(len(vals), m, dtype=np.int64)
                batch = (ts[:, None, None, None] * probes[None]) % p  # (t, X, seq, dim)
                v = np.asarray(evaluate(net, params, batch.reshape(-1, *probes.shape[1:]),
                                        dom), dtype=np.int64) % p
                vals = np.concatenate([vals, v.reshape(len(ts), len(probes)).astype(object)])
            inv = vandermonde_inverse(range(n + 1), range(n + 1), p).astype(object)
            c = (inv @ vals[: n + 1]) % p  # (coefficient, X)
            extra = vandermonde_matrix(range(n + 1, m), range(n + 1), p).astype(object)
            if np.array_equal((extra @ c) % p, vals[n + 1: m]):
                nz = np.nonzero(np.any(c != 0, axis=1))[0]
                return int(nz[-1]) if nz.size else 0
            n *= 2
    except Exception:  # noqa: BLE001 (a network the modular engine cannot evaluate: no law)
        return None
    return None


def _cell_id(spec: dict) -> str:
    """What decides a cell's result, without the code version (a CSV row's identity)."""
    keep = {k: spec[k] for k in ("arch", "params", "partition", "method", "strategy", "seed",
                                 "prime", "max_samples")}
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _bound_of(net, partition) -> tuple[int | None, str]:
    try:
        b = bound_of(net, partition)
    except SeprankError:
        return None, ""
    if b is None or b.value is None:
        return None, ""
    return b.value, labels.bound_status(b.tag or "") or b.kind


def _row_from_measurement(row: dict, m: dict) -> None:
    row["measurement"] = m
    row["rank"] = int(m["rank"])
    row["label"] = m.get("label") or labels.label_of(m)
    row["kind"] = sa.rank_kind(m)
    row["saturated"] = bool(m.get("saturated"))
    row["saturation_bound"] = m.get("saturation_bound")
    row["strategy"], row["method"] = m.get("strategy"), m.get("method")
    row["seconds"] = round(float(m.get("seconds") or 0.0), 3)
    row["prime"] = m.get("prime")
    row["block_ranks"] = [[b.get("degree"), b.get("rank")] for b in m.get("blocks") or []]


def _from_csv_row(row: dict, old: dict) -> bool:
    """Take a previous run's CSV row as this cell's result; its label is derived again from
    its own fields and this cell's bound (a CSV is data, its label text is not trusted)."""
    try:
        rank = int(old["rank"])
    except (KeyError, TypeError, ValueError):
        return False
    if old.get("kind") == sa.ESTIMATE or old.get("method") == "float":
        return False
    saturated = labels.truthy(old.get("saturated", ""))
    row.update(rank=rank, saturated=saturated, strategy=old.get("strategy"),
               method=old.get("method"), status="done (from the CSV)")
    for k in ("seconds", "saturation_bound"):
        try:
            row[k] = float(old[k]) if old.get(k) not in (None, "") else None
        except ValueError:
            row[k] = None
    row["prime"] = int(old["prime"]) if str(old.get("prime", "")).isdigit() else None
    row["block_ranks"] = json_list(old.get("block_ranks"))
    up, status = row.get("upper"), row.get("upper_status")
    row["label"] = labels.rank_label(rank, saturated, False, up, status or labels.ARCHITECTURE)
    row["kind"] = sa.rank_kind({"label": row["label"], "saturated": saturated})
    return True


def measure_cells(cells: list, varied: list, measure_kw: dict, run_kw: dict, *,
                  db=DEFAULT_DB, cell_limit: float | None = None,
                  previous: dict | None = None,
                  fallback: str | None = None) -> tuple[list, float, object]:
    """Measure cells through the planner and the result store: the one path of
    :func:`study` and of ``seprank transition``'s preset.

    Parameters
    ----------
    cells : list of Cell
        The cells (:func:`seprank.studies.study_cells.expand`, or built one by one with
        :func:`~seprank.studies.study_cells.build_cell`).
    varied : list of str
        The varied keys (recorded in each row).
    measure_kw : dict
        ``partition``, ``method``, ``strategy``, ``seed``, ``prime``, ``max_samples``.
    run_kw : dict
        Passed to :func:`seprank.sweeps.runner.run` (executor, progress, ``max_seconds``...).
    db : str or pathlib.Path or None, default DEFAULT_DB
        The result store (None: a temporary one).
    cell_limit : float, optional
        Refuse the cells estimated to take longer (seconds).
    previous : dict, optional
        Rows of an earlier CSV by their ``cell`` identity: reused, labels derived again.
    fallback : str, optional
        A strategy for the cells whose own plan is refused (too large, or over
        ``cell_limit``): each is planned again with it at the largest sample cap of
        :data:`FALLBACK_CAPS` that fits (:func:`_fallback`); its label says what it is.

    Returns
    -------
    rows : list of dict
        One per cell (``values``, ``rank``, ``label``, ``kind``, ``status``, ``measurement``
        for those measured now or read from the store, ...); ``net`` holds the network.
    seconds : float
        The measuring time of this run (the cells' own wall times).
    outcome : Outcome
        The sweep's counts (``unrun``, ``interrupted``).
    """
    rows, todo = _rows(cells, varied, measure_kw, previous or {}, fallback)
    seconds, outcome = _measure(todo, db, cell_limit, run_kw, fallback, measure_kw)
    return rows, seconds, outcome


#: The sample caps a fallback strategy is tried at, largest first (``max_samples``).
FALLBACK_CAPS = (16000, 12000, 10000, 8000, 6000, 4000, 3000, 2000, 1000, 500, 250, 100)


def _fallback_spec(net, measure_kw: dict, fallback: str, cap: int) -> dict:
    return sweep_tasks.spec_for_net("measure", net, grid="study",
                                    **dict(measure_kw, strategy=fallback, max_samples=cap))


def _fallback_note(fallback: str, cap: int, why: str | None = None) -> str:
    return (f"measured by the fallback: strategy {fallback}, max_samples={cap} (a block "
            "capped there is a lower bound)" + (f"; its own plan: {why}" if why else ""))


def _fallback(row: dict, cell_limit, fallback: str, measure_kw: dict) -> dict | None:
    """The fallback spec for a refused row, planned, at the largest cap of FALLBACK_CAPS
    that the planner accepts and whose estimate is within ``cell_limit``; the row then
    names it (key, cell, note). None: no cap fits (the row keeps its refusal)."""
    for cap in FALLBACK_CAPS:
        spec = _fallback_spec(row["net"], measure_kw, fallback, cap)
        try:
            sweep_tasks.plan(spec)
        except SeprankError:
            continue
        if cell_limit is None or spec["est_seconds"] <= cell_limit:
            row.update(key=spec["key"], cell=_cell_id(spec), spec=spec,
                       est_seconds=round(spec["est_seconds"], 3), status="not run",
                       note=_fallback_note(fallback, cap, row.get("error")))
            row["error"] = None
            return spec
    return None


def _rows(cells, varied: list, measure_kw: dict, old: dict,
          fallback: str | None = None) -> tuple[list, list]:
    """One row per cell (its spec, bound and parameter count), and those left to measure
    (neither invalid nor found in the previous CSV ``old``, under the cell's own identity
    or, with a ``fallback``, under one of its fallback identities)."""
    rows, todo = [], []
    for c in cells:
        row = {"values": c.values, "varied": varied, "status": "invalid", "error": c.invalid,
               "seed": measure_kw["seed"]}
        rows.append(row)
        if c.net is None:
            continue
        spec = sweep_tasks.spec_for_net("measure", c.net, grid="study", **measure_kw)
        row.update(net=c.net, key=spec["key"], cell=_cell_id(spec), status="not run",
                   error=None, spec=spec)
        row["upper"], row["upper_status"] = _bound_of(c.net, measure_kw["partition"])
        try:
            row["params"] = sc.count_parameters(c.net)
        except Exception as exc:  # a user's init that cannot run in Float64: no count
            row["params"], row["params_error"] = None, f"{type(exc).__name__}: {exc}"
        if row["cell"] in old and _from_csv_row(row, old[row["cell"]]):
            continue
        if fallback and _old_fallback(row, old, measure_kw, fallback):
            continue
        todo.append(row)
    return rows, todo


def _old_fallback(row: dict, old: dict, measure_kw: dict, fallback: str) -> bool:
    """Whether the previous CSV holds this cell measured by the fallback (at some cap)."""
    for cap in FALLBACK_CAPS:
        spec = _fallback_spec(row["net"], measure_kw, fallback, cap)
        cell = _cell_id(spec)
        if cell in old and _from_csv_row(row, old[cell]):
            row.update(cell=cell, key=spec["key"], note=_fallback_note(fallback, cap))
            return True
    return False


def _plan(row: dict, cell_limit) -> dict | None:
    """The row's spec with its estimates, or None (the row then says why it is refused)."""
    spec = row["spec"]
    try:
        sweep_tasks.plan(spec)
    except TooBigError as exc:
        row.update(status="refused", error=str(exc))
        return None
    except SeprankError as exc:
        row.update(status="failed", error=f"{type(exc).__name__}: {exc}")
        return None
    row["est_seconds"] = round(spec["est_seconds"], 3)
    if cell_limit is not None and spec["est_seconds"] > cell_limit:
        row.update(status="refused", error=f"estimated {spec['est_seconds']:,.1f} s "
                   f"exceeds the cell limit {cell_limit:,.1f} s")
        return None
    return spec


def _measure(todo: list, db, cell_limit, run_kw: dict,
             fallback: str | None = None,
             measure_kw: dict | None = None) -> tuple[float, object]:
    """Plan and run the rows to measure through the store (a refused row through its
    ``fallback`` strategy with ``measure_kw``, where one fits); fill each row from it.
    Returns the measuring seconds of this run and the sweep's outcome."""
    with contextlib.ExitStack() as stack:
        if db is None:  # no store kept: a temporary one
            db = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "study.sqlite"
        store = stack.enter_context(Store(db))
        status = store.status_of([r["key"] for r in todo])
        before = {k for k, v in status.items() if v == "done"}
        ready = [r["spec"] if r["key"] in before else _plan(r, cell_limit) for r in todo]
        if fallback:
            for i, r in enumerate(todo):
                if ready[i] is None and r["status"] == "refused":
                    ready[i] = _fallback(r, cell_limit, fallback, measure_kw)
            before |= {k for k, v in store.status_of([r["key"] for r in todo]).items()
                       if v == "done"}
        outcome = sweep_run([s for s in ready if s is not None], store, order="cheapest",
                            plan_fn=_planned, **run_kw)
        seconds = 0.0
        for row in todo:
            r = store.get(row["key"]) if row["status"] == "not run" else None
            if r is None:
                continue
            if r["status"] == "done":
                _row_from_measurement(row, r["measurement"])
                row["status"] = "done" if row["key"] not in before else "done (from the store)"
                if row["key"] not in before:
                    seconds += float(r.get("seconds") or 0.0)
            else:
                row.update(status=r["status"], error=r.get("error"))
    for row in todo:
        row.pop("spec", None)
        if row.get("note") and not str(row["status"]).startswith("done"):
            row["note"] = "not measured: " + row["note"].replace("measured by the fallback",
                                                                 "planned for the fallback", 1)
    return seconds, outcome


def _planned(spec: dict) -> dict:
    """The runner's plan step for specs planned already (their estimates kept)."""
    return dict(spec, est_seconds=spec.get("est_seconds", 0.0), est_bytes=spec.get("est_bytes"))


__all__ = ["f_degree", "measure_cells"]

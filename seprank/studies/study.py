"""``seprank.study``: does depth pay for an architecture, where does it stop, how do width
and heads move that, and which shape wins at a fixed parameter budget?

A study varies some of an architecture's keys (:mod:`seprank.studies.study_cells`),
measures every cell through the planner and the result store (resumable; serial,
processes or Dask; cheapest cells first; a cell that will not fit is refused up front
with its estimated cost and listed), and reads the answers from the measured ranks
(:mod:`seprank.studies.study_analysis`): the growth ratio of each step of depth with its
label, each step's regime against the degree and linear laws, each series' transition,
the depth-width map, the winner at each parameter budget and a verdict in words.

>>> s = study("attention", vary={"depth": [1, 2]}, fixed={"width": 2}, progress=False,
...           db=None)
>>> [r["rank"] for r in s.rows], s.steps[0]["regime"]
([3, 18], 'depth-efficient')
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from seprank.engine.strategies import names as strategy_names
from seprank.errors import ConfigError
from seprank.nets.base import config_of
from seprank.studies import study_analysis as sa
from seprank.studies import study_cells as sc
from seprank.studies.study_result import (
    CSV_NAME,
    Study,
    analyse,
    from_csv,
    kv_text,
    read_csv,
    short,
)
from seprank.studies.study_run import f_degree, measure_cells
from seprank.sweeps.store import DEFAULT_DB


def study(arch, vary: dict, fixed: dict | None = None, *, rules=None, partition=None,
          method: str = "auto", strategy: str = "auto", seed: int = 0,
          prime: int | None = None, max_samples: int | None = None,
          db=DEFAULT_DB, executor: str = "serial", scheduler: str | None = None,
          workers: int | None = None, worker_memory: int | None = None, retries: int = 2,
          max_seconds: float | None = None, cell_limit: float | None = None,
          fallback: str | None = None, depth_key: str = "depth", width_key: str = "width", out=None,
          progress: bool = False, say=None) -> Study:
    """Measure every cell of a depth-width study and answer from the measured ranks.

    Parameters
    ----------
    arch : str or type
        A registry name (``"attention"``, ``"linear-attention"``...), ``module:Class``, a
        class, or ``"torch:module:function"``: a torch factory called with the varied keys
        (and the fixed keys it accepts) as keyword arguments.
    vary : dict
        Key -> list of values; every combination is a cell (``heads: ["divisors"]``: every
        divisor of the width).
    fixed : dict, optional
        Key -> value for every cell.
    rules : list of str, optional
        Dependent keys, ``"KEY=EXPRESSION"`` (e.g. ``"seq_len=2*width"``, the paper's
        network's default).
    partition : iterable of int, optional
        Side A of every cell (default: each network's balanced default).
    method : str, default "auto"
        As :func:`seprank.measure`.
    strategy : str, default "auto"
        As :func:`seprank.measure`.
    seed : int, default 0
        As :func:`seprank.measure` (every cell the same seed).
    prime : int, optional
        As :func:`seprank.measure`.
    max_samples : int, optional
        As :func:`seprank.measure`.
    db : str or pathlib.Path or None, default DEFAULT_DB
        The result store (None: a temporary one, not kept); stored cells are not measured
        again.
    executor : {"serial", "processes", "dask"}, default "serial"
        Where the cells run (:func:`seprank.sweeps.runner.run`).
    scheduler : str, optional
        As :func:`seprank.sweeps.runner.run`.
    workers : int, optional
        As :func:`seprank.sweeps.runner.run`.
    worker_memory : int, optional
        As :func:`seprank.sweeps.runner.run`.
    retries : int, default 2
        As :func:`seprank.sweeps.runner.run`.
    max_seconds : float, optional
        Stop starting cells after this many seconds (cheapest first); the rest are listed
        as not run.
    cell_limit : float, optional
        Refuse, before running, every cell whose estimated time exceeds this many seconds.
    fallback : str, optional
        A strategy (e.g. ``"sketch"``) for the cells refused by their own plan or by
        ``cell_limit``: each is measured with it at the largest sample cap that fits
        (:data:`seprank.studies.study_run.FALLBACK_CAPS`), and its row's note says so. A
        capped block is a lower bound, and the label says that.
    depth_key, width_key : str, default "depth", "width"
        Which keys are the depth and the width.
    out : str or pathlib.Path, optional
        A folder: its ``study.csv`` rows of the same cells are reused (their labels derived
        again), and the CSV is written there.
    progress : bool, default False
        Show progress.
    say : callable, optional
        Receives note lines (default: none without progress).

    Returns
    -------
    Study
        The rows (one per cell, each with its label) and the answers.

    Raises
    ------
    ConfigError
        If the architecture, a key, a value or a rule is invalid.
    """
    t0 = time.perf_counter()
    say = say or ((lambda m: print(m, flush=True)) if progress else (lambda m: None))
    fixed = dict(fixed or {})
    if not isinstance(vary, dict):
        raise ConfigError(f"vary={vary!r} must be a dict of key -> list of values")
    vary = {k: list(v) if isinstance(v, (list, tuple, range)) else [v] for k, v in vary.items()}
    if fallback is not None and (fallback == "auto" or fallback not in strategy_names()):
        raise ConfigError(f"fallback={fallback!r}: not a strategy (one of "
                          f"{', '.join(n for n in strategy_names() if n != 'auto')})")
    if depth_key not in vary:
        raise ConfigError(f"vary: a study varies the depth ({depth_key!r}); got "
                          f"{', '.join(vary) or 'nothing'}")
    a = sc.resolve_arch(arch)
    rules_in = sc.default_rules(a, dict(sc.parse_rule(r) for r in (rules or [])), vary, fixed)
    out_dir = None if out is None else Path(out)
    old = {r.get("cell"): r for r in read_csv(out_dir / CSV_NAME)} if out_dir else {}
    measure_kw = dict(partition=partition, method=method, strategy=strategy, seed=seed,
                      prime=prime, max_samples=max_samples)
    run_kw = dict(executor=executor, scheduler=scheduler, workers=workers,
                  worker_memory=worker_memory, retries=retries, progress=progress,
                  label=f"study {a.name}", say=say, max_seconds=max_seconds)
    rows, measure_seconds, outcome = measure_cells(
        sc.expand(a, vary, fixed, rules_in), list(vary), measure_kw, run_kw, db=db,
        cell_limit=cell_limit, previous=old, fallback=fallback)
    degrees: dict = {}
    for row in rows:
        if row.get("rank") is not None and row.get("kind") != sa.ESTIMATE:
            k = json.dumps(config_of(row["net"]), sort_keys=True, default=str)
            if k not in degrees:
                degrees[k] = f_degree(row["net"], seed)
            row["degree"] = degrees[k]
        row.pop("net", None), row.pop("spec", None), row.pop("measurement", None)
    result = analyse(a.name, list(vary), fixed, sc.rule_text(rules_in), rows, depth_key,
                     width_key)
    result.measure_seconds = measure_seconds
    result.measured_now = sum(r["status"] == "done" for r in rows)
    result.from_store = sum(r["status"].startswith("done (") for r in rows)
    result.notes = _notes(result, outcome.unrun)
    result.seconds = time.perf_counter() - t0
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result.to_csv(out_dir / CSV_NAME)
    if outcome.interrupted:  # the finished cells are in the store and the CSV
        raise KeyboardInterrupt
    return result


def _notes(s: Study, unrun: int) -> list[str]:
    notes = []
    if unrun:
        notes.append(f"{unrun} cells left unrun by the time limit (run again to measure "
                     "them: finished cells are kept)")
    for r in s.rows:
        if r["status"] in ("refused", "failed", "invalid", "not run"):
            notes.append(f"{kv_text(r['values'])}: {r['status']}"
                         + (f": {short(r['error'])}" if r.get("error") else ""))
        elif r.get("note"):
            notes.append(f"{kv_text(r['values'])}: {r['note']}")
    if any(r.get("degree") for r in s.rows):
        notes.append("f's degree (the degree law) measured by interpolation over GF(p) along "
                     "three random lines (exact except with probability <= 3 deg / p)")
    if any(r.get("params") is not None for r in s.rows):
        notes.append("parameters counted from the architecture's own init (every scalar "
                      "weight it draws)")
    if s.arch == "attention" and s.budgets:
        notes.append("parameters here count the attention weights, 4 L d^2; the paper counts "
                     "12 L d^2 (with the feed-forward layers), so its fit is read at three "
                     "times the budget (an empirical fit on language modelling, not a "
                     "measurement)")
    return notes


__all__ = ["CSV_NAME", "Study", "analyse", "f_degree", "from_csv", "measure_cells", "read_csv",
           "study"]

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

import contextlib
import csv
import hashlib
import io
import json
import math
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from seprank import labels
from seprank.algebra.domains import ModP
from seprank.algebra.vandermonde import interpolate
from seprank.engine.evaluate import evaluate
from seprank.errors import ConfigError, SeprankError, TooBigError
from seprank.nets.base import config_of, input_dim
from seprank.studies import study_analysis as sa
from seprank.studies import study_cells as sc
from seprank.sweeps import tasks as sweep_tasks
from seprank.sweeps.runner import run as sweep_run
from seprank.sweeps.store import DEFAULT_DB, Store
from seprank.theory.architecture_bounds import architecture_bound
from seprank.theory.guidelines import fit_optimal_shape

#: The CSV a study writes (and ``--plot-only`` reads) in its output folder.
CSV_NAME = "study.csv"
#: The CSV's columns after the cell's keys.
RESULT_COLUMNS = ["rank", "label", "kind", "status", "saturated", "saturation_bound",
                  "upper", "upper_status", "params", "degree", "strategy", "method", "seconds",
                  "est_seconds", "seed", "prime", "error", "cell", "block_ranks",
                  "varied"]  # fmt: skip
#: Degrees searched by interpolation (f's degree, for the degree law).
MAX_DEGREE = 4096


@dataclass
class Study:
    """The result of :func:`study`: rows (one per cell), steps, answers and a verdict.

    Parameters
    ----------
    arch : str
        The architecture's name.
    varied : list of str
        The varied keys, in order.
    fixed : dict
        The fixed keys.
    rules : list of str
        The rules for dependent keys, as ``key = expression``.
    rows : list of dict
        One per cell: ``values`` (every key), ``rank``, ``label``, ``kind``, ``status``...
    steps : list of dict
        Growth ratios and regimes (:func:`seprank.studies.study_analysis.step`).
    transitions : list of dict
        Per series: ``series`` and the transition
        (:func:`~seprank.studies.study_analysis.transition`).
    depth_width : list of dict
        The depth-width map (:func:`~seprank.studies.study_analysis.depth_width_map`).
    budgets : list of dict
        The winners by parameter budget (:func:`~seprank.studies.study_analysis.budgets`).
    verdict : list of str
        The conclusion in words.
    depth_key, width_key : str
        Which keys are depth and width.
    seconds : float
        Wall time of the study.
    measure_seconds : float
        Of that, the measurements run now (their own wall times summed).
    notes : list of str
        What else the reader must know (paper's fit, refusals, time limit).
    measured_now : int
        Cells measured by this call.
    from_store : int
        Cells read from the result store or the CSV (measured before).
    """

    arch: str
    varied: list
    fixed: dict
    rules: list
    rows: list
    steps: list
    transitions: list
    depth_width: list
    budgets: list
    verdict: list
    depth_key: str = "depth"
    width_key: str = "width"
    seconds: float = 0.0
    measure_seconds: float = 0.0
    notes: list = field(default_factory=list)
    measured_now: int = 0
    from_store: int = 0

    def to_dict(self) -> dict:
        """One JSON-friendly dict (what ``seprank study --json`` prints).

        Returns
        -------
        dict
            ``rows`` (each: the cell's keys, ``rank``, ``label`` and the rest), ``steps``
            (``from``, ``to``, ``ratio``, ``regime``...), ``verdict`` and the other answers.
        """
        rows = [{**r["values"], **{c: r.get(c) for c in RESULT_COLUMNS if c != "varied"}}
                for r in self.rows]  # fmt: skip
        return {"arch": self.arch, "varied": self.varied, "fixed": self.fixed,
                "rules": self.rules, "rows": rows, "steps": self.steps,
                "transitions": self.transitions, "depth_width": self.depth_width,
                "budgets": self.budgets, "verdict": self.verdict, "notes": self.notes,
                "seconds": round(self.seconds, 3),
                "measure_seconds": round(self.measure_seconds, 3)}  # fmt: skip

    def to_frame(self):
        """The rows as a pandas DataFrame (pandas must be installed).

        Returns
        -------
        pandas.DataFrame
            One row per cell: its keys and the result columns.
        """
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"])

    def keys(self) -> list[str]:
        """Every key of the cells (varied first), the CSV's first columns.

        Returns
        -------
        list of str
            The keys.
        """
        out = list(self.varied)
        for r in self.rows:
            out += [k for k in r["values"] if k not in out]
        return out

    def to_csv(self, path) -> Path:
        """Write the rows as a CSV (atomically: a temporary file, then a rename).

        Parameters
        ----------
        path : str or pathlib.Path
            The file.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        path = Path(path)
        cols = self.keys() + RESULT_COLUMNS
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, restval="", lineterminator="\n")
        w.writeheader()
        for r in self.rows:
            w.writerow({**{k: _text(v) for k, v in r["values"].items()},
                        **{c: _text(r.get(c)) for c in RESULT_COLUMNS},
                        "varied": ",".join(self.varied)})  # fmt: skip
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(buf.getvalue())
        tmp.replace(path)
        return path

    def lines(self) -> list[str]:
        """The result as text: rows, steps, transitions, map, budgets, verdict.

        Returns
        -------
        list of str
            The lines.
        """
        out = [f"study of {self.arch}: varying {', '.join(self.varied)}"
               + (f"; fixed {_kv(self.fixed)}" if self.fixed else "")
               + (f"; rules {'; '.join(self.rules)}" if self.rules else "")]  # fmt: skip
        for r in self.rows:
            what = (f"{r['rank']} [{r['label']}]" if r.get("rank") is not None and
                    str(r.get("status", "done")).startswith("done") else
                    f"{r['status']}: {r.get('error') or ''}")  # fmt: skip
            extra = f"  ({r['params']} parameters)" if r.get("params") is not None else ""
            out.append(f"  {_kv({k: r['values'][k] for k in self.varied})}: {what}{extra}")
        if self.steps:
            out.append("steps (growth ratio log r(L') / log r(L)):")
        for s in self.steps:
            ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f} ({s['ratio_label']})"
            bound = (f"; proved bound's regime: {s['bound_regime']}"
                     if s.get("bound_regime") else "")  # fmt: skip
            out.append(f"  {_kv(s['series'])} {s['from']}->{s['to']}: {ratio}: "
                       f"{s['regime']} ({s['why']}){bound}")  # fmt: skip
        for t in self.transitions:
            out.append(f"transition {_kv(t['series']) or ''}: {t['text']}")
        for m in self.depth_width:
            others = f" {_kv(m['others'])}" if m["others"] else ""
            out.append(f"map{others} {m['from']}->{m['to']}: depth-efficient at "
                       f"{self.width_key} {m['efficient'] or '-'}, not at "
                       f"{m['inefficient'] or '-'}")  # fmt: skip
        for b in self.budgets:
            fit = b.get("paper_fit")
            beside = "" if not fit else (
                f"; the paper's fit at 12 L d^2 = {fit['params_paper_count']}: depth "
                f"{fit['depth']:.2f}, width {fit['width']:.0f}"
                + (f" ({fit['note']})" if fit["note"] else
                   " (under one layer: the fit says no depth at this size)"
                   if fit["depth"] < 1 else ""))  # fmt: skip
            out.append(f"budget <= {b['budget']} parameters: {_kv(b['winner'])} with rank "
                       f"{b['rank']} [{b['kind']}]"
                       + ("" if b["certain"] else " (another cell within the budget has a "
                          "lower bound only: it might be larger)") + beside)  # fmt: skip
        out += [f"note: {n}" for n in self.notes]
        out += [f"verdict: {v}" for v in self.verdict]
        return out


def _kv(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items())


def _text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return json.dumps(v)
    return str(v)


def f_degree(net, seed: int = 0, prime: int | None = None) -> int | None:
    """The total degree of f, measured over GF(p) by interpolation along random lines.

    g(t) = f(tX) is interpolated at n + 1 points for n = 4, 8, ... until two further points
    agree with the interpolant, at three random X. The degree found is a lower bound on
    f's that equals it except with probability at most 3 T / p (Schwartz-Zippel).

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
        probes = [dom.random(rng, (1, net.seq_len, input_dim(net))) for _ in range(3)]
        n = 4
        while n <= min(MAX_DEGREE, p - 4):
            ts = list(range(n + 3))
            found, ok = 0, True
            for X in probes:
                batch = np.concatenate([(t * np.asarray(X, dtype=np.int64)) % p for t in ts])
                v = np.asarray(evaluate(net, params, batch, dom), dtype=np.int64) % p
                c = interpolate(ts[: n + 1], v[: n + 1], p)
                pred = [sum(int(ci) * pow(t, k, p) for k, ci in enumerate(c)) % p
                        for t in ts[n + 1:]]  # fmt: skip
                if pred != [int(x) for x in v[n + 1:]]:
                    ok = False
                    break
                nz = np.nonzero(c)[0]
                found = max(found, int(nz[-1]) if nz.size else 0)
            if ok:
                return found
            n *= 2
    except SeprankError:
        return None
    return None


def _cell_id(spec: dict) -> str:
    """What decides a cell's result, without the code version (a CSV row's identity)."""
    keep = {k: spec[k] for k in ("arch", "params", "partition", "method", "strategy", "seed",
                                 "prime", "max_samples")}  # fmt: skip
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _bound_of(net, partition) -> tuple[int | None, str]:
    try:
        b = architecture_bound(net, partition)
    except SeprankError:
        return None, ""
    if not b or b.get("upper") is None:
        return None, ""
    return int(b["upper"]), labels.bound_status(b.get("tag", "")) or b.get("kind", "")


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
               method=old.get("method"), status="done (from the CSV)")  # fmt: skip
    for k in ("seconds", "saturation_bound"):
        try:
            row[k] = float(old[k]) if old.get(k) not in (None, "") else None
        except ValueError:
            row[k] = None
    row["prime"] = int(old["prime"]) if str(old.get("prime", "")).isdigit() else None
    row["block_ranks"] = _json_list(old.get("block_ranks"))
    up, status = row.get("upper"), row.get("upper_status")
    row["label"] = labels.rank_label(rank, saturated, False, up, status or labels.ARCHITECTURE)
    row["kind"] = (sa.EXACT if row["label"].startswith("exact") else
                   sa.SATURATED if saturated else sa.LOWER)  # fmt: skip
    return True


def _json_list(text) -> list:
    try:
        v = json.loads(text or "[]")
    except (TypeError, ValueError):
        return []
    return v if isinstance(v, list) else []


def read_csv(path) -> list[dict]:
    """The rows of a study CSV, as text (none if the file does not exist).

    Parameters
    ----------
    path : str or pathlib.Path

    Returns
    -------
    list of dict
    """
    path = Path(path)
    if not path.exists():
        return []
    try:
        with path.open(newline="") as f:
            return list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"csv={str(path)!r} cannot be read ({exc})") from None


def study(arch, vary: dict, fixed: dict | None = None, *, rules=None, partition=None,
          method: str = "auto", strategy: str = "auto", seed: int = 0,
          prime: int | None = None, max_samples: int | None = None,
          db=DEFAULT_DB, executor: str = "serial", scheduler: str | None = None,
          workers: int | None = None, worker_memory: int | None = None, retries: int = 2,
          max_seconds: float | None = None, cell_limit: float | None = None,
          depth_key: str = "depth", width_key: str = "width", out=None,
          progress: bool = False, say=None) -> Study:  # fmt: skip
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
    if depth_key not in vary:
        raise ConfigError(f"vary: a study varies the depth ({depth_key!r}); got "
                          f"{', '.join(vary) or 'nothing'}")  # fmt: skip
    a = sc.resolve_arch(arch)
    rules_in = sc.default_rules(a, dict(sc.parse_rule(r) for r in (rules or [])), vary, fixed)
    out_dir = None if out is None else Path(out)
    old = {r.get("cell"): r for r in read_csv(out_dir / CSV_NAME)} if out_dir else {}
    measure_kw = dict(partition=partition, method=method, strategy=strategy, seed=seed,
                      prime=prime, max_samples=max_samples)  # fmt: skip
    run_kw = dict(executor=executor, scheduler=scheduler, workers=workers,
                  worker_memory=worker_memory, retries=retries, progress=progress,
                  label=f"study {a.name}", say=say, max_seconds=max_seconds)  # fmt: skip
    rows, measure_seconds, outcome = measure_cells(
        sc.expand(a, vary, fixed, rules_in), list(vary), measure_kw, run_kw, db=db,
        cell_limit=cell_limit, previous=old)  # fmt: skip
    degrees: dict = {}
    for row in rows:
        if row.get("rank") is not None and row.get("kind") != sa.ESTIMATE:
            k = json.dumps(config_of(row["net"]), sort_keys=True, default=str)
            if k not in degrees:
                degrees[k] = f_degree(row["net"], seed)
            row["degree"] = degrees[k]
        row.pop("net", None), row.pop("spec", None), row.pop("measurement", None)
    result = analyse(a.name, list(vary), fixed, sc.rule_text(rules_in), rows, depth_key,
                     width_key)  # fmt: skip
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


def measure_cells(cells: list, varied: list, measure_kw: dict, run_kw: dict, *,
                  db=DEFAULT_DB, cell_limit: float | None = None,
                  previous: dict | None = None) -> tuple[list, float, object]:  # fmt: skip
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
    rows, todo = _rows(cells, varied, measure_kw, previous or {})
    seconds, outcome = _measure(todo, db, cell_limit, run_kw)
    return rows, seconds, outcome


def _rows(cells, varied: list, measure_kw: dict, old: dict) -> tuple[list, list]:
    """One row per cell (its spec, bound and parameter count), and those left to measure
    (neither invalid nor found in the previous CSV ``old``)."""
    rows, todo = [], []
    for c in cells:
        row = {"values": c.values, "varied": varied, "status": "invalid", "error": c.invalid,
               "seed": measure_kw["seed"]}  # fmt: skip
        rows.append(row)
        if c.net is None:
            continue
        spec = sweep_tasks.spec_for_net("measure", c.net, grid="study", **measure_kw)
        row.update(net=c.net, key=spec["key"], cell=_cell_id(spec), status="not run",
                   error=None, spec=spec)  # fmt: skip
        row["upper"], row["upper_status"] = _bound_of(c.net, measure_kw["partition"])
        try:
            row["params"] = sc.count_parameters(c.net)
        except Exception as exc:  # a user's init that cannot run in Float64: no count
            row["params"], row["params_error"] = None, f"{type(exc).__name__}: {exc}"
        if row["cell"] in old and _from_csv_row(row, old[row["cell"]]):
            continue
        todo.append(row)
    return rows, todo


def _plan(row: dict, cell_limit) -> dict | None:
    """The row's spec with its estimates, or None (the row then says why it is refused)."""
    spec = row["spec"]
    try:
        sweep_tasks.plan(spec)
    except TooBigError as exc:
        row.update(status="refused", error=f"refused: {exc}")
        return None
    except SeprankError as exc:
        row.update(status="failed", error=f"{type(exc).__name__}: {exc}")
        return None
    row["est_seconds"] = round(spec["est_seconds"], 3)
    if cell_limit is not None and spec["est_seconds"] > cell_limit:
        row.update(status="refused", error=f"refused: estimated {spec['est_seconds']:,.1f} s "
                   f"exceeds the cell limit {cell_limit:,.1f} s")  # fmt: skip
        return None
    return spec


def _measure(todo: list, db, cell_limit, run_kw: dict) -> tuple[float, object]:
    """Plan and run the rows to measure through the store; fill each row from it.
    Returns the measuring seconds of this run and the sweep's outcome."""
    with contextlib.ExitStack() as stack:
        if db is None:  # no store kept: a temporary one
            db = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "study.sqlite"
        store = stack.enter_context(Store(db))
        status = store.status_of([r["key"] for r in todo])
        before = {k for k, v in status.items() if v == "done"}
        ready = [r["spec"] if r["key"] in before else _plan(r, cell_limit) for r in todo]
        outcome = sweep_run([s for s in ready if s is not None], store, order="cheapest",
                            plan_fn=_planned, **run_kw)  # fmt: skip
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
    return seconds, outcome


def _planned(spec: dict) -> dict:
    """The runner's plan step for specs planned already (their estimates kept)."""
    return dict(spec, est_seconds=spec.get("est_seconds", 0.0), est_bytes=spec.get("est_bytes"))


def analyse(arch: str, varied: list, fixed: dict, rules: list, rows: list,
            depth_key: str = "depth", width_key: str = "width") -> Study:  # fmt: skip
    """A :class:`Study` from its rows, measured now or read from a CSV.

    The steps, transitions, map, budgets and verdict come from
    :mod:`seprank.studies.study_analysis`.

    Parameters
    ----------
    arch : str
        The architecture's name.
    varied : list of str
        The varied keys.
    fixed : dict
        The fixed keys.
    rules : list of str
        The rules, as text.
    rows : list of dict
        The rows (``values``, ``rank``, ``kind``, ``label``, ``degree``, ``params``...).
    depth_key, width_key : str, default "depth", "width"
        Which keys are the depth and the width.

    Returns
    -------
    Study
        The rows with their answers.
    """
    for r in rows:
        r["varied"] = list(varied)
    steps = sa.steps_of(rows, depth_key)
    budgets = sa.budgets(rows)
    if arch == "attention":  # the paper's fit beside each winner, at the paper's count
        for b in budgets:
            paper = 3 * b["budget"]  # 12 L d^2 (with the feed-forward layers) = 3 x 4 L d^2
            fit = fit_optimal_shape(paper)
            b["paper_fit"] = {"params_paper_count": paper, "depth": fit["depth"],
                              "width": fit["width"], "note": fit.get("note", "")}  # fmt: skip
    return Study(
        arch=arch, varied=list(varied), fixed=fixed, rules=list(rules), rows=rows,
        steps=steps, transitions=_transitions(steps),
        depth_width=sa.depth_width_map(steps, width_key), budgets=budgets,
        verdict=sa.verdict(rows, steps, depth_key, width_key) + _paper_lines(
            arch, rows, depth_key, width_key),
        depth_key=depth_key, width_key=width_key)  # fmt: skip


def _number(text):
    t = str(text).strip()
    if t.lstrip("-").isdigit():
        return int(t)
    return t


def from_csv(path, depth_key: str = "depth", width_key: str = "width",
             arch: str = "") -> Study:  # fmt: skip
    """A :class:`Study` drawn from a study CSV (``--plot-only``).

    The CSV is data, read as it is: nothing it names is imported or measured.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV (:data:`CSV_NAME` in a study's folder).
    depth_key, width_key : str, default "depth", "width"
        Which keys are the depth and the width.
    arch : str, default ""
        The architecture's name, for the text.

    Returns
    -------
    Study
        Its rows and the answers computed from them.

    Raises
    ------
    ConfigError
        If the file is missing, empty, or not a study CSV.
    """
    raw = read_csv(path)
    if not raw:
        raise ConfigError(f"csv={str(path)!r} does not exist or holds no rows")
    cols = list(raw[0])
    if "rank" not in cols or depth_key not in cols:
        raise ConfigError(f"csv={str(path)!r} is not a study CSV (no column "
                          f"{'rank' if 'rank' not in cols else depth_key!r})")  # fmt: skip
    keys = cols[: cols.index("rank")]
    rows = []
    for i, r in enumerate(raw, start=2):
        row = {"values": {k: _number(r[k]) for k in keys}}
        for c in RESULT_COLUMNS:
            row[c] = r.get(c) or None
        for c in ("rank", "params", "degree", "upper"):
            v = (r.get(c) or "").strip()
            if v and not (v.isdigit() and len(v) < 4000):
                raise ConfigError(f"csv={str(path)!r} line {i}: {c}={v[:20]!r} must be a "
                                  "non-negative integer or empty")  # fmt: skip
            row[c] = int(v) if v else None
        row["block_ranks"] = _json_list(r.get("block_ranks"))
        if not isinstance(row["values"].get(depth_key), int):
            raise ConfigError(f"csv={str(path)!r} line {i}: {depth_key} must be an integer")
        rows.append(row)
    named = [k for k in (raw[0].get("varied") or "").split(",") if k in keys]
    varied = named or [k for k in keys if len({str(r["values"][k]) for r in rows}) > 1]
    varied = varied or [depth_key]
    fixed = {k: rows[0]["values"][k] for k in keys if k not in varied}
    return analyse(arch or "(from the CSV)", varied, fixed, [], rows, depth_key, width_key)


def _paper_lines(arch: str, rows: list, depth_key: str, width_key: str) -> list[str]:
    """For the paper's network: where the paper and the proved formula put the transition,
    beside what the study measured."""
    if arch != "attention":
        return []
    widths = sorted({r["values"].get(width_key) for r in rows
                     if isinstance(r["values"].get(width_key), int)})  # fmt: skip
    out = []
    for d in widths:
        paper = math.log(d, 3)
        formula = math.log(d * d + d + 1, 3)
        out.append(f"{width_key}={d}: the paper puts the transition at L = log3 d = "
                   f"{paper:.2f}; the proved one-head block formula's regimes meet at "
                   f"3^L = d^2 + d + 1, L = {formula:.2f} (proofs/transition.md)")  # fmt: skip
    return out


def _transitions(steps: list[dict]) -> list[dict]:
    by: dict = {}
    for s in steps:
        by.setdefault(tuple(s["series"].items()), []).append(s)
    return [{"series": dict(k), **sa.transition(v)} for k, v in by.items()]


def _notes(s: Study, unrun: int) -> list[str]:
    notes = []
    if unrun:
        notes.append(f"{unrun} cells left unrun by the time limit (run again to measure "
                     "them: finished cells are kept)")  # fmt: skip
    for r in s.rows:
        if r["status"] in ("refused", "failed", "invalid", "not run"):
            notes.append(f"{_kv(r['values'])}: {r['status']}"
                         + (f": {r['error']}" if r.get("error") else ""))  # fmt: skip
    if any(r.get("degree") for r in s.rows):
        notes.append("f's degree (the degree law) measured by interpolation over GF(p) along "
                     "three random lines (exact except with probability <= 3 deg / p)")
    if any(r.get("params") is not None for r in s.rows):
        notes.append("parameters counted from the architecture's own init (every scalar "
                      "weight it draws)")  # fmt: skip
    if s.arch == "attention" and s.budgets:
        notes.append("parameters here count the attention weights, 4 L d^2; the paper counts "
                     "12 L d^2 (with the feed-forward layers), so its fit is read at three "
                     "times the budget (an empirical fit on language modelling, not a "
                     "measurement)")  # fmt: skip
    return notes


__all__ = ["CSV_NAME", "Study", "analyse", "f_degree", "from_csv", "measure_cells", "read_csv",
           "study"]


"""Sweeps, the result store and the executors (a real Dask LocalCluster, no mocks)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _slow_tasks import slow_env

from seprank.cli import main
from seprank.sweeps.store import Store

TINY = """\
[grid]
name = "tiny"
methods = ["modular"]
seeds = [0, 1]
[params]
depth = [1, 2, 3]
width = [2]
seq_len = [4]
"""
#: 32 tasks, each made to last at least SLOW_TASK_S in the stop tests (slow_env).
LONGER = """\
[grid]
name = "longer"
methods = ["modular"]
seeds = [0, 1, 2, 3, 4, 5, 6, 7]
[params]
depth = [2, 3]
width = [2]
seq_len = [4, 6]
"""


ROOT = Path(__file__).resolve().parents[2]

#: The stop tests' tasks take at least this long, so 29 tasks cannot all finish between the
#: third stored one and the signal (on their own the 32 took 0.9 s in all).
SLOW_TASK_S = 0.4


def _env() -> dict:
    """A subprocess's environment importing this checkout's seprank (the stored keys
    carry a fingerprint of its code, so another installed copy would measure anew)."""
    old = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + old if old else ""))


def _grid(tmp_path: Path, text: str, name: str = "grid.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _untimed(x):
    """``x`` without any key naming a time, at every depth (a catalecticant measurement
    times each block and F's build)."""
    if isinstance(x, dict):
        return {k: _untimed(v) for k, v in x.items() if "seconds" not in k}
    return [_untimed(v) for v in x] if isinstance(x, list) else x


def _stored(db: Path) -> dict:
    """key -> stored measurement without its timings (what must not depend on where or
    when a task ran)."""
    with Store(db) as s:
        rows = s.query()
    out = {}
    for r in rows:
        assert r["key"] not in out
        out[r["key"]] = (r["status"], _untimed(r["measurement"]))
    return out


def _sweep(grid: Path, db: Path, *extra: str) -> int:
    return main(["sweep", str(grid), "--db", str(db), "--out", str(db.parent), "--quiet",
                 *extra])


def test_same_stored_results_on_serial_processes_and_dask(tmp_path, capsys):
    grid = _grid(tmp_path, TINY)
    got = {}
    for ex in ("serial", "processes", "dask"):
        db = tmp_path / f"{ex}.sqlite"
        assert _sweep(grid, db, "--executor", ex, "--workers", "2") == 0
        got[ex] = _stored(db)
    assert len(got["serial"]) == 6
    assert all(status == "done" for status, _ in got["serial"].values())
    assert got["serial"] == got["processes"] == got["dask"]
    ranks = sorted(m["rank"] for _, m in got["serial"].values())
    assert ranks == [3, 3, 18, 18, 232, 232]  # each meets its proved bound: exact, proved


def test_existing_dask_scheduler(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    grid = _grid(tmp_path, TINY)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        db = tmp_path / "r.sqlite"
        assert _sweep(grid, db, "--executor", "dask", "--scheduler", cluster.scheduler_address) == 0
    assert _stored(db) == _stored_serial(tmp_path, grid)


def test_scheduler_without_workers_is_refused_not_waited_on(tmp_path, capsys, monkeypatch):
    distributed = pytest.importorskip("distributed")
    from seprank.sweeps import executors

    monkeypatch.setattr(executors, "WORKER_WAIT_S", 2)
    grid = _grid(tmp_path, TINY)
    with distributed.LocalCluster(n_workers=0, processes=False,
                                  dashboard_address=None) as cluster:
        db = tmp_path / "r.sqlite"
        assert _sweep(grid, db, "--executor", "dask", "--scheduler", cluster.scheduler_address) == 2
    err = capsys.readouterr().err
    assert "no worker connected within 2 s" in err and len(err.strip().splitlines()) == 1


def test_a_worker_that_dies_costs_only_its_own_task(tmp_path, monkeypatch):
    """A pool whose worker dies fails every task in it; only the task that killed it
    (found by rerunning the others alone) is charged and ends failed, the rest are
    stored once each, done."""
    from _crashing_task import run_or_die

    from seprank.nets import LinearSelfAttention
    from seprank.sweeps import runner as sweep
    from seprank.sweeps.tasks import spec_for_net

    specs = [spec_for_net("measure", LinearSelfAttention(depth=L, width=2, seq_len=4),
                          method="modular", seed=seed) for L in (1, 2) for seed in range(4)]
    specs[3]["die"] = True
    with Store(tmp_path / "r.sqlite") as st:
        o = sweep.run(specs, st, executor="processes", workers=2, retries=2, progress=False,
                      say=lambda m: None, task_fn=run_or_die)
        rows = {r["key"]: r for r in st.query()}
    assert o.done == 7 and o.failed == 1 and len(rows) == 8
    bad = rows[specs[3]["key"]]
    assert bad["status"] == "failed" and "worker lost" in bad["error"] and bad["attempts"] == 3
    assert all(r["status"] == "done" and r["attempts"] == 1 for k, r in rows.items()
               if k != specs[3]["key"])


def _stored_serial(tmp_path, grid):
    db = tmp_path / "serial-reference.sqlite"
    assert _sweep(grid, db, "--executor", "serial") == 0
    return _stored(db)


def _done_count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM tasks WHERE status='done'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:  # created but no table yet
        return 0


def _start_and_stop(tmp_path, sig, executor: str, group: bool = False):
    """Start a sweep in a subprocess, send ``sig`` once 3 tasks are stored (``group``: to
    its whole process group, workers included, as a terminal's Ctrl-C does), return
    (db, process result, done at the signal)."""
    grid = _grid(tmp_path, LONGER)
    db = tmp_path / "r.sqlite"
    env = slow_env(_env(), tmp_path / "slow_site", SLOW_TASK_S)
    cmd = [sys.executable, "-m", "seprank", "sweep", str(grid), "--db", str(db), "--out",
           str(tmp_path), "--executor", executor, "--workers", "2"]
    # SIGINT at its default in the sweep: a test run started in the background of a
    # non-interactive shell ignores SIGINT, and a child would inherit that (and finish)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0 = time.monotonic()
    while _done_count(db) < 3:
        assert p.poll() is None, p.communicate()
        assert time.monotonic() - t0 < 240, "the sweep stored nothing"
        time.sleep(0.02)
    at_signal = _done_count(db)
    if group:
        os.killpg(p.pid, sig)
    else:
        p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    return grid, db, (p.returncode, out, err), at_signal


def _finish_and_check(grid, db, at_signal):
    assert at_signal < 32, "the sweep finished before it was stopped: not a test"
    with Store(db) as s:
        before = {r["key"] for r in s.query()}
    assert _sweep(grid, db, "--executor", "serial") == 0
    with Store(db) as s:
        rows = s.query()
    assert len(rows) == 32 and len({r["key"] for r in rows}) == 32
    assert all(r["status"] == "done" and r["attempts"] == 1 for r in rows)  # none twice
    assert before <= {r["key"] for r in rows}


@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_sigkill_midway_then_rerun_stores_every_task_once(tmp_path, capsys, executor):
    # with processes, communicate() returns only once the orphaned workers have exited
    # (they hold the pipes): a worker outliving its killed driver fails by timeout
    grid, db, (rc, _, _), at = _start_and_stop(tmp_path, signal.SIGKILL, executor)
    assert rc == -signal.SIGKILL
    _finish_and_check(grid, db, at)


@pytest.mark.parametrize("executor", ["serial", "processes", "dask"])
def test_sigint_stops_cleanly_keeps_finished_tasks(tmp_path, capsys, executor):
    if executor == "dask":
        pytest.importorskip("distributed")
    grid, db, (rc, out, err), at = _start_and_stop(tmp_path, signal.SIGINT, executor,
                                                   group=True)
    assert _done_count(db) < 32, "the sweep finished before it was stopped: not a test"
    assert rc == 130 and "Traceback" not in err
    assert "INTERRUPTED" in out
    assert _done_count(db) >= at
    _finish_and_check(grid, db, at)


def test_a_grid_with_an_invalid_combination_is_refused_whole(tmp_path, capsys):
    # heads=2 does not divide width=3: the grid is refused before anything runs (issue 24:
    # it used to be stored as a failed task, exit 1); nothing is stored
    grid = _grid(tmp_path, '[grid]\nname = "bad"\n[params]\ndepth = [1]\nwidth = [2, 3]\n'
                           'heads = [1, 2]\nseq_len = [4]\n')
    db = tmp_path / "r.sqlite"
    assert _sweep(grid, db, "--executor", "serial") == 2
    err = capsys.readouterr().err
    assert "heads=2 must divide width=3" in err and "[params]" in err and len(err.splitlines()) == 1
    assert not db.exists()


def test_unexpected_errors_are_retried_a_bounded_number_of_times(tmp_path, monkeypatch):
    from dataclasses import dataclass

    from seprank.nets import ARCHITECTURES, LinearSelfAttention
    from seprank.sweeps.runner import run
    from seprank.sweeps.tasks import make_spec

    @dataclass(frozen=True)
    class Broken(LinearSelfAttention):
        """An architecture whose evaluation raises (a bug in a user's network)."""

        def apply(self, params, X, domain):
            raise RuntimeError("boom in apply")

    monkeypatch.setitem(ARCHITECTURES, "broken", Broken)  # runs in this process (serial)
    cfg = {"depth": 1, "width": 2, "seq_len": 4}
    good, bad = make_spec("measure", "attention", cfg), make_spec("measure", "broken", cfg)
    with Store(tmp_path / "r.sqlite") as store:
        o = run([bad, good], store, executor="serial", retries=2, progress=False,
                say=lambda m: None)
        assert (o.done, o.failed, o.retried) == (1, 1, 2)
        row = store.get(bad["key"])
        assert row["status"] == "failed" and row["attempts"] == 3
        assert row["error"] == "RuntimeError: boom in apply"
        assert store.get(good["key"])["rank"] == 3
        # an invalid configuration is refused before it runs: stored, not retried
        odd = make_spec("measure", "attention", dict(cfg, bogus=1))
        o = run([odd], store, executor="serial", retries=2, progress=False, say=lambda m: None)
        assert (o.failed, o.retried) == (1, 0) and "bogus" in store.get(odd["key"])["error"]


def test_a_task_too_big_for_its_worker_is_refused_and_stored(tmp_path, capsys):
    grid = _grid(tmp_path, TINY)
    db = tmp_path / "r.sqlite"
    assert _sweep(grid, db, "--executor", "serial", "--worker-memory", "1MiB") == 1
    with Store(db) as s:
        rows = s.query()
    assert len(rows) == 6 and all(r["status"] == "refused" for r in rows)
    assert all("estimated peak memory" in r["error"] and "exceeds the worker's" in r["error"]
               for r in rows)
    assert all(r["est_bytes"] > 2**20 for r in rows)
    # with the memory there, a rerun measures them (a refusal is not final)
    assert _sweep(grid, db, "--executor", "serial") == 0
    assert all(status == "done" for status, _ in _stored(db).values())


def test_verify_with_refused_configurations_is_incomplete_exit_1(tmp_path, capsys):
    args = ["verify", "--quick", "--out", str(tmp_path), "--executor", "serial",
            "--worker-memory", "1MiB"]
    assert main(args) == 1
    cap = capsys.readouterr()
    assert "92 configurations failed or were refused" in cap.out
    assert cap.err.count("NOT MEASURED (refused)") == 92


def test_verify_quick_twice_measures_nothing_the_second_time(tmp_path, capsys):
    args = ["verify", "--quick", "--out", str(tmp_path), "--workers", "2"]
    assert main(args) == 0
    first = capsys.readouterr()
    assert main(args) == 0
    second = capsys.readouterr()
    assert second.out == first.out and "92 configurations measured" in first.out
    assert "all 92 tasks are in the store" in second.err
    with Store(tmp_path / "results.sqlite") as s:
        assert s.count() == 92 and s.count("done") == 92
    assert main(["results", "--db", str(tmp_path / "results.sqlite"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    configs = [json.dumps(r["config"], sort_keys=True) for r in rows]
    assert len(rows) == 92 and len(set(configs)) == 92
    assert all(r["extra"]["measured"] == r["rank"] == r["measurement"]["rank"] for r in rows)


@pytest.mark.parametrize(
    "text, words",
    [
        ("[grid]\nbogus = 1\n", "key 'bogus' is unknown"),
        ("[params]\ndepth = [1]\nwidthh = [2]\n", "'widthh' is not a parameter of attention"),
        ('[grid]\narch = "nope"\n', "arch='nope' is not an architecture"),
        ('[grid]\ntask = "train"\n', "task='train' must be one of"),
        ("[params\n", "is not valid TOML"),
        ("[grid]\nseeds = 0\n", "seeds must be a list"),
        ('[grid]\nmethods = "modular"\n', "methods must be a list"),
        ("[params]\ndepth = [1, 2]\n[[exclude]]\ndept = 2\n",
         "[[exclude]] 'dept' is not a parameter"),
    ],
)
def test_bad_grid_is_one_line_exit_2(tmp_path, capsys, text, words):
    grid = _grid(tmp_path, text)
    assert main(["sweep", str(grid), "--db", str(tmp_path / "r.sqlite")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


@pytest.mark.parametrize(
    "args, words",
    [
        (["sweep", "no-such-grid"], "grid='no-such-grid' is not a shipped grid"),
        (
            ["sweep", "example", "--executor", "serial", "--scheduler", "tcp://x:1"],
            "scheduler='tcp://x:1' needs --executor dask",
        ),
        (["results", "--db", "/nonexistent/r.sqlite"], "db='/nonexistent/r.sqlite' does not"),
        (["results", "--db", "DB", "--where", "colour=red"], "'colour' is not a column"),
        (["sweep", "example", "--worker-memory", "lots"], "--worker-memory"),
    ],
)
def test_bad_sweep_or_results_input(tmp_path, capsys, args, words):
    db = tmp_path / "r.sqlite"
    Store(db).close()
    args = [str(db) if a == "DB" else a for a in args]
    if args[0] == "sweep":
        args += ["--out", str(tmp_path)]
    try:
        rc = main(args)
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


def test_core_imports_and_runs_without_dask(tmp_path):
    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"
        "import seprank, seprank.sweeps.runner, seprank.sweeps.store, seprank.sweeps.executors\n"
        "from seprank.cli import main\n"
        f"sys.exit(main(['sweep', 'example', '--executor', 'dask', '--out', {str(tmp_path)!r}]))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "executor='dask' needs Dask distributed: pip install" in r.stderr
    assert "Traceback" not in r.stderr


def test_store_keys_include_the_version_and_a_rerun_replaces_not_duplicates(tmp_path,
                                                                            monkeypatch):
    from seprank import _version
    from seprank.algebra.domains import DEFAULT_PRIME
    from seprank.nets import LinearSelfAttention
    from seprank.sweeps.tasks import make_spec, spec_for_net

    a = make_spec("measure", "attention", {"depth": 1, "width": 2, "seq_len": 4})
    b = make_spec("measure", "attention", {"depth": 1, "width": 2, "seq_len": 4}, seed=1)
    assert a["key"] != b["key"] and a["version"] == _version.__version__
    # one configuration, one key, however it is written (defaults, or built from the
    # network as verify, figures and transition do)
    same = [make_spec("measure", "attention", {"seq_len": 4, "width": 2, "depth": 1,
                                               "residual": False, "heads": 1}),
            spec_for_net("measure", LinearSelfAttention(depth=1, width=2, seq_len=4))]
    assert {s["key"] for s in same} == {a["key"]}
    # a prime left to the planner is not the default prime given: the planner may take
    # another (the catalecticant strategy's fast prime), as `seprank measure` does
    assert make_spec("measure", "attention", {"depth": 1, "width": 2, "seq_len": 4},
                     prime=DEFAULT_PRIME)["key"] != a["key"]
    monkeypatch.setattr(_version, "__version__", "0.0.0-other")
    assert make_spec("measure", "attention", {"depth": 1, "width": 2, "seq_len": 4})["key"] \
        != a["key"]
    with Store(tmp_path / "r.sqlite") as s:
        s.put(a, {"status": "failed", "error": "x"})
        s.put(a, {"status": "done", "measurement": {"rank": 3}})
        assert s.count() == 1 and s.get(a["key"])["attempts"] == 2
        assert s.get(a["key"])["rank"] == 3 and s.status_of([a["key"], b["key"]]) == {
            a["key"]: "done"}


def test_large_first_order(tmp_path):
    from seprank.sweeps.grid_file import read_grid, specs
    from seprank.sweeps.tasks import plan

    tasks, _ = specs(read_grid(_grid(tmp_path, TINY)))
    est = [plan(t)["est_seconds"] for t in tasks]
    # the grid lists depth 1 first; its cost estimate is the smallest
    assert est[0] < est[-1]
    with Store(tmp_path / "r.sqlite") as store:
        from seprank.sweeps.runner import run

        run(tasks, store, executor="serial", progress=False, say=lambda m: None)
        order = [r["depth"] for r in store.query()]
    assert order == sorted(order, reverse=True)


def test_shipped_grids_are_package_data():
    from seprank.sweeps.grid_file import read_grid, shipped_grid

    for name in ("verify-quick", "verify-default", "example"):
        g = read_grid(shipped_grid(name))
        assert g["grid"]["name"] == name
    assert os.path.basename(str(shipped_grid("example"))) == "example.toml"


def test_transition_runs_through_the_store(tmp_path, capsys):
    """seprank transition measures through the store: with the CSV gone, a rerun rebuilds
    it from the store (the same bytes) and measures nothing."""
    db, out = tmp_path / "r.sqlite", tmp_path / "fig"
    args = ["transition", "--quick", "--max-bound", "60", "--out", str(out), "--db", str(db),
            "--executor", "serial"]
    assert main(args) == 0
    csv_path = out / "fig8_measured_transition.csv"
    first = csv_path.read_bytes()
    csv_path.unlink()
    capsys.readouterr()
    assert main(args) == 0
    assert "all 7 tasks are in the store" in capsys.readouterr().err
    assert csv_path.read_bytes() == first
    with Store(db) as s:
        ranks = sorted(r["rank"] for r in s.query())
    assert ranks == [3, 3, 4, 5, 17, 18, 49]  # L=2, d=2, H=2: 17 < 18, as docs/results.md reports


def test_max_tasks_runs_part_and_a_rerun_the_rest(tmp_path, capsys):
    grid, db = _grid(tmp_path, TINY), tmp_path / "r.sqlite"
    assert _sweep(grid, db, "--executor", "serial", "--max-tasks", "2", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["done"], d["planned"]) == (2, 2)
    assert _sweep(grid, db, "--executor", "serial", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["done"], d["skipped"], d["planned"]) == (4, 2, 6)

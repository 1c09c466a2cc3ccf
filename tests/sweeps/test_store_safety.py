"""Issue 24, items 2 and 3: stores that are not seprank's are left untouched, results only
reads, two sweeps on one store measure each task once (a real second process), results
of other code are not reused silently, a write error mid-run and a cluster without
workers end in one line, exit 1, with every finished task kept."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _slow_tasks import slow_env

from seprank.cli import main
from seprank.errors import ConfigError, StoreWriteError
from seprank.sweeps.store import Store

ROOT = Path(__file__).resolve().parents[2]
GRID = """[grid]
name = "pair"
methods = ["modular"]
seeds = [0, 1, 2, 3, 4, 5, 6, 7]
[params]
depth = [1, 2]
width = [2]
seq_len = [4]
"""


def _env() -> dict:
    old = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + old if old else ""))


def _tiny_store(path: Path) -> None:
    g = path.parent / "tiny.toml"
    g.write_text(GRID.replace("seeds = [0, 1, 2, 3, 4, 5, 6, 7]", "seeds = [0]"))
    assert main(["sweep", str(g), "--db", str(path), "--executor", "serial", "--quiet"]) == 0


def _foreign(tmp_path: Path) -> dict:
    out = {}
    db = sqlite3.connect(tmp_path / "tasks.sqlite")
    db.execute("CREATE TABLE tasks (id INTEGER, name TEXT)")
    db.execute("INSERT INTO tasks VALUES (1, 'theirs')")
    db.commit()
    db.close()
    out["foreign tasks table"] = tmp_path / "tasks.sqlite"
    db = sqlite3.connect(tmp_path / "people.sqlite")
    db.execute("CREATE TABLE people (id INTEGER)")
    db.commit()
    db.close()
    out["foreign table"] = tmp_path / "people.sqlite"
    (tmp_path / "empty.sqlite").write_bytes(b"")
    out["empty"] = tmp_path / "empty.sqlite"
    (tmp_path / "noise.sqlite").write_bytes(os.urandom(8192))
    out["not sqlite"] = tmp_path / "noise.sqlite"
    half = tmp_path / "half.sqlite"
    _tiny_store(half)
    db = sqlite3.connect(half)
    db.execute("PRAGMA journal_mode=DELETE")
    row = db.execute("SELECT * FROM tasks").fetchone()
    for i in range(2000):
        db.execute(f"INSERT INTO tasks VALUES ({','.join('?' * len(row))})", (f"k{i}",) + row[1:])
    db.commit()
    db.close()
    raw = bytearray(half.read_bytes())
    raw[4096 * 20 : 4096 * 22] = b"\xab" * 8192  # two pages in the middle
    half.write_bytes(bytes(raw))
    out["half-corrupt"] = half
    return out


def test_files_that_are_not_stores_are_refused_untouched(tmp_path, capsys):
    g = tmp_path / "g.toml"
    g.write_text(GRID)
    files = _foreign(tmp_path)
    capsys.readouterr()
    for what, path in files.items():
        raw = path.read_bytes()
        for argv in (["results", "--db", str(path)],
                     ["sweep", str(g), "--db", str(path), "--executor", "serial", "--quiet"]):
            assert main(argv) == 2, what
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and "Traceback" not in err[0], (what, err)
            assert path.read_bytes() == raw, f"{what}: modified"
            assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()


def test_results_only_reads(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    _tiny_store(db)
    capsys.readouterr()
    raw, mtime = db.read_bytes(), db.stat().st_mtime_ns
    assert main(["results", "--db", str(db)]) == 0
    assert "2 tasks: 2 done" in capsys.readouterr().out
    assert db.read_bytes() == raw and db.stat().st_mtime_ns == mtime
    with Store(db, readonly=True) as s, pytest.raises(StoreWriteError):
        s.put(s.query()[0]["spec"], {"status": "done"})


def test_two_concurrent_sweeps_measure_each_task_once(tmp_path):
    g = tmp_path / "g.toml"
    g.write_text(GRID)
    db = tmp_path / "r.sqlite"
    # --wait: the one that ends first waits for the other's tasks (without it, it exits 1:
    # "N tasks claimed by HOST:PID, not finished", tests/fuzz/test_store_damage.py)
    cmd = [sys.executable, "-m", "seprank", "sweep", str(g), "--db", str(db), "--executor",
           "serial", "--quiet", "--json", "--wait"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=_env()) for _ in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    counts = [json.loads(o) for o, _ in outs]
    with Store(db) as s:
        rows = s.query()
    assert len(rows) == 16 and all(r["status"] == "done" and r["attempts"] == 1 for r in rows)
    assert sum(c["done"] for c in counts) == 16  # each task measured by one of them
    assert all(c["done"] + c["skipped"] + c["elsewhere"] == 16 for c in counts)


def test_a_dead_sweeps_claims_are_taken_over(tmp_path):
    from seprank.sweeps import runner
    from seprank.sweeps.tasks import make_spec

    spec = make_spec("measure", "attention", {"depth": 1, "width": 2, "seq_len": 4})
    with Store(tmp_path / "r.sqlite") as s:
        s._db.execute("INSERT INTO claims VALUES (?, ?, ?)",
                      (spec["key"], f"{os.uname().nodename}:999999999:dead", time.time()))
        o = runner.run([spec], s, executor="serial", progress=False, say=lambda m: None)
        assert o.done == 1 and s.get(spec["key"])["attempts"] == 1
        s._db.execute("INSERT INTO claims VALUES (?, ?, ?)", ("other", "elsewhere:1:x", 0.0))
        assert s.claim("other") is None  # a stale claim (old heartbeat) is taken over
        s._db.execute("UPDATE claims SET owner = 'elsewhere:1:x', heartbeat = ? "
                      "WHERE key = 'other'", (time.time(),))
        assert s.claim("other") == "elsewhere:1:x"  # a live one is not


def test_results_of_other_code_are_stale_and_not_reused(tmp_path, capsys, monkeypatch):
    from seprank.sweeps import tasks

    g = tmp_path / "g.toml"
    g.write_text(GRID.replace("seeds = [0, 1, 2, 3, 4, 5, 6, 7]", "seeds = [0]"))
    db = tmp_path / "r.sqlite"
    monkeypatch.setattr(tasks, "fingerprint", lambda: "0.0.1+oldoldoldold")
    assert main(["sweep", str(g), "--db", str(db), "--executor", "serial", "--quiet"]) == 0
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["sweep", str(g), "--db", str(db), "--executor", "serial", "--quiet",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["done"] == 2 and d["skipped"] == 0  # measured again, not reused
    assert main(["results", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.count("done, stale") == 2 and "2 stale (other code than" in out
    assert main(["results", "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted(r["stale"] for r in rows) == [False, False, True, True]


def test_a_full_disk_mid_run_is_one_line_exit_1_and_keeps_what_finished(tmp_path, capsys,
                                                                         monkeypatch):
    g = tmp_path / "g.toml"
    g.write_text(GRID)
    db = tmp_path / "r.sqlite"
    real_put, n = Store.put, []

    def put(self, spec, result):  # after two tasks, the file may not grow: SQLITE_FULL
        n.append(1)
        if len(n) == 3:
            pages = self._db.execute("PRAGMA page_count").fetchone()[0]
            self._db.execute(f"PRAGMA max_page_count = {pages}")
        return real_put(self, spec, result)

    monkeypatch.setattr(Store, "put", put)
    rc = main(["sweep", str(g), "--db", str(db), "--executor", "serial", "--quiet"])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]  # after the sweep's opening line
    assert rc == 1 and last.startswith("seprank: error: ") and "cannot store task" in last
    assert "full" in last and "Traceback" not in err
    monkeypatch.undo()
    with Store(db) as s:
        assert s.count("done") >= 2


def test_no_live_dask_worker_for_the_timeout_is_exit_1(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    g = tmp_path / "g.toml"
    g.write_text(GRID)
    db = tmp_path / "r.sqlite"
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                   cluster.scheduler_address, "--nthreads", "1", "--no-nanny",
                                   "--no-dashboard"], env=slow_env(_env(), tmp_path / "site", 0.2),
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)

        def kill_worker_after_the_first_tasks():
            t0 = time.monotonic()
            while time.monotonic() - t0 < 120:
                if db.exists():
                    try:
                        with Store(db, readonly=True) as s:
                            if s.count("done") >= 1:
                                break
                    except Exception:
                        pass
                time.sleep(0.05)
            worker.kill()

        threading.Thread(target=kill_worker_after_the_first_tasks, daemon=True).start()
        t0 = time.monotonic()
        rc = main(["sweep", str(g), "--db", str(db), "--executor", "dask", "--scheduler",
                   cluster.scheduler_address, "--worker-timeout", "3", "--quiet"])
        took = time.monotonic() - t0
        worker.wait(timeout=30)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and "no live worker for 3 s" in err[-1] and took < 100, err
    with Store(db) as s:
        done = s.count("done")
    assert 1 <= done < 16  # what finished is kept


def test_to_dataframe_gives_bools_and_lists(tmp_path):
    """Store.to_dataframe: saturated and residual are bool (not 0/1), partition and
    block_ranks lists of ints, config a dict (not JSON text); --where filters as results."""
    pytest.importorskip("pandas")
    db = tmp_path / "r.sqlite"
    _tiny_store(db)
    with Store(db, readonly=True) as s:
        df = s.to_dataframe()
        one = s.to_dataframe(["depth=2"])
    assert len(df) == 2 and len(one) == 1
    for c in ("saturated", "residual", "stale"):
        assert df[c].dtype == bool, c
    assert df["saturated"].tolist() == [True, True] and not df["stale"].any()
    assert all(isinstance(p, list) and p == [0, 1] for p in df["partition"])
    assert isinstance(df["config"][0], dict) and df["config"][0]["seq_len"] == 4
    ranks = dict(zip(df["depth"], df["block_ranks"]))
    assert sum(ranks[2]) == 18 and all(type(r) is int for r in ranks[2])
    assert one["depth"].tolist() == [2]


def test_to_dataframe_takes_one_filter_string_and_refuses_other_types(tmp_path):
    pytest.importorskip("pandas")
    db = tmp_path / "r.sqlite"
    _tiny_store(db)
    with Store(db, readonly=True) as s:
        assert s.to_dataframe("depth=2")["depth"].tolist() == [2]
        with pytest.raises(ConfigError, match=r"^where=5 must be a filter string"):
            s.to_dataframe(5)


def test_an_empty_file_another_sweep_is_creating_is_waited_for(tmp_path):
    """The race of two sweeps creating one store: SQLite makes the file empty and writes
    its header a moment later; the second sweep's check waits for it, not refuses it."""
    from seprank.sweeps.store import check_file

    made = tmp_path / "made.sqlite"
    _tiny_store(made)
    db = tmp_path / "r.sqlite"
    db.write_bytes(b"")
    timer = threading.Timer(0.3, lambda: db.write_bytes(made.read_bytes()))
    timer.start()
    try:
        assert check_file(db) is True
    finally:
        timer.join()
    db.write_bytes(b"")  # read-only: refused at once
    t = time.monotonic()
    with pytest.raises(ConfigError, match="is empty"):
        check_file(db, readonly=True)
    assert time.monotonic() - t < 1.0


def test_an_empty_file_that_stays_empty_is_refused_after_the_wait(tmp_path, monkeypatch):
    from seprank.sweeps import store

    monkeypatch.setattr(store, "CREATING_SECONDS", 0.3)
    db = tmp_path / "r.sqlite"
    db.write_bytes(b"")
    t = time.monotonic()
    with pytest.raises(ConfigError, match="is empty"):
        store.check_file(db)
    assert time.monotonic() - t >= 0.3
    timer = threading.Timer(0.1, db.unlink)  # removed while watched: absent, a new store
    timer.start()
    try:
        assert store.check_file(db) is False
    finally:
        timer.join()


def test_a_new_stores_schema_is_written_in_one_transaction(tmp_path, monkeypatch):
    """A new store's tables, indexes and application id come in one commit (a crash leaves
    no half-made schema; one sync, not six); reopening it writes nothing."""
    from seprank.sweeps.store import APPLICATION_ID

    words = []  # the first word of every statement the store's connections run
    real = sqlite3.connect

    def connect(*args, **kwargs):
        db = real(*args, **kwargs)
        db.set_trace_callback(lambda sql: words.append(sql.split()[0].strip(";").upper()))
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    path = tmp_path / "new.sqlite"
    Store(path).close()
    begin = words.index("BEGIN")
    assert words[begin:].count("COMMIT") == 1, words
    assert words[begin:words.index("COMMIT")].count("CREATE") == 5, words
    assert "CREATE" not in words[:begin] + words[words.index("COMMIT"):], words
    words.clear()
    Store(path).close()  # reopened: nothing created, nothing begun
    assert "BEGIN" not in words and "COMMIT" not in words, words
    monkeypatch.setattr(sqlite3, "connect", real)
    db = real(path)
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert {"tasks", "claims", "tasks_status", "tasks_grid", "tasks_shape"} <= names
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def _open_at(path: str, start: float, out) -> None:
    """A forked process: open (create) the store at ``start``, report the error or None."""
    while time.time() < start:
        pass
    try:
        with Store(path):
            pass
        out.put(None)
    except ConfigError as exc:
        out.put(str(exc))


def test_two_processes_creating_one_new_store_at_once_both_open_it(tmp_path):
    """Two sweeps that create the same new store at the same instant: before, one of them
    failed at once half the time ("database is locked" from turning on WAL, which SQLite
    does not retry); now both open it, in eight tries."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    for i in range(8):
        path, out = str(tmp_path / f"r{i}.sqlite"), ctx.Queue()
        start = time.time() + 0.3
        procs = [ctx.Process(target=_open_at, args=(path, start, out)) for _ in range(2)]
        for p in procs:
            p.start()
        errors = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert errors == [None, None], errors

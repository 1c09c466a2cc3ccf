"""The result store refuses damage to every verb that would write into it, with the
message ``seprank results`` gives; read-only is told from corrupt by error codes, under
any locale; a sweep whose tasks another live sweep holds exits 1 saying so (or waits)."""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seprank.sweeps import store_health
from seprank.sweeps.store import Store
from tests.fuzz._cli import assert_one_line, run_cli

ROOT = Path(__file__).resolve().parents[2]
GRID = '[grid]\nname = "g"\n[params]\ndepth = [1]\nwidth = [2]\nseq_len = [4]\n'


@pytest.fixture
def store(tmp_path, capsys):
    g = tmp_path / "g.toml"
    g.write_text(GRID)
    db = tmp_path / "r.sqlite"
    rc, out, err = run_cli(capsys, "sweep", g, "--db", db, "--executor", "serial", "--quiet")
    assert rc == 0, err
    return g, db


def _damage(db: Path, how: str) -> None:
    with sqlite3.connect(db) as c:
        if how == "a row's JSON":
            c.execute("UPDATE tasks SET measurement = substr(measurement, 1, 20)")
        elif how == "a row's spec":
            c.execute("UPDATE tasks SET spec = '{\"key\": '")
        elif how == "bytes that are not UTF-8":
            c.execute("UPDATE tasks SET config = CAST(x'ff22fe' AS TEXT)")
    if how == "the file truncated":
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 2 + 100])
    if how == "a page overwritten":
        data = bytearray(db.read_bytes())
        data[4096:4096 + 200] = b"\xa5" * 200
        db.write_bytes(bytes(data))


DAMAGE = ["a row's JSON", "a row's spec", "bytes that are not UTF-8", "the file truncated",
          "a page overwritten"]


def _verbs(g, db):
    return {
        "sweep": ["sweep", g, "--db", db, "--executor", "serial", "--quiet"],
        "blocks": ["blocks", "--depth", "1", "--width", "2", "--seq-len", "4", "--db", db,
                   "--quiet"],
        "results": ["results", "--db", db],
    }


@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.parametrize("verb", ["sweep", "blocks", "results"])
def test_a_damaged_store_is_refused_by_every_verb(verb, how, store, capsys):
    g, db = store
    with sqlite3.connect(db) as c:  # the write-ahead log folded in first
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _damage(db, how)
    before = db.read_bytes()
    rc, out, err = run_cli(capsys, *_verbs(g, db)[verb])
    assert_one_line(rc, err, 2)
    assert "corrupt" in err or "not a seprank store" in err or "not an SQLite" in err, err
    assert db.read_bytes() == before  # not written


def test_every_verb_gives_the_same_message_for_one_damage(store, capsys):
    g, db = store
    _damage(db, "a row's JSON")
    errs = {v: run_cli(capsys, *argv)[2].strip() for v, argv in _verbs(g, db).items()}
    assert len(set(errs.values())) == 1, errs


def test_read_only_is_told_from_corrupt_by_its_code(tmp_path):
    ro = sqlite3.OperationalError("attempt to write a readonly database")
    ro.sqlite_errorname = "SQLITE_READONLY"
    msg = str(store_health.open_failure(ro, "db='x'", tmp_path / "x.sqlite"))
    assert "cannot be written" in msg and "corrupt" not in msg
    other = sqlite3.DatabaseError("file is not a database")
    other.sqlite_errorname = "SQLITE_NOTADB"
    assert "not a usable" in str(store_health.open_failure(other, "db='x'", tmp_path / "x"))
    denied = PermissionError(13, "Permission denied")
    assert "cannot be written" in str(store_health.open_failure(denied, "db='x'", tmp_path))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_folder_is_said_as_such(store, capsys):
    g, db = store
    os.chmod(db.parent, 0o555)
    try:
        rc, out, err = run_cli(capsys, *_verbs(g, db.parent / "new.sqlite")["sweep"])
        assert_one_line(rc, err, 2, "cannot be written")
    finally:
        os.chmod(db.parent, 0o755)


@pytest.mark.parametrize("env", [{"LC_ALL": "C", "LANG": "C"},
                                 {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                                  "PYTHONCOERCECLOCALE": "0"}])
def test_a_healthy_store_is_healthy_under_the_c_locale(env, store):
    g, db = store
    r = subprocess.run([sys.executable, "-m", "seprank", "results", "--db", str(db)],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    assert r.returncode == 0 and "corrupt" not in r.stderr, r.stderr


def _claim_elsewhere(db: Path, owner: str, heartbeat: float) -> None:
    with sqlite3.connect(db) as c:
        keys = [r[0] for r in c.execute("SELECT key FROM tasks")]
        c.execute("DELETE FROM tasks")
        c.executemany("INSERT INTO claims VALUES (?, ?, ?)",
                      [(k, owner, heartbeat) for k in keys])


def test_tasks_claimed_by_another_live_sweep_exit_1_saying_so(store, capsys):
    g, db = store
    _claim_elsewhere(db, "otherhost:4242:abcd", time.time() + 3600)
    rc, out, err = run_cli(capsys, "sweep", g, "--db", db, "--executor", "serial", "--quiet")
    assert_one_line(rc, err, 1, "1 task claimed by otherhost:4242, not finished")


def test_a_dead_sweeps_stale_claims_are_taken_over(store, capsys):
    g, db = store
    _claim_elsewhere(db, "otherhost:4242:abcd", 0.0)  # a heartbeat long stale
    rc, out, err = run_cli(capsys, "sweep", g, "--db", db, "--executor", "serial", "--quiet")
    assert rc == 0, err
    with Store(db) as s:
        assert s.count("done") == 1


def test_wait_looks_again_until_the_claims_go(store, capsys, monkeypatch):
    from seprank.cli import sweep as sweep_cli

    g, db = store
    _claim_elsewhere(db, "otherhost:4242:abcd", time.time() + 3600)
    looks = []

    def sleep(s):  # the other sweep dies after the first look: its claims go
        looks.append(s)
        with sqlite3.connect(db) as c:
            c.execute("DELETE FROM claims")

    monkeypatch.setattr(sweep_cli.time, "sleep", sleep)
    rc, out, err = run_cli(capsys, "sweep", g, "--db", db, "--executor", "serial", "--wait")
    assert rc == 0 and looks == [sweep_cli.WAIT_POLL_S], err
    assert "waiting for 1 task claimed by otherhost:4242" in err


def test_a_read_only_mount_is_said_as_such_not_corrupt(store, tmp_path, capsys):
    import shutil

    g, db = store
    disk = tmp_path / "ro"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs",
                                            str(disk)], capture_output=True).returncode:
        pytest.skip("needs root and a tmpfs mount (remounted read-only)")
    try:
        shutil.copy(db, disk / "r.sqlite")
        assert subprocess.run(["mount", "-o", "remount,ro", str(disk)]).returncode == 0
        for target in (disk / "r.sqlite", disk / "new.sqlite"):
            rc, out, err = run_cli(capsys, *_verbs(g, target)["sweep"])
            assert_one_line(rc, err, 2, "cannot be written")
            assert "corrupt" not in err
        assert run_cli(capsys, "results", "--db", disk / "r.sqlite")[0] == 0  # still read
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_link_beside_the_store_is_not_written_through(suffix, store, tmp_path, capsys):
    g, db = store
    victim = tmp_path / "victim"
    victim.write_text("precious")
    Path(f"{db}{suffix}").unlink(missing_ok=True)
    Path(f"{db}{suffix}").symlink_to(victim)
    rc, out, err = run_cli(capsys, *_verbs(g, db)["sweep"])
    assert_one_line(rc, err, 2, "is a link")
    assert victim.read_text() == "precious"


def test_a_nan_that_json_dumps_wrote_is_not_damage(tmp_path):
    """SQLite's json_valid refuses NaN, Python's json (which wrote it) reads it: healthy."""
    import json

    db = sqlite3.connect(tmp_path / "x.sqlite")
    db.execute("CREATE TABLE tasks (key TEXT, spec TEXT, config TEXT, measurement TEXT, "
               "extra TEXT, partition TEXT)")
    db.execute("INSERT INTO tasks VALUES ('k', '{}', '{}', ?, NULL, '[]')",
               (json.dumps({"saturation_bound": float("nan")}),))
    store_health.check_rows(db, "db='x'")  # no error
    db.execute("INSERT INTO tasks VALUES ('j', '{\"a\":', '{}', '{}', NULL, '[]')")
    with pytest.raises(Exception, match="row j: spec is not JSON"):
        store_health.check_rows(db, "db='x'")

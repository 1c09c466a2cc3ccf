"""Grid files are data read with bounds: a regular file only, its size and nesting checked
before parsing, its combinations counted before any is built, every value checked; a bad
or unrunnable grid exits 2 in one line and nothing is stored."""

import os
import time
from pathlib import Path

import pytest

from tests.fuzz._cli import assert_one_line, run_cli

GOOD = """[grid]
name = "g"
[params]
depth = [1]
width = [2]
seq_len = [4]
"""
PARAMS = "[grid]\nname = \"g\"\n{grid}[params]\n{params}\n"

GRIDS = {
    "exclude compares a string with numbers":
        GOOD + '[[exclude]]\ndepth = {min = 3}\nwidth = "abc"\n',
    "brackets nested 5000 deep": PARAMS.format(grid="", params="depth = " + "[" * 5000
                                               + "]" * 5000),
    "heads divisors of a huge width": PARAMS.format(
        grid="", params='depth = [1]\nwidth = [1000000000000]\nheads = "divisors"\n'
                        "seq_len = [4]"),
    "200,000 combinations": PARAMS.format(
        grid="", params=f"depth = {list(range(1, 201))}\nwidth = {list(range(1, 101))}\n"
                        f"seq_len = {list(range(2, 12))}"),
    "an unrunnable strategy": PARAMS.format(
        grid='arch = "mps"\nstrategies = ["catalecticant"]\nmethods = ["modular"]\n',
        params="seq_len = [4]\nphys_dim = [2]\nbond = [2]"),
    "not TOML": "[grid\nname = ",
    "not UTF-8": b"[grid]\nname = \"\xff\xfe\"\n",
    "a number for a list": GOOD.replace("depth = [1]", "depth = 1e400"),
    "a bool for a size": GOOD.replace("width = [2]", "width = [true]"),
    "a float for a size": GOOD.replace("width = [2]", "width = [2.5]"),
    "seeds a string": GOOD.replace('name = "g"', 'name = "g"\nseeds = "0"'),
    "unknown table": GOOD + "[other]\nx = 1\n",
    "empty": "",
    "over 1 MiB": GOOD + "# " + "x" * 2**20 + "\n",
}


def _sweep(capsys, path, tmp_path):
    db = tmp_path / "r.sqlite"
    t = time.perf_counter()
    rc, out, err = run_cli(capsys, "sweep", path, "--db", db, "--executor", "serial",
                           "--quiet")
    return rc, err, db, time.perf_counter() - t


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    import sqlite3

    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(*) FROM tasks").fetchone()[0]


@pytest.mark.parametrize("name", list(GRIDS))
def test_a_bad_grid_is_refused_whole_in_one_line(name, tmp_path, capsys):
    p = tmp_path / "g.toml"
    text = GRIDS[name]
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    rc, err, db, seconds = _sweep(capsys, p, tmp_path)
    if name == "exclude compares a string with numbers":  # matches nothing: it runs
        assert rc == 0 and _stored(db) == 1, err
        return
    assert_one_line(rc, err, 2, "grid")
    assert _stored(db) == 0 and seconds < 60


@pytest.mark.parametrize("kind", ["fifo", "folder", "/dev/zero", "/dev/urandom"])
def test_only_a_regular_grid_file_is_read(kind, tmp_path, capsys):
    if kind == "fifo":
        p = tmp_path / "g.toml"
        os.mkfifo(p)
    elif kind == "folder":
        p = tmp_path / "d.toml"
        p.mkdir()
    else:
        p = Path(kind)
        if not p.exists():
            pytest.skip(f"no {kind}")
    rc, err, db, seconds = _sweep(capsys, p, tmp_path)
    assert_one_line(rc, err, 2, "not a regular file")
    assert seconds < 10 and _stored(db) == 0


def test_a_user_class_without_width_is_refused(tmp_path, capsys, monkeypatch):
    (tmp_path / "nowidth_mod.py").write_text(
        "from dataclasses import dataclass\n\n"
        "@dataclass(frozen=True)\nclass NoWidth:\n    seq_len: int\n"
        "    def init(self, rng, domain):\n        return {}\n"
        "    def apply(self, params, X, domain):\n        return X[:, 0, 0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    p = tmp_path / "g.toml"
    p.write_text('[grid]\nname = "g"\narch = "nowidth_mod:NoWidth"\n[params]\nseq_len = [4]\n')
    rc, err, db, seconds = _sweep(capsys, p, tmp_path)
    assert_one_line(rc, err, 2, "lacks what an architecture has")
    assert _stored(db) == 0


def test_combinations_are_counted_before_they_are_built(monkeypatch):
    from seprank.sweeps import grid_file

    built = []
    monkeypatch.setattr(grid_file.grid_check, "check_combos",
                        lambda grid, cls, combos, name: built.append(len(combos)))
    grid = {"params": {"depth": list(range(1, 300)), "width": list(range(1, 300))},
            "exclude": [], "grid": {}}
    with pytest.raises(Exception, match="at most 20,000"):
        grid_file.grid_check.check_values(grid, __import__("seprank").LinearSelfAttention,
                                          grid_file.iter_combos, "g")
    assert built == []  # refused before a network was built
    assert sum(1 for _ in grid_file.iter_combos(grid)) == 299 * 299  # made lazily

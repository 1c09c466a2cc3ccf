"""Issue 24, item 1 for grid files: a grid with one bad value is refused whole, before
anything runs or is stored: exit 2, one line naming the key, no store, no folder."""

from __future__ import annotations

import os

import pytest

from seprank.cli import main

BASE = """[grid]
name = "t"
methods = ["modular"]
{grid}
[params]
depth = {depth}
width = {width}
seq_len = [4]
{params}
{extra}
"""


#: A size refused from the estimate: by memory or by time, whichever this machine hits first.
TOO_BIG = (" GiB, over the ", "even the first 16x16 grid would take", "too slow to compute")


def grid(grid="", depth="[1]", width="[2]", params="", extra=""):
    return BASE.format(grid=grid, depth=depth, width=width, params=params, extra=extra)


CASES = [
    # wrong types in [grid]
    (grid(grid='arch = ["attention"]'), "[grid] arch must be a string"),
    (grid().replace('name = "t"', "name = 5"), "[grid] name must be a string"),
    (grid(grid='max_bound = "big"'), "[grid] max_bound must be an integer"),
    (grid(grid="max_bound = -1"), "[grid] max_bound must be in"),
    (grid(grid="max_samples = -5"), "[grid] max_samples"),
    (grid(grid="max_samples = 2.5"), "[grid] max_samples"),
    (grid(grid='seeds = ["a"]'), "[grid] seeds: seed='a' must be an integer in"),
    (grid(grid="seeds = [-1]"), "[grid] seeds: seed=-1 must be an integer in"),
    (grid(grid="seeds = [true]"), "[grid] seeds: seed=True must be an integer in"),
    (grid(grid="seeds = [9223372036854775808]"), None),  # TOML itself refuses > int64
    (grid(grid="seeds = []"), "[grid] seeds is an empty list"),
    (grid(grid="primes = [15]"), "[grid] primes: prime=15 must be a prime in"),
    (grid(grid="primes = [4294967311]"), "[grid] primes: prime=4294967311 must be a prime in"),
    (grid().replace('"modular"', '"banana"'), "[grid] methods: method='banana' must be one of"),
    (grid(grid='strategies = ["fast"]'), "[grid] strategies: strategy='fast' must be one of"),
    (grid(grid="partitions = [[0, 9]]"), "out of range"),
    (grid(grid="partitions = [[0, 0]]"), "distinct positions"),
    (grid(grid="partitions = [[-1]]"), "[grid] partitions"),
    (grid(grid='partitions = ["first"]'), "[grid] partitions"),
    # wrong tables
    ("grid = 5\n[params]\ndepth = [1]\n", "grid must be a [grid] table"),
    ('params = 7\n[grid]\nname = "x"\n', "params must be a [params] table"),
    ("exclude = 3\n" + grid(), "exclude must be [[exclude]] tables"),
    ("", "file is empty"),
    ('[grid]\nname = "x"\n', "[params] is missing or empty"),
    # [params] values: type, range, nesting, combinations
    (grid(depth='["1"]'), "[params] depth value '1' (str) must be an integer"),
    (grid(depth="[1.5]"), "[params] depth value 1.5 (float)"),
    (grid(depth="[true]"), "[params] depth value True (bool)"),
    (grid(depth="[-1]"), "depth=-1 must be >= 1"),
    (grid(depth="[[1, 2]]"), "[params] depth value [1, 2] (list)"),
    (grid(depth="[]"), "[params] depth is an empty list"),
    (grid(depth="[9223372036854775807]"), TOO_BIG),
    (grid(width="[1000000000]"), TOO_BIG),
    (grid(width="[0]", params='heads = "divisors"'), "no combination left"),
    (grid(width="[3]", params="heads = [2]"), "heads=2 must divide width=3"),
    (grid(params="residual = [2]"), "[params] residual value 2 (int) must be true or false"),
    (grid(params="colour = [1]"), "not a parameter"),
    (grid(depth=str(list(range(1, 401))), width=str(list(range(2, 402)))),
     "combinations, at most"),
    # [[exclude]] values
    (grid(extra='[[exclude]]\ndepth = {min = "a"}'), "[[exclude]] depth.min must be an integer"),
    (grid(extra="[[exclude]]\ndepth = {least = 1}"), "[[exclude]] depth must be"),
    (grid(extra="[[exclude]]\ndepth = 1.5"), "[[exclude]] depth must be"),
    (grid(extra="[[exclude]]\ndepth = [[1]]"), "[[exclude]] depth must list plain values"),
    (grid(extra="[[exclude]]\ncolour = 1"), "not a parameter"),
]


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, ds, fs in os.walk(root)
                  for f in fs + ds)  # files and folders


def _refused(path, tmp_path, capsys, words):
    before = _files(tmp_path)
    rc = main(["sweep", str(path), "--out", str(tmp_path / "out"), "--executor", "serial",
               "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "Traceback" not in err[0], err
    if words is not None:
        alternatives = words if isinstance(words, tuple) else (words,)
        assert any(w in err[0] for w in alternatives), err[0]
    assert _files(tmp_path) == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, words", CASES, ids=[str(w or "toml")[:40] for _, w in CASES])
def test_bad_grid_refused_whole_nothing_stored(text, words, tmp_path, capsys):
    p = tmp_path / "g.toml"
    p.write_text(text)
    _refused(p, tmp_path, capsys, words)


def test_binary_grid_file(tmp_path, capsys):
    p = tmp_path / "g.toml"
    p.write_bytes(bytes(range(256)) * 4)
    _refused(p, tmp_path, capsys, "is not valid TOML")


def test_max_bound_leaving_out_everything_is_refused(tmp_path, capsys):
    p = tmp_path / "g.toml"
    p.write_text(grid(grid="max_bound = 0"))
    _refused(p, tmp_path, capsys, "no task to run")


def test_shipped_grids_pass_the_checks():
    from seprank.sweeps.grid_file import read_grid, shipped_grid

    for name in ("example", "verify-quick", "verify-default"):
        read_grid(shipped_grid(name))

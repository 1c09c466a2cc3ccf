"""Issue 24, item 1: every bad argument of the 12 sub-commands is refused before any work:
exit 2, one line on stderr naming the argument, no traceback, within seconds, nothing
written. Each class of the issue's examples has cases here (the class, not only the example)."""

from __future__ import annotations

import os
import sqlite3
import time

import pytest

from seprank.cli import main

NET = ["--width", "2", "--seq-len", "4"]
M = ["measure", "--depth", "1", *NET]
#: A size refused from the estimate: by memory or by time, whichever this machine hits first.
TOO_BIG = (" GiB, over the ", "even the first 16x16 grid would take", "too slow to compute")

CASES = [
    # measure: primes a strategy asked for cannot use, or not primes, or too large (a prime
    # below what saturation needs is measured and labelled, as in the API: the table's tests)
    (["measure", "--prime", "5", "--depth", "2", *NET, "--strategy", "graded"],
     "prime=5 is too small for graded measurement of degree 9"),
    ([*M, "--prime", "4"], "argument --prime: prime=4 must be a prime in [2, 2**31-1]"),
    ([*M, "--prime", "4294967311"], "--prime"),
    ([*M, "--prime", "1e9"], "--prime"),
    # measure: sizes beyond what can finish, refused from an estimate
    (["measure", "--depth", "1", "--width", "2", "--seq-len", "100000000"], TOO_BIG),
    (["measure", "--depth", "99999999999999999999", *NET], "--depth"),
    (["measure", "--depth", "9999999999999999", *NET], TOO_BIG),
    (["measure", "--depth", "1", "--width", "1000000000", "--seq-len", "4"], TOO_BIG),
    (["measure", "--depth", "1", "--width", "100000", "--seq-len", "4"], "width"),
    (["measure", "--depth", "0", *NET], "--depth"),
    (["measure", "--depth", "1.5", *NET], "--depth"),
    (["measure", "--depth", "-1", *NET], "--depth"),
    ([*M, "--heads", "3"], "heads=3 must divide width=2"),
    ([*M, "--max-samples", "-3"], "--max-samples"),
    ([*M, "--max-samples", "100000000000"], "--max-samples"),
    ([*M, "--saturation-threshold", "nan"], "--saturation-threshold"),
    ([*M, "--saturation-threshold", "2"], "--saturation-threshold"),
    ([*M, "--confirm", "1000000000"], "--confirm"),
    ([*M, "--seed", "-1"], "--seed"),
    ([*M, "--seed", "1" + "0" * 30], "--seed"),
    ([*M, "--partition", "9"], "partition"),
    ([*M, "--partition", "0,0"], "partition"),
    ([*M, "--partition", "1e3"], "--partition"),
    ([*M, "--output-coord", "-1"], "--output-coord"),
    ([*M, "--query-position", "99"], "query_position"),
    ([*M, "--method", "banana"], "method"),
    ([*M, "--rank-engine", "nope"], "rank_engine"),
    ([*M, "--arch", "nope"], "arch"),
    # bounds: depth and digits beyond what the exact bound can compute
    (["bounds", "--depth", "10001", *NET], "depth=10001 is too deep"),
    (["bounds", "--depth", "1000000", "--width", "1000", "--seq-len", "2000"], "too deep"),
    (["bounds", "--depth", "x", *NET], "--depth"),
    (["bounds", "--depth", "1", "--width", "2", "--seq-len", "4", "--partition", "5"],
     "partition"),
    # guide: non-finite, absurd or out-of-range numbers
    (["guide", "--depth", "1e300", "--width", "1e300"], "--depth"),
    (["guide", "--depth", "nan", "--width", "3"], "--depth"),
    (["guide", "--params", "1e-300"], "outside the fit's range"),
    (["guide", "--params", "inf"], "--params"),
    (["guide", "--params", "-5"], "--params"),
    (["guide", "--depth", "1", "--width", "1"], "params (12 depth width^2)"),
    (["guide"], "depth"),
    # certify: the same argument types
    (["certify", "--prime", "4", "--depth", "1", *NET, "--out", "c"], "--prime: prime=4"),
    (["certify", "--depth", "1", *NET, "--max-samples", "0", "--out", "c"], "--max-samples"),
    (["certify", "--depth", "1", "--width", "0", "--seq-len", "4", "--out", "c"], "--width"),
    # sweep, verify, transition, figures, experiment, results, archs: options
    (["sweep", "example", "--workers", "0"], "--workers"),
    (["sweep", "example", "--retries", "1000"], "--retries"),
    (["sweep", "example", "--worker-memory", "inf"], "--worker-memory"),
    (["blocks", "--depth", "2", "--width", "3", "--seq-len", "4"], "needs at least width=3"),
    (["blocks", "--depth", "2", *NET, "--prime", "3"], "prime"),
    (["blocks", "--depth", "2", *NET, "--max-blocks", "-1"], "--max-blocks"),
    (["sweep", "example", "--worker-memory", "nan"], "--worker-memory"),
    (["sweep", "example", "--worker-timeout", "0"], "--worker-timeout"),
    (["sweep", "example", "--seeds", "a,b"], "seeds="),
    (["sweep", "example", "--seeds", "99999999999999999999999"], "seeds="),
    (["sweep", "no-such-grid"], "not a shipped grid"),
    (["verify", "--quick", "--workers", "-2"], "--workers"),
    (["verify", "--quick", "--seed", "x"], "--seed"),
    (["transition", "--plot-only", "--out", "t", "--csv", "missing.csv"], "does not exist"),
    (["transition", "--csv", "x.csv", "--out", "t"], "only with --plot-only"),
    (["transition", "--max-bound", "-1"], "--max-bound"),
    (["study", "--vary", "depth=3:1"], "depth"),
    (["study", "--vary", "width=2,3"], "varies the depth"),
    (["study", "--vary", "depth=1:2", "--rule", "seq_len=__import__('os')"], "rule"),
    (["study", "--vary", "depth=1:2", "--param", "width=2", "--vary", "width=3"],
     "both varied and fixed"),
    (["study", "--vary", "depth=1:2", "--arch", "no-such-arch"], "arch="),
    (["study", "--plot-only", "--out", "t", "--csv", "missing.csv"], "does not exist"),
    (["study", "--csv", "x.csv", "--vary", "depth=1"], "only with --plot-only"),
    (["study", "--vary", "depth=1:2", "--param", "width=2", "--pdf"], "--pdf"),
    (["study", "--vary", "depth=1:2", "--max-seconds", "-1"], "--max-seconds"),
    (["results", "--db", "missing.sqlite"], "does not exist"),
    (["results", "--format", "xml"], "--format"),
    (["archs", "--bogus"], "unrecognized"),
    (["figures", "--out", "/dev/null/x"], "not a writable folder"),
    (["figures", "--quick", "--db", "/dev/null"], "not a seprank store"),
    (["check-certificate", "missing.json"], "cannot be read"),
]


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, ds, fs in os.walk(root)
                  for f in fs + ds)  # files and folders


def run_refused(argv, tmp_path, capsys, words=None):
    """Run ``argv`` in tmp_path; assert a clean refusal (exit 2, one line, nothing written)."""
    before = _files(tmp_path)
    t0 = time.monotonic()
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    took = time.monotonic() - t0
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert rc == 2, (argv, rc, err)
    assert len(lines) == 1 and lines[0].startswith("seprank: error: "), err
    assert "Traceback" not in err and took < 10
    if words is not None:
        alternatives = words if isinstance(words, tuple) else (words,)
        assert any(w in lines[0] for w in alternatives), lines[0]
    assert _files(tmp_path) == before, "a refusal wrote a file"
    return lines[0]


@pytest.mark.parametrize("argv, words", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_bad_argument_refused_before_any_work(argv, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_refused(argv, tmp_path, capsys, words)


def test_every_subcommand_has_a_refusal_case():
    from seprank.cli import COMMANDS

    assert {a[0] for a, _ in CASES} == set(COMMANDS)


@pytest.mark.parametrize("text, words", [
    ("", "holds no rows"),
    ("a,b\n1,2\n", "no column 'width'"),
    ("\x00\xff garbage", None),
])
def test_transition_plot_only_with_a_bad_csv(text, words, tmp_path, capsys, monkeypatch):
    from seprank.studies import transition

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / transition.CSV_NAME).write_bytes(text.encode("latin-1"))
    run_refused(["transition", "--plot-only", "--out", "t"], tmp_path, capsys, words)


def test_transition_plot_only_with_a_garbage_value(tmp_path, capsys, monkeypatch):
    from seprank.studies import transition

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t").mkdir()
    row = {c: "1" for c in transition.COLUMNS} | {"measured": "lots"}
    (tmp_path / "t" / transition.CSV_NAME).write_text(",".join(row) + "\n"
                                                      + ",".join(row.values()) + "\n")
    run_refused(["transition", "--plot-only", "--out", "t"], tmp_path, capsys, "measured")


def test_bounds_at_depth_10000_prints_without_a_traceback(capsys):
    assert main(["bounds", "--depth", "10000", *NET]) == 0
    out, err = capsys.readouterr()
    assert "degree 3^L = 3^10000" in out and err == ""


def test_bounds_json_at_depth_10000_is_json(capsys):
    import json

    assert main(["bounds", "--depth", "10000", *NET, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["output_degree"] is None and d["log10_upper"] > 0


def test_foreign_store_refused_by_every_verb_that_opens_one(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = sqlite3.connect(tmp_path / "f.sqlite")
    db.execute("CREATE TABLE tasks (id INTEGER)")
    db.commit()
    db.close()
    raw = (tmp_path / "f.sqlite").read_bytes()
    for argv in (["results", "--db", "f.sqlite"], ["sweep", "example", "--db", "f.sqlite"],
                 ["verify", "--quick", "--db", "f.sqlite", "--out", "v"],
                 ["transition", "--quick", "--db", "f.sqlite", "--out", "t"],
                 ["figures", "--quick", "--db", "f.sqlite", "--out", "g"]):
        run_refused(argv, tmp_path, capsys, "not a seprank store")
    assert (tmp_path / "f.sqlite").read_bytes() == raw

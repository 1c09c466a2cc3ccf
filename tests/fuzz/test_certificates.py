"""Tampered and crafted certificates: none is accepted, a malformed one exits 2 in one
line (a false one 1, with its reasons), and checking costs what the claim is worth: the
claimed sizes are estimated against a budget (memory, seconds) before anything is built."""

import copy
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

import seprank
from seprank.errors import ConfigError
from seprank.verdicts import certificate_schema
from seprank.verdicts.certificate_schema import Budget, OverBudgetError
from tests.fuzz._cli import assert_one_line, run_cli

ROOT = Path(__file__).resolve().parents[2]
BIG = 16384  # one claimed 16384 x 16384 minor: 61 s and 4.3 GB before the budget


def _set(path, value):
    def edit(c):
        *head, last = path
        d = c
        for k in head:
            d = d[k]
        d[last] = value(d[last]) if callable(value) else value

    return edit


def _crafted(c):
    c["blocks"] = [{"degree": None, "rank": BIG, "rows": list(range(BIG)),
                    "cols": list(range(BIG))}]
    c["rank"] = BIG
    c["draws"] = [["A", BIG, 2], ["B", BIG, 2]]


#: name -> (edit, exit code of check-certificate): 1 false (its reasons), 2 malformed,
#: refused or over the budget (one line).
TAMPERED = {
    "rank + 1": (_set(["rank"], lambda v: v + 1), 1),
    "block rank + 1": (_set(["blocks", 0, "rank"], lambda v: v + 1), 1),
    "another seed": (_set(["seed"], 1), 1),
    "another prime": (_set(["prime"], 65521), 1),
    "upper bound below the rank": (_set(["upper_bound"], 1), 1),
    "upper bound above, still exact": (_set(["upper_bound"], 3), 1),
    "exact false": (_set(["exact"], False), 1),
    "claim edited": (_set(["claim"], "sep >= 2"), 1),
    "upper source edited": (_set(["upper_source"], "my own proof"), 1),
    "another format": (_set(["format"], "seprank-certificate/2"), 1),
    "rows repeated": (_set(["blocks", 0, "rows"], [0, 0]), 1),
    "partition out of range": (_set(["partition"], [0, 5]), 2),
    "seq_len 2**62": (_set(["config", "seq_len"], 2**62), 2),
    "bond 2**40": (_set(["config", "bond"], 2**40), 2),
    "rank a bool": (_set(["rank"], True), 2),
    "rank a string": (_set(["rank"], "2"), 2),
    "prime not prime": (_set(["prime"], 67108860), 2),
    "seed negative": (_set(["seed"], -1), 2),
    "unknown field": (lambda c: c.update(extra=1), 2),
    "field missing": (lambda c: c.pop("blocks"), 2),
    "sha not hex": (_set(["weights_sha256"], "zz"), 2),
    "unknown strategy": (_set(["strategy"], "nope"), 2),
    "a module named": (_set(["architecture"], "elsewhere:Net"), 2),
    "huge draws": (_set(["draws"], [["A", 2**31, 10**6], ["B", 16, 2]]), 2),
    "one 16384 x 16384 minor": (_crafted, 2),
    "upper source 10001 chars": (_set(["upper_source"], "x" * 10_001), 2),
}


@pytest.mark.parametrize("name", list(TAMPERED))
def test_a_tampered_certificate_is_never_accepted(name, mps_certificate, tmp_path, capsys):
    edit, code = TAMPERED[name]
    cert = copy.deepcopy(mps_certificate)
    edit(cert)
    try:
        assert not seprank.check_certificate(copy.deepcopy(cert)).ok
    except ConfigError:  # not checkable here (refused, over budget): no verdict either
        pass
    p = tmp_path / "c.json"
    p.write_text(json.dumps(cert))
    t = time.perf_counter()
    rc, out, err = run_cli(capsys, "check-certificate", p)
    assert time.perf_counter() - t < 30
    if code == 2:
        assert_one_line(rc, err, 2)
    else:
        assert rc == 1 and err.startswith("INVALID certificate:") and "Traceback" not in err


def test_the_untouched_certificate_is_valid(mps_certificate, tmp_path, capsys):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(mps_certificate))
    assert run_cli(capsys, "check-certificate", p)[0] == 0


TEXTS = {
    "a repeated key": lambda t: t.replace('"seed": 0', '"seed": 0, "seed": 1', 1),
    "nested 5000 deep": lambda t: t[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}",
    "not JSON": lambda t: t[: len(t) // 2],
    "empty": lambda t: "",
    "binary": lambda t: "\x00\xff" * 100,
    "a list": lambda t: "[" + t + "]",
}


@pytest.mark.parametrize("name", list(TEXTS))
def test_a_malformed_file_exits_2_in_one_line(name, mps_certificate, tmp_path, capsys):
    p = tmp_path / "c.json"
    p.write_text(TEXTS[name](json.dumps(mps_certificate)), errors="surrogateescape")
    rc, out, err = run_cli(capsys, "check-certificate", p)
    assert_one_line(rc, err, 2, "certificate")


def _special(kind, tmp_path):
    if kind == "fifo":
        p = tmp_path / "c.json"
        os.mkfifo(p)
        return p
    if kind == "folder":
        return tmp_path
    return Path(kind)


@pytest.mark.parametrize("kind", ["fifo", "folder", "/dev/zero", "/dev/urandom", "missing"])
def test_only_a_regular_file_is_read(kind, tmp_path, capsys):
    if kind.startswith("/dev/") and not Path(kind).exists():
        pytest.skip(f"no {kind}")
    p = tmp_path / "nope.json" if kind == "missing" else _special(kind, tmp_path)
    t = time.perf_counter()
    rc, out, err = run_cli(capsys, "check-certificate", p)
    assert_one_line(rc, err, 2, "certificate: file")
    assert time.perf_counter() - t < 10  # a FIFO is not waited on


def test_the_budget_is_checked_before_anything_is_built(mps_certificate):
    cert = copy.deepcopy(mps_certificate)
    _crafted(cert)
    t = time.perf_counter()
    with pytest.raises(OverBudgetError, match=r"minors up to 16384 x 16384.*over the budget"):
        seprank.check_certificate(cert)
    assert time.perf_counter() - t < 10
    with pytest.raises(OverBudgetError):  # a smaller budget refuses the honest one too
        seprank.check_certificate(mps_certificate, budget=Budget(bytes=100, seconds=1))
    assert seprank.check_certificate(mps_certificate, budget=Budget(bytes=2**30)).ok


def test_the_budget_flags_refuse_and_raise(mps_certificate, tmp_path, capsys):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(mps_certificate))
    rc, out, err = run_cli(capsys, "check-certificate", p, "--max-memory", "100b")
    assert_one_line(rc, err, 2, "over the budget")
    assert run_cli(capsys, "check-certificate", p, "--max-memory", "4GiB",
                   "--max-seconds", "1000")[0] == 0


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as Linux has it")
def test_a_crafted_certificate_under_a_memory_cap_is_refused_in_one_line(mps_certificate,
                                                                         tmp_path):
    cert = copy.deepcopy(mps_certificate)
    _crafted(cert)
    p = tmp_path / "crafted.json"
    p.write_text(json.dumps(cert))
    cap = 3 * 2**30  # the interpreter, numpy and flint fit; a 16384^2 minor would not

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    r = subprocess.run([sys.executable, "-m", "seprank", "check-certificate", str(p)],
                       capture_output=True, text=True, timeout=120, preexec_fn=limit,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert_one_line(r.returncode, r.stderr, 2, "over the budget")


def test_certify_never_writes_what_the_checker_refuses(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "certify", "--arch", "mps", "--param", "seq_len=4",
                           "--param", "phys_dim=2", "--param", "bond=2", "--upper", "2",
                           "--upper-source", "x" * 10_001, "--out", tmp_path / "c")
    assert_one_line(rc, err, 2, "upper_source is 10001 characters")
    assert not (tmp_path / "c").exists() or not list((tmp_path / "c").iterdir())


def test_validate_is_what_write_checks(mps_certificate):
    certificate_schema.validate(mps_certificate)  # the written one passes the schema
    bad = dict(mps_certificate, claim="x" * 10_001)
    with pytest.raises(ConfigError, match="claim is 10001 characters"):
        certificate_schema.validate(bad)

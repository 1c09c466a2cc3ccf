"""Issue 24, item 6: fuzzing the CLI arguments, grid files and certificate edits.

The property, for every input: the exit code is one the CLI documents (0, 1 or 2), no
exception escapes (no traceback), it finishes within a bound, and a refusal (exit 2)
writes no file; a certificate is accepted only if what it claims (rank, exactness) is
what the unedited one proves. A short run by default (about half a minute);
``SEPRANK_THOROUGH=1`` runs ten times as many examples.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seprank.cli import main

THOROUGH = os.environ.get("SEPRANK_THOROUGH") == "1"
LIMIT_S = 20  # a hang fails the example


def _settings(n: int):
    return settings(max_examples=n * (10 if THOROUGH else 1), deadline=None, derandomize=not
                    THOROUGH, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def _files(root) -> list:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, ds, fs in os.walk(root)
                  for f in fs + ds)  # files and folders


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def run_cli(argv, folder) -> tuple[int, str]:
    """Run the CLI in ``folder``; assert the property; return (exit code, stderr)."""
    before, cwd = _files(folder), os.getcwd()
    err = io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT_S)
    try:
        os.chdir(folder)
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code
    except _Hang:
        pytest.fail(f"{argv} ran past {LIMIT_S} s")
    except BaseException as exc:  # a traceback
        pytest.fail(f"{argv} raised {type(exc).__name__}: {exc}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        os.chdir(cwd)
    assert rc in (0, 1, 2), (argv, rc)
    assert "Traceback" not in err.getvalue()
    if rc == 2:
        assert err.getvalue().strip().count("\n") == 0, err.getvalue()
        assert _files(folder) == before, f"{argv}: a refusal wrote a file"
    return rc, err.getvalue()


# --------------------------------------------------------------------------- arguments
VALUES = st.sampled_from(["0", "1", "2", "3", "4", "-1", "1.5", "nan", "inf", "-inf", "1e400",
                          "9" * 25, "", "x", "0,1", "0,0", "0,9", "4GiB", "1e-300", "17",
                          "2147483647", "67108859"])
#: Options of each verb (the values are fuzzed). Verbs that would run a real grid
#: (verify, transition, figures, sweep of a shipped grid, experiment) always get one
#: value that is out of range among them, so they are refused or fail, never run long.
SMALL_NET = {"--depth": ("1", "2"), "--width": ("1", "2"), "--seq-len": ("2", "3", "4")}
OPTIONS = {
    "measure": ["--depth", "--width", "--seq-len", "--heads", "--prime", "--seed",
                "--max-samples", "--partition", "--output-coord", "--query-position",
                "--saturation-threshold", "--confirm", "--method", "--strategy"],
    "bounds": ["--depth", "--width", "--seq-len", "--heads", "--partition"],
    "certify": ["--depth", "--width", "--seq-len", "--heads", "--prime", "--seed",
                "--max-samples", "--partition"],
    "guide": ["--params", "--depth", "--width"],
    "results": ["--where"],
    "check-certificate": [],
}
HEAVY = {"verify": ["--seed", "--workers", "--retries", "--worker-memory"],
         "transition": ["--seed", "--max-bound", "--workers", "--retries"],
         "figures": ["--out"],
         "sweep": ["--workers", "--retries", "--worker-memory", "--max-tasks", "--seeds",
                   "--worker-timeout"]}
BAD = {"--seed": "-1", "--workers": "0", "--retries": "-1", "--worker-memory": "nan",
       "--max-bound": "x", "--out": "/dev/null/x", "--max-tasks": "-1", "--seeds": "x",
       "--worker-timeout": "0"}


@st.composite
def argvs(draw):
    verb = draw(st.sampled_from(sorted(OPTIONS) + sorted(HEAVY)))
    argv = [verb]
    if verb in HEAVY:
        opts = HEAVY[verb]
        bad = draw(st.sampled_from(opts))
        argv += ["example"] if verb == "sweep" else []
        argv += [bad, BAD[bad]] + (["--quick"] if verb in ("verify", "transition") else [])
        others = [o for o in opts if o != bad]  # the bad value is never overridden
        for o in draw(st.lists(st.sampled_from(others), max_size=3)) if others else []:
            argv += [o, draw(VALUES)]
        return argv
    if verb == "check-certificate":
        return argv + [draw(st.sampled_from(["none.json", "/dev/null", ".", ""]))]
    for o in draw(st.lists(st.sampled_from(OPTIONS[verb]), max_size=5)):
        small = SMALL_NET.get(o)
        argv += [o, draw(st.sampled_from(small) if small and draw(st.booleans()) else VALUES)]
    if verb in ("measure", "certify") and "--depth" in argv:
        argv += ["--max-samples", "40", "--out", "c"] if verb == "certify" else \
            ["--max-samples", "40"]
    return argv + (["--quiet"] if verb in ("measure", "certify") else [])


@_settings(60)
@given(argv=argvs())
def test_fuzzed_arguments(argv, tmp_path):
    run_cli(argv, tmp_path)


# --------------------------------------------------------------------------- grid files
SCALARS = st.one_of(st.integers(-3, 5), st.booleans(), st.sampled_from(["a", "divisors", ""]),
                    st.floats(allow_nan=False, allow_infinity=False, width=16),
                    st.just(2**63 - 1), st.just(10**9))
VALUES_TOML = st.one_of(SCALARS, st.lists(SCALARS, max_size=3),
                        st.lists(st.lists(st.integers(0, 3), max_size=2), max_size=2))


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return json.dumps(v)


@st.composite
def grids(draw):
    g = {"name": '"fz"', "methods": '["modular"]'}
    for k in draw(st.lists(st.sampled_from(["seeds", "primes", "max_samples", "max_bound",
                                            "partitions", "methods", "strategies", "task",
                                            "arch"]), max_size=3, unique=True)):
        g[k] = _toml(draw(VALUES_TOML))
    p = {"depth": "[1]", "width": "[2]", "seq_len": "[4]"}
    for k in draw(st.lists(st.sampled_from(["depth", "width", "seq_len", "heads",
                                            "residual", "colour"]), max_size=2, unique=True)):
        p[k] = _toml(draw(VALUES_TOML))
    text = "[grid]\n" + "".join(f"{k} = {v}\n" for k, v in g.items())
    text += "[params]\n" + "".join(f"{k} = {v}\n" for k, v in p.items())
    if draw(st.booleans()):
        text += f"[[exclude]]\ndepth = {_toml(draw(VALUES_TOML))}\n"
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]  # a cut file
    return text


@_settings(25)
@given(text=grids())
def test_fuzzed_grid_files(text, tmp_path_factory):
    folder = tmp_path_factory.mktemp("grid")
    (folder / "g.toml").write_text(text)
    rc, err = run_cli(["sweep", "g.toml", "--executor", "serial", "--quiet", "--max-tasks",
                       "2", "--out", "o"], folder)
    if rc == 2:
        assert not (folder / "o").exists()


# --------------------------------------------------------------------------- certificates
@pytest.fixture(scope="module", params=["catalecticant", "grid"])
def certificate(request):
    """Both kinds: coefficient minors (what certify takes here) and grid minors."""
    from seprank.nets import LinearSelfAttention
    from seprank.verdicts.certificates import certify

    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    cert = certify(net, grid=request.param == "grid").certificate
    assert cert["strategy"] == ("catalecticant" if request.param == "catalecticant" else "graded")
    return cert


JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2, 20),
                              st.integers(), st.floats(), st.text(max_size=5)),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3),
                                                                         c, max_size=2),
                    max_leaves=6)


@st.composite
def edits(draw, cert):
    c = copy.deepcopy(cert)
    for _ in range(draw(st.integers(1, 2))):
        where = draw(st.sampled_from(sorted(c) + ["blocks.0", "draws.0", "config.depth",
                                                  "new_key"]))
        value = draw(JSON)
        if where == "blocks.0":
            c["blocks"][0][draw(st.sampled_from(sorted(c["blocks"][0])))] = value
        elif where == "draws.0":  # a catalecticant certificate has none: add one
            if isinstance(c.get("draws"), list) and c["draws"]:
                c["draws"][0] = value
            else:
                c["draws"] = [value]
        elif where == "config.depth":
            c["config"]["depth"] = value
        elif draw(st.integers(0, 5)) == 0:
            c.pop(where, None)
        else:
            c[where] = value
    return c


@_settings(30)
@given(data=st.data())
def test_fuzzed_certificate_edits(certificate, data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cert")
    bad = data.draw(edits(certificate))
    (folder / "c.json").write_text(json.dumps(bad, default=str))
    rc, _ = run_cli(["check-certificate", "c.json"], folder)
    if rc == 0:  # accepted only if what it claims is what the unedited one proves
        assert bad["rank"] == certificate["rank"] and bad["exact"] == certificate["exact"]
        assert bad["blocks"] == certificate["blocks"] or all(
            b["rank"] == 0 for b in bad["blocks"])

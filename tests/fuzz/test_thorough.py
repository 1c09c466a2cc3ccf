"""The longer corpus (SEPRANK_THOROUGH=1): hypothesis generates grid files, certificates
and argument vectors; each case keeps the contract the parametrised files check: a
documented exit code, one line on a refusal, no traceback, and no tampered certificate
accepted. Skipped in the default run."""

import copy
import json
import os

import pytest

from tests.fuzz._cli import run_cli

THOROUGH = os.environ.get("SEPRANK_THOROUGH") == "1"
pytestmark = pytest.mark.skipif(not THOROUGH, reason="the long corpus: SEPRANK_THOROUGH=1")

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies
from hypothesis import HealthCheck, given, settings  # noqa: E402

SETTINGS = settings(max_examples=int(os.environ.get("SEPRANK_FUZZ_EXAMPLES", "300")),
                    deadline=None, derandomize=False,
                    suppress_health_check=list(HealthCheck))

# ---------------------------------------------------------------------------- values
ints = st.one_of(st.integers(-3, 12), st.sampled_from([0, 2**31, 2**62, 2**63 - 1, -(2**63),
                                                       10**30]))
scalars = st.one_of(ints, st.booleans(), st.floats(allow_nan=False, width=32),
                    st.text(max_size=8), st.just("divisors"), st.just("default"))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=12)


def toml(v) -> str:
    """A TOML literal (inline tables for dicts)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v) if not isinstance(v, float) or v == v else "nan"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml(x)}" for k, x in v.items()) + "}"
    return "[" + ", ".join(toml(x) for x in v) + "]"


GRID_KEYS = ["name", "task", "arch", "methods", "strategies", "seeds", "primes",
             "max_samples", "max_bound", "partitions", "colour"]
PARAM_KEYS = ["depth", "width", "heads", "seq_len", "residual", "query_position", "bond"]


@st.composite
def grid_files(draw) -> str:
    g = draw(st.dictionaries(st.sampled_from(GRID_KEYS), values, max_size=4))
    g.setdefault("name", "fz")
    p = draw(st.dictionaries(st.sampled_from(PARAM_KEYS), values, min_size=0, max_size=5))
    ex = draw(st.lists(st.dictionaries(st.sampled_from(PARAM_KEYS), st.one_of(
        values, st.fixed_dictionaries({"min": ints}, optional={"max": ints}))), max_size=2))
    text = "[grid]\n" + "".join(f"{k} = {toml(v)}\n" for k, v in g.items())
    text += "[params]\n" + "".join(f"{k} = {toml(v)}\n" for k, v in p.items())
    for rule in ex:
        text += "[[exclude]]\n" + "".join(f"{k} = {toml(v)}\n" for k, v in rule.items())
    return text


def _contract(rc, err, codes=(0, 1, 2)):
    assert rc in codes, (rc, err)
    assert "Traceback" not in err, err
    if rc == 2:
        assert len(err.strip().splitlines()) == 1, err


@SETTINGS
@given(text=grid_files())
def test_generated_grid_files(text, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("grid")
    (d / "g.toml").write_text(text)
    rc, out, err = run_cli(capsys, "sweep", d / "g.toml", "--db", d / "r.sqlite", "--executor",
                           "serial", "--quiet", "--max-tasks", "0")
    _contract(rc, err, (0, 2))
    if rc == 2 and (d / "r.sqlite").exists():
        import sqlite3

        with sqlite3.connect(d / "r.sqlite") as c:
            assert c.execute("SELECT count(*) FROM tasks").fetchone()[0] == 0


# ---------------------------------------------------------------------- certificates
#: Fields whose value the claim rests on (a free-text note such as created_by is not one).
CLAIMED = ["rank", "blocks", "partition", "seed", "prime", "config", "upper_bound", "exact",
           "claim", "draws", "strategy", "architecture", "weights_sha256", "upper_source",
           "upper_given", "format"]
json_values = st.recursive(st.one_of(st.none(), st.booleans(), ints, st.text(max_size=6)),
                           lambda i: st.one_of(st.lists(i, max_size=4),
                                               st.dictionaries(st.text(max_size=5), i,
                                                               max_size=3)),
                           max_leaves=10)


@st.composite
def tampered(draw, cert):
    c = copy.deepcopy(cert)
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(CLAIMED))
        target, k = c, key
        if isinstance(c.get(key), (dict, list)) and c[key] and draw(st.booleans()):
            target = c[key]
            k = draw(st.sampled_from(list(target) if isinstance(target, dict)
                                     else range(len(target))))
        target[k] = draw(json_values)
    hypothesis.assume(c != cert)
    return c


@pytest.fixture(scope="module")
def cert():
    import seprank

    c = seprank.certify(seprank.nets.MPS(seq_len=4, phys_dim=2, bond=2), (0, 1))
    return json.loads(json.dumps(c.certificate))


def test_generated_certificates(cert, tmp_path_factory, capsys):
    import seprank
    from seprank.errors import ConfigError

    @SETTINGS
    @given(c=tampered(cert))
    def check(c):
        try:
            assert not seprank.check_certificate(copy.deepcopy(c)).ok, c
        except ConfigError:
            pass
        p = tmp_path_factory.mktemp("cert") / "c.json"
        p.write_text(json.dumps(c))
        rc, out, err = run_cli(capsys, "check-certificate", p)
        _contract(rc, err, (1, 2))

    check()


# ------------------------------------------------------------------------- argv
FLAGS = ["--depth", "--width", "--heads", "--seq-len", "--partition", "--query-position",
         "--param", "--arch", "--seed", "--prime", "--max-samples", "--out", "--upper",
         "--upper-source", "--max-memory", "--max-seconds", "--db", "--where"]
texts = st.one_of(st.sampled_from(["", "0", "1", "2", "3", "-1", "1e9", "nan", "0,1", "0,0",
                                   "2**63", "9" * 30, "attention", "mps", "depth=2",
                                   "x:Y", "depth>=2", "\udcff"]),
                  st.text(max_size=6))


@st.composite
def argvs(draw):
    cmd = draw(st.sampled_from(["measure", "bounds", "guide", "archs", "certify",
                                "check-certificate", "results"]))
    argv = [cmd]
    for _ in range(draw(st.integers(0, 6))):
        argv += [draw(st.sampled_from(FLAGS)), draw(texts)]
    if cmd in ("measure", "certify"):  # small sizes only: the corpus must not measure long
        argv += ["--depth", "1", "--width", "2", "--seq-len", "4", "--quiet"]
    return argv


@SETTINGS
@given(argv=argvs())
def test_generated_argv(argv, tmp_path_factory, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("argv"))
    rc, out, err = run_cli(capsys, *argv)
    _contract(rc, err)

"""Issue 34, item 6: the bad-input tests generated from the parameter table
(seprank.engine.parameters). For every row, bad values are derived from its kind and range
(wrong type, below and above the range, not a choice, not a prime); MeasureOptions, the
CLI (``seprank measure`` with the row's flag), a grid file (``seprank sweep``) and a
certificate (where the row has a flag, a grid key, a certificate field) all refuse each
one in one line naming the parameter and what was expected. Every row's default is what
measure uses, and the prime has one policy (the API's) on every surface."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import math
from importlib import resources

import pytest

from seprank import measure
from seprank.algebra.domains import DEFAULT_PRIME, is_prime
from seprank.cli import _build_parser, main
from seprank.engine import feasibility, parameters
from seprank.engine.measure import plan
from seprank.engine.options import MeasureOptions
from seprank.engine.parameters import MAX_INT, PARAMETERS
from seprank.errors import DomainError, SeprankError
from seprank.nets import LinearSelfAttention
from seprank.sweeps.grid_file import read_grid
from seprank.verdicts import certificate_schema, verdict

try:  # Python >= 3.11
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

NET = ["--depth", "1", "--width", "2", "--seq-len", "4"]
PLAN_NET = LinearSelfAttention(depth=2, width=2, seq_len=4)


def bad_values(r) -> list:
    """Values the row must refuse, derived from its kind, range and choices alone."""
    out = []
    if r.kind in ("int", "prime"):
        hi = MAX_INT if r.hi is None else r.hi
        out += ["x", 2.5, True, r.lo - 1, hi + 1]
        if r.kind == "prime":  # in range, not a prime
            out.append(next(n for n in range(r.lo, r.lo + 100) if not is_prime(n)))
    elif r.kind == "real":
        out += ["x", True, float("nan"), float("inf"), r.lo if r.lo_open else r.lo - 1]
        if r.hi is not None:
            out.append(r.hi + 1)
    elif r.kind == "choice":
        out += [3, f"no-such-{r.name}", r.names()[0].upper()]
    else:  # flag
        out += [2, "yes", 0.5]
    return out if r.optional else [*out, None]


CASES = [(r.name, v) for r in PARAMETERS.values() for v in bad_values(r)]
FLAG_CASES = [(n, v) for n, v in CASES if PARAMETERS[n].flag is not None]
GRID_CASES = [(n, v) for n, v in CASES if PARAMETERS[n].grid is not None
              and v is not None and not (isinstance(v, int) and abs(v) > MAX_INT)]  # TOML's
CERT_CASES = [(n, v) for r in PARAMETERS.values() if r.certificate
              for n, v in [(r.name, x) for x in bad_values(r) + [None]]]


def _ids(cases):
    return [f"{n}={v!r:.20}" for n, v in cases]


def _one_line(message: str, name: str) -> None:
    r = PARAMETERS[name]
    assert "\n" not in message and f"{name}=" in message, message
    assert message.endswith(f"must be {r.expected}"), message


def test_every_option_is_a_row_and_every_surface_names_a_row():
    assert [f.name for f in dataclasses.fields(MeasureOptions)] == list(PARAMETERS)
    flags = {a.dest for a in _measure_parser()._actions}
    for r in PARAMETERS.values():
        assert r.flag is None or r.flag.lstrip("-").replace("-", "_") == r.name, r.name
        assert r.flag is None or r.name in flags, r.name
        assert r.help and r.expected and bad_values(r)


@pytest.mark.parametrize("name, value", CASES, ids=_ids(CASES))
def test_the_table_and_the_options_refuse_each_bad_value(name, value):
    with pytest.raises(SeprankError) as table:
        parameters.validate(name, value)
    with pytest.raises(SeprankError) as options:
        MeasureOptions(**{name: value})
    assert str(options.value) == str(table.value)
    _one_line(str(options.value), name)
    assert isinstance(options.value, DomainError) == (PARAMETERS[name].kind == "prime")


@pytest.mark.parametrize("name", list(PARAMETERS))
def test_the_ends_of_each_range_are_accepted(name):
    r = PARAMETERS[name]
    if r.kind == "choice":
        good = list(r.names())
    elif r.kind == "flag":
        good = [True, False, 0, 1]
    else:
        hi = MAX_INT if r.kind != "real" and r.hi is None else r.hi
        good = [x for x in (r.lo, hi) if x is not None and not (r.lo_open and x == r.lo)]
        good += [r.lo * 1.0001 + 1e-9] if r.lo_open else []
    for v in good + ([None] if r.optional else []):
        assert parameters.validate(name, v) == v, (name, v)


@pytest.mark.parametrize("name, value", FLAG_CASES, ids=_ids(FLAG_CASES))
def test_the_cli_refuses_each_bad_value_naming_the_flag(name, value, capsys):
    r = PARAMETERS[name]
    text = value if isinstance(value, str) else str(value)
    with pytest.raises(SystemExit) as exc:
        main(["measure", *NET, r.flag, text])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "Traceback" not in err[0], err
    assert err[0].startswith(f"seprank: error: argument {r.flag}: {name}="), err[0]
    assert err[0].endswith(f"must be {r.expected}"), err[0]


def _toml(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else "inf"
    return json.dumps(v)


@pytest.mark.parametrize("name, value", GRID_CASES, ids=_ids(GRID_CASES))
def test_a_grid_file_refuses_each_bad_value_naming_its_key(name, value, tmp_path, capsys):
    r = PARAMETERS[name]
    v = _toml(value)
    text = (f'[grid]\nname = "t"\n{r.grid} = {v if r.grid == "max_samples" else f"[{v}]"}\n'
            "[params]\ndepth = [1]\nwidth = [2]\nseq_len = [4]\n")
    (tmp_path / "g.toml").write_text(text)
    rc = main(["sweep", str(tmp_path / "g.toml"), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and not (tmp_path / "out").exists(), err
    assert f"grid g.toml: [grid] {r.grid}: {name}=" in err[0], err[0]
    assert err[0].endswith(f"must be {r.expected}"), err[0]


@pytest.fixture(scope="module")
def cert():
    from seprank.verdicts.certificates import certify

    c = certify(LinearSelfAttention(depth=1, width=2, seq_len=4))
    certificate_schema.validate(c.certificate)  # the unedited one passes
    return c.certificate


@pytest.mark.parametrize("name, value", CERT_CASES, ids=_ids(CERT_CASES))
def test_a_certificate_refuses_each_bad_value_naming_its_field(name, value, cert):
    bad = copy.deepcopy(cert)
    bad[PARAMETERS[name].certificate] = value
    with pytest.raises(certificate_schema.CertificateSchemaError) as exc:
        certificate_schema.validate(bad)
    assert str(exc.value).startswith(f"certificate: {name}="), exc.value
    _one_line(str(exc.value), name)


# ------------------------------------------------------------------ defaults


def _measure_parser():
    sub = next(a for a in _build_parser()._actions if a.dest == "command")
    return sub.choices["measure"]


def test_every_default_is_the_options_measures_and_the_clis():
    opts, sig = MeasureOptions(), inspect.signature(measure).parameters
    args = _build_parser().parse_args(["measure"])
    for r in PARAMETERS.values():
        assert getattr(opts, r.name) == r.default, r.name
        if r.name in MeasureOptions.user_fields():
            assert sig[r.name].default == r.default, r.name
        if r.flag is not None:
            want = r.default if r.cli_default is None else r.cli_default
            assert getattr(args, r.name) == want and parameters.validate(r.name, want) == want


#: The options under which plan() uses each ``by`` default (a key the table adds fails here).
BY_CASES = {
    "max_samples": {"modular": dict(strategy="direct"), "graded": dict(strategy="graded"),
                    "float": dict(method="float")},
    "growth": {"direct": dict(strategy="direct"), "graded": dict(strategy="graded"),
               "catalecticant": dict(strategy="catalecticant"), "sketch": dict(strategy="sketch")},
    "prime": {"modular": dict(strategy="direct")},
}


@pytest.mark.parametrize("name", [r.name for r in PARAMETERS.values() if r.by is not None])
def test_the_defaults_by_method_and_strategy_are_what_plan_uses(name):
    r = PARAMETERS[name]
    assert set(r.by) == set(BY_CASES[name])
    for key, kw in BY_CASES[name].items():
        run = plan(PLAN_NET, options=MeasureOptions(**kw)).run
        used = {"max_samples": run.max_samples, "growth": run.growth,
                "prime": getattr(run.domain, "p", None)}[name]
        assert used == parameters.default(name, key), (name, key)


def test_the_shipped_grids_and_verify_use_the_tables_budget():
    budget = parameters.default("max_samples", "modular")
    for name in ("verify-quick", "verify-default"):
        text = (resources.files("seprank.sweeps") / "grids" / f"{name}.toml").read_text()
        assert tomllib.loads(text)["grid"]["max_samples"] == budget, name
    for f in (verdict.verify_one, verdict.verify_partitions):
        assert inspect.signature(f).parameters["max_samples"].default == budget
    by = PARAMETERS["max_samples"].by  # measure's docstring states them
    assert (f"default {by['modular']} direct, {by['graded']} graded,\n        {by['float']} "
            "float" in measure.__doc__)


# ------------------------------------------------------------------ one prime policy


@pytest.mark.parametrize("p", [1, 2, 3, 4, 7, 15, 91, DEFAULT_PRIME, 2**31 - 1, 2**31 + 11])
def test_one_prime_policy_on_every_surface(p, cert, tmp_path, capsys):
    """The API, the CLI type, a grid file and a certificate refuse the same primes, with
    the same words (a certificate kind's own rules, e.g. graded's p > T + 1, aside)."""
    refusal = PARAMETERS["prime"].refusal(p)
    said = []
    for check in (lambda: MeasureOptions(prime=p), lambda: read_grid(_grid(tmp_path, p)),
                  lambda: certificate_schema.validate({**cert, "prime": p}),
                  lambda: _build_parser().parse_args(["measure", "--prime", str(p)])):
        try:
            check()
            said.append("")
        except SeprankError as exc:
            said.append(str(exc))
        except SystemExit:
            said.append(capsys.readouterr().err)
    want = 2 <= p <= 2**31 - 1 and is_prime(p)
    if want:  # accepted whole by the options, the grid and the CLI (no floor anywhere)
        assert said[:2] == ["", ""] and said[3] == "" and refusal not in said[2], said
    else:
        assert all(refusal in s for s in said), said


def _grid(tmp_path, p):
    path = tmp_path / "g.toml"
    path.write_text(f'[grid]\nname = "t"\nprimes = [{p}]\n'
                    "[params]\ndepth = [1]\nwidth = [2]\nseq_len = [4]\n")
    return path


@pytest.mark.parametrize("depth, p", [(1, 2), (1, 7), (2, 5)])
def test_a_prime_below_the_floor_is_measured_by_the_cli_as_by_the_api(depth, p, capsys):
    """The CLI no longer refuses what the API measures: the same rank and label."""
    assert p < feasibility.prime_floor(LinearSelfAttention(depth=depth, width=2, seq_len=4))[0]
    assert main(["measure", "--depth", str(depth), "--width", "2", "--seq-len", "4",
                 "--prime", str(p), "--json", "--quiet"]) == 0
    got = json.loads(capsys.readouterr().out)
    m = measure(LinearSelfAttention(depth=depth, width=2, seq_len=4), prime=p)
    assert (got["rank"], got["label"], got["prime"]) == (m.rank, m.label, p)
    assert not m.saturated


def test_the_floor_says_what_the_network_needs():
    net1, net2 = (LinearSelfAttention(depth=d, width=2, seq_len=4) for d in (1, 2))
    with pytest.raises(DomainError, match=r"^prime=7 is too small .*Schwartz-Zippel bound "
                       r"needs p > e = 7"):
        feasibility.check_prime(net1, 7)
    with pytest.raises(DomainError, match=r"graded interpolation needs p > T \+ 1 = 10"):
        feasibility.check_prime(net2, 5)
    feasibility.check_prime(net1, feasibility.prime_floor(net1)[0])  # the floor itself: fine

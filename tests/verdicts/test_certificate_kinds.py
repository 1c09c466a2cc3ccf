"""Certificate kinds (issue 34, item 5): each kind is registered with its writer, schema and
checker; make_certificate, the schema and check_certificate dispatch on a certificate's
``strategy`` through the registry, so a kind registered from a test is written and checked
by its own code; a certificate of a kind nobody registered is refused in one line naming
it and the known kinds (a ConfigError from the API, exit 2 from the CLI)."""

import copy
import json
from types import SimpleNamespace

import pytest

from seprank import certify, check_certificate
from seprank.cli import main
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention, config_of
from seprank.verdicts import certificate_fields, kinds
from seprank.verdicts.certificate_schema import CertificateSchemaError, UnknownKindError, validate
from seprank.verdicts.certificates import make_certificate
from seprank.verdicts.check_result import CheckResult

NET = LinearSelfAttention(depth=1, width=2, seq_len=4)


@pytest.fixture(scope="module")
def grid_cert():
    c = certify(NET, grid=True)
    assert c.certificate["strategy"] == "graded" and check_certificate(c.certificate).ok
    return c.certificate


@pytest.fixture
def toy():
    """A kind ``toy`` (one block of rank 0, a field ``toy_note``) that records every call;
    unregistered afterwards."""
    seen = {"schema": 0, "check": [], "fail": None}

    def write(net, m):
        return {"points": "none (toy)", "draws": [], "total_degree": None,
                "toy_note": f"toy of {type(net).__name__}", "blocks": list(m.minors)}

    def schema(cert):
        seen["schema"] += 1
        certificate_fields.blocks(cert["blocks"], ("degree", "rank", "rows", "cols"))
        certificate_fields.string("toy_note", cert.get("toy_note"))

    def check(cert, ctx):
        seen["check"].append((cert["toy_note"], type(ctx.net).__name__, ctx.total, ctx.dom.p))
        return None if seen["fail"] is None else CheckResult(False, [seen["fail"]])

    kind = kinds.register(kinds.CertificateKind(
        name="toy", strategies=("toy",), schema=schema, check=check, write=write,
        fields=("toy_note",)))
    try:
        yield seen
    finally:
        assert kinds.unregister("toy") is kind
    assert kinds.for_strategy("toy") is None


def _toy_measurement():
    return SimpleNamespace(strategy="toy", method="modular", seed=3, prime=10007,
                           config=config_of(NET), partition=(0, 1), rank=0,
                           minors=[{"degree": None, "rank": 0, "rows": [], "cols": []}])


def test_the_shipped_kinds_and_their_strategies():
    assert {k.name: k.strategies for k in kinds.kinds()} == {
        "grid minors": ("direct", "graded"), "catalecticant minors": ("catalecticant",)}
    for s in ("direct", "graded", "catalecticant"):
        assert s in kinds.for_strategy(s).strategies
    assert kinds.for_strategy("auto") is None and kinds.for_strategy(["graded"]) is None


def test_a_registered_kind_is_written_and_checked_by_its_own_code(toy):
    cert = make_certificate(NET, _toy_measurement())
    keys = list(cert)
    assert keys[keys.index("strategy") - 2:keys.index("blocks") + 1] == [
        "points", "draws", "strategy", "total_degree", "toy_note", "rank", "blocks"]
    assert cert["toy_note"] == "toy of LinearSelfAttention" and cert["points"] == "none (toy)"
    r = check_certificate(json.loads(json.dumps(cert)))
    assert r.ok and r.rank == 0 and not r.exact, r.reasons
    assert toy["check"] == [("toy of LinearSelfAttention", "LinearSelfAttention", 0, 10007)]
    assert toy["schema"] == 1
    toy["fail"] = "toy: the minor does not hold"
    r = check_certificate(cert)
    assert not r.ok and r.reasons == ["toy: the minor does not hold"]
    assert len(toy["check"]) == 2


def test_the_common_checks_hold_whatever_the_kind_answers(toy):
    cert = make_certificate(NET, _toy_measurement())
    r = check_certificate(dict(cert, rank=1))  # the toy's checker passes it over
    assert toy["check"] and not r.ok
    assert r.reasons == ["claimed rank 1 != sum of the block ranks 0"]
    r = check_certificate(dict(cert, seed=4))
    assert not r.ok and "other weights" in r.reasons[0]
    r = check_certificate(dict(cert, upper_bound=0, exact=True))  # the bound: checked after
    assert not r.ok and len(r.reasons) == 1
    assert r.reasons[0].startswith("upper_bound 0 is not the architecture's proved bound")


def test_a_kinds_own_field_belongs_to_it_only(toy, grid_cert):
    with pytest.raises(CertificateSchemaError, match="toy_note belongs to a toy certificate"):
        validate(dict(copy.deepcopy(grid_cert), toy_note="x"))
    cert = make_certificate(NET, _toy_measurement())
    with pytest.raises(CertificateSchemaError, match="toy_note must be a string"):
        validate(dict(cert, toy_note=3))  # the kind's own schema ran


@pytest.mark.parametrize("net, strategy, grid_strategy", [
    (LinearSelfAttention(depth=2, width=2, seq_len=4), "catalecticant", "graded"),
    (LinearSelfAttention(depth=2, width=2, seq_len=2), "graded", "graded"),
    (LinearSelfAttention(depth=1, width=2, seq_len=4, residual=True), "catalecticant",
     "direct"),
])
def test_certify_measures_with_the_planners_certifiable_strategy(net, strategy, grid_strategy):
    """The planner decides (purpose certify), and its choice has a kind that checks."""
    from seprank.engine.planner import plan

    assert plan(net, purpose="certify").strategy == strategy
    assert plan(net, purpose="certify-grid").strategy == grid_strategy
    c = certify(net, grid=True)
    assert c.measurement.strategy == c.certificate["strategy"] == grid_strategy
    assert check_certificate(c.certificate).ok


def test_registering_a_taken_name_or_strategy_is_refused():
    with pytest.raises(ConfigError, match="strategy 'graded' is certified by the kind "
                                          "'grid minors' already"):
        kinds.register(kinds.CertificateKind(name="mine", strategies=("graded",),
                                             schema=print, check=print))
    with pytest.raises(ConfigError, match="kind='grid minors' is registered already"):
        kinds.register(kinds.CertificateKind(name="grid minors", strategies=("x",),
                                             schema=print, check=print))
    assert kinds.unregister("mine") is None
    with pytest.raises(ConfigError, match=r"^kind='grid minors' must be a CertificateKind "
                                          "instance$"):
        kinds.register("grid minors")
    assert [k.name for k in kinds.kinds()] == ["grid minors", "catalecticant minors"]


UNKNOWN = ("certificate: strategy 'magic' is not a known certificate kind (strategy must be "
           "one of direct, graded: grid minors; catalecticant: catalecticant minors)")


def test_an_unknown_kind_is_refused_by_the_api_in_one_line(grid_cert):
    bad = dict(copy.deepcopy(grid_cert), strategy="magic", magic_field=[1])
    with pytest.raises(UnknownKindError) as e:  # no verdict on it: raised, not "invalid"
        check_certificate(bad)
    assert str(e.value) == UNKNOWN and isinstance(e.value, ConfigError)


def test_an_unknown_kind_is_refused_by_the_cli_exit_2(grid_cert, tmp_path, capsys):
    p = tmp_path / "magic.json"
    p.write_text(json.dumps(dict(grid_cert, strategy="magic")))
    assert main(["check-certificate", str(p)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [f"seprank: error: {UNKNOWN}"]


def test_a_certificate_is_checked_by_the_kind_its_strategy_names(grid_cert, toy):
    """A graded certificate renamed ``toy``: the toy's checker answers for it."""
    cert = dict(copy.deepcopy(grid_cert), strategy="toy", toy_note="renamed")
    toy["fail"] = "toy: refused"
    assert check_certificate(cert).reasons == ["toy: refused"]
    assert toy["check"] == [("renamed", "LinearSelfAttention", grid_cert["rank"],
                             grid_cert["prime"])]

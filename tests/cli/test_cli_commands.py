"""The sub-commands' code in this process (``main(argv)``, exit code and output), so that
the mutation run's coverage map sees which test executes which line
(tests/cli/test_cli_subprocess.py starts subprocesses, which it cannot see into).
``verify`` and ``certify`` get their results from a stand-in where only the command's own
logic is under test: the exit codes (a VIOLATION must exit 1, a failed check must exit 1),
the lines printed, the arguments passed on."""

import json
import math

import pytest

from seprank import labels
from seprank.cli import main

# --------------------------------------------------------------------------------------
# verify: seprank.studies.verify.run replaced by a stand-in returning the given rows and summary


def _row(verdict="exact, proved", measured=18, upper=18, **kw):
    row = {"depth": 2, "width": 2, "heads": 1, "seq_len": 4, "residual": False,
           "measured": measured, "label": labels.rank_label(measured, True, upper=upper),
           "saturated": True, "upper": upper, "log10_upper": 1.2553,
           "bound": "block", "exact_proved": measured == upper, "gap": upper - measured,
           "regime_paper": "depth-inefficient", "regime_growth": "- (no L+1 row)",
           "partitions_checked": 2, "partition_invariant": "yes", "verdict": verdict,
           "seconds": 0.5}
    row.update(kw)
    return row


def _summary(rows, **kw):
    s = {"grid": "quick", "configurations": len(rows), "planned": len(rows),
         "skipped_for_size": 0, "exact_proved": sum(r["exact_proved"] for r in rows),
         "saturated": len(rows), "violations": sum(r["verdict"] == "VIOLATION" for r in rows),
         "h1_conjecture_failures": 0, "partition_mismatches": 0, "interrupted": False,
         "seed": 0, "not_measured": [], "run": {"db": None}}
    s.update(kw)
    return s


@pytest.fixture
def fake_verify(monkeypatch):
    """Replace verify.run; returns (set(rows, **summary), calls)."""
    from seprank.studies import verify

    state, calls = {"rows": [_row()], "summary": {}}, []

    def run(grid, out, seed, **kw):
        calls.append({"grid": grid, "out": out, "seed": seed, **kw})
        return state["rows"], _summary(state["rows"], **state["summary"])

    def set_result(rows, **summary):
        state["rows"], state["summary"] = rows, summary

    monkeypatch.setattr(verify, "run", run)
    return set_result, calls


def test_verify_cli_all_measured_exits_0_with_the_table(tmp_path, capsys, fake_verify):
    _, calls = fake_verify
    assert main(["verify", "--quick", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["depth", "width", "heads", "N", "res", "measured", "sat",
                                "upper", "exact_proved", "regime_paper", "regime_growth", "part",
                                "verdict"]
    assert lines[1].split()[:6] == ["2", "2", "1", "4", "False", "18"]
    assert lines[2] == "(columns: seprank verify --help; results.md has the legend)"
    assert f"wrote {tmp_path / 'results.csv'} and {tmp_path / 'results.md'}" in lines
    assert "VERDICT (grid quick, 1 configurations):" in lines
    assert "0 violations of a proved bound" in out and "VIOLATION" not in out
    # the arguments passed on, the defaults included
    assert calls == [{"grid": "quick", "out": tmp_path, "seed": 0, "db": None,
                      "executor": "processes", "scheduler": None, "workers": None,
                      "worker_memory": None, "retries": 2, "progress": True}]


def test_verify_cli_passes_its_options_on(tmp_path, capsys, fake_verify):
    _, calls = fake_verify
    db = tmp_path / "r.sqlite"
    assert main(["verify", "--out", str(tmp_path), "--seed", "5", "--db", str(db), "--executor",
                 "serial", "--workers", "3", "--worker-memory", "1GiB", "--retries", "0",
                 "--quiet"]) == 0
    assert calls == [{"grid": "default", "out": tmp_path, "seed": 5, "db": str(db),
                      "executor": "serial", "scheduler": None, "workers": 3,
                      "worker_memory": 2**30, "retries": 0, "progress": False}]


def test_verify_cli_default_out_folder(tmp_path, monkeypatch, capsys, fake_verify):
    from pathlib import Path

    _, calls = fake_verify
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--quick"]) == 0
    assert calls[0]["out"] == Path("seprank-results") and (tmp_path / "seprank-results").is_dir()


def test_verify_cli_unwritable_out_exits_2_before_any_work(tmp_path, capsys, fake_verify):
    _, calls = fake_verify
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["verify", "--quick", "--out", str(blocker / "sub")]) == 2
    assert calls == [] and "is not a writable folder" in capsys.readouterr().err


@pytest.mark.parametrize("as_json", [False, True])
def test_verify_cli_violation_exits_1(tmp_path, capsys, fake_verify, as_json):
    set_result, _ = fake_verify
    rows = [_row("VIOLATION", measured=19, upper=18), _row(),
            _row("VIOLATION", measured=40, upper=39, depth=3, residual=True)]
    # a violation decides the exit code even when the run was also interrupted or incomplete
    set_result(rows, interrupted=True,
               not_measured=[{"config": {"depth": 9}, "status": "failed", "error": "boom"}])
    args = ["verify", "--quick", "--out", str(tmp_path)] + (["--json"] if as_json else [])
    assert main(args) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 2 and all(x.startswith("VIOLATION: ") for x in lines)
    assert lines[0] == ("VIOLATION: measured 19 > proved 18: a bug is far likelier than a "
                        "refutation (the bound is proved). Reproduce: seprank measure --depth 2 "
                        "--width 2 --heads 1 --seq-len 4")
    assert lines[1].endswith("--depth 3 --width 2 --heads 1 --seq-len 4 --residual")
    if as_json:
        d = json.loads(out)
        assert d["summary"]["violations"] == 2 and d["out"] == str(tmp_path)
        assert d["rows"] == rows and d["verdict"][0] == "VERDICT (grid quick, 3 configurations):"
        assert "VIOLATED in 2" in d["verdict"][1]
    else:
        assert "2 violations of a proved bound" in out and "VIOLATED in 2" in out


def test_verify_cli_interrupted_exits_130(tmp_path, capsys, fake_verify):
    set_result, _ = fake_verify
    set_result([_row()], interrupted=True,
               not_measured=[{"config": {"depth": 9}, "status": "failed", "error": "boom"}])
    assert main(["verify", "--quick", "--out", str(tmp_path)]) == 130
    out, err = capsys.readouterr()
    assert "INTERRUPTED" in out and "NOT MEASURED" not in err


def test_verify_cli_not_measured_exits_1(tmp_path, capsys, fake_verify):
    set_result, _ = fake_verify
    missing = [{"config": {"depth": 9}, "status": "refused", "error": "too big"},
               {"config": {"depth": 8}, "status": "failed", "error": "boom"}]
    set_result([_row()], not_measured=missing)
    assert main(["verify", "--quick", "--out", str(tmp_path), "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["summary"]["not_measured"] == missing
    assert err.splitlines() == ["NOT MEASURED (refused): {'depth': 9}: too big",
                                "NOT MEASURED (failed): {'depth': 8}: boom"]


def test_verify_cli_json_is_one_object(tmp_path, capsys, fake_verify):
    from seprank.studies import verify

    set_result, _ = fake_verify
    rows = [_row(), _row("below bound", measured=17)]
    set_result(rows)
    assert main(["verify", "--quick", "--out", str(tmp_path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and len(out.splitlines()) == 1
    d = json.loads(out)
    assert d["rows"] == rows and d["out"] == str(tmp_path)
    assert d["summary"] == _summary(rows)
    assert d["verdict"] == verify.verdict_lines(rows, _summary(rows))


# --------------------------------------------------------------------------------------
# bounds


def _bounds(capsys, *args):
    rc = main(["bounds", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_bounds_json_values_come_from_the_theory(capsys):
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    rc, out, err = _bounds(capsys, "--depth", "2", "--width", "3", "--heads", "3", "--seq-len",
                           "6", "--residual", "--json")
    assert rc == 0 and err == ""
    d = json.loads(out)
    kw = dict(width=3, heads=3, seq_len=6, residual=True)
    ub = theorem_bound(LinearSelfAttention(depth=2, **kw))
    deeper = theorem_bound(LinearSelfAttention(depth=3, **kw))
    for key in ("upper", "log10_upper", "which", "why", "block", "monomial"):
        assert d[key] == ub[key], key
    assert d["kind"] == "proved" and d["output_degree"] == 9 and d["matrix_degree_D"] == 4
    assert d["growth_ratio_bound"] == deeper["log10_upper"] / ub["log10_upper"]
    # nearer the degree law 3 than the linear law 3/2 on a log scale: above sqrt(4.5)
    mid = math.sqrt(3 * 1.5)
    assert d["regime_bound_growth"] == ("depth-efficient" if d["growth_ratio_bound"] >= mid
                                        else "depth-inefficient")
    assert d["crossover_depth"] == pytest.approx(math.log(13, 3), rel=1e-12)
    assert d["regime_paper"] == "depth-inefficient"  # L = 2 >= log3 3 = 1
    assert d["transition_depth_paper"] == pytest.approx(1.0)
    assert d["transition_depth_2log3"] == pytest.approx(2.0)
    assert d["config"] == {"depth": 2, "width": 3, "heads": 3, "seq_len": 6, "residual": True}


def test_bounds_json_with_a_partition_and_query_position(capsys):
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    rc, out, _ = _bounds(capsys, "--depth", "1", "--width", "2", "--seq-len", "5",
                         "--query-position", "4", "--partition", "0,1,2", "--json")
    assert rc == 0
    d = json.loads(out)
    net = dict(width=2, seq_len=5, query_position=4)
    ub = theorem_bound(LinearSelfAttention(depth=1, **net), [0, 1, 2])
    deeper = theorem_bound(LinearSelfAttention(depth=2, **net), [0, 1, 2])
    assert d["upper"] == ub["upper"]
    assert d["growth_ratio_bound"] == deeper["log10_upper"] / ub["log10_upper"]


def test_bounds_text_short_integer(capsys):
    rc, out, err = _bounds(capsys, "--depth", "2", "--width", "3", "--seq-len", "6")
    assert rc == 0 and err == ""
    assert out.splitlines() == [
        "proved upper bound: 49  (log10 1.690); block bound",
        "  why: block bound sum_k min(b_k, a_{D-k}) from y^L = P_L(S) x^i; generic sides: "
        "closed form",
        "  degree 3^L = 9, D = 4",
        "  the paper's rule (depth-efficient while L < log3 d = 1.00): at L = 2, "
        "depth-inefficient",
        "  the proved bound's step L = 2 -> 3 (computed, not measured): depth-inefficient "
        "(ratio 2.066 nearer the linear law (degree law 3, linear law 1.5, midpoint 2.121))",
        "  the proved bound's crossover: 3^L = d^2 + d + 1 at L = 2.33 (proofs/transition.md)",
        "  the two agree at this depth",
    ]


def test_bounds_text_ratio_below_ten(capsys):
    # upper 2 (log10 0.301 < 1): the growth ratio is still computed and printed
    rc, out, _ = _bounds(capsys, "--depth", "1", "--width", "1", "--seq-len", "2")
    assert rc == 0 and out.startswith("proved upper bound: 2  (log10 0.301)")
    assert "depth-inefficient (ratio 2.322 nearer the linear law" in out  # sqrt(6) = 2.449


@pytest.mark.parametrize("cfg, digits", [(("4", "12", "22"), 40), (("4", "12", "23"), 41)])
def test_bounds_text_exact_up_to_40_digits(capsys, cfg, digits):
    L, d, N = cfg
    rc, out, _ = _bounds(capsys, "--depth", L, "--width", d, "--seq-len", N)
    first = out.splitlines()[0]
    assert rc == 0
    if digits <= 40:
        up = int(first.split(":")[1].split()[0])
        assert len(str(up)) == 40 and "  (log10 39." in first
    else:
        assert first.startswith("proved upper bound: 10^40.")
        assert " (an exact 41-digit integer: --json); " in first


def test_bounds_text_over_max_digits(capsys):
    from seprank.theory.bounds import MAX_DIGITS

    rc, out, _ = _bounds(capsys, "--depth", "10", "--width", "100", "--seq-len", "2000")
    first = out.splitlines()[0]
    assert rc == 0 and first.startswith("proved upper bound: 10^4883.")
    assert first.endswith(f" (over {MAX_DIGITS} digits: log10 only); block bound")
    rc, out, _ = _bounds(capsys, "--depth", "10", "--width", "100", "--seq-len", "2000", "--json")
    assert rc == 0 and json.loads(out)["upper"] is None


def test_bounds_without_the_softmax_attribute_is_linear(capsys):
    # bounds.cmd reads --softmax with getattr(args, "softmax", False): args built without
    # that flag (another caller than this parser) mean the linear network
    from seprank.cli import _build_parser, bounds

    args = _build_parser().parse_args(["bounds", "--depth", "2", "--width", "3", "--seq-len",
                                       "6", "--json"])
    del args.softmax
    assert bounds.cmd(args) == 0
    assert json.loads(capsys.readouterr().out)["upper"] == 49


def test_bounds_softmax_refused_exit_2(capsys):
    rc, out, err = _bounds(capsys, "--depth", "1", "--width", "2", "--seq-len", "4", "--softmax")
    assert rc == 2 and out == "" and "SoftmaxSelfAttention: no proved upper bound" in err


def test_bounds_other_architecture(capsys):
    rc, out, err = _bounds(capsys, "--arch", "mps", "--param", "seq_len=4", "--param",
                           "phys_dim=2", "--param", "bond=3", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["arch"] == "mps" and d["upper"] == 3


# --------------------------------------------------------------------------------------
# guide


def _guide(capsys, *args):
    rc = main(["guide", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_guide_params_text(capsys):
    from seprank.theory import guidelines as gl

    rc, out, err = _guide(capsys, "--params", "1e9")
    opt = gl.fit_optimal_shape(1e9)
    assert rc == 0 and err == ""
    assert out.splitlines() == [
        "paper's fit at 1e+09 non-embedding params (computed from the fit):",
        f"  depth {opt['depth']:.1f}, width {opt['width']:.0f}",
    ]
    rc, out, _ = _guide(capsys, "--params", "1e9", "--json")
    assert rc == 0 and json.loads(out) == json.loads(json.dumps(opt))


def test_guide_trillion_text(capsys):
    from seprank.theory import guidelines as gl

    t = gl.trillion_report()
    rc, out, _ = _guide(capsys, "--params", "1e12")
    assert rc == 0
    assert out.splitlines()[2] == (
        f"  quoted: width 30K (paper), depth 92 (authors): fit differs by "
        f"{t['width_difference_pct']:+.1f}% in width, {t['depth_difference']:+.1f} layers")
    assert "GPT-3" not in out
    rc, out, _ = _guide(capsys, "--params", "1e12", "--json")
    d = json.loads(out)
    assert d["trillion"] == json.loads(json.dumps(t)) and "gpt3" not in d


def test_guide_gpt3_text(capsys):
    from seprank.theory import guidelines as gl

    g = gl.gpt3_report()
    rc, out, _ = _guide(capsys, "--params", "175e9")
    assert rc == 0 and "quoted:" not in out
    assert out.splitlines()[2] == (
        f"  GPT-3 (96 layers, width 12288; {g['params']:.3g} non-embedding params by 12 L "
        f"d^2, not 175e9): {g['verdict']}; at that count the fit would use "
        f"{g['fit_depth_at_params']:.1f} layers of width {g['fit_width_at_params']:.0f}")


#: the reports are added within 2% (strictly) of 175e9 and of 1e12: on the boundary, just
#: inside it (by less than the change of one unit in either constant would make), and far
@pytest.mark.parametrize("params, key, present", [
    (175e9 * 1.02, "gpt3", False), (175e9 * 0.98, "gpt3", False),
    (175e9 * 1.02 - 0.01, "gpt3", True), (175e9 * 0.98 + 0.01, "gpt3", True),
    (1e12 * 1.02, "trillion", False), (1e12 * 0.98, "trillion", False),
    (1e12 * 1.02 - 0.01, "trillion", True), (1e12 * 0.98 + 0.01, "trillion", True),
    (1e9, "gpt3", False), (1e9, "trillion", False),
])
def test_guide_reports_within_two_percent(capsys, params, key, present):
    rc, out, _ = _guide(capsys, "--params", repr(params), "--json")
    assert rc == 0 and (key in json.loads(out)) is present


def test_guide_verdict_text_and_json(capsys):
    from seprank.theory import guidelines as gl

    v = gl.verdict(10, 1000)
    rc, out, err = _guide(capsys, "--depth", "10", "--width", "1000")
    assert rc == 0 and err == ""
    assert out.splitlines() == [
        f"depth 10, width 1000 ({v['params']:.3g} params): {v['verdict']}",
        f"  fit optimum at these params: depth {v['fit_depth_at_params']:.1f}, width "
        f"{v['fit_width_at_params']:.0f}",
        f"  fit width for depth 10: {v['fit_width_for_depth']:.0f}; fit depth for width 1000: "
        f"{v['fit_depth_for_width']:.1f}",
    ]
    rc, out, _ = _guide(capsys, "--depth", "10", "--width", "1000", "--json")
    assert rc == 0 and json.loads(out) == json.loads(json.dumps(v))


BOTH = "params: give either --params or --depth and --width, not both"


@pytest.mark.parametrize("args, text", [
    (["--params", "1e9", "--depth", "10"], BOTH),
    (["--params", "1e9", "--width", "10"], BOTH),
    (["--depth", "10"], "depth: give --params, or both --depth and --width"),
    (["--width", "10"], "depth: give --params, or both --depth and --width"),
    ([], "depth: give --params, or both --depth and --width"),
])
def test_guide_bad_combinations_exit_2(capsys, args, text):
    rc, out, err = _guide(capsys, *args)
    assert rc == 2 and out == "" and err == f"seprank: error: {text}\n"


# --------------------------------------------------------------------------------------
# certify and check-certificate: exit codes and output, certify's result a stand-in


class _FakeMeasurement:
    saturated, saturation_bound, saturation_reason = True, 1e-5, "probability bound"
    prime, seed, strategy, config, partition, seconds = 7, 0, "graded", {"depth": 1}, (0,), 0.1


def _fake_certification(tmp_path, *, exact=True, upper=18, certificate=True):
    from seprank.verdicts.certificates import Certification

    lower = 18 if exact else 17
    return Certification(measurement=_FakeMeasurement(), lower=lower, upper=upper,
                         upper_why="why-up", exact=exact,
                         status="exact, proved" if exact else "lower bound", ground="ground-x",
                         certificate={"architecture": "Net", "config": {"depth": 1, "width": 2,
                                      "heads": 1, "seq_len": 4}, "partition": [0, 1],
                                      "seed": 0, "prime": 7} if certificate else None)


@pytest.fixture
def fake_certify(monkeypatch, tmp_path):
    from seprank.verdicts import certificates
    from seprank.verdicts.certificates import CheckResult

    state = {"cert": _fake_certification(tmp_path), "check": CheckResult(ok=True), "calls": []}

    def certify(net, partition=None, **kw):
        state["calls"].append((net, partition, kw))
        return state["cert"]

    def check(path, **kw):
        state["checked"] = path
        return state["check"]

    monkeypatch.setattr(certificates, "certify", certify)
    monkeypatch.setattr(certificates, "check_certificate", check)
    # the stand-in certificate is not a real one: the schema check before writing is
    # tested in tests/fuzz (certify never writes what check-certificate refuses)
    monkeypatch.setattr(certificates.certificate_schema, "validate", lambda cert, budget=None: None)
    return state


def _certify(capsys, tmp_path, *args):
    rc = main(["certify", "--depth", "1", "--width", "2", "--seq-len", "4", "--out",
               str(tmp_path / "c"), *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_certify_cli_exact_text_and_arguments(tmp_path, capsys, fake_certify):
    rc, out, err = _certify(capsys, tmp_path)
    path = tmp_path / "c" / "Net_L1_d2_H1_N4_A0-1_seed0_p7.json"
    assert rc == 0 and err == "" and path.exists()
    assert out.splitlines() == ["separation rank: 18  [exact, proved]", "  ground: ground-x",
                                "  upper bound: why-up", f"  certificate: {path}",
                                f"  re-check:    seprank check-certificate {path}"]
    (net, partition, kw), = fake_certify["calls"]
    assert (net.depth, net.width, net.heads, net.seq_len, net.residual,
            net.query_position) == (1, 2, 1, 4, False, 0)
    assert partition is None and "checked" not in fake_certify
    assert kw == {"seed": 0, "prime": None, "max_samples": None, "progress": True}


def test_certify_cli_options_passed_on(tmp_path, capsys, fake_certify):
    rc, _, _ = _certify(capsys, tmp_path, "--partition", "0,2", "--seed", "3", "--prime", "11",
                        "--max-samples", "99", "--quiet", "--heads", "2", "--residual",
                        "--query-position", "1")
    assert rc == 0
    (net, partition, kw), = fake_certify["calls"]
    assert (net.heads, net.residual, net.query_position) == (2, True, 1)
    assert partition == [0, 2]
    assert kw == {"seed": 3, "prime": 11, "max_samples": 99, "progress": None}


def test_certify_cli_lower_bound_text(tmp_path, capsys, fake_certify):
    fake_certify["cert"] = _fake_certification(tmp_path, exact=False)
    rc, out, _ = _certify(capsys, tmp_path)
    assert rc == 0
    assert out.splitlines()[0] == ("separation rank >= 17  [lower bound; proved upper bound 18, "
                                   "gap 1]")
    fake_certify["cert"] = _fake_certification(tmp_path, exact=False, upper=None)
    rc, out, _ = _certify(capsys, tmp_path)
    assert rc == 0 and out.splitlines()[0] == (
        "separation rank >= 17  [lower bound; no upper bound known]")


def test_certify_cli_without_certificate(tmp_path, capsys, fake_certify):
    fake_certify["cert"] = _fake_certification(tmp_path, exact=False, certificate=False)
    rc, out, _ = _certify(capsys, tmp_path, "--check")
    assert rc == 0 and "checked" not in fake_certify  # nothing written, nothing checked
    assert out.splitlines()[-1] == "  no certificate: no nonsingular minor was recorded"
    assert list((tmp_path / "c").iterdir()) == []


def test_certify_cli_check_valid_exits_0(tmp_path, capsys, fake_certify):
    rc, out, _ = _certify(capsys, tmp_path, "--check")
    assert rc == 0 and out.splitlines()[-1] == "  check: valid"
    assert fake_certify["checked"] == str(tmp_path / "c" / "Net_L1_d2_H1_N4_A0-1_seed0_p7.json")


@pytest.mark.parametrize("as_json", [False, True])
def test_certify_cli_check_invalid_exits_1(tmp_path, capsys, fake_certify, as_json):
    from seprank.verdicts.certificates import CheckResult

    fake_certify["check"] = CheckResult(ok=False, reasons=["minor 1 singular", "rank"])
    rc, out, _ = _certify(capsys, tmp_path, "--check", *(["--json"] if as_json else []))
    assert rc == 1
    if as_json:
        d = json.loads(out)
        assert d["check"] == {"ok": False, "reasons": ["minor 1 singular", "rank"]}
    else:
        assert out.splitlines()[-1] == "  check: INVALID: minor 1 singular; rank"


def test_certify_cli_json(tmp_path, capsys, fake_certify):
    rc, out, _ = _certify(capsys, tmp_path, "--json")
    assert rc == 0 and len(out.splitlines()) == 1
    d = json.loads(out)
    assert d == json.loads(json.dumps(fake_certify["cert"].to_dict())) and "check" not in d
    assert fake_certify["calls"][0][2]["progress"] is None
    rc, out, _ = _certify(capsys, tmp_path, "--json", "--check")
    assert rc == 0 and json.loads(out)["check"] == {"ok": True, "reasons": []}


def test_certify_cli_refused_exits_2(tmp_path, capsys):
    rc = main(["certify", "--depth", "1", "--width", "3", "--heads", "2", "--seq-len", "4",
               "--out", str(tmp_path)])
    assert rc == 2 and "heads=2 must divide width=3" in capsys.readouterr().err


def test_check_certificate_cli_exit_codes(tmp_path, capsys, monkeypatch):
    from seprank.verdicts import certificate_schema, certificates
    from seprank.verdicts.certificates import CheckResult

    result, seen = {}, {}

    def check(path, **kw):
        seen.update(path=path, **kw)
        return result["r"]

    monkeypatch.setattr(certificates, "check_certificate", check)
    monkeypatch.setattr(certificate_schema, "load", lambda path, budget=None: {
        "architecture": "LinearSelfAttention", "config": {}})  # the schema: its tests
    result["r"] = CheckResult(ok=True, exact=True, rank=18, tag="P")
    assert main(["check-certificate", "x.json"]) == 0
    assert capsys.readouterr().out == "valid: separation rank = 18; exact, proved (meets the " \
        "proved upper bound)\n"
    assert seen == {"path": "x.json", "kernel": False, "cls": None, "allow_import": False,
                    "budget": certificate_schema.Budget()}  # the default budget
    result["r"] = CheckResult(ok=True, exact=False, rank=17)
    assert main(["check-certificate", "x.json", "--kernel"]) == 0
    assert capsys.readouterr().out == "valid: separation rank >= 17; a lower bound\n"
    assert seen["kernel"] is True
    result["r"] = CheckResult(ok=False, reasons=["bad one", "bad two"])
    assert main(["check-certificate", "x.json"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == "INVALID certificate:\n  bad one\n  bad two\n"
    assert main(["check-certificate", "x.json", "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"ok": False, "exact": False, "rank": None,
                                                   "status": "invalid",
                                                   "reasons": ["bad one", "bad two"]}

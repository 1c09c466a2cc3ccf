"""seprank.study and ``seprank study``: cells, labels, steps, regimes, resumption, and a
user's numpy class and torch factory against an independent exact truth."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from seprank.errors import ConfigError
from seprank.studies import study_analysis as sa
from seprank.studies import study_cells as sc
from seprank.studies.study import CSV_NAME, from_csv, study
from seprank.theory.regimes import EFFICIENT, INEFFICIENT, NO_GAIN, UNDETERMINED, step_regime
from tests._truth import inputs, rank_over_q

ROOT = Path(__file__).resolve().parents[2]

# ------------------------------------------------------------------ the example


@pytest.fixture(scope="module")
def heads_study(tmp_path_factory):
    db = tmp_path_factory.mktemp("db") / "r.sqlite"
    return study("attention", vary={"depth": [1, 2, 3], "heads": [1, 3]},
                 fixed={"width": 3, "seq_len": 6}, db=db)


def test_ranks_and_labels_of_the_heads_example(heads_study):
    got = {(r["values"]["depth"], r["values"]["heads"]): (r["rank"], r["label"])
           for r in heads_study.rows}
    assert got[(1, 1)] == (4, "exact, proved") and got[(3, 1)] == (3102, "exact, proved")
    assert got[(2, 1)][0] == 49
    assert [got[(L, 3)][0] for L in (1, 2, 3)] == [4, 43, 2441]
    assert got[(3, 3)][1] == "lower bound, saturated"


def test_steps_have_ratios_regimes_and_a_verdict(heads_study):
    steps = {(s["series"]["heads"], s["from"]): s for s in heads_study.steps}
    assert steps[(1, 1)]["ratio"] == pytest.approx(np.log(49) / np.log(4))
    assert steps[(1, 1)]["ratio_label"] == "measured"
    assert steps[(1, 1)]["regime"] == EFFICIENT
    assert steps[(1, 2)]["regime"] == INEFFICIENT  # 2.066 < sqrt(3 * 1.5)
    assert steps[(1, 1)]["degree_law"] == 3  # f's degree measured: 3, 9, 27
    assert steps[(1, 2)]["bound_regime"] == INEFFICIENT
    assert any("transition between depths 2 and 3" in v for v in heads_study.verdict)
    assert any("log3 d = 1.00" in v for v in heads_study.verdict)  # the paper's, beside


def test_parameters_counted_from_init(heads_study):
    # 4 matrices of d_a x d per head per layer: 4 L d^2 whatever the heads
    for r in heads_study.rows:
        assert r["params"] == 4 * r["values"]["depth"] * 9


def test_paper_tables_carry_the_label_column(heads_study):
    tex = heads_study.to_latex()
    assert "\\toprule" in tex and "\\bottomrule" in tex and "& label &" in tex
    assert "3102 & exact, proved" in tex
    md = heads_study.to_markdown().splitlines()
    assert md[0].startswith("| depth | heads |") and len(md) == 2 + len(heads_study.rows)


def test_csv_round_trip_gives_the_same_answers(heads_study, tmp_path):
    heads_study.to_csv(tmp_path / CSV_NAME)
    back = from_csv(tmp_path / CSV_NAME)
    want = [s["ratio"] for s in heads_study.steps]
    assert [s["ratio"] for s in back.steps] == pytest.approx(want)
    assert [s["regime"] for s in back.steps] == [s["regime"] for s in heads_study.steps]
    assert set(back.varied) == {"depth", "heads"}


# ------------------------------------------------------------------ the analysis, unit


def _row(L, rank, kind, degree=None, **values):
    return {"values": {"depth": L, **values}, "varied": ["depth", *values], "rank": rank,
            "kind": kind, "label": kind, "degree": degree or 3**L, "params": L * 10}


def test_step_labels_follow_their_ends():
    ex, lo = sa.EXACT, sa.LOWER
    assert sa.step(_row(1, 4, ex), _row(2, 49, ex), "depth")["ratio_label"] == "measured"
    s = sa.step(_row(1, 4, ex), _row(2, 49, lo), "depth")
    assert s["ratio_label"] == "lower bound" and s["regime"] == EFFICIENT
    s = sa.step(_row(1, 4, lo), _row(2, 49, ex), "depth")
    assert s["ratio"] is None and s["regime"] == UNDETERMINED
    s = sa.step(_row(1, 1, ex), _row(2, 49, ex), "depth")
    assert s["ratio"] is None  # log 1 = 0
    s = sa.step(_row(1, 4, sa.ESTIMATE), _row(2, 49, ex), "depth")
    assert s["ratio"] is None


def test_a_lower_bound_ratio_below_the_midpoint_is_undetermined():
    s = sa.step(_row(2, 49, sa.EXACT), _row(3, 100, sa.LOWER), "depth")
    assert s["ratio_label"] == "lower bound" and s["regime"] == UNDETERMINED


def test_regime_against_the_two_laws():
    assert step_regime(2.5, 3.0, 2.0)[0] == EFFICIENT
    assert step_regime(2.4, 3.0, 2.0)[0] == INEFFICIENT  # below sqrt(6) = 2.449
    assert step_regime(1.0, 3.0, 2.0)[0] == NO_GAIN
    assert step_regime(2.5, None, 2.0)[0] == UNDETERMINED
    assert step_regime(2.5, 1.0, 2.0)[0] == UNDETERMINED  # the laws cannot be told apart


def test_transition_bracketed_not_reached_and_before():
    eff = {"regime": EFFICIENT}
    bad = {"regime": INEFFICIENT}
    t = sa.transition([dict(eff, **{"from": 1, "to": 2}), dict(bad, **{"from": 2, "to": 3})])
    assert t["status"] == "bracketed" and t["between"] == [2, 3]
    t = sa.transition([dict(eff, **{"from": 1, "to": 2}), dict(eff, **{"from": 2, "to": 3})])
    assert t["status"] == "not reached" and t["up_to"] == 3
    t = sa.transition([dict(bad, **{"from": 1, "to": 2})])
    assert t["status"] == "before"


def test_budget_winner_certain_only_when_the_others_are_settled():
    rows = [_row(1, 10, sa.EXACT), _row(2, 50, sa.LOWER), _row(3, 40, sa.EXACT)]
    b = sa.budgets(rows)
    assert [x["budget"] for x in b] == [10, 20]  # depth 3 (30) wins nothing
    assert b[-1]["winner"]["depth"] == 2 and b[-1]["certain"]  # the others' ranks are true
    rows[2]["kind"] = sa.LOWER  # depth 3 could be larger than measured
    assert not sa.budgets(rows)[-1]["certain"]


def test_depth_width_map():
    steps = [{"from": 1, "to": 2, "series": {"width": w}, "regime": reg}
             for w, reg in ((2, INEFFICIENT), (3, EFFICIENT), (4, EFFICIENT))]
    m = sa.depth_width_map(steps, "width")
    assert m[0]["efficient"] == [3, 4] and m[0]["stops_paying_up_to"] == 2


# ------------------------------------------------------------------ cells and rules


def test_rules_are_integer_expressions_only():
    key, tree = sc.parse_rule("seq_len=2*width+max(1, depth)")
    assert sc.evaluate_rule(tree, {"width": 3, "depth": 2}, key) == 8
    for bad in ("seq_len=__import__('os')", "seq_len=2.5*width", "seq_len=width.real",
                "seq_len", "=3"):
        with pytest.raises(ConfigError, match="rule"):
            sc.parse_rule(bad)


def test_invalid_combinations_are_listed_not_dropped():
    s = study("attention", vary={"depth": [1], "width": [2, 3], "heads": [2]}, db=None)
    bad = [r for r in s.rows if r["status"] == "invalid"]
    assert len(bad) == 1 and "heads" in bad[0]["error"]
    assert any("invalid" in n for n in s.notes)


def test_heads_divisors_expands_per_width():
    a = sc.resolve_arch("attention")
    cells = sc.expand(a, {"depth": [1], "width": [4], "heads": ["divisors"]}, {},
                      sc.default_rules(a, {}, {"depth": 1}, {}))
    assert [c.values["heads"] for c in cells] == [1, 2, 4]
    assert {c.values["seq_len"] for c in cells} == {8}  # the default rule


def test_values_ranges_and_refusals():
    assert sc.parse_values("depth", "2:4") == [2, 3, 4]
    for bad in ("4:2", "a:b", "", "1,,2"):
        with pytest.raises(ConfigError, match="depth"):
            sc.parse_values("depth", bad)
    with pytest.raises(ConfigError, match="both varied and fixed"):
        study("attention", vary={"depth": [1], "width": [2]}, fixed={"width": 2}, db=None)


# ------------------------------------------------------------------ running


def test_a_rerun_measures_only_the_missing_cells(tmp_path):
    db = tmp_path / "r.sqlite"
    kw = dict(fixed={"width": 2}, db=db)
    first = study("attention", vary={"depth": [1, 2]}, **kw)
    assert first.measured_now == 2
    again = study("attention", vary={"depth": [1, 2, 3]}, **kw)
    assert again.measured_now == 1 and again.from_store == 2
    assert [r["rank"] for r in again.rows] == [3, 18, 232]


def test_time_limit_and_cell_limit_leave_cells_listed(tmp_path):
    s = study("attention", vary={"depth": [3, 4]}, fixed={"width": 3}, db=None,
              cell_limit=1e-6)  # both estimates exceed it
    assert {r["status"] for r in s.rows} == {"refused"}
    assert all("cell limit" in r["error"] and "estimated" in r["error"] for r in s.rows)
    db = tmp_path / "r.sqlite"
    s = study("attention", vary={"depth": [1, 2, 3]}, fixed={"width": 2}, db=db,
              max_seconds=1e-9)  # stopped before the first cell with a nonzero estimate
    unrun = [r for r in s.rows if r["status"] == "not run"]
    assert unrun and any("left unrun" in n for n in s.notes)
    again = study("attention", vary={"depth": [1, 2, 3]}, fixed={"width": 2}, db=db)
    assert again.measured_now == len(unrun) and again.from_store == 3 - len(unrun)


def test_a_refused_cell_is_measured_by_the_fallback_and_reused(tmp_path):
    from seprank import measure
    from seprank.nets import LinearSelfAttention

    kw = dict(vary={"depth": [3]}, fixed={"width": 3, "heads": 3}, strategy="graded",
              cell_limit=0.5, out=tmp_path)  # graded's estimate (~2.5 s) is over it
    refused = study("attention", db=None, **kw)
    assert refused.rows[0]["status"] == "refused" and "cell limit" in refused.rows[0]["error"]
    s = study("attention", db=tmp_path / "f.sqlite", fallback="sketch", **kw)
    row = s.rows[0]
    assert row["status"] == "done" and row["strategy"] == "sketch"
    assert "fallback" in row["note"] and "max_samples=250" in row["note"]
    assert any("fallback" in n for n in s.notes)
    truth = measure(LinearSelfAttention(depth=3, width=3, heads=3, seq_len=6),
                    strategy="sketch", max_samples=250)
    assert row["rank"] == truth.rank and row["label"] == truth.label
    assert row["rank"] < 2441 and "lower bound" in row["label"]  # capped: never exact
    unrun = study("attention", db=None, fallback="sketch", max_seconds=1e-9,
                  **dict(kw, out=None))  # planned for the fallback, stopped before it
    assert unrun.rows[0]["status"] == "not run"
    assert unrun.rows[0]["note"].startswith("not measured: planned for the fallback")
    again = study("attention", db=None, fallback="sketch", **kw)  # from the CSV, not run
    assert again.measured_now == 0 and again.rows[0]["rank"] == row["rank"]
    with pytest.raises(ConfigError, match="fallback"):
        study("attention", db=None, fallback="nope", **kw)


def test_dask_runs_a_study(tmp_path):
    pytest.importorskip("distributed")
    s = study("attention", vary={"depth": [1, 2]}, fixed={"width": 2}, db=tmp_path / "d.sqlite",
              executor="dask", workers=1)
    assert [r["rank"] for r in s.rows] == [3, 18]


# ------------------------------------------------------------------ users' code, exact truth

USER = textwrap.dedent('''
    from dataclasses import dataclass

    import numpy as np


    @dataclass(frozen=True)
    class DeepProduct:
        """h_n <- (W_l h_n) * (sum_m V_l h_m), elementwise; reads h_0[0]."""

        depth: int
        width: int
        seq_len: int = 4

        def init(self, rng, domain):
            return [(domain.random(rng, (self.width, self.width)),
                     domain.random(rng, (self.width, self.width))) for _ in range(self.depth)]

        def apply(self, params, X, domain):
            h = X
            for W, V in params:
                s = domain.einsum("bnd,ed->be", h, V)
                h = domain.mul(domain.einsum("bnd,ed->bne", h, W), s[:, None, :])
            return h[:, 0, 0]


    def make(depth, width):
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.ModuleList(nn.Linear(width, width, bias=False)
                                       for _ in range(depth))
                self.v = nn.ModuleList(nn.Linear(width, width, bias=False)
                                       for _ in range(depth))

            def forward(self, x):
                for w, v in zip(self.w, self.v):
                    x = w(x) * v(x).sum(dim=1, keepdim=True)
                return x

        return Net()
''')


def truth(depth: int, width: int, seq_len: int = 4) -> int:
    """The rank over Q of f's coefficient matrix, f written out with python-flint and
    integer weights of our own (generic: the same rank as random ones w.h.p.)."""
    X, _ = inputs(seq_len, width)
    rng = np.random.default_rng(12345)
    h = [list(row) for row in X]
    for _ in range(depth):
        W = rng.integers(-7, 8, (width, width))
        V = rng.integers(-7, 8, (width, width))
        s = [sum(int(V[e, d]) * h[n][d] for n in range(seq_len) for d in range(width))
             for e in range(width)]
        h = [[sum(int(W[e, d]) * h[n][d] for d in range(width)) * s[e] for e in range(width)]
             for n in range(seq_len)]
    return rank_over_q(h[0][0], list(range(seq_len // 2)))


@pytest.fixture(scope="module")
def user_module(tmp_path_factory):
    folder = tmp_path_factory.mktemp("user")
    (folder / "study_user.py").write_text(USER)
    sys.path.insert(0, str(folder))
    yield folder
    sys.path.remove(str(folder))
    sys.modules.pop("study_user", None)


def test_user_numpy_class_against_the_exact_truth(user_module):
    s = study("study_user:DeepProduct", vary={"depth": [1, 2], "width": [2]}, db=None)
    got = [r["rank"] for r in s.rows]
    assert got == [truth(1, 2), truth(2, 2)]
    assert all(r["kind"] in (sa.EXACT, sa.SATURATED) for r in s.rows)
    assert [r["degree"] for r in s.rows] == [2, 4]  # the degree law: 2 a layer
    assert s.rows[0]["params"] == 8


def test_torch_factory_against_the_exact_truth(user_module):
    pytest.importorskip("torch")
    s = study("torch:study_user:make", vary={"depth": [1, 2]},
              fixed={"width": 2, "seq_len": 4}, db=None)
    assert [r["rank"] for r in s.rows] == [truth(1, 2), truth(2, 2)]
    assert s.rows[1]["params"] == 16


def test_cli_json_and_plot_only(user_module, tmp_path):
    env = {"PYTHONPATH": f"{user_module}:{ROOT}", "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path), "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "seprank", "study", "--arch", "study_user:DeepProduct",
           "--vary", "depth=1:2", "--param", "width=2", "--json", "--executor", "serial",
           "--db", str(tmp_path / "r.sqlite"), "--out", str(tmp_path / "o")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {"rows", "steps", "verdict"} <= set(d)
    assert {"depth", "rank", "label"} <= set(d["rows"][0])
    assert {"from", "to", "ratio", "regime"} <= set(d["steps"][0])
    assert (tmp_path / "o" / "study.png").stat().st_size > 0
    assert d["figure"] == str(tmp_path / "o" / "study.png") and "figure_pdf" not in d
    assert not (tmp_path / "o" / "study.pdf").exists()  # the PDF only with --pdf
    (tmp_path / "o" / "study.png").unlink()
    r = subprocess.run([sys.executable, "-m", "seprank", "study", "--plot-only", "--pdf",
                        "--out", str(tmp_path / "o")], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "o" / "study.png").exists()
    assert (tmp_path / "o" / "study.pdf").read_bytes()[:5] == b"%PDF-"
    assert "study.pdf" in r.stdout.splitlines()[-1]
    bad = subprocess.run([sys.executable, "-m", "seprank", "study", "--vary", "depth=3:1"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and "depth" in bad.stderr and "Traceback" not in bad.stderr

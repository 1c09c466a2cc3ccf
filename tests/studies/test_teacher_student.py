"""experiments/teacher_student: torch forward vs seprank's numpy network, parameter counts,
targets of known rank, the depth-1 capacity bound, the smoke preset through its command line, and
the analysis's rank-1 control check."""

import csv
import math

import numpy as np
import pytest

from experiments.teacher_student.run import main as run_main

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "depth,width,heads,residual", [(1, 3, 1, False), (2, 4, 2, False), (3, 2, 1, True),
                                   (2, 6, 3, True)],
)
def test_torch_linear_attention_matches_seprank_float64(depth, width, heads, residual):
    from experiments.teacher_student.students import LinearAttention
    from seprank.algebra.domains import Float64
    from seprank.nets import LinearSelfAttention

    net = LinearSelfAttention(depth=depth, width=width, heads=heads, seq_len=5,
                              residual=residual)
    rng = np.random.default_rng(depth * 10 + width)
    params = {k: rng.normal(size=v.shape) for k, v in net.init(rng, Float64()).items()}
    X = rng.normal(size=(7, 5, width))
    want = net.apply(params, X, Float64())
    core = LinearAttention(depth, width, heads, residual=residual).double()
    with torch.no_grad():
        for k, v in params.items():
            getattr(core, k).copy_(torch.as_tensor(v))
        got = core(torch.as_tensor(X))[:, 0, 0].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
    assert np.abs(want).max() > 1e-3  # a real comparison, not zeros against zeros


@pytest.mark.parametrize("student", ["softmax", "linear"])
@pytest.mark.parametrize("depth", [1, 3, 6])
def test_non_embedding_count_matches_torch(student, depth):
    from experiments.teacher_student.students import STUDENTS, build

    width = STUDENTS[student]["width"](6000, depth)
    m = build(student, depth, width, seq_len=8, in_dim=2)
    assert m.non_embedding_params() == STUDENTS[student]["params"](depth, width)
    core = sum(p.numel() for p in m.core.parameters())
    assert core == STUDENTS[student]["params"](depth, width)


def test_linear_width_spends_the_budget_closest():
    from experiments.teacher_student.students import linear_params, linear_width

    for budget in (600, 1500, 6000):
        for L in range(1, 7):
            d = linear_width(budget, L)
            err = abs(linear_params(L, d) - budget)
            assert all(err <= abs(linear_params(L, w) - budget) for w in range(1, 80))


@pytest.mark.parametrize("rank", [1, 3, 6])
def test_sum_of_products_has_its_rank(rank):
    from experiments.teacher_student.targets import make_target

    info = make_target(f"sop-R{rank}", 8, 2, seed=1).rank_info(grid=64)
    assert info["rank_measured"] == rank == info["rank_upper"]
    assert info["rank_status"] == "meets R by construction"  # a float rank: never exact
    assert info["label"] == "float estimate, untrusted"


def test_teacher_rank_is_measured_on_its_own_weights():
    from experiments.teacher_student.targets import make_target
    from seprank.theory.bounds import block_bound

    t = make_target("teacher-L2", 8, 2, seed=0)
    info = t.rank_info()
    assert info["rank_upper"] == block_bound(2, 2, 4, 4) == 18
    assert 1 < info["rank_measured"] <= info["rank_upper"]
    u = np.random.default_rng(0).uniform(-1, 1, size=(5, 8, 2))
    assert np.all(np.isfinite(t(u)))


def test_bad_target_name():
    from experiments.teacher_student.targets import make_target

    with pytest.raises(ValueError, match="target="):
        make_target("sop-3", 8, 2, 0)


def test_depth1_linear_student_rank_is_p_plus_2_measured():
    """The proved capacity p + 2 at depth 1 (capacity.py) against a measured grid rank."""
    from experiments.teacher_student.capacity import linear_capacity, student_grid_rank
    from experiments.teacher_student.students import LinearStudent

    torch.manual_seed(0)
    ranks = {}
    for L in (1, 2):
        m = LinearStudent(L, 6, seq_len=8, in_dim=2)
        with torch.no_grad():
            m.core.Wo.mul_(10)  # generic, not near the identity start
        ranks[L] = student_grid_rank(m, 8, 2, grid=48)
    cap, which = linear_capacity(1, 6, 8, 2)
    assert ranks[1] == round(10**cap) == 4 and "p + 2" in which
    assert ranks[2] > 4  # depth 2 escapes it (so the measurement can exceed 4)


def test_smoke_through_its_command_line_finite_and_resumes(tmp_path, capsys):
    assert run_main(["--preset", "smoke", "--out", str(tmp_path)]) == 0
    with (tmp_path / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 12 and {r["seed"] for r in rows} == {"0"}
    for r in rows:
        assert math.isfinite(float(r["test_fvu"])) and float(r["test_fvu"]) >= 0
    assert {r["student"] for r in rows} == {"softmax", "linear"}
    summary = (tmp_path / "summary.md").read_text()
    assert "Rank-1 control" in summary
    assert "] sop-R1" in capsys.readouterr().err  # progress lines
    # resume: a rerun trains nothing and keeps the rows
    assert run_main(["--preset", "smoke", "--out", str(tmp_path)]) == 0
    with (tmp_path / "results.csv").open() as f:
        assert len(list(csv.DictReader(f))) == 12
    assert "] sop-R1" not in capsys.readouterr().err


def test_unknown_preset_exits_2_naming_it(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        run_main(["--preset", "nope", "--out", str(tmp_path)])
    assert e.value.code == 2 and "--preset: invalid choice: 'nope'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _row(student, depth, target, seed, fvu, rank=1, cap=0.6):
    return dict(student=student, budget="100", depth=str(depth), width="4", target=target,
                seed=str(seed), test_fvu=str(fvu), target_rank=str(rank),
                rank_status="exact", capacity_log10=str(cap), capacity_which="x",
                student_grid_rank="", protocol="v1", train_fvu=str(fvu), val_fvu=str(fvu),
                epochs="20", best_epoch="3")


def test_analysis_control_is_computed_and_can_fail():
    from experiments.teacher_student.analysis import control, report

    ok = [_row("linear", L, "ctrl-R1", s, 0.01) for L in (1, 2) for s in range(3)]
    assert not control(ok)["failed"]
    assert "Protocol v1: **Every student fits the control**: 2 of 2" in report(ok)
    bad = ok[:-1] + [_row("linear", 2, "ctrl-R1", 2, 0.5)]  # one seed of one cell fails
    c = control(bad)
    assert [k for k, _ in c["failed"]] == [("linear", 100, 2)]
    assert "**Not every student fits the control**: 1 of 2" in report(bad)
    assert "linear B=100 L=2 seed 2: test FVU 0.5" in report(bad)
    assert "stuck at the mean" not in report(bad)  # 0.5 is not the mean
    stuck = ok[:-1] + [_row("linear", 2, "ctrl-R1", 2, 1.0)]
    assert "stuck at the mean: best validation FVU over all epochs 1" in report(stuck)
    # sop-R1 is a rank-1 target, not the control
    old = [_row("linear", 1, "sop-R1", s, 0.9) for s in range(3)]
    assert "fitted on every seed in 0 of 1 cells" in report(ok + old)
    assert "**Every student fits the control**" in report(ok + old)


def test_analysis_compares_like_with_like_protocols():
    from experiments.teacher_student.analysis import report

    v1 = [_row("linear", L, t, s, 0.5) for L in (1, 2) for s in range(3)
          for t in ("ctrl-R1", "sop-R4")]
    v2 = [dict(_row("linear", L, "ctrl-R1", s, 0.01), protocol="v2") for L in (1, 2)
          for s in range(3)]
    text = report(v1 + v2)
    assert "12 runs of training protocol v1" in text and "6 runs of other protocols" in text
    assert "Protocol v1: **Not every student fits the control**: 0 of 2" in text
    assert "Protocol v2: **Every student fits the control**: 2 of 2" in text
    tables = text.split("## linear student")[1]
    assert "0.01" not in tables  # v2 rows never enter the v1 tables
    v3 = [dict(r, protocol="v3", test_fvu="0.02") for r in v1]  # as many rows as v1: v3
    text = report(v1 + v3)
    assert "12 runs of training protocol v3" in text
    assert "0.5" not in text.split("## linear student")[1]


def test_protocol_v3_trains_on_while_at_the_mean():
    """arm_below: no early stop while the best validation FVU has not left the mean."""
    import torch

    from experiments.teacher_student.train import train

    rng = np.random.default_rng(0)
    data = {k: (rng.uniform(-1, 1, (64, 3)), rng.normal(size=64)) for k in ("train", "val",
                                                                            "test")}  # noise
    kw = dict(lr=0.0, batch=16, max_epochs=12, patience=2, min_epochs=0, seed=0)  # flat
    runs = {}
    for arm in (None, 0.5):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0))
        runs[arm] = train(model, data, arm_below=arm, **kw)
    assert runs[0.5]["val_fvu"] >= 0.5  # never left the mean: pure noise
    assert runs[0.5]["epochs"] == 12  # so it trained to max_epochs
    assert runs[None]["epochs"] == 2  # v1's rule stops on the plateau after patience


def test_protocol_column_added_to_old_csv_and_in_resume_key(tmp_path):
    from experiments.teacher_student.run import FIELDS, _add_protocol_column, key, read_rows

    path = tmp_path / "results.csv"
    old = [f for f in FIELDS if f != "protocol"]
    row = {f: "1" for f in old} | dict(target="ctrl-R1", student="linear")
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=old)
        w.writeheader()
        w.writerow(row)
    _add_protocol_column(path)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == FIELDS and rows[0]["protocol"] == "v1"
    assert key(read_rows(path)[0]) != key(dict(read_rows(path)[0], protocol="v2"))


def test_analysis_compares_errors_above_capacity_with_the_rank_floor():
    from experiments.teacher_student.analysis import rank_floor, report

    assert rank_floor("sop-R8", 0, 4) > 1e-3 and rank_floor("sop-R8", 0, 8) < 1e-9
    rows = [_row("linear", 1, "sop-R8", s, 0.9, rank=8) for s in range(3)]
    assert "met or exceeded by 3 of 3 runs (agree)" in report(rows)
    rows[0]["test_fvu"] = "0.0"  # below what any rank-4 function reaches on the grid
    assert "met or exceeded by 2 of 3 runs (the rest" in report(rows)


def _hand_set_control(model, target, seq_len, dim):
    """Weights of a LinearStudent that compute the control (a.u_0)(sum_{j in B} b.u_j)
    exactly: coordinates 0..p-1 carry u, p a side-B indicator (from the positions), p + 1
    the output; layer 1's only j-term is (a.u_0)(1[j in B])(b.u_j) (times N to undo the
    1/N score scale); deeper layers are zero, so the skip path carries it to the readout."""
    p, out = dim, dim + 1
    with torch.no_grad():
        for prm in model.parameters():
            prm.zero_()
        model.embed.weight[:p, :p] = torch.eye(p, dtype=model.embed.weight.dtype)
        model.pos[seq_len // 2 :, p] = 1.0
        core = model.core
        core.Wq[0, 0, 0, :p] = torch.as_tensor(target.a)
        core.Wk[0, 0, 0, p] = 1.0
        core.Wv[0, 0, 0, :p] = torch.as_tensor(target.b)
        core.Wo[0, 0, out, 0] = float(seq_len)
        model.head.weight[0, out] = 1.0


@pytest.mark.parametrize("budget", [1500, 6000])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_linear_student_represents_the_control_exactly(depth, budget):
    """Proof by construction (float64): every depth and cpu-preset width of the linearised
    student holds ctrl-R1, which the old product sop-R1 is not at depth 1."""
    from experiments.teacher_student.students import STUDENTS, LinearStudent
    from experiments.teacher_student.targets import CONTROL, make_target, sample_inputs

    t = make_target(CONTROL, 8, 2, seed=depth)
    width = STUDENTS["linear"]["width"](budget, depth)
    m = LinearStudent(depth, width, seq_len=8, in_dim=2).double()
    u = sample_inputs(np.random.default_rng(depth), 500, 8, 2)
    y = t(u)
    with torch.no_grad():
        fresh = m(torch.as_tensor(u)).numpy()
    assert np.mean((fresh - y) ** 2) / np.var(y) > 0.5  # an untrained student does not
    _hand_set_control(m, t, 8, 2)
    with torch.no_grad():
        got = m(torch.as_tensor(u)).numpy()
    assert np.max(np.abs(got - y)) <= 1e-12 * np.max(np.abs(y))
    assert np.var(y) > 1e-3  # a real target, not zeros


def test_control_is_rank_1_and_named():
    from experiments.teacher_student.targets import CONTROL, make_target

    t = make_target(CONTROL, 8, 2, seed=3)
    info = t.rank_info(grid=64)
    assert t.name == CONTROL and info["rank_measured"] == 1 == info["rank_upper"]
    u = np.random.default_rng(0).uniform(-1, 1, size=(4, 8, 2))
    v = u.copy()
    v[:, 1:4] = 0.0  # the control reads only position 0 on side A
    np.testing.assert_allclose(t(u), t(v))


def test_restart_rule_keeps_the_best_attempt(monkeypatch):
    """A run that never leaves the mean starts again from a fresh initialisation."""
    import dataclasses

    import experiments.teacher_student.train as tr
    from experiments.teacher_student.run import PRESETS, plan, run_one
    from experiments.teacher_student.targets import make_target

    preset = dataclasses.replace(PRESETS["smoke"], arm_below=0.5, restarts=2, grid=0)
    seeds, fvus = [], iter([1.0, 0.3, 0.9])  # attempt 2 leaves the mean: no third

    def fake_train(model, data, **kw):
        seeds.append(torch.initial_seed())
        v = next(fvus)
        return dict(train_fvu=v, val_fvu=v, test_fvu=v, epochs=3, best_epoch=1,
                    diverged=0, seconds=1.0)

    monkeypatch.setattr(tr, "train", fake_train)
    run = next(r for r in plan(preset) if r["student"] == "linear" and r["seed"] == 0)
    target = make_target(run["target"], preset.seq_len, preset.dim, 0)
    info = dict(target_rank=1, rank_measured=1, rank_upper=1,
                rank_status="meets R by construction", label="float estimate, untrusted")
    row = run_one(run, preset, target, info, None, "cpu")
    assert seeds == [0, 1000] and row["restarts"] == 1
    assert row["val_fvu"] == 0.3 and row["seconds"] == 2.0
    fvus = iter([0.9, 0.8, 0.95])  # never leaves: three attempts, the best kept
    seeds.clear()
    row = run_one(run, preset, target, info, None, "cpu")
    assert seeds == [0, 1000, 2000] and row["restarts"] == 2 and row["val_fvu"] == 0.8


def test_analysis_reports_restarted_runs():
    from experiments.teacher_student.analysis import report

    rows = [dict(_row("linear", L, "ctrl-R1", s, 0.01), restarts="0") for L in (1, 2)
            for s in range(3)]
    assert "restarted" not in report(rows)
    rows[0]["restarts"], rows[1]["restarts"] = "1", "2"
    rows[1]["val_fvu"] = "0.8"
    assert ("Runs restarted from a fresh initialisation (best validation FVU of the first "
            "attempt >= 0.5): 2, of which 1 left the mean on a later attempt (linear B=100 "
            "L=1 ctrl-R1 seed 0)") in report(rows)

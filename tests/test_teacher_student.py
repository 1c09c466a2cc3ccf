"""experiments/teacher_student: torch forward vs seprank's numpy network, parameter counts,
targets of known rank, the depth-1 capacity bound, the smoke preset through the CLI, and
the analysis's rank-1 control check."""

import csv
import math

import numpy as np
import pytest

from seprank.cli import main

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "depth,width,heads,residual", [(1, 3, 1, False), (2, 4, 2, False), (3, 2, 1, True),
                                   (2, 6, 3, True)],
)  # fmt: skip
def test_torch_linear_attention_matches_seprank_float64(depth, width, heads, residual):
    from experiments.teacher_student.students import LinearAttention
    from seprank.domains import Float64
    from seprank.nets import LinearSelfAttention

    net = LinearSelfAttention(depth=depth, width=width, heads=heads, seq_len=5,
                              residual=residual)  # fmt: skip
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
    assert info["rank_status"] == "exact"


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


def test_smoke_through_cli_finite_and_resumes(tmp_path, capsys):
    assert main(["experiment", "--name", "teacher-student", "--preset", "smoke",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
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
    assert main(["experiment", "--name", "teacher-student", "--preset", "smoke",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    with (tmp_path / "results.csv").open() as f:
        assert len(list(csv.DictReader(f))) == 12
    assert "] sop-R1" not in capsys.readouterr().err


def test_unknown_experiment_name_exits_2(tmp_path, capsys):
    assert main(["experiment", "--name", "nope", "--preset", "smoke",
                 "--out", str(tmp_path)]) == 2  # fmt: skip
    assert "name='nope'" in capsys.readouterr().err


def _row(student, depth, target, seed, fvu, rank=1, cap=0.6):
    return dict(student=student, budget="100", depth=str(depth), width="4", target=target,
                seed=str(seed), test_fvu=str(fvu), target_rank=str(rank),
                rank_status="exact", capacity_log10=str(cap), capacity_which="x",
                student_grid_rank="")  # fmt: skip


def test_analysis_control_is_computed_and_can_fail():
    from experiments.teacher_student.analysis import control, report

    ok = [_row("linear", L, "sop-R1", s, 0.01) for L in (1, 2) for s in range(3)]
    assert not control(ok)["failed"]
    assert "Fitted by every student: 2 of 2" in report(ok)
    bad = ok[:-1] + [_row("linear", 2, "sop-R1", 2, 0.5)]  # one seed of one cell fails
    c = control(bad)
    assert [k for k, _ in c["failed"]] == [("linear", 100, 2)]
    assert "Not fitted by every student" in report(bad)


def test_analysis_compares_errors_above_capacity_with_the_rank_floor():
    from experiments.teacher_student.analysis import rank_floor, report

    assert rank_floor("sop-R8", 0, 4) > 1e-3 and rank_floor("sop-R8", 0, 8) < 1e-9
    rows = [_row("linear", 1, "sop-R8", s, 0.9, rank=8) for s in range(3)]
    assert "met or exceeded by 3 of 3 runs (agree)" in report(rows)
    rows[0]["test_fvu"] = "0.0"  # below what any rank-4 function reaches on the grid
    assert "met or exceeded by 2 of 3 runs (the rest" in report(rows)

"""seprank.studies.verify in this process: the grid's budget filter, the verdict of one network
(each branch, the proved bound shifted where a branch needs it), the partitions checked,
the measured growth, the summary and the statements printed at the end, and run() on a
three-network grid through the serial executor."""

import csv
import io
import random
import types

import pytest

from seprank import labels
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention
from seprank.studies import verify
from seprank.theory.bounds import theorem_bound
from seprank.verdicts import verdict


def _net(L=2, d=2, H=1, N=4, res=False):
    return LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=res)


def _shift_bound(monkeypatch, by):
    """verify's proved bound reported ``by`` higher than proved (lower where negative)."""

    def shifted(n, partition=None):
        ub = dict(theorem_bound(n, partition))
        ub["upper"] += by
        return ub

    monkeypatch.setattr(verify, "theorem_bound", shifted)

    monkeypatch.setattr(verdict, "theorem_bound", shifted)


@pytest.mark.timeout(300)  # the first measurement here compiles the GF(p) kernel (numba):
# about a minute on a loaded machine with a cold cache (a mutation run's scratch copy)
def test_first_measurement():
    row = verdict.verify_one(_net(L=1))
    assert row["measured"] == row["upper"] == 3 and row["verdict"] == "exact, proved"
    assert row["label"] == "exact, proved" and row["exact_proved"] is True


# --------------------------------------------------------------------------------------
# the grid


def test_unknown_grid_refused():
    with pytest.raises(ConfigError, match=r"grid='nope' must be one of quick, default"):
        verify.configs("nope")
    with pytest.raises(ConfigError, match=r"grid='nope' must be one of"):
        verify.run("nope", "unused")


def test_shipped_grids_read():
    for name in verify.GRID_NAMES:
        g = verify._grid_file(name)
        assert g["grid"]["name"] == f"verify-{name}" and g["grid"]["max_samples"] == 6000


def test_configs_keep_bounds_up_to_the_budget(monkeypatch):
    from seprank.sweeps import grid_file

    grid = {"grid": {"max_bound": 18}, "params": {}, "exclude": []}
    monkeypatch.setattr(verify, "_grid_file", lambda g: grid)
    huge = dict(depth=10, width=100, heads=1, seq_len=2000)  # over MAX_DIGITS: upper None
    small = [dict(depth=L, width=2, heads=1, seq_len=4) for L in (1, 2, 3)]  # 3, 18, 232
    monkeypatch.setattr(grid_file, "combos", lambda g: [*small, huge])
    nets, skipped = verify.configs("quick")
    assert [n.depth for n in nets] == [1, 2] and skipped == 2


def test_configs_of_the_quick_grid():
    nets, skipped = verify.configs("quick")
    assert len(nets) == 92 and skipped > 0
    assert all(theorem_bound(n)["upper"] <= 1500 for n in nets)


# --------------------------------------------------------------------------------------
# the partitions checked


class _Draws(random.Random):
    """random.Random that fails after 10,000 draws: a search that cannot end fails fast."""

    def __init__(self, seed):
        super().__init__(seed)
        self.draws = 0

    def sample(self, *a, **kw):
        self.draws += 1
        assert self.draws <= 10_000, "still drawing: no partition left to find"
        return super().sample(*a, **kw)


def test_other_partitions():
    rng = _Draws(0)
    assert verdict._other_partitions(_net(N=2), 2, rng) == []
    assert verdict._other_partitions(_net(N=3), 2, rng) == []
    assert verdict._other_partitions(_net(N=5), 2, rng) == []
    assert verdict._other_partitions(_net(N=4), 0, rng) == []
    assert verdict._other_partitions(_net(N=4), 1, rng) == [(2, 3)]
    # every balanced partition of 4 positions but the default (0, 1): 5 of them
    got = verdict._other_partitions(_net(N=4), 5, _Draws(0))
    assert got[0] == (2, 3) and sorted(got) == [(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert sorted(verdict._other_partitions(_net(N=4), 6, _Draws(0))) == sorted(got)  # ends
    got = verdict._other_partitions(_net(N=6), 4, _Draws(1))
    assert len(got) == 4 == len(set(got)) and got[0] == (3, 4, 5)
    assert all(len(p) == 3 and list(p) == sorted(p) and p != (0, 1, 2) for p in got)


# --------------------------------------------------------------------------------------
# one network's row


def test_verify_one_row_fields():
    row, m = verdict.verify_one(_net(), with_measurement=True)
    assert m.rank == row["measured"] == 18 and row["upper"] == 18
    assert list(row) == verify.COLUMNS
    assert row["log10_upper"] == round(theorem_bound(_net())["log10_upper"], 4) == 1.2553
    assert row["bound"] == "block" and row["regime_paper"] == "depth-inefficient"
    assert row["regime_growth"] == "" and row["gap"] == 0 and row["exact_proved"] is True
    assert row["label"] == m.label == "exact, proved"
    assert (row["depth"], row["width"], row["heads"], row["seq_len"], row["residual"]) == \
        (2, 2, 1, 4, False)
    assert isinstance(verdict.verify_one(_net(L=1)), dict)


def test_verify_one_options_are_keywords():
    with pytest.raises(TypeError):
        verdict.verify_one(_net(L=1), 3)  # seed by keyword only: refused before measuring


def test_verify_one_seconds(monkeypatch):
    clock = iter([100.0, 101.23456])
    monkeypatch.setattr(verdict, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    assert verdict.verify_one(_net(L=1), partitions_to_check=0)["seconds"] == 1.235


def test_verify_one_passes_seed_and_budget(monkeypatch):
    calls = []
    real = verdict.measure

    def spy(net, partition=None, **kw):
        calls.append((partition, kw))
        return real(net, partition, **kw)

    monkeypatch.setattr(verdict, "measure", spy)
    verdict.verify_one(_net(L=1))
    assert calls[0] == (None, {"seed": 0, "max_samples": 6000}) and len(calls) == 3
    assert all(kw == {"seed": 0} for p, kw in calls[1:])
    # the query on the other side, then one more balanced partition (not the default)
    assert calls[1][0] == (2, 3) and calls[2][0] not in (None, (0, 1), (2, 3))
    calls.clear()
    row = verdict.verify_one(_net(L=1), seed=3, partitions_to_check=1, max_samples=500)
    assert calls == [(None, {"seed": 3, "max_samples": 500}), ((2, 3), {"seed": 3})]
    assert row["partitions_checked"] == 1


def test_verify_one_partition_mismatch(monkeypatch):
    real = verdict.measure

    def other_rank_elsewhere(net, partition=None, **kw):
        m = real(net, partition, **kw)
        return m if partition is None else types.SimpleNamespace(rank=m.rank + 1)

    monkeypatch.setattr(verdict, "measure", other_rank_elsewhere)
    row = verdict.verify_one(_net(L=1))
    assert row["partitions_checked"] == 2 and row["partition_invariant"] == "NO"


def test_verify_one_unchecked_partitions():
    row = verdict.verify_one(_net(L=1, N=2))
    assert row["partitions_checked"] == 0 and row["partition_invariant"] == "-"


def test_verify_one_violation_and_exact_proved(monkeypatch):
    _shift_bound(monkeypatch, -1)
    row = verdict.verify_one(_net(L=1))
    assert row["verdict"] == "VIOLATION" and row["gap"] == -1 and not row["exact_proved"]
    assert row["label"] == labels.above_label(labels.PROVED)
    _shift_bound(monkeypatch, 0)
    row = verdict.verify_one(_net(L=1))
    assert row["verdict"] == row["label"] == "exact, proved" and row["exact_proved"] is True


def test_verify_one_not_saturated(monkeypatch):
    real = verdict.measure

    def unsaturated(net, partition=None, **kw):
        m = real(net, partition, **kw)
        return types.SimpleNamespace(rank=m.rank, saturated=False, budget_hit=m.budget_hit)

    monkeypatch.setattr(verdict, "measure", unsaturated)
    _shift_bound(monkeypatch, 1)
    row = verdict.verify_one(_net(L=1))
    assert row["verdict"] == "not saturated (lower bound only)" and row["saturated"] is False
    assert row["label"] == "lower bound, not saturated" and row["exact_proved"] is False


@pytest.mark.parametrize("net, shift, want", [
    # one head, no residual, >= d_x positions on each side, measured below: the block
    # formula (conjectured exact there) fails; with a query side of exactly d_x positions
    (_net(L=1), 1, "below formula (H=1 conjecture fails)"),
    # the same but one condition false: below the bound only
    (_net(L=2, res=True), 0, "below bound"),      # residual (measured 18 < 20)
    (_net(L=2, H=2), 0, "below bound"),           # two heads (17 < 18)
    (_net(L=1, d=3, N=5), 1, "below bound"),      # query side 2 < d_x = 3 <= other side 3
])
def test_verify_one_below_verdicts(monkeypatch, net, shift, want):
    _shift_bound(monkeypatch, shift)
    row = verdict.verify_one(net)
    assert row["verdict"] == want and row["saturated"] and 0 < row["gap"]
    assert row["label"] == "lower bound, saturated" and row["exact_proved"] is False


# --------------------------------------------------------------------------------------
# growth, summary, verdict, tables (on rows made here)


def _row(L=2, d=2, H=1, N=4, res=False, measured=18, upper=18, sat=True, **kw):
    row = {"depth": L, "width": d, "heads": H, "seq_len": N, "residual": res,
           "measured": measured, "label": labels.rank_label(measured, sat, upper=upper),
           "saturated": sat, "upper": upper, "log10_upper": 1.0,
           "bound": "block", "exact_proved": measured == upper, "gap": upper - measured,
           "regime_paper": "depth-inefficient", "regime_growth": "", "partitions_checked": 2,
           "partition_invariant": "yes", "verdict": "exact, proved", "seconds": 0.5}
    row.update(kw)
    return row


def test_fill_growth():
    rows = [
        _row(L=1, measured=4), _row(L=2, measured=48), _row(L=3, measured=96),  # 2.79, 1.18
        _row(L=1, d=3, measured=2), _row(L=2, d=3, measured=4),   # ratio 2.00 (rank 2 counts)
        _row(L=1, N=6, measured=5), _row(L=2, N=6, measured=1),   # rank 1: no log
        _row(L=1, H=2, measured=3), _row(L=2, H=2, measured=9, sat=False),  # unsaturated...
        _row(L=1, res=True, measured=3, upper=9, sat=False),     # ...and not exact, proved
        _row(L=2, res=True, measured=27, upper=27, sat=False),   # exact, proved; not saturated
        _row(L=1, N=8, measured=3), _row(L=2, N=8, measured=27, upper=30, sat=False),
    ]
    verify._fill_growth(rows)
    assert [r["regime_growth"] for r in rows] == [
        # against the degree law 3 and the linear law (L+1)/L (the study's words): 2.79 is
        # above sqrt(3 * 2), 1.18 below sqrt(3 * 1.5), and 2.00 below sqrt(3 * 2)
        "depth-efficient (2.79)", "depth-inefficient (1.18)", "- (no L+1 row)",
        "depth-inefficient (2.00)", "- (no L+1 row)",
        "- (no L+1 row)", "- (no L+1 row)",
        "- (no L+1 row)", "- (no L+1 row)",
        "- (no L+1 row)", "- (no L+1 row)",
        "- (no L+1 row)", "- (no L+1 row)",
    ]


def _summary(rows, **kw):
    s = {"grid": "quick", "configurations": len(rows), "skipped_for_size": 3, "seed": 7,
         "exact_proved": 1, "saturated": 2, "violations": 0, "h1_conjecture_failures": 1,
         "partition_mismatches": 0, "interrupted": False, "not_measured": [], "run": {}}
    s.update(kw)
    return s


def test_summary_lines():
    s = _summary([_row(), _row()])
    assert verify.summary_lines(s) == [
        "2 configurations measured (grid quick, seed 7; 3 left out as too large for this grid)",
        "2 saturated, 1 exact, proved (measured == proved upper bound)",
        "0 violations of a proved bound; 1 H=1 configurations below the block formula; "
        "0 partition-invariance mismatches",
    ]
    s = _summary([_row()], not_measured=[{}, {}], interrupted=True, run={"db": "x.sqlite"})
    assert verify.summary_lines(s)[3:] == [
        "2 configurations failed or were refused: seprank results --db x.sqlite --where "
        "status!=done shows why",
        "INTERRUPTED: the table holds the configurations finished so far",
    ]
    s = _summary([_row()], not_measured=[{}], run={"db": None})
    assert verify.summary_lines(s)[3] == ("1 configurations failed or were refused: seprank "
                                          "results --db OUT/results.sqlite --where status!=done "
                                          "shows why")


def test_growth_agreement():
    rows = [_row(regime_growth="depth-efficient (2.10)", regime_paper="depth-efficient"),
            _row(regime_growth="depth-inefficient (1.10)", regime_paper="depth-inefficient"),
            _row(regime_growth="depth-inefficient (1.50)", regime_paper="depth-efficient"),
            _row(regime_growth="depth-efficient (2.50)", regime_paper="depth-inefficient"),
            _row(regime_growth="- (no L+1 row)", regime_paper="depth-efficient"),
            _row(regime_growth="depth-efficient (3.00)", regime_paper="depth-inefficient"),
            _row(regime_growth="- (no L+1 row)", regime_paper="depth-inefficient")]
    agree, disagree, slow, fast = verify._growth_agreement(rows)
    assert (agree, disagree, slow, len(fast)) == (2, 3, 1, 2)
    assert fast == [(rows[3]["depth"], rows[3]["width"])] * 2  # where depth kept paying
    assert verify._growth_agreement([]) == (0, 0, 0, [])


def test_the_regime_line_says_what_it_rests_on():
    fast = _row(L=1, d=3, regime_growth="depth-efficient (2.50)",
                regime_paper="depth-inefficient")
    text = "\n".join(verify.verdict_lines([fast], _summary([fast])))
    assert "rests only on L=1->2 at d_x=3, read against the two laws" in text


def test_verdict_lines_all_held():
    rows = [_row(N=4, d=2, regime_growth="depth-efficient (2.10)",
                 regime_paper="depth-efficient"),
            _row(N=2, d=2, measured=3, upper=3)]
    assert verify.verdict_lines(rows, _summary(rows)) == [
        "VERDICT (grid quick, 2 configurations):",
        "- proved upper bound: held in 2/2 (measured rank <= proved bound)",
        "- H = 1 block formula (conjectured exact for one head, no residual, >= d_x positions "
        "per side): exact in 1/1 configurations that are exact, proved or saturated",
        "- paper's regime rule (depth-efficient iff L < log3 d_x) vs the measured growth's "
        "regime (log rank(L+1) / log rank(L) nearer the degree law 3 or the linear law "
        "(L+1)/L): agree in 1, disagree in 0 of 1 rows with an L+1 measurement",
        "- partition invariance: the same rank on every other balanced partition checked in "
        "2/2 configurations (4 partitions; configurations with N < 4 or odd N are not "
        "checked)",
    ]


def test_verdict_lines_with_failures():
    rows = [
        _row(measured=19, verdict="VIOLATION"),                       # H=1, N//2 = d
        _row(measured=17, verdict="below formula (H=1 conjecture fails)"),
        _row(measured=12, sat=False, verdict="not saturated"),         # not counted in H=1
        _row(H=2, measured=17),                                        # not H=1
        _row(res=True, measured=18, upper=20),                         # residual: not H=1
        _row(N=4, d=3, measured=40, upper=49),                         # N//2 < d: not H=1
        _row(N=6, d=3, measured=40, upper=40, sat=False),              # exact: H=1 counted
        _row(regime_growth="depth-inefficient (1.50)", regime_paper="depth-efficient",
             partitions_checked=1, partition_invariant="NO"),
        _row(regime_growth="depth-efficient (2.50)", regime_paper="depth-inefficient",
             partitions_checked=0, partition_invariant="-"),
        _row(regime_growth="depth-efficient (2.60)", regime_paper="depth-inefficient"),
    ]
    lines = verify.verdict_lines(rows, _summary(rows, violations=1))
    assert lines[0] == "VERDICT (grid quick, 10 configurations):"
    assert lines[1] == ("- proved upper bound: held in 9/10 (measured rank <= proved bound); "
                        "VIOLATED in 1: a bug, see stderr")
    assert lines[2] == (
        "- H = 1 block formula (conjectured exact for one head, no residual, >= d_x positions "
        "per side): exact in 4/6 configurations that are exact, proved or saturated (the "
        "others are counterexamples: see verdict)")
    assert lines[3].endswith("agree in 0, disagree in 3 of 3 rows with an L+1 measurement")
    assert lines[4] == ("  2 disagreements: the rule calls L depth-inefficient, yet the measured "
                        "growth there is nearer the degree law: depth keeps paying beyond "
                        "log3 d_x at these sizes (this rests only on L=2->3 at d_x=2, read "
                        "against the two laws as seprank study reads them, not a theorem)")
    assert lines[5] == ("  1 disagreements: the rule calls L depth-efficient, yet the measured "
                        "growth is nearer the linear law")
    assert lines[6] == ("- partition invariance: the same rank on every other balanced partition "
                        "checked in 8/9 configurations (17 partitions; configurations with N < 4 "
                        "or odd N are not checked)")
    assert lines[7] == ("- 1 configurations are neither exact, proved nor saturated (the "
                        "Schwartz-Zippel bound on a false saturation above the threshold): their "
                        "ranks are lower bounds only")
    assert len(lines) == 8


def test_markdown_and_write(tmp_path):
    rows = [_row(), _row(L=3, measured=200, upper=232)]
    s = _summary(rows)
    md = verify.markdown(rows, s)
    head, table = md.split("## Table\n\n")
    assert head == ("# seprank verify\n\n" + "\n".join(f"- {x}" for x in verify.summary_lines(s))
                    + "\n\n## Verdict\n\n" + "\n".join(verify.verdict_lines(rows, s)[1:])
                    + "\n\n")
    lines = table.split("\n")
    assert lines[0] == verify.LEGEND and lines[1] == ""
    assert lines[2] == "| " + " | ".join(verify.COLUMNS) + " |"
    assert lines[3] == "|" + "---|" * 19
    assert lines[5] == "| 3 | 2 | 1 | 4 | False | 200 | lower bound, saturated | True | " \
        "232 | 1.0 | block | False | 32 | depth-inefficient |  | 2 | yes | exact, proved | " \
        "0.5 |"
    assert lines[6:] == [""]
    verify.write(rows, s, tmp_path / "new" / "folder")  # created, with its parent
    assert (tmp_path / "new" / "folder" / "results.md").read_text() == md
    with (tmp_path / "new" / "folder" / "results.csv").open() as f:
        got = list(csv.DictReader(f))
    assert [r["measured"] for r in got] == ["18", "200"] and list(got[0]) == verify.COLUMNS


def test_print_table_and_reproduce_command(capsys):
    rows = [_row(regime_growth="- (no L+1 row)"), _row(L=3, d=12, res=True, measured=1000,
                                                        upper=1234, verdict="below bound")]
    buf = io.StringIO()
    verify.print_table(rows, file=buf)
    assert buf.getvalue().splitlines() == [
        "depth  width  heads  N  res    measured  sat   upper  exact_proved  regime_paper       "
        "regime_growth   part  verdict      ",
        "2      2      1      4  False  18        True  18     True          depth-inefficient  "
        "- (no L+1 row)  yes   exact, proved",
        "3      12     1      4  True   1000      True  1234   False         depth-inefficient  "
        "                yes   below bound  ",
    ]
    verify.print_table(rows[:1])
    assert capsys.readouterr().out.splitlines()[0].startswith("depth  width  heads  N  res")
    assert verify.reproduce_command(rows[0]) == \
        "seprank measure --depth 2 --width 2 --heads 1 --seq-len 4"
    assert verify.reproduce_command(rows[1]) == \
        "seprank measure --depth 3 --width 12 --heads 1 --seq-len 4 --residual"


# --------------------------------------------------------------------------------------
# run: a three-network grid (bounds 3, 18, 232; budget 18) through the serial executor


@pytest.fixture
def small_grid(monkeypatch, tmp_path):
    from seprank.sweeps.grid_file import read_grid

    f = tmp_path / "g.toml"
    f.write_text('[grid]\ntask = "verify"\nmax_bound = 18\n[params]\ndepth = [1, 2, 3]\n'
                 "width = [2]\nheads = [1]\nseq_len = [4]\nresidual = [false]\n")
    grid = read_grid(f)
    monkeypatch.setattr(verify, "_grid_file", lambda g: grid)
    return grid


@pytest.mark.parametrize("seed", [True, -1, 1.0, "1"])
def test_run_refuses_a_bad_seed(seed, small_grid, tmp_path):
    with pytest.raises(ConfigError, match=r"seed=.* must be an integer in \[0, 2\*\*63-1\]$"):
        verify.run("quick", tmp_path / "out", seed)
    assert not (tmp_path / "out").exists()


def test_run_small_grid(small_grid, tmp_path, monkeypatch, capsys):
    from seprank.sweeps import runner as sweep
    from seprank.sweeps import tasks

    specs, sweeps = [], []
    real_spec, real_sweep = tasks.spec_for_net, sweep.run

    def spec_spy(kind, net, **kw):
        specs.append((kind, kw))
        return real_spec(kind, net, **kw)

    def sweep_spy(task_specs, store, **kw):
        sweeps.append(kw)
        return real_sweep(task_specs, store, **kw)

    monkeypatch.setattr(tasks, "spec_for_net", spec_spy)
    monkeypatch.setattr(sweep, "run", sweep_spy)
    out = tmp_path / "out"
    rows, s = verify.run("quick", out, executor="serial")
    # the grid has no max_samples: 6000 per configuration
    assert specs == [("verify", {"seed": 0, "max_samples": 6000, "grid": "verify-quick"})] * 2
    assert sweeps == [{"executor": "serial", "scheduler": None, "workers": None,
                       "worker_memory": None, "progress": True, "dask_processes": True,
                       "retries": 2, "label": "verify quick"}]
    assert [(r["depth"], r["measured"], r["verdict"]) for r in rows] == \
        [(1, 3, "exact, proved"), (2, 18, "exact, proved")]
    assert [r["label"] for r in rows] == ["exact, proved"] * 2
    assert rows[0]["regime_growth"] == "depth-efficient (2.63)"
    assert {k: v for k, v in s.items() if k != "run"} == {
        "grid": "quick", "configurations": 2, "planned": 2, "skipped_for_size": 1,
        "exact_proved": 2,
        "saturated": 2, "violations": 0, "h1_conjecture_failures": 0,
        "partition_mismatches": 0, "interrupted": False, "seed": 0, "not_measured": []}
    assert s["run"]["done"] == 2 and s["run"]["db"] == str(out / "results.sqlite")
    assert (out / "results.md").read_text() == verify.markdown(rows, s)
    assert (out / "results.csv").read_text().count("\n") == 3
    # a rerun measures nothing: the store has both
    rows2, s2 = verify.run("quick", out, executor="serial", progress=False)
    assert rows2 == rows and s2["run"]["done"] == 0 and s2["run"]["skipped"] == 2


def test_run_counts_what_the_rows_say(small_grid, tmp_path, monkeypatch):
    # bound lowered by one: two violations, counted; with a seed passed on
    _shift_bound(monkeypatch, -1)
    rows, s = verify.run("quick", tmp_path, seed=2, executor="serial", progress=False,
                         db=tmp_path / "other.sqlite")
    assert [r["verdict"] for r in rows] == ["VIOLATION", "VIOLATION"]
    assert s["violations"] == 2 and s["exact_proved"] == 0 and s["seed"] == 2
    assert {r["label"] for r in rows} == {labels.above_label(labels.PROVED)}
    assert (tmp_path / "other.sqlite").exists() and not (tmp_path / "results.sqlite").exists()


def test_run_counts_h1_failures_and_mismatches(small_grid, tmp_path, monkeypatch):
    _shift_bound(monkeypatch, 1)
    monkeypatch.setitem(small_grid["grid"], "max_bound", 19)  # the shifted 18
    real = verdict.measure

    def other_rank_elsewhere(net, partition=None, **kw):
        m = real(net, partition, **kw)
        return m if partition is None or net.depth == 1 else types.SimpleNamespace(rank=0)

    monkeypatch.setattr(verdict, "measure", other_rank_elsewhere)
    rows, s = verify.run("quick", tmp_path, executor="serial", progress=False)
    assert s["h1_conjecture_failures"] == 2 and s["exact_proved"] == 0 and s["saturated"] == 2
    assert s["partition_mismatches"] == 1


def test_run_refused_configurations_listed(small_grid, tmp_path):
    rows, s = verify.run("quick", tmp_path, executor="serial", progress=False,
                         worker_memory=2**20)
    assert rows == [] and s["configurations"] == 0 and s["planned"] == 2
    assert [(m["config"]["depth"], m["status"]) for m in s["not_measured"]] == \
        [(1, "refused"), (2, "refused")]
    assert all("estimated peak memory" in m["error"] for m in s["not_measured"])


def test_run_returns_a_report_for_notebooks(small_grid, tmp_path):
    """The report unpacks as (rows, summary), has a short repr and an HTML table, and
    to_frame gives bool columns as bool."""
    pd = pytest.importorskip("pandas")
    report = verify.run("quick", tmp_path, executor="serial", progress=False)
    rows, s = report
    assert report.rows is rows and report.summary is s
    r = repr(report)
    assert "\n" not in r and len(r) <= 200, r
    assert r.startswith("VerifyReport(grid quick, seed 0: 2 configurations, 2 exact, "
                        "proved, 2 saturated, 0 violations;")
    h = report._repr_html_()
    assert h.startswith("<table>") and h.endswith("</table>") and "violations" in h
    df = report.to_frame()
    assert list(df.columns) == verify.COLUMNS and len(df) == 2
    for c in ("residual", "saturated", "exact_proved"):
        assert pd.api.types.is_bool_dtype(df[c]) and df[c].dtype == bool, c
    assert df["measured"].tolist() == [3, 18] and df["exact_proved"].tolist() == [True, True]
    assert df["label"].tolist() == ["exact, proved"] * 2
    empty = verify.VerifyReport([], s).to_frame()
    assert list(empty.columns) == verify.COLUMNS and len(empty) == 0


def test_upgrade_row_reads_an_older_row():
    """A row stored or written before the vocabulary (``tight``, no ``label``) is read in
    the current words, its label derived from its own fields."""
    old = {"measured": 17, "upper": 18, "saturated": "True", "tight": "False",
           "verdict": "below bound"}
    assert verify.upgrade_row(dict(old)) == {"measured": 17, "upper": 18, "saturated": "True",
                                             "exact_proved": "False", "verdict": "below bound",
                                             "label": "lower bound, saturated"}
    met = verify.upgrade_row(dict(old, measured=18, tight="True", verdict="tight"))
    assert (met["label"], met["verdict"], met["exact_proved"]) == \
        ("exact, proved", "exact, proved", "True")
    assert verify.upgrade_row({"measured": 3, "upper": 9, "saturated": False,
                               "exact_proved": False})["label"] == "lower bound, not saturated"

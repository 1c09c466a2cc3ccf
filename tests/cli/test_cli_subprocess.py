import json
import subprocess
import sys

import pytest

from seprank.cli import main
from seprank.studies import verify


def run(*args):
    return subprocess.run([sys.executable, "-m", "seprank.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_measure_json_contract():
    r = run("measure", "--depth", "2", "--width", "2", "--seq-len", "4", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for key in ("rank", "saturated", "certified", "method", "samples", "seconds", "config"):
        assert key in d
    assert d["rank"] == 18 and d["saturated"] and d["config"]["depth"] == 2


@pytest.mark.parametrize(
    "args, text",
    [
        (["measure", "--depth", "1", "--width", "3", "--heads", "2", "--seq-len", "2"],
         "heads=2 must divide width=3"),
        (["measure", "--depth", "1", "--width", "2", "--seq-len", "1"], "seq_len=1"),
        (["measure", "--depth", "0", "--width", "2", "--seq-len", "2"], "--depth: must be >= 1"),
        (["measure", "--depth", "1", "--width", "2", "--seq-len", "4", "--partition", "0,0"],
         "partition"),
        (["measure", "--depth", "1", "--width", "2", "--seq-len", "4", "--prime", "15"],
         "--prime: prime=15 must be a prime in"),
        (["measure", "--depth", "1", "--width", "2", "--seq-len", "4", "--rank-engine", "gpu"],
         "rank_engine="),
        (["measure", "--depth", "1", "--width", "2", "--seq-len", "4", "--rank-engine", "blas",
          "--prime", "2147483647"], "rank_engine='blas' needs prime"),
        (["measure", "--depth", "1", "--width", "2", "--seq-len", "4", "--max-samples", "999999"],
         "max_samples"),
        (["measure", "--depth", "x"], "depth"),
        (["guide", "--params", "-5"], "params"),
        (["bounds", "--depth", "1", "--width", "2", "--seq-len", "4", "--partition", "9"],
         "partition"),
    ],
)
def test_bad_input_one_line_exit_2(args, text):
    r = run(*args)
    assert r.returncode == 2
    lines = [x for x in r.stderr.strip().splitlines() if x]
    assert len(lines) == 1 and text in lines[0] and "Traceback" not in r.stderr


def test_bounds_json_keys():
    r = run("bounds", "--depth", "2", "--width", "3", "--seq-len", "6", "--json")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    d = json.loads(r.stdout)
    for key in ("upper", "log10_upper", "regime_paper", "regime_bound_growth",
                "growth_ratio_bound", "transition_depth_paper", "which", "why"):
        assert key in d
    assert "regime_measured" not in d  # computed from the bound, not measured: renamed
    assert d["upper"] == 49


def test_guide_json(capsys):
    assert main(["guide", "--params", "175e9", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert 75 < d["depth"] < 85 and 12000 < d["width"] < 15000 and d["params"] == 175e9
    assert d["gpt3"]["verdict"] == "too deep"


def test_guide_verdict_text(capsys):
    assert main(["guide", "--depth", "96", "--width", "12288"]) == 0
    assert "too deep" in capsys.readouterr().out


def test_verify_quick_writes_tables(tmp_path, capsys):
    rc = main(["verify", "--quick", "--out", str(tmp_path)])
    assert rc == 0
    csv_text = (tmp_path / "results.csv").read_text()
    md = (tmp_path / "results.md").read_text()
    assert "VIOLATION" not in csv_text and "exact, proved" in csv_text and "tight" not in csv_text
    assert csv_text.splitlines()[0] == ",".join(verify.COLUMNS)
    assert "0 violations" in md


#: monkeypatched code runs only in this process: the serial executor
SERIAL = ["--executor", "serial"]


def _one_net_grid(monkeypatch, lie_by=0):
    """verify on one small net; the proved bound reported lowered by ``lie_by`` (so a
    positive value plants a VIOLATION, as a wrong bound or a wrong rank would)."""
    from seprank.nets import LinearSelfAttention
    from seprank.studies import verify
    from seprank.theory.bounds import theorem_bound
    from seprank.verdicts import verdict

    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4)
    monkeypatch.setattr(verify, "configs", lambda grid="default": ([net], 0))

    def lowered(n, partition=None):
        ub = dict(theorem_bound(n, partition))
        ub["upper"] -= lie_by
        return ub

    monkeypatch.setattr(verify, "theorem_bound", lowered)

    monkeypatch.setattr(verdict, "theorem_bound", lowered)


def test_verify_exits_1_on_a_violation(tmp_path, capsys, monkeypatch):
    _one_net_grid(monkeypatch, lie_by=1)
    assert main(["verify", "--quick", "--out", str(tmp_path), *SERIAL]) == 1
    out, err = capsys.readouterr()
    assert "1 violations" in out and "VIOLATION: measured 18 > proved 17" in err
    assert "seprank measure --depth 2 --width 2 --heads 1 --seq-len 4" in err
    assert "VIOLATION" in (tmp_path / "results.csv").read_text()


def test_verify_exits_0_when_exact_proved(tmp_path, capsys, monkeypatch):
    _one_net_grid(monkeypatch, lie_by=0)
    assert main(["verify", "--quick", "--out", str(tmp_path), *SERIAL]) == 0
    out = capsys.readouterr().out
    assert "0 violations" in out and "1 saturated, 1 exact, proved" in out
    assert "tight" not in out and "proven" not in out


def test_verify_exits_130_when_interrupted(tmp_path, capsys, monkeypatch):
    from seprank.verdicts import verdict

    _one_net_grid(monkeypatch)

    def interrupt(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(verdict, "verify_one", interrupt)
    assert main(["verify", "--quick", "--out", str(tmp_path), *SERIAL]) == 130
    assert "INTERRUPTED" in capsys.readouterr().out


@pytest.mark.parametrize("cfg, verdict", [((2, 2, 1, 4, False), "exact, proved"),
                                          ((2, 4, 2, 4, False), "below bound"),
                                          ((3, 2, 1, 4, False), "exact, proved")])
def test_verify_one_verdicts(cfg, verdict):
    from seprank.nets import LinearSelfAttention
    from seprank.verdicts.verdict import verify_one

    L, d, H, N, res = cfg
    row = verify_one(LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=res))
    assert row["verdict"] == verdict and row["saturated"]
    assert row["gap"] == row["upper"] - row["measured"] >= 0
    assert row["exact_proved"] == (verdict == "exact, proved") and row["partitions_checked"] == 2
    assert row["label"] == ("exact, proved" if verdict == "exact, proved" else
                            "lower bound, saturated")
    assert row["partition_invariant"] == "yes"

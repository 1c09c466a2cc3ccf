"""What a new user tries first: every edge gives one clear line and exit 2 within 10 s,
or finishes; --version, python -m seprank, the verify verdict, figures --quick."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import seprank
from seprank.errors import ConfigError, TooBigError
from seprank.nets import LinearSelfAttention

ROOT = Path(__file__).resolve().parents[2]


def run(*args, cwd=None, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "seprank", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd, env=env)


M = ["measure", "--depth"]


@pytest.mark.parametrize(
    "args, text",
    [
        (M + ["1", "--width", "100000", "--seq-len", "8"], "width: the weights need"),
        (M + ["50", "--width", "100", "--seq-len", "8"], "would take about"),
        (M + ["50", "--width", "100", "--seq-len", "100000"], "max_samples: the sample points"),
        (M + ["1", "--width", "2", "--seq-len", "4", "--seed", "-1"], "--seed"),
        (["verify", "--quick", "--seed", "-1"], "--seed"),
        (["verify", "--quick", "--out", "/proc/x"], "out='/proc/x' is not a writable folder"),
        (["figures", "--quick", "--out", "/proc/x"], "out='/proc/x' is not a writable folder"),
    ],
)
def test_edge_inputs_one_line_exit_2_fast(args, text, tmp_path):
    import resource

    def child_cpu():
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    t = child_cpu()
    r = run(*args, cwd=tmp_path)
    assert child_cpu() - t < 10, args  # CPU seconds (wall time varies with machine load)
    assert r.returncode == 2, (args, r.stdout[-500:], r.stderr[-500:])
    lines = [x for x in r.stderr.strip().splitlines() if x]
    assert len(lines) == 1 and text in lines[0], lines
    assert "Traceback" not in r.stderr and "%|" not in r.stderr  # no progress bar either


def test_experiment_out_checked_before_work(tmp_path):
    pytest.importorskip("torch")
    r = subprocess.run([sys.executable, "-m", "experiments.depth_width.run", "--preset", "smoke",
                        "--out", "/proc/x"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "out='/proc/x'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("net", ["hello", 3, None, object()])
def test_measure_api_names_the_argument(net):
    with pytest.raises(ConfigError, match="^net=.*is not an architecture"):
        seprank.measure(net)


def test_api_refuses_huge_weights_before_allocating():
    with pytest.raises(TooBigError, match="^width: the weights need"):
        seprank.measure(LinearSelfAttention(depth=1, width=100_000, seq_len=8))


def test_long_run_prints_its_estimate():
    lines = []
    net = LinearSelfAttention(depth=50, width=100, seq_len=8)
    from seprank.engine.estimate import check_cost, estimate
    from seprank.engine.strategies.base import grid_model_cost

    est = estimate(net, (0, 1, 2, 3), (4, 5, 6, 7), method="modular", max_samples=600,
                   start=16, fast=True)
    check_cost(grid_model_cost(est, 0), 2**40, say=lines.append)
    assert len(lines) == 1 and lines[0].startswith("estimate: degree 3^50")
    assert "lower bound only" in lines[0]


def test_graded_estimate_models_the_blocks():
    """The estimate of a graded run counts its A-degree blocks (their proved bounds add up
    to the block bound, computed here by a different route), and warns about the budget
    only when the largest block exceeds it, not the total rank (31460 > 16000 here)."""
    from seprank.engine.estimate import TheoryFacts
    from seprank.engine.strategies.graded import blocks_cost
    from seprank.theory.bounds import block_bound

    net = LinearSelfAttention(depth=3, width=4, seq_len=8)
    A, B = (0, 1, 2, 3), (4, 5, 6, 7)
    blocks = TheoryFacts(net, A).graded_blocks
    assert len(blocks) == 14 and max(blocks) == 11440 and sum(blocks) == block_bound(3, 4, 4, 4)
    line = blocks_cost(net, A, B, blocks, 16000, 16, True).note
    assert "14 A-degree blocks, largest <= 11,440" in line and "lower bound only" not in line
    assert "lower bound only" in blocks_cost(net, A, B, blocks, 8000, 16, True).note
    assert TheoryFacts(LinearSelfAttention(depth=2, width=2, seq_len=4, residual=True),
                       (0, 1)).graded_blocks is None


def test_short_run_says_nothing():
    lines = []
    seprank.measure(LinearSelfAttention(depth=1, width=2, seq_len=4), progress=lines.append)
    assert not any(x.startswith("estimate") for x in lines)


def test_version_and_python_m_help():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"seprank {seprank.__version__}"
    r = run("--help")
    assert r.returncode == 0 and "exit codes" in r.stdout


def test_every_option_has_help_and_defaults_are_shown():
    from seprank.cli import _build_parser

    ap = _build_parser()
    sub = next(a for a in ap._actions if a.choices and "measure" in a.choices)
    for name, p in sub.choices.items():
        for a in p._actions:
            if a.option_strings and a.dest != "help":
                assert a.help, f"{name} {a.option_strings} has no help"
    text = sub.choices["measure"].format_help()
    assert "(default: auto)" in text and "rank" in text and "budget_hit" in text


def test_verify_json_and_verdict(tmp_path, capsys):
    from seprank.cli import main

    assert main(["verify", "--quick", "--json", "--out", str(tmp_path)]) == 0
    d = json.loads(capsys.readouterr().out)
    v = d["verdict"]
    assert any(x.startswith("- proved upper bound: held in 92/92") for x in v)
    assert any("H = 1 block formula" in x and "exact in" in x for x in v)
    assert any("agree in" in x and "disagree in" in x for x in v)
    assert any(x.startswith("- partition invariance") for x in v)
    md = (tmp_path / "results.md").read_text()
    assert "## Verdict" in md and "Columns: `depth` L" in md


def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_figures_quick_leaves_paper_figures_alone(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", ".hypothesis", ".pytest_cache",
        "seprank-results", "seprank-figures-quick"))
    before = _digest(copy / "paper_figures")
    env = dict(os.environ, PYTHONPATH=str(copy))
    r = subprocess.run([sys.executable, "-m", "seprank", "figures", "--quick"], cwd=copy,
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert _digest(copy / "paper_figures") == before
    assert (copy / "seprank-figures-quick" / "fig1_rank_vs_depth.png").exists()
    assert "seprank-figures-quick" in r.stdout

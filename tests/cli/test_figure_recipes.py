"""The gallery's recipes (docs/gallery.md) run from an empty folder: each writes its
figure there and nothing into the checkout; `seprank figures` does not overwrite the
committed figures without --overwrite."""

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seprank.cli import main
from seprank.figures import paper

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "paper_figures"


def _digest(folder: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def test_transition_plot_only_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    before = _digest(COMMITTED)
    monkeypatch.chdir(tmp_path)
    assert main(["transition", "--plot-only", "--out", ".", "--quiet"]) == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert {"fig8_measured_transition.png", "fig8_measured_transition.pdf",
            "fig8_measured_transition.csv"} <= names
    assert (tmp_path / "fig8_measured_transition.csv").read_bytes() == \
        (COMMITTED / "fig8_measured_transition.csv").read_bytes()
    assert _digest(COMMITTED) == before


def test_transition_plot_only_default_folder_outside_the_checkout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["transition", "--plot-only", "--quiet"]) == 0
    assert (tmp_path / "paper_figures" / "fig8_measured_transition.png").exists()


def test_figures_only_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    before = _digest(COMMITTED)
    monkeypatch.chdir(tmp_path)
    assert main(["figures", "--only", "fig2_regimes", "fig13_heads_bound", "--out", ".",
                 "--quiet"]) == 0
    names = {p.name for p in tmp_path.iterdir()}
    for stem in ("fig2_regimes", "fig13_heads_bound"):
        assert {f"{stem}.png", f"{stem}.pdf", f"{stem}.csv"} <= names
    assert "README.md" not in names and "fig1_rank_vs_depth.png" not in names
    assert "wrote 2 figures (PNG, PDF, CSV) to ." in capsys.readouterr().out
    assert _digest(COMMITTED) == before


@pytest.mark.parametrize("argv", [["figures"], ["figures", "--out", str(COMMITTED)]])
def test_figures_refuses_the_committed_folder_without_overwrite(argv, monkeypatch, capsys):
    before = _digest(COMMITTED)
    monkeypatch.chdir(ROOT)
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and "--overwrite" in err and "committed" in err
    assert _digest(COMMITTED) == before


def test_every_gallery_recipe_names_a_figure_that_exists():
    """The gallery's `seprank figures --only NAME` recipes cover every figure the command
    draws, and each NAME is a committed figure."""
    gallery = (ROOT / "docs" / "gallery.md").read_text()
    named = set(re.findall(r"seprank figures --only (\S+) --out \.", gallery))
    assert named == set(paper.FIGURE_NAMES.values())
    for name in named:
        assert (COMMITTED / f"{name}.png").exists(), name


SCRIPT_RECIPES = [  # the gallery's script figures: (module, CSV to copy or read, outputs)
    (["experiments.mixers_compare", "--plot-only", "--out", "."], "mixers_compare.csv",
     ["mixers_compare.png", "mixers_params.png"]),
    (["experiments.mixers_length", "--plot-only", "--out", "."], "mixers_length.csv",
     ["mixers_length.png"]),
    (["experiments.teacher_student.analysis",
      str(ROOT / "experiments/teacher_student/results/results.csv"), "--figure",
      "./fig10_teacher_student"], None, ["fig10_teacher_student.png"]),
]


@pytest.mark.parametrize("argv, csv, outputs", SCRIPT_RECIPES)
def test_script_figures_from_an_empty_folder(argv, csv, outputs, tmp_path):
    before = _digest(COMMITTED)
    if csv is not None:  # --plot-only redraws the CSV in --out: the committed one, copied
        (tmp_path / csv).write_bytes((COMMITTED / csv).read_bytes())
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    subprocess.run([sys.executable, "-m", *argv], cwd=tmp_path, env=env, check=True,
                   capture_output=True, timeout=300)
    assert {p.name for p in tmp_path.iterdir()} >= set(outputs)
    assert _digest(COMMITTED) == before

"""The gallery's recipes (docs/gallery.md) run from an empty folder: each writes its
figure there and nothing into the checkout; `seprank figures` does not overwrite the
committed figures without --overwrite."""

import hashlib
import re
from pathlib import Path

import pytest

from seprank.cli import main
from seprank.figures import paper

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "paper_figures"


def _digest(folder: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}  # fmt: skip


def test_transition_plot_only_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    before = _digest(COMMITTED)
    monkeypatch.chdir(tmp_path)
    assert main(["transition", "--plot-only", "--out", ".", "--quiet"]) == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert {"fig8_measured_transition.png", "fig8_measured_transition.pdf",
            "fig8_measured_transition.csv"} <= names  # fmt: skip
    assert (tmp_path / "fig8_measured_transition.csv").read_bytes() == \
        (COMMITTED / "fig8_measured_transition.csv").read_bytes()  # fmt: skip
    assert _digest(COMMITTED) == before


def test_transition_plot_only_default_folder_outside_the_checkout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["transition", "--plot-only", "--quiet"]) == 0
    assert (tmp_path / "paper_figures" / "fig8_measured_transition.png").exists()


def test_figures_only_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    before = _digest(COMMITTED)
    monkeypatch.chdir(tmp_path)
    assert main(["figures", "--only", "fig2_regimes", "fig13_heads_bound", "--out", ".",
                 "--quiet"]) == 0  # fmt: skip
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

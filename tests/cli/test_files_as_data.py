"""Files from elsewhere are data: check-certificate, results, sweep over a store someone
sent and transition --plot-only import no module a file names (the module's top-level code
would run), whether that module sits in the working directory or on PYTHONPATH; the
user's own word (--arch, --torch, --allow-import, a grid file named on the command line)
does import it. Run as ``python -m seprank`` in a subprocess: the working directory is
then on sys.path, as it is for a user."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _tripwire import TORCH_SOURCE, forget, tripwire

from seprank.cli import main
from seprank.nets.registry import resolve
from seprank.verdicts.certificates import certify

ROOT = Path(__file__).resolve().parents[2]
REFUSED = ("the certificate names the module 'tripmod' (architecture 'tripmod:MyNet'); a "
           "module a file names is not imported without your word (importing runs its "
           "code): if you trust it, give --arch tripmod:MyNet (or --allow-import)")


def seprank(argv, cwd, pythonpath=()) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *map(str, pythonpath)]),
               OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "seprank", *map(str, argv)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def sent(tmp_path, monkeypatch):
    """tripmod.py in ``code/`` (importing it writes ``marks/tripmod.ran``) and a
    certificate of tripmod:MyNet in ``certs/``; the module then forgotten, the mark gone."""
    code = tmp_path / "code"
    code.mkdir()
    mark = tripwire(code, tmp_path / "marks")
    monkeypatch.syspath_prepend(str(code))
    c = certify(resolve("tripmod:MyNet")(seq_len=4, terms=3), (0, 1))
    path = c.write(tmp_path / "certs")
    forget("tripmod", mark)
    yield code, path, mark
    forget("tripmod", mark)


@pytest.mark.parametrize("where", ["working directory", "PYTHONPATH"])
def test_check_certificate_does_not_import_the_module_it_names(sent, tmp_path, where):
    code, path, mark = sent
    cwd, extra = (code, ()) if where == "working directory" else (tmp_path, (code,))
    r = seprank(["check-certificate", path], cwd, extra)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"seprank: error: {path}: {REFUSED}\n"
    assert not mark.exists()  # its top-level code never ran


@pytest.mark.parametrize("word", [["--arch", "tripmod:MyNet"], ["--allow-import"]])
def test_with_your_word_it_imports_and_checks(sent, word):
    code, path, mark = sent
    r = seprank(["check-certificate", path, *word], code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("valid: separation rank = 3; exact") and mark.exists()


@pytest.mark.parametrize("word, line", [
    (["--arch", "mps"], "--arch mps: the certificate names architecture 'tripmod:MyNet'; "
                        "give that one (or leave --arch out)"),
    (["--torch", "tripmod:make"], "--torch tripmod:make: the certificate is not a torch one "
                                  "(architecture 'tripmod:MyNet'); leave --torch out"),
    (["--arch", "mps", "--torch", "tripmod:make"], "--arch and --torch: give one"),
])
def test_another_word_than_the_certificates_is_refused(sent, capsys, word, line):
    code, path, mark = sent
    assert main(["check-certificate", str(path), *word]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"seprank: error: {line}") and err.count("\n") == 1
    assert not mark.exists()


def test_a_module_that_cannot_be_imported_is_exit_2_never_invalid(sent, tmp_path):
    code, path, mark = sent
    edited = tmp_path / "edited.json"
    edited.write_text(path.read_text().replace("tripmod:MyNet", "gone_xyz:MyNet"))
    r = seprank(["check-certificate", edited, "--allow-import"], code)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert "architecture='gone_xyz:MyNet': module 'gone_xyz' cannot be imported" in r.stderr
    assert "INVALID" not in r.stderr
    r = seprank(["check-certificate", edited, "--arch", "gone_xyz:MyNet"], code)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot be imported" in r.stderr
    r = seprank(["check-certificate", edited], code)  # without permission: refused first
    assert r.returncode == 2 and "names the module 'gone_xyz'" in r.stderr


def test_a_torch_certificate_needs_its_factory_in_your_words(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    from seprank.nets.torch_module import TorchModule

    mark = tripwire(tmp_path, tmp_path / "marks", "tripfac", TORCH_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    c = certify(TorchModule(factory="tripfac:make", seq_len=2, width=2), (0,), upper=2,
                upper_source="a sum of 2 products")
    path = str(c.write(tmp_path / "certs"))
    forget("tripfac", mark)
    try:
        assert main(["check-certificate", path]) == 2
        err = capsys.readouterr().err
        assert "names the module 'tripfac' (factory 'tripfac:make')" in err and \
            "give --torch tripfac:make (or --allow-import)" in err and not mark.exists()
        assert main(["check-certificate", path, "--torch", "tripfac:other"]) == 2
        assert "the certificate names factory 'tripfac:make'; give that one" in \
            capsys.readouterr().err and not mark.exists()
        assert main(["check-certificate", path, "--torch", "tripfac:make"]) == 0
        assert capsys.readouterr().out.startswith("valid: separation rank = 2; exact, given "
                                                  "the stated bound") and mark.exists()
    finally:
        forget("tripfac", mark)


@pytest.fixture
def sent_store(tmp_path, monkeypatch, capsys):
    """A store holding tripmod:MyNet rows: swept here from a grid file naming it (your
    word: the sweep imports it), then the module forgotten, as if the store were sent."""
    code = tmp_path / "code"
    code.mkdir()
    mark = tripwire(code, tmp_path / "marks")
    monkeypatch.syspath_prepend(str(code))
    grid = tmp_path / "mine.toml"
    grid.write_text('[grid]\nname = "mine"\narch = "tripmod:MyNet"\nmethods = ["modular"]\n'
                    "[params]\nseq_len = [4]\nterms = [2, 3]\n")
    db = tmp_path / "sent.sqlite"
    assert main(["sweep", str(grid), "--executor", "serial", "--db", str(db), "--quiet"]) == 0
    assert mark.exists()  # a grid file named on the command line is your word
    capsys.readouterr()
    forget("tripmod", mark)
    yield code, db, mark
    forget("tripmod", mark)


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--csv"]])
def test_results_lists_a_store_naming_a_module_without_importing_it(sent_store, fmt):
    code, db, mark = sent_store
    r = seprank(["results", "--db", db, *fmt], code, (code,))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("tripmod:MyNet") >= 2 and not mark.exists()


def test_sweep_over_a_store_someone_sent_imports_nothing_it_names(sent_store, tmp_path):
    code, db, mark = sent_store
    grid = tmp_path / "mps.toml"
    grid.write_text('[grid]\nname = "mps"\narch = "mps"\nmethods = ["modular"]\n'
                    "[params]\nseq_len = [4]\nphys_dim = [2]\nbond = [2]\n")
    r = seprank(["sweep", grid, "--executor", "serial", "--db", db, "--quiet", "--json"],
                code, (code,))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["done"] == 1 and not mark.exists()
    r = seprank(["results", "--db", db, "--json"], code, (code,))
    assert sorted(row["arch"] for row in json.loads(r.stdout)) == [
        "mps", "tripmod:MyNet", "tripmod:MyNet"] and not mark.exists()


def test_transition_plot_only_reads_a_csv_naming_a_module_as_data(tmp_path):
    from seprank.studies.transition import CSV_NAME

    code = tmp_path / "code"
    code.mkdir()
    mark = tripwire(code, tmp_path / "marks")
    with (ROOT / "paper_figures" / CSV_NAME).open(newline="") as f:
        rows = list(csv.DictReader(f))
    out = tmp_path / "fig"
    out.mkdir()
    with (out / CSV_NAME).open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["arch", *rows[0]])
        w.writeheader()
        w.writerows(dict(r, arch="tripmod:MyNet") for r in rows)
    r = seprank(["transition", "--plot-only", "--out", out, "--json", "--quiet"], code, (code,))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["rows"][0]["arch"] == "tripmod:MyNet" and not mark.exists()


def test_certify_prints_the_re_check_with_the_word_it_needs(tmp_path, monkeypatch, capsys):
    mark = tripwire(tmp_path, tmp_path / "marks")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert main(["certify", "--arch", "tripmod:MyNet", "--param", "seq_len=4", "--param",
                     "terms=3", "--out", str(tmp_path / "c"), "--quiet", "--check"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[-1] == "  check: valid"  # --check: your --arch is your word
        (line,) = [x for x in out if x.startswith("  re-check:")]
        cmd = line.split(":", 1)[1].split()
        assert cmd[0] == "seprank" and cmd[-2:] == ["--arch", "tripmod:MyNet"]
        forget("tripmod", mark)
        assert main(cmd[1:]) == 0 and mark.exists()  # the printed command works as it is
        forget("tripmod", mark)
        assert main(cmd[1:-2]) == 2 and not mark.exists()  # without the word: refused
    finally:
        forget("tripmod", mark)

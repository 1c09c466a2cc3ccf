"""A user's class, in a file on PYTHONPATH, through every command: measure, sweep and
results, certify and check-certificate, verify."""

import json
import os
import subprocess
import sys
from pathlib import Path

from _user_module import install

from seprank.cli import main
from seprank.sweeps.tasks import make_spec

ROOT = Path(__file__).resolve().parents[2]


def test_measure_a_users_class_in_a_subprocess(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    r = subprocess.run([sys.executable, "-m", "seprank", "measure", "--arch", "mymod:MyNet",
                        "--param", "seq_len=4", "--param", "terms=3", "--json"],
                       capture_output=True, text=True, timeout=120, env=env,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["rank"], d["saturated"], d["config"]["architecture"]) == (3, True, "MyNet")


def test_a_grid_of_a_users_class_sweeps_stores_and_lists(tmp_path, monkeypatch, capsys):
    install(tmp_path, monkeypatch)
    grid = tmp_path / "mine.toml"
    grid.write_text('[grid]\nname = "mine"\narch = "mymod:MyNet"\nmethods = ["modular"]\n'
                    "[params]\nseq_len = [4]\nterms = [2, 3]\n")
    db = tmp_path / "r.sqlite"
    argv = ["sweep", str(grid), "--executor", "serial", "--db", str(db), "--out",
            str(tmp_path / "out"), "--quiet"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted((r["arch"], r["status"], r["rank"]) for r in rows) == [
        ("mymod:MyNet", "done", 2), ("mymod:MyNet", "done", 3)]
    # every row has its label, the measurement's own (its bound is the class's: stated)
    assert {r["label"] for r in rows} == {r["measurement"]["label"] for r in rows} == {
        "exact, given the architecture's stated bound (CP rank R: a sum of R products)"}
    assert main(["results", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.count("mymod:MyNet") == 2 and "2 tasks: 2 done" in out
    header = out.splitlines()[0].split()
    assert header[header.index("method") + 1] == "strategy"  # which strategy measured it
    assert all(r["strategy"] in out.splitlines()[i + 1] for i, r in enumerate(rows))


def test_store_keys_of_registry_names_are_unchanged():
    a = make_spec("measure", "mps", {"seq_len": 4, "phys_dim": 2, "bond": 2})
    b = make_spec("measure", "seprank.nets.tensor_network:MPS",
                  {"seq_len": 4, "phys_dim": 2, "bond": 2})
    assert a["arch"] == b["arch"] == "mps" and a["key"] == b["key"]


def test_certify_and_check_a_users_class(tmp_path, monkeypatch, capsys):
    install(tmp_path, monkeypatch)
    base = ["certify", "--param", "seq_len=4", "--param", "terms=3", "--out",
            str(tmp_path / "c"), "--quiet", "--check"]
    assert main(base + ["--arch", "mymod:MyNet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("separation rank: 3  [exact, given the architecture's stated bound (CP "
                      "rank R: a sum of R products)]") and out[-1] == "  check: valid"
    assert main(base + ["--arch", "mymod:MyPlain"]) == 0  # no bound of its own
    assert capsys.readouterr().out.splitlines()[0] == (
        "separation rank >= 3  [lower bound; no upper bound known]")
    assert main(base + ["--arch", "mymod:MyPlain", "--upper", "3", "--upper-source", "CP"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "separation rank: 3  [exact, given the stated bound (CP)]")
    path = max((tmp_path / "c").glob("mymod.MyPlain_N4_d2_terms3_A0-1_seed0_p*.json"),
               key=lambda f: f.stat().st_mtime_ns)  # the prime is drawn: one file per run
    assert main(["check-certificate", str(path)]) == 2  # the file's word is not enough
    assert "give --arch mymod:MyPlain (or --allow-import)" in capsys.readouterr().err
    assert main(["check-certificate", str(path), "--arch", "mymod:MyPlain"]) == 0
    assert capsys.readouterr().out.endswith("exact, given the stated bound (CP)\n")


def test_verify_a_users_class_on_its_partitions(tmp_path, monkeypatch, capsys):
    install(tmp_path, monkeypatch)
    argv = ["verify", "--param", "seq_len=4", "--param", "terms=3", "--json"]
    assert main(argv + ["--arch", "mymod:MyNet", "--partition", "0,1", "--partition", "0"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    stated = "exact, given the architecture's stated bound (CP rank R: a sum of R products)"
    assert [(r["partition"], r["measured"], r["upper"], r["status"], r["verdict"], r["label"],
             r["exact_proved"]) for r in rows] == [
        ([0, 1], 3, 3, "architecture", stated, stated, False),
        ([0], 2, 2, "architecture", stated, stated, False)]  # its own bound: not proved here
    assert main(argv + ["--arch", "mymod:MyPlain"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert (row["measured"], row["upper"], row["verdict"], row["label"]) == \
        (3, None, "no upper bound known", "lower bound, saturated")
    assert main(argv[:-1] + ["--arch", "mymod:MyNet"]) == 0  # the text names the label
    out = capsys.readouterr().out
    assert out.startswith(f"A=[0, 1]: measured 3 (modular) [{stated}], upper bound 3 "
                          "(architecture): ")
    assert "tight" not in out and "proven" not in out
    assert main(["verify", "--param", "seq_len=4"]) == 2
    assert "--param and --partition need --arch" in capsys.readouterr().err


ZERO = '''from dataclasses import dataclass


@dataclass(frozen=True)
class Zero:
    seq_len: int = 2
    width: int = 2

    def init(self, rng, domain):
        return {"w": domain.random(rng, (1,))}

    def apply(self, params, X, domain):
        return 0 * X[:, 0, 0] * X[:, 1, 0]
'''


def test_an_identically_zero_f_prints_its_rank_and_exits_0(tmp_path, monkeypatch, capsys):
    (tmp_path / "zmod.py").write_text(ZERO)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["measure", "--arch", "zmod:Zero"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("separation rank (measured, modular): 0  [")
    assert "no blocks: f is identically zero" in out

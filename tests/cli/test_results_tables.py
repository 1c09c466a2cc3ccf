"""``seprank results --format latex | markdown``: a table of labelled ranks a paper can take
(booktabs; compiled by pdflatex where it is installed), and ``Measurement.to_latex``."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import seprank
from seprank.cli import main
from seprank.cli.results import PAPER, TABLE, TITLES, paper_table


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("paper")
    g = tmp / "g.toml"
    g.write_text('[grid]\nname = "one"\nmethods = ["modular"]\nseeds = [0]\n[params]\n'
                 "depth = [1, 2]\nwidth = [3]\nseq_len = [4]\n")
    db = tmp / "r.sqlite"
    main(["sweep", str(g), "--db", str(db), "--executor", "serial", "--quiet"])
    return str(db)


def _run(capsys, *argv):
    capsys.readouterr()
    code = main(["results", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_paper_columns_are_the_table_less_bookkeeping():
    assert set(PAPER) < set(TABLE) and {"rank", "label", "config"} <= set(PAPER)
    assert not {"key", "seconds", "error"} & set(PAPER)


def _cells(line: str, sep: str) -> dict:
    """A table row as {column: cell}, the columns those of PAPER (whatever they are)."""
    cells = [c.strip() for c in line.strip().strip("|").removesuffix(r"\\").split(sep)]
    return dict(zip(PAPER, (c.strip() for c in cells)))


def test_latex_is_a_booktabs_tabular_with_the_label_column(store, capsys):
    code, out, err = _run(capsys, "--db", store, "--format", "latex")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("% seprank results --db") and lines[1].startswith(r"\begin{tabular}")
    assert lines[2:4] == [r"\toprule", " & ".join(TITLES.get(c, c) for c in PAPER) + r" \\"]
    body = lines[lines.index(r"\midrule") + 1: lines.index(r"\bottomrule")]
    assert len(body) == 2 and lines[-1] == r"\end{tabular}"  # the 2 done tasks
    row = next(_cells(b, " & ") for b in body if r"$L=1," in b)
    assert row["config"] == r"$L=1,\ d_x=3,\ H=1,\ N=4$" and row["partition"] == r"$\{0,1\}$"
    assert (row["method"], row["rank"], row["label"]) == ("modular", "4", "exact, proved")
    assert err == ""
    assert lines[1] == r"\begin{tabular}{" + "".join(
        "r" if c in ("seed", "rank") else "l" for c in PAPER) + "}"


def test_failed_tasks_are_left_out_and_counted(capsys):
    rows = [{"status": "done", "stale": True, "arch": "attention", "config": {"depth": 1},
             "partition": [0], "method": "modular", "seed": 0, "rank": 4, "label": "x_y"},
            {"status": "failed", "stale": False, "error": "boom"}]
    text = paper_table(rows, "latex", "r.sqlite")
    row = next(_cells(x, " & ") for x in text.splitlines() if x.startswith("attention"))
    assert (row["config"], row["partition"], row["rank"], row["label"]) == (
        "$L=1$", r"$\{0\}$", "4", r"x\_y")
    assert "boom" not in text and text.count(r"\\") == 2  # the header and the one done row
    assert capsys.readouterr().err == ("seprank: note: 1 failed or refused tasks left out "
                                       "(seprank results lists them); 1 rows stale (measured by "
                                       "other code than this seprank's)\n")
    paper_table(rows, "markdown", "r.sqlite", quiet=True)
    assert capsys.readouterr().err == ""


def test_markdown_has_the_same_rows(store, capsys):
    code, out, _ = _run(capsys, "--db", store, "--format", "markdown", "--quiet")
    lines = out.splitlines()
    titles = [TITLES.get(c, c).replace("$A$", "A") for c in PAPER]
    assert code == 0 and lines[0] == "| " + " | ".join(titles) + " |" and len(lines) == 4
    assert lines[1] == "| " + " | ".join("---:" if c in ("seed", "rank") else ":---"
                                         for c in PAPER) + " |"
    row = next(_cells(x, " | ") for x in lines[2:] if "L=1," in x)
    assert (row["arch"], row["config"], row["partition"]) == ("attention",
                                                              "L=1, d_x=3, H=1, N=4", "0,1")
    assert (row["rank"], row["label"]) == ("4", "exact, proved")


def test_paper_formats_are_not_deprecated_and_conflict_with_json(store, capsys):
    code, _, err = _run(capsys, "--db", store, "--format", "markdown")
    assert code == 0 and "deprecated" not in err
    code, out, err = _run(capsys, "--db", store, "--format", "latex", "--json")
    assert code == 2 and out == "" and "format='latex': conflicts with --json" in err


def test_measurement_to_latex_and_markdown():
    m = seprank.measure(seprank.LinearSelfAttention(depth=1, width=2, heads=1, seq_len=4))
    tex = m.to_latex().splitlines()
    assert tex[1] == r"\begin{tabular}{lllllrrl}" and tex[-2:] == [r"\bottomrule", r"\end{tabular}"]
    assert tex[5].endswith(f"& {m.rank} & {m.label} \\\\") and tex[5].count("&") == 7
    assert m.to_markdown().splitlines()[2].endswith(f"| {m.rank} | {m.label} |")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex (texlive-latex-base)")
def test_latex_compiles_with_booktabs(store, capsys, tmp_path):
    _, out, _ = _run(capsys, "--db", store, "--format", "latex", "--quiet")
    (tmp_path / "t.tex").write_text(out)
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n"
                                      "\\begin{document}\n\\input{t.tex}\n\\end{document}\n")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000

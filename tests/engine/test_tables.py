"""The paper tables (seprank.engine.tables): booktabs structure, escaping, alignment."""

from __future__ import annotations

import pytest

from seprank.engine import tables


def test_latex_table_is_booktabs_with_numbers_right_aligned():
    text = tables.latex_table(["net", "rank"], [["attention", 49], ["x", None]], comment="c")
    lines = text.splitlines()
    assert lines[:4] == ["% c", r"\begin{tabular}{lr}", r"\toprule", r"net & rank \\"]
    assert lines[4:] == [r"\midrule", r"attention & 49 \\", r"x & - \\", r"\bottomrule",
                         r"\end{tabular}"]


@pytest.mark.parametrize("text, latex", [
    ("a_b", r"a\_b"), ("50%", r"50\%"), ("x & y", r"x \& y"), ("$1", r"\$1"),
    ("{p}", r"\{p\}"), ("#2", r"\#2"), ("a~b", r"a\textasciitilde{}b"),
    ("2^L", r"2\textasciicircum{}L"), ("a\\b", r"a\textbackslash{}b"),
])
def test_latex_escape_each_special_character(text, latex):
    assert tables.latex_escape(text) == latex


def test_a_math_cell_is_written_as_it_is():
    assert tables.latex_escape(tables.math_cell("$d_x$")) == "$d_x$"
    assert tables.partition_math([0, 1]) == r"$\{0,1\}$"
    assert tables.partition_math(None) == "default"


def test_config_in_the_papers_symbols():
    cfg = {"architecture": "LinearSelfAttention", "depth": 2, "width": 3, "heads": 1,
           "seq_len": 4, "residual": False, "my_knob": "a_b"}
    assert tables.config_math(cfg) == r"$L=2,\ d_x=3,\ H=1,\ N=4$, my\_knob=a\_b"
    assert tables.config_text(cfg) == "L=2, d_x=3, H=1, N=4, my_knob=a_b"
    assert tables.config_text({**cfg, "residual": True}).endswith("residual, my_knob=a_b")
    assert tables.config_math(None) == tables.config_text({}) == "-"


def test_markdown_table_escapes_pipes_and_aligns():
    text = tables.markdown_table(["a", "n"], [["x|y", 3]])
    assert text.splitlines() == ["| a | n |", "| :--- | ---: |", r"| x\|y | 3 |"]


def test_a_bool_column_is_not_a_number_column():
    assert tables.latex_table(["ok"], [[True]]).splitlines()[0] == r"\begin{tabular}{l}"

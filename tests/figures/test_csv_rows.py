"""The one CSV helper (seprank.figures.csv_rows): the header and the columns in their
order, empty cells for what is missing (and for NaN where asked), rows appended under one
header, conversions only where asked; and the figure table's names."""

import math

import pytest

from seprank.figures import csv_rows, paper


def test_rows_round_trip_under_the_header_in_its_order(tmp_path):
    p = csv_rows.write_rows(tmp_path / "a.csv", [{"b": 2, "a": "x", "extra": 9}, {"a": "y"}],
                            ["a", "b"])
    assert p.read_bytes() == b"a,b\r\nx,2\r\ny,\r\n"
    assert csv_rows.read_table(p) == (["a", "b"], [{"a": "x", "b": "2"}, {"a": "y", "b": ""}])


def test_nan_and_digits_only_where_asked(tmp_path):
    rows = [{"v": math.nan, "w": 1 / 3}]
    csv_rows.write_rows(tmp_path / "a.csv", rows, ["v", "w"])
    csv_rows.write_rows(tmp_path / "b.csv", rows, ["v", "w"], empty_nan=True, digits=3)
    assert (tmp_path / "a.csv").read_text().splitlines()[1] == f"nan,{1 / 3}"
    assert (tmp_path / "b.csv").read_text().splitlines()[1] == ",0.333"


def test_append_writes_the_header_once(tmp_path):
    p = tmp_path / "r.csv"
    for i in range(3):
        csv_rows.append_row(p, {"i": i, "sq": i * i}, ["i", "sq"])
    assert p.read_text().splitlines() == ["i,sq", "0,0", "1,1", "2,4"]


def test_types_convert_only_non_empty_cells_and_missing_is_asked_for(tmp_path):
    p = csv_rows.write_rows(tmp_path / "t.csv", [{"n": 3, "x": 0.5, "s": "a"}, {"s": "b"}],
                            ["n", "x", "s"])
    rows = csv_rows.read_rows(p, {"n": int, "x": float})
    assert rows == [{"n": 3, "x": 0.5, "s": "a"}, {"n": "", "x": "", "s": "b"}]
    assert csv_rows.read_rows(tmp_path / "none.csv", missing_ok=True) == []
    with pytest.raises(FileNotFoundError):
        csv_rows.read_rows(tmp_path / "none.csv")


def test_the_figure_table_is_what_only_takes_and_names_every_caption():
    assert list(paper.FIGURES) == list(paper.FIGURE_NAMES.values())
    assert list(paper.FIGURES)[:4] == ["fig1_rank_vs_depth", "fig2_regimes",
                                       "fig3_transition_depth", "fig4_heads"]
    assert all(f.caption and f.fields for f in paper.FIGURES.values())

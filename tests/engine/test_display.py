"""Notebook display of results: a short repr, an HTML table and pandas frames with tidy
types (issue item 3), for Measurement and Certification."""

from __future__ import annotations

import builtins
import dataclasses
import re

import pytest

from seprank.engine import display
from seprank.engine.measure import measure
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention
from seprank.verdicts.certificates import certify

pd = pytest.importorskip("pandas")

NET = dict(depth=2, width=2, heads=1, seq_len=4)
MAX_REPR = 200


@pytest.fixture(scope="module")
def graded():
    return measure(LinearSelfAttention(**NET), strategy="graded")


@pytest.fixture(scope="module")
def cert():
    return certify(LinearSelfAttention(**NET))


def test_measurement_repr_is_one_short_line_with_rank_label_config_and_time(graded):
    r = repr(graded)
    assert "\n" not in r and len(r) <= MAX_REPR, r
    # 18 meets the proved block bound, compared after measuring: exact, proved
    assert r.startswith("Measurement(rank=18 [exact, proved]"), r
    assert graded.bound.value == 18 and graded.bound.status == "proved"
    assert "modular p=67108859" in r and "graded" in r
    assert "L=2 d=2 H=1 N=4" in r and "A=(0, 1)" in r
    assert re.search(r"\d+\.\d\d s\)$", r)
    below = dataclasses.replace(graded, rank=17)  # below the bound: the grid's own label
    assert below.label == "lower bound, saturated"
    above = dataclasses.replace(graded, rank=19)
    assert above.label.startswith("lower bound ABOVE the proved bound")


def test_measurement_labels_say_only_what_was_established():
    net = LinearSelfAttention(depth=1, width=2, seq_len=4)
    assert measure(net, method="symbolic").label == "exact for these weights"
    assert measure(net, method="float").label.startswith("float estimate")
    m = measure(LinearSelfAttention(depth=3, width=2, seq_len=4), max_samples=20,
                strategy="direct")
    assert not m.saturated and m.label == "lower bound, not saturated, budget hit"
    assert "[lower bound, not saturated, budget hit]" in repr(m)


def test_measurement_repr_cuts_a_long_configuration(graded):
    m = measure(LinearSelfAttention(**NET))
    m = dataclasses.replace(m, config=dict(m.config, note="x" * 500))
    assert len(repr(m)) <= MAX_REPR and "..." in repr(m)


def test_measurement_html_is_a_table(graded):
    h = graded._repr_html_()
    assert h.startswith("<table>") and h.endswith("</table>")
    assert "<td style=\"text-align:left\">18</td>" in h and "[2, 6, 6, 3, 1]" in h
    assert "&lt;=" in h  # the ground's "<=" escaped


def test_measurement_frame_dtypes(graded):
    df = graded.to_frame()
    assert len(df) == 1
    for c in ("saturated", "sample_saturated", "budget_hit", "residual"):
        assert df[c].dtype == bool, c
    assert df["rank"].dtype.kind == "i" and int(df["rank"][0]) == 18
    ranks = df["block_ranks"][0]
    assert isinstance(ranks, list) and ranks == [2, 6, 6, 3, 1]
    assert all(type(r) is int for r in ranks)
    assert df["partition"][0] == [0, 1] and df["depth"][0] == 2


def test_certification_repr_html_and_frame(cert):
    r = repr(cert)
    assert "\n" not in r and len(r) <= MAX_REPR, r
    assert r.startswith("Certification(rank = 18 [exact, proved]") and "N=4" in r
    assert re.search(r"\d+\.\d\d s\)$", r)
    h = cert._repr_html_()
    assert h.startswith("<table>") and "exact, proved" in h
    df = cert.to_frame()
    for c in ("exact", "upper_given", "saturated", "budget_hit", "residual"):
        assert df[c].dtype == bool, c
    assert bool(df["exact"][0]) and int(df["upper"][0]) == 18 and int(df["gap"][0]) == 0
    assert df["block_ranks"][0] == [2, 6, 6, 3, 1]


def test_certification_repr_of_a_lower_bound(cert):
    from dataclasses import replace

    low = replace(cert, lower=17, exact=False, status="lower bound")
    assert repr(low).startswith("Certification(rank >= 17 [lower bound], upper 18,")


def test_missing_pandas_is_one_line_naming_the_extra(graded, monkeypatch):
    real = builtins.__import__

    def no_pandas(name, *a, **kw):
        if name == "pandas":
            raise ImportError("no pandas")
        return real(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ConfigError, match=r"^a DataFrame needs pandas: pip install "
                                          r"'seprank\[pandas\]'$"):
        graded.to_frame()


def test_tidy_frame_bool_column_with_missing_values_is_nullable_boolean():
    df = display.tidy_frame([{"s": 1}, {"s": None}, {"s": 0}], bool_columns=["s"])
    assert str(df["s"].dtype) == "boolean"
    assert df["s"].tolist()[0] is True and df["s"].isna().tolist() == [False, True, False]

"""experiments/heads_deficits.py: its fit of the candidate forms finds proofs/heads_two.md's
slope at width 2 and refuses the false one; its report reads the cells' JSON lines."""

import json

import pytest

from experiments import heads_deficits as hd
from seprank import measure
from seprank.nets import LinearSelfAttention


def _cell(L, d, H, strategy="sketch"):
    m = measure(LinearSelfAttention(depth=L, width=d, heads=H, seq_len=2 * d), strategy=strategy)
    return {"width": d, "heads": H, "seq_len": 2 * d, "depth": L, "measurement": m.to_dict()}


@pytest.mark.parametrize("L", [2, 3])
def test_the_fit_finds_the_width_two_slope_and_not_the_false_one(L):
    r = _cell(L, 2, 2)
    s = (3 ** (L - 1) + 1) // 2  # heads_two.md's slope
    assert hd.fit(r, "one-slope")[0] == (s, 2 * s, None)  # the smallest that fits
    rows = [x for x in hd.blocks(r) if x["saturated"]]
    b, a = hd.terms(2, r["measurement"]["catalecticant"]["D"])
    assert hd._misses(rows, b, a, s - 1, 2 * (s - 1), None)  # the false variant misses


def test_a_form_that_misses_a_saturated_block_is_ruled_out_and_named():
    r = _cell(2, 4, 4)  # blocks 1, 10, 34, 36, 4 against one-head terms 1, 10, 55, 40, 4
    params, why = hd.fit(r, "one-slope")
    assert params is None and "first k=" in why
    assert hd.fit(r, "two-slope")[0] is not None


def test_the_report_reads_the_cells_and_writes_the_tables(tmp_path):
    data = tmp_path / "cells.jsonl"
    rows = [_cell(2, 3, 3), _cell(1, 3, 1, "catalecticant")]  # one head: left out
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "d.md"
    assert hd.main([str(data), str(out)]) == 0
    text = out.read_text()
    assert "## width 3, 3 heads, depth 2" in text and "1 heads" not in text
    assert "| 2 | 2 | 5 | 21 | 15 | 6 |" in text  # k, j, A-degree, term, rank, deficit

"""The transition CSV's rows from committed block data (seprank transition --blocks): the
measurement assembled from its blocks, nothing ranked, the same row a measuring run gives;
an incomplete or foreign measurement left out with a line; the committed depth-6 data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seprank.cli import main
from seprank.engine.strategies import catalecticant
from seprank.nets import LinearSelfAttention
from seprank.studies import transition
from seprank.sweeps.block_tasks import measurement_plan, run_blocks
from seprank.sweeps.store import Store

ROOT = Path(__file__).resolve().parents[2]
NET = dict(depth=3, width=2, heads=1, seq_len=4)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The block data of (L3, d2, H1, N4), written by run_blocks as seprank blocks --data."""
    tmp = tmp_path_factory.mktemp("blocks")
    path = tmp / "blocks.jsonl"
    with Store(tmp / "r.sqlite") as store:
        r = run_blocks(LinearSelfAttention(**NET), store, progress=False, data=path)
    assert r.measurement is not None
    return path, r.measurement


def test_the_row_is_the_measurement_assembled_from_the_blocks(data, monkeypatch):
    path, m = data
    ranked = []
    monkeypatch.setattr(catalecticant, "measure_block",
                        lambda *a: ranked.append(a) or pytest.fail("a block was ranked"))
    rows = transition.rows_from_blocks(path)
    assert not ranked and len(rows) == 1
    row = rows[0]
    net = LinearSelfAttention(**NET)
    assert row == transition.row_from(net, m.to_dict(), 0) | {"seconds": row["seconds"]}
    assert row["measured"] == 232 and row["label"] == "exact, proved"
    assert json.loads(row["block_ranks"]) == [[b["degree"], b["rank"]] for b in m.blocks]


def test_an_incomplete_measurement_is_left_out_with_a_line(data, tmp_path):
    path, _ = data
    lines = path.read_text().splitlines()
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(lines[:-1]) + "\n")
    said = []
    assert transition.rows_from_blocks(short, said.append) == []
    assert len(said) == 1 and f"{len(lines) - 1} of {len(lines)} blocks committed" in said[0]


def test_a_configuration_of_another_form_is_left_out(data, tmp_path):
    path, _ = data
    other = tmp_path / "other.jsonl"
    recs = [json.loads(t) for t in path.read_text().splitlines()]
    for r in recs:
        r["params"]["residual"] = True
    other.write_text("".join(json.dumps(r) + "\n" for r in recs))
    said = []
    assert transition.rows_from_blocks(other, said.append) == []
    assert "not a configuration of the transition grid's form" in said[0]


def test_the_cli_adds_the_row_to_the_csv_and_the_figure(data, tmp_path, capsys):
    path, _ = data
    csv = tmp_path / "in.csv"
    rows = [r for r in transition.read(ROOT / "paper_figures" / transition.CSV_NAME)
            if (int(r["width"]), int(r["heads"]), int(r["depth"])) != (2, 1, 3)]
    transition.write(rows, csv)
    out = tmp_path / "out"
    assert main(["transition", "--plot-only", "--csv", str(csv), "--blocks", str(path),
                 "--out", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["rows"]
    mine = [r for r in got if (int(r["width"]), int(r["heads"]), int(r["depth"])) == (2, 1, 3)]
    assert len(mine) == 1 and int(mine[0]["measured"]) == 232
    written = transition.read(out / transition.CSV_NAME)
    assert len(written) == len(rows) + 1 and (out / "fig8_measured_transition.png").exists()


def test_a_missing_blocks_file_is_refused_in_one_line(tmp_path, capsys):
    code = main(["transition", "--plot-only", "--blocks", str(tmp_path / "no.jsonl"),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "blocks:" in err[0]
    assert not (tmp_path / "out").exists()


def test_the_committed_depth_six_row_is_its_blocks_sum():
    """fig8's (L6, d2, H1, N4) row is the sum of the committed blocks, the total the docs
    quote, and exact, proved."""
    rows = [r for r in transition.read(ROOT / "paper_figures" / transition.CSV_NAME)
            if (int(r["width"]), int(r["heads"]), int(r["depth"])) == (2, 1, 6)]
    recs = [json.loads(t) for t in
            (ROOT / "proofs" / "data" / "l6_d2_blocks.jsonl").read_text().splitlines() if t]
    total = sum(r["result"]["block"]["rank"] for r in recs)
    assert len(recs) == 365 and total == 2_826_912
    assert len(rows) == 1 and int(rows[0]["measured"]) == total
    assert transition.row_label(rows[0]) == "exact, proved"
    assert "2,826,912" in (ROOT / "docs" / "results.md").read_text()
    mp = measurement_plan(LinearSelfAttention(depth=6, width=2, heads=1, seq_len=4),
                          prime=recs[0]["prime"])
    assert int(mp.run.domain.p) == int(rows[0]["prime"]) == 8388593

"""One catalecticant measurement's blocks as stored, resumable tasks
(seprank.sweeps.block_tasks, seprank blocks): the same Measurement as a one-shot run,
resumed without ranking a stored block again, never mixed with another measurement's."""

from __future__ import annotations

import json

import pytest

from seprank import _version
from seprank.cli import main
from seprank.engine.measure import measure
from seprank.engine.strategies import catalecticant
from seprank.nets import LinearSelfAttention
from seprank.sweeps.block_tasks import run_blocks
from seprank.sweeps.store import Store

TIMES = {"seconds", "eval_seconds", "rank_seconds"}


def _same(a: dict, b: dict) -> dict:
    """``a`` and ``b`` (Measurement dicts) with their times left out, for comparison."""
    out = []
    for d in (a, b):
        d = {k: v for k, v in d.items() if k not in TIMES}
        d["blocks"] = [{k: v for k, v in x.items() if k != "seconds"} for x in d["blocks"]]
        d["catalecticant"] = {k: v for k, v in d["catalecticant"].items()
                              if k != "build_seconds"}
        out.append(d)
    return out


class Counter:
    """catalecticant.measure_block, counting its calls (and raising Ctrl-C at ``stop``)."""

    def __init__(self, monkeypatch, stop: int | None = None):
        self.calls, self.stop, self.real = [], stop, catalecticant.measure_block
        monkeypatch.setattr(catalecticant, "measure_block", self)

    def __call__(self, plan, prep, k):
        if self.stop is not None and len(self.calls) == self.stop:
            raise KeyboardInterrupt
        self.calls.append(k)
        return self.real(plan, prep, k)


@pytest.mark.parametrize("depth", [2, 3])
def test_blocks_give_the_one_shot_measurement(tmp_path, depth):
    net = LinearSelfAttention(depth=depth, width=2, heads=1, seq_len=4)
    one = measure(net, strategy="catalecticant")
    with Store(tmp_path / "r.sqlite") as store:
        r = run_blocks(net, store, progress=False)
        assert r.stored == r.blocks == (3**depth - 1) // 2 + 1
        a, b = _same(r.measurement.to_dict(), one.to_dict())
        assert a == b and r.measurement.rank == one.rank
        # the same bound compared after measuring, so the same label (it meets it)
        assert r.measurement.label == one.label == "exact, proved"
        assert [x["rank"] for x in r.measurement.blocks] == [x["rank"] for x in one.blocks]
        parent = store.get(r.key)  # the assembled measurement, stored as a measure task
        assert parent["task"] == "measure" and parent["rank"] == one.rank


def test_an_interrupted_run_resumes_without_ranking_a_stored_block_again(tmp_path,
                                                                         monkeypatch):
    net = LinearSelfAttention(depth=3, width=2, heads=1, seq_len=4)
    one = measure(net, strategy="catalecticant")
    with Store(tmp_path / "r.sqlite") as store:
        first = Counter(monkeypatch, stop=4)  # Ctrl-C while the fifth block is ranked
        r = run_blocks(net, store, progress=False)
        assert r.outcome.interrupted and r.measurement is None and r.stored == 4
        monkeypatch.undo()
        r = run_blocks(net, store, progress=False, max_blocks=3)  # stops, on purpose
        assert r.measurement is None and r.stored == 7
        again = Counter(monkeypatch)
        r = run_blocks(net, store, progress=False)
        assert r.stored == r.blocks == 14 and len(again.calls) == 7
        assert not set(again.calls) & set(first.calls)
        assert _same(r.measurement.to_dict(), one.to_dict())[0] == \
            _same(one.to_dict(), one.to_dict())[0]
        r = run_blocks(net, store, progress=False)  # all stored: nothing ranked
        assert len(again.calls) == 7 and r.outcome is None and r.measurement.rank == one.rank


@pytest.mark.parametrize("change", ["seed", "prime", "version"])
def test_blocks_of_another_seed_prime_or_version_are_not_reused(tmp_path, monkeypatch,
                                                                change):
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4)
    with Store(tmp_path / "r.sqlite") as store:
        run_blocks(net, store, progress=False)
        kw = {}
        if change == "seed":
            kw["seed"] = 1
        elif change == "prime":
            kw["prime"] = 65521
        else:
            monkeypatch.setattr(_version, "__version__", "0.0.0-other")
        c = Counter(monkeypatch)
        r = run_blocks(net, store, progress=False, **kw)
        assert len(c.calls) == r.blocks == 5
        want = measure(net, strategy="catalecticant", **kw)
        assert _same(r.measurement.to_dict(), want.to_dict())[0] == \
            _same(want.to_dict(), want.to_dict())[0]
        other = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=5)  # another config
        c.calls.clear()
        assert run_blocks(other, store, progress=False).stored == 5 and len(c.calls) == 5


def test_the_residual_is_one_task(tmp_path):
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4, residual=True)
    one = measure(net, strategy="catalecticant")
    with Store(tmp_path / "r.sqlite") as store:
        r = run_blocks(net, store, progress=False)
    assert r.blocks == 1 and r.measurement.rank == one.rank
    assert r.measurement.blocks[0]["shape"] == one.blocks[0]["shape"]


def test_dask_local_cluster(tmp_path):
    pytest.importorskip("distributed")
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4)
    one = measure(net, strategy="catalecticant")
    with Store(tmp_path / "r.sqlite") as store:
        r = run_blocks(net, store, progress=False, executor="dask", workers=1,
                       dask_processes=False)
    assert r.outcome.executor == "dask" and r.outcome.done == 5
    assert _same(r.measurement.to_dict(), one.to_dict())[0] == \
        _same(one.to_dict(), one.to_dict())[0]


def test_cli_resumes_and_prints_the_measure_json(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    net = ["--depth", "2", "--width", "2", "--seq-len", "4"]
    assert main(["blocks", *net, "--db", db, "--max-blocks", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("incomplete: 2/5 blocks stored") and "block " in err
    assert "s per block" in err
    assert main(["blocks", *net, "--db", db, "--json"]) == 0
    out, err = capsys.readouterr()
    assert "2 already in the store" in err
    got = json.loads(out)
    assert main(["measure", *net, "--strategy", "catalecticant", "--method", "modular",
                 "--json", "--quiet"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert _same(got, want)[0] == _same(want, want)[0]


@pytest.mark.parametrize("args, text", [
    (["--depth", "2", "--width", "3", "--seq-len", "4"], "needs at least width=3 positions"),
    (["--depth", "2", "--width", "2", "--seq-len", "4", "--prime", "3"], "prime"),
    (["--depth", "2", "--width", "2", "--seq-len", "4", "--arch", "softmax-attention"],
     "not a polynomial"),
])
def test_bad_input_one_line_exit_2_nothing_stored(tmp_path, capsys, args, text):
    db = tmp_path / "r.sqlite"
    assert main(["blocks", *args, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("seprank: error:") and text in err, err
    assert not db.exists()


def test_block_data_resumes_on_a_new_store_and_another_version(tmp_path, monkeypatch):
    """Blocks committed to a data file are taken as done by a fresh store and another
    code version (a block's rank is a fact about its matrix); only the rest are ranked,
    and the assembled measurement is the one-shot one."""
    net = LinearSelfAttention(depth=3, width=2, heads=1, seq_len=4)
    one = measure(net, strategy="catalecticant")
    data = tmp_path / "blocks.jsonl"
    with Store(tmp_path / "a.sqlite") as store:
        r = run_blocks(net, store, progress=False, max_blocks=5, data=data)
    assert r.measurement is None and len(data.read_text().splitlines()) == 5
    before = _version.__version__
    monkeypatch.setattr(_version, "__version__", "0.0.0-later")
    c = Counter(monkeypatch)
    with Store(tmp_path / "b.sqlite") as store:
        r = run_blocks(net, store, progress=False, data=data)
    assert len(c.calls) == 9 and r.stored == r.blocks == 14
    assert [x["rank"] for x in r.measurement.blocks] == [x["rank"] for x in one.blocks]
    assert r.measurement.rank == one.rank and r.measurement.label == one.label
    lines = [json.loads(t) for t in data.read_text().splitlines()]
    assert sorted(x["block"] for x in lines) == list(range(14))
    bound_of = {b["other_s_degree"]: b["bound"] for b in one.blocks}
    assert all(x["proved_term"] == bound_of[x["result"]["block"]["other_s_degree"]]
               for x in lines)
    assert {x["ranked_by"]["seprank"] for x in lines} == {"0.0.0-later", before}
    # another seed is another identity: nothing taken
    c.calls.clear()
    with Store(tmp_path / "c.sqlite") as store:
        run_blocks(net, store, progress=False, data=data, seed=1, max_blocks=1)
    assert len(c.calls) == 1


@pytest.mark.parametrize("text", ["not json\n", '{"arch": 1}\n'])
def test_a_broken_data_file_is_refused_in_one_line(tmp_path, capsys, text):
    data = tmp_path / "blocks.jsonl"
    data.write_text(text)
    code = main(["blocks", "--depth", "2", "--width", "2", "--heads", "1", "--seq-len", "4",
                 "--db", str(tmp_path / "r.sqlite"), "--data", str(data), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f"{data}:1: not a block record" in err[0]

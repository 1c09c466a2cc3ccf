"""The mixer comparison scripts' run loops: rows written as they come, --resume keeps what
the CSV has and measures the rest, where a line stops is decided anew under the limits,
a failing measurement stops its mixer with the reason. Small, fast nets (s4, depth 1-2;
s6 and linear attention at depth 1)."""

import pytest

from experiments import mixers_compare as mc
from experiments import mixers_length as ml


def test_compare_rows_reach_the_sink_and_resume_measures_only_the_rest(tmp_path, monkeypatch):
    path = tmp_path / "mixers_compare.csv"
    seen = []
    rows = mc.run(1, 90, 60, 4000, ["s4"], ["small"], sink=lambda r: seen.append(len(r)))
    assert seen == [2] and [r["rank"] for r in rows] == [2, 2]
    mc.write_csv(rows, path)
    calls = []
    real = mc.measure_with_timeout
    monkeypatch.setattr(mc, "measure_with_timeout",
                        lambda net, *a: calls.append(net.depth) or real(net, *a))
    again = mc.run(2, 90, 60, 4000, ["s4"], ["small"], done=mc.read_csv(path))
    assert calls == [2, 2]  # depth 1 kept from the CSV, depth 2 measured
    assert [int(r["depth"]) for r in again] == [1, 1, 2, 2]
    assert [int(r["rank"]) for r in again] == [2, 2, 2, 2]


def test_resume_decides_the_stop_anew_under_the_given_limits(tmp_path):
    rows = mc.run(1, 90, 60, 4000, ["s4"], ["small"])
    for r in rows:
        r["seconds"], r["stopped"] = 50.0, "depth 2 not run: ..."
    # a slower limit than the kept rows' time: the mixer goes on to depth 2
    assert len(mc.run(2, 90, 60, 4000, ["s4"], ["small"], done=rows)) == 4
    # a limit below it: the kept rows stop it, with the reason on the last row
    kept = mc.run(2, 10, 60, 4000, ["s4"], ["small"], done=rows)
    assert len(kept) == 2 and "took 50 s (more than 10 s)" in kept[-1]["stopped"]


def test_a_failing_measurement_stops_the_mixer_with_its_reason(capsys):
    rows = mc.run(1, 90, 60, 10**6, ["s4"], ["small"])  # the grid cannot fit in memory
    assert rows == []
    assert "s4                small stopped: depth 1, balanced: SamplingError" in \
        capsys.readouterr().out


def test_merged_keeps_other_mixers_rows_in_table_order():
    s4 = mc.run(1, 90, 60, 4000, ["s4"], ["small"])
    la = [{**r, "mixer": "linear-attention"} for r in s4]
    assert [r["mixer"] for r in mc._merged(s4, la)] == ["linear-attention"] * 2 + ["s4"] * 2


def test_length_lines_grow_in_n_and_resume_keeps_rows(tmp_path, monkeypatch):
    rows = ml.run(["linear-attention"], [1], 5, 60, 4000)
    assert [(r["partition"], r["N"], r["rank"]) for r in rows] == [
        ("prefix", 4, 3), ("prefix", 5, 3), ("balanced", 4, 3), ("balanced", 5, 3)]
    # sep <= d + 1 [D]: derived in the module docstring, so stated by the architecture
    assert all(r["label"].startswith("exact, given the architecture's stated bound (")
               and r["label"].endswith("[D])") for r in rows)
    assert ml.partition("prefix", 5) == (0, 1) and ml.partition("balanced", 5) == (0, 2, 4)
    monkeypatch.setattr(ml, "measure_with_timeout", lambda *a: pytest.fail("measured again"))
    assert len(ml.run(["linear-attention"], [1], 5, 60, 4000, done=rows)) == 4


def test_length_line_stops_at_the_first_n_that_does_not_finish(monkeypatch):
    real = ml.measure_with_timeout
    monkeypatch.setattr(ml, "measure_with_timeout",
                        lambda net, *a: "not finished within 1 s" if net.seq_len > 4
                        else real(net, *a))
    rows = ml.run(["s6"], [1], 8, 60, 4000)
    assert [(r["partition"], r["N"]) for r in rows] == [("prefix", 4), ("balanced", 4)]
    assert all(r["stopped"] == "N = 5: not finished within 1 s" for r in rows)


@pytest.mark.parametrize("script, argv, what", [
    (ml, ["--mixers", "s7"], "--mixers: s7 not among"), (ml, ["--depths", "x"], "--depths"),
    (ml, ["--depths", "0"], "--depths"), (ml, ["--max-len", "3"], "--max-len: must be >= 4"),
    (ml, ["--timeout", "-1"], "--timeout"), (ml, ["--plot-only"], "no mixers_length.csv"),
    (mc, ["--depths", "0"], "--depths: must be >= 1"), (mc, ["--timeout", "nan"], "--timeout"),
    (mc, ["--row-seconds", "0"], "--row-seconds"), (mc, ["--max-samples", "1"], "--max-samples"),
    (mc, ["--mixers", "s4,foo"], "--mixers: foo not among"), (mc, ["--sizes", "huge"], "--sizes"),
    (mc, ["--mixers", "s4,s4"], "distinct"), (mc, ["--relabel"], "no mixers_compare.csv"),
])
def test_scripts_refuse_bad_arguments_in_one_line(tmp_path, capsys, script, argv, what):
    with pytest.raises(SystemExit) as e:
        script.main([*argv, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and what in err and len(err.splitlines()) == 1, err
    assert [p.name for p in tmp_path.iterdir()] == []  # nothing written


@pytest.mark.parametrize("script", [mc, ml])
def test_scripts_refuse_an_unwritable_folder_or_a_foreign_csv(tmp_path, capsys, script):
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as e:
        script.main(["--out", str(tmp_path / "file" / "sub")])
    assert e.value.code == 2 and "not a writable folder" in capsys.readouterr().err
    name = "mixers_compare.csv" if script is mc else "mixers_length.csv"
    (tmp_path / name).write_text("a,b\n1,2\n")
    for extra in ([], ["--resume"], ["--plot-only"]):
        with pytest.raises(SystemExit) as e:
            script.main(["--out", str(tmp_path), *extra])
        err = capsys.readouterr().err
        assert e.value.code == 2 and "is not this script's CSV (no column mixer)" in err
    assert (tmp_path / name).read_text() == "a,b\n1,2\n"  # left as it was
    fields = mc.FIELDS if script is mc else ml.FIELDS
    (tmp_path / name).write_text(",".join([*fields, "mine"]) + "\n")  # a column of its own
    with pytest.raises(SystemExit) as e:
        script.main(["--out", str(tmp_path), "--plot-only"])
    assert e.value.code == 2 and "(a column 'mine')" in capsys.readouterr().err


def test_a_run_replaces_the_rows_it_measures_and_keeps_every_other(tmp_path, monkeypatch):
    path = tmp_path / "mixers_compare.csv"
    small = ["--mixers", "s4", "--sizes", "small", "--out", str(tmp_path)]
    assert mc.main([*small, "--depths", "2"]) == 0
    mine = mc.read_csv(path)  # s4 small, depths 1 and 2
    other = [{**r, "mixer": "hyena", "rank": "999"} for r in mine]
    mc.write_csv(other + [{**r, "seconds": "7.5"} for r in mine], path)
    # without --resume: depth 1 measured anew (its time replaced), the depth-2 rows this
    # run does not reach and the other mixer's rows kept
    assert mc.main([*small, "--depths", "1"]) == 0
    rows = mc.read_csv(path)
    assert [(r["mixer"], r["depth"]) for r in rows] == \
        [("s4", "1")] * 2 + [("s4", "2")] * 2 + [("hyena", "1")] * 2 + [("hyena", "2")] * 2
    assert [r["seconds"] == "7.5" for r in rows[:4]] == [False, False, True, True]
    # Ctrl-C during depth 2, after depth 1 was written: exit 130, nothing of the CSV lost
    real, calls = mc.measure_with_timeout, []

    def stop_at_the_third(*a):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a)

    monkeypatch.setattr(mc, "measure_with_timeout", stop_at_the_third)
    assert mc.main([*small, "--depths", "2"]) == 130
    assert [(r["mixer"], r["depth"]) for r in mc.read_csv(path)] == \
        [(r["mixer"], r["depth"]) for r in rows]


def test_length_run_without_resume_keeps_the_rows_it_does_not_reach(tmp_path):
    argv = ["--mixers", "linear-attention", "--depths", "1", "--out", str(tmp_path)]
    assert ml.main([*argv, "--max-len", "5"]) == 0
    assert ml.main([*argv, "--max-len", "4"]) == 0  # N = 5 not measured now: kept
    rows = mc.read_csv(tmp_path / "mixers_length.csv")
    assert [(r["partition"], r["N"]) for r in rows] == \
        [("prefix", "4"), ("prefix", "5"), ("balanced", "4"), ("balanced", "5")]


@pytest.mark.parametrize("column, value", [("rank", "0"), ("rank", "x"), ("depth", "²"),
                                           ("partition", "middle"), ("seconds", "nan")])
def test_a_hand_broken_csv_is_refused_naming_its_line(tmp_path, capsys, column, value):
    path = tmp_path / "mixers_compare.csv"
    rows = mc.run(1, 90, 60, 4000, ["s4"], ["small"])
    rows[1][column] = value
    mc.write_csv(rows, path)
    before = path.read_text()
    for extra in (["--plot-only"], ["--relabel"], ["--resume", "--mixers", "s4"]):
        with pytest.raises(SystemExit) as e:
            mc.main(["--out", str(tmp_path), *extra])
        err = capsys.readouterr().err
        assert e.value.code == 2 and f"line 3: {column}={value!r} is not a valid" in err
    assert path.read_text() == before and sorted(p.name for p in tmp_path.iterdir()) == \
        ["mixers_compare.csv"]


def test_relabel_reads_a_csv_of_an_older_version_without_the_newer_columns(tmp_path):
    rows = mc.run(1, 90, 60, 4000, ["s4"], ["small"])
    old = ["mixer", "size", "config", "params_per_layer", "params", "depth", "partition", "A",
           "degree", "rank", "label", "seconds", "stopped"]
    mc.write_csv([{k: r[k] for k in old} for r in rows], tmp_path / "mixers_compare.csv", old)
    for extra in (["--plot-only"], ["--resume", "--mixers", "s4"]):  # --relabel first
        with pytest.raises(SystemExit) as e:
            mc.main(["--out", str(tmp_path), *extra])
        assert e.value.code == 2
    assert mc.main(["--relabel", "--out", str(tmp_path)]) == 0
    assert mc.main(["--plot-only", "--out", str(tmp_path)]) == 0
    again = mc.read_csv(tmp_path / "mixers_compare.csv")
    assert [r["label"] for r in again] == [r["label"] for r in rows]
    assert [r["upper"] for r in again] == [str(r["upper"]) for r in rows]


def test_a_row_over_the_threshold_is_measured_again_at_a_larger_prime():
    """The small mixer at depth 3 stops below its sample at the default prime with a
    Schwartz-Zippel bound of 0.012 > 1e-2; at RETRY_PRIME the same rank is saturated."""
    from seprank import measure
    from seprank.nets import MLPMixer

    net = MLPMixer(3, 2, seq_len=4, token_hidden=1, channel_hidden=2)
    first = measure(net, (0, 2))
    assert not first.saturated and first.sample_saturated and first.saturation_bound > 1e-2
    rank, saturated, bound, _, prime = mc.measure_row(net, (0, 2), 4000)
    assert (rank, saturated, prime) == (first.rank, True, mc.RETRY_PRIME) and bound <= 1e-2
    assert mc.measure_row(mc.SIZES["s4"]["small"](1), (0, 2), 4000)[4] == first.prime


def test_resume_keeps_a_timeout_stop_unless_the_timeout_is_longer(monkeypatch):
    rows = mc.run(1, 90, 60, 4000, ["s4"], ["small"])
    rows[-1]["stopped"] = "depth 2, balanced: not finished within 300 s"
    calls = []
    real = mc.measure_with_timeout
    monkeypatch.setattr(mc, "measure_with_timeout",
                        lambda net, *a: calls.append(net.depth) or real(net, *a))
    same = mc.run(2, 90, 300, 4000, ["s4"], ["small"], done=rows)
    assert calls == [] and same[-1]["stopped"] == rows[-1]["stopped"]
    assert len(mc.run(2, 90, 600, 4000, ["s4"], ["small"], done=rows)) == 4 and calls == [2, 2]


def test_length_resume_of_some_mixers_keeps_the_others(tmp_path):
    ml.main(["--mixers", "linear-attention", "--depths", "1", "--max-len", "4",
             "--out", str(tmp_path)])
    ml.main(["--mixers", "s6", "--depths", "1", "--max-len", "4", "--resume",
             "--out", str(tmp_path)])
    rows = mc.read_csv(tmp_path / "mixers_length.csv")
    assert [r["mixer"] for r in rows] == ["s6"] * 2 + ["linear-attention"] * 2
    ml.main(["--mixers", "s6", "--depths", "2", "--max-len", "4", "--resume",
             "--out", str(tmp_path)])
    rows = mc.read_csv(tmp_path / "mixers_length.csv")
    assert [(r["mixer"], r["depth"]) for r in rows] == [("s6", "1")] * 2 + [("s6", "2")] * 2 \
        + [("linear-attention", "1")] * 2


def test_resume_keeps_a_depths_finished_partition_and_its_timeout_stop(monkeypatch):
    rows = mc.run(2, 90, 60, 4000, ["s4"], ["small"])[:3]  # depth 2's prefix row missing
    rows[-1]["stopped"] = "depth 2, prefix: not finished within 300 s"
    monkeypatch.setattr(mc, "measure_with_timeout", lambda *a: pytest.fail("measured again"))
    again = mc.run(3, 90, 300, 4000, ["s4"], ["small"], done=rows)
    assert len(again) == 3 and again[-1]["stopped"] == rows[-1]["stopped"]


def test_resume_measures_again_a_row_of_another_network():
    rows = mc.run(1, 90, 60, 4000, ["s4"], ["small"])
    rows[0] = {**rows[0], "config": "S4(something else)", "rank": 99}
    assert [r["rank"] for r in mc.run(1, 90, 60, 4000, ["s4"], ["small"], done=rows)] == [2, 2]


def test_a_retry_below_the_first_rank_keeps_the_first_as_a_lower_bound(monkeypatch):
    from types import SimpleNamespace

    first = SimpleNamespace(rank=10, saturated=False, sample_saturated=True,
                            saturation_bound=0.5, strategy="graded", prime=67108859)
    second = SimpleNamespace(**{**vars(first), "rank": 9, "saturated": True,
                                "saturation_bound": 0.001, "prime": mc.RETRY_PRIME})
    answers = iter([first, second])
    monkeypatch.setattr(mc, "measure", lambda *a, **k: next(answers))
    assert mc.measure_row(None, (0,), 100) == (10, False, 0.5, "graded", 67108859)


def test_length_resume_keeps_a_timeout_stop_unless_longer(monkeypatch):
    rows = ml.run(["linear-attention"], [1], 4, 60, 4000)
    rows[0]["stopped"] = "N = 5: not finished within 300 s"
    calls = []
    real = ml.measure_with_timeout
    monkeypatch.setattr(ml, "measure_with_timeout",
                        lambda net, *a: calls.append(net.seq_len) or real(net, *a))
    assert len(ml.run(["linear-attention"], [1], 5, 300, 4000, done=rows)) == 3
    assert calls == [5]  # prefix stood at N = 4; balanced (no stop) went on to N = 5
    merged = ml.merged(ml.run(["linear-attention"], [1], 4, 60, 4000, done=rows[:1]), rows)
    assert [(r["partition"], r["N"]) for r in merged] == [("prefix", 4), ("balanced", 4)]

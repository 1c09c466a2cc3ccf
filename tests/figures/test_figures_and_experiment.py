import csv
import math

import pytest

from seprank.cli import main

EXPECTED = ["fig1_rank_vs_depth", "fig2_regimes", "fig3_transition_depth", "fig4_heads",
            "fig5_exact_vs_float", "fig6_equal_params", "fig11_block_ranks", "fig12_verify_grid",
            "fig13_heads_bound"]


def test_figures_quick_writes_every_file(tmp_path, monkeypatch):
    db = tmp_path / "store" / "results.sqlite"
    assert main(["figures", "--quick", "--out", str(tmp_path), "--db", str(db)]) == 0
    for name in EXPECTED:
        for ext in ("png", "pdf", "csv"):
            p = tmp_path / f"{name}.{ext}"
            assert p.exists() and p.stat().st_size > 0, p
    # figure 7 either made or explained
    assert (tmp_path / "fig7_experiment.png").exists() or \
        (tmp_path / "fig7_experiment.MISSING.txt").exists()
    assert "fig1_rank_vs_depth.png" in (tmp_path / "README.md").read_text()
    for name in EXPECTED:  # real images, not empty placeholders
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert (tmp_path / f"{name}.pdf").read_bytes()[:5] == b"%PDF-", name
    _check_figure_data(tmp_path)
    # the exact measurements are in the store; a rerun reads them and measures none again
    from seprank.sweeps import tasks
    from seprank.sweeps.store import Store

    with Store(db) as st:
        stored = st.query()
    assert stored and all(r["status"] == "done" and r["grid"] == "figures" for r in stored)
    first = {n: _rows(tmp_path / f"{n}.csv") for n in ("fig1_rank_vs_depth", "fig4_heads")}

    def no_measuring(spec):
        raise AssertionError(f"measured again: {spec['params']}")

    monkeypatch.setattr(tasks, "run_task", no_measuring)
    assert main(["figures", "--quick", "--out", str(tmp_path), "--db", str(db)]) == 0
    assert first == {n: _rows(tmp_path / f"{n}.csv") for n in first}


def _rows(path):
    with path.open() as f:
        return list(csv.DictReader(f))


def _check_figure_data(out):
    """The numbers behind the figures: measured ranks where the theory pins them down."""
    from seprank.theory.bounds import block_bound
    from seprank.theory.regimes import formula_growth_ratio

    fig1 = _rows(out / "fig1_rank_vs_depth.csv")
    assert len(fig1) >= 5
    for r in fig1:  # H = 1, N = 2 d: exact and equal to the block formula (measured)
        L, d = int(r["depth"]), int(r["width"])
        assert "True" in (r["saturated"], r["exact_proved"])
        assert int(r["measured_rank"]) == block_bound(L, d, d, d)
        assert float(r["log10_formula"]) == pytest.approx(math.log10(block_bound(L, d, d, d)))
    assert {(r["width"], r["depth"]) for r in fig1} >= {("2", "1"), ("2", "2"), ("3", "1")}
    # the deeper measured points come from the transition CSV (to L = 5 for d_x = 2)
    deep = {(r["width"], r["depth"]): r for r in fig1}
    assert deep[("2", "5")]["measured_rank"] == "109024"
    assert deep[("2", "5")]["source"] == "fig8_measured_transition.csv"
    fig2 = _rows(out / "fig2_regimes.csv")
    for r in fig2[:40]:
        want = formula_growth_ratio(int(r["depth"]), int(r["width"]))
        assert float(r["growth_ratio_formula"]) == pytest.approx(want)
    fig4 = _rows(out / "fig4_heads.csv")
    by_case = {}
    for r in fig4:
        by_case.setdefault((r["depth"], r["width"], r["seq_len"]), []).append(
            (int(r["heads"]), int(r["measured_rank"])))
    assert len(by_case) >= 3
    for case, hr in by_case.items():  # H = 1 has the largest rank (a measured finding)
        ranks = dict(hr)
        assert ranks[1] == max(ranks.values()), (case, hr)
    for r in fig4:  # within the proved bound, which does not depend on H
        assert int(r["measured_rank"]) <= int(r["upper_proved"])
    fig5 = {int(r["depth"]): r for r in _rows(out / "fig5_exact_vs_float.csv")}
    assert int(fig5[1]["exact_rank"]) == 3 and int(fig5[1]["float_rank"]) == 3
    for L, r in fig5.items():  # d = 2, N = 2: one position a side (bounded-rank formula)
        assert int(r["exact_rank"]) == block_bound(L, 2, 1, 1) and int(r["degree"]) == 3**L
        assert min(int(r["float_grid_rows"]), int(r["float_grid_cols"])) > int(r["exact_rank"])
    assert int(fig5[3]["float_rank"]) < int(fig5[3]["exact_rank"])  # float fails at degree 27
    for r in fig5.values():  # the GF(p) rank meets the proved bound; the float one estimates
        assert r["label"] == "exact, proved"
        assert r["float_label"] in ("float estimate, trusted", "float estimate, untrusted")
    assert {r["label"] for r in fig1} == {"exact, proved"}  # each meets the block formula
    for r in fig4:  # the label says what the row's fields establish
        want = "exact, proved" if r["measured_rank"] == r["upper_proved"] else \
            "lower bound, saturated" if r["saturated"] == "True" else "lower bound, not saturated"
        assert r["label"] == want, r
    for name in ("fig11_block_ranks", "fig12_verify_grid", "fig13_heads_bound"):
        assert {r["label"] for r in _rows(out / f"{name}.csv")} <= WORDS, name
    fig6 = [r for r in _rows(out / "fig6_equal_params.csv") if r["kind"] == "optimum"]
    top = next(r for r in fig6 if float(r["params"]) == pytest.approx(1e12))
    assert 94 < float(top["depth_or_fit"]) < 96 and float(top["value_or_ours"]) == 19


WORDS = {"exact, proved", "lower bound, saturated", "lower bound, not saturated",
         "lower bound, not saturated, budget hit"}


def test_committed_labels_are_derived_from_the_rows_own_fields(tmp_path, capsys):
    """``seprank figures --relabel`` on the committed CSVs with their labels removed (and
    figure 12 in its older form, ``tight``; figure 13 without ``saturated``, which comes
    from its source rows in figures 4 and 8) gives the committed CSVs back: each label is
    the deterministic relabel of its row, and nothing is measured."""
    from seprank.figures.common import PAPER_FIGURES
    from seprank.figures.paper import LABEL_RULES, TRANSITION_CSV, VERIFY_CSV

    names = [*LABEL_RULES, TRANSITION_CSV, VERIFY_CSV]
    for name in names:
        rows = _rows(PAPER_FIGURES / name)
        assert rows and all(r["label"] for r in rows if r.get(LABEL_RULES[name].rank if
                            name in LABEL_RULES else "measured")), name
        fields = [c for c in rows[0] if c != "label"]
        if name == VERIFY_CSV:
            fields = [("tight" if c == "exact_proved" else c) for c in fields]
            rows = [{**r, "tight": r["exact_proved"]} for r in rows]
        if name == "fig13_heads_bound.csv":
            fields.remove("saturated")
        with (tmp_path / name).open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    assert main(["figures", "--relabel", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"relabelled {len(names)} CSVs in ")
    for name in names:
        assert (tmp_path / name).read_bytes() == (PAPER_FIGURES / name).read_bytes(), name


def test_figure_data_is_deterministic(tmp_path):
    from seprank.figures.paper import write_figure

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    write_figure("fig4_heads", a, True)
    write_figure("fig4_heads", b, True)
    assert (a / "fig4_heads.csv").read_text() == (b / "fig4_heads.csv").read_text()


torch = pytest.importorskip("torch")


def test_param_count_matches_torch():
    from experiments.depth_width.model import GPT, non_embedding_params

    for L, d, h in [(1, 16, 2), (3, 24, 3), (2, 64, 4)]:
        m = GPT(L, d, h, ctx=32)
        assert m.non_embedding_params() == non_embedding_params(L, d)
        emb = m.tok.weight.numel() + m.pos.weight.numel()
        assert sum(p.numel() for p in m.parameters()) == non_embedding_params(L, d) + emb


def test_smoke_preset_losses_finite_and_decreasing(tmp_path):
    from experiments.depth_width.run import sweep

    rows = sweep("smoke", tmp_path, "cpu", progress=False)
    assert len(rows) == 2
    for r in rows:
        assert math.isfinite(r["val_loss"]) and math.isfinite(r["train_loss"])
        assert r["train_loss"] < r["first_loss"] - 0.5
    # resume: a rerun finds every row done and trains nothing
    assert sweep("smoke", tmp_path, "cpu", progress=False) == []
    with (tmp_path / "results.csv").open() as f:
        assert len(list(csv.DictReader(f))) == 2


def test_missing_corpus_is_a_clear_error(tmp_path):
    from experiments.depth_width.data import CorpusError, load_corpus

    with pytest.raises(CorpusError, match="corpus"):
        load_corpus(root=tmp_path / "nope")

"""The words of seprank.labels, and the label every recorded row carries: a Measurement's
to_dict and to_frame, a result store's rows (older ones without a label included), and the
label derived from a row's own fields (rank_label, label_of) agreeing with the one the
measurement printed."""

import pytest

from seprank import labels
from seprank.engine.measure import measure
from seprank.nets import LinearSelfAttention
from seprank.sweeps.store import Store
from seprank.sweeps.tasks import make_spec

NET = {"depth": 1, "width": 2, "heads": 1, "seq_len": 4}


@pytest.mark.parametrize("rank, saturated, budget_hit, upper, status, want", [
    (18, True, False, 18, "proved", "exact, proved"),
    ("18", "True", "False", "18", "proved", "exact, proved"),      # as a CSV holds them
    (18, False, True, 18, "proved", "exact, proved"),              # meets it: no probability
    (17, True, False, 18, "proved", "lower bound, saturated"),
    (17, "False", "False", "", "proved", "lower bound, not saturated"),  # no bound recorded
    (17, False, True, None, "proved", "lower bound, not saturated, budget hit"),
    (19, True, False, 18, "proved",
     "lower bound ABOVE the proved bound: a bug in seprank, please report it"),
    (3, True, False, 3, "recalled", "exact, given the recalled literature bound (S)"),
    (3, True, False, 3, "architecture", "exact, given the architecture's stated bound (S)"),
    (4, True, False, 3, "architecture",
     "lower bound, above the architecture's stated bound (S): that bound is false"),
])
def test_rank_label_from_recorded_fields(rank, saturated, budget_hit, upper, status, want):
    assert labels.rank_label(rank, saturated, budget_hit, upper, status, "S") == want


@pytest.mark.parametrize("v, want", [(True, True), ("True", True), ("true", True), (1, True),
                                     ("1", True), (False, False), ("False", False), ("", False),
                                     (None, False), (0, False), ("yes", False)])
def test_truthy_reads_recorded_bools(v, want):
    assert labels.truthy(v) is want


@pytest.mark.parametrize("kw", [{}, {"method": "float"}, {"method": "symbolic"},
                                {"strategy": "direct", "max_samples": 3}])
def test_recorded_label_is_the_printed_one_and_derivable(kw):
    m = measure(LinearSelfAttention(**NET), **kw)
    d = m.to_dict()
    assert d["label"] == m.label == labels.label_of(d)
    del d["label"]  # an older record: the same label from its fields
    assert labels.label_of(d) == m.label
    words = {labels.EXACT_FOR_WEIGHTS, "exact, proved", "lower bound, saturated",
             "lower bound, not saturated",
             "lower bound, not saturated, budget hit", "float estimate, trusted",
             "float estimate, untrusted"}
    assert m.label in words
    if m.method == "modular" and m.rank == 3:  # the proved bound at L = 1, d = 2, N = 4
        assert m.label == "exact, proved"


def test_to_frame_has_the_label():
    pytest.importorskip("pandas")
    m = measure(LinearSelfAttention(**NET))
    assert m.to_frame()["label"].tolist() == [m.label] == ["exact, proved"]


def test_store_rows_have_a_label_older_rows_included(tmp_path):
    m = measure(LinearSelfAttention(**NET, residual=True))
    new, old = m.to_dict(), m.to_dict()
    del old["label"], old["bound"]  # written before either was recorded: no bound to meet
    with Store(tmp_path / "r.sqlite") as s:
        for seed, rec in ((0, new), (1, old)):
            spec = make_spec("measure", "attention", dict(NET, residual=True), seed=seed)
            s.put(spec, {"status": "done", "measurement": rec, "seconds": 0.1})
        s.put(make_spec("measure", "attention", NET, seed=2), {"status": "failed",
                                                               "error": "x"})
        rows = s.query()
        got = [(r["seed"], r["label"]) for r in rows]
        assert got == [(0, m.label), (1, labels.grid_label(m.saturated, m.budget_hit)),
                       (2, None)]
        assert s.get(rows[0]["key"])["label"] == m.label
        pytest.importorskip("pandas")
        col = s.to_dataframe()["label"]
        assert col.tolist()[:2] == [m.label, rows[1]["label"]] and col.isna().tolist()[2]


def _verbs():
    import argparse

    from seprank.cli import _build_parser

    ap = _build_parser()
    (sub,) = [a for a in ap._actions if isinstance(a, argparse._SubParsersAction)]
    return ap, sub.choices


@pytest.mark.parametrize("verb", [None, *sorted(_verbs()[1])])
def test_help_texts_speak_the_vocabulary(verb):
    """No help says "tight" or "proven" (labels.md: "exact, proved", "proved"), and a help
    that defines saturated quotes labels.SATURATED."""
    ap, verbs = _verbs()
    text = (ap if verb is None else verbs[verb]).format_help()
    flat = " ".join(text.split())
    assert "tight" not in flat.lower() and "proven" not in flat.lower(), verb
    if "SATURATED" in text:
        assert " ".join(labels.SATURATED.split()) in flat, verb


def test_transition_rows_and_text_carry_the_label(tmp_path, capsys):
    """The transition CSV's rows (committed) have ``label`` from their own fields, and
    ``seprank transition --plot-only`` prints it beside each measured rank."""
    import shutil

    from seprank.cli import main
    from seprank.figures.common import PAPER_FIGURES
    from seprank.studies import transition

    shutil.copy(PAPER_FIGURES / transition.CSV_NAME, tmp_path / transition.CSV_NAME)
    rows = transition.read(tmp_path / transition.CSV_NAME)
    for r in rows:
        want = ("exact, proved" if r["measured"] == r["upper_proved"] else
                labels.grid_label(r["saturated"] == "True", False))
        assert r["label"] == transition.row_label(r) == want, r
    assert main(["transition", "--plot-only", "--out", str(tmp_path), "--quiet"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("L=")]
    assert len(lines) == len(rows)
    for line, r in zip(lines, sorted(rows, key=transition._key)):
        assert f"measured {r['measured']} [{r['label']}], proved bound" in line
    row = transition.row_from(LinearSelfAttention(depth=1, width=2, seq_len=4),
                              measure(LinearSelfAttention(**NET)).to_dict(), 0)
    assert row["label"] == "exact, proved" and list(row) == transition.COLUMNS


def test_a_float_rank_with_a_clear_cliff_is_trusted_and_one_without_is_not():
    """The trust criteria read the engine's raw stop before the float label resets
    ``saturated`` (a float rank is never saturated): otherwise no float rank is trusted."""
    good = measure(LinearSelfAttention(**NET), method="float")
    assert (good.rank, good.trusted, good.saturated) == (3, True, False)
    assert good.label == "float estimate, trusted" == good.to_dict()["label"]
    bad = measure(LinearSelfAttention(**dict(NET, depth=3)), method="float")
    assert bad.trusted is False and bad.label == "float estimate, untrusted"
    assert "no clear cliff" in bad.saturation_reason


def test_teacher_student_rows_and_fig10_carry_the_label(tmp_path):
    """The committed teacher-student rows: a float SVD target rank is a float estimate
    (never exact), a teacher's GF(p) rank keeps seprank's words; fig10's CSV is derived
    from those rows byte for byte (labels included), measuring nothing."""
    from experiments.teacher_student import analysis
    from seprank.figures.common import PAPER_FIGURES

    root = PAPER_FIGURES.parent
    rows = analysis.read(root / "experiments/teacher_student/results/results.csv")
    assert {r["label"] for r in rows if r["family"] != "teacher"} == {"float estimate, untrusted"}
    assert {r["label"] for r in rows if r["family"] == "teacher"} <= {
        "exact, proved", "lower bound, saturated", "lower bound, not saturated"}
    for r in rows:
        if r["family"] == "teacher":
            assert (r["label"] == "exact, proved") == (r["rank_measured"] == r["rank_upper"])
    out = analysis.write_figure_csv(analysis.figure_data(rows), tmp_path / "fig10.csv")
    assert out.read_bytes() == (PAPER_FIGURES / "fig10_teacher_student.csv").read_bytes()


def test_certify_rows_carry_the_label():
    from seprank import certify

    met = certify(LinearSelfAttention(**NET))
    assert met.exact and met.label == met.status == "exact, proved" == met.to_dict()["label"]
    gap = certify(LinearSelfAttention(depth=2, width=2, heads=2, seq_len=4))
    assert not gap.exact and gap.status == "lower bound" and gap.gap == 1
    assert gap.label == gap.to_dict()["label"] == "lower bound, saturated"
    pytest.importorskip("pandas")
    assert gap.to_frame()["label"].tolist() == ["lower bound, saturated"]

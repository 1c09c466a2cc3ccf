"""VerifyReport.to_latex / to_markdown: one row per configuration, measured beside proved."""

from seprank.studies.verify import VerifyReport

ROW = {"depth": 2, "width": 3, "heads": 1, "seq_len": 4, "residual": False, "measured": 49,
       "label": "exact, proved", "upper": 49}


def test_verify_report_to_latex_has_the_papers_symbols_and_the_label():
    tex = VerifyReport([ROW], {"grid": "quick"}).to_latex().splitlines()
    assert tex[0] == "% seprank verify (quick): measured ranks, proved upper bounds"
    assert tex[1] == r"\begin{tabular}{rrrrlrlr}"
    assert tex[3] == r"$L$ & $d_x$ & $H$ & $N$ & residual & measured & label & proved bound \\"
    assert tex[5] == r"2 & 3 & 1 & 4 & no & 49 & exact, proved & 49 \\"


def test_verify_report_to_markdown():
    md = VerifyReport([ROW], {"grid": "quick"}).to_markdown().splitlines()
    assert md[0] == "| L | d_x | H | N | residual | measured | label | proved bound |"
    assert md[2] == "| 2 | 3 | 1 | 4 | no | 49 | exact, proved | 49 |"

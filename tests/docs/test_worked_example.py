"""docs/worked_example.md is executed here, every code cell in order, so it cannot rot."""


def test_worked_example_runs(run_page, tmp_path, capsys):
    run_page("worked_example.md", 4)
    out = capsys.readouterr().out
    assert out.count(" 9 True graded") == 4  # the same rank on every partition, saturated
    assert (tmp_path / "sum_product_rank.png").stat().st_size > 1000

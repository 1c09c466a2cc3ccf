"""docs/torch_example.md is executed here, every code cell in order, so it cannot rot."""

import pytest


def test_torch_example_runs(run_page, capsys):
    pytest.importorskip("torch")
    run_page("torch_example.md", 5)
    out = capsys.readouterr().out
    assert out.count(" 3 True graded") == 4
    assert "from_torch drew at random (draw='trainable'): q.weight, k.weight, v.weight" in out
    assert "kept as the module's constants: mask (buffer)" in out
    assert out.count("exact, given the stated bound (x_i^T Q^T K S_B v") == 2
    assert "\nfloat " in out and "softmax" in out.splitlines()[-1]

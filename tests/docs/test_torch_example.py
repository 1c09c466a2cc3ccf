"""docs/torch_example.md is executed here, every python block in order, so it cannot rot."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "torch_example.md"


def test_torch_example_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    scope: dict = {"__name__": "torch_example"}
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), scope)
    out = capsys.readouterr().out
    assert out.count(" 3 True graded") == 4
    assert out.count("exact, given the stated bound (x_i^T Q^T K S_B v") == 2
    assert "\nfloat " in out and "softmax" in out.splitlines()[-1]

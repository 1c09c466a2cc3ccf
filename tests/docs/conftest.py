"""The docs/ pages that are executed: every code cell (```{code-cell} ipython3, the form
the documentation build executes) of a page, in order, in one scope, in a scratch folder."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def run_page(tmp_path, monkeypatch):
    """``run_page(name, min_blocks)``: execute docs/NAME's code cells in tmp_path."""

    def run(name: str, min_blocks: int) -> None:
        doc = DOCS / name
        blocks = re.findall(r"```\{code-cell\} ipython3\n(.*?)```", doc.read_text(), flags=re.S)
        assert len(blocks) >= min_blocks
        monkeypatch.chdir(tmp_path)
        scope: dict = {"__name__": doc.stem}
        for code in blocks:
            exec(compile(code, str(doc), "exec"), scope)

    return run

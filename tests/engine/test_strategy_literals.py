"""A strategy's name is written by its own module (engine/strategies/) and by the
certificate kinds that certify it (verdicts/); elsewhere at most 3 times, each a default.
Everything else reads the registry (or the measurement's detail), so that adding a
strategy touches its module and its registration line only."""

import ast
from pathlib import Path

import seprank
from seprank.engine.strategies import STRATEGIES

ROOT = Path(seprank.__file__).parent
#: Where a strategy's name belongs.
OWNERS = ("engine/strategies/", "verdicts/")
#: Layers below the engine: they cannot import a strategy, so a string there names
#: something else (torch's ``Tensor.expand`` in nets/torch_ops.py).
BELOW = ("nets/", "algebra/")
#: The defaults that remain: a Measurement's field default, the warm-up's grid run (it must
#: evaluate a grid), the strategy ``seprank blocks`` splits.
DEFAULTS = {("engine/result.py", "direct"), ("engine/warm_up.py", "direct"),
            ("sweeps/block_tasks.py", "catalecticant")}


def literals(source: str, names) -> list[tuple[int, str]]:
    """(line, name) of each string constant equal to a strategy name, docstrings aside."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and ast.get_docstring(n, clean=False) is not None}
    return sorted((n.lineno, n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)
                  and n.value in names and id(n) not in docs)


def found() -> list[tuple[str, int, str]]:
    names = set(STRATEGIES) - {"auto"}
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(OWNERS + BELOW):
            continue
        out += [(rel, line, name) for line, name in literals(path.read_text(), names)]
    return out


def test_strategy_names_outside_their_owners_are_three_defaults_at_most():
    got = found()
    assert len(got) <= 3, got
    assert {(rel, name) for rel, _, name in got} <= DEFAULTS, got


def test_the_count_sees_a_literal_and_skips_a_docstring():
    src = '"""graded"""\ndef f(x="direct"):\n    """expand"""\n    return {"graded": x}\n'
    assert literals(src, {"graded", "direct", "expand"}) == [(2, "direct"), (4, "graded")]

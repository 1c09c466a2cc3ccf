"""Per-mutant test selection for tests/mutation.py (coverage-guided; not a test module).

Two commands, both run pytest in this process:

``map MODULE MAP -- PYTEST_ARGS``
    runs the module's tests once under coverage, one coverage context per test, and
    writes MAP (JSON): for each line of MODULE the tests that executed it, the lines
    executed outside any test (at import or collection), each test's duration, and the
    lines that must always run every test (bodies of numba-compiled functions, which
    coverage cannot see). The module is imported before the first test and every
    ``functools.cache`` of it is cleared before each test, so a line is attributed to every
    test that needs it, not only to the first one that filled a cache.

``run MODULE MAP ORIG -- PYTEST_ARGS``
    compares MODULE (as cosmic-ray mutated it) with ORIG (the pristine copy), and runs
    only the tests that executed a changed line, fastest first. Every test runs (fastest
    first) when a changed line lies in a compiled function, and every test as collected
    when it ran outside a test or is not a statement coverage saw. A changed statement
    that no test executed cannot change any test's result (the runs are deterministic:
    fixed hypothesis seed, a fresh example database): it survives without running
    anything (not in modules that use numba). Tests that start a subprocess (coverage does
    not follow it) run for every mutant.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest


def _statement_lines(tree: ast.AST) -> dict[int, int]:
    """Each source line -> the first line of the innermost statement holding it."""
    out: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            first = node.lineno
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # decorators execute with the def; coverage reports the def line
                span_end = node.body[0].lineno - 1 if node.body else node.end_lineno
                lines = range(min([first] + [d.lineno for d in node.decorator_list]), span_end + 1)
            elif hasattr(node, "body"):  # compound: only its header, the body has its own
                lines = range(first, node.body[0].lineno)
            else:
                lines = range(first, node.end_lineno + 1)
            for ln in lines:
                size = node.end_lineno - node.lineno
                if ln not in out or size < out[ln][1]:
                    out[ln] = (first, size)
    return {ln: first for ln, (first, _) in out.items()}


def _compiled_lines(tree: ast.AST) -> list[int]:
    """Lines of functions handed to numba (``njit(...)(f)`` or an ``@njit`` decorator)."""
    jitted: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call):
            inner = node.func.func
            name = inner.attr if isinstance(inner, ast.Attribute) else getattr(inner, "id", "")
            if name in ("njit", "jit") and node.args and isinstance(node.args[0], ast.Name):
                jitted.add(node.args[0].id)
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            decos = ast.unparse(node.decorator_list) if node.decorator_list else ""
            if node.name in jitted or "njit" in str(decos) or "numba" in str(decos):
                lines.extend(range(node.lineno, node.end_lineno + 1))
    return lines


class _Contexts:
    """pytest plugin: one coverage context per test; the module's caches cleared first."""

    def __init__(self, cov, module_name: str):
        self.cov, self.module_name, self.durations = cov, module_name, {}
        self.current, self.spawning = None, set()

    def pytest_sessionstart(self, session):
        importlib.import_module(self.module_name)  # import-time lines: context ""
        init = subprocess.Popen.__init__

        def spy(popen, *a, **k):  # coverage cannot see a child process: run such tests always
            if self.current:
                self.spawning.add(self.current)
            init(popen, *a, **k)

        subprocess.Popen.__init__ = spy

    def _clear_caches(self):
        mod = sys.modules.get(self.module_name)
        for obj in vars(mod).values() if mod else ():
            if callable(getattr(obj, "cache_clear", None)):
                obj.cache_clear()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._clear_caches()
        self.cov.switch_context(item.nodeid)
        self.current, t0 = item.nodeid, time.perf_counter()
        yield
        self.durations[item.nodeid] = time.perf_counter() - t0
        self.current = None
        self.cov.switch_context("")


def _pytest(args: list[str], plugins=()) -> int:
    import hypothesis.configuration

    with tempfile.TemporaryDirectory(prefix="seprank-hyp-") as home:
        hypothesis.configuration.set_hypothesis_home_dir(home)  # no replayed examples
        return int(pytest.main(args, plugins=list(plugins)))


def build_map(module: str, out: str, args: list[str]) -> int:
    import coverage

    path = Path(module).resolve()
    cov = coverage.Coverage(include=[str(path)], data_file=None, branch=False)
    name = module.removesuffix(".py").replace("/", ".")
    plugin = _Contexts(cov, name)
    cov.start()
    try:
        code = _pytest(args, [plugin])
    finally:
        cov.stop()
    if code != 0:
        print(f"mutation map: the tests fail on the unmutated module (exit {code})")
        return 3
    data = cov.get_data()
    by_line = {ln: sorted(c) for ln, c in data.contexts_by_lineno(str(path)).items()}
    tree = ast.parse(path.read_text())
    result = {
        "tests": {str(ln): [c for c in ctx if c] for ln, ctx in by_line.items()},
        "outside": sorted(ln for ln, ctx in by_line.items() if "" in ctx),
        "statements": sorted(cov.analysis2(str(path))[1]),  # what coverage counts
        "compiled": _compiled_lines(tree),
        "numba": "numba" in path.read_text(),
        "durations": plugin.durations,
        "spawning": sorted(plugin.spawning),
    }
    Path(out).write_text(json.dumps(result))
    return 0


def select(module: str, orig: str, m: dict) -> list[str] | None:
    """The tests to run on the mutated module, fastest first; None: every test as
    collected (a line run at import may change the collection); []: none can see it."""
    old, new = Path(orig).read_text().splitlines(), Path(module).read_text().splitlines()
    changed = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag != "equal":
            changed.update(range(i1 + 1, max(i2, i1 + 1) + 1))
    to_stmt = _statement_lines(ast.parse("\n".join(old)))
    outside, compiled, statements = set(m["outside"]), set(m["compiled"]), set(m["statements"])
    chosen: set[str] = set(m["spawning"])
    dur = m["durations"]
    for ln in changed:
        stmt = to_stmt.get(ln)
        if stmt is None or stmt not in statements or stmt in outside:
            return None  # not a statement coverage tracks, or run at import
        if ln in compiled:  # coverage cannot see it: every test, fastest first
            return sorted(dur, key=lambda t: (dur[t], t))
        tests = m["tests"].get(str(stmt))
        if tests is None:  # a statement no test executed
            if m["numba"]:
                return None
            continue
        chosen.update(tests)
    return sorted(chosen, key=lambda t: (dur.get(t, 0.0), t))


def run(module: str, map_file: str, orig: str, args: list[str]) -> int:
    m = json.loads(Path(map_file).read_text())
    chosen = select(module, orig, m)
    if chosen == []:
        print("no test executes the changed lines")
        return 0
    if chosen is None:
        return _pytest(args)
    files = [a for a in args if a.startswith("tests/")]
    opts = [a for a in args if a not in files]
    return _pytest(opts + chosen)


def main(argv: list[str]) -> int:
    cmd, rest = argv[0], argv[1:]
    sep = rest.index("--")
    head, args = rest[:sep], rest[sep + 1 :]
    if cmd == "map":
        return build_map(*head, args)
    return run(*head, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

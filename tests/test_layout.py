"""The package's shape (docs/architecture.md): layers in one direction, no import cycle,
imports at module top, small modules and functions, no private name used across modules."""

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "seprank"
#: Function-level imports are allowed only for these (optional or heavy) dependencies.
LAZY_OK = {"flint", "torch", "matplotlib", "distributed", "dask", "sympy", "scipy", "numba",
           "tomllib", "tomli", "multiprocessing", "concurrent", "importlib", "logging",
           "pandas", "tensorly", "hypothesis", "resource", "signal", "socket", "platform",
           "json", "csv", "shutil", "tempfile", "subprocess", "hashlib", "random", "argparse",
           "textwrap", "traceback", "threading", "itertools", "functools", "math", "os", "sys",
           "time", "types", "warnings", "inspect", "contextlib", "collections", "dataclasses"}


@functools.cache
def _module_map() -> dict[str, Path]:
    """Dotted module name -> file, for every module of seprank (read once)."""
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = f.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _modules():
    return _module_map().items()


def _imports(name: str, f: Path):
    """(target module, in a function?, line) for every import of seprank in ``f``."""
    pkg = name if f.name == "__init__.py" else name.rpartition(".")[0]
    modules = _module_map()

    def visit(node, in_func):
        for ch in ast.iter_child_nodes(node):
            func = in_func or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(ch, ast.ImportFrom):
                if ch.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - ch.level + 1]
                    mod = ".".join(base + ([ch.module] if ch.module else []))
                else:
                    mod = ch.module or ""
                for a in ch.names:
                    full = f"{mod}.{a.name}"
                    yield (full if full in modules else mod), func, ch.lineno, a.name
            elif isinstance(ch, ast.Import):
                for a in ch.names:
                    yield a.name, func, ch.lineno, a.name
            yield from visit(ch, func)

    yield from visit(ast.parse(f.read_text()), False)


def _graph() -> dict[str, set[str]]:
    mods = _module_map()
    return {n: {t for t, *_ in _imports(n, f) if t in mods and t != n} for n, f in mods.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_seprank():
    """Every import counts, at module top or inside a function (our own AST walk, not
    import-linter's)."""
    assert _cycles(_graph()) == []


def test_import_linter_layers_contract():
    lint = pytest.importorskip("importlinter")
    assert lint
    exe = Path(sys.executable).parent / "lint-imports"  # the console script of this env
    r = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and "2 kept, 0 broken" in r.stdout, r.stdout + r.stderr


#: The engine modules that import theory/, and why (docs/architecture.md, Data flow): the
#: cost models' facts (asked once per request), and the bounds put beside a finished
#: measurement for its label. No other engine module may.
ENGINE_READS_THEORY = {"seprank.engine.estimate", "seprank.engine.bound_compare"}


def test_engine_reads_theory_only_where_the_architecture_page_says():
    got = {n for n, f in _modules() if n.startswith("seprank.engine")
           for t, *_ in _imports(n, f) if t == "seprank.theory" or t.startswith("seprank.theory.")}
    assert got == ENGINE_READS_THEORY
    page = (ROOT / "docs" / "architecture.md").read_text()
    assert all(f"`engine/{n.rsplit('.', 1)[1]}.py`" in page for n in ENGINE_READS_THEORY)


def test_seprank_imports_are_at_module_top():
    late = [f"{f.relative_to(ROOT)}:{line} {t}" for n, f in _modules()
            for t, func, line, _ in _imports(n, f)
            if func and (t == "seprank" or t.startswith("seprank."))]
    assert late == []


def test_function_level_imports_are_optional_or_heavy_dependencies():
    late = [f"{f.relative_to(ROOT)}:{line} {t}" for n, f in _modules()
            for t, func, line, _ in _imports(n, f)
            if func and t.split(".")[0] not in LAZY_OK | {"seprank"}]
    assert late == []


def test_no_private_name_imported_across_modules():
    """``from x import _name`` across modules hides coupling (a private helper used
    elsewhere should be public). Dunder names and private modules of the same package
    (cli/_common) are allowed."""
    bad = []
    for n, f in _modules():
        for t, _func, line, name in _imports(n, f):
            if not t.startswith("seprank") or not name.startswith("_") or name.startswith("__"):
                continue
            if t.endswith("." + name):
                continue  # a module imported as a module (seprank._version)
            own = n if f.name == "__init__.py" else n.rpartition(".")[0]
            if t.rpartition(".")[0] == own and t.rpartition(".")[2].startswith("_"):
                continue  # a private module's names, inside its own package
            bad.append(f"{f.relative_to(ROOT)}:{line} {t}.{name}")
    assert bad == []


def test_no_private_attribute_of_another_seprank_module():
    """``module._name`` where ``module`` is another seprank module (imported as a module)."""
    mods = _module_map()
    bad = []
    for f in mods.values():
        aliases = {}
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("seprank"):
                for a in node.names:
                    if f"{node.module}.{a.name}" in mods:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                bad.append(f"{f.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}")
    assert bad == []


def _docstring_lines(node) -> set[int]:
    """The line numbers of the docstrings in ``node`` (module, classes, functions): the
    length limits below count code, not the numpydoc docstrings the API must have
    (tests/docs/test_docstrings.py)."""
    lines = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = n.body[0] if n.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def test_few_modules_at_the_top_and_none_too_long():
    top = sorted(p.name for p in PKG.glob("*.py"))
    assert len(top) <= 8, top
    long = []
    for _, f in _modules():
        text = f.read_text()
        n = len(text.splitlines()) - len(_docstring_lines(ast.parse(text)))
        if n > 500:
            long.append(f"{f.relative_to(ROOT)} {n}")
    assert long == []


def test_no_function_over_80_lines_except_the_kernel_body():
    long = []
    for _, f in _modules():
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1 - len(_docstring_lines(node))
                if n > 80 and node.name != "_kernel_body":
                    long.append(f"{f.relative_to(ROOT)}:{node.name} {n}")
    assert long == []


def test_version_is_written_once():
    import seprank
    from seprank import _version

    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and "seprank._version.__version__" in text
    assert seprank.__version__ == _version.__version__ == "0.2.0"
    assert f"## {seprank.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_theory_is_importable_after_import_seprank():
    r = subprocess.run([sys.executable, "-c", "import seprank; print(seprank.theory.bounds"
                        ".upper_bound(seprank.LinearSelfAttention(1, 2, 1, 2))['upper'])"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "3", r.stderr


def _loads(node) -> list[str]:
    """The modules ``node`` loads: an import's, or the name handed to importlib (a string
    or an f-string's text)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""] if not node.level else []
    if isinstance(node, ast.Call) and node.args:
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
        if name in ("import_module", "__import__"):
            arg = node.args[0]
            parts = arg.values if isinstance(arg, ast.JoinedStr) else [arg]
            return ["".join(str(p.value) for p in parts if isinstance(p, ast.Constant))]
    return []


def test_the_package_never_loads_the_repository_scripts():
    """experiments/ are the repository's scripts (``python -m experiments.NAME``): they use
    the package, and the package never loads them back (by an import or through
    importlib), so there is no loop that the import graph cannot see."""
    bad = [f"{f.relative_to(ROOT)}:{node.lineno} {m}" for _, f in _modules()
           for node in ast.walk(ast.parse(f.read_text())) for m in _loads(node)
           if m.split(".")[0] == "experiments"]
    assert bad == []
    assert _loads(ast.parse('importlib.import_module(f"experiments.{x}.run")').body[0].value) \
        == ["experiments..run"]


def test_the_scripts_use_no_private_name_of_the_package():
    """experiments/ use the public API: no ``seprank.x._private`` module or name (the
    argument types they share are :mod:`seprank.cli.arg_types`)."""
    bad = []
    for f in sorted((ROOT / "experiments").rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            mods = _loads(node)
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            for m in mods:
                if m.split(".")[0] == "seprank" and any(
                        p.startswith("_") and not p.startswith("__")
                        for p in m.split(".") + names):
                    bad.append(f"{f.relative_to(ROOT)}:{node.lineno} {m} {names}")
    assert bad == []

"""The public API's docstrings follow numpydoc (numpydoc's own validator, on every object that
docs/reference/api.md lists: the one list of the public API, shared with the Sphinx
reference), and every name in ``seprank.__all__`` is listed there."""

import importlib
import inspect
import re
from functools import cached_property
from pathlib import Path

import numpydoc.validate
import pytest

API = Path(__file__).resolve().parents[2] / "docs" / "reference" / "api.md"

# The numpydoc checks enforced (numpydoc.validate.ERROR_MSGS lists them all). Left out, as
# style only or as sections this project does not ask of every object:
#   ES01  no extended summary: a one-line summary is enough for many small functions
#   SA01  no "See Also" section: cross-references are written in the text where they help
#   EX01  no "Examples" section: examples are given where useful (they run as doctests),
#         not on every function
#   PR08, PR09, RT04, RT05  a parameter's or return value's description starts with a
#         capital / ends with a period: punctuation only (descriptions often start with a
#         literal such as ``None`` or end with a formula)
#   GL01  the summary on the line after the opening quotes: numpydoc 1.8 (the lower bound)
#         asks for that, while PEP 257 and this project put it on the quotes' line, which
#         later numpydoc releases accept; where it starts is layout, not content
EXCLUDED = {"ES01", "SA01", "EX01", "PR08", "PR09", "RT04", "RT05", "GL01"}
CHECKS = sorted(set(numpydoc.validate.ERROR_MSGS) - EXCLUDED)
# at least these (the list) must stay enforced
REQUIRED = {"GL02", "GL03", "GL08", "SS01", "SS02", "SS03", "SS05", "PR01", "PR02", "RT01"}

DIRECTIVE = re.compile(
    r"^\.\. (autofunction|autoclass|autoexception|automethod|autodata|automodule):: (\S+)"
    r"((?:\n {3}:\S+:.*)*)",
    re.M,
)
VALIDATED = {"autofunction", "autoclass", "autoexception", "automethod"}


def directives() -> list[tuple[str, str, str]]:
    """(directive, dotted name, options) of every directive in api.md's eval-rst blocks."""
    text = re.sub(r"<!--.*?-->", "", API.read_text(), flags=re.S)  # commented out: not listed
    blocks = re.findall(r"```\{eval-rst\}\n(.*?)```", text, flags=re.S)
    return [m.groups() for block in blocks for m in DIRECTIVE.finditer(block)]


def load(name: str):
    """The object at a dotted name: the longest importable module prefix, then attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def members(cls, options: str) -> list[str]:
    """The public methods and properties that ``:members:`` documents: those defined in the
    class itself (Sphinx leaves inherited ones out unless asked), or the listed ones."""
    listed = re.search(r":members:(.*)", options)
    if listed is None:
        return []
    if listed.group(1).strip():
        return [n.strip() for n in listed.group(1).split(",")]
    kinds = (property, cached_property, staticmethod, classmethod)
    return [n for n, v in vars(cls).items()
            if not n.startswith("_") and (inspect.isfunction(v) or isinstance(v, kinds))]


def validated_names() -> list[str]:
    names = []
    for kind, name, options in directives():
        if kind not in VALIDATED:
            continue
        names.append(name)
        if kind in ("autoclass", "autoexception"):
            names += [f"{name}.{m}" for m in members(load(name), options)]
    return names


def test_checks_include_the_required_ones():
    assert REQUIRED <= set(CHECKS)


def test_api_page_lists_objects_that_exist():
    listed = directives()
    assert len(listed) > 50
    missing = []
    for _, name, options in listed:
        try:
            obj = load(name)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{name}: {exc}")
            continue
        if inspect.isclass(obj):
            missing += [f"{name}.{m}" for m in members(obj, options) if not hasattr(obj, m)]
    assert not missing, "api.md names objects that do not exist:\n" + "\n".join(missing)


# the public namespaces: every name of their __all__ must be on the API page
PUBLIC_MODULES = ["seprank", "seprank.nets", "seprank.theory", "seprank.testing"]


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_every_public_name_is_in_the_api_page(module):
    """A name added to one of these modules' __all__ must be added to
    docs/reference/api.md: listed by a directive (under any dotted name of the same object),
    or, for a module, named in the text as `module.name`."""
    text = re.sub(r"<!--.*?-->", "", API.read_text(), flags=re.S)
    listed = {id(load(name)) for _, name, _ in directives()}
    mod = importlib.import_module(module)
    absent = [n for n in mod.__all__ if id(getattr(mod, n)) not in listed
              and not (inspect.ismodule(getattr(mod, n)) and f"`{module}.{n}`" in text)]
    assert not absent, f"{module}.__all__ names missing from {API.name}: {absent}"


def test_public_docstrings_follow_numpydoc():
    failures = []
    for name in validated_names():
        result = numpydoc.validate.validate(name)
        errors = [f"{code} {msg}" for code, msg in result["errors"] if code in CHECKS]
        if errors:
            failures.append(f"{name} ({result['file']}:{result['file_line']}):\n    "
                            + "\n    ".join(errors))
    assert not failures, f"{len(failures)} docstrings fail numpydoc's checks:\n" + "\n".join(
        failures)


# ------------------------------------------------- formulas as rendered math (:math: roles)
#: ASCII mathematics in a docstring, outside :math:`...`, ``...`` and doctest lines: Python
#: powers (2**26, d**2), carets (3^L), log3, binomials as C(...), sqrt(...), d_x and sums.
ASCII_MATH = re.compile(r"\w\*\*\w|\^\w|\^\{|\blog_?3\b|\bC\(\w|\bsqrt\(|\bd_x\b|\bsum_|"
                        r"\bmin\(b_")
#: The objects whose docstrings carry formulas: these write them as rendered math.
MATH_PREFIXES = ("seprank.theory.", "seprank.figures.rank_depth.", "seprank.figures.budget.",
                 "seprank.figures.float_rank.", "seprank.figures.blocks.",
                 "seprank.figures.heads.", "seprank.algebra.rank.", "seprank.testing.")
MATH_OBJECTS = {"seprank.ModP", "seprank.measure", "seprank.certify", "seprank.from_torch",
                "seprank.LinearSelfAttention", "seprank.SoftmaxSelfAttention",
                "seprank.nets.EmbeddedAttention", "seprank.nets.capabilities.StructuralForm",
                "seprank.nets.head_counts", "seprank.studies.verify.run"}


def ascii_math(doc: str, skip_summary: bool = False) -> list[str]:
    """The ASCII-math fragments of a docstring (outside math roles, literals, doctests);
    ``skip_summary`` leaves out the first line (an architecture's, which ``seprank archs``
    prints as text)."""
    lines = doc.splitlines()[1:] if skip_summary else doc.splitlines()
    kept, block = [], None  # block: the indentation of a ``.. math::`` directive being read
    for ln in lines:
        indent = len(ln) - len(ln.lstrip())
        if block is not None and (not ln.strip() or indent > block):
            continue
        block = indent if ln.lstrip().startswith(".. math::") else None
        if block is None and not ln.lstrip().startswith((">>>", "...")):
            kept.append(ln)
    text = "\n".join(kept)
    text = re.sub(r":math:`[^`]*`", "", text)
    text = re.sub(r"``[^`]*``", "", text)
    return [m.group(0) for m in ASCII_MATH.finditer(text)]


def test_the_docstring_math_check_can_fail():
    assert ascii_math("The largest prime below 2**26.")
    assert ascii_math("Depth L = log3 d_x, bound C(m+k-1, k).")
    assert not ascii_math(r"The largest prime below :math:`2^{26}`; ``2**26`` in code.")
    assert not ascii_math("The paper's network: depth-L, width-d_x\nNo math here.", True)
    assert not ascii_math("So\n\n.. math:: \\sum_t M(3^L - t)\n\n   x^2\n\nwith it.")
    assert ascii_math("So\n\n.. math:: x^2\n\nwith 3^L after it.")


def test_public_formulas_are_rendered_math():
    names = sorted({name for kind, name, _ in directives() if kind in VALIDATED
                    and (name.startswith(MATH_PREFIXES) or name in MATH_OBJECTS)})
    assert len(names) > 40 and MATH_OBJECTS <= set(names), len(names)
    found = {}
    for name in names:
        obj = load(name)
        hits = ascii_math(inspect.getdoc(obj) or "", skip_summary=inspect.isclass(obj))
        if hits:
            found[name] = hits[:4]
    assert not found, found

"""The cells of a depth-width study: which networks, built how, and what each costs.

A study names an architecture (a registry name, ``module:Class``, a class, or a torch
factory ``module:function``), the keys it varies (``vary={"depth": [1, 2, 3], "heads":
[1, 3]}``), the keys it fixes, and rules for dependent keys (``seq_len = 2 * width``). Every
combination of the varied values is one cell: one network, measured once through the
planner and the result store. A combination the architecture refuses (``heads=2`` with
``width=3``) is listed as invalid with its reason, never dropped silently.

Rules are integer expressions in the other keys (``+ - * //``, parentheses, integer
literals, ``min`` and ``max``), parsed with :mod:`ast` and evaluated without ``eval``.
The paper's network has one default rule, ``seq_len = 2 * width``: each side of the
balanced partition then has ``width`` positions, the generic case of
proofs/catalecticant_reduction.md (stated with every result).

A torch factory is called with the varied keys and the fixed keys it accepts as keyword
arguments (``seq_len`` and ``width`` also set the input shape).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import operator
from dataclasses import dataclass, field

import numpy as np

from seprank.algebra.domains import Float64
from seprank.errors import ConfigError, SeprankError
from seprank.nets.base import param_specs, parse_value
from seprank.nets.registry import name_of, resolve
from seprank.nets.torch_module import TorchModule, load_callable

#: Prefix of an ``arch`` that names a torch factory (``torch:module:function``).
TORCH_PREFIX = "torch:"
#: Rules applied unless the user gives the key (registry name -> {key: expression}).
DEFAULT_RULES = {"attention": {"seq_len": "2*width"}}
#: Study values meaning "every divisor of the width" for the key ``heads``.
DIVISORS = "divisors"
#: The most cells one study plans (a larger grid is refused before any cell is built).
MAX_CELLS = 10_000
#: The torch module's own config keys (not passed to the factory unless it takes them).
TORCH_FIELDS = ("seq_len", "width", "position", "coordinate", "draw")

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv}


def parse_rule(text: str) -> tuple[str, ast.Expression]:
    """``KEY=EXPR`` -> (key, parsed expression); ConfigError naming ``rule`` otherwise.

    Parameters
    ----------
    text : str
        For example ``"seq_len=2*width"``.

    Returns
    -------
    tuple of (str, ast.Expression)
        The key and the expression.

    Examples
    --------
    >>> key, expr = parse_rule("seq_len=2*width")
    >>> key, evaluate_rule(expr, {"width": 3}, "seq_len")
    ('seq_len', 6)
    """
    key, sep, expr = str(text).partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier() or not expr.strip():
        raise ConfigError(f"rule={text!r} must be KEY=EXPRESSION, e.g. seq_len=2*width")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise ConfigError(f"rule={text!r}: {expr.strip()!r} is not an expression") from None
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.Name, ast.Load, ast.Constant,
                               ast.Call, ast.UnaryOp, ast.USub, *_OPS))
        if isinstance(node, ast.Constant) and not isinstance(node.value, int):
            ok = False
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in ("min", "max") and not
            node.keywords):
            ok = False
        if not ok:
            raise ConfigError(f"rule={text!r}: only integers, keys, + - * //, min and max "
                              f"are allowed (found {type(node).__name__})")
    return key, tree


def evaluate_rule(tree: ast.Expression, values: dict, key: str) -> int:
    """The integer value of a parsed rule given the other keys' values."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in values or isinstance(values[node.id], bool) or \
                    not isinstance(values[node.id], (int, np.integer)):
                raise ConfigError(f"rule for {key}: {node.id!r} is not an integer key of the "
                                  f"study (keys: {', '.join(values) or 'none'})")
            return int(values[node.id])
        if isinstance(node, ast.UnaryOp):
            return -ev(node.operand)
        if isinstance(node, ast.Call):
            return (min if node.func.id == "min" else max)(ev(a) for a in node.args)
        if isinstance(node.op, ast.FloorDiv) and ev(node.right) == 0:
            raise ConfigError(f"rule for {key}: division by zero")
        return _OPS[type(node.op)](ev(node.left), ev(node.right))

    return int(ev(tree))


def parse_values(key: str, text: str, kind: str = "int") -> list:
    """The values of ``--vary KEY=VALUES``: a range ``a:b``, a comma list or ``divisors``.

    A range is inclusive; ``divisors`` (for ``heads`` only) means every divisor of the width.

    Parameters
    ----------
    key : str
        The key (named in errors).
    text : str
        The values as given.
    kind : str, default "int"
        The parameter's kind (:func:`seprank.nets.base.param_specs`).

    Returns
    -------
    list
        The values, in the order given.

    Examples
    --------
    >>> parse_values("depth", "1:3")
    [1, 2, 3]
    >>> parse_values("heads", "1,3")
    [1, 3]
    """
    t = str(text).strip()
    if t == DIVISORS:
        if key != "heads":
            raise ConfigError(f"vary {key}={t}: 'divisors' is for heads (divisors of width)")
        return [DIVISORS]
    if kind == "int" and ":" in t:
        lo, _, hi = t.partition(":")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            raise ConfigError(f"vary {key}={t!r}: a range is a:b with integers a <= b") from None
        if b < a or b - a >= MAX_CELLS:
            raise ConfigError(f"vary {key}={t!r}: a range a:b needs a <= b and at most "
                              f"{MAX_CELLS} values")
        return list(range(a, b + 1))
    vals = [v.strip() for v in t.split(",")] if kind != "ints" else [t]
    if not t or any(not v for v in vals):
        raise ConfigError(f"vary {key}={t!r}: give a comma list or a range a:b")
    return [parse_value(kind, key, v) for v in vals]


@dataclass(frozen=True)
class Arch:
    """What a study measures: a class (``cls``) or a torch factory (``factory``)."""

    name: str
    cls: type | None = None
    factory: str | None = None
    accepts: tuple[str, ...] = ()
    kinds: dict = field(default_factory=dict, compare=False)

    @property
    def is_torch(self) -> bool:
        return self.factory is not None


def resolve_arch(arch) -> Arch:
    """An :class:`Arch` from a registry name, ``module:Class``, a class, or
    ``torch:module:function`` (a torch factory; ``--torch`` on the command line)."""
    if isinstance(arch, str) and arch.startswith(TORCH_PREFIX):
        path = arch[len(TORCH_PREFIX):]
        fn = load_callable(path)
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
        params = () if sig is None else tuple(sig.parameters)
        kinds = {k: _factory_kind(sig.parameters[k]) for k in params}
        kinds.update({"seq_len": "int", "width": "int", "position": "int",
                      "coordinate": "int", "draw": "str"})
        if sig is not None and any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
            params = params + ("**",)
        return Arch(name=arch, factory=path, accepts=params, kinds=kinds)
    cls = resolve(arch)
    kinds = {s["name"]: s["kind"] for s in param_specs(cls)}
    return Arch(name=name_of(cls), cls=cls, accepts=tuple(kinds), kinds=kinds)


def _factory_kind(param) -> str:
    """How a torch factory's argument is read from text: by its default's type (a string,
    a flag), else as an integer (depth, width, heads...)."""
    d = param.default
    if isinstance(d, bool):
        return "flag"
    if isinstance(d, str):
        return "str"
    return "int"


@dataclass
class Cell:
    """One combination: its keys (varied, fixed and ruled), its network, or why none."""

    values: dict
    net: object = None
    invalid: str | None = None


def _factory_kwargs(arch: Arch, values: dict) -> tuple:
    own = set(TORCH_FIELDS)
    takes = set(arch.accepts)
    anything = "**" in takes
    out = []
    for k, v in values.items():
        if k in own and k not in takes:
            continue
        if k in own or k in takes or anything:
            out.append((k, v))
        else:
            raise ConfigError(f"vary/param {k!r}: the factory {arch.factory} takes no "
                              f"argument {k!r} (it takes {', '.join(arch.accepts) or 'none'})")
    return tuple(out)


def build_cell(arch: Arch, values: dict) -> Cell:
    """The network of one combination, or the reason the architecture refuses it."""
    try:
        if arch.is_torch:
            torch_kw = {k: values[k] for k in TORCH_FIELDS if k in values}
            missing = [k for k in ("seq_len", "width") if k not in torch_kw]
            if missing:
                raise ConfigError(f"param {missing[0]!r} is required for a torch factory "
                                  f"(--param {missing[0]}=... or --vary)")
            net = TorchModule(factory=arch.factory, kwargs=_factory_kwargs(arch, values),
                              **torch_kw)
        else:
            unknown = [k for k in values if k not in arch.kinds]
            if unknown:
                raise ConfigError(f"vary/param {unknown[0]!r} is not a parameter of "
                                  f"{arch.name}; valid: {', '.join(arch.kinds)}")
            net = arch.cls(**values)
    except SeprankError as exc:
        return Cell(values, invalid=str(exc))
    except (TypeError, ValueError) as exc:  # a user class's own refusal
        return Cell(values, invalid=f"{type(exc).__name__}: {exc}")
    return Cell(values, net=net)


def expand(arch: Arch, vary: dict, fixed: dict, rules: dict) -> list[Cell]:
    """Every combination of ``vary`` (in the order given, the last key fastest), with
    ``fixed`` and the ``rules`` applied; refuses more than :data:`MAX_CELLS` before
    building any."""
    if not vary:
        raise ConfigError("vary: give at least one key to vary (e.g. vary={'depth': [1, 2, 3]})")
    both = set(vary) & set(fixed)
    if both:
        k = sorted(both)[0]
        raise ConfigError(f"{k!r} is both varied and fixed (--vary {k}=... and --param "
                          f"{k}=...): give one")
    ruled = set(rules) & (set(vary) | set(fixed))
    if ruled:
        k = sorted(ruled)[0]
        raise ConfigError(f"rule for {k!r}: {k} is also given (--vary/--param); give one")
    total = 1
    for k, vals in vary.items():
        if not vals:
            raise ConfigError(f"vary {k}: no values")
        total *= len(vals)
        if total > MAX_CELLS:
            raise ConfigError(f"vary: {total:,}+ combinations; a study plans at most "
                              f"{MAX_CELLS:,} cells")
    cells = []
    keys = list(vary)
    for combo in itertools.product(*(vary[k] for k in keys)):
        values = dict(fixed)
        values.update(zip(keys, combo))
        if values.get("heads") == DIVISORS:
            w = values.get("width")
            if not isinstance(w, int):
                cells.append(Cell(values, invalid="heads=divisors needs an integer width"))
                continue
            for h in [h for h in range(1, w + 1) if w % h == 0]:
                cells.append(_ruled(arch, dict(values, heads=h), rules))
            continue
        cells.append(_ruled(arch, values, rules))
    return cells


def _ruled(arch: Arch, values: dict, rules: dict) -> Cell:
    try:
        for key, tree in rules.items():
            values[key] = evaluate_rule(tree, values, key)
    except ConfigError as exc:
        return Cell(values, invalid=str(exc))
    return build_cell(arch, values)


def default_rules(arch: Arch, given: dict, vary: dict, fixed: dict) -> dict:
    """The rules in force: the user's, plus the architecture's defaults for keys nobody
    gave (the paper's network: ``seq_len = 2 * width``)."""
    out = dict(given)
    for key, expr in DEFAULT_RULES.get(arch.name, {}).items():
        if key not in out and key not in vary and key not in fixed:
            out[key] = parse_rule(f"{key}={expr}")[1]
    return out


def rule_text(rules: dict) -> list[str]:
    """The rules as ``key = expression`` lines (what the result states)."""
    return [f"{k} = {ast.unparse(t.body)}" for k, t in rules.items()]


def count_parameters(net) -> int:
    """The number of scalar weights the architecture's own ``init`` draws.

    Counted from the structure ``init`` returns in the Float64 domain (every array leaf of
    dicts, lists and tuples); a torch module's drawn tensors are counted the same way.

    Parameters
    ----------
    net : Architecture
        The network.

    Returns
    -------
    int
        The count.

    Examples
    --------
    >>> from seprank.nets import LinearSelfAttention
    >>> count_parameters(LinearSelfAttention(depth=2, width=3, heads=1, seq_len=6))
    72
    """
    params = net.init(np.random.default_rng(0), Float64())

    def size(x) -> int:
        if isinstance(x, dict):
            return sum(size(v) for v in x.values())
        if isinstance(x, (list, tuple)):
            return sum(size(v) for v in x)
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return sum(size(getattr(x, f.name)) for f in dataclasses.fields(x))
        if isinstance(x, (int, float, np.number)):
            return 1
        if x is None:
            return 0
        return int(np.size(x))

    return size(params)

"""TOML grid files: read, validate, expand into task specs.

A grid file (``seprank sweep GRID.toml``; ``seprank/sweeps/grids/*.toml`` are the shipped ones)::

    [grid]
    name = "example"          # stored with every task (seprank results --where grid=example)
    task = "measure"          # measure | verify
    arch = "attention"        # seprank archs lists them; or "mymod:MyNet", an entry point
                              # (or torch = "mymod:factory": a torch nn.Module, with
                              # [params] seq_len, width, position, coordinate)
    methods = ["modular"]     # default ["auto"]
    strategies = ["auto"]
    seeds = [0, 1]
    primes = [67108859]       # default: the default prime
    max_samples = 6000        # default: measure's default
    max_bound = 1500          # leave out configurations whose proved bound exceeds this
    partitions = ["default"]  # or lists of A-side positions, e.g. [[0, 1], [0, 2]]

    [params]                  # every combination, in this order (the last varies fastest)
    depth = [1, 2]
    width = [2, 4]
    heads = "divisors"        # every head count dividing the width
    seq_len = [4]
    residual = [false, true]

    [[exclude]]               # combinations left out: a value, a list, or {min, max}
    residual = true
    depth = {min = 3}

A grid file is named by the user on the command line (or is a shipped one): its ``arch``
is the user's word and resolved with :func:`seprank.nets.registry.resolve` (a
``module:Class`` is imported). The store a sweep writes into is data: nothing reads an
architecture out of it to import (:mod:`seprank.sweeps.runner` matches tasks by key).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from seprank.errors import ConfigError, SeprankError
from seprank.nets import head_counts
from seprank.nets.base import param_specs
from seprank.nets.registry import name_of, resolve
from seprank.paths import read_bounded
from seprank.sweeps import grid_check
from seprank.sweeps.tasks import KINDS, make_spec
from seprank.theory.architecture_bounds import bound_of, has_architecture_bound

try:  # Python >= 3.11
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

GRID_KEYS = ("name", "task", "arch", "torch", "methods", "strategies", "seeds", "primes",
             "max_samples", "max_bound", "partitions")
#: What ``[grid] torch = "module:factory"`` stands for: this arch, with that factory.
TORCH_ARCH = "seprank.nets.torch_module:TorchModule"


def shipped_grid(name: str) -> Path:
    """Path of a grid shipped in the package (``seprank/sweeps/grids/NAME.toml``)."""
    from importlib import resources

    p = Path(str(resources.files("seprank.sweeps") / "grids" / f"{name}.toml"))
    if not p.exists():
        raise ConfigError(f"grid={name!r} is not a shipped grid (seprank/sweeps/grids/)")
    return p


#: [grid] keys whose value is a list of alternatives.
LIST_KEYS = grid_check.LIST_KEYS
#: A grid file larger than this is refused unread (the shipped ones are about 1 KB).
MAX_GRID_BYTES = 2**20
#: Brackets nested deeper than this are refused before parsing (a grid needs 3: a
#: [params] list of partitions of pairs).
MAX_NESTING = 16
_STRINGS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_COMMENT = re.compile(r"#[^\n]*")


def check_nesting(text: str, name: str) -> None:
    """ConfigError if ``text`` nests brackets deeper than MAX_NESTING (counted outside
    strings and comments, before any parser recurses into it)."""
    depth = top = 0
    for ch in _COMMENT.sub("", _STRINGS.sub('""', text)):
        if ch in "[{":
            depth += 1
            top = max(top, depth)
            if top > MAX_NESTING:
                raise ConfigError(f"grid {name}: nests brackets more than {MAX_NESTING} deep")
        elif ch in "]}":
            depth -= 1


def read_grid(path: Path | str) -> dict:
    """The grid file parsed and checked (ConfigError naming the key or the file)."""
    path = Path(path)
    # a regular file of at most MAX_GRID_BYTES (a FIFO or /dev/zero refused unread), its
    # nesting bounded before the parser recurses into it
    raw = read_bounded(path, MAX_GRID_BYTES, "grid")
    try:
        text = raw.decode("utf-8")
        check_nesting(text, path.name)
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ConfigError(f"grid={str(path)!r} is not valid TOML "
                          f"({str(exc)[:120]})") from None
    grid_check.check_tables(data, path.name)  # every value's type and range, before use
    extra = set(data) - {"grid", "params", "exclude"}
    if extra:
        raise ConfigError(f"grid {path.name}: unknown table {sorted(extra)[0]!r}; expected "
                          "[grid], [params] and [[exclude]]")
    g = dict(data.get("grid", {}))
    bad = set(g) - set(GRID_KEYS)
    if bad:
        raise ConfigError(f"grid {path.name}: [grid] key {sorted(bad)[0]!r} is unknown; valid: "
                          f"{', '.join(GRID_KEYS)}")
    g.setdefault("name", path.stem)
    g.setdefault("task", "measure")
    if "torch" in g:  # a torch module: its factory is a parameter of TorchModule
        if "arch" in g:
            raise ConfigError(f"grid {path.name}: give [grid] torch or arch, not both")
        data = {**data, "params": {**data.get("params", {}), "factory": [g.pop("torch")]}}
        g["arch"] = TORCH_ARCH
    g.setdefault("arch", "attention")

    if g["task"] not in KINDS:
        raise ConfigError(f"grid {path.name}: task={g['task']!r} must be one of "
                          f"{', '.join(KINDS)}")

    try:
        cls = resolve(g["arch"])
        names = {s["name"] for s in param_specs(cls)}
    except ConfigError as exc:
        raise ConfigError(f"grid {path.name}: {exc}") from None
    g["arch"] = name_of(cls)  # a registry name, else the resolved import path
    params = data.get("params", {})
    for k in params:
        if k not in names:
            raise ConfigError(f"grid {path.name}: [params] {k!r} is not a parameter of "
                              f"{g['arch']}; valid: {', '.join(sorted(names))}")
    for k in LIST_KEYS:  # a bare string would be iterated letter by letter
        if k in g and not isinstance(g[k], list):
            raise ConfigError(f"grid {path.name}: [grid] {k} must be a list, e.g. "
                              f"{k} = [{g[k]!r}], got {g[k]!r}")
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(r, dict) for r in exclude):
        raise ConfigError(f"grid {path.name}: exclude must be [[exclude]] tables")
    for rule in exclude:
        for k in rule:  # a mistyped key would match nothing and exclude nothing
            if k not in names:
                raise ConfigError(f"grid {path.name}: [[exclude]] {k!r} is not a parameter "
                                  f"of {g['arch']}; valid: {', '.join(sorted(names))}")
    grid = {"grid": g, "params": params, "exclude": exclude, "path": str(path)}
    try:
        grid_check.check_values(grid, resolve(g["arch"]), iter_combos, path.name)
    except ConfigError as exc:  # nothing stored
        msg = str(exc)
        raise ConfigError(msg if msg.startswith("grid ") else f"grid {path.name}: {msg}") \
            from None
    return grid


#: ``heads = "divisors"`` lists the divisors of widths up to this (found by trial division).
MAX_DIVISORS_WIDTH = 10**6


def _values(key, v, combo):
    if key == "heads" and v == "divisors":
        w = combo.get("width")
        if not isinstance(w, int) or isinstance(w, bool) or not 0 <= w <= MAX_DIVISORS_WIDTH:
            raise ConfigError(f'[params] heads = "divisors" needs an integer width in [0, '
                              f"{MAX_DIVISORS_WIDTH}], got width={w!r:.40}")
        return head_counts(w)
    return v if isinstance(v, list) else [v]


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _excluded(combo: dict, rules: list) -> bool:
    def hit(k, rule):
        v = combo.get(k)
        if isinstance(rule, dict):  # {min, max}: numbers only (a string matches nothing)
            return _number(v) and rule.get("min", v) <= v <= rule.get("max", v)
        return v in rule if isinstance(rule, list) else v == rule

    return any(all(hit(k, r) for k, r in rule.items()) for rule in rules)


def iter_combos(grid: dict):
    """Every parameter combination of the grid, in file order, minus the excluded ones,
    made one at a time (a grid is counted before anything is built from it)."""
    items = list(grid["params"].items())

    def walk(i, combo):
        if i == len(items):
            if not _excluded(combo, grid["exclude"]):
                yield dict(combo)
            return
        key, v = items[i]
        for x in _values(key, v, combo):
            combo[key] = x
            yield from walk(i + 1, combo)
        combo.pop(key, None)

    yield from walk(0, {})


def combos(grid: dict) -> list[dict]:
    """Every parameter combination of the grid, in file order, minus the excluded ones."""
    return list(iter_combos(grid))


def proved_bound(net, partition=None) -> int | None:
    """The proved upper bound used to plan (None: none known), never as a measurement."""
    if not has_architecture_bound(net):
        return None
    b = bound_of(net, partition)
    return None if b is None else b.value


def specs(grid: dict, *, seeds=None) -> tuple[list[dict], int]:
    """The grid's task specs, and how many combinations ``max_bound`` left out."""
    g = grid["grid"]
    cls = resolve(g["arch"])
    parts = [None if p == "default" else p for p in g.get("partitions", ["default"])]
    out, skipped = [], 0
    for c in combos(grid):
        for part in parts:
            cap = g.get("max_bound")
            if cap is not None:
                try:
                    up = proved_bound(cls(**c), part)
                except SeprankError:  # an invalid combination: its task fails, stored
                    up = 0
                if up is None or up > cap:
                    skipped += 1
                    continue
            for method, strategy, seed, prime in itertools.product(
                g.get("methods", ["auto"]), g.get("strategies", ["auto"]),
                g.get("seeds", [0]) if seeds is None else seeds, g.get("primes", [None]),
            ):
                out.append(make_spec(g["task"], g["arch"], c, partition=part, method=method,
                                     strategy=strategy, seed=seed, prime=prime,
                                     max_samples=g.get("max_samples"), grid=g["name"]))
    return out, skipped

"""Every value of a grid file checked, with its type and range, before any task is made:
a grid with one bad value is refused whole (ConfigError naming the file and the key), so
nothing is stored and nothing runs.

:func:`check_tables` checks the file's shape and the ``[grid]`` and ``[[exclude]]``
values (types only need the file; the measurement's parameters ``methods``,
``strategies``, ``seeds``, ``primes`` and ``max_samples`` by their rows of
:mod:`seprank.engine.parameters`, the message the API and the CLI give);
:func:`check_values` checks ``[params]`` against the architecture's parameters (their
kinds), the number of combinations, and then builds
every combination's network (the architecture's own checks: ``heads=3 must divide
width=8``), the cost of its first grid (:func:`seprank.engine.feasibility.check_feasible`)
and each partition. A prime is checked as the API and ``seprank measure --prime`` check it
(a prime within the modulus limit); a prime too small for a network is not refused here
either: its measurement's label says what it earned.
"""

from __future__ import annotations

import itertools

from seprank.engine import feasibility
from seprank.engine import sample_grid as _grid
from seprank.engine.parameters import MAX_INT, PARAMETERS, validate
from seprank.errors import ConfigError, SeprankError
from seprank.nets.base import param_specs
from seprank.nets.partitions import check_partition

#: [grid] keys whose value is a list of alternatives.
LIST_KEYS = ("methods", "strategies", "seeds", "primes", "partitions")
#: Combinations a grid may expand into (counted before any is built: each is built and
#: checked, ~0.3 ms for attention, so 20,000 take ~6 s; a larger study is several grids).
MAX_COMBOS = 20_000
_KIND_WORDS = {"int": "an integer", "flag": "true or false", "ints": "a list of integers",
               "edges": "a list of [a, b] pairs", "int-or-none": 'an integer or "none"',
               "str": "a string"}


def _fail(name: str, where: str, why: str):
    raise ConfigError(f"grid {name}: {where} {why}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _show(v) -> str:
    return f"{v!r:.60}"


def _int(name, where, v, lo=0, hi=MAX_INT) -> None:
    if not _is_int(v):
        _fail(name, where, f"must be an integer, got {type(v).__name__} {_show(v)}")
    if not lo <= v <= hi:
        _fail(name, where, f"must be in [{lo}, {hi}], got {_show(v)}")


def check_tables(data, name: str) -> None:
    """The file's tables and the [grid] and [[exclude]] values."""
    if not isinstance(data, dict) or not data:
        _fail(name, "file", "is empty: expected [grid], [params] and [[exclude]] tables")
    for key, kind in (("grid", dict), ("params", dict), ("exclude", list)):
        if key in data and not isinstance(data[key], kind):
            what = "[[exclude]] tables" if key == "exclude" else f"a [{key}] table"
            _fail(name, key, f"must be {what}, got {type(data[key]).__name__} {_show(data[key])}")
    g = data.get("grid", {})
    for key in ("name", "task", "arch", "torch"):
        if key in g and not isinstance(g[key], str):
            _fail(name, f"[grid] {key}", f"must be a string, got {_show(g[key])}")
    _grid_lists(g, name)
    if g.get("max_bound") is not None:
        _int(name, "[grid] max_bound", g["max_bound"], 0)
    for i, rule in enumerate(data.get("exclude", [])):
        if not isinstance(rule, dict):
            _fail(name, f"[[exclude]] {i + 1}", "must be a table")
        for k, v in rule.items():
            _exclude_value(name, f"[[exclude]] {k}", v)


def _grid_lists(g: dict, name: str) -> None:
    for r in PARAMETERS.values():  # the measurement's parameters: the table's check
        if r.grid is None:
            continue
        values = _alternatives(g, r.grid, name) if r.grid in LIST_KEYS else \
            [g[r.grid]] if g.get(r.grid) is not None else []
        for v in values:
            try:
                validate(r.name, v)
            except SeprankError as exc:
                _fail(name, f"[grid] {r.grid}:", str(exc))
    for v in _alternatives(g, "partitions", name):
        if v == "default":
            continue
        if not isinstance(v, list) or not all(_is_int(x) and 0 <= x <= 10**6 for x in v):
            _fail(name, "[grid] partitions", f"value {_show(v)} must be \"default\" or a list "
                  "of positions (non-negative integers)")
        if len(set(v)) != len(v) or not v:
            _fail(name, "[grid] partitions", f"value {_show(v)} must list distinct positions")


def _alternatives(g: dict, key: str, name: str) -> list:
    v = g.get(key, [])
    if not isinstance(v, list):
        _fail(name, f"[grid] {key}", f"must be a list, e.g. {key} = [{v!r}], got {_show(v)}")
    if key in g and not v:
        _fail(name, f"[grid] {key}", "is an empty list: nothing would run")
    return v


def _scalar(v) -> bool:
    return isinstance(v, (int, str)) and not (isinstance(v, float))


def _exclude_value(name: str, where: str, v) -> None:
    if isinstance(v, dict):
        if not v or set(v) - {"min", "max"}:
            _fail(name, where, f"must be a value, a list or {{min, max}}, got {_show(v)}")
        for k, x in v.items():
            _int(name, f"{where}.{k}", x, -MAX_INT, MAX_INT)
    elif isinstance(v, list):
        if not all(_scalar(x) for x in v):
            _fail(name, where, f"must list plain values, got {_show(v)}")
    elif not _scalar(v):
        _fail(name, where, f"must be a value, a list or {{min, max}}, got {_show(v)}")


def _kind_ok(kind: str, v) -> bool:
    if kind == "int":
        return _is_int(v) and abs(v) <= MAX_INT
    if kind == "flag":
        return isinstance(v, bool)
    if kind == "int-or-none":
        return (_is_int(v) and abs(v) <= MAX_INT) or v == "none"
    if kind == "ints":
        return isinstance(v, list) and all(_is_int(x) and abs(x) <= MAX_INT for x in v)
    if kind == "edges":
        return isinstance(v, list) and all(isinstance(e, list) and len(e) == 2
                                           and all(_is_int(x) for x in e) for e in v)
    return isinstance(v, str)


def check_values(grid: dict, cls, expand, name: str) -> None:
    """[params] against the architecture, then every combination ``expand(grid)`` gives
    (see the module doc)."""
    if not grid["params"]:
        _fail(name, "[params]", "is missing or empty: list the architecture's parameters")
    kinds = {s["name"]: s["kind"] for s in param_specs(cls)}
    count = 1
    for key, v in grid["params"].items():
        if key == "heads" and v == "divisors":
            count *= 8
            continue
        many = isinstance(v, list) and kinds.get(key) not in ("ints", "edges") or (
            isinstance(v, list) and v and isinstance(v[0], list))  # a list of lists
        values = v if many else [v]
        if not values:
            _fail(name, f"[params] {key}", "is an empty list: no combination")
        for x in values:
            if not _kind_ok(kinds[key], x):
                _fail(name, f"[params] {key}", f"value {_show(x)} ({type(x).__name__}) must be "
                      f"{_KIND_WORDS[kinds[key]]}" + (" (heads may also be \"divisors\")"
                                                 if key == "heads" else ""))
        count *= len(values)
    if count > 8 * MAX_COMBOS:  # before a combination is made (heads counted as 8)
        _fail(name, "[params]", f"expands into about {count:,} combinations, at most "
              f"{MAX_COMBOS:,}")
    combos = list(itertools.islice(expand(grid), MAX_COMBOS + 1))  # counted, then built
    if len(combos) > MAX_COMBOS:
        _fail(name, "[params]", f"expands into more than {MAX_COMBOS:,} combinations, at most "
              f"{MAX_COMBOS:,} (counted after [[exclude]]): split the grid")
    check_combos(grid, cls, combos, name)


def check_combos(grid: dict, cls, combos: list, name: str) -> None:
    """Build every combination's network and check its cost and partitions."""
    if not combos:
        _fail(name, "[params]", "has no combination left (an empty head list, or every one "
              "excluded): nothing would run")
    g = grid["grid"]
    parts = [p for p in g.get("partitions", []) if p != "default"]
    limit = _grid.available_memory() // 4
    for c in combos:
        shown = ", ".join(f"{k}={v}" for k, v in c.items())
        try:
            net = cls(**{k: _tuples(v) for k, v in c.items()})
            feasibility.check_feasible(net, 16, limit)
            for part in parts:
                check_partition(part, net.seq_len)
        except SeprankError as exc:
            _fail(name, f"[params] ({shown}):", str(exc))
        except (TypeError, ValueError, OverflowError) as exc:
            _fail(name, f"[params] ({shown}):", f"builds no {cls.__name__} ({exc})")
        except AttributeError as exc:  # e.g. a user's class without ``width``
            _fail(name, f"[params] ({shown}):", f"{cls.__name__} lacks what an architecture "
                  f"has ({exc}; seprank.nets.base lists seq_len, width, init, apply)")


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v

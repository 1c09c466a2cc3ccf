"""``seprank archs`` and the ``--arch NAME --param KEY=VALUE`` options of measure, bounds,
certify and verify (NAME: a registry name, ``module:Class`` or an entry point)."""

from __future__ import annotations

import json

from seprank.cli._common import add_output_args
from seprank.cli.torch_args import add_torch_args, torch_net_from_args
from seprank.errors import ConfigError
from seprank.nets import ARCHITECTURES, LinearSelfAttention, SoftmaxSelfAttention
from seprank.nets.base import KIND_HELP, build, config_of, describe, param_specs
from seprank.nets.partitions import check_partition, default_partition
from seprank.nets.registry import resolve
from seprank.theory.architecture_bounds import bound_of

DEFAULT_ARCH = "attention"
#: Flags of the attention networks (today's interface), as (flag, field, default).
ATTENTION_FLAGS = (("--depth", "depth", None), ("--width", "width", None),
                   ("--heads", "heads", 1), ("--seq-len", "seq_len", None),
                   ("--residual", "residual", False), ("--query-position", "query_position", 0),
                   ("--output-coord", "output_coord", 0))
ATTENTION_HELP = {
    "depth": "layers L >= 1", "width": "width d_x", "heads": "heads H dividing the width",
    "seq_len": "sequence length N >= 2", "residual": "1: add the skip connection",
    "query_position": "position i whose output y^{L,i} is studied",
    "output_coord": "coordinate of y^{L,i} studied",
}


def add_arch_args(p) -> None:
    """--arch, --torch and repeatable --param (measure, bounds, certify, blocks)."""
    p.add_argument("--arch", default=DEFAULT_ARCH, metavar="NAME|module:Class",
                   help="architecture: a name (seprank archs lists them), an import path "
                        "module:Class (importable, e.g. on PYTHONPATH) or an entry point of "
                        "the group seprank.architectures; attention keeps the "
                        "--depth/--width/... flags")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="an architecture parameter, repeatable: ints, comma lists (2,4), 0/1 "
                        "flags, edges (0-1,1-2)")
    add_torch_args(p)


def add_parser(sub) -> None:
    a = sub.add_parser("archs", help="list the architectures, their parameters and a line each")
    add_output_args(a, quiet_help="no notes on stderr (archs prints none: accepted "
                    "like every sub-command that prints results)")


def arch_class(name: str):
    """The class ``--arch`` names (:func:`seprank.nets.registry.resolve`)."""
    return resolve(name)


def net_from_args(args):
    """The architecture named by ``--arch`` with its ``--param`` values (and, for the
    attention networks, today's flags), or the torch module ``--torch`` names."""
    net = torch_net_from_args(args, DEFAULT_ARCH)
    if net is not None:
        return net
    cls = arch_class(args.arch)
    given = {field: getattr(args, flag[2:].replace("-", "_"), None)
             for flag, field, _ in ATTENTION_FLAGS}
    if cls in (LinearSelfAttention, SoftmaxSelfAttention):
        pairs = [f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in given.items()
                 if v is not None and v is not False]
        flags = {field: flag for flag, field, _ in ATTENTION_FLAGS
                 if given[field] is not None and given[field] is not False}
        for p in args.param:  # one value per parameter: a flag and a --param both giving it
            key = p.partition("=")[0].strip().replace("-", "_")
            if key in flags:
                raise ConfigError(f"--param {p.strip()} and {flags[key]}{_shown(given[key])} "
                                  f"both give {key}: give one")
        pairs += list(args.param)
        keys = {p.partition("=")[0].strip().replace("-", "_") for p in pairs}
        missing = [flag for flag, field, default in ATTENTION_FLAGS
                   if default is None and field not in keys]
        if missing:
            raise ConfigError(f"the following arguments are required for --arch {args.arch}: "
                              f"{', '.join(missing)}")
        return build(cls, pairs, args.arch)
    stray = [flag for flag, field, _ in ATTENTION_FLAGS
             if given[field] is not None and given[field] is not False]
    if stray:
        raise ConfigError(f"{stray[0]}: belongs to --arch attention; for --arch {args.arch} use "
                          f"--param KEY=VALUE (seprank archs lists the parameters)")
    return build(cls, args.param, args.arch)


def _shown(v) -> str:
    return "" if v is True else f" {v}"


def listing() -> list[dict]:
    out = []
    for name, cls in ARCHITECTURES.items():
        params = []
        for s in param_specs(cls):
            helptext = s["help"] or ATTENTION_HELP.get(s["name"], "")
            default = s["default"]
            params.append({"name": s["name"], "kind": s["kind"], "format": KIND_HELP[s["kind"]],
                           "required": s["required"],
                           "default": int(default) if isinstance(default, bool) else default,
                           "help": helptext})
        if name in ("attention", "softmax-attention"):  # the CLI requires --seq-len
            next(p for p in params if p["name"] == "seq_len")["required"] = True
        polynomial = _declared(cls, "polynomial", True)
        alphabet = callable(getattr(cls, "alphabet", None))
        by = ("float only" if not polynomial else
              "modular, float (complete grid over its alphabet)" if alphabet else
              "modular, symbolic, float")
        out.append({"name": name, "class": cls.__name__, "description": describe(cls),
                    "module": cls.__module__, "params": params, "polynomial": polynomial,
                    "measured_by": by, "alphabet": alphabet})
    return out


def _declared(cls, attr: str, default):
    """A class-level declaration (plain attribute or constant property) without an instance."""
    v = getattr(cls, attr, default)
    if isinstance(v, property):
        try:
            v = v.fget(None)
        except Exception:  # depends on the config: unknown before one is built
            return default
    return bool(v)


def cmd_archs(args) -> int:
    rows = listing()
    if args.json:
        print(json.dumps({"architectures": rows}))
        return 0
    for r in rows:
        print(f"{r['name']}: {r['description']} [{r['measured_by']}]")
        for p in r["params"]:
            dflt = "required" if p["required"] else f"default {p['default']}"
            print(f"    {p['name']} ({p['format']}; {dflt}): {p['help']}")
    print("measure one: seprank measure --arch NAME --param KEY=VALUE ... [--partition 0,1]")
    return 0


def bounds_for(net, name: str, partition) -> dict:
    """The architecture's known bound for the partition, labelled with its source."""
    A, _ = check_partition(default_partition(net.seq_len) if partition is None else partition,
                           net.seq_len)

    out = {"arch": name, "config": config_of(net), "partition": list(A)}
    known = bound_of(net, A)
    if known is None:
        out.update({"upper": None, "kind": "none", "source": f"no known bound for {name} "
                    "in seprank" + ("" if getattr(net, "polynomial", True) else
                                    " (not a polynomial: measured by the float engine only)")})
        return out
    out.update({k: v for k, v in known.as_dict().items() if k != "config"})
    return out


def cmd_bounds(args) -> int:
    net = net_from_args(args)
    name = getattr(args, "torch", None) or args.arch
    out = bounds_for(net, name, args.partition)
    if out["kind"] == "none":  # refuse rather than print a number nothing proves
        how = f"--torch {args.torch}" if getattr(args, "torch", None) else f"--arch {args.arch}"
        raise ConfigError(f"{how.lstrip('-').replace(' ', '=', 1)}: {out['source']}; nothing "
                          f"proved to print (measure it: seprank measure {how} ...)")
    if args.json:
        print(json.dumps(out, default=str))
        return 0
    up = out.get("upper")
    print(f"{name} {out['config']}, partition A={out['partition']}:")
    if up is not None:
        print(f"  upper bound: {up}  ({out['kind']})")
    if out.get("lower") is not None:
        print(f"  lower bound: {out['lower']}")
    for key in ("halving_bound", "walk_index", "equality"):
        if key in out:
            print(f"  {key.replace('_', ' ')}: {out[key]}")
    print(f"  source: {out['source']}")
    return 0

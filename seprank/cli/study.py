"""``seprank study``: does depth pay for an architecture (:func:`seprank.study`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from seprank.cli._common import _int_list, add_output_args, add_param, add_sweep_args, real_arg
from seprank.errors import ConfigError
from seprank.figures import study as plot_study
from seprank.nets.base import parse_value
from seprank.paths import check_out_dir, write_text
from seprank.studies import study as st
from seprank.studies import study_cells as sc
from seprank.sweeps.store import DEFAULT_DB, check_file

EPILOG = """example:
  seprank study --arch attention --vary depth=1:3 --vary heads=1,3 --param width=3 --json

Each --vary KEY=VALUES takes a comma list or an inclusive range a:b (heads=divisors: every
divisor of the width); --param KEY=VALUE fixes a key; --rule KEY=EXPR computes one
(default for attention: seq_len=2*width). Every cell is measured through the planner and
the result store (a rerun measures only what is missing), cheapest first. Output: the rows
with their labels, each step's growth ratio and regime, the transitions, the depth-width
map, the winners by parameter budget and a verdict; --out DIR also writes study.csv and
study.png there (--pdf: and study.pdf). exit codes: 0 done, 1 a cell failed or was
refused, 2 bad input, 130 interrupted (finished cells kept)."""


def add_parser(sub) -> None:
    s = sub.add_parser("study", help="does depth pay for an architecture: measured ranks over "
                       "depth x width (x heads...), growth ratios, regimes, transitions, "
                       "budgets and a verdict", epilog=EPILOG)
    s.add_argument("--arch", default="attention",
                   help="registry name (seprank archs), or module:Class (default attention)")
    s.add_argument("--torch", default=None, metavar="MODULE:FACTORY",
                   help="a torch factory, called with the varied keys (and the fixed keys "
                        "it accepts) as keyword arguments; seq_len and width set the input")
    s.add_argument("--vary", action="append", default=[], metavar="KEY=VALUES",
                   help="a varied key: a comma list or an inclusive range a:b (repeatable; "
                        "depth must be one)")
    s.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a fixed key (repeatable)")
    s.add_argument("--rule", action="append", default=[], metavar="KEY=EXPR",
                   help="a dependent key, e.g. seq_len=2*width (integers, keys, + - * //, "
                        "min, max)")
    s.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions of every cell (default: each network's first N//2)")
    for name in ("method", "seed", "strategy", "prime", "max_samples"):
        add_param(s, name)
    s.add_argument("--max-seconds", type=real_arg(0, 1e9, lo_open=True), default=None,
                   metavar="LIMIT", help="a time budget: start no cell past it (cheapest "
                   "first); a rerun measures the rest")
    s.add_argument("--cell-limit", type=real_arg(0, 1e9, lo_open=True), default=None,
                   metavar="LIMIT", help="refuse up front every cell whose estimated time "
                   "exceeds this (listed with its estimate)")
    s.add_argument("--fallback", default=None, metavar="STRATEGY",
                   help="measure each cell refused by its own plan or by --cell-limit with "
                   "this strategy (e.g. sketch) at the largest sample cap that fits; its note "
                   "says so, and a capped block is a lower bound")
    s.add_argument("--depth-key", default="depth", help="the key that is the depth")
    s.add_argument("--width-key", default="width", help="the key that is the width")
    s.add_argument("--out", default=None,
                   help="folder for study.csv and study.png (its CSV's rows of the same "
                        "cells are reused, their labels derived again)")
    s.add_argument("--pdf", action="store_true",
                   help="with --out or --plot-only: also write the figure as study.pdf (vector, "
                        "for print)")
    s.add_argument("--plot-only", action="store_true",
                   help="redraw the figure from --csv (or --out's study.csv); measure nothing")
    s.add_argument("--csv", default=None, help="with --plot-only: the CSV to draw from")
    add_output_args(s, json_help="print one JSON object (rows, steps, verdict, ...)",
                    quiet_help="no progress lines")
    add_sweep_args(s, "result store (SQLite; default seprank-results/results.sqlite, shared "
                      "with sweep and verify): stored cells are not measured again")


def _pairs(items, flag: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        key, sep, val = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key or not val.strip():
            raise ConfigError(f"{flag} {item!r} must be KEY=VALUE")
        out.append((key, val.strip()))
    return out


def _arch_and_keys(args):
    if args.torch is not None:
        if args.arch != "attention":
            raise ConfigError(f"--torch {args.torch}: give --torch or --arch, not both")
        a = sc.resolve_arch(sc.TORCH_PREFIX + args.torch)
    else:
        a = sc.resolve_arch(args.arch)
    vary, fixed = {}, {}
    for key, text in _pairs(args.vary, "--vary"):
        if key in vary:
            raise ConfigError(f"--vary {key}: given twice")
        vary[key] = sc.parse_values(key, text, a.kinds.get(key, "int"))
    for key, text in _pairs(args.param, "--param"):
        if key in fixed:
            raise ConfigError(f"--param {key}: given twice")
        fixed[key] = parse_value(a.kinds.get(key, "str"), key, text)
    return a, vary, fixed


def cmd(args) -> int:
    """Run (or redraw) a study and print it.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``seprank study``.

    Returns
    -------
    int
        The exit code (0 done, 1 a cell failed or was refused, 130 interrupted).

    Raises
    ------
    SeprankError
        On bad input (``main`` prints it as one line and exits 2).
    """
    if args.csv is not None and not args.plot_only:
        raise ConfigError("csv: --csv is read only with --plot-only")
    if args.pdf and not (args.out or args.plot_only):
        raise ConfigError("pdf: --pdf writes study.pdf beside study.png; give --out DIR")
    if args.plot_only:
        src = Path(args.csv) if args.csv else Path(args.out or ".") / st.CSV_NAME
        result = st.from_csv(src, args.depth_key, args.width_key)
        out = check_out_dir(args.out or src.parent)
        if src.resolve() != (out / st.CSV_NAME).resolve():  # the figure's data beside it
            write_text(out / st.CSV_NAME, src.read_text())
        files = plot_study.write(result, out, pdf=args.pdf)
        return _print(args, result, out, 0, files)
    if not args.vary:
        raise ConfigError("vary: give at least --vary depth=VALUES")
    a, vary, fixed = _arch_and_keys(args)
    check_file(Path(args.db or DEFAULT_DB))
    out = check_out_dir(args.out) if args.out else None
    try:
        result = st.study(
            a.name, vary, fixed, rules=args.rule, partition=args.partition,
            method=args.method, strategy=args.strategy, seed=args.seed, prime=args.prime,
            max_samples=args.max_samples, db=args.db or DEFAULT_DB, executor=args.executor,
            scheduler=args.scheduler, workers=args.workers, worker_memory=args.worker_memory,
            retries=args.retries, max_seconds=args.max_seconds, cell_limit=args.cell_limit,
            fallback=args.fallback,
            depth_key=args.depth_key, width_key=args.width_key, out=out,
            progress=not args.quiet and not args.json,
            say=None if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True)))
    except KeyboardInterrupt:
        print("seprank: interrupted; finished cells are in the store", file=sys.stderr)
        return 130
    files = [] if out is None else plot_study.write(result, out, pdf=args.pdf)
    bad = any(r["status"] in ("failed", "refused") for r in result.rows)
    return _print(args, result, out, 1 if bad else 0, files)


def _print(args, result, out, code: int, files: list) -> int:
    if args.json:
        d = result.to_dict()
        if out is not None:
            d["csv"] = str(Path(out) / st.CSV_NAME)
            d["figure"] = str(files[0])
            if len(files) > 1:
                d["figure_pdf"] = str(files[1])
        print(json.dumps(d, default=str))
    else:
        for line in result.lines():
            print(line)
        if out is not None:
            print(f"wrote {', '.join(str(f) for f in [Path(out) / st.CSV_NAME, *files])}")
    return code

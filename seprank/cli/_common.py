"""Helpers shared by the sub-command modules: the parser classes, argument types, the
attention network's flags and the progress callback (the output-folder check is
:func:`seprank.paths.check_out_dir`)."""

from __future__ import annotations

import argparse
import sys


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown in --help (where there is one to show); epilogs keep line breaks."""

    def _get_help_string(self, action):
        h = action.help or ""
        d = action.default
        if d is None or d is False or d == argparse.SUPPRESS or "default" in h:
            return h
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *a, **kw):
        kw.setdefault("formatter_class", _Formatter)
        super().__init__(*a, **kw)

    def error(self, message):  # one line, exit 2
        print(f"seprank: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _bounded_int(lo: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {v}")
        return v

    parse.__name__ = f"integer >= {lo}"
    return parse


nonneg_int, pos_int = _bounded_int(0), _bounded_int(1)


def _int_list(text: str) -> list[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None


def _add_net_args(p, need=True):
    """The attention network's flags; with ``need=False`` (measure, bounds: --arch decides)
    every one defaults to None, and the attention networks require depth, width, seq-len."""
    req = " (required for --arch attention)" if not need else ""
    p.add_argument("--depth", type=int, required=need, help=f"number of layers L >= 1{req}")
    p.add_argument("--width", type=int, required=need, help=f"width d_x{req}")
    p.add_argument("--heads", type=int, default=1 if need else None,
                   help="heads H dividing the width (default 1)")
    p.add_argument("--seq-len", type=int, required=need, help=f"sequence length N >= 2{req}")
    p.add_argument("--residual", action="store_true", help="add the skip connection")
    p.add_argument("--query-position", type=int, default=0 if need else None,
                   help="position i whose output y^{L,i} is studied (default 0)")  # fmt: skip


def _progress(args):
    """Progress lines on stderr; with --json only the cost estimate and first-run notes."""
    if args.quiet:
        return None
    if not args.json:
        return True
    return lambda msg: msg.startswith(("estimate", "compiling")) and print(msg, file=sys.stderr)


def _byte_size(text: str) -> int:
    """``4GiB``, ``512MiB``, ``2e9`` -> bytes."""
    units = {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "kb": 10**3, "mb": 10**6,
             "gb": 10**9, "tb": 10**12, "b": 1}  # fmt: skip
    t = text.strip().lower()
    unit = next((u for u in units if t.endswith(u)), "b")
    try:
        v = float(t[: len(t) - len(unit)] if t.endswith(unit) else t) * units[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 4GiB, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return int(v)


def add_sweep_args(p, db_help: str) -> None:
    """--db, --executor, --scheduler, --workers, --worker-memory, --retries (sweep, verify)."""
    p.add_argument("--db", default=None, help=db_help)
    p.add_argument("--executor", default="processes", choices=("serial", "processes", "dask"),
                   help="serial (this process), processes (a local pool) or dask (Dask "
                        "distributed: --scheduler ADDRESS, or a LocalCluster started here)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a running Dask scheduler, e.g. tcp://host:8786 (with --executor "
                        "dask; default: start a LocalCluster and close it at the end)")
    p.add_argument("--workers", type=pos_int, default=None,
                   help="workers for processes or a LocalCluster (default: all cores)")
    p.add_argument("--worker-memory", type=_byte_size, default=None, metavar="SIZE",
                   help="memory per worker, e.g. 4GiB: a task estimated to need more is "
                        "refused and stored as such (default: memory / workers; a Dask "
                        "cluster's own limit)")
    p.add_argument("--retries", type=nonneg_int, default=2,
                   help="attempts after the first for a task that raised unexpectedly or "
                        "whose worker died (a refused input is not retried)")

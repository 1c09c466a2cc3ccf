"""Helpers shared by the sub-command modules: the parser classes, argument types (the
measurement's parameters' from their table, :func:`param_arg` and :func:`add_param`), the
attention network's flags and the progress callback (the output-folder check is
:func:`seprank.paths.check_out_dir`)."""

from __future__ import annotations

import argparse
import math
import sys

from seprank.engine import parameters
from seprank.engine.parameters import MAX_INT
from seprank.errors import ConfigError, SeprankError


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

    def error(self, message):  # one line, exit 2 (even when stderr cannot be written)
        try:
            print(one_line(f"seprank: error: {message}"), file=sys.stderr)
        except (OSError, ValueError):
            pass
        raise SystemExit(2)


def one_line(text: str) -> str:
    """``text`` with every character that is not printable (a newline, a control
    character, a lone surrogate from a non-UTF-8 argument) written as its escape, so that
    an error echoing the user's input stays one line.

    Parameters
    ----------
    text : str
        The message.

    Returns
    -------
    str
        One printable line.
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


#: An argument with more digits than the largest integer an argument may take (MAX_INT:
#: what SQLite, the store, and numpy's int64 hold) is refused before it is converted.
_MAX_DIGITS = 19


def _bounded_int(lo: int, hi: int = MAX_INT):
    def parse(text: str) -> int:
        t = text.strip()
        if len(t.lstrip("+-")) > _MAX_DIGITS:
            raise argparse.ArgumentTypeError(f"must be <= {hi}, got a {len(t)}-digit number")
        try:
            v = int(t)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {v}")
        if v > hi:
            raise argparse.ArgumentTypeError(f"must be <= {hi}, got {v}")
        return v

    parse.__name__ = f"integer in [{lo}, {hi}]"
    return parse


def param_arg(name: str):
    """The argument type of the parameter ``name`` (:mod:`seprank.engine.parameters`): its
    refusal is the table's one line, which argparse prefixes with the flag."""

    def parse(text: str):
        try:
            return parameters.parse(name, text)
        except SeprankError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = parameters.row(name).expected
    return parse


def add_param(p, name: str, **kw) -> None:
    """Add the flag of the parameter ``name`` to ``p``: its type, default, help and (for
    names) metavar from the table; ``kw`` overrides them (e.g. a sub-command's own help).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser.
    name : str
        A row of :data:`seprank.engine.parameters.PARAMETERS` that has a flag.
    **kw
        Passed to ``add_argument`` over the table's.
    """
    r = parameters.row(name)
    opts = {"type": param_arg(name), "help": r.help,
            "default": r.default if r.cli_default is None else r.cli_default}
    if r.kind == "choice":
        opts["metavar"] = choices_metavar(r.names())
    p.add_argument(r.flag, **{**opts, **kw})


nonneg_int, pos_int = _bounded_int(0), _bounded_int(1)
#: --max-samples: a grid side (the memory check of the options refuses what does not fit).
sample_count = param_arg("max_samples")
#: --confirm, --retries, --workers: counts of runs, attempts and processes.
small_count, retry_count, worker_count = _bounded_int(1, 1000), _bounded_int(0, 100), \
    _bounded_int(1, 4096)
#: --threads: torch CPU threads (far more than any machine has is a typo, refused).
thread_count = _bounded_int(1, 1024)
#: --prime: a prime within the modulus limits (the API's policy: whether it is large enough
#: for the network is the measurement's label, not a refusal).
prime_arg = param_arg("prime")


def real_arg(lo: float, hi: float, *, lo_open: bool = False):
    """A finite real number in [lo, hi] (or (lo, hi] with ``lo_open``)."""

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(v) or v > hi or v < lo or (lo_open and v == lo):
            side = "(" if lo_open else "["
            raise argparse.ArgumentTypeError(f"must be a finite number in {side}{lo:g}, "
                                             f"{hi:g}], got {text!r}")
        return v

    parse.__name__ = f"number in [{lo:g}, {hi:g}]"
    return parse


#: A partition lists positions of one sequence: at most this many.
MAX_POSITIONS = 10**6


def _int_list(text: str) -> list[int]:
    parts = [t for t in text.split(",") if t.strip() != ""]
    if len(parts) > MAX_POSITIONS:
        raise argparse.ArgumentTypeError(f"at most {MAX_POSITIONS} positions, got {len(parts)}")
    try:
        out = [_bounded_int(0, MAX_POSITIONS)(t) for t in parts]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers in [0, {MAX_POSITIONS}], got {text[:40]!r}"
        ) from None
    return out


def _add_net_args(p, need=True):
    """The attention network's flags; with ``need=False`` (measure, bounds: --arch decides)
    every one defaults to None, and the attention networks require depth, width, seq-len."""
    req = " (required for --arch attention)" if not need else ""
    p.add_argument("--depth", type=pos_int, required=need, help=f"number of layers L >= 1{req}")
    p.add_argument("--width", type=pos_int, required=need, help=f"width d_x{req}")
    p.add_argument("--heads", type=pos_int, default=1 if need else None,
                   help="heads H dividing the width (default 1)")
    p.add_argument("--seq-len", type=pos_int, required=need, help=f"sequence length N >= 2{req}")
    p.add_argument("--residual", action="store_true", help="add the skip connection")
    p.add_argument("--query-position", type=nonneg_int, default=0 if need else None,
                   help="position i whose output y^{L,i} is studied (default 0)")


def add_output_args(p, json_help: str = "print one JSON object",
                    quiet_help: str = "no progress lines or notes on stderr") -> None:
    """--json and --quiet, which every sub-command that prints results takes.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser.
    json_help, quiet_help : str
        What the two flags do for this sub-command.
    """
    p.add_argument("--json", action="store_true", help=json_help)
    p.add_argument("--quiet", action="store_true", help=quiet_help)


def choices_metavar(values) -> str:
    """The metavar ``{a,b,c}`` that lists an option's valid values in --help (the values
    themselves are checked by the API, whose error names the argument)."""
    return "{" + ",".join(values) + "}"


def say_stderr(args):
    """A callable printing one line on stderr, or one that prints nothing with --quiet."""
    if getattr(args, "quiet", False):
        return lambda msg: None
    return lambda msg: print(msg, file=sys.stderr, flush=True)


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
             "gb": 10**9, "tb": 10**12, "b": 1}
    t = text.strip().lower()
    unit = next((u for u in units if t.endswith(u)), "b")
    try:
        v = float(t[: len(t) - len(unit)] if t.endswith(unit) else t) * units[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 4GiB, got {text!r}") from None
    if not math.isfinite(v) or not 1 <= v <= 2**60:
        raise argparse.ArgumentTypeError(f"must be a size from 1 byte to 1 EiB, got {text!r}")
    return int(v)


def check_executor_flags(args) -> None:
    """One rule for flags that contradict each other or are empty: ConfigError (exit 2)
    naming both flags (``--worker-timeout`` or ``--scheduler`` without ``--executor dask``)
    or the empty one (``--out ''``, ``--db ''``)."""
    executor = getattr(args, "executor", None)
    for flag in ("worker_timeout", "scheduler"):
        if getattr(args, flag, None) is not None and executor != "dask":
            name = "--" + flag.replace("_", "-")
            raise ConfigError(f"{name}={getattr(args, flag)!r} needs --executor dask (got "
                              f"--executor {executor}): it is a Dask cluster's setting")
    for flag in ("out", "db", "scheduler"):
        v = getattr(args, flag, None)
        if v is not None and not str(v).strip():
            raise ConfigError(f"--{flag} '' is empty: name one (or leave --{flag} out)")


def add_sweep_args(p, db_help: str) -> None:
    """--db, --executor, --scheduler, --workers, --worker-memory, --retries (sweep, verify)."""
    p.add_argument("--db", default=None, help=db_help)
    p.add_argument("--executor", default="processes", choices=("serial", "processes", "dask"),
                   help="serial (this process), processes (a local pool) or dask (Dask "
                        "distributed: --scheduler ADDRESS, or a LocalCluster started here)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a running Dask scheduler, e.g. tcp://host:8786 (with --executor "
                        "dask; default: start a LocalCluster and close it at the end)")
    p.add_argument("--workers", type=worker_count, default=None,
                   help="workers for processes or a LocalCluster (default: all cores)")
    p.add_argument("--worker-memory", type=_byte_size, default=None, metavar="SIZE",
                   help="memory per worker, e.g. 4GiB: a task estimated to need more is "
                        "refused and stored as such (default: memory / workers; a Dask "
                        "cluster's own limit)")
    p.add_argument("--retries", type=retry_count, default=2,
                   help="attempts after the first for a task that raised unexpectedly or "
                        "whose worker died (a refused input is not retried)")

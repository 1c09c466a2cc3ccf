"""The command line the experiment scripts share: bad input is refused in one line naming
the argument, exit 2, before anything is measured or written (numbers out of range, unknown
names, an output folder that cannot be written, a CSV there that is not the script's own).

The mixer experiments (``mixers_compare``, ``mixers_length``) also read their CSV back
through :func:`read_rows` (a foreign or hand-broken CSV refused, naming its line) and run
through :func:`measure_keeping` (every earlier row kept; Ctrl-C exit 130).
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
import time
from pathlib import Path

from seprank.cli.arg_types import bounded_int as int_at_least
from seprank.cli.arg_types import (
    check_out_dir,
    nonneg_int,
    pos_int,
    prime_arg,
    real_arg,
    sample_count,
    thread_count,
    worker_count,
)
from seprank.errors import ConfigError, SeprankError
from seprank.figures.csv_rows import read_table

__all__ = ["Parser", "experiment_main", "guarded", "int_at_least", "int_list",
           "measure_keeping", "names", "nonneg_int", "out_file", "out_folder", "pos_int",
           "prime_arg", "read_rows", "sample_count", "seconds", "thread_count",
           "worker_count"]

#: --timeout, --row-seconds: a positive number of seconds (at most a week).
seconds = real_arg(0.0, 7 * 24 * 3600.0, lo_open=True)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``prog: error: ...``), exit 2."""

    def error(self, message):
        try:
            print(f"{self.prog}: error: {message}", file=sys.stderr)
        except (OSError, ValueError):  # stderr cannot be written: still exit 2
            pass
        raise SystemExit(2)


def names(allowed):
    """An argument type: a comma list of distinct names, each one of ``allowed``."""

    def parse(text: str) -> list[str]:
        got = [t.strip() for t in text.split(",") if t.strip()]
        bad = [t for t in got if t not in allowed]
        if bad or not got or len(set(got)) < len(got):
            why = f"{', '.join(bad)} not" if bad else "expected a comma list of distinct names"
            raise argparse.ArgumentTypeError(f"{why} among {', '.join(allowed)}")
        return got

    parse.__name__ = "comma list"
    return parse


def int_list(lo: int, hi: int):
    """An argument type: a comma list of distinct integers in [lo, hi] (depths)."""
    one = int_at_least(lo, hi)

    def parse(text: str) -> list[int]:
        try:
            got = [one(t) for t in text.split(",") if t.strip()]
        except argparse.ArgumentTypeError:
            got = []
        if not got or len(set(got)) < len(got):
            raise argparse.ArgumentTypeError(f"expected a comma list of distinct integers "
                                             f"in [{lo}, {hi}], got {text[:40]!r}")
        return got

    parse.__name__ = "comma list of integers"
    return parse


def out_folder(ap: Parser, path: str) -> Path:
    """``--out``, made if needed and checked writable (else ``ap.error``): call it once
    every other argument is checked, since it creates the folder."""
    if not str(path).strip():
        ap.error("--out: empty (give a folder; . for this one)")
    try:
        return check_out_dir(path, "--out")
    except ConfigError as exc:
        ap.error(str(exc))


def out_file(ap: Parser, path: str | None, arg: str = "--out") -> Path | None:
    """A file to be written at the end (None stays None): a folder in its place is
    refused, and its folder is made if needed and checked writable (else ``ap.error``):
    call it once every other argument is checked."""
    if path is None:
        return None
    if not str(path).strip():
        ap.error(f"{arg}: empty (give a file name)")
    p = Path(path)
    if p.is_dir():
        ap.error(f"{arg}={path!r} is a folder, not a file")
    try:
        check_out_dir(p.parent, arg)
    except ConfigError as exc:
        ap.error(str(exc))
    return p


def _bad_value(v: str, check) -> bool:
    if isinstance(check, int):  # an integer >= check, written in ASCII digits
        return not (re.fullmatch(r"-?[0-9]{1,18}", v.strip()) and int(v) >= check)
    if check is float:  # a finite number >= 0, or empty
        try:
            return bool(v.strip()) and not (math.isfinite(float(v)) and float(v) >= 0)
        except ValueError:
            return True
    return v not in check  # one of the names


def read_rows(ap: Parser, path: Path, required, checks, known) -> list[dict]:
    """The rows of the CSV at ``path`` ([] when there is none). One that is not this
    script's (a column of ``required`` missing, one not in ``known``, unreadable) or has a
    bad value is refused by ``ap.error``, naming its line. ``checks``: column -> the least
    integer it may hold, ``float`` (a number >= 0 or empty) or the names it may hold; a
    column an older CSV lacks is not checked."""
    if not path.exists():
        return []
    try:
        have, rows = read_table(path)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        ap.error(f"--out: cannot read {path} ({exc})")
    missing = [f for f in required if f not in have]
    unknown = [f for f in have if f not in known]
    if missing or unknown:
        what = f"no column {missing[0]}" if missing else f"a column {unknown[0]!r}"
        ap.error(f"--out: {path} is not this script's CSV ({what}); move it or choose "
                 "another --out")
    for i, r in enumerate(rows, 2):
        for f, check in checks.items():
            if f in have and _bad_value(str(r[f] or ""), check):
                ap.error(f"--out: {path} line {i}: {f}={r[f]!r} is not a valid value "
                         "(a CSV edited by hand? move it or choose another --out)")
    return rows


def guarded(ap: Parser, work):
    """``work()``; a refusal of seprank (SeprankError) or memory running out becomes
    ``ap.error`` (one line, exit 2)."""
    try:
        return work()
    except SeprankError as exc:
        ap.error(str(exc))
    except MemoryError:
        ap.error("out of memory: lower the sizes")


def experiment_main(folder: str, presets, run_cli, argv=None, threads_default="torch's choice",
                    columns=()):
    """``python -m experiments.<folder>.run``: a torch experiment's command line.

    ``--preset`` (one of ``presets``), ``--out`` (default experiments/FOLDER/runs/PRESET),
    ``--device`` (cpu or cuda), ``--threads``: a bad flag exits 2 (``ap.error``); torch
    missing, a GPU asked for and absent, or an output folder that cannot be written is
    refused in one line and returns 2, before any training. Then ``run_cli(preset, out,
    device, threads)``, whose exit code it returns. ``columns``: those a results.csv already
    in the folder must have (one that lacks one is another script's: refused, exit 2)."""
    ap = Parser(prog=f"python -m experiments.{folder}.run",
                description=f"The {folder.replace('_', '-')} experiment (needs torch).")
    ap.add_argument("--preset", default="cpu", choices=list(presets), help="the run's size")
    ap.add_argument("--out", default=None,
                    help=f"results folder (default: experiments/{folder}/runs/PRESET)")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="torch device")
    ap.add_argument("--threads", type=thread_count, default=None,
                    help=f"torch CPU threads (default: {threads_default})")
    args = ap.parse_args(argv)

    def refuse(msg: str) -> int:
        try:
            print(f"{ap.prog}: error: {msg}", file=sys.stderr)
        except (OSError, ValueError):  # stderr itself cannot be written: still exit 2
            pass
        return 2

    try:
        import torch
    except ImportError:
        return refuse("torch is not installed (pip install torch==2.13.0)")
    if args.device == "cuda" and not torch.cuda.is_available():  # before --out is made
        return refuse("--device=cuda requested but no GPU is available")
    default = Path("experiments") / folder / "runs" / args.preset
    try:  # --out '' is refused (it is not the default: that would write into the checkout)
        out = check_out_dir(default if args.out is None else args.out, "--out")
        _own_csv(out / "results.csv", columns)
    except ConfigError as exc:
        return refuse(str(exc))
    return run_cli(args.preset, out, args.device, args.threads)


def _own_csv(path: Path, columns) -> None:
    """ConfigError if ``path`` is a CSV that lacks one of ``columns`` (another script's),
    or cannot be read; nothing if it does not exist."""
    if not columns or not path.exists():
        return
    try:
        have = read_table(path)[0]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"--out: cannot read {path} ({exc})") from None
    missing = [c for c in columns if c not in have]
    if missing:
        raise ConfigError(f"--out: {path} is not this script's CSV (no column {missing[0]}); "
                          "move it or choose another --out")


def measure_keeping(path: Path, earlier, measure, merge, write, draw) -> int:
    """A mixer script's run: ``measure(sink)`` returns the rows it measured and hands
    ``sink`` the rows so far as they come; each time, and at the end, the CSV at ``path``
    is rewritten (``write``) as those rows merged over ``earlier`` (``merge(rows,
    earlier)``: a row measured now replaces the earlier row of its key, every other row is
    kept), then drawn (``draw``). Ctrl-C: the CSV as last written, one line, exit 130."""
    t = time.perf_counter()
    try:
        rows = measure(lambda rows: write(merge(rows, earlier)))
    except KeyboardInterrupt:
        print(f"interrupted: the rows written so far are in {path}", file=sys.stderr)
        return 130
    rows = merge(rows, earlier)
    write(rows)
    draw(rows)
    print(f"{len(rows)} rows in {time.perf_counter() - t:.0f} s -> {path}")
    return 0

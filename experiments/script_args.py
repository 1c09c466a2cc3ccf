"""The command line the experiment scripts share: bad input is refused in one line naming
the argument, exit 2, before anything is measured or written (numbers out of range, unknown
names, an output folder that cannot be written, a CSV there that is not the script's own).

The mixer experiments (``mixers_compare``, ``mixers_length``) also read their CSV back
through :func:`read_rows` and say what Ctrl-C kept (:func:`interrupted`, exit 130).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from seprank.cli._common import _bounded_int as int_at_least
from seprank.cli._common import (
    nonneg_int,
    pos_int,
    prime_arg,
    real_arg,
    sample_count,
    worker_count,  # fmt: skip
)
from seprank.errors import ConfigError
from seprank.paths import check_out_dir

__all__ = ["Parser", "int_at_least", "int_list", "interrupted", "names", "nonneg_int",
           "out_file", "out_folder", "pos_int", "prime_arg", "read_rows", "sample_count",
           "seconds", "worker_count"]  # fmt: skip

#: --timeout, --row-seconds: a positive number of seconds (at most a week).
seconds = real_arg(0.0, 7 * 24 * 3600.0, lo_open=True)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``prog: error: ...``), exit 2."""

    def error(self, message):
        print(f"{self.prog}: error: {message}", file=sys.stderr)
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


def int_list(text: str) -> list[int]:
    """An argument type: a comma list of distinct integers >= 1 (depths)."""
    try:
        got = [pos_int(t) for t in text.split(",") if t.strip()]
    except argparse.ArgumentTypeError:
        got = []
    if not got or len(set(got)) < len(got):
        raise argparse.ArgumentTypeError(f"expected a comma list of distinct integers >= 1, "
                                         f"got {text[:40]!r}")  # fmt: skip
    return got


int_list.__name__ = "comma list of integers"


def out_folder(ap: Parser, path: str) -> Path:
    """``--out``, made if needed and checked writable (else ``ap.error``)."""
    try:
        return check_out_dir(path, "--out")
    except ConfigError as exc:
        ap.error(str(exc))


def out_file(ap: Parser, path: str | None, arg: str = "--out") -> Path | None:
    """A file to be written at the end (None stays None): its folder is made if needed
    and checked writable now, and a folder in its place is refused (else ``ap.error``)."""
    if path is None:
        return None
    p = Path(path)
    if p.is_dir():
        ap.error(f"{arg}={path!r} is a folder, not a file")
    try:
        check_out_dir(p.parent, arg)
    except ConfigError as exc:
        ap.error(str(exc))
    return p


def read_rows(ap: Parser, path: Path, fields, ints=("depth",)) -> list[dict]:
    """The rows of the CSV at ``path`` ([] when there is none); one that is not this
    script's (a column of ``fields`` missing, a column of ``ints`` not an integer, or
    unreadable) is refused by ``ap.error``."""
    if not path.exists():
        return []
    try:
        with open(path, newline="") as fh:
            reader = csv.DictReader(fh)
            missing = [f for f in fields if f not in (reader.fieldnames or [])]
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        ap.error(f"--out: cannot read {path} ({exc})")
    if missing:
        ap.error(f"--out: {path} is not this script's CSV (no column {missing[0]}); "
                 "move it or choose another --out")  # fmt: skip
    for i, r in enumerate(rows, 2):
        for f in ints:
            if not str(r[f]).strip().lstrip("-").isdigit():
                ap.error(f"--out: {path} line {i}: {f}={r[f]!r} is not an integer")
    return rows


def interrupted(path: Path) -> int:
    """Say that Ctrl-C stopped the run and what is kept; the exit code 130."""
    print(f"interrupted: the rows written so far are in {path}", file=sys.stderr)
    return 130

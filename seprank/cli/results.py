"""``seprank results``: list and export the tasks in a result store."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

from seprank.cli._common import add_output_args
from seprank.engine import tables
from seprank.errors import ConfigError
from seprank.registry import deprecated
from seprank.sweeps.fingerprint import fingerprint
from seprank.sweeps.store import DEFAULT_DB, Store

RESULTS_EPILOG = """\
--where COLUMN=VALUE (also !=, <, <=, >, >=; repeatable, all must hold) filters on:
  status (done | failed | refused), task, grid, arch, depth, width, heads, seq_len,
  residual, method, strategy, seed, prime, rank, saturated, version, attempts, ...
--json prints every stored field of each task, the full Measurement included
(measurement), the verify row for verify tasks (extra), and the error of a failed or
refused one. rank is measured; label says what it is (the words of the labels page:
exact, proved | lower bound, saturated | lower bound, not saturated | float estimate, ...).
A row measured by other code (its code fingerprint differs from this seprank's) is
marked stale (status "done, stale"; --json and --csv: stale = true): a sweep does not reuse
it (its key differs) and measures the task again. The store is opened read-only, and read
as data: an arch module:Class in it is listed, never imported (its code does not run).
--format latex prints a booktabs tabular (\\usepackage{booktabs}) and --format markdown a pipe
table, of the done tasks (the others are counted on stderr), the PAPER columns: a table of
labelled ranks a paper can take as it is.
--format table|csv|json is deprecated: the table is the default, --csv or --json the others.
exit codes: 0 listed, 2 no such store, not a seprank store, or corrupt (nothing listed)."""

TABLE = ("key", "status", "task", "arch", "config", "partition", "method", "strategy", "seed",
         "rank", "label", "seconds", "attempts", "error")
CSV = ("key", "status", "task", "grid", "arch", "depth", "width", "heads", "seq_len",
       "residual", "partition", "method", "strategy", "seed", "prime", "max_samples",
       "version", "rank", "label", "saturated", "seconds", "est_seconds", "est_bytes", "attempts",
       "host", "finished", "config", "error", "code", "stale")
#: --format latex | markdown: the table's columns less the bookkeeping ones (one list:
#: a column added to TABLE shows there too).
PAPER = tuple(c for c in TABLE if c not in ("key", "status", "task", "seconds", "attempts",
                                            "error"))
#: The titles of the PAPER columns (a column not named here is titled by its name).
TITLES = {"arch": "network", "config": "configuration", "partition": "partition $A$"}
#: --format values that are not deprecated (the paper tables).
PAPER_FORMATS = ("latex", "markdown")
#: --format table|csv|json, still read (with a note on stderr).
FORMAT_FLAG = deprecated("--format", since="0.2.0",
                         instead="use --json or --csv (default: the table)")


def add_parser(sub) -> None:
    r = sub.add_parser("results", help="list or export the tasks in a result store",
                       epilog=RESULTS_EPILOG)
    r.add_argument(
        "--db",
        default=DEFAULT_DB,
        help="the result store (written by seprank sweep and seprank verify)",
    )
    add_output_args(r, json_help="print one JSON array, every stored field of each task",
                    quiet_help="no notes on stderr")
    r.add_argument("--csv", action="store_true", help="print CSV (the indexed columns)")
    r.add_argument("--format", default=None, choices=("table", "csv", "json") + PAPER_FORMATS,
                   help="latex (booktabs) or markdown: a table a paper can take; table, csv, "
                   "json: deprecated, use --json or --csv (default: a table, one line a task)")
    r.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="COLUMN=VALUE",
        help="keep tasks where this holds (repeatable)",
    )


def _config(cfg: dict | None) -> str:
    if not cfg:
        return "-"
    short = {"depth": "L", "width": "d", "heads": "H", "seq_len": "N"}
    skip = {"architecture", "query_position", "output_coord"}
    keys = [k for k in short if k in cfg] + [k for k in cfg if k not in short and k not in skip]
    return " ".join(f"{short.get(k, k)}={int(v) if isinstance(v, bool) else v}"
                    for k in keys if (v := cfg[k]) is not None)


def _cell(row: dict, col: str) -> str:
    v = row.get(col)
    if col == "key":
        return v[:10]
    if col == "config":
        return _config(v)
    if col == "saturated":
        return "-" if v is None else str(bool(v))
    if col == "seconds":
        return "-" if v is None else f"{v:.2f}"
    if col == "partition":
        return "default" if v is None else ",".join(map(str, v))
    if col == "error":
        return "" if not v else (v if len(v) <= 90 else v[:87] + "...")
    return "-" if v is None else str(v)


def output_format(args) -> str:
    """table, csv or json from --json / --csv (or the deprecated --format, with a note);
    latex or markdown from --format.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``seprank results`` arguments.

    Returns
    -------
    str
        ``"table"``, ``"csv"``, ``"json"``, ``"latex"`` or ``"markdown"``.

    Raises
    ------
    ConfigError
        When the flags ask for two formats.
    """
    asked = [f for f, on in (("json", args.json), ("csv", args.csv)) if on]
    if args.format in PAPER_FORMATS:
        if asked:
            raise ConfigError(f"format={args.format!r}: conflicts with --{asked[0]}")
        return args.format
    if args.format is not None:
        if not args.quiet:
            print(f"seprank: note: {FORMAT_FLAG.message()}", file=sys.stderr)
        if asked and asked[0] != args.format:
            raise ConfigError(f"format={args.format!r}: conflicts with --{asked[0]}")
        asked = asked or [args.format]
    if len(asked) > 1:
        raise ConfigError("json: give --json or --csv, not both")
    return asked[0] if asked else "table"


def cmd(args) -> int:
    """List the store's tasks as a table, CSV (--csv), JSON (--json), LaTeX or Markdown.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``seprank results``.

    Returns
    -------
    int
        The exit code (0 listed).

    Raises
    ------
    SeprankError
        On bad input (``main`` prints it as one line and exits 2).
    """
    fmt = output_format(args)
    if not Path(args.db).is_file():
        raise ConfigError(f"db={args.db!r} does not exist (seprank sweep or seprank verify "
                          "writes it; --db names another)")
    with Store(args.db, readonly=True) as store:
        rows = store.query(args.where)
    current = fingerprint()
    for r in rows:
        r["stale"] = r.get("code") != current
    if fmt in PAPER_FORMATS:
        print(paper_table(rows, fmt, args.db, quiet=args.quiet))
    elif fmt == "json":
        print(json.dumps(rows))
    elif fmt == "csv":
        w = csv.writer(sys.stdout)
        w.writerow(CSV)
        for r in rows:
            w.writerow([json.dumps(r[c]) if c in ("config", "partition") else r.get(c)
                        for c in CSV])
    else:
        table = [list(TABLE)] + [[_cell(r, c) + (", stale" if c == "status" and r["stale"]
                                                  else "") for c in TABLE] for r in rows]
        widths = [max(len(t[i]) for t in table) for i in range(len(TABLE))]
        for t in table:
            print("  ".join(v.ljust(w) for v, w in zip(t, widths)).rstrip())
        counts = {s: sum(r["status"] == s for r in rows) for s in ("done", "failed", "refused")}
        stale = sum(r["stale"] for r in rows)
        print(f"{len(rows)} tasks: " + ", ".join(f"{v} {k}" for k, v in counts.items())
              + (f"; {stale} stale (other code than {current}: not reused)" if stale else "")
              + " (rank: measured)")
    return 0


def _paper_cell(row: dict, col: str, fmt: str):
    v = row.get(col)
    if col == "config":
        return tables.config_math(v) if fmt == "latex" else tables.config_text(v)
    if col == "partition":
        return tables.partition_math(v) if fmt == "latex" else _cell(row, col)
    if col in ("rank", "seed") and v is not None:
        return int(v)
    return _cell(row, col)


def paper_table(rows: list[dict], fmt: str, db: str, quiet: bool = False) -> str:
    """The done tasks as a LaTeX (booktabs) or Markdown table of the :data:`PAPER` columns.

    Parameters
    ----------
    rows : list of dict
        The store's rows (:meth:`seprank.sweeps.store.Store.query`), ``stale`` set.
    fmt : {"latex", "markdown"}
        The format.
    db : str
        The store's path (named in the LaTeX table's comment line).
    quiet : bool, default False
        No note on stderr (the tasks left out: failed, refused; the stale ones kept).

    Returns
    -------
    str
        The table.
    """
    done = [r for r in rows if r["status"] == "done"]
    stale = sum(r["stale"] for r in done)
    notes = [f"{len(rows) - len(done)} failed or refused tasks left out (seprank results "
             "lists them)"] * (len(done) < len(rows))
    notes += [f"{stale} rows stale (measured by other code than this seprank's)"] * bool(stale)
    if notes and not quiet:
        print("seprank: note: " + "; ".join(notes), file=sys.stderr)
    header = [TITLES.get(c, c) for c in PAPER]
    body = [[_paper_cell(r, c, fmt) for c in PAPER] for r in done]
    if fmt == "markdown":
        return tables.markdown_table([h.replace("$A$", "A") for h in header], body)
    return tables.latex_table([tables.math_cell(h) if "$" in h else h for h in header], body,
                              comment=f"seprank results --db {db} (rank: measured; label: "
                              "the words of docs/explanation/labels.md)")

"""``seprank transition``: measure the deep grid (resumable CSV) and draw figure 8."""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

from seprank.cli._common import (
    add_output_args,
    add_param,
    add_sweep_args,
    check_executor_flags,
    nonneg_int,
)
from seprank.errors import ConfigError
from seprank.figures import transition as plot_transition
from seprank.figures.common import PAPER_FIGURES
from seprank.paths import check_out_dir, write_bytes
from seprank.studies import transition
from seprank.sweeps import block_data
from seprank.sweeps.store import DEFAULT_DB, check_file


def add_parser(sub) -> None:
    t = sub.add_parser(
        "transition",
        help="measured ranks at depths 1-5 (width 2) and 1-3 (widths 3, 4) and their growth "
             "ratios; resumable (rows already in the CSV are skipped)")
    t.add_argument("--quick", action="store_true",
                   help="small grid (depths up to 3)")
    t.add_argument("--out", default=None,
                   help="folder for fig8_measured_transition.csv/.png/.pdf (default: "
                        "paper_figures, or seprank-transition-quick with --quick)")
    add_param(t, "seed", help="weights and sample points")
    t.add_argument("--max-bound", type=nonneg_int, default=None,
                   help="skip configurations whose proved bound exceeds this (e.g. 10000 "
                        "to leave out the largest; default: none skipped)")
    t.add_argument("--plot-only", action="store_true",
                   help="redraw the figure from the CSV, measure nothing (the CSV is "
                        "read as data: nothing it names is imported); writes the PNG and "
                        "PDF into --out, and the CSV beside them when it came from "
                        "elsewhere (--csv, or the checkout's committed one)")
    t.add_argument("--csv", default=None,
                   help="with --plot-only: the CSV to redraw from (default: the one in "
                        "--out, else the committed paper_figures/fig8_measured_transition.csv "
                        "of the checkout seprank runs from, so the command works from any "
                        "folder)")
    t.add_argument("--blocks", type=Path, action="append", default=None,
                   metavar="FILE.jsonl",
                   help="block data (seprank blocks --data): each complete measurement it "
                        "holds becomes the row of its configuration, assembled from the "
                        "committed blocks (nothing ranked), e.g. "
                        "proofs/data/l6_d2_blocks.jsonl for depth 6 at width 2; repeatable")
    add_output_args(t, json_help="print one JSON object (rows, csv, figure) instead of the "
                    "lines", quiet_help="no progress bar")
    add_sweep_args(t, "result store (SQLite; default seprank-results/results.sqlite, shared "
                      "with verify and sweep): stored configurations are not measured again")


#: Columns the figure reads, as integers (positive: the rank is drawn on a log scale).
INT_COLUMNS = ("width", "heads", "seq_len", "depth", "measured", "upper_proved")


def plot_source(folder: Path, given: str | None) -> Path:
    """The CSV --plot-only redraws from: ``--csv``, else the folder's own, else the
    checkout's committed one (so ``--plot-only --out .`` works from any folder)."""
    if given is not None:
        return Path(given)
    own = folder / transition.CSV_NAME
    committed = PAPER_FIGURES / transition.CSV_NAME
    return own if own.exists() or not committed.exists() else committed


def check_csv(path: Path, must_exist: bool) -> None:
    """ConfigError naming the CSV (and the first bad column or row) unless the figure can
    be drawn from it; nothing is written before."""
    if not path.exists():
        if must_exist:
            raise ConfigError(f"csv: {str(path)!r} does not exist; --plot-only redraws the "
                              "figure from it (give --csv FILE, or run seprank transition "
                              "first)")
        return
    try:
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"csv={str(path)!r} cannot be read ({exc})") from None
    if must_exist and not rows:
        raise ConfigError(f"csv={str(path)!r} holds no rows: nothing to draw")
    missing = [c for c in transition.COLUMNS if rows and c not in rows[0]]
    if missing:
        raise ConfigError(f"csv={str(path)!r} is not seprank's transition CSV: no column "
                          f"{missing[0]!r}")
    for i, r in enumerate(rows, start=2):
        for c in INT_COLUMNS:
            v = (r.get(c) or "").strip()
            if not (v.isdigit() and len(v) < 4000 and int(v) >= 1):
                raise ConfigError(f"csv={str(path)!r} line {i}: {c}={v[:20]!r} must be a "
                                  "positive integer")
        f = (r.get("ratio_formula") or "").strip()
        try:
            ok = not f or math.isfinite(float(f))
        except ValueError:
            ok = False
        if not ok:
            raise ConfigError(f"csv={str(path)!r} line {i}: ratio_formula={f[:20]!r} must be "
                              "a number or empty")


def cmd(args) -> int:
    """Measure the deep grid (or redraw from the CSV) and print the rows (--json: one object).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``seprank transition``.

    Returns
    -------
    int
        The exit code (0 done, 1 a configuration failed or was refused, 130 interrupted).

    Raises
    ------
    SeprankError
        On bad input (``main`` prints it as one line and exits 2).
    """
    check_executor_flags(args)  # --out '' and --scheduler without dask: refused
    folder = args.out if args.out is not None else (
        "seprank-transition-quick" if args.quick else "paper_figures")
    if args.csv is not None and not args.plot_only:
        raise ConfigError("csv: --csv is read only with --plot-only (a measuring run writes "
                          "its CSV into --out)")
    for f in args.blocks or []:
        if not f.is_file():
            raise ConfigError(f"blocks: {str(f)!r} is not a file (give the block data that "
                              "seprank blocks --data wrote)")
        block_data.read(f)  # a broken data file: refused before anything is written
    source = plot_source(Path(folder), args.csv) if args.plot_only else None
    check_csv(source or Path(folder) / transition.CSV_NAME, must_exist=args.plot_only)
    if not args.plot_only:
        check_file(Path(args.db or DEFAULT_DB))  # a foreign store: refused before any write
    out = check_out_dir(folder)
    if source is not None and source.resolve() != (out / transition.CSV_NAME).resolve():
        write_bytes(out / transition.CSV_NAME, source.read_bytes())  # its data beside it
    rows, not_measured = transition.read(out / transition.CSV_NAME), 0
    if not args.plot_only:
        try:
            rows, not_measured = transition.run(
                                  "quick" if args.quick else "deep", out, seed=args.seed,
                                  max_bound=args.max_bound, executor=args.executor,
                                  scheduler=args.scheduler, workers=args.workers,
                                  worker_memory=args.worker_memory, retries=args.retries,
                                  db=args.db or DEFAULT_DB, progress=not args.quiet)
        except KeyboardInterrupt:
            print("seprank: interrupted; finished rows are in the store and the CSV",
                  file=sys.stderr)
            plot_transition.draw(out)
            return 130
    if args.blocks:
        say = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
        for f in args.blocks:
            rows = transition.merge(rows, transition.rows_from_blocks(f, say))
        transition.write(rows, out / transition.CSV_NAME)
    png = plot_transition.draw(out)
    if args.json:
        print(json.dumps({"rows": rows, "csv": str(out / transition.CSV_NAME),
                          "figure": str(png), "not_measured": not_measured}, default=str))
    for r in ([] if args.json else rows):
        print(f"L={r['depth']} d={r['width']} H={r['heads']} N={r['seq_len']}: measured "
              f"{r['measured']} [{transition.row_label(r)}], proved bound "
              f"{r['upper_proved']}, ratio measured {r['ratio_measured'] or '-'} / bound "
              f"{r['ratio_formula'] or '-'}")
    if not args.json:
        print(f"wrote {out / transition.CSV_NAME} and {png}")
    if not_measured:
        print(f"seprank: {not_measured} configurations failed or were refused (stored with "
              f"the reason: seprank results --db {args.db or DEFAULT_DB} --where "
              "status!=done)", file=sys.stderr)
        return 1
    return 0

"""``seprank figures``: regenerate the theorem figures."""

from __future__ import annotations

import sys
from pathlib import Path

from seprank.engine.warm_up import warm_up
from seprank.figures import paper as plots
from seprank.paths import check_out_dir
from seprank.sweeps.store import DEFAULT_DB, check_file

QUICK_FIGURES = "seprank-figures-quick"


def add_parser(sub) -> None:
    f = sub.add_parser("figures", help="regenerate the theorem figures")
    f.add_argument("--out", default=None,
                   help=f"folder for PNG, PDF, CSV and README (default: paper_figures, or "
                   f"{QUICK_FIGURES} with --quick, so the committed figures stay untouched)")
    f.add_argument("--quick", action="store_true", help="fewer measured points, faster")
    f.add_argument("--db", default=DEFAULT_DB,
                   help="result store the exact measurements are read from and stored in "
                        "(shared with transition and sweep): a rerun measures nothing stored")


def cmd_figures(args) -> int:
    check_file(Path(args.db))  # a foreign store: refused before anything is written
    out = check_out_dir(args.out or (QUICK_FIGURES if args.quick else "paper_figures"))
    print(f"writing figures to {out.resolve()}", file=sys.stderr)

    warm_up(lambda msg: print(msg, file=sys.stderr, flush=True))
    done = plots.make_all(out, quick=args.quick, db=args.db)
    print(f"wrote {len(done)} figures (PNG, PDF, CSV) and README.md to {out}")
    return 0

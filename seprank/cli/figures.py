"""``seprank figures``: regenerate the theorem figures."""

from __future__ import annotations

import json
from pathlib import Path

from seprank.cli._common import add_output_args, say_stderr
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
    f.add_argument("--relabel", action="store_true",
                   help="measure and draw nothing: give every CSV in --out its label column "
                        "(the words of the labels page), derived from each row's own fields")
    add_output_args(f, json_help="print one JSON object (the folder and the figures written)",
                    quiet_help="no notes on stderr (the folder, the first-run compile)")


def cmd_figures(args) -> int:
    """Write the theorem figures; print what was written (--json: one object).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``seprank figures``.

    Returns
    -------
    int
        The exit code (0 written).

    Raises
    ------
    SeprankError
        On bad input (``main`` prints it as one line and exits 2).
    """
    if args.relabel:
        out = check_out_dir(args.out or "paper_figures")
        done = plots.relabel(out)
        if args.json:
            print(json.dumps({"out": str(out), "relabelled": done}))
        else:
            print(f"relabelled {len(done)} CSVs in {out}: {', '.join(done)}")
        return 0
    check_file(Path(args.db))  # a foreign store: refused before anything is written
    out = check_out_dir(args.out or (QUICK_FIGURES if args.quick else "paper_figures"))
    say = say_stderr(args)
    say(f"writing figures to {out.resolve()}")
    warm_up(say)
    done = plots.make_all(out, quick=args.quick, db=args.db, say=say)
    if args.json:
        print(json.dumps({"out": str(out), "figures": done}))
    else:
        print(f"wrote {len(done)} figures (PNG, PDF, CSV) and README.md to {out}")
    return 0

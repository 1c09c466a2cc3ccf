"""``seprank figures``: regenerate the theorem figures."""

from __future__ import annotations

import json
from pathlib import Path

from seprank.cli._common import add_output_args, say_stderr
from seprank.engine.warm_up import warm_up
from seprank.errors import ConfigError
from seprank.figures import paper as plots
from seprank.figures.common import PAPER_FIGURES
from seprank.paths import check_out_dir
from seprank.sweeps.store import DEFAULT_DB, check_file

QUICK_FIGURES = "seprank-figures-quick"


def add_parser(sub) -> None:
    f = sub.add_parser("figures", help="regenerate the theorem figures")
    f.add_argument("--out", default=None,
                   help=f"folder for PNG, PDF, CSV and README, created if needed (default: "
                   f"paper_figures in the current folder, or {QUICK_FIGURES} with --quick); "
                   "the checkout's committed paper_figures is refused without --overwrite")
    f.add_argument("--quick", action="store_true", help="fewer measured points, faster")
    f.add_argument("--only", nargs="+", default=None,
                   choices=sorted(plots.FIGURE_NAMES.values(), key=_figure_number),
                   help="write only these figures (no README), e.g. --only fig4_heads; "
                        "default: all of them and the README with their captions")
    f.add_argument("--overwrite", action="store_true",
                   help="allow --out to be the checkout's committed paper_figures folder "
                        "(its figures, CSVs and README are replaced)")
    f.add_argument("--db", default=DEFAULT_DB,
                   help="result store the exact measurements are read from and stored in "
                        "(shared with transition and sweep): a rerun measures nothing stored")
    f.add_argument("--relabel", action="store_true",
                   help="measure and draw nothing: give every CSV in --out its label column "
                        "(the words of the labels page), derived from each row's own fields")
    add_output_args(f, json_help="print one JSON object (the folder and the figures written)",
                    quiet_help="no notes on stderr (the folder, the first-run compile)")


def _figure_number(name: str) -> int:
    return int(name[3:].split("_")[0])


def committed_folder(out: Path) -> bool:
    """Whether ``out`` is the checkout's committed paper_figures folder."""
    try:
        return out.resolve() == PAPER_FIGURES.resolve()
    except OSError:
        return False


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
        out = check_out_dir("paper_figures" if args.out is None else args.out)
        done = plots.relabel(out)
        if args.json:
            print(json.dumps({"out": str(out), "relabelled": done}))
        else:
            print(f"relabelled {len(done)} CSVs in {out}: {', '.join(done)}")
        return 0
    check_file(Path(args.db))  # a foreign store: refused before anything is written
    if args.out is not None and not str(args.out).strip():
        check_out_dir(args.out)  # --out '': refused (it is not the default folder)
    folder = Path(args.out if args.out is not None else
                  QUICK_FIGURES if args.quick else "paper_figures")
    if committed_folder(folder) and not args.overwrite:
        raise ConfigError(f"out={str(folder)!r} is the checkout's committed figures folder; "
                          "give --out FOLDER for a new one, or --overwrite to replace the "
                          "committed figures")
    out = check_out_dir(folder)
    say = say_stderr(args)
    say(f"writing figures to {out.resolve()}")
    warm_up(say)
    done = plots.make_all(out, quick=args.quick, db=args.db, say=say, only=args.only)
    if args.json:
        print(json.dumps({"out": str(out), "figures": done}))
    else:
        readme = "" if args.only else " and README.md"
        print(f"wrote {len(done)} figures (PNG, PDF, CSV){readme} to {out}")
    return 0

"""``seprank verify``: the main job, measured ranks beside the proved bounds."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from seprank.cli._common import (
    _int_list,
    _progress,
    add_output_args,
    add_param,
    add_sweep_args,
    check_executor_flags,
)
from seprank.cli.archs import net_from_args
from seprank.cli.torch_args import add_torch_args
from seprank.errors import ConfigError
from seprank.labels import SATURATED
from seprank.paths import check_out_dir
from seprank.studies import verify
from seprank.sweeps.store import check_file
from seprank.verdicts.verdict import verify_partitions

VERIFY_EPILOG = f"""\
the grid: seprank/sweeps/grids/verify-quick.toml or verify-default.toml, run as a sweep through
the result store (--db, default OUT/results.sqlite): a rerun measures only what is
missing and prints the same table; seprank results --db lists the stored tasks.
columns: L depth, d width, H heads, N sequence length, res residual connection;
  measured  exact rank over GF(p) of a sampled grid (certified lower bound)
  sat       saturated (threshold 1e-2; see SATURATED below)
  upper     proved upper bound (exact integer)
  exact_proved  measured == upper: exact, proved (no probability; seprank certify)
  regime_paper   the paper's rule: depth-efficient iff L < log3 d
  regime_growth  measured log rank(L+1) / log rank(L): >= 2 depth-efficient
  part      rank equal on other balanced partitions (yes / NO / - not checked)
  verdict   exact, proved | below bound | below formula (H=1 conjecture fails) |
            not saturated | VIOLATION (measured > proved: a bug)
--json and results.csv: each row's label says what its measured rank is, in the words of
the labels page: exact, proved | lower bound, saturated | lower bound, not saturated
(exact_proved: the same as a bool).
--arch NAME|module:Class [--param KEY=VALUE ...] [--partition A ...]: one network of
any architecture instead of the grid: its rank on each partition (default: the first
N//2) beside its own upper bound where one exists (seprank bounds --arch prints it; status
proved, recalled or architecture); verdict exact, proved | exact, given the recalled
literature bound / the architecture's stated bound (SOURCE) | below bound | not saturated |
no upper bound known | VIOLATION (above a proved bound) | lower bound, above ... (that
bound is false).
SATURATED
  {SATURATED}
exit codes: 0 every configuration measured and no proved bound violated, 1 a proved
bound was violated or a configuration failed or was refused (the verification is then
incomplete; stderr says which), 2 bad input, 130 interrupted (the table holds what
finished)."""


def add_parser(sub) -> None:
    v = sub.add_parser("verify", help="the main job: measured ranks vs proved bounds",
                       epilog=VERIFY_EPILOG)
    v.add_argument("--quick", action="store_true",
                   help="small grid (verify-quick.toml: depths 1-3, widths 2-4, proved bound "
                        "at most 1500)")
    v.add_argument("--out", default="seprank-results",
                   help="folder for results.csv and results.md (checked before any work)")
    add_param(v, "seed", help="draws the weights and sample points of every configuration")
    add_output_args(v, json_help="print one JSON object (rows, summary, verdict) instead of "
                    "the table", quiet_help="no progress bar")
    v.add_argument("--arch", default=None, metavar="NAME|module:Class",
                   help="verify one network of this architecture instead of the grid")
    v.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter of --arch or --torch (repeatable)")
    add_torch_args(v)
    v.add_argument("--partition", action="append", type=_int_list, default=[],
                   metavar="A", help="an A side for --arch, e.g. 0,1 (repeatable)")
    add_sweep_args(v, "result store (SQLite; default OUT/results.sqlite): configurations "
                   "already there are not measured again")


def cmd_arch(args) -> int:
    """``verify --arch``: one network, measured on its partitions against its own bound."""
    if args.quick:
        raise ConfigError("--quick selects the attention grid; with --arch give --param and "
                          "--partition instead")
    net = net_from_args(args)
    parts = args.partition or [None]
    if not args.quiet:  # the plan first; measure's estimate line follows for each partition
        print(f"verify --arch: {len(parts)} partition{'s' if len(parts) > 1 else ''} of "
              f"{net!r:.100}, each measured, then compared with its own bound",
              file=sys.stderr, flush=True)
    rows = verify_partitions(net, args.partition or None, seed=args.seed,
                             progress=_progress(args))
    if args.json:
        print(json.dumps({"arch": args.arch or args.torch, "rows": rows}))
    else:
        for r in rows:
            up = "none known" if r["upper"] is None else f"{r['upper']} ({r['status']})"
            print(f"A={r['partition']}: measured {r['measured']} ({r['method']}) "
                  f"[{r['label']}], upper bound {up}: {r['verdict']}")
            if r["source"]:
                print(f"  source: {r['source']}")
    bad = [r for r in rows if r["verdict"] == "VIOLATION"]
    for r in bad:
        print(f"VIOLATION: measured {r['measured']} > proved {r['upper']} on "
              f"A={r['partition']}: a bug is far likelier than a refutation", file=sys.stderr)
    return 1 if bad else 0


def cmd_verify(args) -> int:
    """Run the verify grid (or one --arch network) and print the table or one JSON object.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``seprank verify``.

    Returns
    -------
    int
        The exit code (0 all measured, no violation; 1 a violation or a task not
        measured; 130 interrupted).

    Raises
    ------
    SeprankError
        On bad input (``main`` prints it as one line and exits 2).
    """
    check_executor_flags(args)
    if args.arch is not None or args.torch is not None:
        return cmd_arch(args)
    if args.param or args.partition:
        raise ConfigError("--param and --partition need --arch (the grid job takes neither)")
    check_file(Path(args.db or Path(args.out) / "results.sqlite"))  # before anything is made
    out = check_out_dir(args.out)
    rows, summary = verify.run("quick" if args.quick else "default", out, args.seed,
                               db=args.db, executor=args.executor, scheduler=args.scheduler,
                               workers=args.workers, worker_memory=args.worker_memory,
                               retries=args.retries, progress=not args.quiet)
    bad = [r for r in rows if r["verdict"] == "VIOLATION"]
    verdict = verify.verdict_lines(rows, summary)
    if args.json:
        print(json.dumps({"summary": summary, "verdict": verdict, "rows": rows,
                          "out": str(out)}))
    else:
        verify.print_table(rows)
        print("(columns: seprank verify --help; results.md has the legend)")
        for line in verify.summary_lines(summary):
            print(line)
        print(f"wrote {out / 'results.csv'} and {out / 'results.md'}")
        print("\n".join(verdict))
    for r in bad:
        print(f"VIOLATION: measured {r['measured']} > proved {r['upper']}: a bug is far "
              f"likelier than a refutation (the bound is proved). Reproduce: "
              f"{verify.reproduce_command(r)}", file=sys.stderr)
    if bad:
        return 1
    if summary["interrupted"]:
        return 130
    for m in summary["not_measured"]:
        print(f"NOT MEASURED ({m['status']}): {m['config']}: {m['error']}", file=sys.stderr)
    return 1 if summary["not_measured"] else 0

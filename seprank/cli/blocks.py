"""``seprank blocks``: one catalecticant measurement, its blocks as stored, resumable tasks
(serial, processes or Dask)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from seprank.cli._common import (
    _add_net_args,
    _int_list,
    add_output_args,
    add_param,
    add_sweep_args,
    check_executor_flags,
    nonneg_int,
    real_arg,
)
from seprank.cli.archs import add_arch_args, net_from_args
from seprank.cli.measure import print_measurement
from seprank.errors import ConfigError
from seprank.sweeps import block_data
from seprank.sweeps.block_tasks import measurement_plan, run_blocks
from seprank.sweeps.executors import WORKER_TIMEOUT_S
from seprank.sweeps.store import DEFAULT_DB, Store, check_file

BLOCKS_EPILOG = """\
The catalecticant strategy (seprank measure --strategy catalecticant) ranks D + 1 blocks,
D = (3^L - 1)/2. Here each block is a task of the result store, keyed by the
measurement's key (architecture, config, partition, seed, prime, seprank version, code
fingerprint) and its index: each finished block is written in its own transaction, so
Ctrl-C (exit 130) keeps the finished ones, and rerunning the same command ranks only the
blocks not yet stored (a stored block is never ranked again). Blocks run largest first;
a line per block gives its rank, its time, the blocks stored and the time left (an
estimate). Once every block is stored the measurement is assembled (the same ranks as
seprank measure --strategy catalecticant) and stored as a measure task; it is printed as
measure prints it (--json: the Measurement's JSON). --executor dask --scheduler ADDRESS
spreads the blocks over a cluster (each worker builds F once). --data FILE.jsonl keeps
each finished block as one line under its identity (architecture, parameters, partition,
seed, prime, block), not the code's: commit the file, and a run on another machine or
checkout takes those blocks as done.
exit codes: 0 done (or --max-blocks reached: the count is printed), 1 a block failed or
was refused (stored, with its error), or the store could not be written, or no Dask worker
was left, 2 bad input (one line; nothing stored), 130 interrupted (finished blocks kept)."""


def add_parser(sub) -> None:
    b = sub.add_parser("blocks", epilog=BLOCKS_EPILOG,
                       help="one catalecticant measurement with its blocks as stored, "
                            "resumable tasks (serial, processes or Dask)")
    add_arch_args(b)
    _add_net_args(b, need=False)
    b.add_argument("--output-coord", type=nonneg_int, default=None,
                   help="coordinate p of the output vector y^{L,i} studied (default 0)")
    add_param(b, "seed", help="draws the weights")
    b.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions, e.g. 0,1 (default: the first N//2)")
    add_param(b, "prime", help="modulus (default: the strategy's choice, as seprank measure)")
    add_param(b, "rank_engine")
    add_param(b, "saturation_threshold", help="as seprank measure's")
    b.add_argument("--max-blocks", type=nonneg_int, default=None,
                   help="rank at most this many of the blocks not yet stored, then stop")
    b.add_argument("--data", type=Path, default=None, metavar="FILE.jsonl",
                   help="committed block data: blocks it holds are taken as done, each "
                        "finished block is appended (one JSON line, synced)")
    add_output_args(b, json_help="print the Measurement's JSON once complete (else the "
                    "counts)", quiet_help="no progress bar or lines")
    add_sweep_args(b, f"result store (SQLite; default {DEFAULT_DB})")
    b.add_argument("--worker-timeout", type=real_arg(0.0, 86400.0, lo_open=True),
                   default=None, metavar="SECONDS",
                   help="dask: stop (exit 1, finished blocks kept) when the cluster has "
                        f"had no live worker for this long (default {WORKER_TIMEOUT_S:g})")
    b.set_defaults(executor="serial")


def cmd(args) -> int:
    """Run the blocks not yet stored; print the measurement once all are.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``seprank blocks``.

    Returns
    -------
    int
        The exit code (0 done, 1 a block failed, 130 interrupted).
    """
    if getattr(args, "torch", None):
        raise ConfigError(f"--torch {args.torch}: seprank blocks runs the catalecticant "
                          "strategy, which applies to the linear attention network only; "
                          "measure a torch module with seprank measure --torch (or certify "
                          "--torch)")
    check_executor_flags(args)
    net = net_from_args(args)
    measurement_plan(net, args.partition, seed=args.seed, prime=args.prime,
                     rank_engine=args.rank_engine)  # bad input: refused before the store
    db = Path(args.db or DEFAULT_DB)
    check_file(db)  # a foreign, corrupt or empty file: refused before anything is written
    if args.data is not None:
        block_data.read(args.data)  # a broken data file: refused before anything runs
    with Store(db) as store:
        r = run_blocks(net, store, args.partition, seed=args.seed, prime=args.prime,
                       rank_engine=args.rank_engine, max_blocks=args.max_blocks,
                       saturation_threshold=args.saturation_threshold,
                       progress=not args.quiet, data=args.data, executor=args.executor,
                       scheduler=args.scheduler, workers=args.workers,
                       worker_memory=args.worker_memory, retries=args.retries,
                       worker_timeout=args.worker_timeout or WORKER_TIMEOUT_S)
    o = r.outcome
    if r.measurement is not None:
        print_measurement(r.measurement, args.json)
        if not args.json:
            print(f"  {r.line()}")
    elif args.json:
        print(json.dumps({"key": r.key, "blocks": r.blocks, "stored": r.stored,
                          "complete": False, "db": str(db),
                          "run": None if o is None else o.to_dict()}))
    else:
        print(f"incomplete: {r.line()}")
    if o is not None and o.interrupted:
        print("seprank: interrupted", file=sys.stderr)
        return 130
    if o is not None and (o.failed or o.refused):
        print(f"failed or refused: seprank results --db {db} --where status!=done",
              file=sys.stderr)
        return 1
    return 0

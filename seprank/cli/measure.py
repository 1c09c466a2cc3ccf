"""``seprank measure``: the separation rank of one network."""

from __future__ import annotations

import argparse
import json
import sys

from seprank.cli._common import (
    _add_net_args,
    _int_list,
    _progress,
    add_output_args,
    add_param,
    nonneg_int,
    small_count,
)
from seprank.cli.archs import add_arch_args, net_from_args
from seprank.engine.confirm import AUTO_MAX, confirm
from seprank.engine.measure import MeasureOptions, measure
from seprank.errors import MeasurementInterrupted
from seprank.labels import SATURATED

MEASURE_JSON = f"""\
--json prints one object with these fields:
  rank          measured rank (an int)        label      its label (docs: labels)
  saturated     see SATURATED below           method     modular | float | symbolic
  certified     what the rank guarantees      trusted    float only: spectrum trusted
  kind          always "measured"             prime      modulus (modular) or null
  samples       [rows, cols] of the final grid             seed       the seed used
  seconds, eval_seconds, rank_seconds: total, grid evaluation and rank time
  config        the network (architecture, depth, width, heads, seq_len, ...)
  partition     A-side positions               sampler    random | templates
  budget_hit    true: stopped at --max-samples before saturating
  sample_saturated  true: the rank stopped below the sample size
  saturation_bound  Schwartz-Zippel bound on a false saturation (null: none applies);
                saturated is true only when it is <= --saturation-threshold
  saturation_reason the ground of the label, or why saturation is refused
  confirm       with --confirm K or auto: runs, max_rank, combined_bound, saturated,
                reason, auto
  tolerance     SVD tolerance (float) or null  history    [rows, cols, rank] per step
  spectrum      null (singular values are kept only in the Python API)
  bound         modular: the architecture's upper bound compared after measuring
                (upper, status proved | recalled | architecture, source), or null;
                label "exact, proved" when the rank meets a proved one
  polynomial    false: a non-polynomial network (float only, no finite rank known)
SATURATED
  {SATURATED}
exit codes: 0 done, 2 bad input or refused as too big (one line on stderr),
130 interrupted (the last finished step is printed)."""


def add_parser(sub) -> None:
    m = sub.add_parser("measure", help="measure the separation rank of one network",
                       epilog=MEASURE_JSON)
    add_arch_args(m)
    _add_net_args(m, need=False)
    add_param(m, "method")
    add_param(m, "seed")
    m.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions, e.g. 0,1 (default: the first N//2)")
    m.add_argument("--output-coord", type=nonneg_int, default=None,
                   help="coordinate p of the output vector y^{L,i} studied (default 0)")
    for name in ("max_samples", "sampler", "prime", "rank_engine", "device", "strategy",
                 "saturation_threshold"):
        add_param(m, name)
    m.add_argument("--confirm", type=confirm_count, default=1, metavar="K|auto",
                   help="measure K times with independent seeds and primes; report the "
                        "largest rank and the combined bound. auto: once, then only if "
                        "the rank is neither exact nor saturated, as many more runs as its "
                        f"bound needs to reach the threshold (at most {AUTO_MAX}), or none "
                        "with the reason")
    add_output_args(m, quiet_help="no progress lines")


def confirm_count(text: str):
    """--confirm: a count of runs (1-1000) or ``auto``."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return small_count(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"a count of runs or auto: {exc}") from None


def _keywords(args) -> dict:
    return dict(method=args.method, max_samples=args.max_samples, sampler=args.sampler,
                rank_engine=args.rank_engine, strategy=args.strategy, device=args.device,
                saturation_threshold=args.saturation_threshold)


def options_from_args(args) -> MeasureOptions:
    """The MeasureOptions ``seprank measure`` runs with, from its parsed arguments."""
    return MeasureOptions(seed=args.seed, prime=args.prime, **_keywords(args))


def cmd_measure(args) -> int:
    net = net_from_args(args)
    kw = _keywords(args)
    summary = None
    try:
        if args.confirm == "auto" or args.confirm > 1:
            m, summary = confirm(net, args.partition, args.confirm, seed=args.seed,
                                 prime=args.prime, progress=_progress(args), **kw)
        else:
            m = measure(net, args.partition, progress=_progress(args),
                        options=options_from_args(args))
    except MeasurementInterrupted as exc:
        if exc.partial is not None:
            print_measurement(exc.partial, args.json)
        print("seprank: interrupted", file=sys.stderr)
        return 130
    print_measurement(m, args.json, summary)
    return 0


def print_measurement(m, as_json: bool, summary: dict | None = None) -> None:
    """Print a Measurement as ``seprank measure`` does (``as_json``: its JSON)."""
    if as_json:
        d = m.to_dict()
        if summary is not None:
            d["confirm"] = summary
        print(json.dumps(d))
        return
    state = m.label
    if m.budget_hit and not state.startswith("exact"):
        state += ": raise --max-samples"
    print(f"separation rank (measured, {m.method}): {m.rank}  [{state}]")
    print(f"  certified: {m.certified}")
    print(f"  ground: {m.saturation_reason}")
    b = m.bound
    if b is not None and b.value is not None:
        print(f"  upper bound ({b.status}, compared after measuring): {b.value}: {b.source}")
    elif b is not None:
        print(f"  upper bound: {b.source}")
    if summary is not None:
        print(f"  confirm: {summary['reason']}")
    extra = f", prime {m.prime}" if m.prime else ""
    extra += f", tolerance {m.tolerance:.3g}" if m.tolerance is not None else ""
    print(f"  samples {m.samples[0]}x{m.samples[1]}, seed {m.seed}{extra}")
    print(f"  time {m.seconds:.2f}s (grid {m.eval_seconds:.2f}s, rank {m.rank_seconds:.2f}s)")
    print(f"  partition A={list(m.partition)}, config {m.config}")
    print(f"  strategy {m.strategy}: {m.strategy_reason}")
    for name, why in m.considered:  # the planner's record: every strategy, why (not) taken
        said = "taken" if why is None else why if why.startswith("not ") else f"not taken: {why}"
        print(f"    {name}: {said}")
    for line in m.detail.lines(m) if m.detail is not None else ():
        print(line)

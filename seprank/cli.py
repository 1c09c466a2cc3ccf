"""The ``seprank`` command: a thin layer over the Python API.

Errors from the package become one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import MeasurementInterrupted, SeprankError


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown in --help (where there is one to show); epilogs keep line breaks."""

    def _get_help_string(self, action):
        h = action.help or ""
        d = action.default
        if d is None or d is False or d == argparse.SUPPRESS or "default" in h:
            return h
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *a, **kw):
        kw.setdefault("formatter_class", _Formatter)
        super().__init__(*a, **kw)

    def error(self, message):  # one line, exit 2
        print(f"seprank: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _bounded_int(lo: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {v}")
        return v

    parse.__name__ = f"integer >= {lo}"
    return parse


nonneg_int, pos_int = _bounded_int(0), _bounded_int(1)

MEASURE_JSON = """\
--json prints one object with these fields:
  rank          measured rank (an int)        saturated  true: rank < sample size
  certified     what the rank guarantees      method     modular | float | symbolic
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
  confirm       with --confirm K: runs, max_rank, combined_bound, saturated, reason
  tolerance     SVD tolerance (float) or null  history    [rows, cols, rank] per step
  spectrum      null (singular values are kept only in the Python API)
exit codes: 0 done, 2 bad input or refused as too big (one line on stderr),
130 interrupted (the last finished step is printed)."""


def _int_list(text: str) -> list[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None


def _add_net_args(p, need=True):
    """The attention network's flags; with ``need=False`` (measure, bounds: --arch decides)
    every one defaults to None, and the attention networks require depth, width, seq-len."""
    req = " (required for --arch attention)" if not need else ""
    p.add_argument("--depth", type=int, required=need, help=f"number of layers L >= 1{req}")
    p.add_argument("--width", type=int, required=need, help=f"width d_x{req}")
    p.add_argument("--heads", type=int, default=1 if need else None,
                   help="heads H dividing the width (default 1)")
    p.add_argument("--seq-len", type=int, required=need, help=f"sequence length N >= 2{req}")
    p.add_argument("--residual", action="store_true", help="add the skip connection")
    p.add_argument("--query-position", type=int, default=0 if need else None,
                   help="position i whose output y^{L,i} is studied (default 0)")  # fmt: skip


def _build_parser() -> argparse.ArgumentParser:
    from . import __version__

    ap = _Parser(prog="seprank", description="Separation-rank analysis of self-attention.",
                 epilog="exit codes: 0 done, 1 verify found a proven bound violated, 2 bad "
                 "input or refused (one line on stderr), 130 interrupted")  # fmt: skip
    ap.add_argument("--version", action="version", version=f"seprank {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)

    m = sub.add_parser("measure", help="measure the separation rank of one network",
                       epilog=MEASURE_JSON)  # fmt: skip
    from ._cli_archs import add_arch_args

    add_arch_args(m)
    _add_net_args(m, need=False)
    m.add_argument("--method", default="auto",
                   help="auto | modular | float | symbolic (auto: modular for a polynomial "
                        "network, float for one that is not, e.g. softmax-attention)")
    m.add_argument("--seed", type=nonneg_int, default=0,
                   help="draws the weights and sample points (same seed, same answer)")
    m.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions, e.g. 0,1 (default: the first N//2)")
    m.add_argument("--output-coord", type=int, default=None,
                   help="coordinate p of the output vector y^{L,i} studied (default 0)")
    m.add_argument("--max-samples", type=int, default=None,
                   help="largest grid side (default 6000 modular, 2500 float); the sample "
                   "grows x1.5 until the rank saturates or this is hit")  # fmt: skip
    m.add_argument("--sampler", default="auto",
                   help="auto | random | templates | alphabet (auto: alphabet for a network "
                        "on tokens, i.e. the complete grid over its vocabulary; else random)")
    m.add_argument("--prime", type=int, default=None,
                   help="modulus for --method modular (default: 67108859, below 2**26)")
    m.add_argument("--rank-engine", default="auto",
                   help="auto | blas | flint | array-numpy | array-torch: exact GF(p) rank "
                        "engine (they agree)")  # fmt: skip
    m.add_argument("--device", default="cpu",
                   help="cpu | cuda: cuda ranks with torch on a GPU (opt-in; never required)")
    m.add_argument("--strategy", default="auto",
                   help="auto | direct | graded: graded ranks one matrix per A-side degree "
                        "of a homogeneous f (auto: graded when f is homogeneous)")  # fmt: skip
    m.add_argument("--saturation-threshold", type=float, default=1e-2,
                   help="call a rank saturated only when the Schwartz-Zippel bound on a "
                        "false saturation is at most this")  # fmt: skip
    m.add_argument("--confirm", type=pos_int, default=1, metavar="K",
                   help="measure K times with independent seeds and primes; report the "
                        "largest rank and the combined bound")  # fmt: skip
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.add_argument("--quiet", action="store_true", help="no progress lines")

    from . import _cli_more

    _cli_more.add_parsers(sub)
    return ap


def _cmd_measure(args) -> int:
    from ._cli_archs import net_from_args
    from .measure import measure

    net = net_from_args(args)
    kw = dict(method=args.method, max_samples=args.max_samples, sampler=args.sampler,
              rank_engine=args.rank_engine, strategy=args.strategy, device=args.device,
              progress=_progress(args), saturation_threshold=args.saturation_threshold)
    summary = None
    try:
        if args.confirm > 1:
            from .saturation import confirm

            m, summary = confirm(net, args.partition, args.confirm, seed=args.seed,
                                 prime=args.prime, **kw)  # fmt: skip
        else:
            m = measure(net, args.partition, seed=args.seed, prime=args.prime, **kw)
    except MeasurementInterrupted as exc:
        if exc.partial is not None:
            _print_measurement(exc.partial, args.json)
        print("seprank: interrupted", file=sys.stderr)
        return 130
    _print_measurement(m, args.json, summary)
    return 0


def _progress(args):
    """Progress lines on stderr; with --json only the cost estimate and first-run notes."""
    if args.quiet:
        return None
    if not args.json:
        return True
    return lambda msg: msg.startswith(("estimate", "compiling")) and print(msg, file=sys.stderr)


def _print_measurement(m, as_json: bool, confirm: dict | None = None) -> None:
    if as_json:
        d = m.to_dict()
        if confirm is not None:
            d["confirm"] = confirm
        print(json.dumps(d))
        return
    if m.method == "float":
        state = "trusted float estimate" if m.saturated else "untrusted"
    else:
        state = "saturated" if m.saturated else "NOT saturated (a lower bound only)"
    if m.budget_hit:
        state += "; budget hit: raise --max-samples"
    print(f"separation rank (measured, {m.method}): {m.rank}  [{state}]")
    print(f"  certified: {m.certified}")
    print(f"  ground: {m.saturation_reason}")
    if confirm is not None:
        print(f"  confirm: {confirm['reason']}")
    extra = f", prime {m.prime}" if m.prime else ""
    extra += f", tolerance {m.tolerance:.3g}" if m.tolerance is not None else ""
    print(f"  samples {m.samples[0]}x{m.samples[1]}, seed {m.seed}{extra}")
    print(f"  time {m.seconds:.2f}s (grid {m.eval_seconds:.2f}s, rank {m.rank_seconds:.2f}s)")
    print(f"  partition A={list(m.partition)}, config {m.config}")
    print(f"  strategy {m.strategy}: {m.strategy_reason}")
    if m.strategy == "graded":
        g = m.graded
        done = sum(b["saturated"] for b in m.blocks)
        big = max(m.blocks, key=lambda b: b["rank"])
        print(f"  {len(m.blocks)} blocks (A-degrees {g['support'][0]}..{g['support'][-1]}), "
              f"{done} saturated, largest {big['rank']} at degree {big['degree']}")
        print(f"  chance a degree was missed <= {g['support_miss_bound']:.1e}; "
              f"homogeneity: {g['homogeneity']} (false <= {g['homogeneity_false_bound']:.1e})")


COMMANDS = {"measure": _cmd_measure}


def main(argv=None) -> int:
    from . import _cli_more

    parser = _build_parser()
    args = parser.parse_args(argv)
    handlers = dict(COMMANDS, **_cli_more.COMMANDS)
    try:
        return int(handlers[args.command](args) or 0)
    except SeprankError as exc:
        print(f"seprank: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("seprank: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `seprank archs | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

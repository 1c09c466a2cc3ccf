"""Sub-commands beyond ``measure``: bounds, guide, verify, figures, experiment, transition,
archs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .errors import ConfigError

QUICK_FIGURES = "seprank-figures-quick"

VERIFY_EPILOG = """\
columns: L depth, d width, H heads, N sequence length, res residual connection;
  measured  exact rank over GF(p) of a sampled grid (certified lower bound)
  sat       the rank stopped below the sample size and the Schwartz-Zippel bound on a
            false saturation is <= 1e-2 (a probability ground)
  upper     proven upper bound (exact integer)
  tight     measured == upper: exact, proved (no probability; seprank certify)
  regime_paper   the paper's rule: depth-efficient iff L < log3 d
  regime_growth  measured log rank(L+1) / log rank(L): >= 2 depth-efficient
  part      rank equal on other balanced partitions (yes / NO / - not checked)
  verdict   tight | below bound | below formula (H=1 conjecture fails) |
            not saturated | VIOLATION (measured > proven: a bug)
exit codes: 0 no proven bound violated, 1 a proven bound was violated,
2 bad input, 130 interrupted (the table holds what finished)."""


def add_parsers(sub) -> None:
    from . import _cli_archs
    from .cli import _add_net_args, _int_list, nonneg_int, pos_int

    b = sub.add_parser("bounds", help="proven upper bound and regimes for one network (or an "
                       "architecture's known bound, labelled with its source)")  # fmt: skip
    _cli_archs.add_arch_args(b)
    _add_net_args(b, need=False)
    b.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions, e.g. 0,1 (default: the first N//2)")  # fmt: skip
    b.add_argument("--softmax", action="store_true",
                   help="the softmax network (refused: no theorem bounds it)")
    b.add_argument("--json", action="store_true", help="print one JSON object")

    g = sub.add_parser("guide", help="the paper's depth-width fit: optimum or verdict")
    g.add_argument("--params", type=float, default=None, help="non-embedding parameter budget")
    g.add_argument("--depth", type=float, default=None, help="depth of a shape to judge")
    g.add_argument("--width", type=float, default=None, help="width of a shape to judge")
    g.add_argument("--json", action="store_true", help="print one JSON object")

    v = sub.add_parser("verify", help="the main job: measured ranks vs proven bounds",
                       epilog=VERIFY_EPILOG)  # fmt: skip
    v.add_argument("--quick", action="store_true", help="small grid, about half a minute")
    v.add_argument("--out", default="seprank-results",
                   help="folder for results.csv and results.md (checked before any work)")
    v.add_argument("--seed", type=nonneg_int, default=0,
                   help="draws the weights and sample points of every configuration")
    v.add_argument("--json", action="store_true",
                   help="print one JSON object (rows, summary, verdict) instead of the table")

    f = sub.add_parser("figures", help="regenerate the theorem figures")
    f.add_argument("--out", default=None,
                   help=f"folder for PNG, PDF, CSV and README (default: paper_figures, or "
                   f"{QUICK_FIGURES} with --quick, so the committed figures stay untouched)")
    f.add_argument("--quick", action="store_true", help="fewer measured points, faster")

    e = sub.add_parser("experiment", help="torch experiments: depth-width, teacher-student "
                       "(need a checkout of the repository and torch)")  # fmt: skip
    e.add_argument("--name", default="depth-width", help="depth-width | teacher-student")
    e.add_argument("--preset", default="cpu", help="smoke | cpu | gpu")
    e.add_argument("--out", default=None,
                   help="results folder (default: experiments/NAME/runs/PRESET)")
    e.add_argument("--device", default="cpu", help="cpu | cuda")
    e.add_argument("--threads", type=pos_int, default=None,
                   help="torch CPU threads (default: torch's choice; teacher-student: 1)")

    from . import _cli_certify, _cli_transition

    _cli_transition.add_parser(sub)
    _cli_archs.add_parser(sub)
    _cli_certify.add_parsers(sub)


def check_out_dir(path, arg: str = "out") -> Path:
    """Create ``path`` if needed and make sure a file can be written there, before any work."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / ".seprank-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or exc
        raise ConfigError(f"{arg}={str(path)!r} is not a writable folder ({reason})") from None
    return p


def _cmd_bounds(args) -> int:
    import math

    from ._cli_archs import cmd_bounds, net_from_args
    from .nets import LinearSelfAttention, SoftmaxSelfAttention
    from .theory.bounds import MAX_DIGITS, matrix_degree, output_degree, upper_bound
    from .theory.regimes import (
        doubled_transition_depth,
        growth_regime,
        paper_regime,
        paper_transition_depth,
    )

    if args.arch != "attention":
        return cmd_bounds(args)
    net = net_from_args(args)
    if getattr(args, "softmax", False):
        net = SoftmaxSelfAttention(depth=net.depth, width=net.width, heads=net.heads,
                                   seq_len=net.seq_len, residual=net.residual,
                                   query_position=net.query_position)  # fmt: skip
    ub = upper_bound(net, args.partition)  # refuses a network no theorem covers
    deeper = upper_bound(LinearSelfAttention(
        depth=net.depth + 1, width=net.width, heads=net.heads, seq_len=net.seq_len,
        residual=net.residual, query_position=net.query_position), args.partition)
    ratio = (deeper["log10_upper"] / ub["log10_upper"]) if ub["log10_upper"] > 0 else None
    out = {
        "upper": ub["upper"], "log10_upper": ub["log10_upper"], "which": ub["which"],
        "why": ub["why"], "block": ub["block"], "monomial": ub["monomial"],
        "kind": "proved", "output_degree": output_degree(net.depth),
        "matrix_degree_D": matrix_degree(net.depth),
        "regime_paper": paper_regime(net.depth, net.width),
        "regime_bound_growth": growth_regime(ratio),
        "growth_ratio_bound": ratio,
        "regime_bound_growth_basis": (
            "log upper(L+1) / log upper(L) for the proved bound printed as `upper` (same "
            "sides), >= 2 (an arbitrary threshold) called depth-efficient: computed from the "
            "bound, not measured; it is the growth of sep only where the bound is tight"),
        "crossover_depth": math.log(net.width**2 + net.width + 1, 3),
        "crossover_basis": "3^L = d^2 + d + 1 (D = m): where the block formula's two "
                           "regimes of log sep meet (proofs/transition.md); no threshold",
        "transition_depth_paper": paper_transition_depth(net.width),
        "transition_depth_2log3": doubled_transition_depth(net.width),
        "config": {"depth": net.depth, "width": net.width, "heads": net.heads,
                   "seq_len": net.seq_len, "residual": net.residual},
    }  # fmt: skip
    if args.json:
        print(json.dumps(out, default=str))
        return 0
    up = out["upper"]
    if up is None:
        shown = f"10^{out['log10_upper']:.3f} (over {MAX_DIGITS} digits: log10 only)"
    elif len(str(up)) > 40:
        shown = f"10^{out['log10_upper']:.3f} (an exact {len(str(up))}-digit integer: --json)"
    else:
        shown = f"{up}  (log10 {out['log10_upper']:.3f})"
    print(f"proven upper bound: {shown}; {out['which']} bound")
    print(f"  why: {out['why']}")
    print(f"  degree 3^L = {out['output_degree']}, D = {out['matrix_degree_D']}")
    print(f"  regime (paper rule L < log3 d = {out['transition_depth_paper']:.2f}): "
          f"{out['regime_paper']}")  # fmt: skip
    print(f"  crossover 3^L = d^2 + d + 1 at L = {out['crossover_depth']:.2f} (where the proved "
          "regimes of the generic-sides bound meet; the ratio-2 regime below is an "
          "illustration)")
    rg = out["regime_bound_growth"]
    print(f"  regime (growth of the log of this bound from L to L+1, not measured): {rg}"
          + (f" (ratio {ratio:.3f})" if ratio is not None and math.isfinite(ratio) else ""))
    return 0


def _cmd_guide(args) -> int:
    from .theory import guidelines as gl

    if args.params is not None:
        if args.depth is not None or args.width is not None:
            raise ConfigError("params: give either --params or --depth and --width, not both")
        opt = gl.fit_optimal_shape(args.params)
        out = dict(opt)
        if abs(args.params - 175e9) / 175e9 < 0.02:
            out["gpt3"] = gl.gpt3_report()
        if abs(args.params - 1e12) / 1e12 < 0.02:
            out["trillion"] = gl.trillion_report()
        if args.json:
            print(json.dumps(out))
            return 0
        print(f"paper's fit at {args.params:.3g} non-embedding params (computed from the fit):")
        print(f"  depth {opt['depth']:.1f}, width {opt['width']:.0f}")
        if "trillion" in out:
            t = out["trillion"]
            print(f"  quoted: width 30K (paper), depth 92 (authors): fit differs by "
                  f"{t['width_difference_pct']:+.1f}% in width, "
                  f"{t['depth_difference']:+.1f} layers")  # fmt: skip
        if "gpt3" in out:
            g = out["gpt3"]
            print(f"  GPT-3 (96 layers, width 12288; {g['params']:.3g} non-embedding params by "
                  f"12 L d^2, not 175e9): {g['verdict']}; at that count the fit would use "
                  f"{g['fit_depth_at_params']:.1f} layers of width "
                  f"{g['fit_width_at_params']:.0f}")  # fmt: skip
        return 0
    if args.depth is None or args.width is None:
        raise ConfigError("depth: give --params, or both --depth and --width")
    v = gl.verdict(args.depth, args.width)
    if args.json:
        print(json.dumps(v))
        return 0
    print(f"depth {args.depth:g}, width {args.width:g} ({v['params']:.3g} params): {v['verdict']}")
    print(f"  fit optimum at these params: depth {v['fit_depth_at_params']:.1f}, width "
          f"{v['fit_width_at_params']:.0f}")  # fmt: skip
    print(f"  fit width for depth {args.depth:g}: {v['fit_width_for_depth']:.0f}; fit depth "
          f"for width {args.width:g}: {v['fit_depth_for_width']:.1f}")  # fmt: skip
    return 0


def _cmd_verify(args) -> int:
    from . import verify

    out = check_out_dir(args.out)
    rows, summary = verify.run("quick" if args.quick else "default", out, args.seed)
    bad = [r for r in rows if r["verdict"] == "VIOLATION"]
    verdict = verify.verdict_lines(rows, summary)
    if args.json:
        print(json.dumps({"summary": summary, "verdict": verdict, "rows": rows,
                          "out": str(out)}))  # fmt: skip
    else:
        verify.print_table(rows)
        print("(columns: seprank verify --help; results.md has the legend)")
        for line in verify.summary_lines(summary):
            print(line)
        print(f"wrote {out / 'results.csv'} and {out / 'results.md'}")
        print("\n".join(verdict))
    for r in bad:
        print(f"VIOLATION: measured {r['measured']} > proven {r['upper']}: a bug is far "
              f"likelier than a refutation (the bound is proved). Reproduce: "
              f"{verify.reproduce_command(r)}", file=sys.stderr)  # fmt: skip
    if bad:
        return 1
    return 130 if summary["interrupted"] else 0


def _cmd_figures(args) -> int:
    from . import plots

    out = check_out_dir(args.out or (QUICK_FIGURES if args.quick else "paper_figures"))
    print(f"writing figures to {out.resolve()}", file=sys.stderr)
    from ._firstrun import warm_up

    warm_up(lambda msg: print(msg, file=sys.stderr, flush=True))
    done = plots.make_all(out, quick=args.quick)
    print(f"wrote {len(done)} figures (PNG, PDF, CSV) and README.md to {out}")
    return 0


EXPERIMENTS = {"depth-width": "depth_width", "teacher-student": "teacher_student"}


def _find_experiments(folder: str = "depth_width") -> Path | None:
    import seprank

    for base in (Path.cwd(), Path(seprank.__file__).resolve().parents[1]):
        if (base / "experiments" / folder / "run.py").exists():
            return base
    return None


def _cmd_experiment(args) -> int:
    import importlib

    name = getattr(args, "name", "depth-width")
    if name not in EXPERIMENTS:
        raise ConfigError(f"name={name!r} must be one of {', '.join(EXPERIMENTS)}")
    folder = EXPERIMENTS[name]
    base = _find_experiments(folder)
    if base is None:
        raise ConfigError(f"experiment: experiments/{folder} not found: the experiment ships "
                          "with the repository, not the package; run it from a checkout")
    try:
        import torch  # noqa: F401
    except ImportError:
        msg = "experiment: torch is not installed (pip install torch==2.13.0)"
        raise ConfigError(msg) from None
    sys.path.insert(0, str(base))
    exp = importlib.import_module(f"experiments.{folder}.run")

    if args.preset not in exp.PRESETS:
        raise ConfigError(f"preset={args.preset!r} must be one of {', '.join(exp.PRESETS)}")
    if args.device not in ("cpu", "cuda"):
        raise ConfigError(f"device={args.device!r} must be cpu or cuda")
    check_out_dir(args.out or Path("experiments") / folder / "runs" / args.preset)
    return exp.run_cli(args.preset, args.out, args.device, args.threads)


def _cmd_transition(args) -> int:
    from . import _cli_transition

    return _cli_transition.cmd(args)


def _cmd_archs(args) -> int:
    from . import _cli_archs

    return _cli_archs.cmd_archs(args)


def _cmd_certify(args) -> int:
    from . import _cli_certify

    return _cli_certify.cmd_certify(args)


def _cmd_check_certificate(args) -> int:
    from . import _cli_certify

    return _cli_certify.cmd_check(args)


COMMANDS = {
    "archs": _cmd_archs,
    "certify": _cmd_certify,
    "check-certificate": _cmd_check_certificate,
    "transition": _cmd_transition,
    "bounds": _cmd_bounds,
    "guide": _cmd_guide,
    "verify": _cmd_verify,
    "figures": _cmd_figures,
    "experiment": _cmd_experiment,
}

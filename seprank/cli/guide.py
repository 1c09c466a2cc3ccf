"""``seprank guide``: the paper's depth-width fit, an optimum or a verdict."""

from __future__ import annotations

import json

from seprank.cli._common import add_output_args, real_arg
from seprank.errors import ConfigError
from seprank.theory import guidelines as gl

#: The fit is used for depths 1 to MAX_DEPTH (beyond, its exponential width overflows).
MAX_DEPTH = 1000.0
MAX_WIDTH = 1e12


def _fit_range() -> tuple[float, float]:
    """The parameter counts 12 L d(L)^2 of the fit's shapes at depth 1 and MAX_DEPTH."""
    return tuple(gl.params(L, gl.fit_width(L)) for L in (1.0, MAX_DEPTH))


def _check_budget(budget: float, arg: str) -> None:
    lo, hi = _fit_range()
    if not lo <= budget <= hi:
        raise ConfigError(f"{arg}={budget:.3g} is outside the fit's range [{lo:.3g}, "
                          f"{hi:.3g}] (its optimum at depth 1 to {MAX_DEPTH:g})")


def add_parser(sub) -> None:
    g = sub.add_parser("guide", help="the paper's depth-width fit: optimum or verdict")
    g.add_argument("--params", type=real_arg(0.0, 1e300, lo_open=True), default=None,
                   help="non-embedding parameter budget (within the fit's range)")
    g.add_argument("--depth", type=real_arg(1.0, MAX_DEPTH), default=None,
                   help="depth of a shape to judge")
    g.add_argument("--width", type=real_arg(1.0, MAX_WIDTH), default=None,
                   help="width of a shape to judge")
    add_output_args(g, quiet_help="no notes on stderr (guide prints none: accepted "
                    "like every sub-command that prints results)")


def cmd_guide(args) -> int:
    if args.params is not None:
        if args.depth is not None or args.width is not None:
            raise ConfigError("params: give either --params or --depth and --width, not both")
        _check_budget(args.params, "params")
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
                  f"{t['depth_difference']:+.1f} layers")
        if "gpt3" in out:
            g = out["gpt3"]
            print(f"  GPT-3 (96 layers, width 12288; {g['params']:.3g} non-embedding params by "
                  f"12 L d^2, not 175e9): {g['verdict']}; at that count the fit would use "
                  f"{g['fit_depth_at_params']:.1f} layers of width "
                  f"{g['fit_width_at_params']:.0f}")
        return 0
    if args.depth is None or args.width is None:
        raise ConfigError("depth: give --params, or both --depth and --width")
    _check_budget(gl.params(args.depth, args.width), "params (12 depth width^2)")
    v = gl.verdict(args.depth, args.width)
    if args.json:
        print(json.dumps(v))
        return 0
    print(f"depth {args.depth:g}, width {args.width:g} ({v['params']:.3g} params): {v['verdict']}")
    print(f"  fit optimum at these params: depth {v['fit_depth_at_params']:.1f}, width "
          f"{v['fit_width_at_params']:.0f}")
    print(f"  fit width for depth {args.depth:g}: {v['fit_width_for_depth']:.0f}; fit depth "
          f"for width {args.width:g}: {v['fit_depth_for_width']:.1f}")
    return 0

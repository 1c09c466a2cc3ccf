"""``seprank bounds``: the proved upper bound and regimes of one network."""

from __future__ import annotations

import json

from seprank.cli._common import _add_net_args, _int_list, add_output_args
from seprank.cli.archs import add_arch_args, arch_class, cmd_bounds, net_from_args
from seprank.errors import TooBigError
from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention
from seprank.nets.bound import LINEAR_ATTENTION, theorem_of
from seprank.theory import bounds as theory_bounds
from seprank.theory.bounds import MAX_DIGITS, matrix_degree, output_degree, theorem_bound
from seprank.theory.regimes import (
    doubled_transition_depth,
    paper_regime,
    paper_transition_depth,
    step_regime,
)


def add_parser(sub) -> None:
    b = sub.add_parser("bounds", help="proved upper bound and regimes for one network (or an "
                       "architecture's known bound, labelled with its source)")
    add_arch_args(b)
    _add_net_args(b, need=False)
    b.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions, e.g. 0,1 (default: the first N//2)")
    b.add_argument("--softmax", action="store_true",
                   help="the softmax network (refused: no theorem bounds it)")
    add_output_args(b, quiet_help="no notes on stderr (bounds prints none: accepted "
                    "like every sub-command that prints results)")


#: The bound bisects over D = (3^L - 1)/2 with exact L-digit integers: about L steps of
#: O(L) digits each, measured about 2 s at L = 10,000 and growing as L^2; deeper is refused
#: (one less than the API's limit: the next depth is bounded too, for the growth ratio).
MAX_DEPTH = theory_bounds.MAX_DEPTH - 1


def _degree(depth: int, value: int):
    """3^L or D as an integer, or None past MAX_DIGITS digits (JSON and str cannot hold it)."""
    return value if depth * 0.4772 < MAX_DIGITS else None


def cmd(args) -> int:
    import math

    if getattr(args, "torch", None) or theorem_of(arch_class(args.arch)) != LINEAR_ATTENTION:
        return cmd_bounds(args)
    if args.depth is not None and args.depth > MAX_DEPTH:
        raise TooBigError(f"depth={args.depth} is too deep for the exact bound: its bisection "
                          f"over D = (3^L-1)/2 takes ~1.6 L steps on L-digit integers (about "
                          f"2 s at L = {MAX_DEPTH:,}, growing as L^2); at most {MAX_DEPTH:,}")
    net = net_from_args(args)
    if getattr(args, "softmax", False):
        net = SoftmaxSelfAttention(depth=net.depth, width=net.width, heads=net.heads,
                                   seq_len=net.seq_len, residual=net.residual,
                                   query_position=net.query_position)
    ub = theorem_bound(net, args.partition)  # refuses a network no theorem covers
    deeper = theorem_bound(LinearSelfAttention(
        depth=net.depth + 1, width=net.width, heads=net.heads, seq_len=net.seq_len,
        residual=net.residual, query_position=net.query_position), args.partition)
    ratio = (deeper["log10_upper"] / ub["log10_upper"]) if ub["log10_upper"] > 0 else None
    regime, regime_why = step_regime(ratio, 3.0, (net.depth + 1) / net.depth)
    paper = paper_regime(net.depth, net.width)
    out = {
        "upper": ub["upper"], "log10_upper": ub["log10_upper"], "which": ub["which"],
        "why": ub["why"], "block": ub["block"], "monomial": ub["monomial"],
        "kind": "proved", "output_degree": _degree(net.depth, output_degree(net.depth)),
        "matrix_degree_D": _degree(net.depth, matrix_degree(net.depth)),
        "regime_paper": paper,
        "regime_bound_growth": regime,
        "growth_ratio_bound": ratio,
        "regime_bound_growth_basis": (
            "log upper(L+1) / log upper(L) for the proved bound printed as `upper` (same "
            f"sides), read against the two laws it sits between ({regime_why}); the study's "
            "vocabulary (seprank study): computed from the bound, not measured; it is the "
            "growth of sep only where measured ranks meet the bound (exact, proved)"),
        "regimes_agree": paper == regime,
        "crossover_depth": math.log(net.width**2 + net.width + 1, 3),
        "crossover_basis": "3^L = d^2 + d + 1 (D = m): where the block formula's two "
                           "regimes of log sep meet (proofs/transition.md); no threshold",
        "transition_depth_paper": paper_transition_depth(net.width),
        "transition_depth_2log3": doubled_transition_depth(net.width),
        "config": {"depth": net.depth, "width": net.width, "heads": net.heads,
                   "seq_len": net.seq_len, "residual": net.residual},
    }
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
    print(f"proved upper bound: {shown}; {out['which']} bound")
    print(f"  why: {out['why']}")
    deg, D = out["output_degree"], out["matrix_degree_D"]
    if deg is None or len(str(deg)) > 40:
        deg, D = f"3^{net.depth}", f"(3^{net.depth} - 1)/2"
    print(f"  degree 3^L = {deg}, D = {D}")
    L, d = net.depth, net.width
    print(f"  the paper's rule (depth-efficient while L < log3 d = "
          f"{out['transition_depth_paper']:.2f}): at L = {L}, {out['regime_paper']}")
    rg = out["regime_bound_growth"]
    print(f"  the proved bound's step L = {L} -> {L + 1} (computed, not measured): {rg} "
          f"({regime_why})")
    print(f"  the proved bound's crossover: 3^L = d^2 + d + 1 at L = "
          f"{out['crossover_depth']:.2f} (proofs/transition.md)")
    if out["regimes_agree"]:
        print("  the two agree at this depth")
    else:
        print(f"  the two disagree at this depth: the paper places the transition at L = "
              f"{out['transition_depth_paper']:.2f}, the proved bound's regimes meet at L = "
              f"{out['crossover_depth']:.2f}; measure where the ranks themselves turn with "
              f"`seprank study --vary depth=1:{max(L + 1, 3)} --param width={d}`")
    return 0

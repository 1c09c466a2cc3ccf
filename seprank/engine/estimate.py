"""Before a measurement starts: is ``net`` an architecture, and what will it cost?

:func:`check_architecture` turns a non-architecture into a ConfigError naming ``net``.
:func:`estimate` gives the polynomial degree, the expected rank (the proved upper bound,
where one exists), the memory of the weights and of the first grid, and a rough time
for the worst case (the sample grown to ``max_samples``). :func:`check_cost` refuses, in
one line, what cannot finish (memory over the limit, or far too long), and says the
estimate when a run will be long and the estimate can be trusted: only when the expected
rank is bounded (a proved or known upper bound); with no bound the "expected" time is the
worst case, which a run that stops early misses by any factor, so nothing is said.

The time model is calibrated on this repository's 2-core machine (the compiled kernel
about 5e-8 s per grid cell plus 1.1e10 multiply-adds/s, the generic numpy path 1.5e8/s,
the rank engine about 2e10/s): measured against real runs by
``experiments/benchmark_estimate.py`` (within 3x where it is printed), not a promise.
"""

from __future__ import annotations

import math
import numbers

from seprank.engine.sample_grid import uses_kernel
from seprank.errors import ConfigError, TooBigError
from seprank.nets.base import input_dim
from seprank.nets.capabilities import homogeneous_by_theorem, structural_form
from seprank.theory import bounds
from seprank.theory import sequences as seq
from seprank.theory.architecture_bounds import architecture_bound

#: Runs estimated to take longer than this (worst case) are refused.
MAX_SECONDS = 12 * 3600
#: Runs estimated to take longer than this are announced with the estimate (only where
#: the expected rank is bounded: :func:`check_cost`).
SAY_SECONDS = 30
#: The compiled kernel: a fixed cost per grid cell (the call, the gather of the point,
#: the reduction mod p) plus its multiply-adds at this rate.
KERNEL_CELL_SECONDS = 5e-8
KERNEL_OPS_PER_S = 1.1e10
GENERIC_OPS_PER_S = 1.5e8
RANK_OPS_PER_S = 2e10


def check_architecture(net) -> None:
    """Raise ConfigError unless ``net`` has int ``seq_len``/``width`` and init/apply."""
    ok = all(callable(getattr(net, f, None)) for f in ("init", "apply"))
    for f in ("seq_len", "width"):
        v = getattr(net, f, None)
        ok = ok and isinstance(v, numbers.Integral) and not isinstance(v, bool)
    if not ok:
        raise ConfigError(
            f"net={net!r:.60} is not an architecture: expected an object with integer seq_len "
            "and width and methods init(rng, domain) and apply(params, X, domain) (e.g. "
            "seprank.LinearSelfAttention)"
        )


def _cell_ops(net) -> float:
    """Multiply-adds per grid cell (one network evaluation)."""
    N, d, L = net.seq_len, max(net.width, _input_dim(net)), getattr(net, "depth", 1)
    return float(L) * (4 * N * d * d + 2 * N * N * d)


def _cell_seconds(net, fast: bool) -> float:
    """Seconds per grid cell: the compiled kernel where the grid uses it (``fast``: a
    modular run with the kernel allowed), else the generic numpy path."""
    if fast and uses_kernel(net, True):
        return KERNEL_CELL_SECONDS + _cell_ops(net) / KERNEL_OPS_PER_S
    return _cell_ops(net) / GENERIC_OPS_PER_S


def _input_dim(net) -> int:
    return input_dim(net)


def _param_count(net) -> int:
    L, d = getattr(net, "depth", 1), net.width
    return 4 * L * d * d if hasattr(net, "heads") else 0


def _sides_cheap(width: int, *sides: int) -> bool:
    """Whether the block bound's side dimensions are cheap to compute for an estimate
    (a side with fewer positions than the width needs Schur sums: at most 20,000)."""
    return all(n >= width or seq.bounded_rank_terms(width, n, 20_000) <= 20_000 for n in sides)


def _log10_expected_rank(net, A) -> float | None:
    form = structural_form(net)  # the paper's family: its proved bounds
    if form is None:
        return _log10_known_upper(net, A)
    net = form
    nq, no = bounds.sides(net.seq_len, A, net.query_position)
    args = (net.depth, net.width, nq, no, net.residual)
    lg = bounds.monomial_bound_log10(*args)
    if _sides_cheap(net.width, nq, no):
        lg = min(lg, bounds.block_bound_log10(*args))
    return lg


def _log10_known_upper(net, A) -> float | None:
    """log10 of an architecture's own known upper bound (``architecture_bound``), or of the
    complete grid over its alphabet; None when neither exists."""
    ups = []
    try:
        up = (architecture_bound(net, A) or {}).get("upper")
    except Exception:  # a bound that cannot be computed here is not an estimate
        up = None
    if up:
        ups.append(math.log10(up))
    if callable(getattr(net, "alphabet", None)):
        k = min(len(A), net.seq_len - len(A))
        ups.append(k * math.log10(max(input_dim(net), 1)))
    return min(ups) if ups else None


def format_seconds(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.3g} days"


def graded_blocks(net, A) -> list[int] | None:
    """Proved bounds of the A-degree blocks the graded strategy will measure, for the
    networks whose homogeneity is a theorem (those that declare the structural form, without
    residual); None for any other network (or too many blocks to list)."""
    if not homogeneous_by_theorem(net):
        return None
    net = structural_form(net)
    nq, no = bounds.sides(net.seq_len, A, net.query_position)
    if not _sides_cheap(net.width, nq, no):
        return None
    return bounds.block_terms(net.depth, net.width, nq, no)


def estimate(net, A, B, *, method: str, max_samples: int, start: int, fast: bool,
             blocks: list[int] | None = None) -> dict:
    """Cost of measuring ``net`` with sides A, B before anything is allocated: of the
    direct strategy, or with ``blocks`` (:func:`graded_blocks`) of the graded one (one
    grid of f(t a, b) per block degree t, each block ranked on its own)."""
    if blocks:
        return _graded_estimate(net, A, B, blocks, max_samples, start, fast)
    item = 8
    lg = _log10_expected_rank(net, A)
    n_final = max_samples if lg is None or lg >= math.log10(max_samples) else \
        min(max_samples, int(1.25 * 10**lg) + 2)  # fmt: skip
    cell = _cell_seconds(net, fast)
    n0 = min(max(2, start), max_samples)

    def seconds(n):
        return n * n * cell + 1.42 * n**3 / RANK_OPS_PER_S

    return {
        "degree": getattr(net, "degree", None),
        "log10_expected_rank": lg,
        "param_bytes": _param_count(net) * item,
        "first_grid_bytes": n0 * (len(A) + len(B)) * _input_dim(net) * item + n0 * n0 * item,
        "points_bytes_at_budget": max_samples * (len(A) + len(B)) * _input_dim(net) * item,
        "first_grid_seconds": seconds(n0),
        "expected_seconds": seconds(n_final),
        "worst_seconds": seconds(max_samples),
        "max_samples": max_samples,
        "method": method,
    }


def _graded_estimate(net, A, B, blocks, max_samples, start, fast) -> dict:
    item, m = 8, len(blocks)
    top = max(blocks)
    cell = _cell_seconds(net, fast)
    n0 = min(max(2, start), max_samples)

    def final(bound):  # growth x1.25 overshoots a block's rank by at most 25%
        return min(max_samples, int(1.25 * bound) + 2)

    def seconds(n, every_block_grows=False):
        ranks = sum(1.42 * (n if every_block_grows else min(final(t), n)) ** 3 for t in blocks)
        return m * n * n * cell + ranks / RANK_OPS_PER_S

    return {
        "degree": getattr(net, "degree", None),
        "log10_expected_rank": math.log10(max(1, sum(blocks))),
        "strategy": "graded", "blocks": m, "largest_block": top,
        "param_bytes": _param_count(net) * item,
        "first_grid_bytes": n0 * (len(A) + len(B)) * _input_dim(net) * item + m * n0 * n0 * item,
        "points_bytes_at_budget": max_samples * (len(A) + len(B)) * _input_dim(net) * item,
        "first_grid_seconds": m * n0 * n0 * cell,
        "expected_seconds": seconds(final(top)),
        "worst_seconds": seconds(max_samples, every_block_grows=True),
        "max_samples": max_samples,
        "method": "modular",
    }  # fmt: skip


def describe(est: dict) -> str:
    """One line: what the run will cost."""
    lg = est["log10_expected_rank"]
    rank = "unknown" if lg is None else (
        f"<= {10**lg:,.0f}" if lg < 9 else f"<= 10^{lg:.1f}")  # fmt: skip
    deg = est["degree"]
    deg_s = "" if deg is None else (f"degree {deg}, " if deg < 10**9 else
                                    f"degree 3^{round(math.log(deg, 3))}, ")  # fmt: skip
    return (f"estimate: {deg_s}expected rank {rank} (proved bound), weights "
            f"{est['param_bytes'] / 2**20:,.1f} MiB, first grid "
            f"{est['first_grid_bytes'] / 2**20:,.1f} MiB; about "
            f"{format_seconds(est['expected_seconds'])} expected, "
            f"{format_seconds(est['worst_seconds'])} if it grows to max_samples="
            f"{est['max_samples']}"
            + _budget_note(est))  # fmt: skip


def _budget_note(est: dict) -> str:
    """Graded: a block whose bound exceeds max_samples; direct: the whole bound."""
    lg, n = est["log10_expected_rank"], est["max_samples"]
    if est.get("strategy") == "graded":
        return (f"; graded: {est['blocks']} A-degree blocks, largest <= {est['largest_block']:,}"
                + ("; that exceeds max_samples, so the result may be a lower bound only"
                   if est["largest_block"] >= n else ""))  # fmt: skip
    if lg is not None and lg >= math.log10(n):
        return "; the bound exceeds max_samples, so the result may be a lower bound only"
    return ""


def check_cost(est: dict, limit_bytes: int, say=None) -> None:
    """Refuse (TooBigError, one line) what cannot finish; announce long runs via ``say``."""
    gib = 2**30
    mem = [("width", "the weights", est["param_bytes"], "width or depth"),
           ("seq_len", "the first grid's points", est["first_grid_bytes"], "seq_len or width"),
           ("max_samples", f"the sample points at max_samples={est['max_samples']}",
            est["points_bytes_at_budget"], "max_samples, seq_len or width")]  # fmt: skip
    for arg, what, need, fix in mem:
        if need > limit_bytes:
            raise TooBigError(
                f"{arg}: {what} need {need / gib:,.1f} GiB, over the "
                f"{limit_bytes / gib:,.1f} GiB allowed (lower {fix})"
            )
    if est["first_grid_seconds"] > MAX_SECONDS or est["expected_seconds"] > MAX_SECONDS:
        which = "first grid" if est["first_grid_seconds"] > MAX_SECONDS else "measurement"
        secs = max(est["first_grid_seconds"], est["expected_seconds"])
        raise TooBigError(
            f"depth/width/seq_len: the {which} would take about {format_seconds(secs)} (limit "
            f"{format_seconds(MAX_SECONDS)}); lower max_samples for a lower bound sooner, or "
            f"the sizes. {describe(est)}"
        )
    if say is not None and est["expected_seconds"] > SAY_SECONDS and trusted(est):
        say(describe(est))


def trusted(est: dict) -> bool:
    """Whether the estimate's expected time is a model of the run, not its worst case:
    the expected rank is bounded (with no bound the sample is modelled as growing to
    max_samples, which a run that stops early misses by any factor)."""
    return est.get("log10_expected_rank") is not None

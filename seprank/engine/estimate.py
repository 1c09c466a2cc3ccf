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
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from seprank.engine.sample_grid import uses_kernel
from seprank.errors import ConfigError, TooBigError
from seprank.nets.base import input_dim
from seprank.nets.capabilities import structural_form
from seprank.theory.architecture_bounds import FormBounds, bound_of, form_bounds

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


@dataclass(frozen=True)
class Cost:
    """What a strategy's run will cost, estimated before it starts (never measured).

    Parameters
    ----------
    seconds : float or None
        The expected wall time (None: the strategy has no time model).
    peak_bytes : int or None
        The expected peak memory (None: no memory model).
    note : str, default ""
        What the figures are, in one line (a grid strategy's: :func:`describe`).
    model : dict, default {}
        The model's own figures (the grid model's: ``first_grid_bytes``,
        ``worst_seconds``, ...; what :func:`check_cost` and the strategy read).
    """

    seconds: float | None
    peak_bytes: int | None
    note: str = ""
    model: dict = field(default_factory=dict)


class TheoryFacts:
    """What the cost models need about one network and partition.

    From theory/ (its bounds) and from the network itself (its sizes, degree, kernel and
    structural form). Asked once per request
    (:attr:`seprank.engine.strategies.registry.Request.facts`): the planner gathers them
    all (:meth:`gather`) before it asks any strategy its cost, so a cost model reads
    figures and never goes back down to theory/ or the network; read on its own, each
    fact is computed on first read and kept.

    Parameters
    ----------
    net : Architecture
        The network.
    A : tuple of int
        The A side.
    """

    def __init__(self, net: Any, A) -> None:
        self.net, self.A = net, tuple(A)

    @cached_property
    def bounds(self) -> FormBounds | None:
        """The proved bounds of the declared structural form on A (None: no form).

        Asked of theory/ at once (:func:`seprank.theory.architecture_bounds.form_bounds`).
        """
        return None if self.form is None else form_bounds(self.form, self.A)

    @cached_property
    def log10_expected_rank(self) -> float | None:
        """The log10 of the proved (or the architecture's own) upper bound (None: none)."""
        if self.bounds is not None:
            return self.bounds.log10_upper
        return _log10_known_upper(self.net, self.A, self.input_dim)

    @cached_property
    def graded_blocks(self) -> tuple[int, ...] | None:
        """Proved bounds of the A-degree blocks the graded strategy will measure.

        Known for the networks whose homogeneity is a theorem (a declared structural form
        without residual); None for any other network (or too many blocks to list).
        """
        return None if self.bounds is None else self.bounds.terms

    @cached_property
    def form(self):
        """The structural form the network declares (None: none)."""
        return structural_form(self.net)

    @cached_property
    def input_dim(self) -> int:
        """The input dimension per position."""
        return input_dim(self.net)

    @cached_property
    def degree(self) -> int | None:
        """The polynomial degree the network declares (None: none)."""
        return getattr(self.net, "degree", None)

    @cached_property
    def param_count(self) -> int:
        """The weights' count the grid models assume (:func:`param_count`)."""
        return param_count(self.net)

    @cached_property
    def cell_ops(self) -> float:
        """Multiply-adds per grid cell (one network evaluation)."""
        return _cell_ops(self.net, self.input_dim)

    @cached_property
    def kernel(self) -> bool:
        """Whether a modular grid of the network is evaluated by the compiled kernel."""
        return uses_kernel(self.net, True)

    def cell_seconds(self, fast: bool) -> float:
        """Return the seconds per grid cell (:func:`cell_seconds`, from the figures).

        Parameters
        ----------
        fast : bool
            A modular run with the kernel allowed.

        Returns
        -------
        float
            The compiled kernel's time where it evaluates the grid, else numpy's.
        """
        if fast and self.kernel:
            return KERNEL_CELL_SECONDS + self.cell_ops / KERNEL_OPS_PER_S
        return self.cell_ops / GENERIC_OPS_PER_S

    def gather(self) -> TheoryFacts:
        """Compute every fact now (the planner does, once per request).

        Returns
        -------
        TheoryFacts
            Itself.
        """
        for name in ("form", "input_dim", "degree", "param_count", "cell_ops", "kernel",
                     "bounds", "log10_expected_rank", "graded_blocks", "block_bounds"):
            getattr(self, name)
        return self

    @cached_property
    def block_bounds(self) -> dict:
        """The proved bound of each block of the structural polynomial.

        Keyed by the degree in S of the side without the query (the residual form's one
        matrix: None); empty where none is computed.
        """
        return {} if self.bounds is None else dict(self.bounds.blocks)


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


def _cell_ops(net, dim: int | None = None) -> float:
    """Multiply-adds per grid cell (one network evaluation; ``dim``: its input dimension)."""
    dim = _input_dim(net) if dim is None else dim
    N, d, L = net.seq_len, max(net.width, dim), getattr(net, "depth", 1)
    return float(L) * (4 * N * d * d + 2 * N * N * d)


def cell_seconds(net, fast: bool) -> float:
    """Seconds per grid cell: the compiled kernel where the grid uses it (``fast``: a
    modular run with the kernel allowed), else the generic numpy path."""
    if fast and uses_kernel(net, True):
        return KERNEL_CELL_SECONDS + _cell_ops(net) / KERNEL_OPS_PER_S
    return _cell_ops(net) / GENERIC_OPS_PER_S


def _input_dim(net) -> int:
    return input_dim(net)


def param_count(net) -> int:
    """The weights' count the grid models assume (4 L d^2 for an attention network)."""
    L, d = getattr(net, "depth", 1), net.width
    return 4 * L * d * d if hasattr(net, "heads") else 0


def _log10_known_upper(net, A, dim: int | None = None) -> float | None:
    """log10 of an architecture's own known upper bound (``bound_of``), or of the
    complete grid over its alphabet; None when neither exists."""
    ups = []
    try:
        b = bound_of(net, A)
        up = None if b is None else b.value
    except Exception:  # a bound that cannot be computed here is not an estimate
        up = None
    if up:
        ups.append(math.log10(up))
    if callable(getattr(net, "alphabet", None)):
        k = min(len(A), net.seq_len - len(A))
        ups.append(k * math.log10(max(input_dim(net) if dim is None else dim, 1)))
    return min(ups) if ups else None


def format_seconds(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.3g} days"


def estimate(net, A, B, *, method: str, max_samples: int, start: int, fast: bool,
             facts: TheoryFacts | None = None) -> dict:
    """Cost of measuring ``net`` with sides A, B on one grid matrix (the direct strategy's
    model) before anything is allocated; ``facts``: the request's, else asked here."""
    item, facts = 8, facts or TheoryFacts(net, A)
    lg = facts.log10_expected_rank
    n_final = max_samples if lg is None or lg >= math.log10(max_samples) else \
        min(max_samples, int(1.25 * 10**lg) + 2)
    cell, dim = facts.cell_seconds(fast), facts.input_dim
    n0 = min(max(2, start), max_samples)

    def seconds(n):
        return n * n * cell + 1.42 * n**3 / RANK_OPS_PER_S

    return {
        "degree": facts.degree,
        "log10_expected_rank": lg,
        "param_bytes": facts.param_count * item,
        "first_grid_bytes": n0 * (len(A) + len(B)) * dim * item + n0 * n0 * item,
        "points_bytes_at_budget": max_samples * (len(A) + len(B)) * dim * item,
        "first_grid_seconds": seconds(n0),
        "expected_seconds": seconds(n_final),
        "worst_seconds": seconds(max_samples),
        "max_samples": max_samples,
        "method": method,
    }


def describe(est: dict, budget_note: str | None = None) -> str:
    """One line: what the run will cost (``budget_note``: the strategy's own word on the
    budget; default the whole bound's against max_samples)."""
    lg = est["log10_expected_rank"]
    rank = "unknown" if lg is None else (
        f"<= {10**lg:,.0f}" if lg < 9 else f"<= 10^{lg:.1f}")
    deg = est["degree"]
    deg_s = "" if deg is None else (f"degree {deg}, " if deg < 10**9 else
                                    f"degree 3^{round(math.log(deg, 3))}, ")
    return (f"estimate: {deg_s}expected rank {rank} (proved bound), weights "
            f"{est['param_bytes'] / 2**20:,.1f} MiB, first grid "
            f"{est['first_grid_bytes'] / 2**20:,.1f} MiB; about "
            f"{format_seconds(est['expected_seconds'])} expected, "
            f"{format_seconds(est['worst_seconds'])} if it grows to max_samples="
            f"{est['max_samples']}"
            + (_budget_note(est) if budget_note is None else budget_note))


def _budget_note(est: dict) -> str:
    """The whole bound against max_samples."""
    lg, n = est["log10_expected_rank"], est["max_samples"]
    if lg is not None and lg >= math.log10(n):
        return "; the bound exceeds max_samples, so the result may be a lower bound only"
    return ""


def check_cost(cost: Cost, limit_bytes: int, say=None) -> None:
    """Refuse (TooBigError, one line) what cannot finish; announce long runs via ``say``
    (a grid strategy's :class:`Cost`: its ``model`` the grid model's figures, its ``note``
    the line said)."""
    gib, est = 2**30, cost.model
    mem = [("width", "the weights", est["param_bytes"], "width or depth"),
           ("seq_len", "the first grid's points", est["first_grid_bytes"], "seq_len or width"),
           ("max_samples", f"the sample points at max_samples={est['max_samples']}",
            est["points_bytes_at_budget"], "max_samples, seq_len or width")]
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
            f"the sizes. {cost.note}"
        )
    if say is not None and est["expected_seconds"] > SAY_SECONDS and trusted(est):
        say(cost.note)


def trusted(est: dict) -> bool:
    """Whether the estimate's expected time is a model of the run, not its worst case:
    the expected rank is bounded (with no bound the sample is modelled as growing to
    max_samples, which a run that stops early misses by any factor)."""
    return est.get("log10_expected_rank") is not None

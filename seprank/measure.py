"""``measure(net, partition, method=...)``: the separation rank of a network, measured.

Three methods:

- ``modular`` (default): grid matrix over GF(p), exact rank (BLAS elimination in
  :mod:`seprank.modlu`, or python-flint; see ``rank_engine``). The
  rank is a *certified lower bound* on the separation rank of the integer-weight network
  whose weights are the sampled residues (and so of the network with generic weights).
  When the rank is strictly below the sample size the sample saturated and the number
  equals the separation rank with high probability.
- ``float``: the same grid in float64, SVD rank with an explicit tolerance: an estimate
  with no guarantee (it fails as the degree 3**L grows; the spectrum shows why).
- ``symbolic``: exact expansion with sympy and the exact rank over Q of the coefficient
  matrix: the exact separation rank of that integer-weight network (tiny cases only).

The sample grows geometrically until it saturates or ``max_samples`` is hit; the result
says which. Nothing here consults the theory module.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from . import _firstrun
from . import estimate as _estimate
from . import grid as _grid
from .domains import DEFAULT_PRIME, Float64, ModP, Symbolic, symbolic_inputs
from .errors import ConfigError, MeasurementInterrupted, TooBigError
from .nets.base import config_of
from .rank import check_rank_engine, rank_coefficients, rank_float, rank_modp

METHODS = ("modular", "float", "symbolic")
SAMPLERS = ("random", "templates")
DEFAULT_MAX_SAMPLES = {"modular": 6000, "float": 2500}
#: Symbolic expansion is refused above this many possible monomials.
SYMBOLIC_MAX_MONOMIALS = 250_000

CERTIFIED = {
    "modular": "lower bound (exact rank over GF(p) of an integer-weight network's grid)",
    "symbolic": "exact (rank over Q of the coefficient matrix of an integer-weight network)",
    "float": "none (floating-point estimate)",
}


@dataclass
class Measurement:
    """One measured separation rank and everything needed to reproduce it."""

    rank: int
    saturated: bool
    certified: str
    method: str
    prime: int | None
    samples: tuple[int, int]
    seconds: float
    seed: int
    config: dict
    partition: tuple[int, ...]
    sampler: str = "random"
    eval_seconds: float = 0.0
    rank_seconds: float = 0.0
    budget_hit: bool = False
    tolerance: float | None = None
    history: list = field(default_factory=list)
    spectrum: np.ndarray | None = field(default=None, repr=False)

    @property
    def kind(self) -> str:
        """'measured' always: this number comes from a computation, not a formula."""
        return "measured"

    def to_dict(self, spectrum: bool = False) -> dict:
        d = asdict(self)
        d["samples"] = list(self.samples)
        d["partition"] = list(self.partition)
        d["kind"] = self.kind
        d["spectrum"] = (
            None if (self.spectrum is None or not spectrum) else [float(s) for s in self.spectrum]
        )
        return d


def _symbolic_monomials(net) -> int:
    nvars = net.seq_len * net.width
    deg = getattr(net, "degree", None)
    if deg is None:
        return 0
    return math.comb(nvars + deg, deg)


def _say(progress, msg: str) -> None:
    if progress is True:
        print(msg, file=sys.stderr, flush=True)
    elif callable(progress):
        progress(msg)


def _measure_symbolic(net, A, seed, weights):
    est = _symbolic_monomials(net)
    if est > SYMBOLIC_MAX_MONOMIALS:
        raise TooBigError(
            f"method=symbolic: up to {est} monomials for depth/width/seq_len of this net "
            f"(limit {SYMBOLIC_MAX_MONOMIALS}); use method=modular"
        )
    dom = Symbolic()
    params = _params(net, dom, seed, weights)
    R, X = symbolic_inputs(net.seq_len, net.width)
    t0 = time.perf_counter()
    poly = net.apply(params, X, dom)[0]
    t1 = time.perf_counter()
    a_vars = {n * net.width + c for n in A for c in range(net.width)}
    rank, shape = rank_coefficients(R(poly), a_vars)
    t2 = time.perf_counter()
    return rank, shape, t1 - t0, t2 - t1


def _params(net, domain, seed, weights):
    if weights is not None:
        return {k: domain.from_ints(v) for k, v in weights.items()}
    return net.init(np.random.default_rng(seed), domain)


def _use_kernel(net, domain, use_kernel):
    from .nets import _attention_kernel
    from .nets.attention import LinearSelfAttention

    return (
        use_kernel
        and isinstance(domain, ModP)
        and type(net) is LinearSelfAttention
        and _attention_kernel.available()
    )


def measure(
    net,
    partition=None,
    *,
    method: str = "modular",
    seed: int = 0,
    max_samples: int | None = None,
    sampler: str = "random",
    prime: int | None = None,
    tol: float | None = None,
    start: int = 16,
    growth: float = 1.5,
    weights: dict | None = None,
    chunk: int = _grid.DEFAULT_CHUNK,
    use_kernel: bool = True,
    rank_engine: str = "auto",
    progress=None,
) -> Measurement:
    """Measure the separation rank of ``net`` for the partition (A side) ``partition``.

    Parameters
    ----------
    net : architecture (see :mod:`seprank.nets.base`)
    partition : positions of the A side; default the first ``seq_len // 2``.
    method : ``"modular"``, ``"float"`` or ``"symbolic"``.
    seed : weights and sample points are drawn from it; same seed, same answer.
    max_samples : budget on rows and columns of the grid matrix.
    sampler : ``"random"`` (independent points) or ``"templates"`` (classic grid tensor).
    prime : modulus for ``modular`` (default the largest prime below 2**26).
    tol : SVD tolerance for ``float`` (default numpy's rule, reported).
    weights : optional integer weight arrays (same keys as ``net.init``), to measure
        one specific integer network in several engines.
    rank_engine : GF(p) rank engine for ``modular``: ``"auto"``, ``"blas"`` or ``"flint"``
        (see :func:`seprank.rank.rank_modp`; all exact, they agree).
    progress : True to print a line per adaptive step on stderr, or a callable.

    Examples
    --------
    >>> from seprank.nets import LinearSelfAttention
    >>> m = measure(LinearSelfAttention(depth=1, width=3, heads=1, seq_len=4))
    >>> m.rank, m.saturated
    (4, True)
    """
    _estimate.check_architecture(net)
    if method not in METHODS:
        raise ConfigError(f"method={method!r} must be one of {', '.join(METHODS)}")
    modulus = (DEFAULT_PRIME if prime is None else prime) if method == "modular" else None
    check_rank_engine(rank_engine, modulus, name="rank_engine")
    if sampler not in SAMPLERS:
        raise ConfigError(f"sampler={sampler!r} must be one of {', '.join(SAMPLERS)}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed={seed!r} must be a non-negative integer")
    if partition is None:
        partition = _grid.default_partition(net.seq_len)
    A, B = _grid.check_partition(partition, net.seq_len)
    config = config_of(net)
    t_start = time.perf_counter()

    if method == "symbolic":
        rank, shape, te, tr = _measure_symbolic(net, A, seed, weights)
        return Measurement(
            rank=rank, saturated=True, certified=CERTIFIED["symbolic"], method=method,
            prime=None, samples=shape, seconds=time.perf_counter() - t_start, seed=int(seed),
            config=config, partition=A, sampler="coefficients", eval_seconds=te,
            rank_seconds=tr, history=[(shape[0], shape[1], rank)],
        )  # fmt: skip

    if max_samples is None:
        max_samples = DEFAULT_MAX_SAMPLES[method]
    if isinstance(max_samples, bool) or not isinstance(max_samples, (int, np.integer)):
        raise ConfigError(f"max_samples={max_samples!r} must be an integer")
    if max_samples < 2:
        raise ConfigError(f"max_samples={max_samples} must be >= 2")
    if growth <= 1:
        raise ConfigError(f"growth={growth} must be > 1")
    _grid.check_matrix_fits(max_samples, max_samples)
    fast_path = method == "modular" and use_kernel
    cost = _estimate.estimate(net, A, B, method=method, max_samples=int(max_samples),
                              start=start, fast=fast_path)  # fmt: skip
    _estimate.check_cost(cost, _grid._available_memory() // 4, say=lambda s: _say(progress, s))
    if fast_path and not _firstrun.kernels_cached():
        _say(progress, _firstrun.COMPILING)

    domain = ModP(modulus) if method == "modular" else Float64()
    params = _params(net, domain, seed, weights)
    pts_rng = np.random.default_rng([int(seed), 1])
    fast = _use_kernel(net, domain, use_kernel)

    def evaluate(Ap, Bp):
        if fast:
            from .nets._attention_kernel import grid_modp

            F = grid_modp(net, params, Ap, Bp, A, B, domain.p)
            if F is not None:
                return F
        return _grid.evaluate_grid(net, params, domain, Ap, Bp, A, B, chunk=chunk)

    n = min(max(2, start), max_samples)
    Ap = Bp = F = None
    templates = None
    t_eval = t_rank = 0.0
    history: list = []
    last = None
    while True:
        try:
            te = time.perf_counter()
            if sampler == "random":
                # Reuse every point already evaluated; evaluate only the new cells.
                old_r = 0 if Ap is None else Ap.shape[0]
                new_A = _grid.random_points(domain, pts_rng, n - old_r, len(A), net.width)
                new_B = _grid.random_points(domain, pts_rng, n - old_r, len(B), net.width)
                if F is None:
                    Ap, Bp, F = new_A, new_B, evaluate(new_A, new_B)
                else:
                    right = evaluate(Ap, new_B)
                    Bp = np.concatenate([Bp, new_B])
                    Ap = np.concatenate([Ap, new_A])
                    bottom = evaluate(new_A, Bp)
                    F = np.concatenate([np.concatenate([F, right], axis=1), bottom])
            else:
                M = max(_grid.templates_needed(n, len(A)), _grid.templates_needed(n, len(B)))
                if templates is not None:
                    M = max(M, templates.shape[0] + 1)
                if templates is None or templates.shape[0] < M:
                    extra = _grid.random_points(
                        domain, pts_rng, M - (0 if templates is None else templates.shape[0]),
                        1, net.width,
                    )[:, 0]  # fmt: skip
                    templates = extra if templates is None else np.concatenate([templates, extra])
                Ap = _grid.template_points(templates, len(A))
                Bp = _grid.template_points(templates, len(B))
                _grid.check_matrix_fits(Ap.shape[0], Bp.shape[0])
                F = evaluate(Ap, Bp)
            t_eval += time.perf_counter() - te
            tr = time.perf_counter()
            tolerance = spectrum = None
            if method == "modular":
                rank = rank_modp(F, domain.p, engine=rank_engine)
            else:
                fr = rank_float(F, tol)
                rank, tolerance, spectrum = fr.rank, fr.tolerance, fr.spectrum
            t_rank += time.perf_counter() - tr
        except KeyboardInterrupt:
            raise MeasurementInterrupted(
                "measurement interrupted; the last finished step is kept", partial=last
            ) from None
        rows, cols = F.shape
        saturated = 0 <= rank < min(rows, cols)
        if sampler == "templates":
            # A template grid is not a generic sample: also require a rank plateau.
            saturated = saturated and bool(history) and history[-1][2] == rank
        history.append((rows, cols, rank))
        _say(progress, f"  samples {rows}x{cols}: rank {rank}{' (saturated)' if saturated else ''}")
        budget_hit = not saturated and max(rows, cols) >= max_samples
        last = Measurement(
            rank=int(rank), saturated=bool(saturated), certified=CERTIFIED[method],
            method=method, prime=domain.p if method == "modular" else None,
            samples=(int(rows), int(cols)), seconds=time.perf_counter() - t_start,
            seed=int(seed), config=config, partition=A, sampler=sampler,
            eval_seconds=t_eval, rank_seconds=t_rank, budget_hit=budget_hit,
            tolerance=tolerance, history=list(history), spectrum=spectrum,
        )  # fmt: skip
        if saturated or budget_hit or rank < 0:
            return last
        n = min(max_samples, max(n + 1, int(math.ceil(n * growth))))

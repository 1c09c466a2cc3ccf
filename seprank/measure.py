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

Two strategies for ``modular`` (:mod:`seprank.strategies`): ``direct`` (one grid matrix)
and ``graded`` (one matrix per A-side degree of a homogeneous f, summed: exact ranks far
beyond one matrix); ``auto`` picks graded when f is homogeneous. The sample grows
geometrically until it saturates or ``max_samples`` is hit; the result says which.
Nothing here consults the theory module.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import _firstrun
from . import estimate as _estimate
from . import grid as _grid
from . import saturation as _saturation
from .domains import DEFAULT_PRIME, Float64, ModP, Symbolic, symbolic_inputs
from .errors import ConfigError, MeasurementInterrupted, TooBigError
from .measurement import CERTIFIED, Measurement
from .nets.base import config_of, input_dim, is_polynomial
from .rank import check_rank_engine, rank_coefficients
from .strategies import STRATEGIES, Plan, choose, direct, graded
from .strategies.base import say

__all__ = ["METHODS", "SAMPLERS", "STRATEGIES", "Measurement", "measure"]

METHODS = ("modular", "float", "symbolic", "auto")
SAMPLERS = ("auto", "random", "templates", "alphabet")
#: Default budget on the sample size (rows = columns): per matrix, so per block if graded.
DEFAULT_MAX_SAMPLES = {"modular": 6000, "float": 2500, "graded": 16000}
#: Default sample growth per adaptive step. Graded grids cost m * n**2 evaluations for m
#: degrees, and its blocks are small to rank, so it grows more finely (less overshoot).
DEFAULT_GROWTH = {"direct": 1.5, "graded": 1.25}
#: Graded, default growth only: from this sample size on grow by x1.1. With incremental
#: elimination a step costs in proportion to its new cells (evaluation and elimination
#: alike), so finer steps cost little and overshoot the largest block's rank less.
GRADED_FINE_AFTER = 2048
#: Symbolic expansion is refused above this many possible monomials.
SYMBOLIC_MAX_MONOMIALS = 250_000


def _symbolic_monomials(net) -> int:
    nvars = net.seq_len * input_dim(net)
    deg = getattr(net, "degree", None)
    if deg is None:
        return 0
    return math.comb(nvars + deg, deg)


def _measure_symbolic(net, A, seed, weights):
    est = _symbolic_monomials(net)
    if est > SYMBOLIC_MAX_MONOMIALS:
        raise TooBigError(
            f"method=symbolic: up to {est} monomials for depth/width/seq_len of this net "
            f"(limit {SYMBOLIC_MAX_MONOMIALS}); use method=modular"
        )
    dom = Symbolic()
    params = _params(net, dom, seed, weights)
    d = input_dim(net)
    R, X = symbolic_inputs(net.seq_len, d)
    t0 = time.perf_counter()
    poly = net.apply(params, X, dom)[0]
    t1 = time.perf_counter()
    a_vars = {n * d + c for n in A for c in range(d)}
    rank, shape = rank_coefficients(R(poly), a_vars)
    t2 = time.perf_counter()
    return rank, shape, t1 - t0, t2 - t1


def _params(net, domain, seed, weights):
    if weights is not None:
        return {k: domain.from_ints(v) for k, v in weights.items()}
    return net.init(np.random.default_rng(seed), domain)


def measure(
    net,
    partition=None,
    *,
    method: str = "modular",
    seed: int = 0,
    max_samples: int | None = None,
    sampler: str = "auto",
    prime: int | None = None,
    tol: float | None = None,
    start: int = 16,
    growth: float | None = None,
    weights: dict | None = None,
    chunk: int = _grid.DEFAULT_CHUNK,
    use_kernel: bool = True,
    rank_engine: str = "auto",
    strategy: str = "auto",
    incremental: bool = True,
    device: str = "cpu",
    progress=None,
    saturation_threshold: float = _saturation.DEFAULT_THRESHOLD,
) -> Measurement:
    """Measure the separation rank of ``net`` for the partition (A side) ``partition``.

    Parameters
    ----------
    net : architecture (see :mod:`seprank.nets.base`)
    partition : positions of the A side; default the first ``seq_len // 2``.
    method : ``"modular"``, ``"float"``, ``"symbolic"`` or ``"auto"`` (modular for a
        polynomial net, float for one that declares ``polynomial = False``; the result's
        ``strategy_reason`` says which was taken and why). A non-polynomial net is refused
        by ``modular`` and ``symbolic``.
    seed : weights and sample points are drawn from it; same seed, same answer.
    max_samples : budget on rows and columns of the grid matrix (default 6000 direct,
        16000 graded, 2500 float).
    growth : sample growth factor per adaptive step (default 1.5 direct; 1.25 graded,
        then 1.1 from 2048 samples on).
    sampler : ``"auto"`` (``alphabet`` for a net that declares an ``alphabet``, else
        ``random``), ``"random"`` (independent points), ``"templates"`` (classic grid
        tensor, random templates) or ``"alphabet"`` (the complete grid over the net's
        declared input alphabet: the exact matricisation of its tensor over tokens).
    prime : modulus for ``modular`` (default the largest prime below 2**26).
    tol : SVD tolerance for ``float`` (default numpy's rule, reported).
    weights : optional integer weight arrays (same keys as ``net.init``), to measure
        one specific integer network in several engines.
    rank_engine : GF(p) rank engine for ``modular``: ``"auto"``, ``"blas"`` or ``"flint"``
        (see :func:`seprank.rank.rank_modp`; all exact, they agree).
    strategy : ``"auto"``, ``"direct"`` or ``"graded"`` (modular only; see
        :mod:`seprank.strategies`). ``max_samples`` then bounds each block's sample.
    incremental : extend one elimination as the sample grows (BLAS engine on the CPU)
        instead of re-ranking each step from scratch; exact either way.
    device : ``"cpu"`` or ``"cuda"`` (the array-torch rank engine on a GPU; opt-in,
        ConfigError if torch or CUDA is missing).
    progress : True to print a line per adaptive step on stderr, or a callable.
    saturation_threshold : ``saturated`` is reported only when the Schwartz-Zippel bound
        on a false saturation (``saturation_bound``) is at most this (default 1e-2; see
        :mod:`seprank.saturation`, which also covers float and templates).

    Examples
    --------
    >>> from seprank.nets import LinearSelfAttention
    >>> m = measure(LinearSelfAttention(depth=1, width=3, heads=1, seq_len=4))
    >>> m.rank, m.saturated
    (4, True)
    """
    _estimate.check_architecture(net)
    threshold = _saturation.check_threshold(saturation_threshold)

    def label(m):
        return _saturation.label(m, net, threshold, random_weights=weights is None)

    try:
        return label(_measure(net, partition, method, seed, max_samples, sampler, prime, tol,
                              start, growth, weights, chunk, use_kernel, rank_engine,
                              strategy, incremental, device, progress))  # fmt: skip
    except MeasurementInterrupted as exc:
        if exc.partial is not None:
            label(exc.partial)
        raise


def _measure(net, partition, method, seed, max_samples, sampler, prime, tol, start, growth,
             weights, chunk, use_kernel, rank_engine, strategy, incremental, device,
             progress) -> Measurement:  # fmt: skip
    if method not in METHODS:
        raise ConfigError(f"method={method!r} must be one of {', '.join(METHODS)}")
    method_note = ""
    if method == "auto":
        method = "modular" if is_polynomial(net) else "float"
        if method == "float":
            method_note = (f"method='auto' took 'float': {type(net).__name__} is not a "
                           "polynomial (float engine only, no certificate); ")  # fmt: skip
    elif method != "float" and not is_polynomial(net):
        raise ConfigError(f"method={method!r}: {type(net).__name__} is not a polynomial "
                          f"(declares polynomial=False): only method='float' (or 'auto') "
                          f"measures it")  # fmt: skip
    modulus = (DEFAULT_PRIME if prime is None else prime) if method == "modular" else None
    if modulus is not None:
        ModP(modulus)  # validates prime before anything compiles
    check_rank_engine(rank_engine, modulus, name="rank_engine", device=device)
    if strategy not in STRATEGIES:
        raise ConfigError(f"strategy={strategy!r} must be one of {', '.join(STRATEGIES)}")
    if sampler not in SAMPLERS:
        raise ConfigError(f"sampler={sampler!r} must be one of {', '.join(SAMPLERS)}")
    has_alphabet = callable(getattr(net, "alphabet", None))
    if sampler == "auto":
        sampler = "alphabet" if has_alphabet else "random"
    elif sampler == "alphabet" and not has_alphabet:
        raise ConfigError(f"sampler='alphabet': {type(net).__name__} declares no alphabet")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed={seed!r} must be a non-negative integer")
    if partition is None:
        partition = _grid.default_partition(net.seq_len)
    A, B = _grid.check_partition(partition, net.seq_len)
    config = config_of(net)
    t_start = time.perf_counter()

    if method == "symbolic":
        if sampler == "alphabet":
            raise ConfigError(f"method='symbolic' expands {type(net).__name__} as a polynomial "
                              "of its one-hot inputs, not its tensor over the alphabet: use "
                              "method='modular'")  # fmt: skip
        if strategy == "graded":
            raise ConfigError("strategy='graded' needs method='modular' (got method='symbolic')")
        rank, shape, te, tr = _measure_symbolic(net, A, seed, weights)
        return Measurement(
            rank=rank, saturated=True, certified=CERTIFIED["symbolic"], method=method,
            prime=None, samples=shape, seconds=time.perf_counter() - t_start, seed=int(seed),
            config=config, partition=A, sampler="coefficients", eval_seconds=te,
            rank_seconds=tr, history=[(shape[0], shape[1], rank)],
            strategy="coefficients", strategy_reason="method='symbolic'",
        )  # fmt: skip

    if max_samples is not None and (
        isinstance(max_samples, bool) or not isinstance(max_samples, (int, np.integer))
    ):
        raise ConfigError(f"max_samples={max_samples!r} must be an integer")
    if max_samples is not None and max_samples < 2:
        raise ConfigError(f"max_samples={max_samples} must be >= 2")
    if max_samples is not None:  # refused before anything compiles or is allocated
        _grid.check_matrix_fits(int(max_samples), int(max_samples))
    if growth is not None and not growth > 1:
        raise ConfigError(f"growth={growth} must be > 1")
    fast_path = method == "modular" and use_kernel
    # The estimate models the strategy that will run: graded where that is known before
    # any evaluation (homogeneity by theorem), else direct (the estimate says which).
    blocks = None
    if method == "modular" and sampler == "random" and strategy in ("auto", "graded"):
        blocks = _estimate.graded_blocks(net, A)  # None: not LinearSelfAttention
        if blocks and modulus <= 3**net.depth + 1:  # too small a prime to interpolate
            blocks = None
    budget = int(max_samples or DEFAULT_MAX_SAMPLES["graded" if blocks else method])
    cost = _estimate.estimate(net, A, B, method=method, max_samples=budget, start=start,
                              fast=fast_path, blocks=blocks)  # fmt: skip
    _estimate.check_cost(cost, _grid._available_memory() // 4, say=lambda s: say(progress, s))
    if fast_path and not _firstrun.kernels_cached():
        say(progress, _firstrun.COMPILING)

    domain = ModP(modulus) if method == "modular" else Float64()
    params = _params(net, domain, seed, weights)
    plan = Plan(
        net=net, params=params, domain=domain, A=A, B=B,
        evaluate=_grid.make_evaluator(net, params, domain, A, B, use_kernel=use_kernel,
                                      chunk=chunk),
        method=method, sampler=sampler, seed=int(seed), config=config,
        max_samples=0, start=start, growth=0.0, rank_engine=rank_engine,
        tol=tol, progress=progress, pts_rng=np.random.default_rng([int(seed), 1]),
        t_start=t_start, incremental=bool(incremental), device=device,
    )  # fmt: skip
    name, reason, homog = choose(strategy, plan, np.random.default_rng([int(seed), 2]))
    key = "graded" if name == "graded" else method
    plan.max_samples = int(DEFAULT_MAX_SAMPLES[key] if max_samples is None else max_samples)
    plan.growth = DEFAULT_GROWTH[name] if growth is None else float(growth)
    if name == "graded" and growth is None and plan.incremental:
        plan.fine_after = GRADED_FINE_AFTER
    _grid.check_matrix_fits(plan.max_samples, plan.max_samples)  # one matrix (or block)
    if name == "graded":
        return graded.run(plan, homog.degree, homog, method_note + reason)
    return direct.run(plan, method_note + reason)

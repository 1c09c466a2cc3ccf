"""``measure(net, partition, method=...)``: the separation rank of a network, measured.

Three methods:

- ``modular`` (default): grid matrix over GF(p), exact rank (BLAS elimination in
  :mod:`seprank.algebra.blas_elimination`, or python-flint; see ``rank_engine``). The
  rank is a *certified lower bound* on the separation rank of the integer-weight network
  whose weights are the sampled residues (and so of the network with generic weights).
  When the rank is strictly below the sample size the sample saturated and the number
  equals the separation rank with high probability.
- ``float``: the same grid in float64, SVD rank with an explicit tolerance: an estimate
  with no guarantee (it fails as the degree 3**L grows; the spectrum shows why).
- ``symbolic``: exact expansion with sympy and the exact rank over Q of the coefficient
  matrix: the exact separation rank of that integer-weight network (tiny cases only).

Two strategies for ``modular`` (:mod:`seprank.engine.strategies`): ``direct`` (one grid matrix)
and ``graded`` (one matrix per A-side degree of a homogeneous f, summed: exact ranks far
beyond one matrix). A third, ``catalecticant`` (LinearSelfAttention, at least d_x
positions a side), evaluates no grid: its blocks come from the structural polynomial's
coefficients. ``auto`` takes catalecticant where it applies, the weights are random and
its largest matrix fits in memory; else graded when f is homogeneous; else direct. The
grid strategies' sample grows geometrically until it saturates or ``max_samples`` is hit;
the result says which. Nothing here consults the theory module.

The work is split as opt_einsum splits ``contract_path`` from ``contract``: the options
are validated once (:class:`~seprank.engine.options.MeasureOptions`), :func:`plan` decides
everything that needs no grid (method, sampler, prime, partition, strategy and why, budget,
cost estimate) and :func:`execute` runs the chosen strategy and labels the result.
:func:`measure` is ``execute(plan(...))``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from seprank.algebra.coefficients import rank_coefficients
from seprank.algebra.domains import DEFAULT_PRIME, Float64, ModP, Symbolic, symbolic_inputs
from seprank.algebra.rank import RankEngine, check_rank_engine
from seprank.engine import bound_compare, feasibility, kernels, line_check, row_check
from seprank.engine import estimate as _estimate
from seprank.engine import sample_grid as _grid
from seprank.engine import saturation as _saturation
from seprank.engine import weights as _weights
from seprank.engine.evaluate import evaluate
from seprank.engine.options import METHODS, SAMPLERS, MeasureOptions
from seprank.engine.result import CERTIFIED, Measurement
from seprank.engine.strategies import STRATEGIES, Plan, catalecticant, choose, direct, graded
from seprank.engine.strategies.base import say
from seprank.errors import ConfigError, MeasurementInterrupted, TooBigError
from seprank.nets.base import config_of, input_dim, is_polynomial
from seprank.nets.partitions import check_partition, default_partition

__all__ = ["METHODS", "SAMPLERS", "STRATEGIES", "MeasureOptions", "MeasurementPlan",
           "Measurement", "execute", "measure", "plan"]
#: Default budget on the sample size (rows = columns): per matrix, so per block if graded.
DEFAULT_MAX_SAMPLES = {"modular": 6000, "float": 2500, "graded": 16000}
#: Default sample growth per adaptive step. Graded grids cost m * n**2 evaluations for m
#: degrees, and its blocks are small to rank, so it grows more finely (less overshoot).
DEFAULT_GROWTH = {"direct": 1.5, "graded": 1.25, "catalecticant": 1.5}  # the last: unused
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
    if line_check.needs_check(net):  # a class seprank does not ship: one row per row
        row_check.check_rows(net, Float64(), int(seed))
    dom = Symbolic()
    params = _params(net, dom, seed, weights)
    d = input_dim(net)
    R, X = symbolic_inputs(net.seq_len, d)
    t0 = time.perf_counter()
    poly = evaluate(net, params, X, dom)[0]
    t1 = time.perf_counter()
    a_vars = {n * d + c for n in A for c in range(d)}
    rank, shape = rank_coefficients(R(poly), a_vars)
    t2 = time.perf_counter()
    return rank, shape, t1 - t0, t2 - t1


def _params(net, domain, seed, weights):
    """The drawn weights, or the given ones (checked by :func:`plan`) in ``domain``."""
    if weights is not None:
        return _weights.weights_in(domain, weights)
    return net.init(np.random.default_rng(seed), domain)


@dataclass
class MeasurementPlan:
    """What :func:`plan` decided, before any grid is evaluated: inspect it, then
    :func:`execute` it (once).

    ``method`` and ``sampler`` are resolved (never ``"auto"``); ``strategy`` is
    ``"direct"``, ``"graded"`` or ``"coefficients"`` (symbolic), with ``reason``;
    ``estimate`` is the cost model's prediction (None for symbolic); ``run`` holds the
    strategy's inputs (:class:`seprank.engine.strategies.base.Plan`)."""

    net: object
    options: MeasureOptions
    method: str
    sampler: str
    A: tuple[int, ...]
    B: tuple[int, ...]
    strategy: str
    reason: str
    weights: dict | None = None
    estimate: dict | None = None
    run: Plan | None = field(default=None, repr=False)
    homogeneity: object = field(default=None, repr=False)
    t_start: float = field(default_factory=time.perf_counter, repr=False)


def _resolve_method(net, method: str) -> tuple[str, str]:
    """(method to run, note for the reason); refuses exact methods on non-polynomials."""
    why = getattr(net, "polynomial_reason", None)  # the architecture may say why
    if method == "auto":
        if is_polynomial(net):
            return "modular", ""
        if getattr(net, "polynomial_unknown", False) is True:  # neither known to be one nor not
            raise ConfigError(f"method='auto': {why or type(net).__name__}; auto does not hand a "
                              "net that may be a polynomial to the float engine unannounced: "
                              "pass method='float' for a float estimate")  # fmt: skip
        return "float", (f"method='auto' took 'float': {type(net).__name__} is not a "
                         f"polynomial ({why + '; ' if why else ''}float engine only, no "
                         "certificate); ")  # fmt: skip
    if method != "float" and getattr(net, "polynomial_unknown", False) is True:
        raise ConfigError(f"method={method!r}: {why}")
    if method != "float" and not is_polynomial(net):
        raise ConfigError(f"method={method!r}: {type(net).__name__} is not a polynomial "
                          f"({why or 'declares polynomial=False'}): only method='float' (or "
                          "'auto') measures it")  # fmt: skip
    return method, ""


def _resolve_sampler(net, sampler: str) -> str:
    has_alphabet = callable(getattr(net, "alphabet", None))
    if sampler == "auto":
        return "alphabet" if has_alphabet else "random"
    if sampler == "alphabet" and not has_alphabet:
        raise ConfigError(f"sampler='alphabet': {type(net).__name__} declares no alphabet")
    return sampler


def _plan_symbolic(net, opts, sampler, A, B, weights, t0) -> MeasurementPlan:
    if sampler == "alphabet":
        raise ConfigError(f"method='symbolic' expands {type(net).__name__} as a polynomial "
                          "of its one-hot inputs, not its tensor over the alphabet: use "
                          "method='modular'")  # fmt: skip
    if opts.strategy in ("graded", "catalecticant"):
        raise ConfigError(f"strategy={opts.strategy!r} needs method='modular' (got "
                          "method='symbolic')")
    return MeasurementPlan(net=net, options=opts, method="symbolic", sampler="coefficients",
                           A=A, B=B, strategy="coefficients",
                           reason="method='symbolic'" + _net_note(net),
                           weights=weights, t_start=t0)  # fmt: skip


def _catalecticant_choice(net, opts, method, sampler, A, weights, modulus):
    """(strategy, modulus, its reason or None, why auto did not take it): whether auto
    takes the catalecticant strategy, and the prime that one uses."""
    strategy, picked, cat_note = opts.strategy, None, ""
    blas = opts.device == "cpu" and opts.rank_engine in ("auto", "blas")  # its fast prime
    if method == "modular" and strategy == "auto":
        cat_note, cat_prime = catalecticant.auto_pick(net, A, method, sampler, opts.prime,
                                                      random_weights=weights is None,
                                                      blas=blas)  # fmt: skip
        if cat_prime is not None:
            strategy, modulus, picked = "catalecticant", cat_prime, cat_note
    elif method == "modular" and strategy == "catalecticant":
        modulus, picked = catalecticant.choose_prime(net, opts.prime, blas)
        picked = ("requested: both sides have at least width positions and prime > D "
                  "(proofs/catalecticant_reduction.md)" + picked)  # fmt: skip
    return strategy, modulus, picked, cat_note


def plan(net, partition=None, options: MeasureOptions | None = None, *, weights=None,
         progress=None) -> MeasurementPlan:  # fmt: skip
    """Validate everything and decide how ``net`` will be measured (no grid evaluated;
    the homogeneity test evaluates the network at a few random points).

    Raises ConfigError (a bad option for this net), TooBigError (the estimate is over the
    limits) before anything large is allocated or compiled.

    The options were validated when built (each field on its own); what depends on the
    network follows, in this order: the architecture, the method (a non-polynomial refuses
    exact methods), the prime, the sampler, the partition, then (the strategy's choice of
    prime may depend on the partition) the rank engine and device.

    Random streams, each its own generator (same seed, same answer): the weights
    ``default_rng(seed)``, the sample points ``default_rng([seed, 1])`` (the rule a
    certificate states), the homogeneity probes ``default_rng([seed, 2])`` (so probing never
    moves the sample points)."""
    t0 = time.perf_counter()
    opts = MeasureOptions() if options is None else options
    if not isinstance(opts, MeasureOptions):
        raise ConfigError(f"options={opts!r} must be a MeasureOptions")
    _estimate.check_architecture(net)
    feasibility.check_feasible(net, opts.start, _grid.available_memory() // 4, opts.max_samples)
    method, note = _resolve_method(net, opts.method)
    modulus = (DEFAULT_PRIME if opts.prime is None else opts.prime) if method == "modular" \
        else None  # fmt: skip
    if modulus is not None:
        ModP(modulus)  # validates prime before anything compiles
    sampler = _resolve_sampler(net, opts.sampler)
    if weights is not None:  # exact numbers, keys and shapes as init's (before any compile)
        weights = _weights.check_weights(net, weights, int(opts.seed))
    A, B = check_partition(default_partition(net.seq_len) if partition is None else partition,
                           net.seq_len)  # fmt: skip
    strategy, modulus, picked, cat_note = _catalecticant_choice(net, opts, method, sampler, A,
                                                                weights, modulus)  # fmt: skip
    if modulus is None:  # no GF(p) rank: the engine and device names are still checked
        check_rank_engine(opts.rank_engine, None, name="rank_engine", device=opts.device)
        engine = None
    else:
        engine = RankEngine.choose(opts.rank_engine, modulus, opts.device, arg="rank_engine")
    if method == "symbolic":
        return _plan_symbolic(net, opts, sampler, A, B, weights, t0)
    fast_path = method == "modular" and opts.use_kernel
    # The estimate models the strategy that will run: graded where that is known before
    # any evaluation (homogeneity by theorem), else direct (the estimate says which).
    blocks = None
    if method == "modular" and sampler == "random" and strategy in ("auto", "graded") \
            and feasibility.interpolates(modulus, net):  # else too small a prime  # fmt: skip
        blocks = _estimate.graded_blocks(net, A)  # None: not LinearSelfAttention
    budget = int(opts.max_samples or DEFAULT_MAX_SAMPLES["graded" if blocks else method])
    if strategy == "catalecticant":  # no grid: the grid cost model does not apply
        cost = {"strategy": "catalecticant", "note": "no grid; matrices of the proved block "
                "sizes at most (blocks, in the Measurement)"}  # fmt: skip
    else:
        cost = _estimate.estimate(net, A, B, method=method, max_samples=budget,
                                  start=opts.start, fast=fast_path, blocks=blocks)  # fmt: skip
        _estimate.check_cost(cost, _grid.available_memory() // 4,
                             say=lambda s: say(progress, s))  # fmt: skip
    grid_kernel = strategy != "catalecticant" and _grid.uses_kernel(net, fast_path)
    if fast_path and (compiling := kernels.notice(blas=getattr(engine, "name", "") == "blas",
                                                  grid=grid_kernel)):  # fmt: skip
        say(progress, compiling)  # only when the compiler will run the kernels this run uses
    domain = ModP(modulus) if method == "modular" else Float64()
    if line_check.needs_check(net):  # a class seprank does not ship
        row_check.check_rows(net, domain, int(opts.seed))  # one row per row
        if method == "modular":
            line_check.check_arithmetic(net, domain, int(opts.seed))
    params = _params(net, domain, opts.seed, weights)
    seed = int(opts.seed)
    run = Plan(
        net=net, params=params, domain=domain, A=A, B=B,
        evaluate=_grid.make_evaluator(net, params, domain, A, B, use_kernel=opts.use_kernel,
                                      chunk=opts.chunk),
        method=method, sampler=sampler, seed=seed, config=config_of(net),
        max_samples=0, start=opts.start, growth=0.0, rank_engine=opts.rank_engine,
        tol=opts.tol, progress=progress, pts_rng=np.random.default_rng([seed, 1]),
        incremental=opts.incremental, device=opts.device, engine=engine, t_start=t0,
    )  # fmt: skip
    name, reason, homog = choose(strategy, run, np.random.default_rng([seed, 2]))
    if name == "catalecticant" and picked:
        reason = picked
    elif name != "catalecticant":
        reason += cat_note
    key = "graded" if name == "graded" else method
    run.max_samples = int(DEFAULT_MAX_SAMPLES[key] if opts.max_samples is None
                          else opts.max_samples)  # fmt: skip
    run.growth = DEFAULT_GROWTH[name] if opts.growth is None else float(opts.growth)
    if name == "graded" and opts.growth is None and run.incremental:
        run.fine_after = GRADED_FINE_AFTER
    _grid.check_matrix_fits(run.max_samples, run.max_samples)  # one matrix (or block)
    return MeasurementPlan(net=net, options=opts, method=method, sampler=sampler, A=A, B=B,
                           strategy=name, reason=note + reason + _net_note(net), weights=weights,
                           estimate=cost, run=run, homogeneity=homog, t_start=t0)  # fmt: skip


def _net_note(net) -> str:
    """What the network says about itself for the record (``measure_note``: e.g. which
    tensors a torch module's measurement drew), appended to the strategy's reason."""
    note = getattr(net, "measure_note", None)
    return f"; {note}" if isinstance(note, str) and note else ""


def _execute_symbolic(mp: MeasurementPlan) -> Measurement:
    net, t_start = mp.net, mp.t_start
    rank, shape, te, tr = _measure_symbolic(net, mp.A, mp.options.seed, mp.weights)
    return Measurement(
        rank=rank, saturated=True, certified=CERTIFIED["symbolic"], method="symbolic",
        prime=None, samples=shape, seconds=time.perf_counter() - t_start,
        seed=int(mp.options.seed), config=config_of(net), partition=mp.A,
        sampler="coefficients", eval_seconds=te, rank_seconds=tr,
        history=[(shape[0], shape[1], rank)], strategy="coefficients",
        strategy_reason=mp.reason,
    )  # fmt: skip


def execute(mp: MeasurementPlan) -> Measurement:
    """Run a plan's strategy and label the result (saturation, its bound and reason).

    Parameters
    ----------
    mp : MeasurementPlan
        What :func:`plan` decided.

    Returns
    -------
    Measurement
        The labelled result.

    Raises
    ------
    MeasurementInterrupted
        On Ctrl-C, carrying the labelled partial result (nothing computed is lost); any
        progress bar of the run is closed first.
    """
    opts = mp.options

    def label(m):  # the bound is compared after measuring: for the label only
        return bound_compare.label(m, mp.net, opts.saturation_threshold,
                                   random_weights=mp.weights is None)  # fmt: skip

    try:
        if mp.strategy == "coefficients":
            return label(_execute_symbolic(mp))
        if mp.strategy == "catalecticant":
            return label(catalecticant.run(mp.run, mp.reason))
        if mp.strategy == "graded":
            return label(graded.run(mp.run, mp.homogeneity.degree, mp.homogeneity, mp.reason))
        return label(direct.run(mp.run, mp.reason))
    except MeasurementInterrupted as exc:
        if exc.partial is not None:
            label(exc.partial)
        raise
    finally:  # the sample-size bar (progress=True in a terminal or notebook) ends here
        if getattr(mp, "run", None) is not None:
            mp.run.close_progress()


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
    growth: float | None = None,
    weights: dict | None = None,
    rank_engine: str = "auto",
    strategy: str = "auto",
    incremental: bool = True,
    device: str = "cpu",
    progress=None,
    saturation_threshold: float = _saturation.DEFAULT_THRESHOLD,
    options: MeasureOptions | None = None,
) -> Measurement:
    """Measure the separation rank of ``net`` for the partition (A side) ``partition``.

    Parameters
    ----------
    net : Architecture
        The network (see :mod:`seprank.nets.base`).
    partition : iterable of int, optional
        Positions of the A side (default: the first ``seq_len // 2``).
    method : {"modular", "float", "symbolic", "auto"}, default "modular"
        ``"auto"``: modular for a polynomial net, float for one that declares
        ``polynomial = False`` (the result's ``strategy_reason`` says which was taken and
        why). A non-polynomial net is refused by ``modular`` and ``symbolic``.
    seed : int, default 0
        Weights and sample points are drawn from it; same seed, same answer.
    max_samples : int, optional
        Budget on rows and columns of the grid matrix (default 6000 direct, 16000 graded,
        2500 float).
    sampler : {"auto", "random", "templates", "alphabet"}, default "auto"
        ``"auto"``: ``alphabet`` for a net that declares an ``alphabet``, else ``random``;
        ``"random"``: independent points; ``"templates"``: classic grid tensor, random
        templates; ``"alphabet"``: the complete grid over the net's declared input alphabet
        (the exact matricisation of its tensor over tokens).
    prime : int, optional
        Modulus for ``modular`` (default: the largest prime below 2**26).
    tol : float, optional
        SVD tolerance for ``float`` (default: numpy's rule, reported).
    growth : float, optional
        Sample growth factor per adaptive step (default 1.5 direct; 1.25 graded, then 1.1
        from 2048 samples on).
    weights : dict, optional
        Given weights (the keys and shapes ``net.init`` returns; ints, Fractions or exact
        floats), to measure one specific network in several engines: converted exactly,
        the same function in each (:mod:`seprank.engine.weights`); a missing, extra or
        misshaped key, or a value with no exact reading, is a ConfigError naming it.
    rank_engine : {"auto", "blas", "flint", "array-numpy", "array-torch"}, default "auto"
        GF(p) rank engine for ``modular`` (see :func:`seprank.algebra.rank.rank_modp`; all
        exact, they agree).
    strategy : {"auto", "direct", "graded", "catalecticant"}, default "auto"
        Measurement strategy (modular only; see :mod:`seprank.engine.strategies`;
        ``auto``: the rule above, the reason is in the result). ``max_samples`` bounds each
        graded block's sample.
    incremental : bool, default True
        Extend one elimination as the sample grows (BLAS engine on the CPU) instead of
        re-ranking each step from scratch; exact either way.
    device : {"cpu", "cuda"}, default "cpu"
        ``"cuda"``: the array-torch rank engine on a GPU (opt-in).
    progress : bool or callable, optional
        True to print a line per adaptive step on stderr, or a callable receiving each step.
    saturation_threshold : float, default 1e-2
        ``saturated`` is reported only when the Schwartz-Zippel bound on a false saturation
        (``saturation_bound``) is at most this (see :mod:`seprank.engine.saturation`, which
        also covers float and templates).
    options : MeasureOptions, optional
        The options as one :class:`~seprank.engine.options.MeasureOptions` instead of the
        keywords above (then leave them at their defaults); the only way to set the internal
        knobs ``start``, ``chunk`` and ``use_kernel``.

    Returns
    -------
    Measurement
        The rank, what it certifies, and everything needed to reproduce it.

    Raises
    ------
    ConfigError
        If ``net`` is not an architecture, the partition, an option or ``weights`` is
        invalid, a class seprank does not ship mixes the batch axis in ``apply``
        (:mod:`seprank.engine.row_check`), the method
        cannot measure the net (a non-polynomial net in ``modular`` or ``symbolic``),
        ``options`` is given together with non-default keywords, or torch or CUDA is
        missing for ``device="cuda"``.
    DomainError
        If the prime is not a prime or is too small for the network, or the net's
        arithmetic does not run in the domain.
    SamplingError
        If the grid is too large for the memory allowed (TooBigError, a subclass, for the
        estimates made before sampling).
    MeasurementInterrupted
        On Ctrl-C during an adaptive measurement (it carries the last finished step).

    Examples
    --------
    >>> from seprank.nets import LinearSelfAttention
    >>> m = measure(LinearSelfAttention(depth=1, width=3, heads=1, seq_len=4))
    >>> m.rank, m.saturated
    (4, True)
    """
    given = dict(method=method, seed=seed, max_samples=max_samples, sampler=sampler,
                 prime=prime, tol=tol, growth=growth, rank_engine=rank_engine,
                 strategy=strategy, incremental=incremental, device=device,
                 saturation_threshold=saturation_threshold)  # fmt: skip
    opts = _options(given, options)
    return execute(plan(net, partition, opts, weights=weights, progress=progress))


def _options(given: dict, options: MeasureOptions | None) -> MeasureOptions:
    """``measure``'s keywords as options, or ``options`` when they are all defaults."""
    if options is None:
        return MeasureOptions(**given)
    default = MeasureOptions()
    clash = [k for k, v in given.items()
             if not (type(v) is type(getattr(default, k)) and v == getattr(default, k))]
    if clash:
        raise ConfigError(f"options= given together with {', '.join(clash)}: set them on "
                          "the MeasureOptions instead")  # fmt: skip
    return options

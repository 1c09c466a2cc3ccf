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

The strategies are registered, one module each (:mod:`seprank.engine.strategies`):
``direct`` (one grid matrix), ``graded`` (one matrix per A-side degree of a homogeneous f,
summed: exact ranks far beyond one matrix), ``catalecticant`` (no grid: the blocks from
the coefficients of the structural polynomial a network declares), ``coefficients``
(symbolic) and ``expand`` (exact coefficients, when requested). ``auto`` takes the first
that applies, in that registry's order; the reason is in the result. The grid strategies'
sample grows geometrically until it saturates or ``max_samples`` is hit; the result says
which. Nothing here consults the theory module.

The work is split as opt_einsum splits ``contract_path`` from ``contract``: the options
are validated once (:class:`~seprank.engine.options.MeasureOptions`), the planner
(:func:`seprank.engine.planner.plan`) decides everything that needs no grid (method,
sampler, prime, partition, strategy and why, budget, cost estimate) and :func:`execute`
runs the chosen strategy and labels the result. :func:`measure` is ``execute(plan(...))``.
"""

from __future__ import annotations

from dataclasses import replace

from seprank.engine import bound_compare
from seprank.engine import saturation as _saturation
from seprank.engine.options import METHODS, SAMPLERS, MeasureOptions
from seprank.engine.planner import MeasurementPlan, plan
from seprank.engine.result import Measurement
from seprank.engine.strategies import STRATEGIES
from seprank.engine.strategies.base import DEFAULT_MAX_SAMPLES
from seprank.errors import ConfigError, MeasurementInterrupted

__all__ = ["DEFAULT_MAX_SAMPLES", "METHODS", "SAMPLERS", "STRATEGIES", "MeasureOptions",
           "MeasurementPlan", "Measurement", "compose", "execute", "measure", "plan"]


def execute(mp: MeasurementPlan) -> Measurement:
    """Run a plan's strategy and label the result (saturation, its bound and reason).

    Parameters
    ----------
    mp : MeasurementPlan
        What :func:`plan` decided.

    Returns
    -------
    Measurement
        The labelled result (:func:`compose`), frozen.

    Raises
    ------
    MeasurementInterrupted
        On Ctrl-C, carrying the labelled partial result (nothing computed is lost); any
        progress bar of the run is closed first.
    """
    try:
        return compose(mp, mp.chosen.run(mp))
    except MeasurementInterrupted as exc:
        if exc.partial is not None:
            exc.partial = compose(mp, exc.partial)
        raise
    finally:  # the sample-size bar (progress=True in a terminal or notebook) ends here
        if getattr(mp, "run", None) is not None:
            mp.run.close_progress()


def compose(mp: MeasurementPlan, raw: Measurement,
            threshold: float | None = None) -> Measurement:
    """Build the one Measurement a user sees, once, from the strategy's raw result.

    Its blocks with their proved bounds (compared, never used to measure), the strategy's
    ground (:func:`seprank.engine.saturation.label`), the architecture's bound and the
    planner's record of the strategies considered.

    Parameters
    ----------
    mp : MeasurementPlan
        The plan that was run.
    raw : Measurement
        The strategy's raw result (``saturated``: the rank stopped below the sample size).
    threshold : float, optional
        The saturation threshold (default the plan's option).

    Returns
    -------
    Measurement
        A new, labelled Measurement.
    """
    net = mp.net
    threshold = mp.options.saturation_threshold if threshold is None else threshold
    symbolic = raw.method == "symbolic"
    staged = replace(raw, blocks=bound_compare.with_block_bounds(raw.blocks, net, raw.partition),
                     sample_saturated=bool(raw.saturated),
                     polynomial=raw.polynomial if symbolic else _saturation.polynomial_of(net))
    ctx = _saturation.GroundContext(net, float(threshold), random_weights=mp.weights is None,
                                    prime_drawn=mp.prime_drawn, weights=mp.weights)
    ground = _saturation.label(staged, mp.chosen, ctx)
    return replace(staged, saturated=ground.saturated, saturation_bound=ground.bound,
                   saturation_threshold=float(threshold), saturation_reason=ground.reason,
                   trusted=staged.trusted if ground.trusted is None else ground.trusted,
                   blocks=staged.blocks if ground.blocks is None else ground.blocks,
                   bound=bound_compare.compared_bound(net, raw.partition, raw.method),
                   considered=[[name, why] for name, why in mp.considered])


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
        Modulus for ``modular`` (default: the largest prime below :math:`2^{26}`).
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
                 saturation_threshold=saturation_threshold)
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
                          "the MeasureOptions instead")
    return options

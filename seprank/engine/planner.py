"""The one planner: validated options and a network in, a :class:`MeasurementPlan` out,
before any grid is evaluated (``seprank measure``, the sweeps and the certificates all
plan through it, so one network is planned one way).

Opt_einsum's split of ``contract_path`` from ``contract``: :func:`plan` validates what
depends on the network (the architecture, method, prime, sampler, weights, partition),
then asks every registered strategy in order (:mod:`seprank.engine.strategies`):
``applies``, its cost (the grid strategies' cost is checked: a run that cannot finish is
refused), ``confirm``. Under ``strategy="auto"`` the first that passes is taken; a
requested strategy that does not apply is a ConfigError naming why. ``considered`` says,
for every strategy, why it was or was not taken. Then the strategy's prime, the rank
engine, the weights and the grid evaluator are fixed once.

Random streams, each its own generator (same seed, same answer): the weights
``default_rng(seed)``, the sample points ``default_rng([seed, 1])`` (the rule a
certificate states), the homogeneity probes ``default_rng([seed, 2])`` (so probing never
moves the sample points), the check of a capability a user's class declares
``default_rng([seed, 3])`` (:mod:`seprank.engine.capability_check`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from seprank.algebra.domains import DEFAULT_PRIME, Float64, ModP
from seprank.algebra.rank import RankEngine, check_rank_engine
from seprank.engine import capability_check, feasibility, kernels
from seprank.engine import constants as _constants
from seprank.engine import estimate as _estimate
from seprank.engine import sample_grid as _grid
from seprank.engine import weights as _weights
from seprank.engine.line_check import needs_check
from seprank.engine.options import MeasureOptions
from seprank.engine.strategies import Request, RunInputs, Strategy, get, ordered
from seprank.engine.strategies.base import DEFAULT_MAX_SAMPLES, say
from seprank.errors import ConfigError
from seprank.nets.base import config_of, is_polynomial
from seprank.nets.capabilities import capability, structural_form
from seprank.nets.partitions import check_partition, default_partition


@dataclass
class MeasurementPlan:
    """What :func:`plan` decided, before any grid is evaluated.

    Inspect it, then :func:`seprank.engine.measure.execute` it (once).

    Parameters
    ----------
    net : Architecture
        The network.
    options : MeasureOptions
        The validated options.
    method, sampler : str
        Resolved (never ``"auto"``).
    A, B : tuple of int
        The two sides of the partition.
    strategy : str
        The taken strategy's name.
    reason : str
        Why it was taken (the Measurement's ``strategy_reason``).
    weights : dict or None
        The checked given weights (None: drawn from the seed).
    estimate : Cost or None
        The strategy's cost (:class:`seprank.engine.estimate.Cost`; None where it has none).
    run : RunInputs or None
        The grid strategies' inputs (:class:`seprank.engine.strategies.base.RunInputs`).
    homogeneity : Homogeneity or None
        The homogeneity probe's outcome, where the planner asked for one.
    t_start : float
        When planning began (``time.perf_counter``).
    considered : list
        (name, None if taken else why not) for every registered strategy, in order.
    prime : int or None
        The modulus the run uses (None: not modular).
    max_samples : int or None
        The sample budget the run uses (None: no grid).
    prime_drawn : bool
        Whether ``prime`` was drawn at random (a class seprank does not ship, or given
        weights, and no ``prime`` asked for: :func:`seprank.engine.constants.draw_prime`).
    """

    net: object
    options: MeasureOptions
    method: str
    sampler: str
    A: tuple[int, ...]
    B: tuple[int, ...]
    strategy: str
    reason: str
    weights: dict | None = None
    estimate: _estimate.Cost | None = None
    run: RunInputs | None = field(default=None, repr=False)
    homogeneity: object = field(default=None, repr=False)
    t_start: float = field(default_factory=time.perf_counter, repr=False)
    considered: list = field(default_factory=list)
    prime: int | None = None
    max_samples: int | None = None
    #: Whether ``prime`` was drawn at random (:mod:`seprank.engine.constants`): the
    #: saturation bound then covers the constants of the code and the given weights.
    prime_drawn: bool = False

    @property
    def chosen(self) -> Strategy:
        """The registered strategy that runs."""
        return get(self.strategy)

    def summary(self) -> dict:
        """What decides the result: strategy, prime, budget, method, sampler.

        Returns
        -------
        dict
            Equal for two plans of one network that measure it the same way.
        """
        return {"strategy": self.strategy, "prime": self.prime, "max_samples": self.max_samples,
                "method": self.method, "sampler": self.sampler}


def _resolve_method(net, method: str) -> tuple[str, str]:
    """(method to run, note for the reason); refuses exact methods on non-polynomials."""
    why = getattr(net, "polynomial_reason", None)  # the architecture may say why
    if method == "auto":
        if is_polynomial(net):
            return "modular", ""
        if getattr(net, "polynomial_unknown", False) is True:  # neither known to be one nor not
            raise ConfigError(f"method='auto': {why or type(net).__name__}; auto does not hand a "
                              "net that may be a polynomial to the float engine unannounced: "
                              "pass method='float' for a float estimate")
        return "float", (f"method='auto' took 'float': {type(net).__name__} is not a "
                         f"polynomial ({why + '; ' if why else ''}float engine only, no "
                         "certificate); ")
    if method != "float" and getattr(net, "polynomial_unknown", False) is True:
        raise ConfigError(f"method={method!r}: {why}")
    if method != "float" and not is_polynomial(net):
        raise ConfigError(f"method={method!r}: {type(net).__name__} is not a polynomial "
                          f"({why or 'declares polynomial=False'}): only method='float' (or "
                          "'auto') measures it")
    return method, ""


def _resolve_sampler(net, sampler: str) -> str:
    has_alphabet = callable(getattr(net, "alphabet", None))
    if sampler == "auto":
        return "alphabet" if has_alphabet else "random"
    if sampler == "alphabet" and not has_alphabet:
        raise ConfigError(f"sampler='alphabet': {type(net).__name__} declares no alphabet")
    return sampler


def _net_note(net) -> str:
    """What the network says about itself for the record (``measure_note``: e.g. which
    tensors a torch module's measurement drew), appended to the strategy's reason."""
    note = getattr(net, "measure_note", None)
    return f"; {note}" if isinstance(note, str) and note else ""


def _request(net, partition, opts, weights) -> Request:
    """Everything validated that depends on the network, before a strategy is chosen."""
    _estimate.check_architecture(net)
    feasibility.check_feasible(net, opts.start, _grid.available_memory() // 4, opts.max_samples)
    method, note = _resolve_method(net, opts.method)
    modulus, drawn = None, False
    if method == "modular":
        modulus = DEFAULT_PRIME if opts.prime is None else opts.prime
        if opts.prime is None and (needs_check(net) or weights is not None):
            # constants not seprank's (a user's code, given weights): covered by a prime
            # drawn at random after them (seprank.engine.constants)
            modulus, drawn = _constants.draw_prime(), True
    if modulus is not None:
        ModP(modulus)  # validates prime before anything compiles
    sampler = _resolve_sampler(net, opts.sampler)
    if weights is not None:  # exact numbers, keys and shapes as init's (before any compile)
        weights = _weights.check_weights(net, weights, int(opts.seed))
    blas = opts.device == "cpu" and opts.rank_engine in ("auto", "blas")  # for the fast prime
    check_rank_engine(opts.rank_engine, modulus, name="rank_engine", device=opts.device)
    A, B = check_partition(default_partition(net.seq_len) if partition is None else partition,
                           net.seq_len)
    req = Request(net=net, A=A, B=B, options=opts, method=method, sampler=sampler,
                  weights=weights, modulus=modulus, blas=blas, note=note,
                  form=structural_form(net))
    req.prime_drawn = drawn
    return req


def _skip(s: Strategy, req: Request, purpose: str) -> str | None:
    """Why ``s`` is not asked at all under auto (None: it is asked)."""
    if not s.auto:
        return f"taken only when requested (strategy={s.name!r})"
    if purpose == "certify":
        return s.certifiable(req)
    if purpose == "certify-grid":
        return s.certifiable(req) or (None if s.grid else "samples no grid (grid=True)")
    return None


def _choose(req: Request, progress, purpose: str) -> tuple[Strategy, _estimate.Cost | None,
                                                          list]:
    """The strategy that runs, its cost, and (name, why not or None) for each one asked."""
    considered, notes = [], ""
    wanted = req.requested
    strategies = ordered()
    for i, s in enumerate(strategies):
        if wanted != "auto" and s.name != wanted:
            considered.append((s.name, f"not requested (strategy={wanted!r})"))
            continue
        if wanted == "auto" and (skip := _skip(s, req, purpose)) is not None:
            req.refusals[s.name] = skip
            considered.append((s.name, skip))
            continue
        why = s.applies(req)
        cost, lines = None, []
        if why is None:
            cost = s.cost(req, _budget(s, req))
            if s.grid and cost is not None:  # refuse what cannot finish, before any probe
                _estimate.check_cost(cost, _grid.available_memory() // 4, say=lines.append)
            why = s.confirm(req)
        if why is not None:
            if wanted != "auto":
                raise ConfigError(s.refusal_error(req, why))
            req.refusals[s.name] = why
            considered.append((s.name, why))
            notes += s.not_taken(req, why)
            continue
        considered.append((s.name, None))
        for line in lines:  # the taken one's estimate of a long run, said once
            say(progress, line)
        considered += [(o.name, f"not asked: {s.name} was taken first" if wanted == "auto"
                        else f"not requested (strategy={wanted!r})")
                       for o in strategies[i + 1:]]
        req.notes = notes
        return s, cost, considered
    raise ConfigError(f"strategy={wanted!r}: no strategy applies to method={req.method!r}: "
                      + "; ".join(f"{n}: {w}" for n, w in considered))


def _budget(s: Strategy, req: Request) -> int | None:
    key = s.budget_key(req)
    if req.options.max_samples is not None:
        return int(req.options.max_samples)
    return None if key is None else int(DEFAULT_MAX_SAMPLES[key])


def plan(net, partition=None, options: MeasureOptions | None = None, *, weights=None,
         progress=None, purpose: str = "measure",
         inputs: bool = True) -> MeasurementPlan:
    """Validate everything and decide how ``net`` will be measured.

    No grid is evaluated (the graded strategy's homogeneity test evaluates the network at
    a few random points). The options were validated when built (each field on its own);
    what depends on the network follows, in this order: the architecture, the method (a
    non-polynomial refuses exact methods), the prime, the sampler, the given weights, the
    rank engine's name and device, the partition, the strategy (each one's cost checked
    before any probe), the checks of a class seprank does not ship, then (the strategy's
    prime may differ) the rank engine itself.

    Parameters
    ----------
    net : Architecture
        The network.
    partition : iterable of int, optional
        The A side (default: the first ``seq_len // 2`` positions).
    options : MeasureOptions, optional
        The options (default: ``MeasureOptions()``).
    weights : dict, optional
        Given weights (keys and shapes as ``net.init`` returns), checked exactly.
    progress : bool or callable, optional
        Progress lines (as :func:`seprank.measure`).
    purpose : {"measure", "certify", "certify-grid"}, default "measure"
        ``"certify"``: auto asks only the strategies that can write a certificate for this
        network, and the run records what the certificate needs (``RunInputs.minors``);
        ``"certify-grid"``: and only grid ones.
    inputs : bool, default True
        Build the run's inputs (``run``: the weights, the grid evaluator); False for a plan
        that is only read (a sweep's task estimates), never executed.

    Returns
    -------
    MeasurementPlan
        What was decided, and why (``considered``).

    Raises
    ------
    ConfigError
        A bad option for this network, or a requested strategy that does not apply.
    TooBigError
        The cost estimate is over the limits (before anything large is allocated).
    """
    t0 = time.perf_counter()
    opts = MeasureOptions() if options is None else options
    if not isinstance(opts, MeasureOptions):
        raise ConfigError(f"options={opts!r} must be a MeasureOptions")
    req = _request(net, partition, opts, weights)
    req.facts.gather()  # what the cost models read, asked once, before any strategy's cost
    strategy, cost, considered = _choose(req, progress, purpose)
    req.check_code()  # a class seprank does not ship: after the cost check, once
    modulus, prime_note = strategy.prime(req)
    if modulus is None:  # no GF(p) rank: the engine and device names are still checked
        check_rank_engine(opts.rank_engine, None, name="rank_engine", device=opts.device)
        engine = None
    else:
        engine = RankEngine.choose(opts.rank_engine, modulus, opts.device, arg="rank_engine")
    drawn = req.prime_drawn and modulus == req.modulus
    if drawn:
        prime_note += (f"; prime {modulus} drawn at random from [2^25, 2^26), which covers "
                       "the constants (pass prime= to fix it)")
    reason = req.note + strategy.reason(req) + prime_note + req.notes + _net_note(net)
    mp = MeasurementPlan(net=net, options=opts, method=req.method, sampler=req.sampler,
                         A=req.A, B=req.B, strategy=strategy.name, reason=reason,
                         weights=req.weights, estimate=cost, t_start=t0,
                         considered=considered, prime=modulus, prime_drawn=drawn,
                         homogeneity=req.probed)
    if strategy.needs_run:
        mp.max_samples = _max_samples(strategy, req)
        if inputs:
            mp.run = _run_inputs(mp, req, strategy, modulus, engine, progress,
                               certify=purpose.startswith("certify"))
    return mp


def _max_samples(strategy: Strategy, req: Request) -> int:
    """The run's sample budget: the option, else the strategy's default (else the method's)."""
    return _budget(strategy, req) or int(DEFAULT_MAX_SAMPLES[req.method])


def _run_inputs(mp, req, strategy, modulus, engine, progress, certify: bool = False) -> RunInputs:
    """The grid strategies' inputs: the domain, the weights in it, the evaluator, budgets,
    built complete (``certify``: the run records what a certificate needs)."""
    opts, net, seed = mp.options, mp.net, int(mp.options.seed)
    grid_kernel = strategy.grid and _grid.uses_kernel(net, req.method == "modular",
                                                      opts.use_kernel)
    if req.method == "modular" and opts.use_kernel and (compiling := kernels.notice(
            blas=getattr(engine, "name", "") == "blas", grid=grid_kernel,
            blocked=certify or (strategy.grid and opts.incremental),
            fill=getattr(strategy, "fills", False))):
        say(progress, compiling)  # only when the compiler will run the kernels this run uses
    domain = ModP(modulus) if req.method == "modular" else Float64()
    params = req.params_in(domain)
    growth = strategy.growth if opts.growth is None else float(opts.growth)
    fine = strategy.fine_after if opts.growth is None and opts.incremental else None
    run = RunInputs(
        net=net, params=params, domain=domain, A=mp.A, B=mp.B,
        evaluate=_grid.make_evaluator(net, params, domain, mp.A, mp.B,
                                      use_kernel=opts.use_kernel, chunk=opts.chunk,
                                      spot_seed=seed if needs_check(net) else None,
                                      sentinel=req.sentinel),
        method=req.method, sampler=req.sampler, seed=seed, config=config_of(net),
        max_samples=mp.max_samples, start=opts.start, growth=growth,
        rank_engine=opts.rank_engine, fine_after=fine, minors={} if certify else None,
        tol=opts.tol, progress=progress, pts_rng=np.random.default_rng([seed, 1]),
        incremental=opts.incremental, device=opts.device, engine=engine, t_start=mp.t_start,
    )
    if grid_kernel and capability_check.needed(net):  # a user's kernel: checked first
        capability_check.check_kernel(net, capability(net, "kernel")(), params, domain,
                                      mp.A, mp.B, seed)
    _grid.check_matrix_fits(run.max_samples, run.max_samples)  # one matrix (or block)
    return run

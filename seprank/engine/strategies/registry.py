"""The strategy registry: every measurement strategy is one module that registers one
:class:`Strategy`; the planner (:mod:`seprank.engine.planner`) iterates them in order.

A strategy declares:

- ``applies(req) -> None | reason``: whether it can measure this request (no grid is
  evaluated; the reason is a phrase, "needs method='modular' (got ...)");
- ``confirm(req) -> None | reason``: a second, costlier check made only after the cost
  check passed (graded: is f homogeneous? which evaluates f at a few points);
- ``prime(req) -> (modulus, note)``: its prime policy;
- ``cost(req, budget) -> Cost``: time and memory from the shapes (the one estimate that
  measure, sweeps, blocks and the refusals read: ``seconds``, ``peak_bytes``, ``note``),
  the facts it needs from theory/ read from ``req.facts``, asked once per request;
- ``run(mp) -> Measurement``: the raw result, with its typed ``detail``;
- ``ground(raw, ctx) -> Ground``: what its rank may be called (default: the random grid's
  ground); and where it splits, ``tasks`` / ``assemble``.

Third parties register a strategy by an entry point in the group ``seprank.strategies``
(a module:object that is a Strategy instance), loaded on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seprank.algebra.domains import Float64, ModP
from seprank.engine import line_check, row_check, saturation
from seprank.engine.estimate import Cost, TheoryFacts
from seprank.engine.homogeneity import homogeneity
from seprank.engine.saturation import Ground, GroundContext
from seprank.engine.strategies.base import grid_cost, params_for
from seprank.errors import ConfigError
from seprank.registry import Registry

#: The entry-point group third-party strategies register under.
ENTRY_POINT_GROUP = "seprank.strategies"



@dataclass
class Request:
    """What the planner knows before a strategy is chosen (all validated).

    Parameters
    ----------
    net : Architecture
        The network.
    A, B : tuple of int
        The sides of the partition.
    options : MeasureOptions
        The options.
    method, sampler : str
        Resolved.
    weights : dict or None
        The checked given weights, or None (drawn from the seed).
    modulus : int or None
        The prime asked for, or the default; None unless modular.
    blas : bool
        Whether the GF(p) ranks run on the BLAS engine.
    form : StructuralForm or None
        The structural form the network declares.
    refusals : dict
        Why each strategy asked so far was not taken.
    note, notes : str
        The method's note for the reason, and what refused strategies add to it.
    prime_drawn : bool
        Whether ``modulus`` was drawn at random (:mod:`seprank.engine.constants`).
    """

    net: Any
    A: tuple[int, ...]
    B: tuple[int, ...]
    options: Any
    method: str
    sampler: str
    #: The checked given weights, or None (drawn from the seed).
    weights: dict | None
    #: The prime asked for (options.prime) or the default; None unless modular.
    modulus: int | None
    #: Whether the GF(p) ranks run on the BLAS engine (rank_engine auto or blas, on the CPU).
    blas: bool
    #: The structural form the network declares (:mod:`seprank.nets.capabilities`), or None.
    form: Any = None
    #: Why each strategy asked so far was not taken (filled by the planner, in order).
    refusals: dict = field(default_factory=dict)
    #: The method's note for the reason (e.g. why auto took float), and what the refused
    #: strategies add to the taken one's reason (:meth:`Strategy.not_taken`).
    note: str = ""
    notes: str = ""
    #: Whether ``modulus`` was drawn at random (:mod:`seprank.engine.constants`).
    prime_drawn: bool = False
    _homogeneity: Any = field(default=None, init=False, repr=False)
    _facts: TheoryFacts | None = field(default=None, init=False, repr=False)
    _checked: bool = field(default=False, init=False, repr=False)
    #: (p, input row, its value alone) from the arithmetic check, or None.
    sentinel: Any = field(default=None, init=False, repr=False)
    _params: dict = field(default_factory=dict, init=False, repr=False)

    @property
    def requested(self) -> str:
        """The strategy asked for ("auto" or a name)."""
        return self.options.strategy

    @property
    def random_weights(self) -> bool:
        return self.weights is None

    @property
    def facts(self) -> TheoryFacts:
        """What the cost models need from theory/ about this network and partition, one
        object per request (:class:`seprank.engine.estimate.TheoryFacts`)."""
        if self._facts is None:
            self._facts = TheoryFacts(self.net, self.A)
        return self._facts

    def params_in(self, domain):
        """The weights in ``domain`` (drawn from the seed, or the given ones), made once per
        field: the homogeneity probe and the run share them."""
        key = (domain.name, getattr(domain, "p", None))
        if key not in self._params:
            self._params[key] = params_for(self.net, domain, int(self.options.seed),
                                           self.weights)
        return self._params[key]

    def check_code(self) -> None:
        """The checks of a class seprank does not ship, once, before its ``apply`` is first
        evaluated for this request (after the cost check): one row per row
        (:mod:`seprank.engine.row_check`) and, over GF(p), exact arithmetic
        (:func:`seprank.engine.line_check.check_arithmetic`)."""
        if self._checked or self.method not in ("modular", "float"):
            return
        self._checked = True
        if line_check.needs_check(self.net):
            seed = int(self.options.seed)
            domain = ModP(self.modulus) if self.method == "modular" else Float64()
            row_check.check_rows(self.net, domain, seed)
            if self.method == "modular":  # its point t = 0: the one-row check's sentinel
                _, self.sentinel = line_check.check_line(self.net, domain, seed,
                                                         self.params_in(domain))

    @property
    def probed(self):
        """The homogeneity probe's outcome if a strategy asked for it (None: not probed)."""
        return self._homogeneity

    def homogeneity(self):
        """Is f homogeneous (:func:`seprank.engine.homogeneity.homogeneity`), probed once
        in GF(modulus) with the run's weights and the probes' own stream
        ``default_rng([seed, 2])`` (probing never moves the sample points)."""
        if self._homogeneity is None:
            self.check_code()
            seed, domain = int(self.options.seed), ModP(self.modulus)
            self._homogeneity = homogeneity(self.net, self.params_in(domain), domain,
                                            np.random.default_rng([seed, 2]))
        return self._homogeneity


class Strategy:
    """One way to measure a rank; subclass it and :func:`register` an instance.

    Attributes
    ----------
    name : str
        The name ``measure(strategy=...)`` takes.
    order : int
        Position in the planner's list (lower is asked first).
    auto : bool
        Whether ``strategy="auto"`` may take it (else only when requested).
    budget : str or None
        The key of the default sample budget (``DEFAULT_MAX_SAMPLES``); None: no grid.
    growth : float
        The default sample growth per adaptive step.
    certifies : bool
        Whether a run can record the minors a certificate needs.
    """

    name = ""
    order = 100
    auto = True
    budget: str | None = "modular"
    growth = 1.5
    certifies = False
    #: Whether it samples a grid (its cost is then checked by the grid cost model, and the
    #: planner builds the grid evaluator).
    grid = True
    #: Whether it fills catalecticant matrices (the compiled fill of
    #: :func:`seprank.engine.structural_poly.catalecticant`: the first-run notice counts it).
    fills = False
    #: Whether it runs on the planner's grid inputs (domain, weights, evaluator, engine:
    #: :class:`~seprank.engine.strategies.base.RunInputs`); False: it builds its own.
    needs_run = True
    #: Graded: from this sample size on grow by x1.1 (None: never).
    fine_after: int | None = None

    def applies(self, req: Request) -> str | None:
        """None where it can measure ``req``, else why not (a phrase)."""
        return None

    def confirm(self, req: Request) -> str | None:
        """A costlier second check, made after the cost check (None: it still applies)."""
        return None

    def budget_key(self, req: Request) -> str | None:
        """The key of its default sample budget (``DEFAULT_MAX_SAMPLES``)."""
        return self.budget

    def refusal_error(self, req: Request, why: str) -> str:
        """The ConfigError's text when it was requested and does not apply."""
        return f"strategy={self.name!r} {why}"

    def not_taken(self, req: Request, why: str) -> str:
        """What the taken strategy's reason adds about this one under auto ("": nothing)."""
        return ""

    def certifiable(self, req: Request) -> str | None:
        """None where a run can record what a certificate needs (``certifies``), else why
        not (asked only when planning a certificate)."""
        return None if self.certifies else "writes no certificate"

    def prime(self, req: Request) -> tuple[int | None, str]:
        """(the modulus to measure in, a note for the reason); default the request's."""
        return req.modulus, ""

    def reason(self, req: Request) -> str:
        """Why it was taken (the Measurement's ``strategy_reason``)."""
        return "requested" if req.requested == self.name else f"auto: {self.name}"

    def cost(self, req: Request, budget: int) -> Cost | None:
        """What a run will cost (:class:`seprank.engine.estimate.Cost`: seconds, peak bytes,
        note), before it starts; by default the grid strategies' model
        (:func:`~seprank.engine.strategies.base.grid_cost`) for a grid strategy, else None."""
        return grid_cost(req, budget) if self.grid else None

    def run(self, mp) -> Any:
        """Measure: the raw Measurement from the plan (a MeasurementPlan): ``saturated`` its
        stop (the rank below the sample size), its ``detail`` the strategy's own record;
        :func:`seprank.engine.measure.execute` labels it."""
        raise NotImplementedError

    def ground(self, raw, ctx: GroundContext) -> Ground:
        """What the raw result's rank may be called (:class:`~seprank.engine.saturation.Ground`:
        saturated, the bound on a false saturation, why); by default the random grid's
        ground (:func:`seprank.engine.saturation.grid_ground`)."""
        return saturation.grid_ground(raw, ctx)


#: The registered strategies by name (:class:`seprank.registry.Registry`).
REGISTRY: Registry[Strategy] = Registry("strategy", Strategy, group=ENTRY_POINT_GROUP,
                                          listed=("auto",))


def register(strategy: Strategy, *, replace: bool = False) -> Strategy:
    """Add ``strategy`` to the registry (``replace``: over one of the same name).

    Parameters
    ----------
    strategy : Strategy
        The instance to register.
    replace : bool, default False
        Replace a registered strategy of the same name instead of refusing.

    Returns
    -------
    Strategy
        ``strategy``.
    """
    return REGISTRY.register(strategy, replace=replace)


def unregister(name: str) -> Strategy | None:
    """Remove a registered strategy (tests, and a plugin that replaces one).

    Parameters
    ----------
    name : str
        Its name; an unknown name is ignored.

    Returns
    -------
    Strategy or None
        The strategy removed.
    """
    return REGISTRY.unregister(name)


def ordered(plugins: bool = True) -> list[Strategy]:
    """Every registered strategy, in the planner's order (``plugins``: with those of the
    entry points, loaded on first use)."""
    return sorted((REGISTRY[n] for n in REGISTRY.names(plugins)),
                  key=lambda s: (s.order, s.name))


def names(plugins: bool = True) -> tuple[str, ...]:
    """The names ``measure(strategy=...)`` takes.

    Parameters
    ----------
    plugins : bool, default True
        Load the entry points' strategies first.

    Returns
    -------
    tuple of str
        ``"auto"`` and every registered strategy's name, in the planner's order.
    """
    return ("auto", *(s.name for s in ordered(plugins)))


def get(name: str) -> Strategy:
    """The registered strategy of this name.

    Parameters
    ----------
    name : str
        Its name.

    Returns
    -------
    Strategy
        The registered instance.

    Raises
    ------
    ConfigError
        If no strategy of that name is registered (the message names the known ones).
    """
    if name not in REGISTRY:
        REGISTRY.load_entry_points()
    if name not in REGISTRY:
        raise ConfigError(f"strategy={name!r} must be one of {', '.join(names())}")
    return REGISTRY[name]

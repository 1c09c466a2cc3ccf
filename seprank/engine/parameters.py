"""The measurement's parameters, one row each: name, kind, range or choices, default, help.

Every place that takes one of these quantities reads its row here:
:class:`~seprank.engine.options.MeasureOptions` (the Python API), the CLI's argument
types and help (:mod:`seprank.cli._common`), the ``[grid]`` keys of a grid file
(:mod:`seprank.sweeps.grid_check`) and a certificate's fields
(:mod:`seprank.verdicts.certificate_schema`). :func:`validate` is the one check, with one
message naming the argument, what was expected and what came; each surface only says
where the value was (``argument --seed:``, ``grid g.toml: [grid] seeds:``,
``certificate:``).

The prime's policy is the API's: a prime in [2, MAX_MODULUS] (the limit of
:class:`~seprank.algebra.domains.ModP`). Whether it is large enough for a given network
(the graded interpolation, the Schwartz-Zippel bound) is not a property of the value:
:func:`seprank.engine.feasibility.prime_floor` says what a network needs, and the result's
label says what a smaller prime earned.

>>> validate("seed", 3)
3
>>> validate("growth", 1.0)
Traceback (most recent call last):
...
seprank.errors.ConfigError: growth=1.0 must be a finite number > 1
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from seprank.algebra import rank as _rank
from seprank.algebra.domains import DEFAULT_PRIME, is_prime
from seprank.algebra.limits import MAX_MODULUS
from seprank.engine import strategies as _strategies
from seprank.engine.sample_grid import DEFAULT_CHUNK
from seprank.engine.saturation import DEFAULT_THRESHOLD
from seprank.engine.strategies import base as _base
from seprank.errors import ConfigError, DomainError

#: The largest integer a parameter may take: what SQLite (the store) and numpy's int64 hold.
MAX_INT = 2**63 - 1
#: The largest grid side (rows = columns) a budget may ask for.
MAX_SIDE = 10**7
METHODS = ("modular", "float", "symbolic", "auto")
SAMPLERS = ("auto", "random", "templates", "alphabet")
#: Default budget on the sample size (rows = columns), per matrix (so per block if graded):
#: keyed by the method, or "graded" for the graded strategy (the planner's).
MAX_SAMPLES_BY = dict(_base.DEFAULT_MAX_SAMPLES)
#: Default sample growth per adaptive step, by strategy: each registered strategy's own
#: ``growth`` (graded grids cost m * n**2 evaluations for m degrees, and its blocks are
#: small to rank, so it grows more finely).
GROWTH_BY = {s.name: s.growth for s in _strategies.ordered(plugins=False) if s.needs_run}


def _is_int(v) -> bool:
    return not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, np.integer))


def _is_real(v) -> bool:
    """A real number (numpy scalars included), not a bool."""
    return not isinstance(v, (bool, np.bool_)) and isinstance(v, numbers.Real)


def _bound(x) -> str:
    """A range end as written in a message: 2**63-1 rather than its 19 digits."""
    if isinstance(x, int) and x > 10**6 and (x + 1) & x == 0:
        return f"2**{(x + 1).bit_length() - 1}-1"
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Parameter:
    """One row of the table.

    Attributes
    ----------
    name : str
        The keyword of :func:`seprank.measure` / the field of MeasureOptions.
    kind : str
        ``int``, ``prime``, ``real``, ``choice`` or ``flag`` (True or False).
    default : object
        What measure uses when the argument is not given (None: decided by the run, see
        ``by``).
    help : str
        One sentence (the CLI's help for the flag).
    lo, hi : int or float, optional
        The range, both ends included (``lo_open``: lo excluded); reals must be finite.
    choices : tuple or callable
        The valid names (a callable for a registry read when checked).
    optional : bool
        None is a valid value (the default decided by the run).
    by : mapping, optional
        The default when None, keyed by method or strategy.
    flag, grid, certificate : str, optional
        The ``seprank measure`` flag, the grid file's ``[grid]`` key, the certificate field.
    cli_default : object, optional
        The CLI's default where it differs from ``default``.
    """

    name: str
    kind: str
    default: object
    help: str
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    choices: object = ()
    optional: bool = False
    by: MappingProxyType | None = None
    flag: str | None = None
    grid: str | None = None
    certificate: str | None = None
    cli_default: object = None

    def names(self) -> tuple[str, ...]:
        """The valid choices now (a registry is read each time)."""
        return tuple(self.choices() if callable(self.choices) else self.choices)

    @property
    def expected(self) -> str:
        """What a valid value is, in words (the end of every refusal)."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.names())
        if self.kind == "flag":
            return "True or False"
        if self.kind in ("int", "prime"):
            what = "a prime" if self.kind == "prime" else "an integer"
            if self.hi is None:
                return f"{what} >= {_bound(self.lo)}"
            return f"{what} in [{_bound(self.lo)}, {_bound(self.hi)}]"
        if self.hi is None:
            return f"a finite number {'>' if self.lo_open else '>='} {_bound(self.lo)}"
        return f"a number in {'(' if self.lo_open else '['}{_bound(self.lo)}, {_bound(self.hi)}]"

    def ok(self, v) -> bool:
        """Whether ``v`` is a valid value of this row (None only where optional)."""
        if v is None:
            return self.optional
        if self.kind == "choice":
            return isinstance(v, str) and v in self.names()
        if self.kind == "flag":
            return isinstance(v, (bool, np.bool_)) or (_is_int(v) and v in (0, 1))
        if self.kind in ("int", "prime"):
            hi = MAX_INT if self.hi is None else self.hi
            return _is_int(v) and self.lo <= v <= hi and (self.kind == "int" or is_prime(int(v)))
        if not _is_real(v) or not math.isfinite(v):
            return False
        return (v > self.lo if self.lo_open else v >= self.lo) and (self.hi is None or v <= self.hi)

    def refusal(self, v) -> str:
        """The one-line message refusing ``v``."""
        return f"{self.name}={v!r:.60} must be {self.expected}"


def _row(name, kind, default, help, **kw) -> Parameter:
    if "by" in kw:
        kw["by"] = MappingProxyType(dict(kw["by"]))
    return Parameter(name, kind, default, help, **kw)


_ROWS = (
    _row("method", "choice", "modular", "auto: modular for a polynomial network, float for "
         "one that is not, e.g. softmax-attention", choices=METHODS, flag="--method",
         grid="methods", cli_default="auto"),
    _row("seed", "int", 0, "draws the weights and sample points (same seed, same answer)",
         lo=0, hi=MAX_INT, flag="--seed", grid="seeds", certificate="seed"),
    _row("max_samples", "int", None,
         f"largest grid side (default {MAX_SAMPLES_BY['modular']} modular, "
         + "".join(f"{v} per {k} block, " for k, v in MAX_SAMPLES_BY.items()
                   if k not in METHODS)  # a strategy's own budget
         + f"{MAX_SAMPLES_BY['float']} float); the sample grows "
         f"x{_strategies.Strategy.growth:g} until the rank stops below the sample "
         "size or this is hit", lo=2, hi=MAX_SIDE, optional=True, by=MAX_SAMPLES_BY,
         flag="--max-samples", grid="max_samples"),
    _row("sampler", "choice", "auto", "auto: alphabet for a network on tokens, i.e. the "
         "complete grid over its vocabulary; else random", choices=SAMPLERS, flag="--sampler"),
    _row("prime", "prime", None, f"modulus for --method modular (default: {DEFAULT_PRIME}, "
         "below 2**26; for a class seprank does not ship or given weights, drawn at random "
         "in [2**25, 2**26) so that the saturation bound covers their constants)", lo=2,
         hi=MAX_MODULUS, optional=True, by={"modular": DEFAULT_PRIME},
         flag="--prime", grid="primes", certificate="prime"),
    _row("tol", "real", None, "SVD tolerance for float (default: numpy's rule, reported)",
         lo=0.0, optional=True),
    _row("growth", "real", None, "sample growth factor per adaptive step", lo=1.0,
         lo_open=True, optional=True, by=GROWTH_BY),
    _row("rank_engine", "choice", "auto", "exact GF(p) rank engine (they agree)",
         choices=lambda: _rank.RANK_ENGINES, flag="--rank-engine"),
    _row("strategy", "choice", "auto", "graded ranks one matrix per A-side degree of a "
         "homogeneous f; catalecticant ranks the blocks from the structural polynomial's "
         "coefficients (a declared structural form, >= width positions a side); expand (only "
         "when asked) ranks f's coefficients, expanded from apply, exactly over Q (--method "
         "symbolic) or GF(p); sketch (only when asked) ranks random sketches of the "
         "catalecticant blocks built from evaluations of that polynomial, at a cost in their "
         "ranks (max_samples caps the sketches); auto: the first registered strategy that "
         "applies (catalecticant where it applies and fits, else graded when f is homogeneous, "
         "else direct)",
         choices=_strategies.names, flag="--strategy", grid="strategies"),
    _row("incremental", "flag", True, "extend one elimination as the sample grows"),
    _row("device", "choice", "cpu", "cuda ranks with torch on a GPU (opt-in; never required)",
         choices=lambda: _rank.DEVICES, flag="--device"),
    _row("saturation_threshold", "real", DEFAULT_THRESHOLD, "call a rank saturated only when "
         "the Schwartz-Zippel bound on a false saturation is at most this", lo=0.0, hi=1.0,
         flag="--saturation-threshold"),
    _row("start", "int", 16, "first sample size of the adaptive loop", lo=2, hi=MAX_SIDE),
    _row("chunk", "int", DEFAULT_CHUNK, "network evaluations per vectorised batch", lo=1,
         hi=MAX_INT),
    _row("use_kernel", "flag", True, "use the compiled GF(p) kernel where it applies"),
)
#: The table: name -> Parameter, in MeasureOptions' field order.
PARAMETERS = MappingProxyType({r.name: r for r in _ROWS})


def row(name: str) -> Parameter:
    """The row of ``name`` (KeyError for a name that is not a parameter)."""
    return PARAMETERS[name]


def default(name: str, key: str | None = None):
    """The default of ``name``; with ``key`` (a method or strategy), its ``by`` default."""
    r = PARAMETERS[name]
    return r.default if key is None else r.by[key]


def validate(name: str, value, required: bool = False):
    """``value`` if it is a valid ``name`` (a flag as a bool), else the row's error
    (DomainError for the prime, ConfigError otherwise) with :meth:`Parameter.refusal`.
    ``required``: None is refused too (a value recorded, e.g. a certificate's prime)."""
    r = PARAMETERS[name]
    if not r.ok(value) or (required and value is None):
        raise (DomainError if r.kind == "prime" else ConfigError)(r.refusal(value))
    return bool(value) if r.kind == "flag" else value


def parse(name: str, text: str):
    """A command-line string as a valid ``name`` (ConfigError or DomainError refusing the
    text as written when it is not a number of the row's kind)."""
    r = PARAMETERS[name]
    t = text.strip()
    if r.kind in ("int", "prime"):
        hi = MAX_INT if r.hi is None else r.hi
        digits = t.lstrip("+-")
        if not (digits.isascii() and digits.isdigit()) or len(digits) > len(str(hi)):
            return validate(name, text)
        return validate(name, int(t))
    if r.kind == "real":
        try:
            v = float(t)
        except ValueError:
            v = text
        return validate(name, v)
    if r.kind == "flag":
        return validate(name, {"true": True, "false": False}.get(t.lower(), text))
    return validate(name, text)

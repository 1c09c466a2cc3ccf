"""The architecture protocol: what seprank needs of a network to measure its separation rank.

An architecture is a **frozen config** (a frozen dataclass: hashable, printable, its fields
are its parameters) with two methods and two attributes:

- ``seq_len`` (int): the number of positions N (tokens, time steps, pixels, vertices);
  partitions are subsets of ``range(seq_len)``;
- ``width`` (int): the input dimension per position (a property is fine, e.g. returning
  ``in_dim``); inputs are arrays ``X`` of shape ``(batch, seq_len, width)``. An
  architecture whose ``width`` means something else (the model width of a network on
  one-hot tokens) defines ``input_dim`` instead, and seprank reads that
  (:func:`input_dim`);
- ``init(rng, domain) -> params``: draw the weights with ``domain.random(rng, shape)``
  (any structure of arrays; a dict of arrays lets ``measure(weights=...)`` pass given
  weights to every engine: the same keys and shapes, each value an int, a Fraction or an
  exact float, converted exactly or refused naming the key);
- ``apply(params, X, domain) -> f``: the scalar outputs, shape ``(batch,)`` (or
  ``(batch, 1)``), written in **plain numpy**; row i of the output is f at row i of ``X``
  alone (the one-row protocol: seprank checks it before measuring a class it does not
  ship, by permuting and halving a batch, and refuses code that mixes the batch axis).
  seprank hands ``apply`` its inputs and weights as the domain's arrays
  (:meth:`seprank.algebra.domains.Domain.wrap`): field arrays under ModP, on which
  ``+ - * @``, ``** k``, ``np.einsum`` (any operand count),
  ``sum``/``mean``/``prod``/``cumsum``, broadcasting, indexing, ``concatenate``/``stack``,
  ``transpose``/``reshape``, ``np.tril``/``np.triu`` and integer or exact-rational
  constants are exact in GF(p) (a nonzero constant that is a multiple of p is refused:
  it would be 0 there); float64 arrays under Float64; polynomials under Symbolic.
  An operation with no exact meaning raises DomainError naming it, and an output that is
  not the domain's array (after a cast, or from torch code) is refused
  (:mod:`seprank.engine.evaluate`). The older domain operations (``domain.einsum`` of two
  operands, ``domain.add``, ``domain.mul``, ``domain.from_ints``) keep working;
  ``domain.constant(values)`` makes the domain's array of any constants.

Optional declarations (seprank checks them; it never takes one on trust):

- ``degree`` (int or None): total degree of f in the inputs;
- ``homogeneous`` (bool): f(tX) = t^degree f(X). Declared homogeneous nets are checked
  at random points (a wrong declaration is a ConfigError); undeclared ones are probed by
  interpolation. Homogeneous nets are measured by the graded strategy (one exact rank per
  A-side degree), others by the direct one;
- ``polynomial`` (bool, default True): False for a net that is not a polynomial in its
  inputs (softmax, ReLU...). Such a net is **measured by the float engine only**:
  ``measure(method="auto")`` picks ``float`` and says so in the result, and
  ``method="modular"`` or ``"symbolic"`` is refused in one line (naming
  ``polynomial_reason``, a str, where the architecture gives one);
- ``alphabet(domain) -> array (M, width)``: the net reads discrete inputs (tokens, one-hot
  vectors). Its function is then a tensor with M^N entries, and seprank measures that
  tensor: the full grid over the alphabet (the classic grid tensor with the alphabet as
  templates), ranked exactly, instead of random points;
- ``query_position`` (int): where a per-position output is read (used by bounds).

**Exactly measurable** means: ``apply`` is a polynomial in the inputs with weights from
``init``, written with the operations above, so the same code runs in ``ModP`` (exact rank
over GF(p): a certified lower bound), ``Symbolic`` (exact expansion, tiny cases) and
``Float64``. Nothing else is required: no gradient, no torch.

The registry :data:`seprank.nets.ARCHITECTURES` maps a CLI name to its class; the class
docstring's first line is its description and its dataclass fields (with their type
annotations: ``int``, ``bool`` (0/1), ``tuple[int, ...]`` (comma list) or the graph type
``Edges``) are the parameters ``seprank measure --arch NAME --param KEY=VALUE`` accepts.
A class outside the registry is named ``--arch module:Class`` or by an entry point
(:mod:`seprank.nets.registry`). Its own upper bound, if any: a method
``upper_bound(partition) -> Bound | None`` (:class:`seprank.nets.bound.Bound`: the value,
where it comes from and its status; None: none known for that partition), read by
``seprank.upper_bound``, ``seprank bounds``, ``seprank certify`` and ``measure`` (the
older ``upper_bound(partition) -> (bound, source)``, an int and where it comes from, still
works: deprecated, read as status ``architecture``). A status other than ``proved`` is not
a proof, so a certified rank that meets it is "exact, given the architecture's stated
bound (SOURCE)" (or the recalled one), never "exact, proved": that takes a proof in
proofs/, and a theorem of :mod:`seprank.theory` the class declares (``bound_theorem``,
:func:`seprank.nets.bound.theorem_of`); a method's Bound of status proved is refused.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, runtime_checkable

import numpy as np

from seprank.errors import ConfigError

#: The type of a graph's edge list: ((a, b), ...); the CLI reads it as ``0-1,1-2``.
Edges = tuple[tuple[int, int], ...]


# a Protocol has no constructor: its *args, **kwargs are not parameters to document
@runtime_checkable
class Architecture(Protocol):  # numpydoc ignore=PR01
    """The protocol every architecture implements (see the module docstring).

    A frozen dataclass whose fields are its config, with ``seq_len`` (positions N) and
    ``width`` (features per position), ``init`` and ``apply``. Optional declarations
    (``degree``, ``homogeneous``, ``polynomial``, ``upper_bound(partition)``...) are read
    where present.
    """

    seq_len: int
    width: int

    def init(self, rng: np.random.Generator, domain) -> Any:
        """Draw fresh weights.

        Parameters
        ----------
        rng : numpy.random.Generator
            The random source (seeded by the caller).
        domain : Domain
            The number system; weights come from ``domain.random``.

        Returns
        -------
        object
            The weights (any structure of arrays that ``apply`` reads).
        """
        ...

    def apply(self, params: Any, X: np.ndarray, domain) -> np.ndarray:
        """Evaluate the network's scalar output on a batch of inputs.

        Parameters
        ----------
        params : object
            Weights from :meth:`init`.
        X : numpy.ndarray
            Inputs of shape (batch, seq_len, width), arrays of ``domain``.
        domain : Domain
            The number system the arithmetic runs in.

        Returns
        -------
        numpy.ndarray
            The outputs, shape (batch,).
        """
        ...


def config_of(net) -> dict:
    """A JSON-friendly dict of an architecture's config.

    The config is its dataclass fields; a field with ``init=False``, such as a traced torch
    module, is state, not config.

    Parameters
    ----------
    net : object
        The architecture instance (a dataclass, or any object: then its ``vars``).

    Returns
    -------
    dict
        The config fields, and ``architecture``: the class name.

    Examples
    --------
    >>> from seprank.nets import RAC
    >>> config_of(RAC(seq_len=4, in_dim=2, hidden=3))
    {'seq_len': 4, 'in_dim': 2, 'hidden': 3, 'depth': 1, 'architecture': 'RAC'}
    """
    from dataclasses import asdict, fields, is_dataclass

    if not is_dataclass(net):
        d = dict(vars(net))
    elif all(f.init for f in fields(net)):
        d = asdict(net)
    else:  # asdict would deep-copy the state fields too
        d = {f.name: getattr(net, f.name) for f in fields(net) if f.init}
    d["architecture"] = type(net).__name__
    return d


class Multilinear:
    """Mixin: f is linear in each position's input, so homogeneous of degree seq_len."""

    @property
    def degree(self) -> int:
        return self.seq_len

    @property
    def homogeneous(self) -> bool:
        return True


def check_int(name: str, value, lo: int) -> None:
    """ConfigError unless ``value`` is an int (not a bool) and >= ``lo``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError(f"{name}={value!r} must be an integer")
    if value < lo:
        raise ConfigError(f"{name}={value} must be >= {lo}")


def check_flag(name: str, value) -> None:
    if not isinstance(value, (bool, np.bool_)) and not (
            isinstance(value, (int, np.integer)) and value in (0, 1)):
        raise ConfigError(f"{name}={value!r} must be 0 or 1")


def input_dim(net) -> int:
    """The input dimension per position: ``net.input_dim`` if defined, else ``net.width``."""
    return int(getattr(net, "input_dim", None) or net.width)


def is_polynomial(net) -> bool:
    """Whether ``net`` declares itself a polynomial (the default) or not."""
    return bool(getattr(net, "polynomial", True))


# ------------------------------------------------------------------- parameters (for the CLI)
def _kind(type_str) -> str:
    """The CLI kind of a field's annotation: a string (``from __future__ import
    annotations``) or the type itself (a user's module without it)."""
    t = type_str.__name__ if isinstance(type_str, type) else str(type_str)
    t = t.replace(" ", "").replace("typing.", "")
    if t == "tuple[tuple[int,int],...]":
        return "edges"
    if t in ("int", "numbers.Integral"):
        return "int"
    if t == "bool":
        return "flag"
    if t in ("tuple[int,...]", "Tuple[int,...]"):
        return "ints"
    if t == "Edges":
        return "edges"
    if t in ("int|None", "Optional[int]"):
        return "int-or-none"
    return "str"


KIND_HELP = {
    "int": "integer",
    "flag": "0 or 1",
    "ints": "comma list of integers, e.g. 2,4",
    "edges": "edges as a-b pairs, e.g. 0-1,1-2,2-3",
    "int-or-none": "integer, or 'none'",
    "str": "text",
}


def param_specs(cls) -> list[dict]:
    """The parameters of an architecture class: name, kind, default (None if required)."""
    if not dataclasses.is_dataclass(cls):
        raise ConfigError(f"{cls.__name__} is not a dataclass: its parameters (--param, grid "
                          "[params]) are its dataclass fields")
    out = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:  # pragma: no cover
            default = f.default_factory()
        else:
            default = None
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append({"name": f.name, "kind": _kind(f.type), "default": default,
                    "required": required, "help": f.metadata.get("help", "")})
    return out


def parse_edges(text) -> tuple[tuple[int, int], ...]:
    """``"0-1,1-2"`` (or pairs) -> ((0, 1), (1, 2)); ConfigError naming ``edges``."""
    if isinstance(text, str):
        try:
            pairs = [tuple(int(v) for v in e.split("-")) for e in text.split(",") if e.strip()]
        except ValueError:
            raise ConfigError(f"edges={text!r} must be a-b pairs such as 0-1,1-2") from None
    else:
        pairs = [tuple(e) for e in text]
    if any(len(p) != 2 for p in pairs):
        raise ConfigError(f"edges={text!r} must be a-b pairs such as 0-1,1-2")
    return tuple((int(a), int(b)) for a, b in pairs)


def parse_value(kind: str, key: str, text: str):
    """Convert one ``--param KEY=VALUE`` value; ConfigError naming ``key`` if it fails."""
    try:
        if kind == "int":
            return int(text)
        if kind == "flag":
            if text not in ("0", "1"):
                raise ValueError
            return text == "1"
        if kind == "ints":
            return tuple(int(v) for v in text.split(",") if v.strip())
        if kind == "edges":
            return parse_edges(text)
        if kind == "int-or-none":
            return None if text.lower() in ("none", "graph", "") else int(text)
    except ValueError:
        raise ConfigError(f"{key}={text!r}: expected {KIND_HELP[kind]}") from None
    return text


def build(cls, pairs, name: str | None = None):
    """Instantiate ``cls`` from ``KEY=VALUE`` strings (the CLI's ``--param``), validated."""
    specs = {s["name"]: s for s in param_specs(cls)}
    label = name or cls.__name__
    kw = {}
    for item in pairs or ():
        if "=" not in item:
            raise ConfigError(f"param={item!r} must be KEY=VALUE")
        key, _, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if key not in specs:
            raise ConfigError(f"param {key!r} is not a parameter of {label}; valid: "
                              f"{', '.join(specs)}")
        kw[key] = parse_value(specs[key]["kind"], key, text.strip())
    missing = [k for k, s in specs.items() if s["required"] and k not in kw]
    if missing:
        raise ConfigError(f"param {missing[0]!r} is required for {label} (--param "
                          f"{missing[0]}=...); parameters: {', '.join(specs)}")
    return cls(**kw)


def describe(cls) -> str:
    """The first line of the class docstring."""
    return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

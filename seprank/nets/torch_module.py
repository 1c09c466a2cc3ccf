"""``from_torch``: a torch ``nn.Module`` as a seprank architecture.

::

    net = seprank.from_torch(module, seq_len=4, width=2)   # reads y[:, 0, 0]
    seprank.measure(net).rank

The module's ``forward`` takes one tensor of shape ``(batch, seq_len, width)``. It is
traced once with torch.fx, with concrete shapes and its in-place operations rewritten out
of place (:mod:`seprank.nets.torch_trace`); ``init`` draws fresh weights for every
*trainable* parameter (``requires_grad=True``) with ``domain.random`` (a dict keyed by the
parameter's qualified name, e.g. ``layers.0.q.weight``, so ``measure(weights=...)`` and the
certificates' weight digests work). Frozen parameters (``requires_grad=False``) and buffers
are the module's **constants**: kept as they are, converted exactly to the domain (each
float32 or float64 entry is the exact binary fraction it holds, read as it is; a non-finite
entry is refused by the exact engines, naming the tensor); ``draw="all"`` draws every
floating-point parameter and buffer instead. ``measure_note`` lists what was drawn and what
was kept, and the measurement's ``strategy_reason`` carries it. ``apply`` interprets the
graph with numpy operations on the arrays the domain hands it
(:mod:`seprank.nets.torch_graph`), so the exact engines (GF(p), symbolic) measure the
module itself, not a float approximation of it. At trace time, always, the eager module,
the traced graph (run by torch) and seprank's Float64 interpretation are run at two random
inputs with drawn weights and must agree (:mod:`seprank.nets.torch_check`), or the module
is refused.

**Why torch.fx and not torch.export.** fx gives a Python-level graph whose nodes are the
module's own submodules (``nn.Linear``, ``nn.Conv1d``), torch functions and tensor
methods, with their Python arguments: exactly the level at which each node maps to one
numpy operation, and which numpy can interpret without running torch on the values. It
runs on CPU with no compile step and no example input. torch.export lowers to ATen
operators (``aten.mm``, ``aten.view``, decomposed linears), needs example inputs and a
dynamic-shape specification for the batch axis, and goes through a heavier compile
pipeline, for no gain here.

**What fx cannot trace**: data-dependent control flow (``if x.sum() > 0:``, a loop whose
length depends on values) and Python numbers taken from the batch size. Such a module is
refused in one line (a ConfigError naming the source line and a fix). Loops and branches
on Python values (depth, head counts, ``self.training``, ``range(x.size(1))``) are fine:
they are unrolled at trace time (in evaluation mode).

**Non-polynomial graphs.** A graph with an operation that is not a polynomial (softmax,
relu, gelu, tanh, sigmoid, exp, layer_norm, a comparison, division by a computed tensor,
``where`` with a computed condition, ...) makes a
non-polynomial architecture (``polynomial = False``, ``polynomial_reason`` names the
operation and the node): in ``Float64``, ``apply`` runs the module's own forward in
float64 torch with the drawn weights loaded; in an exact domain it raises DomainError with
that reason, so only the float engine measures it. An operation the interpreter does not
know is worded apart (``polynomial_unknown = True``: "not supported by seprank's torch
interpreter", the module may well be a polynomial): ``method="auto"`` then refuses
rather than hand it to the float engine unannounced; ``method="float"`` measures it, and
its float rank is "float estimate, untrusted" (``polynomial`` None in the result: unknown),
never the non-polynomial's label. ``where`` with a constant condition, division by a
constant, BatchNorm in evaluation mode (the modules, and ``F.batch_norm`` with
``training=False`` and given running statistics: an affine map, its scale
1/sqrt(var + eps) computed in float64 as torch computes it, read exactly) and grouped
convolutions are computed
exactly.

**Modes and arguments.** The module is traced and measured in evaluation mode (a module
left in train mode is said so in ``measure_note``); ``forward``'s arguments after the
input are used at their defaults (said in ``measure_note``; one without a default is
refused in one line).

**Config.** Built from a factory path (``"mymod:make"``, a function returning the module,
importable from PYTHONPATH), the config ``(factory, seq_len, width, position,
coordinate, draw)`` rebuilds the architecture (``TorchModule(**config)``: sweeps,
certificates, ``seprank measure|certify|blocks --torch mymod:make``). Built from a module
object, the config records ``factory=None`` and cannot be rebuilt from text.
"""

from __future__ import annotations

import copy
import importlib
import inspect
from dataclasses import dataclass, field

import numpy as np

from seprank.errors import ConfigError, DomainError
from seprank.nets.base import check_int
from seprank.nets.torch_check import check_trace, inexact_constant
from seprank.nets.torch_graph import classify, run
from seprank.nets.torch_ops import NumpyArith
from seprank.nets.torch_trace import exception_line, float64, functionalise, make_tracer

#: What ``draw`` may say: the trainable parameters only, or every floating-point tensor.
DRAWS = ("trainable", "all")


@dataclass(frozen=True)
class Traced:
    """What tracing found: the float64 working copy of the module, its fx graph, the live
    nodes, tensor names (each alias -> its canonical name), the drawn tensors' shapes, the
    kept ones (name, kind), why the graph is not a polynomial (None if it is) and whether
    that is an operation seprank does not know (``unknown``), and the first kept constant
    with no exact value (None if none)."""

    work: object
    gm: object
    live: frozenset
    alias: dict
    shapes: tuple
    reason: str | None
    output_fn: object = None
    kept: tuple = ()
    unknown: bool = False
    inexact: str | None = None
    #: forward's optional arguments (name, default), at their defaults in every call.
    defaults: tuple = ()
    #: Whether the module was in train mode (it is traced and measured in eval mode).
    was_training: bool = False


@dataclass(frozen=True, eq=False)
class TorchModule:
    """A torch nn.Module traced with torch.fx (seprank.from_torch; --torch module:factory).

    Built from a factory path here, or from a module object by :func:`from_torch`; the
    traced module and its graph are state (``module``, ``traced``), not config.

    Parameters
    ----------
    factory : str or None
        ``module:function`` returning the nn.Module (None only when built by
        :func:`from_torch` from a module object).
    seq_len : int
        Sequence length N: inputs have shape (batch, N, width).
    width : int
        Input features per position.
    position : int or None, default 0
        Output position read.
    coordinate : int or None, default 0
        Output coordinate read.
    draw : {"trainable", "all"}, default "trainable"
        Which tensors ``init`` draws at random: the trainable parameters (frozen ones and
        buffers are kept as the module's constants), or every floating-point parameter
        and buffer.
    kwargs : tuple of (str, object), default ()
        Keyword arguments the factory is called with (a study's varied keys).

    Raises
    ------
    ConfigError
        If ``factory`` is None or cannot be loaded, or a size or read position is invalid.
    """

    factory: str | None = field(metadata={"help": "module:function returning the nn.Module"})
    seq_len: int = field(metadata={"help": "sequence length N: inputs (batch, N, width)"})
    width: int = field(metadata={"help": "input features per position"})
    position: int | None = field(default=0, metadata={"help": "output position read"})
    coordinate: int | None = field(default=0, metadata={"help": "output coordinate read"})
    draw: str = field(default="trainable", metadata={
        "help": "trainable: draw requires_grad parameters, keep frozen ones and buffers; "
                "all: draw every floating-point tensor"})
    kwargs: tuple = field(default=(), metadata={
        "help": "(name, value) pairs the factory is called with (seprank study)"})
    module: object = field(default=None, init=False, compare=False, repr=False)
    traced: Traced = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self):
        if self.factory is None:
            raise ConfigError("factory=None: build it from a module object with "
                              "seprank.from_torch(module, seq_len=N, width=d)")
        self._setup(load_factory(self.factory, self.kwargs), None)

    def _key(self):
        own = id(self.module) if self.factory is None else None
        return (self.factory, self.seq_len, self.width, self.position, self.coordinate,
                self.draw, tuple(map(tuple, self.kwargs)), own)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _setup(self, module, output_fn) -> None:
        check_int("seq_len", self.seq_len, 2)
        check_int("width", self.width, 1)
        if output_fn is None:
            check_int("position", self.position, 0)
            check_int("coordinate", self.coordinate, 0)
            if self.position >= self.seq_len:
                raise ConfigError(f"position={self.position} must be < seq_len={self.seq_len}")
        if self.draw not in DRAWS:
            raise ConfigError(f"draw={self.draw!r} must be one of {', '.join(DRAWS)}")
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "traced", trace(module, output_fn, self.seq_len, self.width,
                                                 self.draw))
        self._check_output()
        check_trace(self)

    # ------------------------------------------------------------------ declarations
    @property
    def polynomial(self) -> bool:
        """False when the graph has an operation the exact engines cannot compute."""
        return self.traced.reason is None

    @property
    def polynomial_reason(self) -> str | None:
        """Which operation at which node makes the net not a polynomial (None if it is)."""
        return self.traced.reason

    @property
    def polynomial_unknown(self) -> bool:
        """True when the graph has an operation seprank's interpreter does not support: the
        module may be a polynomial, seprank cannot tell (auto refuses the float engine)."""
        return self.traced.unknown

    @property
    def measure_note(self) -> str:
        """Which tensors a measurement draws at random and which it keeps as constants."""
        t = self.traced
        drawn = ", ".join(n for n, _ in t.shapes) or "none"
        note = ("the module was in train mode: measured in eval mode (module.eval(): dropout "
                "off, BatchNorm's running statistics); " if t.was_training else "")
        note += f"from_torch drew at random (draw={self.draw!r}): {drawn}"
        if t.kept:
            kept = ", ".join(f"{n} ({k})" for n, k in t.kept)
            note += f"; kept as the module's constants: {kept}"
        if t.defaults:
            note += "; forward's optional arguments at their defaults: " + ", ".join(
                f"{k}={v!r}" for k, v in t.defaults)
        return note

    # ------------------------------------------------------------------ protocol
    def init(self, rng: np.random.Generator, domain) -> dict:
        """Fresh weights for every drawn tensor (see ``draw``), keyed by its qualified name."""
        return {name: domain.random(rng, shape) for name, shape in self.traced.shapes}

    def apply(self, params: dict, X, domain):
        """The scalar read of the module's output, shape (batch,)."""
        t = self.traced
        if t.reason is not None:
            if domain.name == "float64":
                return self._read(self._forward(params, X))
            raise DomainError(t.reason)
        if t.inexact is not None and domain.name not in ("float64", "degree"):  # exact ones
            raise DomainError(t.inexact)
        # the domain's arrays (field arrays for ModP), also when called with plain ones
        X, params = domain.wrap(X), domain.wrap(params)
        ar = NumpyArith(domain)
        return self._read(run(t.gm, t.live, X, params, t.alias, ar))

    def _read(self, out):
        if self.traced.output_fn is not None:
            return self.traced.output_fn(out)
        return out[:, self.position, self.coordinate]

    def _forward(self, params: dict, X, module=None):
        """The module's own forward in float64 torch (or ``module``'s: the traced graph),
        with ``params`` loaded into the drawn tensors."""
        import torch

        work = self.traced.work
        with torch.no_grad(), float64():
            for name, p in list(work.named_parameters()) + list(work.named_buffers()):
                if name in params:
                    p.copy_(torch.as_tensor(np.asarray(params[name], dtype=np.float64)))
            run_it = work if module is None else module
            # a copy: an in-place write to the input (x.mul_(2)) must not reach the caller's X
            return to_numpy(run_it(torch.tensor(np.asarray(X, dtype=np.float64))))

    def _check_output(self) -> None:
        """Run the forward once on zeros: the module takes (batch, seq_len, width) and the
        output read is one scalar per input."""
        import torch

        X = np.zeros((2, self.seq_len, self.width))
        try:
            with torch.no_grad(), float64():
                out = to_numpy(self.traced.work(torch.as_tensor(X)))
        except Exception as exc:
            raise ConfigError(
                f"the module does not run on inputs of shape (batch, seq_len="
                f"{self.seq_len}, width={self.width}): {type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}"
            ) from None
        if self.traced.output_fn is None:
            if not isinstance(out, np.ndarray) or out.ndim != 3 or \
                    out.shape[1] <= self.position or out.shape[2] <= self.coordinate:
                got = out.shape if isinstance(out, np.ndarray) else type(out).__name__
                raise ConfigError(f"output=({self.position}, {self.coordinate}) reads a "
                                  f"(batch, seq_len, features) output; the module returns "
                                  f"{got}: pass output=callable")
            return
        got = np.shape(self.traced.output_fn(out))
        if got != (2,):
            raise ConfigError(f"output: the callable must return shape (batch,), got {got} "
                              f"for batch 2")


def to_numpy(out):
    """A torch output (tensor, or tuple/list/dict of them) as numpy arrays."""
    if hasattr(out, "detach"):
        return out.detach().cpu().numpy()
    if isinstance(out, (tuple, list)):
        return type(out)(to_numpy(o) for o in out)
    if isinstance(out, dict):
        return {k: to_numpy(v) for k, v in out.items()}
    return out


def load_callable(path: str):
    """The function ``module:function`` names (imported, not called)."""
    if not isinstance(path, str) or path.count(":") != 1 or not all(path.split(":")):
        raise ConfigError(f"factory={path!r} must be module:function, e.g. mymod:make_net")
    mod_name, fn_name = path.split(":")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ConfigError(f"factory={path!r}: cannot import {mod_name!r} ({exc}); is its "
                          f"folder on PYTHONPATH?") from None
    fn = mod
    for part in fn_name.split("."):
        fn = getattr(fn, part, None)
    if not callable(fn):
        raise ConfigError(f"factory={path!r}: {mod_name} has no function {fn_name!r}")
    return fn


def load_factory(path: str, kwargs=()):
    """The module ``module:function`` returns, called with ``kwargs`` ((name, value) pairs;
    none by default)."""
    if not isinstance(kwargs, (tuple, list)) or not all(
            isinstance(kv, (tuple, list)) and len(kv) == 2 and isinstance(kv[0], str)
            for kv in kwargs):
        raise ConfigError(f"kwargs={kwargs!r} must be (name, value) pairs")
    fn = load_callable(path)
    try:
        return fn(**dict(kwargs))
    except TypeError as exc:
        if not kwargs:
            raise
        raise ConfigError(f"factory={path!r} called with {dict(kwargs)}: {exc}") from None


def trace(module, output_fn=None, seq_len: int = 2, width: int = 1,
          draw: str = "trainable") -> Traced:
    """Trace ``module`` (a float64, evaluation-mode deep copy) with torch.fx, shapes
    concrete (seq_len, width) and in-place operations rewritten out of place."""
    try:
        import torch
        from torch import fx
    except ImportError:
        raise ConfigError("from_torch needs torch: pip install 'seprank[torch]'") from None

    if not isinstance(module, torch.nn.Module):
        raise ConfigError(f"module={type(module).__name__}: from_torch needs a torch.nn.Module")
    name = type(module).__name__
    try:
        work = copy.deepcopy(module).double().eval()
        alias, drawn, kept = _tensors(work, draw)
        names = {a for a, c in alias.items() if c in dict(drawn)}
        tracer = make_tracer(work, seq_len, width, names)
        defaults = _optional_arguments(work)
        with float64():
            graph = tracer.trace(work, concrete_args=defaults or None)
            gm = fx.GraphModule(tracer.root, graph, name)
        functionalise(gm)
    except ConfigError as exc:
        raise ConfigError(f"module={name}: {exc}") from None
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        line = exception_line(exc)
        at = f" at {line}" if line else ""
        raise ConfigError(f"module={name}: torch.fx cannot trace it{at}: "
                          f"{type(exc).__name__}: {first}; fix: write that line with torch "
                          "operations on tensors (Python numbers from x.size() or x.shape "
                          "are fine)") from None
    shapes = tuple((n, tuple(t.shape)) for n, t in drawn)
    live, reason = classify(gm, names)
    used = {alias.get(n.target) for n in gm.graph.nodes if n.op == "get_attr"}
    inexact = inexact_constant([(n, k, _tensor(work, n)) for n, k in kept if n in used])
    return Traced(work=work, gm=gm, live=frozenset(live), alias=alias, shapes=shapes,
                  reason=reason, output_fn=output_fn, kept=tuple(kept),
                  unknown=reason is not None and "not supported" in reason,
                  inexact=inexact, defaults=tuple(defaults.items()),
                  was_training=bool(module.training))


def _optional_arguments(work) -> dict:
    """forward's arguments after the input, each at its default (seprank calls forward
    with the input alone); ConfigError naming one that has no default."""
    try:
        sig = inspect.signature(work.forward)
    except (TypeError, ValueError):  # pragma: no cover - a builtin forward
        return {}
    rest = [p for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)][1:]
    missing = [p.name for p in rest if p.default is inspect.Parameter.empty]
    if missing:
        raise ConfigError(f"forward's argument {missing[0]!r} has no default: seprank calls "
                          "forward with the input tensor alone (give it a default, or wrap "
                          "the module)")
    return {p.name: p.default for p in rest}


def _tensor(work, name: str):
    obj = work
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _tensors(work, draw: str):
    """(alias -> canonical name, [(name, tensor) drawn], [(name, kind) kept]) over the
    module's parameters and buffers."""
    canonical: dict[int, str] = {}
    alias = {}
    named = [(n, t, "parameter") for n, t in work.named_parameters(remove_duplicate=False)]
    named += [(n, t, "buffer") for n, t in work.named_buffers(remove_duplicate=False)]
    drawn, kept = [], []
    for n, t, kind in named:
        alias[n] = canonical.setdefault(id(t), n)
        if alias[n] != n:
            continue
        if kind == "parameter" and t.requires_grad or draw == "all" and t.is_floating_point():
            drawn.append((n, t))
        else:
            kept.append((n, kind if kind == "buffer" else "parameter, requires_grad=False"))
    return alias, drawn, kept


def from_torch(module, *, seq_len: int, width: int, output=(0, 0),
               draw: str = "trainable") -> TorchModule:
    r"""The architecture of a torch ``nn.Module`` (see the module docstring).

    Parameters
    ----------
    module : torch.nn.Module
        The model, traced with torch.fx (torch is imported only here).
    seq_len : int
        Sequence length :math:`N \ge 2`: the module is called on inputs
        ``(batch, seq_len, width)``.
    width : int
        Input features per position (at least 1).
    output : tuple of (int, int) or callable, default (0, 0)
        ``(position, coordinate)`` reads ``y[:, position, coordinate]`` of a
        ``(batch, seq_len, features)`` output; a callable takes the module's output (numpy
        arrays, in the domain's arithmetic) and returns shape (batch,).
    draw : {"trainable", "all"}, default "trainable"
        ``"trainable"``: draw the parameters with ``requires_grad=True`` at random and keep
        frozen parameters and buffers as the module's constants (exactly converted);
        ``"all"``: draw every floating-point parameter and buffer.

    Returns
    -------
    TorchModule
        The architecture; measured like any other (``seprank.measure(net, A)``).

    Raises
    ------
    ConfigError
        If ``output`` is neither a pair nor a callable, a size, read position or ``draw``
        is invalid, the module cannot be traced (the message names the source line and a
        fix), or the trace-time check finds the traced graph or seprank's interpretation
        computing something else than the eager module (naming the first node where they
        part).
    """
    if callable(output):
        pos = coord = None
        fn = output
    else:
        try:
            pos, coord = output
        except (TypeError, ValueError):
            raise ConfigError(f"output={output!r} must be (position, coordinate) or a "
                              "callable") from None
        fn = None
    net = object.__new__(TorchModule)
    for k, v in (("factory", None), ("seq_len", seq_len), ("width", width), ("position", pos),
                 ("coordinate", coord), ("draw", draw)):
        object.__setattr__(net, k, v)
    net._setup(module, fn)
    return net


__all__ = ["TorchModule", "Traced", "float64", "from_torch", "load_callable", "load_factory",
           "to_numpy", "trace"]

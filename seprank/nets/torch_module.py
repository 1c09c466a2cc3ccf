"""``from_torch``: a torch ``nn.Module`` as a seprank architecture.

::

    net = seprank.from_torch(module, seq_len=4, width=2)   # reads y[:, 0, 0]
    seprank.measure(net).rank

The module's ``forward`` takes one tensor of shape ``(batch, seq_len, width)``. It is
traced once with ``torch.fx.symbolic_trace``; ``init`` draws fresh weights for every
parameter with ``domain.random`` (a dict keyed by the parameter's qualified name, e.g.
``layers.0.q.weight``, so ``measure(weights=...)`` and the certificates' weight digests
work); ``apply`` interprets the graph with numpy operations on the arrays the domain
hands it (:mod:`seprank.nets.torch_graph`), so the exact engines (GF(p), symbolic) measure
the module itself, not a float approximation of it.

**Why torch.fx and not torch.export.** fx gives a Python-level graph whose nodes are the
module's own submodules (``nn.Linear``, ``nn.Conv1d``), torch functions and tensor
methods, with their Python arguments: exactly the level at which each node maps to one
numpy operation, and which numpy can interpret without running torch on the values. It
runs on CPU with no compile step and no example input. torch.export lowers to ATen
operators (``aten.mm``, ``aten.view``, decomposed linears), needs example inputs and a
dynamic-shape specification for the batch axis, and goes through a heavier compile
pipeline, for no gain here.

**What fx cannot trace**: data-dependent control flow (``if x.sum() > 0:``, a loop whose
length depends on values). Such a module is refused in one line (a ConfigError). Loops
and branches on Python values (depth, head counts, ``self.training``) are fine: they are
unrolled at trace time (in evaluation mode).

**Non-polynomial graphs.** A graph with an operation that is not a polynomial (softmax,
relu, gelu, tanh, sigmoid, exp, layer_norm, division by a tensor, ...) or one the
interpreter does not know makes a non-polynomial architecture (``polynomial = False``,
``polynomial_reason`` names the operation and the node): in ``Float64``, ``apply`` runs
the module's own forward in float64 torch with the drawn weights loaded; in an exact
domain it raises DomainError with that reason, so only the float engine measures it.

**Config.** Built from a factory path (``"mymod:make"``, a function returning the module,
importable from PYTHONPATH), the config ``(factory, seq_len, width, position,
coordinate)`` rebuilds the architecture (``TorchModule(**config)``: sweeps,
certificates, ``seprank measure --torch mymod:make``). Built from a module object, the
config records ``factory=None`` and cannot be rebuilt from text.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
from dataclasses import dataclass, field

import numpy as np

from seprank.errors import ConfigError, DomainError
from seprank.nets.base import check_int
from seprank.nets.torch_graph import classify, run
from seprank.nets.torch_ops import NumpyArith


@dataclass(frozen=True)
class Traced:
    """What tracing found: the float64 working copy of the module, its fx graph, the live
    nodes, parameter names (each alias -> its canonical name) and shapes, and why the graph
    is not a polynomial (None if it is)."""

    work: object
    gm: object
    live: frozenset
    alias: dict
    shapes: tuple
    reason: str | None
    output_fn: object = None


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
    module: object = field(default=None, init=False, compare=False, repr=False)
    traced: Traced = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self):
        if self.factory is None:
            raise ConfigError("factory=None: build it from a module object with "
                              "seprank.from_torch(module, seq_len=N, width=d)")  # fmt: skip
        self._setup(load_factory(self.factory), None)

    def _key(self):
        own = id(self.module) if self.factory is None else None
        return (self.factory, self.seq_len, self.width, self.position, self.coordinate, own)

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
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "traced", trace(module, output_fn))
        self._check_output()

    # ------------------------------------------------------------------ declarations
    @property
    def polynomial(self) -> bool:
        """False when the graph has an operation the exact engines cannot compute."""
        return self.traced.reason is None

    @property
    def polynomial_reason(self) -> str | None:
        """Which operation at which node makes the net not a polynomial (None if it is)."""
        return self.traced.reason

    # ------------------------------------------------------------------ protocol
    def init(self, rng: np.random.Generator, domain) -> dict:
        """Fresh weights for every parameter, keyed by its qualified name."""
        return {name: domain.random(rng, shape) for name, shape in self.traced.shapes}

    def apply(self, params: dict, X, domain):
        """The scalar read of the module's output, shape (batch,)."""
        t = self.traced
        if t.reason is not None:
            if domain.name == "float64":
                return self._read(self._forward(params, X))
            raise DomainError(t.reason)
        # the domain's arrays (field arrays for ModP), also when called with plain ones
        X, params = domain.wrap(X), domain.wrap(params)
        ar = NumpyArith(domain)
        return self._read(run(t.gm, t.live, X, params, t.alias, ar))

    def _read(self, out):
        if self.traced.output_fn is not None:
            return self.traced.output_fn(out)
        return out[:, self.position, self.coordinate]

    def _forward(self, params: dict, X):
        """The module's own forward in float64 torch, with ``params`` loaded."""
        import torch

        work = self.traced.work
        with torch.no_grad(), float64():
            for name, p in work.named_parameters():
                p.copy_(torch.as_tensor(np.asarray(params[name], dtype=np.float64)))
            return to_numpy(work(torch.as_tensor(np.asarray(X, dtype=np.float64))))

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
                    out.shape[1] <= self.position or out.shape[2] <= self.coordinate:  # fmt: skip
                got = out.shape if isinstance(out, np.ndarray) else type(out).__name__
                raise ConfigError(f"output=({self.position}, {self.coordinate}) reads a "
                                  f"(batch, seq_len, features) output; the module returns "
                                  f"{got}: pass output=callable")  # fmt: skip
            return
        got = np.shape(self.traced.output_fn(out))
        if got != (2,):
            raise ConfigError(f"output: the callable must return shape (batch,), got {got} "
                              f"for batch 2")  # fmt: skip


@contextlib.contextmanager
def float64():
    """torch's default dtype float64 for the duration (tensors a forward creates, e.g.
    ``torch.ones(n, n)``, then match the float64 weights)."""
    import torch

    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def to_numpy(out):
    """A torch output (tensor, or tuple/list/dict of them) as numpy arrays."""
    if hasattr(out, "detach"):
        return out.detach().cpu().numpy()
    if isinstance(out, (tuple, list)):
        return type(out)(to_numpy(o) for o in out)
    if isinstance(out, dict):
        return {k: to_numpy(v) for k, v in out.items()}
    return out


def load_factory(path: str):
    """The module ``module:function`` returns (the function is called with no argument)."""
    if not isinstance(path, str) or path.count(":") != 1 or not all(path.split(":")):
        raise ConfigError(f"factory={path!r} must be module:function, e.g. mymod:make_net")
    mod_name, fn_name = path.split(":")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ConfigError(f"factory={path!r}: cannot import {mod_name!r} ({exc}); is its "
                          f"folder on PYTHONPATH?") from None  # fmt: skip
    fn = mod
    for part in fn_name.split("."):
        fn = getattr(fn, part, None)
    if not callable(fn):
        raise ConfigError(f"factory={path!r}: {mod_name} has no function {fn_name!r}")
    return fn()


def trace(module, output_fn=None) -> Traced:
    """Trace ``module`` (a float64, evaluation-mode deep copy) with torch.fx."""
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
        with float64():
            gm = fx.symbolic_trace(work)
    except fx.proxy.TraceError as exc:
        raise ConfigError(
            f"module={name}: torch.fx cannot trace it ({exc}): data-dependent "
            "control flow is not a fixed graph; seprank needs one"
        ) from None
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ConfigError(f"module={name}: torch.fx cannot trace it: "
                          f"{type(exc).__name__}: {first}") from None  # fmt: skip
    canonical: dict[int, str] = {}
    alias = {}
    for pname, p in work.named_parameters(remove_duplicate=False):
        alias[pname] = canonical.setdefault(id(p), pname)
    shapes = tuple((n, tuple(p.shape)) for n, p in work.named_parameters())
    live, reason = classify(gm, set(alias))
    return Traced(work=work, gm=gm, live=frozenset(live), alias=alias, shapes=shapes,
                  reason=reason, output_fn=output_fn)  # fmt: skip


def from_torch(module, *, seq_len: int, width: int, output=(0, 0)) -> TorchModule:
    """The architecture of a torch ``nn.Module`` (see the module docstring).

    Parameters
    ----------
    module : torch.nn.Module
        The model, traced with torch.fx (torch is imported only here).
    seq_len : int
        Sequence length N (>= 2): the module is called on inputs (batch, seq_len, width).
    width : int
        Input features per position (>= 1).
    output : tuple of (int, int) or callable, default (0, 0)
        ``(position, coordinate)`` reads ``y[:, position, coordinate]`` of a
        ``(batch, seq_len, features)`` output; a callable takes the module's output (numpy
        arrays, in the domain's arithmetic) and returns shape (batch,).

    Returns
    -------
    TorchModule
        The architecture; measured like any other (``seprank.measure(net, A)``).

    Raises
    ------
    ConfigError
        If ``output`` is neither a pair nor a callable, a size or read position is invalid,
        or the module cannot be traced.
    """
    if callable(output):
        pos = coord = None
        fn = output
    else:
        try:
            pos, coord = output
        except (TypeError, ValueError):
            raise ConfigError(f"output={output!r} must be (position, coordinate) or a "
                              "callable") from None  # fmt: skip
        fn = None
    net = object.__new__(TorchModule)
    for k, v in (("factory", None), ("seq_len", seq_len), ("width", width), ("position", pos),
                 ("coordinate", coord)):  # fmt: skip
        object.__setattr__(net, k, v)
    net._setup(module, fn)
    return net


__all__ = ["TorchModule", "Traced", "float64", "from_torch", "load_factory", "to_numpy", "trace"]

"""Tracing for ``from_torch``: torch.fx with concrete shapes, and in-place operations undone.

**Concrete shapes.** seprank knows ``seq_len`` and ``width`` before it traces, so
the tracer (:func:`make_tracer`) runs the module alongside the trace on three example
inputs, of batch sizes 2, 3 and 5 (float64, no gradient): every proxy carries the value
its node takes on each. A Python number read off a proxy (``range(x.size(1))``,
``int(T)``, ``if x.dim() == 3:``, ``len(...)``) is that value when all three agree (it
depends on seq_len and width only), so ``T = x.size(1)``, ``x.shape[1]``, ``range(T)``
and ``mask[:T, :T]`` trace; a value that differs between them (the batch size) or that
is a tensor (the input's values: data-dependent control flow) is refused naming the
module's source line and a fix. Buffers are traced as ``get_attr`` nodes
(``proxy_buffer_attributes``), so they keep their names.

**In-place operations** (``h += g``, ``x.add_(y)``, ``x[:, 0] = y``, ``inplace=True``).
torch.fx alone records ``h += g`` as ``h = h + g`` (its proxies have no ``__iadd__``) and
leaves later readers of the old value (an alias: ``skip = h`` before ``h += g``) pointing
at the node from before the write, which is not what eager torch computes. The tracer
records the write as such (``operator.iadd``, ``operator.setitem``, ``add_``), and
:func:`functionalise` rewrites each such node to its
out-of-place form and points every later reader of the written tensor at the new node:
exactly eager torch's semantics when nothing else shares the tensor's memory. A write to
a tensor that shares memory with another one that is read later (a view: ``v = h[0]``,
``h.view(...)``, ``h.transpose(...)``; or a parameter or buffer of the module) is refused,
naming the operation and its source line. The trace-time check
(:mod:`seprank.nets.torch_check`) then runs the rewritten graph against the eager module.

**Why fx and not torch.func.functionalize / make_fx / torch.export.** Those lower to ATen
operators (``aten.mm``, ``aten.view``, ``aten.slice``, a Linear decomposed into ``t`` and
``addmm``), which would need a second interpreter and lose the module-level names
(``layers.0.q``) and source lines seprank names in every refusal; they also specialise the
batch axis (or need a dynamic-shape specification). The rewrite above is the part of
functionalisation the fx level needs, and what it cannot do soundly (writes through
views) it refuses.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import linecache
import operator
import os
import sys

import numpy as np

from seprank.errors import ConfigError

#: Example batch sizes traced alongside (a value equal on all of them is taken to depend on
#: seq_len and width only; three sizes, so that e.g. ``B // 4`` or ``B % 3`` is not).
BATCHES = (2, 3, 5)
#: In-place operator functions and their out-of-place forms.
INPLACE_OPERATORS = {operator.iadd: operator.add, operator.isub: operator.sub,
                     operator.imul: operator.mul, operator.itruediv: operator.truediv,
                     operator.imatmul: operator.matmul, operator.ipow: operator.pow,
                     operator.ifloordiv: operator.floordiv}
#: Operations whose result may share memory with their first argument.
VIEW_OPS = frozenset(
    "view view_as reshape reshape_as transpose permute t expand expand_as squeeze unsqueeze "
    "flatten unflatten narrow select getitem split chunk unbind tensor_split diagonal movedim "
    "moveaxis swapaxes swapdims contiguous detach to float double type_as as_strided unfold "
    "getattr real dropout identity".split()
)
ALIAS_MODULES = frozenset({"Identity", "Dropout", "Dropout1d", "AlphaDropout", "Flatten"})


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


@functools.lru_cache(maxsize=1)
def _package_dirs() -> tuple[str, ...]:
    import torch

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # seprank/
    return (os.path.dirname(torch.__file__) + os.sep, here + os.sep)


def user_line(frames=None) -> str:
    """``line N of FILE: `source``` for the innermost frame in the user's code (not torch's,
    not seprank's), or "" when there is none. ``frames``: (filename, lineno) pairs, outermost
    first (default: the current stack)."""
    if frames is None:
        frames = [(f.filename, f.lineno) for f in reversed(inspect.stack(0))]
    skip = _package_dirs()
    for filename, lineno in reversed(list(frames)):
        if not filename.startswith(skip) and not filename.startswith("<frozen"):
            src = linecache.getline(filename, lineno).strip()
            return f"line {lineno} of {filename}" + (f": `{src}`" if src else "")
    return ""


def exception_line(exc) -> str:
    """:func:`user_line` of where ``exc`` was raised."""
    tb, frames = exc.__traceback__, []
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return user_line(frames)


def node_line(node) -> str:
    """The user's source line recorded for an fx node while tracing, or ""."""
    frame = node.meta.get("seprank_frame") if hasattr(node, "meta") else None
    return user_line([frame]) if frame else ""


def _user_frame():
    """(filename, lineno) of the innermost frame in the user's code, or None: a walk up
    the stack (cheaper than fx's record_stack_traces, which symbolises every frame)."""
    skip = _package_dirs()
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(skip) and not name.startswith("<frozen"):
            return name, frame.f_lineno
        frame = frame.f_back
    return None


def where(node) -> str:
    """`` (line N of FILE: `src`)`` for messages, or ""."""
    line = node_line(node)
    return f" ({line})" if line else ""


def _plain(v) -> bool:
    """A Python value (not a tensor) that can be baked into the graph."""
    if isinstance(v, (bool, int, float)):
        return True
    return isinstance(v, (tuple, list)) and all(isinstance(u, (bool, int, float)) for u in v)


@contextlib.contextmanager
def _unpatched(module_cls):
    """torch.nn.Module's own ``__call__`` and ``__getattr__`` for the duration: fx patches
    them while it traces, and an example value is computed on real tensors, not traced."""
    from torch.fx import _symbolic_trace as st

    patched = module_cls.__call__, module_cls.__getattr__
    module_cls.__call__, module_cls.__getattr__ = st._orig_module_call, st._orig_module_getattr
    try:
        yield
    finally:
        module_cls.__call__, module_cls.__getattr__ = patched


class _ShapedProxy:
    """Mixed into fx.Proxy: a proxy that knows its node's example values (see the module
    docstring), so Python numbers read off it are concrete, and in-place operators and
    item assignment are recorded as such (fx alone records ``h += g`` as ``h = h + g``)."""

    def _number(self, what):
        return self.tracer.concrete(self, what)

    def __index__(self):
        return int(self._number("an integer (an index, a range, a size)"))

    def __int__(self):
        return int(self._number("an int"))

    def __float__(self):
        return float(self._number("a float"))

    def _inplace(self, op, other):
        vals = self.tracer.example(self.node)
        tensor = vals is None or any(hasattr(v, "detach") for v in vals)
        return self.tracer.create_proxy("call_function", op if tensor else
                                        INPLACE_OPERATORS[op], (self, other), {})

    def __iadd__(self, other):
        return self._inplace(operator.iadd, other)

    def __isub__(self, other):
        return self._inplace(operator.isub, other)

    def __imul__(self, other):
        return self._inplace(operator.imul, other)

    def __itruediv__(self, other):
        return self._inplace(operator.itruediv, other)

    def __imatmul__(self, other):
        return self._inplace(operator.imatmul, other)

    def __ipow__(self, other):
        return self._inplace(operator.ipow, other)

    def __setitem__(self, index, value):
        self.tracer.create_proxy("call_function", operator.setitem, (self, index, value), {})

    def __len__(self):
        vals = self.tracer.example(self.node)
        lens = None if vals is None else {len(v) for v in vals}
        if lens is None or len(lens) != 1:
            self.tracer.refuse(self.node, "len()")
        return lens.pop()


class _ShapeTracer:
    """Mixed into fx.Tracer: traces buffers as get_attr nodes, records each node's user
    source line, and knows every node's values on the example inputs (:meth:`example`; see
    the module docstring)."""

    proxy_buffer_attributes = True

    def __init__(self, root, seq_len: int, width: int, proxy_cls, drawn):
        import torch

        super().__init__()
        self.drawn = frozenset(drawn)
        rng = np.random.default_rng(0)
        self.example_root, self.proxy_cls = root, proxy_cls
        self.inputs = [torch.as_tensor(rng.standard_normal((b, seq_len, width)))
                       for b in BATCHES]
        self.values: dict = {}
        self.pending: collections.deque = collections.deque()
        self.placeholders = 0

    def proxy(self, node):
        return self.proxy_cls(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        p = super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)
        p.node.meta["seprank_frame"] = _user_frame()
        self.pending.append(p.node)
        return p

    def example(self, node):
        """The node's example values (one per batch size), or None where they cannot be
        computed. Computed on demand, catching up on the nodes created so far in their
        order (the order eager torch runs them in: in-place writes included), with fx's
        patches of nn.Module lifted once for the lot."""
        if node in self.values or node not in self.pending:
            return self.values.get(node)
        import torch

        with _unpatched(torch.nn.Module), torch.no_grad():  # real tensors, not traced
            while self.pending:
                n = self.pending.popleft()
                self.values[n] = self._evaluate(n)
                if n is node:
                    break
        return self.values[node]

    def _evaluate(self, node):
        from torch.fx.node import map_arg

        if any(self.values.get(n) is None for n in node.all_input_nodes):
            return None  # an input has no example value: neither has this node
        out = []
        for b in range(len(BATCHES)):
            try:
                args = map_arg(node.args, lambda n, b=b: self.values[n][b])
                kwargs = map_arg(node.kwargs, lambda n, b=b: self.values[n][b])
                out.append(self._run(node, b, args, kwargs))
            except Exception:  # noqa: BLE001 - no example value: the proxy stays symbolic
                return None
        return tuple(out)

    def _run(self, node, b, args, kwargs):
        if node.op == "placeholder":
            self.placeholders += b == 0
            if self.placeholders == 1:
                return self.inputs[b].clone()
            return node.args[0] if node.args else None
        if node.op == "get_attr":
            obj = self.example_root
            for part in node.target.split("."):
                obj = getattr(obj, part)
            return obj.detach().clone() if hasattr(obj, "detach") else obj
        if node.op == "call_function":
            return node.target(*args, **kwargs)
        if node.op == "call_method":
            return getattr(args[0], node.target)(*args[1:], **kwargs)
        return self.example_root.get_submodule(node.target)(*args, **kwargs)

    def concrete(self, proxy, what: str):
        vals = self.example(proxy.node)
        if vals is not None and all(_plain(v) for v in vals) and len(set(map(repr, vals))) == 1:
            return vals[0]
        if vals is not None and self._constant(proxy.node):  # from kept tensors only
            return vals[0]
        self.refuse(proxy.node, what)

    def _constant(self, node) -> bool:
        """Whether ``node`` depends on neither the input nor a drawn tensor (its value is
        then the same at every call: a kept buffer's, say)."""
        seen, stack = set(), [node]
        while stack:
            n = stack.pop()
            if n.op == "placeholder" or n.op == "get_attr" and n.target in self.drawn \
                    or owns_weight(n, self.drawn):
                return False
            seen.add(n)
            stack.extend(m for m in n.all_input_nodes if m not in seen)
        return True

    def to_bool(self, obj):
        return bool(self.concrete(obj, "a bool (an if, a while, an assert)"))

    def iter(self, obj):
        return iter(self.concrete(obj, "a sequence to iterate over"))

    def refuse(self, node, what: str):
        vals = self.example(node)
        line = user_line()
        at = f"{line}: " if line else ""
        if vals is not None and all(_plain(v) for v in vals):
            raise ConfigError(
                f"{at}the module uses the batch size (input dimension 0, which seprank "
                f"varies: it evaluates batches of many sizes) as {what}; fix: use -1 in "
                f"view/reshape (x.view(-1, T, C)) or tensor operations instead")
        raise ConfigError(
            f"{at}the module uses the values of its input or of a tensor drawn at random "
            f"(a trainable parameter) as {what}: data-dependent control "
            f"flow is not a fixed graph, and seprank needs one; fix: write it with tensor "
            f"operations, or fix the branch in the module's constructor")


def make_tracer(root, seq_len: int, width: int, drawn=()):
    """The tracer for ``root`` (an fx.Tracer with :class:`_ShapeTracer` mixed in; torch is
    imported here). ``drawn``: the names of the tensors drawn at random (a Python value
    computed from them is not a constant)."""
    from torch import fx

    proxy_cls = type("ShapedProxy", (_ShapedProxy, fx.Proxy), {})
    tracer_cls = type("ShapeTracer", (_ShapeTracer, fx.Tracer), {})
    return tracer_cls(root, seq_len, width, proxy_cls, drawn)


# ------------------------------------------------------------------------ functionalisation
def _view_name(node) -> str | None:
    t = node.target
    name = t if isinstance(t, str) else getattr(t, "__name__", "")
    return name


def _inplace(gm, node) -> bool:
    if node.op == "call_function" and node.target in INPLACE_OPERATORS:
        return _is_node(node.args[0])
    if node.op == "call_function" and node.target is operator.setitem:
        return True
    if node.op == "call_method" and node.target.endswith("_") and not node.target.startswith("_"):
        return True
    if node.op == "call_module":
        return getattr(gm.get_submodule(node.target), "inplace", False) is True
    return node.kwargs.get("inplace") is True


def _is_node(a) -> bool:
    return type(a).__name__ == "Node"


def _base(gm, node, memo: dict):
    """The node whose storage ``node``'s value may share (itself when it owns its memory)."""
    if node in memo:
        return memo[node]
    base = node
    first = node.args[0] if node.args else None
    if _is_node(first):
        if node.op == "call_module":
            if type(gm.get_submodule(node.target)).__name__ in ALIAS_MODULES:
                base = _base(gm, first, memo)
        elif _view_name(node) in VIEW_OPS or _inplace(gm, node):
            base = _base(gm, first, memo)
    memo[node] = base
    return base


def setitem(x, index, value):
    """``x[index] = value`` out of place: a copy of ``x`` with the entries replaced (torch
    tensors and numpy arrays alike)."""
    out = x.clone() if hasattr(x, "clone") else x.copy()
    out[index] = value
    return out


def copy(x, src):
    """``x.copy_(src)`` out of place: ``src`` broadcast to ``x``'s shape."""
    if hasattr(src, "expand_as"):
        return src.expand_as(x).clone()
    return np.broadcast_to(src, x.shape, subok=True).copy()


def _out_of_place(gm, node) -> None:
    """Rewrite an in-place ``node`` to the out-of-place operation (its value unchanged)."""
    import torch

    if node.op == "call_function" and node.target in INPLACE_OPERATORS:
        node.target = INPLACE_OPERATORS[node.target]
    elif node.op == "call_function" and node.target is operator.setitem:
        node.target = setitem
    elif node.op == "call_method" and node.target.endswith("_"):
        name = node.target[:-1]
        if name == "zero":
            node.op, node.target = "call_function", torch.zeros_like
        elif name == "fill":
            node.op, node.target = "call_function", torch.full_like
        elif name == "copy":
            node.op, node.target, node.args = "call_function", copy, node.args[:2]
        elif hasattr(torch.Tensor, name):
            node.target = name
        else:
            raise ConfigError(f"in-place '{node.target}' at node '{node.name}'{where(node)} has "
                              f"no out-of-place form seprank knows; write it out of place")
    elif "inplace" in node.kwargs:
        node.kwargs = {**node.kwargs, "inplace": False}


def functionalise(gm) -> None:
    """Rewrite ``gm``'s in-place operations out of place (see the module docstring), or
    refuse one whose write another tensor would see (a ConfigError naming it)."""
    nodes = list(gm.graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    changed = False
    for m in nodes:
        if m.op not in ("call_function", "call_method", "call_module") or not _inplace(gm, m):
            continue
        t = m.args[0] if m.args else None
        if not _is_node(t):
            continue
        what = f"in-place '{_view_name(m)}' at node '{m.name}'{where(m)}"
        memo: dict = {}
        base = _base(gm, t, memo)
        if base.op == "get_attr":
            raise ConfigError(f"{what} writes to the module's tensor '{base.target}': its state "
                              f"would change from call to call; fix: compute a new tensor "
                              f"(y = {base.target} + ...) instead of writing to it")
        for g in nodes[: order[m]]:
            if g is t or g is m or _base(gm, g, memo) is not base:
                continue
            if any(order[u] > order[m] for u in g.users):
                raise ConfigError(
                    f"{what} writes to a tensor that shares memory with node '{g.name}'"
                    f"{where(g)}, read after the write: seprank does not follow writes "
                    f"through views; fix: write it out of place (h = h + ...)")
        for u in list(t.users):
            if u is not m and order[u] > order[m]:
                u.replace_input_with(t, m)
        if m.op != "call_module":  # a module (nn.ReLU(inplace=True)) still writes, in torch:
            _out_of_place(gm, m)  # its readers are the ones eager torch has, as rewired
        changed = True
    if changed:
        gm.graph.lint()
        gm.recompile()


__all__ = ["BATCHES", "VIEW_OPS", "copy", "float64", "functionalise", "make_tracer", "setitem",
           "user_line", "where"]


def owns_weight(node, names) -> bool:
    """Whether ``node`` calls a submodule that holds one of ``names`` (a drawn weight: its
    output depends on the weights even where its inputs are constants)."""
    return node.op == "call_module" and any(
        n == node.target or n.startswith(node.target + ".") for n in names)

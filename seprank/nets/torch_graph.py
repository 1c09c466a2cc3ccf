"""Interpret a torch.fx graph with numpy on a domain's arrays (the engine of ``from_torch``).

:func:`classify` reads a traced graph once: which nodes depend on the input or the
weights (*live* nodes), and whether each live node is an operation seprank can compute
exactly (a polynomial one: a handler of :mod:`seprank.nets.torch_ops`, or one of
:data:`POLY_MODULES`). The first live
node that is not gives the reason the architecture is not a polynomial.

:func:`run` evaluates the graph. Live nodes are computed with plain numpy operators
(``+ - * @ **``, ``np.einsum``, ``np.sum``, indexing, ...) on the arrays the domain hands
``apply`` (float64 arrays, GF(p) field arrays, or object arrays of polynomials), so one
code path serves every domain; the domain's own methods are used only for constants
(``domain.constant``). Nodes that depend on neither (shapes, buffers, masks built from
buffers) are computed by torch itself and converted to domain constants where a live
node meets them. In the degree domain (``traced_degree``) the same walk propagates
degree upper bounds, on its degree arrays.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from seprank.errors import DomainError
from seprank.nets.torch_ops import HANDLERS, call_module
from seprank.nets.torch_ops_more import (
    BATCH_NORM_ARGS,
    BATCH_NORMS,
    MORE_HANDLERS,
    MORE_MODULES,
    call_module_more,
)
from seprank.nets.torch_trace import node_line, owns_weight

#: Operations known not to be polynomials: the net is then measured by the float engine.
NONPOLY_FUNCS = frozenset(
    "softmax log_softmax softmin relu relu6 gelu tanh sigmoid silu elu selu celu leaky_relu "
    "softplus mish hardtanh hardswish hardsigmoid logsigmoid softsign exp exp2 expm1 log log2 "
    "log1p sqrt rsqrt reciprocal abs sign max min amax amin clamp clamp_min clamp_max "
    "sin cos tan erf layer_norm group_norm rms_norm instance_norm normalize norm "
    "floordiv mod fmod remainder logsumexp scaled_dot_product_attention "
    "multi_head_attention_forward round floor ceil trunc heaviside gt lt ge le eq ne "
    "greater less greater_equal less_equal".split()
)
NONPOLY_MODULES = frozenset(
    "Softmax LogSoftmax Softmin ReLU ReLU6 GELU Tanh Sigmoid SiLU ELU SELU CELU LeakyReLU "
    "PReLU Softplus Mish Hardtanh Hardswish Hardsigmoid LogSigmoid Softsign Tanhshrink "
    "Threshold GLU LayerNorm RMSNorm GroupNorm InstanceNorm1d InstanceNorm2d "
    "MultiheadAttention".split()
)
#: What :func:`_check` says of a known operation used in a non-polynomial way (a tensor
#: divisor or exponent, a masked_fill with -inf).
NONPOLY_CASES = frozenset({"division", "pow", "masked_fill", "where", "BatchNorm"})
#: Nodes that read a tensor's metadata, not its values (never live).
META = frozenset({"size", "dim", "numel", "shape", "ndim", "dtype", "device", "is_cuda"})
#: Same-meaning aliases of one operation.
ALIASES = {"iadd": "add", "isub": "sub", "imul": "mul", "imatmul": "matmul", "bmm": "matmul",
           "multiply": "mul", "subtract": "sub", "negative": "neg", "concat": "cat",
           "concatenate": "cat", "swapaxes": "transpose", "swapdims": "transpose",
           "true_divide": "truediv", "div": "truediv", "pos": "positive"}
#: Arguments that select (an index, a mask), by position: passed as they are, not lifted.
SELECTORS = {"getitem": 1, "masked_fill": 1, "index_select": 2, "setitem": 1}
#: Constant arguments read as torch tensors, not lifted (a where's condition, a divisor:
#: the handler reads them exactly), by position.
RAW = {"where": 0, "truediv": 1}
POLY_MODULES = frozenset({"Linear", "Conv1d", "Identity", "Dropout", "Dropout1d", "AlphaDropout",
                          "Flatten", "Bilinear"}) | BATCH_NORMS


HANDLERS.update(MORE_HANDLERS)  # one table (tests patch torch_ops.HANDLERS, this object)


def op_name(node) -> str:
    """The operation a call node performs, as one name (``operator.mul`` and
    ``torch.mul`` and ``Tensor.mul`` are all ``mul``)."""
    t = node.target
    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    return ALIASES.get(name, name)


def _rational(v) -> bool:
    return isinstance(v, (numbers.Integral, Fraction)) or (
        isinstance(v, float) and math.isfinite(v))


# ------------------------------------------------------------------------ classification
def classify(gm, params: set[str]):
    """(live nodes, reason or None): the nodes that depend on the input or a weight, and
    why the graph is not exactly computable (the first live node that is not), or None."""
    live: set = set()
    reason = None
    placeholders = 0
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            if placeholders == 0:
                live.add(node)
            placeholders += 1
        elif node.op == "get_attr":
            if node.target in params:
                live.add(node)
        elif node.op in ("call_function", "call_method", "call_module"):
            if node.op != "call_module" and op_name(node) in META:
                continue
            if node.op == "call_function" and node.target is getattr and node.args[1] in META:
                continue
            if not (owns_weight(node, params) or any(n in live for n in node.all_input_nodes)):
                continue
            live.add(node)
            why = _check(gm, node, live, params)
            if why is not None and reason is None:
                reason = _reason(why, node)
    return live, reason


def _reason(why: str, node) -> str:
    line = node_line(node)
    at = f" ({line})" if line else ""
    if why.split()[0] in NONPOLY_FUNCS | NONPOLY_MODULES | NONPOLY_CASES:
        return (f"{why} at node '{node.name}' is not a polynomial{at}: the exact engines "
                "cannot measure it; method=float")
    return (f"{why} at node '{node.name}' is not supported by seprank's torch "
            f"interpreter{at} (the module may still be a polynomial: seprank cannot tell): the "
            "exact engines cannot measure it; method='float' gives a float estimate")


def _check(gm, node, live, params=frozenset()) -> str | None:
    """None if ``node`` (a live call) is computed exactly, else the operation's name."""
    if node.op == "call_module":
        mod = gm.get_submodule(node.target)
        kind = type(mod).__name__
        if kind in NONPOLY_MODULES:
            return kind
        if kind not in POLY_MODULES:
            return f"{kind} (module)"
        if kind == "Conv1d" and mod.padding_mode != "zeros":
            return f"Conv1d with padding_mode={mod.padding_mode!r} (module)"
        if kind in BATCH_NORMS and getattr(mod, "running_var", None) is None:
            return f"BatchNorm without running statistics ({kind}: batch statistics)"
        if kind in BATCH_NORMS and any(f"{node.target}.running_var" == n for n in params):
            return (f"BatchNorm with a drawn running_var ({kind}, draw='all'): 1/sqrt of a "
                    "drawn tensor")
        return None
    name = op_name(node)
    if name in NONPOLY_FUNCS:
        return name
    if name not in HANDLERS:
        return name
    if name == "truediv":
        if any(_is_node(a) and a in live for a in node.args[1:]):
            return "division by a computed tensor"
        if node.kwargs.get("rounding_mode"):
            return "division with rounding"
        if not all(_rational(a) or _is_node(a) for a in node.args[1:]):
            return "division by a non-number"
    if name == "batch_norm":
        return _check_batch_norm(node, live)
    if name == "where":
        cond = node.args[0] if node.args else node.kwargs.get("condition")
        if len(node.args) + len(node.kwargs) < 3:
            return "where with one argument (nonzero indices)"
        if _is_node(cond) and cond in live:
            return "where with a computed condition"
    if name == "pow":
        k = node.args[1] if len(node.args) > 1 else node.kwargs.get("exponent")
        integral = isinstance(k, numbers.Integral) and not isinstance(k, bool) or \
            isinstance(k, float) and k.is_integer()
        if _is_node(node.args[0]) and node.args[0] not in live or not (integral and k >= 0):
            return "pow by a non-integer or tensor exponent"
    if name == "pad":
        mode = node.args[2] if len(node.args) > 2 else node.kwargs.get("mode", "constant")
        value = node.args[3] if len(node.args) > 3 else node.kwargs.get("value")
        if mode != "constant" or _is_node(value) or value is not None and not _rational(value):
            return f"pad with mode={mode!r}, value={value!r}"
    if name == "masked_fill":
        mask, value = node.args[1], node.args[2] if len(node.args) > 2 else node.kwargs["value"]
        if (_is_node(mask) and mask in live) or _is_node(value) or not _rational(value):
            return f"masked_fill with value {value}" if not _is_node(value) else "masked_fill"
    if name in SELECTORS and any(_is_node(a) and a in live
                                 for a in _flat(node.args[SELECTORS[name]:][:1])):
        return "indexing by a computed tensor"
    return None


def _batch_norm_args(node) -> dict:
    """``F.batch_norm``'s arguments by name (positional or keyword)."""
    bound = dict(zip(BATCH_NORM_ARGS, node.args))
    bound.update({k: v for k, v in node.kwargs.items() if k in BATCH_NORM_ARGS})
    return bound


def _check_batch_norm(node, live) -> str | None:
    """``F.batch_norm`` is computed in evaluation mode with constant running statistics
    (an affine map); batch statistics or a drawn variance are 1/sqrt of data."""
    if getattr(node.target, "__module__", "") != "torch.nn.functional":
        return "batch_norm (torch.batch_norm; torch.nn.functional.batch_norm is supported)"
    a = _batch_norm_args(node)
    var, training, eps = a.get("running_var"), a.get("training", False), a.get("eps", 1e-5)
    if _is_node(training) or training:
        return "BatchNorm (F.batch_norm) with training=True: batch statistics"
    if var is None:
        return "BatchNorm (F.batch_norm) without running statistics: batch statistics"
    if _is_node(var) and var in live:
        return "BatchNorm (F.batch_norm) with a drawn or computed running_var: 1/sqrt of it"
    if _is_node(eps) or not _rational(eps):
        return f"batch_norm with eps={eps!r}"
    return None


def _is_node(a) -> bool:
    return type(a).__name__ == "Node"


def _flat(xs):
    for x in xs:
        if isinstance(x, (tuple, list)):
            yield from _flat(x)
        elif isinstance(x, slice):
            yield from (x.start, x.stop, x.step)
        else:
            yield x


# ------------------------------------------------------------------------ evaluation
def run(gm, live, X, params: dict, alias: dict, ar, record: dict | None = None):
    """The graph's output for input ``X``: live nodes with ``ar``'s numpy arithmetic,
    the others (shapes, constants) with torch; constants lifted where live nodes use them
    (a constant with no exact value in the domain is refused naming the tensors it comes
    from). ``record``: a dict to fill with every node's value (the trace-time check)."""
    from torch.fx.node import map_arg

    env: dict = {}
    lifted: dict = {}

    def weight(name):
        canonical = alias.get(name, name)
        if canonical in params:
            return params[canonical]
        return lift(_fetch(gm, name))  # a frozen parameter or a buffer: a constant

    def lift(v):
        if hasattr(v, "detach") and hasattr(v, "numpy"):  # a constant tensor
            if id(v) not in lifted:  # the tensor is kept alive beside its conversion
                lifted[id(v)] = (v, ar.const(v.detach().cpu().numpy()))
            return lifted[id(v)][1]
        if isinstance(v, (list, tuple)) and not _shape_like(v):
            return type(v)(lift(u) for u in v)
        return v

    placeholders = 0
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            env[node] = X if placeholders == 0 else (node.args[0] if node.args else None)
            placeholders += 1
        elif node.op == "get_attr":
            env[node] = weight(node.target) if node in live else _fetch(gm, node.target)
        if node.op in ("placeholder", "get_attr"):
            if record is not None:
                record[node] = env[node]
            continue
        args = map_arg(node.args, lambda n: env[n])
        kwargs = map_arg(node.kwargs, lambda n: env[n])
        if node.op == "output":
            return args[0]
        if node in live:
            args, kwargs = _lifted(node, args, kwargs, lift)
            try:
                if node.op == "call_module":
                    more = type(gm.get_submodule(node.target)).__name__ in MORE_MODULES
                    env[node] = (call_module_more if more else call_module)(
                        ar, gm, node, args, kwargs, weight)
                else:
                    env[node] = HANDLERS[op_name(node)](ar, *args, **kwargs)
            except DomainError as exc:
                line = node_line(node)
                raise DomainError(f"{exc} (at node '{node.name}'"
                                  + (f", {line})" if line else ")")) from None
        else:
            env[node] = _static(gm, node, args, kwargs)
        if record is not None:
            record[node] = env[node]
    raise DomainError("the traced graph has no output")  # pragma: no cover


def _lifted(node, args, kwargs, lift):
    """A live node's arguments with its constants lifted (its selectors left as they are)."""
    name = op_name(node) if node.op != "call_module" else None
    keep = SELECTORS.get(name, RAW.get(name)) if name is not None else None
    try:
        if name == "batch_norm":  # running_var kept: its float value sets the scale
            raw = len(node.args) > 2
            return ((*lift(args[:2]), args[2], *lift(args[3:])) if raw else lift(args),
                    {k: v if k == "running_var" else lift(v) for k, v in kwargs.items()})
        if keep is None:
            return lift(args), {k: lift(v) for k, v in kwargs.items()}
        return (*lift(args[:keep]), args[keep], *lift(args[keep + 1 :])), kwargs
    except DomainError as exc:
        origin = sorted(_origins(node))
        what = (" ".join(f"'{o}'" for o in origin) + ": ") if origin else ""
        raise DomainError(f"the module's constant {what}{exc} (used at node "
                          f"'{node.name}')") from None


def _origins(node, seen=None) -> set:
    """The module tensors (get_attr targets) a node's constant inputs are computed from."""
    seen = set() if seen is None else seen
    out = set()
    for n in node.all_input_nodes:
        if n in seen:
            continue
        seen.add(n)
        out |= {n.target} if n.op == "get_attr" else _origins(n, seen)
    return out


def _shape_like(v) -> bool:
    return all(isinstance(u, numbers.Integral) for u in v)


def _fetch(gm, target: str):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _static(gm, node, args, kwargs):
    """A node that depends on neither input nor weights: torch computes it (shapes of the
    live arrays are read from the numpy arrays)."""
    name = op_name(node)
    first = args[0] if args else None
    if isinstance(first, np.ndarray) and name in META:
        if name == "size":
            return tuple(first.shape) if len(args) < 2 else first.shape[args[1]]
        if name == "dim":
            return first.ndim
        if name == "numel":
            return int(first.size)
    if node.op == "call_function" and node.target is getattr and isinstance(first, np.ndarray):
        return tuple(first.shape) if args[1] == "shape" else getattr(first, args[1])
    if node.op == "call_module":
        return gm.get_submodule(node.target)(*args, **kwargs)
    if node.op == "call_method":
        return getattr(first, node.target)(*args[1:], **kwargs)
    return node.target(*args, **kwargs)


__all__ = ["NONPOLY_FUNCS", "NONPOLY_MODULES", "POLY_MODULES", "classify", "op_name", "run"]

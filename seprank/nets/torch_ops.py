"""The operations ``from_torch`` computes exactly, written with plain numpy operators.

Each handler takes the arithmetic object first (:class:`NumpyArith`: numpy operators on
the domain's arrays, so the same code computes in float64, in GF(p) on field arrays, on
object arrays of polynomials and on the degree domain's degree arrays) and then the
torch call's own arguments, so ``HANDLERS[name](ar, *args, **kwargs)`` mirrors
``torch.name(*args, **kwargs)``. :mod:`seprank.nets.torch_graph` walks the graph.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from seprank.errors import DomainError

IDENTITY = frozenset({"contiguous", "clone", "detach", "float", "double", "positive",
                      "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d",
                      "dropout2d", "dropout3d"})


def explicit(eq: str, ops) -> str:
    """``eq`` with every index written: ``...`` expanded to letters and the output given
    (implicit mode: the letters seen once, in alphabetical order), as torch reads it."""
    eq = eq.replace(" ", "")
    ins, arrow, out = eq.partition("->")
    terms = ins.split(",")
    if "..." not in eq and arrow:
        return eq
    used = set(eq) - {".", ",", "-", ">"}
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    most = max((np.ndim(o) - len(t.replace("...", "")) for t, o in zip(terms, ops)
                if "..." in t), default=0)
    dots = "".join(free[:most])
    terms = [t.replace("...", dots[most - (np.ndim(o) - len(t.replace("...", ""))) :])
             for t, o in zip(terms, ops)]
    if arrow:
        out = out.replace("...", dots)
    else:
        seen = "".join(terms)
        out = dots + "".join(sorted(c for c in set(seen) - set(dots) if seen.count(c) == 1))
    return ",".join(terms) + "->" + out


class NumpyArith:
    """The arithmetic of live values: plain numpy operators on the domain's arrays."""

    def __init__(self, domain):
        self.domain = domain

    def const(self, value):
        """A constant (ints, bools, floats, Fractions, arrays of them) as a domain array."""
        return self.domain.constant(value)

    def operand(self, v):
        if isinstance(v, (bool, np.bool_)):
            return int(v)
        if isinstance(v, numbers.Integral):
            return v
        if isinstance(v, (numbers.Number, Fraction)):
            return self.const(v)
        return v

    def add(self, a, b):
        return self.operand(a) + self.operand(b)

    def sub(self, a, b):
        return self.operand(a) - self.operand(b)

    def mul(self, a, b):
        return self.operand(a) * self.operand(b)

    def neg(self, a):
        return -a

    def pow(self, a, k: int):
        return a**k

    def matmul(self, a, b):
        return a @ b

    def einsum(self, eq, *ops):
        return np.einsum(explicit(eq, ops), *ops)

    def sum(self, x, axis, keepdims):
        return np.sum(x, axis=axis, keepdims=keepdims)

    def cumsum(self, x, axis):
        return np.cumsum(x, axis=axis)

    def zeros(self, shape):
        return self.const(np.zeros(shape, dtype=np.int64))


# ------------------------------------------------------------------------ operations
def dims_arg(args, kw, key):
    """``f(x, 0, 2, 1)``, ``f(x, (0, 2, 1))`` or ``f(x, dims=...)`` -> a tuple of ints."""
    if key in kw:
        v = kw[key]
    elif len(args) == 1 and isinstance(args[0], (tuple, list)):
        v = args[0]
    else:
        v = args
    return tuple(int(d) for d in v)


def axis_arg(dim):
    if dim is None or isinstance(dim, (tuple, list)) and len(dim) == 0:  # () means all, as
        return None  # torch reads it
    return tuple(int(d) for d in dim) if isinstance(dim, (tuple, list)) else int(dim)


def _sum(ar, x, dim=None, keepdim=False, dtype=None, axis=None):
    return ar.sum(x, axis_arg(dim if axis is None else axis), bool(keepdim))


def mean(ar, x, dim=None, keepdim=False, dtype=None, axis=None):
    axis = axis_arg(dim if axis is None else axis)
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = math.prod(x.shape[a] for a in axes)
    return ar.mul(ar.sum(x, axis, bool(keepdim)), Fraction(1, count))


def _einsum(ar, eq, *ops):
    if len(ops) == 1 and isinstance(ops[0], (tuple, list)):
        ops = tuple(ops[0])
    return ar.einsum(eq, *ops)


def _truediv(ar, a, b, rounding_mode=None):
    """``a / b`` for a constant b: a number, or a constant tensor (each entry read as the
    exact binary fraction it holds, its reciprocal taken exactly)."""
    if hasattr(b, "detach"):  # a constant tensor: exact reciprocals
        arr = b.detach().cpu().double().numpy()
        if not np.all(np.isfinite(arr)) or np.any(arr == 0):
            raise DomainError("division by a constant tensor with a zero or non-finite entry")
        recip = np.empty(arr.shape, dtype=object)
        recip.ravel()[:] = [1 / Fraction(float(v)) for v in arr.ravel()]
        return ar.mul(a, ar.const(recip))
    if isinstance(b, float) and not math.isfinite(b) or b == 0:
        raise DomainError(f"division by {b!r}: not a nonzero finite number")
    return ar.mul(a, 1 / Fraction(b))


def _not_float(v) -> bool:
    """A torch integer or bool dtype (a cast that changes values), or a constant integer
    or bool array (the target of ``type_as``)."""
    if getattr(v, "is_floating_point", True) is False and type(v).__name__ == "dtype":
        return True
    return isinstance(v, np.ndarray) and v.dtype.kind in "iub" and type(v) is np.ndarray


def _to(ar, x, *args, **kw):
    """``.to`` / ``.type_as``: a device or float type changes nothing; an integer or bool
    type would round or threshold the values, so it is refused."""
    for v in list(args) + list(kw.values()):
        if _not_float(v):
            raise DomainError(f"a cast to {v if type(v).__name__ == 'dtype' else v.dtype} is "
                              "not a polynomial operation (it rounds or thresholds values)")
    return x


def _add(ar, a, b, alpha=1):
    return ar.add(a, b if alpha == 1 else ar.mul(b, alpha))


def _sub(ar, a, b, alpha=1):
    return ar.sub(a, b if alpha == 1 else ar.mul(b, alpha))


def _reshape(ar, x, *shape, **kw):
    return np.reshape(x, dims_arg(shape, kw, "shape"))


def _flatten(ar, x, start_dim=0, end_dim=-1):
    n = max(x.ndim, 1)
    s, e = start_dim % n, end_dim % n
    return np.reshape(x, x.shape[:s] + (math.prod(x.shape[s : e + 1]),) + x.shape[e + 1 :])


def _squeeze(ar, x, dim=None):
    if dim is None:
        return np.reshape(x, tuple(n for n in x.shape if n != 1))
    axes = {a % x.ndim for a in (dim if isinstance(dim, (tuple, list)) else (dim,))}
    return np.reshape(x, tuple(n for a, n in enumerate(x.shape) if not (a in axes and n == 1)))


def _expand(ar, x, *sizes, **kw):
    sizes = dims_arg(sizes, kw, "size")
    lead = len(sizes) - x.ndim
    shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    return np.broadcast_to(x, shape, subok=True)


def _getitem(ar, x, idx):
    if not isinstance(x, np.ndarray):
        return x[idx]
    return x[index_arg(idx)]


def index_arg(idx):
    """An index with its constant torch tensors as numpy integer or boolean arrays (the
    graph walk does not lift an index to the domain: it selects, it is not a value)."""
    if isinstance(idx, (tuple, list)) and not all(isinstance(i, numbers.Integral) for i in idx):
        return tuple(index_arg(i) for i in idx)
    if hasattr(idx, "detach"):  # a constant torch tensor
        a = idx.detach().cpu().numpy()
        if a.dtype.kind not in "iub":
            raise DomainError(f"indexing by a {a.dtype} tensor: an index must be integer or bool")
        return a
    return idx


def _setitem(ar, x, index, value):
    """``x[index] = value`` out of place (the graph's in-place writes are rewritten so)."""
    out = x.copy()
    out[index_arg(index)] = ar.operand(value)
    return out


def at_axis(x, dim: int, index):
    """``x[:, ..., index]`` with ``index`` at axis ``dim`` (basic or integer indexing)."""
    return x[(slice(None),) * (int(dim) % x.ndim) + (index,)]


def _split(ar, x, split_size_or_sections, dim=0):
    n, dim = x.shape[int(dim)], int(dim)
    if isinstance(split_size_or_sections, numbers.Integral):
        k = int(split_size_or_sections)
        sizes = [min(k, n - s) for s in range(0, n, k)]
    else:
        sizes = [int(v) for v in split_size_or_sections]
    starts = np.cumsum([0] + sizes)
    return tuple(at_axis(x, dim, slice(int(a), int(a) + k)) for a, k in zip(starts, sizes))


def _chunk(ar, x, chunks, dim=0):
    n = x.shape[int(dim)]
    return _split(ar, x, max(1, -(-n // int(chunks))), dim)


def _unbind(ar, x, dim=0):
    return tuple(at_axis(x, dim, i) for i in range(x.shape[int(dim)]))


def _repeat(ar, x, *sizes, **kw):
    sizes = dims_arg(sizes, kw, "repeats")
    x = np.reshape(x, (1,) * (len(sizes) - x.ndim) + tuple(x.shape))
    for axis, r in enumerate(sizes):
        if r != 1:
            x = np.concatenate([x] * r, axis=axis)
    return x


def _flip(ar, x, *dims, **kw):
    axes = {d % x.ndim for d in dims_arg(dims, kw, "dims")}
    return x[tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))]


def _roll(ar, x, shifts, dims=None):
    if dims is None:
        return np.reshape(_roll(ar, np.reshape(x, (-1,)), shifts, 0), x.shape)
    shifts = shifts if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    for shift, dim in zip(shifts, dims):
        n = x.shape[int(dim)]
        k = int(shift) % n
        if k:
            x = np.concatenate([at_axis(x, dim, slice(n - k, n)), at_axis(x, dim, slice(0, n - k))],
                               axis=int(dim) % x.ndim)
    return x


def _pad(ar, x, pad, mode="constant", value=None):
    """``F.pad`` with a constant: pairs (left, right) from the last axis backwards."""
    if mode != "constant":
        raise DomainError(f"F.pad with mode={mode!r}: only mode='constant' is supported")
    for i in range(len(pad) // 2):
        axis, left, right = x.ndim - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1])
        n = x.shape[axis]
        x = at_axis(x, axis, slice(max(0, -left), n - max(0, -right)))
        parts = []
        for k in (left, None, right):
            if k is None:
                parts.append(x)
            elif k > 0:
                shape = x.shape[:axis] + (k,) + x.shape[axis + 1 :]
                fill = ar.zeros(shape)
                parts.append(fill if not value else ar.add(fill, value))
        x = np.concatenate(parts, axis=axis) if len(parts) > 1 else x
    return x


def _diagonal(ar, x, offset=0, dim1=0, dim2=1):
    y = np.moveaxis(x, (int(dim1) % x.ndim, int(dim2) % x.ndim), (-2, -1))
    rows, cols = y.shape[-2], y.shape[-1]
    k = int(offset)
    i = np.arange(max(0, min(rows + min(k, 0), cols - max(k, 0))))
    return y[..., i - min(k, 0), i + max(k, 0)]


def _masked_fill(ar, x, mask, value):
    m = index_arg(mask) if hasattr(mask, "detach") else np.asarray(mask) != 0
    out = ar.mul(x, ar.const(np.logical_not(m).astype(np.int64)))
    if value != 0:
        out = ar.add(out, ar.mul(ar.const(m.astype(np.int64)), value))
    return out


def _linear(ar, x, w, b=None):
    y = ar.matmul(x, np.swapaxes(w, -1, -2))
    return y if b is None else ar.add(y, b)


def _one(v) -> int:
    return int(v[0] if isinstance(v, (tuple, list)) else v)


def _conv1d(ar, x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Zero-padded 1-D convolution, (B, C_in, L) -> (B, C_out, L_out): unfold + einsum;
    grouped (``groups`` > 1; depthwise: groups = C_in) by one einsum over the groups."""
    k, s, dil = w.shape[-1], _one(stride), _one(dilation)
    if padding == "valid":
        left = right = 0
    elif padding == "same":
        total = dil * (k - 1)
        left, right = total // 2, total - total // 2
    else:
        left = right = _one(padding)
    if left or right:
        lead = x.shape[:-1]
        x = np.concatenate([ar.zeros(lead + (left,)), x, ar.zeros(lead + (right,))], axis=-1)
    out = (x.shape[-1] - dil * (k - 1) - 1) // s + 1
    idx = np.arange(out)[:, None] * s + np.arange(k)[None, :] * dil
    g = _one(groups)
    if g == 1:
        y = ar.einsum("bctk,ock->bot", x[..., idx], w)
    else:
        unf = x[..., idx]  # (B, C_in, T, k)
        cin, cout = unf.shape[1] // g, w.shape[0] // g
        unf = np.reshape(unf, (unf.shape[0], g, cin) + unf.shape[2:])
        wg = np.reshape(w, (g, cout) + tuple(w.shape[1:]))
        y = ar.einsum("bgctk,gock->bgot", unf, wg)
        y = np.reshape(y, (y.shape[0], g * cout, y.shape[-1]))
    return y if b is None else ar.add(y, b[:, None])


def _stack(ar, xs, dim=0, axis=None):
    return np.stack(list(xs), axis=dim if axis is None else axis)


def _cat(ar, xs, dim=0, axis=None):
    return np.concatenate(list(xs), axis=dim if axis is None else axis)


HANDLERS = {
    "add": _add, "sub": _sub, "rsub": lambda ar, a, b, alpha=1: _sub(ar, b, a, alpha),
    "mul": lambda ar, a, b: ar.mul(a, b), "neg": lambda ar, a: ar.neg(a),
    "square": lambda ar, a: ar.mul(a, a), "truediv": _truediv,
    "pow": lambda ar, a, exponent: ar.pow(a, int(exponent)),  # integral (classify checks)
    "matmul": lambda ar, a, b: ar.matmul(a, b), "einsum": _einsum, "linear": _linear,
    "conv1d": _conv1d, "sum": _sum, "mean": mean,
    "cumsum": lambda ar, x, dim, dtype=None: ar.cumsum(x, int(dim)),
    "transpose": lambda ar, x, dim0, dim1: np.swapaxes(x, dim0, dim1),
    "t": lambda ar, x: np.swapaxes(x, 0, -1) if x.ndim == 2 else x,
    "permute": lambda ar, x, *d, **kw: np.transpose(x, dims_arg(d, kw, "dims")),
    "reshape": _reshape, "view": _reshape, "flatten": _flatten, "squeeze": _squeeze,
    "unsqueeze": lambda ar, x, dim: np.expand_dims(x, int(dim)),
    "expand": _expand, "expand_as": lambda ar, x, other: _expand(ar, x, *other.shape),
    "getitem": _getitem, "getattr": lambda ar, x, name: _attribute(x, name),
    "cat": _cat, "stack": _stack, "masked_fill": _masked_fill,
    "split": _split, "chunk": _chunk, "unbind": _unbind, "repeat": _repeat, "flip": _flip,
    "roll": _roll, "pad": _pad, "diagonal": _diagonal, "setitem": _setitem,
    "narrow": lambda ar, x, dim, start, length: at_axis(x, dim, slice(int(start),
                                                                  int(start) + int(length))),
    "select": lambda ar, x, dim, index: at_axis(x, dim, int(index)),
    "index_select": lambda ar, x, dim, index: at_axis(x, dim, index_arg(index)),
    "tril": lambda ar, x, diagonal=0: np.tril(x, int(diagonal)),
    "triu": lambda ar, x, diagonal=0: np.triu(x, int(diagonal)),
}
HANDLERS.update({name: (lambda ar, x, *a, **kw: x) for name in IDENTITY})
HANDLERS.update({"to": _to, "type_as": _to})


def _attribute(x, name):
    if name == "T":
        return np.transpose(x)
    if name == "mT":
        return np.swapaxes(x, -1, -2)
    raise DomainError(f"attribute {name!r} of a tensor is not supported")




def call_module(ar, gm, node, args, kwargs, weight):
    """A live ``call_module`` node: Linear, Conv1d (grouped too), Flatten, or an identity
    (Bilinear and BatchNorm: :func:`seprank.nets.torch_ops_more.call_module_more`)."""
    mod = gm.get_submodule(node.target)
    kind = type(mod).__name__
    x = args[0]
    if kind == "Linear":
        return _linear(ar, x, weight(f"{node.target}.weight"),
                       None if mod.bias is None else weight(f"{node.target}.bias"))
    if kind == "Conv1d":
        return _conv1d(ar, x, weight(f"{node.target}.weight"),
                       None if mod.bias is None else weight(f"{node.target}.bias"),
                       mod.stride, mod.padding, mod.dilation, mod.groups)
    if kind == "Flatten":
        return _flatten(ar, x, mod.start_dim, mod.end_dim)
    return x  # Identity, Dropout (evaluation mode)


__all__ = ["HANDLERS", "IDENTITY", "NumpyArith", "call_module", "explicit"]

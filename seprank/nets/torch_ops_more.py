"""More operations ``from_torch`` computes exactly (issue 40): ``where`` with a constant
condition, constant fills (``zeros_like``, ``new_zeros``, ``full``...), ``cumprod``,
``prod``, ``var``, ``diff``, ``tensordot``, ``baddbmm``/``addbmm``/``addmm``,
``addcmul``, ``bilinear`` and evaluation-mode BatchNorm (the modules and
``F.batch_norm`` with given running statistics). Same conventions as
:mod:`seprank.nets.torch_ops`: the arithmetic object first, then the torch call's own
arguments.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from seprank.errors import DomainError
from seprank.nets.torch_ops import at_axis, axis_arg, dims_arg, index_arg, mean

#: BatchNorm modules (evaluation mode: an affine map per channel).
BATCH_NORMS = frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d"})


def _where(ar, cond, a, b):
    """``torch.where`` with a constant condition: a where it holds, b elsewhere (a * m +
    b * (1 - m): exact in every domain)."""
    m = index_arg(cond) if hasattr(cond, "detach") else np.asarray(cond)
    m = (m != 0).astype(np.int64)
    return ar.add(ar.mul(a, ar.const(m)), ar.mul(b, ar.const(1 - m)))


def _shape_of(x):
    return tuple(np.shape(x))


def _filled(ar, shape, value):
    arr = np.empty(tuple(int(n) for n in shape), dtype=object)
    arr.fill(Fraction(value) if isinstance(value, float) else value)
    return ar.const(arr)


def _new(value):
    """``x.new_zeros(size)`` / ``new_ones``: a constant of that size."""
    def make(ar, x, *size, **kw):
        return _filled(ar, dims_arg(size, {k: v for k, v in kw.items() if k == "size"}, "size"),
                       value)
    return make


def _new_full(ar, x, size, fill_value, **kw):
    return _filled(ar, dims_arg((size,), {}, "size") if not isinstance(size, (tuple, list))
                   else tuple(size), fill_value)


def _full(ar, size, fill_value, **kw):
    return _filled(ar, tuple(size), fill_value)


def _prod(ar, x, dim=None, keepdim=False, dtype=None):
    return np.prod(x, axis=None if dim is None else int(dim), keepdims=bool(keepdim))


def _var(ar, x, dim=None, unbiased=None, keepdim=False, correction=None, axis=None):
    """The variance: sum((x - mean)^2) / (n - correction), correction 1 unless said."""
    axis = axis_arg(dim if axis is None else axis)
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    n = math.prod(x.shape[a] for a in axes)
    c = 1 if correction is None and unbiased is None else \
        (int(correction) if correction is not None else int(bool(unbiased)))
    if n - c <= 0:
        raise DomainError(f"var over {n} entries with correction {c}: division by zero")
    d = ar.sub(x, mean(ar, x, axis, True))
    return ar.mul(ar.sum(ar.mul(d, d), axis, bool(keepdim)), Fraction(1, n - c))


def _diff(ar, x, n=1, dim=-1, prepend=None, append=None):
    parts = [v for v in (prepend, x, append) if v is not None]
    if len(parts) > 1:
        x = np.concatenate([np.broadcast_to(v, x.shape[:int(dim) % x.ndim] + (np.shape(v)[
            int(dim) % x.ndim],) + x.shape[int(dim) % x.ndim + 1:], subok=True)
            if v is not x else v for v in parts], axis=int(dim))
    for _ in range(int(n)):
        x = ar.sub(at_axis(x, dim, slice(1, None)), at_axis(x, dim, slice(None, -1)))
    return x


def _tensordot(ar, a, b, dims=2, out=None):
    if isinstance(dims, (tuple, list)):
        dims = tuple(tuple(int(v) for v in (d if isinstance(d, (tuple, list)) else (d,)))
                     for d in dims)
    return np.tensordot(a, b, axes=dims)


def _baddbmm(ar, x, b1, b2, beta=1, alpha=1):
    prod = ar.matmul(b1, b2)
    prod = prod if alpha == 1 else ar.mul(prod, alpha)
    if beta == 0:
        return prod
    return ar.add(x if beta == 1 else ar.mul(x, beta), prod)


def _addbmm(ar, x, b1, b2, beta=1, alpha=1):
    """``torch.addbmm``: beta x + alpha sum_i b1[i] @ b2[i] (the sum over the first axis)."""
    prod = ar.sum(ar.matmul(b1, b2), 0, False)
    prod = prod if alpha == 1 else ar.mul(prod, alpha)
    if beta == 0:
        return prod
    return ar.add(x if beta == 1 else ar.mul(x, beta), prod)


def _addmm(ar, x, m1, m2, beta=1, alpha=1):
    return _baddbmm(ar, x, m1, m2, beta, alpha)


def _addcmul(ar, x, t1, t2, value=1):
    prod = ar.mul(t1, t2)
    return ar.add(x, prod if value == 1 else ar.mul(prod, value))


def _bilinear(ar, x1, x2, w, b=None):
    """``F.bilinear``: y_o = sum_ij x1_i W_oij x2_j (+ b_o)."""
    y = ar.einsum("...i,oij,...j->...o", x1, w, x2)
    return y if b is None else ar.add(y, b)


def _batch_norm_eval(ar, x, mean, var, weight, bias, eps):
    """Evaluation-mode BatchNorm: (x - mean) * c (* weight) (+ bias), channels on axis 1,
    with c = 1 / sqrt(var + eps) computed in float64 as torch computes it and read as the
    exact binary fraction it is (``var`` a constant tensor: a drawn one is refused by the
    classification)."""
    v = var.detach().cpu().double().numpy()
    c = 1.0 / np.sqrt(v + float(eps))
    shape = (-1,) + (1,) * (x.ndim - 2)
    cs = np.empty(c.shape, dtype=object)
    cs.ravel()[:] = [Fraction(float(t)) for t in c.ravel()]
    y = x
    if mean is not None:
        y = ar.sub(y, np.reshape(mean, shape))
    y = ar.mul(y, ar.const(np.reshape(cs, shape)))
    if weight is not None:
        y = ar.mul(y, np.reshape(weight, shape))
    if bias is not None:
        y = ar.add(y, np.reshape(bias, shape))
    return y


#: ``F.batch_norm``'s arguments, in order.
BATCH_NORM_ARGS = ("input", "running_mean", "running_var", "weight", "bias", "training",
                   "momentum", "eps")


def _batch_norm(ar, input, running_mean=None, running_var=None, weight=None, bias=None,
                training=False, momentum=0.1, eps=1e-5):
    """``F.batch_norm`` in evaluation mode (``training=False``) with given running
    statistics: the module's affine map (``running_var`` arrives as the torch tensor, not
    lifted: its float value sets the scale; the classification refused the other cases)."""
    return _batch_norm_eval(ar, input, running_mean, running_var, weight, bias, eps)


MORE_HANDLERS = {
    "where": _where, "prod": _prod, "var": _var, "diff": _diff, "tensordot": _tensordot,
    "cumprod": lambda ar, x, dim, dtype=None: np.cumprod(x, axis=int(dim)),
    "baddbmm": _baddbmm, "addbmm": _addbmm, "addmm": _addmm, "addcmul": _addcmul,
    "bilinear": _bilinear, "batch_norm": _batch_norm,
    "zeros_like": lambda ar, x, **kw: _filled(ar, _shape_of(x), 0),
    "ones_like": lambda ar, x, **kw: _filled(ar, _shape_of(x), 1),
    "full_like": lambda ar, x, fill_value, **kw: _filled(ar, _shape_of(x), fill_value),
    "new_zeros": _new(0), "new_ones": _new(1), "new_full": _new_full, "full": _full,
}

#: The modules :func:`call_module_more` computes.
MORE_MODULES = BATCH_NORMS | {"Bilinear"}


def call_module_more(ar, gm, node, args, kwargs, weight):
    """A live ``call_module`` node of :data:`MORE_MODULES`: Bilinear, or BatchNorm in
    evaluation mode."""
    mod = gm.get_submodule(node.target)
    x = args[0]
    if type(mod).__name__ == "Bilinear":
        return _bilinear(ar, x, args[1], weight(f"{node.target}.weight"),
                         None if mod.bias is None else weight(f"{node.target}.bias"))

    def opt(name):
        return None if getattr(mod, name, None) is None else weight(f"{node.target}.{name}")

    return _batch_norm_eval(ar, x, opt("running_mean"), mod.running_var, opt("weight"),
                            opt("bias"), mod.eps)


__all__ = ["BATCH_NORMS", "BATCH_NORM_ARGS", "MORE_HANDLERS", "MORE_MODULES", "call_module_more"]

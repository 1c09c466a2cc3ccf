"""Arrays on which ordinary numpy code computes exactly: the machinery the array kinds share.

An :class:`ExactArray` is an int64 ndarray subclass whose values mean something other than
integers: residues mod p (:class:`~seprank.algebra.field_array.FieldArray`) or degree
bounds (:class:`~seprank.algebra.degree.DegreeArray`). What arithmetic means is an
``Arithmetic`` object (its ``ops``); this module routes numpy to it:

- ufuncs (``+ - * @``, ``**``, ``/`` by a constant, ``sum``, ``cumsum``, ``prod``) through
  ``__array_ufunc__``;
- numpy functions through ``__array_function__``: ``einsum`` (any number of operands),
  ``sum``/``mean``/``prod``/``cumsum``/``matmul``/``dot``/``tensordot``/``outer``/``trace``
  exactly, and the functions that only move, copy or select entries (``concatenate``,
  ``stack``, ``transpose``, ``reshape``, ``tril``, ``where`` with a constant condition ...)
  on the raw values;
- every other operation (``np.exp``, comparisons, ``float(x)``, ``astype(float)``, sorting,
  division by an array of the same kind) raises :class:`~seprank.errors.DomainError`
  naming it. Nothing returns a silently wrong value.

Constants (Python or numpy numbers and arrays, ``fractions.Fraction``) are converted by
``ops.constant`` when they meet an exact array.
"""

from __future__ import annotations

import math
import numbers
import string

import numpy as np

from seprank.errors import DomainError

#: numpy functions that only move, copy or select entries, by how their values are passed:
#: "first" (the first argument), "seq" (a sequence as the first argument), "all" (every
#: positional argument).
STRUCTURAL = {
    **dict.fromkeys(
        (
            "transpose",
            "reshape",
            "moveaxis",
            "swapaxes",
            "expand_dims",
            "squeeze",
            "broadcast_to",
            "tile",
            "repeat",
            "flip",
            "fliplr",
            "flipud",
            "roll",
            "take",
            "diagonal",
            "tril",
            "triu",
            "copy",
            "ravel",
            "split",
            "array_split",
            "rot90",
            "take_along_axis",
            "delete",
            "diag",
            "shape",
            "ndim",
            "size",
            "atleast_1d",
            "atleast_2d",
            "atleast_3d",
            "ascontiguousarray",
            "squeeze",
        ),
        "first",
    ),
    **dict.fromkeys(
        ("concatenate", "stack", "vstack", "hstack", "dstack", "column_stack", "block"), "seq"
    ),
    "broadcast_arrays": "all",
    "append": (0, 1),
    "insert": (0, 2),
}
COMPARISONS = {"greater", "greater_equal", "less", "less_equal", "equal", "not_equal",
               "maximum", "minimum", "fmax", "fmin", "sign", "absolute", "logical_and",
               "logical_or", "logical_not", "logical_xor", "isnan", "isinf"}


#: Keywords a ufunc call may carry (anything else, e.g. matmul's axes=, is refused).
_COMMON = {"casting", "order", "subok", "dtype", "where"}
UFUNC_KEYWORDS = {"__call__": _COMMON, "outer": _COMMON,
                  "reduce": _COMMON | {"axis", "keepdims", "initial"},
                  "accumulate": _COMMON | {"axis"}}


class ExactArray(np.ndarray):
    """int64 values whose arithmetic is ``self.ops``'s (see the module docstring)."""

    ops = None

    def __new__(cls, raw, ops):
        raw = np.asarray(raw)
        if raw.dtype.kind not in "iub":
            raise DomainError(f"{cls.__name__} values must be integers, not {raw.dtype}")
        obj = raw.astype(np.int64, copy=False).view(cls)
        obj.ops = ops
        return obj

    def __array_finalize__(self, obj):
        self.ops = getattr(obj, "ops", None)

    def __reduce__(self):
        return (type(self), (self.raw.copy(), self.ops))

    @property
    def raw(self) -> np.ndarray:
        """The stored int64 values as a plain ndarray (a view)."""
        return self.view(np.ndarray)

    def __repr__(self):
        return f"{type(self).__name__}({self.raw.tolist()!r}, {self.ops})"

    __str__ = __repr__

    # -------------------------------------------------------------- element access
    def __getitem__(self, key):
        if _leaves(key):
            raise self.ops.refuse("indexing by array values")
        r = super().__getitem__(key)
        return r if isinstance(r, np.ndarray) else type(self)(np.asarray(r), self.ops)

    def __setitem__(self, key, value):
        super().__setitem__(key, self.ops.operand(value))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __float__(self):
        raise self.ops.refuse("float()")

    def __bool__(self):
        raise self.ops.refuse("truth value (a branch on array values)")

    def astype(self, dtype, *args, **kwargs):
        if np.dtype(dtype).kind not in "iu":
            raise self.ops.refuse(f"astype({np.dtype(dtype)})")
        return self.copy()

    def fill(self, value):
        self.raw.fill(self.ops.operand(value))

    def put(self, indices, values, mode="raise"):
        if _leaves(indices):
            raise self.ops.refuse("indexing by array values")
        self.raw.put(indices, self.ops.operand(values), mode)

    @property
    def flat(self):
        raise self.ops.refuse("flat (its items are plain integers; use ravel())")

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, where=True):
        return _store(mean(self.ops, self, axis=axis, keepdims=keepdims, where=where), out)

    def dot(self, b, out=None):
        return _store(dot(self.ops, self, b), out)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return _store(trace(self.ops, self, offset, axis1, axis2), out)

    def _refused(self, *a, **kw):
        raise self.ops.refuse("an order-based method (sort, argmax, searchsorted, nonzero...)")

    sort = argsort = argmax = argmin = searchsorted = partition = argpartition = _refused
    nonzero = max = min = ptp = all = any = round = choose = _refused

    # -------------------------------------------------------------- numpy protocols
    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kw):
        ops = common_ops(inputs + (out or ()))
        extra = set(kw) - UFUNC_KEYWORDS.get(method, UFUNC_KEYWORDS["__call__"])
        if extra:
            raise ops.refuse(f"{ufunc.__name__}.{method} with {', '.join(sorted(extra))}=")
        if kw.get("where", True) is not True:
            raise ops.refuse(f"{ufunc.__name__} with where=")
        dtype = kw.get("dtype")
        if dtype is not None and np.dtype(dtype).kind not in "iu":
            raise ops.refuse(f"{ufunc.__name__} with dtype={np.dtype(dtype)}")
        if method == "__call__":
            res = call(ops, ufunc.__name__, inputs)
        elif method == "outer" and len(inputs) == 2:
            a, b = (ops.wrap(ops.operand(x)) for x in inputs)
            res = call(ops, ufunc.__name__, (a.reshape(a.shape + (1,) * b.ndim), b))
        elif method in ("reduce", "accumulate") and ufunc.__name__ in ("add", "multiply"):
            res = reduction(ops, ufunc.__name__, method, inputs[0], kw)
        else:
            raise ops.refuse(f"{ufunc.__name__}.{method}")
        return _store(res, out[0] if out else None)

    def __array_function__(self, func, types, args, kwargs):
        ops = common_ops(_leaves((args, kwargs)))
        name = func.__name__
        if name in EXACT:
            return EXACT[name](ops, *args, **kwargs)
        if name == "where":
            return where(ops, *args)
        if name in ("zeros_like", "ones_like", "empty_like", "full_like"):
            return like(ops, name, *args, **kwargs)
        if name == "pad":
            return pad(ops, *args, **kwargs)
        if name in STRUCTURAL:
            return structural(ops, func, STRUCTURAL[name], args, kwargs)
        raise ops.refuse(f"numpy.{name}")


def _leaves(obj):
    """The ExactArrays inside nested tuples, lists and dicts."""
    if isinstance(obj, ExactArray):
        return (obj,)
    if isinstance(obj, (list, tuple)):
        return tuple(x for v in obj for x in _leaves(v))
    if isinstance(obj, dict):
        return tuple(x for v in obj.values() for x in _leaves(v))
    return ()


def common_ops(values):
    """The one number system of the ExactArrays among ``values`` (DomainError on a mix)."""
    found = {v.ops for v in values if isinstance(v, ExactArray)}
    if len(found) != 1:
        names = ", ".join(sorted(str(o) for o in found))
        raise DomainError(f"arrays of different number systems met in one operation: {names}")
    return found.pop()


def _store(res, out):
    if out is None:
        return res
    out[...] = res
    return out


def call(ops, name, inputs):
    """One elementwise ufunc (or matmul) on exact arrays and constants."""
    if name in ("add", "subtract", "multiply", "matmul"):
        a, b = (ops.operand(x) for x in inputs)
        return ops.wrap(getattr(ops, name)(a, b))
    if name in ("negative", "positive", "conjugate", "conj", "square"):
        a = ops.operand(inputs[0])
        return ops.wrap(ops.multiply(a, a) if name == "square" else
                        ops.negative(a) if name == "negative" else a.copy())
    if name == "power":
        base, k = inputs
        if isinstance(k, ExactArray) or np.ndim(k) or isinstance(k, (float, np.floating)) \
                or int(k) < 0:
            raise ops.refuse(f"power with exponent {k!r} (only a non-negative integer)")
        return ops.wrap(ops.power(ops.operand(base), int(k)))
    if name in ("true_divide", "divide", "floor_divide"):
        a, c = inputs
        if isinstance(c, ExactArray):
            raise ops.refuse("division by a non-constant")
        if name == "floor_divide":
            raise ops.refuse("floor division")
        return ops.wrap(ops.divide_constant(ops.operand(a), c))
    if name in COMPARISONS:
        raise ops.refuse(f"{name} (a comparison or order used as a value)")
    raise ops.refuse(f"numpy.{name}")


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(int(a) % max(ndim, 1) for a in axes))


def reduction(ops, name, method, a, kw):
    """``add``/``multiply`` ``reduce`` (sum, prod) or ``accumulate`` (cumsum, cumprod)."""
    raw = ops.operand(a)
    axis = kw.get("axis", 0)
    if method == "accumulate":
        return ops.wrap(ops.accumulate(name, raw, int(axis or 0) % max(raw.ndim, 1)))
    axes = _axes(axis, raw.ndim)
    res = ops.reduce(name, raw, axes)
    initial = kw.get("initial")
    if isinstance(initial, (numbers.Number, np.ndarray)):  # numpy passes a no-value marker
        res = getattr(ops, name)(res, ops.operand(initial))
    if kw.get("keepdims"):
        res = np.expand_dims(res, axes)
    return ops.wrap(res)


# ----------------------------------------------------------------- exact numpy functions
def _no_where(ops, name, where):
    if where is not True:
        raise ops.refuse(f"numpy.{name} with where=")


def einsum(ops, subscripts, *operands, out=None, dtype=None, **kw):
    """Any number of operands, contracted pairwise left to right (letters that no later
    operand and not the output uses are summed as early as possible)."""
    out_array = out
    if dtype is not None and np.dtype(dtype).kind not in "iu":
        raise ops.refuse(f"einsum with dtype={np.dtype(dtype)}")
    if not isinstance(subscripts, str) or "..." in subscripts:
        raise ops.refuse("einsum without explicit letters (write every index; no '...')")
    spec = subscripts.replace(" ", "")
    ins, _, out = spec.partition("->")
    terms = ins.split(",")
    if "->" not in spec:
        counts = {ch: ins.count(ch) for ch in ins if ch != ","}
        out = "".join(sorted(ch for ch, n in counts.items() if n == 1))
    if len(terms) != len(operands) or not set(spec) <= set(string.ascii_letters + ",->"):
        raise DomainError(f"einsum: subscripts {subscripts!r} do not match "
                          f"{len(operands)} operand(s)")
    raws = [ops.operand(x) for x in operands]
    acc_s, acc = terms[0], raws[0]
    for k in range(1, len(terms)):
        later = set("".join(terms[k + 1 :])) | set(out)
        keep = "".join(ch for ch in dict.fromkeys(acc_s + terms[k]) if ch in later)
        acc, acc_s = ops.einsum2(f"{acc_s},{terms[k]}->{keep}", acc, raws[k]), keep
    if acc_s != out or len(terms) == 1:
        acc = ops.einsum1(f"{acc_s}->{out}", acc)
    return _store(ops.wrap(acc), out_array)


def sum_(ops, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _no_where(ops, "sum", where)
    res = reduction(ops, "add", "reduce", a, {"axis": axis, "keepdims": keepdims,
                                               "initial": initial})
    return _store(res, out)


def prod(ops, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _no_where(ops, "prod", where)
    res = reduction(ops, "multiply", "reduce", a, {"axis": axis, "keepdims": keepdims,
                                                    "initial": initial})
    return _store(res, out)


def _cumulative(name):
    def run(ops, a, axis=None, dtype=None, out=None):
        raw = ops.operand(a)
        if axis is None:
            raw, axis = raw.ravel(), 0
        return _store(ops.wrap(ops.accumulate(name, raw, int(axis) % max(raw.ndim, 1))), out)

    return run


def mean(ops, a, axis=None, dtype=None, out=None, keepdims=False, where=True):
    _no_where(ops, "mean", where)
    shape = np.shape(a)
    count = math.prod(shape[i] for i in _axes(axis, len(shape)))
    total = reduction(ops, "add", "reduce", a, {"axis": axis, "keepdims": keepdims})
    return _store(ops.wrap(ops.divide_constant(ops.operand(total), count)), out)


def matmul(ops, a, b, out=None, **kw):
    return _store(ops.wrap(ops.matmul(ops.operand(a), ops.operand(b))), out)


def tensordot(ops, a, b, axes=2):
    return ops.wrap(_tensordot_raw(ops, ops.operand(a), ops.operand(b), axes))


def _tensordot_raw(ops, a, b, axes):
    if isinstance(axes, (int, np.integer)):
        axa, axb = list(range(a.ndim - int(axes), a.ndim)), list(range(int(axes)))
    else:
        axa, axb = ([x] if isinstance(x, (int, np.integer)) else list(x) for x in axes)
    axa, axb = [x % a.ndim for x in axa], [x % b.ndim for x in axb]
    ra = [i for i in range(a.ndim) if i not in axa]
    rb = [i for i in range(b.ndim) if i not in axb]
    n = math.prod(a.shape[i] for i in axa)
    A = np.transpose(a, ra + axa).reshape(-1, n)
    B = np.transpose(b, axb + rb).reshape(n, -1)
    shape = [a.shape[i] for i in ra] + [b.shape[i] for i in rb]
    return ops.matmul(A, B).reshape(shape)


def dot(ops, a, b, out=None):
    ra, rb = ops.operand(a), ops.operand(b)
    if ra.ndim == 0 or rb.ndim == 0:
        res = ops.wrap(ops.multiply(ra, rb))
    elif rb.ndim == 1 or ra.ndim <= 2 and rb.ndim <= 2:
        res = ops.wrap(ops.matmul(ra, rb))
    else:
        res = ops.wrap(_tensordot_raw(ops, ra, rb, ([-1], [-2])))
    return _store(res, out)


def outer(ops, a, b, out=None):
    ra, rb = ops.operand(a).ravel(), ops.operand(b).ravel()
    return _store(ops.wrap(ops.multiply(ra[:, None], rb[None, :])), out)


def trace(ops, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d = np.diagonal(ops.operand(a), offset, axis1, axis2)
    return _store(ops.wrap(ops.reduce("add", d, (d.ndim - 1,))), out)


def diff(ops, a, n=1, axis=-1):
    raw = ops.operand(a)
    for _ in range(int(n)):
        hi = np.take(raw, range(1, raw.shape[axis]), axis=axis)
        lo = np.take(raw, range(0, raw.shape[axis] - 1), axis=axis)
        raw = ops.subtract(hi, lo)
    return ops.wrap(raw)


EXACT = {"einsum": einsum, "sum": sum_, "prod": prod, "cumsum": _cumulative("add"),
         "cumprod": _cumulative("multiply"), "mean": mean, "matmul": matmul,
         "tensordot": tensordot, "dot": dot, "outer": outer, "trace": trace,
         "diff": diff}


# ---------------------------------------------------------------- entries moved, not computed
def _rewrap(ops, res):
    if isinstance(res, np.ndarray) and res.dtype == np.int64:
        return ops.wrap(res)
    if isinstance(res, (list, tuple)):
        return type(res)(_rewrap(ops, r) for r in res)
    return res


def structural(ops, func, how, args, kwargs):
    """Run ``func`` on the raw values: it moves, copies or selects entries only."""
    args = list(args)
    if how == "first":
        args[0] = ops.operand(args[0])
    elif how == "seq":
        args[0] = _nested(ops, args[0])
    elif how == "all":
        args = [ops.operand(x) for x in args]
    else:  # the positions holding values (insert(arr, index, values): not the index)
        args = [ops.operand(x) if i in how else x for i, x in enumerate(args)]
    if _leaves((args, kwargs)):
        raise ops.refuse(f"numpy.{func.__name__} with array values as indices or sizes")
    return _rewrap(ops, func(*args, **kwargs))


def _nested(ops, seq):
    """The values of a (nested, for ``np.block``) list of arrays, converted leaf by leaf."""
    if isinstance(seq, (list, tuple)):
        return [_nested(ops, x) for x in seq]
    return ops.operand(seq)


def where(ops, cond, *values):
    if isinstance(cond, ExactArray):
        raise ops.refuse("where() with a condition on array values")
    if len(values) != 2:
        raise ops.refuse("where() with one argument (nonzero)")
    a, b = (ops.operand(v) for v in values)
    return ops.wrap(np.where(np.asarray(cond, dtype=bool), a, b))


def like(ops, name, a, *args, **kwargs):
    shape = kwargs.get("shape") or np.shape(a)
    fill = args[0] if name == "full_like" and args else kwargs.get("fill_value", 0)
    value = 1 if name == "ones_like" else fill if name == "full_like" else 0
    return ops.wrap(np.broadcast_to(ops.operand(np.full((), value, dtype=object)),
                                    shape).copy())


def pad(ops, a, pad_width, mode="constant", **kwargs):
    if mode != "constant":
        raise ops.refuse(f"pad(mode={mode!r}) (only mode='constant')")
    c = ops.operand(np.asarray(kwargs.pop("constant_values", 0), dtype=object))
    if c.ndim:
        raise ops.refuse("pad with per-axis constant_values")
    return ops.wrap(np.pad(ops.operand(a), pad_width, constant_values=int(c)))


class Arithmetic:
    """What the values of an :class:`ExactArray` mean: subclasses define the operations
    (``add subtract multiply negative power divide_constant matmul einsum2 einsum1 reduce
    accumulate``) on raw int64 arrays and ``constant`` (a number or array -> raw values)."""

    array_type = ExactArray
    where = "exact arithmetic"

    def wrap(self, raw) -> ExactArray:
        return self.array_type(raw, self)

    def operand(self, x) -> np.ndarray:
        """Raw values of an exact array of this system, or of a constant."""
        if isinstance(x, ExactArray):
            if x.ops != self:
                common_ops((x, self.wrap(np.zeros(0))))  # the mixed-systems message
            return x.raw
        return self.constant(x)

    def refuse(self, what: str) -> DomainError:
        return DomainError(
            f"{what} on a {self.array_type.__name__} leaves {self.where}: "
            "not a polynomial operation seprank can compute exactly"
        )

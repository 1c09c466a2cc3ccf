"""The one place an architecture's ``apply`` is called: inputs and weights handed over as
the domain's arrays, the output checked before any number is read from it.

Under ModP the arrays are field arrays, so plain numpy code computes exactly in GF(p) and
an operation that leaves the field raises DomainError; an output that is not the domain's
array of shape (batch,) or (batch, 1) (a float array after a cast, a torch tensor from
library code) is refused in one line, never read as residues.
"""

from __future__ import annotations

import numbers

import numpy as np

from seprank.algebra.exact_array import ExactArray
from seprank.errors import DomainError


def _describe(out) -> str:
    if isinstance(out, ExactArray):
        return f"a {type(out).__name__} over {out.ops} of shape {out.shape}"
    if isinstance(out, np.ndarray):
        return f"a numpy array of dtype {out.dtype} and shape {out.shape}"
    shape = getattr(out, "shape", None)
    return f"a {type(out).__module__}.{type(out).__name__}" + (
        f" of shape {tuple(shape)}" if shape is not None else ""
    )


def _expected(domain) -> str:
    ops = domain.exact_array
    if ops is not None:
        return f"a {ops.array_type.__name__} over {ops}"
    return {"float64": "a float64 array", "symbolic": "an object array (polynomials)"}.get(
        domain.name, "an array"
    )


def _kind_ok(out, domain) -> bool:
    ops = domain.exact_array
    if ops is not None:
        return isinstance(out, ExactArray) and out.ops == ops
    if not isinstance(out, np.ndarray) or isinstance(out, ExactArray):
        return False
    return out.dtype == object if domain.name == "symbolic" else out.dtype.kind in "fiu"


def _as_float(out):
    """Float64: an object array of real numbers (a Fraction constant met a float array)
    read as float64; anything else as it came."""
    if isinstance(out, np.ndarray) and out.dtype == object and \
            all(isinstance(v, numbers.Real) for v in out.ravel()):
        return out.astype(np.float64)
    return out


def check_output(net, out, domain, batch: int) -> np.ndarray:
    """The raw values of ``apply``'s output, shape (batch,); DomainError saying what came."""
    if domain.name == "float64":
        out = _as_float(out)
    if not _kind_ok(out, domain) or np.shape(out) not in ((batch,), (batch, 1)):
        hint = (" (an operation left GF(p): a cast to float, or a library such as torch "
                "that computes on its own number type)" if domain.exact_array is not None
                and domain.name == "modp" else "")
        raise DomainError(
            f"{type(net).__name__}.apply returned {_describe(out)}; expected "
            f"{_expected(domain)} of shape ({batch},) or ({batch}, 1){hint}"
        )
    values = out.raw if isinstance(out, ExactArray) else out
    return values.reshape(batch)


def evaluate(net, params, X, domain) -> np.ndarray:
    """``net.apply`` on the domain's arrays, its output checked (:func:`check_output`).
    ``X`` holds seprank's own sample points (residues mod p under ModP); ``params`` may
    hold anything ``init`` returned (constants are converted exactly, or refused)."""
    try:
        out = net.apply(domain.wrap(params), domain.wrap(X, residues=True), domain)
    except (NotImplementedError, TypeError, np.linalg.LinAlgError) as exc:
        if domain.name != "symbolic":
            raise
        # numpy on object arrays of polynomials: an operation with no exact meaning there
        # (np.linalg on polynomials, a ufunc they lack) surfaces as numpy's own error
        raise DomainError(f"{type(net).__name__}.apply does not run on polynomials (the "
                          f"symbolic domain): {type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''}; method='modular' "
                          "measures it if it is exact there") from None
    return check_output(net, out, domain, len(X))

"""The field checkers every certificate kind's schema is written with: one line naming the
first bad field (:class:`CertificateSchemaError`), strict types (a bool is not an int, an
int is not a float or a string), ranges and sizes bounded.

The common schema (:mod:`seprank.verdicts.certificate_schema`) and each kind's own
(:mod:`seprank.verdicts.kinds`) use them; this module imports neither.
"""

from __future__ import annotations

import json

from seprank.errors import ConfigError

#: Largest index of a sampled point (and of a count of points).
MAX_INDEX = 2**31
#: Largest side T + 1 of the graded Vandermonde inverse (T = 3^L): depth 7 (2188) takes
#: seconds with python-flint; depth 8 (6562) minutes, depth 9 (19684: ~7.6e12 operations,
#: 3 GB) would not finish. Also the most blocks a certificate may have.
MAX_VANDERMONDE = 2188


class CertificateSchemaError(ConfigError):
    """A certificate that is unreadable or malformed (not merely false)."""


class UnknownKindError(CertificateSchemaError):
    """A certificate of a kind this seprank does not know: it cannot be checked here,
    which is no verdict on it."""


class OverBudgetError(CertificateSchemaError):
    """A certificate whose check would cost more than the budget allows.

    The memory or seconds are estimated from its claimed sizes before anything is built;
    it is not checked, which is no verdict on it.
    """


def fail(field: str, why: str):
    """Raise CertificateSchemaError: ``certificate: FIELD WHY``.

    Parameters
    ----------
    field : str
        The field, as a path (``blocks[0].rows``).
    why : str
        What is wrong with it.

    Raises
    ------
    CertificateSchemaError
        Always.
    """
    raise CertificateSchemaError(f"certificate: {field} {why}")


def is_int(v) -> bool:
    """Whether ``v`` is an int and not a bool.

    Parameters
    ----------
    v : object
        The value.

    Returns
    -------
    bool
        True for an int that is not a bool.
    """
    return isinstance(v, int) and not isinstance(v, bool)


def integer(field: str, v, lo: int = 0, hi: int = MAX_INDEX, null: bool = False) -> None:
    """Refuse ``v`` unless it is an integer in [lo, hi] (or None with ``null``).

    Parameters
    ----------
    field : str
        The field's name, for the message.
    v : object
        Its value.
    lo, hi : int, default 0, MAX_INDEX
        The range.
    null : bool, default False
        Whether None is allowed.
    """
    if v is None and null:
        return
    if not is_int(v):
        fail(field, f"must be an integer{' or null' if null else ''}, got {show(v)}")
    if not lo <= v <= hi:
        fail(field, f"must be in [{lo}, {hi}], got {show(v)}")


#: The longest string field a certificate may hold (``upper_source``, ``claim``, ...).
MAX_STRING = 10_000


def string(field: str, v, limit: int = MAX_STRING) -> None:
    """Refuse ``v`` unless it is a string of at most ``limit`` characters.

    Parameters
    ----------
    field : str
        The field's name, for the message.
    v : object
        Its value.
    limit : int, default 10000
        The longest string allowed.
    """
    if not isinstance(v, str):
        fail(field, f"must be a string, got {show(v)}")
    if len(v) > limit:
        fail(field, f"is {len(v)} characters, at most {limit}")


def show(v) -> str:
    """A short text of a value for a message: its type and (the start of) its JSON.

    Parameters
    ----------
    v : object
        The value.

    Returns
    -------
    str
        E.g. ``str "magic"``.
    """
    return f"{type(v).__name__} {json.dumps(v)[:40] if _jsonable(v) else repr(v)[:40]}"


def _jsonable(v) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


def integers(field: str, v, hi: int = MAX_INDEX, limit: int = 10**7) -> list:
    """Refuse ``v`` unless it is a list of at most ``limit`` integers in [0, hi].

    Parameters
    ----------
    field : str
        The field's name, for the message.
    v : object
        Its value.
    hi : int, default MAX_INDEX
        The largest entry allowed.
    limit : int, default 10**7
        The longest list allowed.

    Returns
    -------
    list
        ``v``.
    """
    if not isinstance(v, list):
        fail(field, f"must be a list of integers, got {show(v)}")
    if len(v) > limit:
        fail(field, f"has {len(v)} entries, at most {limit}")
    for i, x in enumerate(v):
        integer(f"{field}[{i}]", x, 0, hi)
    return v


def blocks(bs, keys: tuple, hi: int = MAX_INDEX, more=None) -> None:
    """Refuse ``bs`` unless it is a non-empty list of at most MAX_VANDERMONDE blocks, each
    an object with exactly ``keys``: an integer (or null) ``degree``, a ``rank``, and
    ``rows`` and ``cols`` lists of integers in [0, hi].

    Parameters
    ----------
    bs : object
        The certificate's ``blocks``.
    keys : tuple of str
        A block's fields (at least degree, rank, rows and cols).
    hi : int, default MAX_INDEX
        The largest row or column index allowed.
    more : callable, optional
        ``more(field, block)`` checks the block's other fields.
    """
    if not isinstance(bs, list) or not bs:
        fail("blocks", f"must be a non-empty list, got {show(bs)}")
    if len(bs) > MAX_VANDERMONDE:
        fail("blocks", f"has {len(bs)} blocks, at most {MAX_VANDERMONDE}")
    for i, b in enumerate(bs):
        f = f"blocks[{i}]"
        if not isinstance(b, dict) or set(b) != set(keys):
            fail(f, f"must be an object with exactly {', '.join(keys)}")
        integer(f"{f}.degree", b["degree"], 0, 3**40, null=True)
        integer(f"{f}.rank", b["rank"], 0)
        integers(f"{f}.rows", b["rows"], hi)
        integers(f"{f}.cols", b["cols"], hi)
        if more is not None:
            more(f, b)

"""Sizes given as any integral number: a dataclass architecture's numpy integers and numpy
bools become Python ints and bools before its fields are checked (``depth=np.int64(2)`` is
the depth 2; python-flint and the exact integer code take only Python ints), while bools
and floats stay what they are and are refused by the checks, naming the field."""

from __future__ import annotations

import dataclasses

import numpy as np


def plain_numbers(obj) -> None:
    """Replace the numpy integers and numpy bools among ``obj``'s dataclass fields by
    Python ints and bools, in place (a frozen dataclass included).

    Parameters
    ----------
    obj : dataclass instance
        The architecture, from its ``__post_init__`` before the checks.
    """
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name, None)
        if isinstance(v, np.bool_):
            object.__setattr__(obj, f.name, bool(v))
        elif isinstance(v, np.integer):
            object.__setattr__(obj, f.name, int(v))

"""First-run feedback: are the compiled (numba) kernels cached on disk yet?

The kernels are compiled with ``cache=True``, so only the first run on a machine pays the
compilation (about 20 s on 2 cores); later runs load them from ``__pycache__``.
"""

from __future__ import annotations

import os

from seprank.algebra import blas_elimination
from seprank.nets import attention_kernel

COMPILING = "compiling kernels (first run only, about 20 s; cached for later runs)"


def _dispatchers() -> list:
    names = ["_panel", "_gj_inverse", "_move_rows", "_combine", "subtract_products", "_inv"]
    out = [getattr(blas_elimination, n, None) for n in names]
    out.append(getattr(attention_kernel, "_kernel", None))
    return [d for d in out if d is not None and hasattr(d, "_cache")]


def kernels_cached() -> bool:
    """True when every compiled kernel has an on-disk cache index (or numba is absent)."""
    try:
        return all(os.path.exists(d._cache._cache_file._index_path) for d in _dispatchers())
    except (AttributeError, ImportError):  # numba internals moved: assume cached, say nothing
        return True

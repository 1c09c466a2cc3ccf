"""First-run feedback: are the compiled (numba) kernels cached on disk yet?

The kernels are compiled with ``cache=True``, so only the first run on a machine pays the
compilation (about 20 s on 2 cores); later runs load them from ``__pycache__``.
"""

from __future__ import annotations

import os

COMPILING = "compiling kernels (first run only, about 20 s; cached for later runs)"


def _dispatchers() -> list:
    from . import modlu
    from .nets import _attention_kernel

    names = ["_panel", "_gj_inverse", "_move_rows", "_combine", "_subtract", "_inv"]
    out = [getattr(modlu, n, None) for n in names] + [getattr(_attention_kernel, "_kernel", None)]
    return [d for d in out if d is not None and hasattr(d, "_cache")]


def kernels_cached() -> bool:
    """True when every compiled kernel has an on-disk cache index (or numba is absent)."""
    try:
        return all(os.path.exists(d._cache._cache_file._index_path) for d in _dispatchers())
    except (AttributeError, ImportError):  # numba internals moved: assume cached, say nothing
        return True


def warm_up(say=None) -> None:
    """Compile (or load) every kernel with a tiny measurement, saying so if it compiles."""
    if kernels_cached():
        return
    if say is not None:
        say(COMPILING)
    from .measure import measure
    from .nets import LinearSelfAttention

    # (3, 2, 1, 4) reaches a 275 x 275 grid: the kernel and the blocked rank engine both run
    measure(LinearSelfAttention(depth=3, width=2, heads=1, seq_len=4), rank_engine="blas")

"""Compile (or load) the compiled kernels ahead of a long run, saying so once."""

from __future__ import annotations

from seprank.engine import kernels
from seprank.engine.measure import measure
from seprank.nets import LinearSelfAttention


def warm_up(say=None) -> None:
    """Compile (or load) every kernel with a tiny measurement, saying so if it compiles."""
    if kernels.kernels_cached():
        return
    if say is not None:
        say(kernels.COMPILING)
    # (3, 2, 1, 4) reaches a 275 x 275 grid: the kernel and the blocked rank engine both run
    measure(LinearSelfAttention(depth=3, width=2, heads=1, seq_len=4), rank_engine="blas")

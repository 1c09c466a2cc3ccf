"""The array engine on torch, CPU or CUDA (``auto`` on a GPU): the same elimination as
:mod:`seprank.algebra.rank_engines.array_numpy`; torch is imported only when it ranks."""

from __future__ import annotations

import importlib.util

from seprank.algebra import array_elimination
from seprank.algebra.rank_engines.array_numpy import ArrayNumpyEngine
from seprank.algebra.rank_engines.base import register


@register
class ArrayTorchEngine(ArrayNumpyEngine):
    """GF(p) ranks by torch float64 tensors, on the CPU or a CUDA GPU."""

    name = "array-torch"
    devices = ("cpu", "cuda")
    auto_on = ("cuda",)
    preference = 3
    backend = "torch"

    @classmethod
    def missing(cls) -> str | None:
        """Whether torch is installed."""
        if importlib.util.find_spec("torch") is None:
            return "needs torch (pip install 'seprank[torch]')"
        return None

    @classmethod
    def device_problem(cls, device: str) -> str | None:
        """Why CUDA cannot run here (:func:`~seprank.algebra.array_elimination.cuda_problem`)."""
        return array_elimination.cuda_problem() if device == "cuda" else None

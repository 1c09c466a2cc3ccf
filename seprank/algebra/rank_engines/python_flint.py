"""The python-flint engine: nmod_mat's rank, exact for any word-size prime (``auto`` where
the float64 engines do not fit)."""

from __future__ import annotations

import importlib.util

import numpy as np

from seprank.algebra.rank_engines.base import RankEngine, flint_matrix, register


@register
class FlintEngine(RankEngine):
    """GF(p) ranks by python-flint's nmod_mat (any prime ModP accepts)."""

    name = "flint"
    prime_limit = None
    dtype = "nmod (word-size integers)"
    auto_on = ("cpu",)
    preference = 1

    @classmethod
    def missing(cls) -> str | None:
        """Whether python-flint is installed (a dependency: normally it is)."""
        if importlib.util.find_spec("flint") is None:
            return "needs python-flint (pip install python-flint)"
        return None

    def _rank(self, M: np.ndarray, overwrite: bool) -> int:
        return int(flint_matrix(M, self.p).rank())

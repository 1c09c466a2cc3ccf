"""The array engine on numpy: the elimination written once over an array backend
(:mod:`seprank.algebra.array_elimination`), exact for primes below 2**26."""

from __future__ import annotations

import numpy as np

from seprank.algebra import array_elimination
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.algebra.rank_engines.base import RankEngine, register


@register
class ArrayNumpyEngine(RankEngine):
    """GF(p) ranks by whole-array numpy operations (no compiled code)."""

    name = "array-numpy"
    prime_limit = FLOAT64_PRIME_LIMIT
    dtype = "float64"
    preference = 2
    #: The array_elimination backend it runs on.
    backend = "numpy"

    def array_backend(self):
        """The backend object the elimination runs on (an engine for another array
        library overrides this: one object with the methods of
        :class:`~seprank.algebra.array_elimination.NumpyBackend`)."""
        return array_elimination.get_backend(self.backend, self.device)

    def _rank(self, M: np.ndarray, overwrite: bool) -> int:
        return array_elimination.rank(np.asarray(M, dtype=np.int64), self.p,
                                      self.array_backend())

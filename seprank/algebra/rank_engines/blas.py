"""The BLAS engine: exact GF(p) arithmetic on float64 BLAS for primes below 2**26. Its
rank and left kernel come from the recursive LU (:mod:`seprank.algebra.lu_rank`), its
pivots from the blocked elimination (:mod:`seprank.algebra.blas_elimination`), which the
extendable elimination (:mod:`seprank.algebra.incremental`) shares."""

from __future__ import annotations

import numpy as np

from seprank.algebra import blas_elimination, lu_rank
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.algebra.rank_engines.base import RankEngine, register


@register
class BlasEngine(RankEngine):
    """GF(p) ranks by float64 BLAS products (``auto`` on the CPU below 2**26)."""

    name = "blas"
    prime_limit = FLOAT64_PRIME_LIMIT
    dtype = "float64"
    auto_on = ("cpu",)
    preference = 0
    has_left_kernel = True
    incremental_growth = True

    @classmethod
    def missing(cls) -> str | None:
        """Why the compiled panels are absent (numba did not load), or None."""
        ready = blas_elimination.available() and lu_rank.available()
        return None if ready else "needs numba (pip install numba)"

    def _rank(self, M: np.ndarray, overwrite: bool) -> int:
        return lu_rank.rank(M, self.p, overwrite=overwrite)

    def rank_many(self, mats: list) -> list[int]:
        """Small float64 matrices of residues (:func:`lu_rank.small`) in one compiled call
        (:func:`lu_rank.rank_many`); anything else (larger, integer, or with entries
        outside [0, p)) one by one, as :meth:`rank` takes it."""
        mats = [np.asarray(M) for M in mats]
        if all(M.ndim == 2 and M.dtype == np.float64 and lu_rank.small(M.shape)
               for M in mats):
            try:
                return lu_rank.rank_many(mats, self.p)
            except ValueError:  # an entry that is not a residue: reduced one by one
                pass
        return super().rank_many(mats)

    def left_kernel(self, M: np.ndarray, overwrite: bool = False) -> np.ndarray:
        """A basis of the left kernel of ``M`` mod p from one elimination, (rows - rank) x
        rows float64 residues (``overwrite``: a float64 ``M`` is eliminated in place)."""
        return lu_rank.left_kernel(M, self.p, overwrite=overwrite)  # it reduces M itself

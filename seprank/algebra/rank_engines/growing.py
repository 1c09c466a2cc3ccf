"""A GF(p) rank that grows with its matrix (:class:`GrowingRank`), as the adaptive loop of
the direct and graded strategies produces it; an engine's ``grow()`` makes one."""

from __future__ import annotations

import numpy as np

from seprank.algebra.incremental import IncrementalRank


class GrowingRank:
    """Exact GF(p) rank of a grid matrix that grows by new columns (for the rows so far)
    and new rows (for all columns), as the adaptive loop produces them.

    With ``incremental`` one elimination is extended (:class:`seprank.algebra.incremental.
    IncrementalRank`, BLAS arithmetic, p < 2**26); otherwise the whole matrix is kept and
    re-ranked from scratch at each step by ``engine`` (any engine or device). Both are
    exact and agree.
    """

    def __init__(self, engine, incremental: bool):
        self.engine = engine
        self.inc = IncrementalRank(engine.p) if incremental else None
        self.M = np.zeros((0, 0))
        self.rank = 0

    @property
    def incremental(self) -> bool:
        return self.inc is not None

    def add(self, right: np.ndarray, bottom: np.ndarray) -> int:
        """Append ``right`` (old rows x new columns) and ``bottom`` (new rows x all columns)."""
        if self.inc is not None:
            self.rank = self.inc.extend(right, bottom)
            return self.rank
        old_r, old_c = self.M.shape
        M = np.empty((old_r + bottom.shape[0], old_c + right.shape[1]))
        M[:old_r, :old_c] = self.M
        M[:old_r, old_c:] = right
        M[old_r:] = bottom
        self.M = M
        self.rank = self.engine.rank(M)
        return self.rank

    def minor(self) -> tuple[list[int], list[int]] | None:
        """Row and column indices (of the grown matrix) of a nonsingular rank x rank minor,
        or None once the matrix was dropped."""
        if self.inc is not None:
            r = self.inc.rank
            return ([int(i) for i in self.inc.row_ids[:r]],
                    [int(i) for i in self.inc.col_ids[:r]])
        if self.M is None:
            return None
        return self.engine.pivots(self.M)

    def drop(self) -> None:
        """Free the matrix (a saturated block is never extended again)."""
        self.inc, self.M = None, None

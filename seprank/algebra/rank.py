"""The exact GF(p) rank engine: one object, chosen once (:class:`RankEngine`), with
``.rank``, ``.pivots`` (a nonsingular minor) and ``.grow()`` (a rank that grows with its
matrix). Float ranks are in :mod:`seprank.algebra.float_rank`, ranks over Q of
coefficient matrices in :mod:`seprank.algebra.coefficients`.

>>> import numpy as np
>>> rank_modp(np.array([[1, 2], [2, 4]]), 7)
1
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np

from seprank.algebra import array_elimination, blas_elimination
from seprank.algebra.incremental import IncrementalRank
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.errors import ConfigError

#: GF(p) rank engines accepted by :func:`rank_modp`.
RANK_ENGINES = ("auto", "blas", "flint", "array-numpy", "array-torch")
#: Devices accepted by :func:`rank_modp`; "cuda" runs the array-torch engine on a GPU.
DEVICES = ("cpu", "cuda")
_SMALL_PRIME_ENGINES = ("blas", "array-numpy", "array-torch")  # float64 engines, p < 2**26


def check_rank_engine(
    engine: str, p: int | None, name: str = "engine", device: str = "cpu"
) -> None:
    """Raise ConfigError unless ``engine`` and ``device`` are known, fit the prime, and
    can run here (torch for array-torch; torch with CUDA for ``device="cuda"``).

    ``name`` is the engine argument's name in the caller's error message; ``p=None`` (no
    modulus involved) or a non-integer (rejected later, by ModP) skips the prime check.
    """
    if engine not in RANK_ENGINES:
        raise ConfigError(f"{name}={engine!r} must be one of {', '.join(RANK_ENGINES)}")
    if device not in DEVICES:
        raise ConfigError(f"device={device!r} must be one of {', '.join(DEVICES)}")
    big = isinstance(p, (int, np.integer)) and p >= FLOAT64_PRIME_LIMIT
    if engine in _SMALL_PRIME_ENGINES and big:
        raise ConfigError(
            f"{name}={engine!r} needs prime < 2**26 (got prime={p}); use auto or flint"
        )
    if device == "cuda":
        if engine not in ("auto", "array-torch"):
            raise ConfigError(
                f"device='cuda' needs {name}='auto' or 'array-torch' (got {engine!r})"
            )
        if big:
            raise ConfigError(f"device='cuda' needs prime < 2**26 (got prime={p})")
        if why := array_elimination.cuda_problem():
            raise ConfigError(f"device='cuda' is unavailable: {why}")
    if engine == "array-torch" and importlib.util.find_spec("torch") is None:
        raise ConfigError(f"{name}='array-torch' needs torch (pip install 'seprank[torch]')")


def _resolve(engine: str, p: int, device: str) -> str:
    """The engine that ``"auto"`` stands for (the one place the rule is written): the BLAS
    elimination on the CPU for p < 2**26 when its compiled panels load, array-torch on a
    GPU, python-flint otherwise."""
    if device == "cuda":
        return "array-torch"
    if engine != "auto":
        return engine
    return "blas" if p < FLOAT64_PRIME_LIMIT and blas_elimination.available() else "flint"


@dataclass(frozen=True)
class RankEngine:
    """An exact GF(p) rank engine, chosen and validated once (:meth:`choose`).

    ``name`` is the resolved engine (never ``"auto"``): ``"blas"``, ``"flint"``,
    ``"array-numpy"`` or ``"array-torch"``. All engines are exact and agree.

    >>> import numpy as np
    >>> eng = RankEngine.choose("auto", 7)
    >>> eng.rank(np.array([[1, 2], [2, 4]]))
    1
    >>> eng.pivots(np.array([[0, 1], [0, 2]]))
    ([0], [1])
    """

    p: int
    name: str
    device: str = "cpu"

    @classmethod
    def choose(cls, engine: str = "auto", p: int = 0, device: str = "cpu",
               arg: str = "engine") -> RankEngine:  # fmt: skip
        """Validate (:func:`check_rank_engine`, ``arg`` names the argument in errors) and
        resolve ``"auto"``."""
        check_rank_engine(engine, p, name=arg, device=device)
        return cls(int(p), _resolve(engine, int(p), device), device)

    def rank(self, M: np.ndarray, overwrite: bool = False) -> int:
        """Exact rank of the integer (or integer-valued float) matrix ``M`` mod p;
        ``M`` is not modified unless ``overwrite`` (the BLAS engine then eliminates a
        float64 matrix of residues in place: no copy)."""
        M = np.asarray(M)
        if M.size == 0:
            return 0
        if self.name == "blas":
            return blas_elimination.rank_blocked(M, self.p, overwrite=overwrite)
        if self.name in ("array-numpy", "array-torch"):
            backend = "torch" if self.name == "array-torch" else "numpy"
            return array_elimination.rank(np.asarray(M, dtype=np.int64), self.p,
                                          array_elimination.get_backend(backend, self.device))
        return int(_flint(M, self.p).rank())

    def pivots(self, M: np.ndarray) -> tuple[list[int], list[int]]:
        """(rows, cols) of a nonsingular rank x rank minor of ``M`` mod p (BLAS
        elimination where it applies, else python-flint's rref on ``M`` and ``M^T``)."""
        M = np.asarray(M)
        if M.size == 0:
            return [], []
        if self.p < FLOAT64_PRIME_LIMIT and blas_elimination.available():
            rows, cols = blas_elimination.pivots(np.array(M, dtype=np.float64), self.p)
            return [int(i) for i in rows], [int(i) for i in cols]
        M = np.asarray(M, dtype=np.int64)
        cols = _pivot_columns(M, self.p)
        rows = _pivot_columns(np.ascontiguousarray(M[:, cols].T), self.p)
        return rows, cols

    def grow(self, incremental: bool = True) -> GrowingRank:
        """A rank that grows with its matrix (:class:`GrowingRank`): one extended
        elimination when ``incremental`` and the engine is BLAS, else re-ranked."""
        return GrowingRank(self, incremental and self.name == "blas"
                           and blas_elimination.available())  # fmt: skip


def _flint(M: np.ndarray, p: int):
    import flint

    R, C = M.shape
    flat = (np.asarray(M, dtype=np.int64) % p).ravel().tolist()
    return flint.nmod_mat(R, C, flat, int(p))


def _pivot_columns(M: np.ndarray, p: int) -> list[int]:
    R, r = _flint(M, p).rref()
    return [next(j for j in range(M.shape[1]) if int(R[i, j]) != 0) for i in range(r)]


class GrowingRank:
    """Exact GF(p) rank of a grid matrix that grows by new columns (for the rows so far)
    and new rows (for all columns), as the adaptive loop produces them.

    With ``incremental`` one elimination is extended (:class:`seprank.algebra.incremental.
    IncrementalRank`, BLAS engine, p < 2**26); otherwise the whole matrix is kept and
    re-ranked from scratch at each step (any engine or device). Both are exact and agree.
    """

    def __init__(self, engine: RankEngine, incremental: bool):
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
                    [int(i) for i in self.inc.col_ids[:r]])  # fmt: skip
        if self.M is None:
            return None
        return self.engine.pivots(self.M)

    def drop(self) -> None:
        """Free the matrix (a saturated block is never extended again)."""
        self.inc, self.M = None, None


def rank_modp(F: np.ndarray, p: int, engine: str = "auto", device: str = "cpu") -> int:
    """Exact rank of the integer matrix ``F`` reduced mod the prime ``p``.

    The rank is computed by :meth:`RankEngine.choose` (engine, p, device). All engines are
    exact; they agree.

    Parameters
    ----------
    F : numpy.ndarray
        A 2-D integer matrix.
    p : int
        The prime modulus.
    engine : {"auto", "blas", "flint", "array-numpy", "array-torch"}, default "auto"
        ``"blas"``: blocked elimination on float64 BLAS with numba panels
        (:mod:`seprank.algebra.blas_elimination`, primes below 2**26); ``"flint"``:
        python-flint's nmod_mat (any word-size prime); ``"array-numpy"`` / ``"array-torch"``:
        the same elimination written once over an array backend
        (:mod:`seprank.algebra.array_elimination`, primes below 2**26); ``"auto"``: blas
        where it applies, else flint.
    device : {"cpu", "cuda"}, default "cpu"
        ``"cuda"`` runs array-torch on the GPU (then ``engine`` must be auto or array-torch).

    Returns
    -------
    int
        The rank of ``F`` over GF(p).

    Raises
    ------
    ConfigError
        If the engine is unknown or does not fit the prime or device, or torch or CUDA is
        missing for ``device="cuda"``.

    Examples
    --------
    >>> import numpy as np
    >>> rank_modp(np.array([[1, 2], [2, 4]]), 7)
    1
    >>> rank_modp(np.array([[1, 2], [3, 4]]), 2)
    1
    """
    return RankEngine.choose(engine, p, device).rank(F)

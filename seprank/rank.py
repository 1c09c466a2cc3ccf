"""Rank engines: exact over GF(p) (python-flint), float SVD, exact coefficient matrix.

>>> import numpy as np
>>> rank_modp(np.array([[1, 2], [2, 4]]), 7)
1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, TooBigError

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
    import importlib.util

    from . import modlu, xpelim

    if engine not in RANK_ENGINES:
        raise ConfigError(f"{name}={engine!r} must be one of {', '.join(RANK_ENGINES)}")
    if device not in DEVICES:
        raise ConfigError(f"device={device!r} must be one of {', '.join(DEVICES)}")
    big = isinstance(p, (int, np.integer)) and p >= modlu.MAX_PRIME
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
        if why := xpelim.cuda_problem():
            raise ConfigError(f"device='cuda' is unavailable: {why}")
    if engine == "array-torch" and importlib.util.find_spec("torch") is None:
        raise ConfigError(f"{name}='array-torch' needs torch (pip install 'seprank[torch]')")


def rank_modp(F: np.ndarray, p: int, engine: str = "auto", device: str = "cpu") -> int:
    """Exact rank of the integer matrix ``F`` reduced mod the prime ``p``.

    ``engine``: ``"blas"`` (blocked elimination on float64 BLAS with numba panels,
    :mod:`seprank.modlu`, primes below 2**26), ``"flint"`` (python-flint's nmod_mat, any
    word-size prime), ``"array-numpy"`` / ``"array-torch"`` (the same elimination written
    once over an array backend, :mod:`seprank.xpelim`, primes below 2**26), or ``"auto"``
    (blas where it applies, else flint). ``device``: ``"cpu"``, or ``"cuda"`` to run
    array-torch on the GPU (then engine must be auto or array-torch; ConfigError if torch
    or CUDA is missing). All engines are exact; they agree.
    """
    from . import modlu, xpelim

    check_rank_engine(engine, p, device=device)
    F = np.asarray(F)
    if F.size == 0:
        return 0
    if device == "cuda" or engine == "array-torch":
        return xpelim.rank(F, p, xpelim.get_backend("torch", device))
    if engine == "array-numpy":
        return xpelim.rank(F, p, xpelim.get_backend("numpy"))
    if engine == "blas" or (engine == "auto" and p < modlu.MAX_PRIME and modlu.available()):
        return modlu.rank_blocked(F, p)
    import flint

    R, C = F.shape
    flat = (np.asarray(F, dtype=np.int64) % p).ravel().tolist()
    return int(flint.nmod_mat(R, C, flat, int(p)).rank())


@dataclass(frozen=True)
class FloatRank:
    """Float SVD rank: ``rank`` = number of singular values above ``tolerance``;
    ``scaled_rank`` the same rule applied to the row-and-column equilibrated matrix
    (:func:`equilibrated_rank`), or None when not computed."""

    rank: int
    tolerance: float
    spectrum: np.ndarray
    scaled_rank: int | None = None


def equilibrated_rank(F: np.ndarray, sweeps: int = 3) -> int:
    """SVD rank (numpy's default tolerance) of D_r F D_c, where the diagonal D_r and D_c
    scale rows and then columns to unit 2-norm (``sweeps`` alternating passes; zero rows and
    columns are left alone).

    D_r and D_c are nonsingular, so the exact rank is unchanged; a float rank that exists
    only in one scaling is a round-off artefact. A graded grid (entries over tens of
    decades, degree 3**L at depth 4) has a huge s_max that hides its smaller directions
    below the tolerance; equilibrating brings them back and the two ranks differ.
    """
    G = np.array(F, dtype=np.float64)
    for _ in range(sweeps):
        for axis in (1, 0):
            n = np.linalg.norm(G, axis=axis, keepdims=True)
            G = G / np.where(n > 0, n, 1.0)
    s = np.linalg.svd(G, compute_uv=False)
    tol = s[0] * max(G.shape) * np.finfo(np.float64).eps if s.size else 0.0
    return int(np.sum(s > tol))


def rank_float(F: np.ndarray, tol: float | None = None) -> FloatRank:
    """SVD rank with an explicit tolerance.

    The default tolerance is numpy's: ``s_max * max(rows, cols) * eps``. The full
    singular-value spectrum is returned so that failures can be seen.
    """
    F = np.asarray(F, dtype=np.float64)
    if F.size == 0:
        return FloatRank(0, 0.0, np.zeros(0))
    if not np.all(np.isfinite(F)):
        return FloatRank(-1, float("nan"), np.full(min(F.shape), np.nan))
    s = np.linalg.svd(F, compute_uv=False)
    if tol is None:
        tol = float(s[0] * max(F.shape) * np.finfo(np.float64).eps) if s.size else 0.0
    return FloatRank(int(np.sum(s > tol)), float(tol), s, equilibrated_rank(F))


def coefficient_matrix(poly, a_vars: set[int]) -> tuple[dict, dict, list]:
    """Sparse coefficient matrix of ``poly`` (a sympy PolyElement).

    Rows: monomials in the generators with index in ``a_vars``; columns: monomials in
    the others. Returns (row index, column index, [(r, c, coeff), ...]).
    """
    rows: dict = {}
    cols: dict = {}
    entries = []
    for monom, coeff in poly.terms():
        ma = tuple(e if i in a_vars else 0 for i, e in enumerate(monom))
        mb = tuple(e if i not in a_vars else 0 for i, e in enumerate(monom))
        r = rows.setdefault(ma, len(rows))
        c = cols.setdefault(mb, len(cols))
        entries.append((r, c, int(coeff)))
    return rows, cols, entries


#: Largest coefficient matrix (rows * cols) the symbolic engine accepts.
SYMBOLIC_MAX_CELLS = 4_000_000


def rank_coefficients(poly, a_vars: set[int]) -> tuple[int, tuple[int, int]]:
    """Exact rank over Q of the coefficient matrix (= the separation rank of ``poly``)."""
    import flint

    rows, cols, entries = coefficient_matrix(poly, a_vars)
    R, C = len(rows), len(cols)
    if R == 0 or C == 0:
        return 0, (R, C)
    if R * C > SYMBOLIC_MAX_CELLS:
        raise TooBigError(
            f"method=symbolic: coefficient matrix {R}x{C} exceeds {SYMBOLIC_MAX_CELLS} cells"
        )
    M = flint.fmpz_mat(R, C)
    for r, c, v in entries:
        M[r, c] = v
    return int(M.rank()), (R, C)


#: A float rank is trusted only if the spectrum drops by this factor at the rank.
FLOAT_GAP = 1e6


def float_distrust(m) -> str | None:
    """Why a float rank cannot be believed, naming the criterion that failed with its
    value; None when it can. The criteria, in order:

    1. the sample saturated (the rank stopped below the sample size);
    2. the spectrum is finite;
    3. a cliff at the rank: s[r-1] / s[r] >= FLOAT_GAP;
    4. s[r-1] >= FLOAT_GAP * tolerance (the last kept value is far above round-off);
    5. scale invariance: the row-and-column equilibrated grid has the same float rank
       (``scaled_rank``, :func:`equilibrated_rank`).

    Criterion 5 replaces an older test on the span of the discarded values s[r:]. Those
    values lie below the tolerance, that is, at round-off level: their spread (how far
    below round-off the smallest one happens to come out) depends on the LAPACK build and
    flipped the verdict for a right rank (numpy 2.4.6: s[-1] = 1.7e-19, span 1.7e6 against
    1e6). The exact rank is invariant under nonsingular diagonal scaling while round-off is
    not, so a rank seen in both scalings does not rest on the last digits. It keeps the
    case the tail test was for: at depth 4, width 2 (seed 22) the grid is graded over 60
    decades and shows float rank 1 with a cliff of 1e20; equilibrated it shows more.
    """
    s = getattr(m, "spectrum", None)
    r = getattr(m, "rank", -1)
    tol = getattr(m, "tolerance", None)
    if s is None or tol is None:
        return "no float spectrum (not a float measurement)"
    if not getattr(m, "saturated", False) or r <= 0 or r >= len(s):
        return (f"no singular value below the tolerance (rank {r} of a {len(s)}-value "
                "spectrum: the rank reached the sample size)")  # fmt: skip
    if not np.all(np.isfinite(s)):
        return "the spectrum is not finite (the grid overflowed float64)"
    cliff = s[r - 1] / max(s[r], 1e-300)
    if not cliff >= FLOAT_GAP:
        return f"no clear cliff at the rank: s[r-1]/s[r] = {cliff:.3g} < {FLOAT_GAP:g}"
    above = s[r - 1] / tol if tol else float("inf")
    if not above >= FLOAT_GAP:
        return (f"the last kept value is near round-off: s[r-1]/tolerance = {above:.3g} "
                f"< {FLOAT_GAP:g}")  # fmt: skip
    scaled = getattr(m, "scaled_rank", None)
    if scaled is None:
        return "the equilibrated grid's rank was not measured (scale invariance unchecked)"
    if scaled != r:
        return (f"not scale invariant: the row-and-column equilibrated grid has float rank "
                f"{scaled}, not {r} (the grid is graded; its small directions hide below "
                f"round-off)")  # fmt: skip
    return None


def float_trustworthy(m) -> bool:
    """Whether a float rank can be believed: every criterion of :func:`float_distrust`."""
    return float_distrust(m) is None

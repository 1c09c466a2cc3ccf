"""The exact GF(p) rank engine: one object, chosen once (:meth:`RankEngine.choose`), with
``.rank``, ``.pivots`` (a nonsingular minor), ``.left_kernel`` (where the engine has one)
and ``.grow()`` (a rank that grows with its matrix). The engines are classes registered by
name in :mod:`seprank.algebra.rank_engines`; this module is their stable front.
Float ranks are in :mod:`seprank.algebra.float_rank`, ranks over Q of coefficient
matrices in :mod:`seprank.algebra.coefficients`.

>>> import numpy as np
>>> rank_modp(np.array([[1, 2], [2, 4]]), 7)
1
"""

from __future__ import annotations

import numpy as np

from seprank.algebra.rank_engines import (
    DEVICES,
    RANK_ENGINES,
    GrowingRank,
    RankEngine,
    check_rank_engine,
    register,
    unregister,
)

__all__ = ["DEVICES", "RANK_ENGINES", "GrowingRank", "RankEngine", "check_rank_engine",
           "rank_modp", "register", "unregister"]


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
        (:mod:`seprank.algebra.blas_elimination`, primes below :math:`2^{26}`); ``"flint"``:
        python-flint's nmod_mat (any word-size prime); ``"array-numpy"`` / ``"array-torch"``:
        the same elimination written once over an array backend
        (:mod:`seprank.algebra.array_elimination`, primes below :math:`2^{26}`); ``"auto"``: blas
        where it applies, else flint; or the name of an engine added with :func:`register`.
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

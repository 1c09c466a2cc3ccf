"""The interface of a GF(p) rank engine, and the registry of engines by name.

An engine is one subclass of :class:`RankEngine` in one module, which calls
:func:`register` on it. It implements ``_rank`` (the rank of a non-empty matrix) and
declares what it can do and where it is exact: ``prime_limit`` (primes below it;
``None``: any modulus :class:`~seprank.algebra.domains.ModP` accepts), ``dtype`` (what
holds the residues), ``devices``, ``missing()`` (what is not installed) and
``device_problem(device)``. ``auto`` is resolved from these declarations alone: the
engines that list the device in ``auto_on``, by ``preference``, the first that fits the
prime and runs here.

Every engine shares :meth:`RankEngine.pivots` (the BLAS elimination where it applies,
else python-flint: the minor a certificate records does not depend on the engine),
:meth:`RankEngine.matmul` and :meth:`RankEngine.grow`; ``has_left_kernel`` says whether
:meth:`RankEngine.left_kernel` is available (the BLAS engine's, from its elimination).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from seprank.algebra import blas_elimination
from seprank.algebra.left_kernel import matmul_mod_long
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.algebra.rank_engines.growing import GrowingRank
from seprank.errors import ConfigError
from seprank.registry import Registry

#: Devices an engine may declare; "cuda" is a GPU through torch.
DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class RankEngine(ABC):
    """An exact GF(p) rank engine for one prime and device, chosen once (:meth:`choose`).

    Subclasses set ``name`` and implement ``_rank``; the class attributes below declare
    the engine's limits and capabilities (the defaults: CPU only, any word-size prime,
    never picked by ``auto``, no left kernel, no incremental growth).

    >>> import numpy as np
    >>> eng = RankEngine.choose("auto", 7)
    >>> eng.rank(np.array([[1, 2], [2, 4]]))
    1
    >>> eng.pivots(np.array([[0, 1], [0, 2]]))
    ([0], [1])
    """

    p: int
    device: str = "cpu"

    #: The engine's name (the ``rank_engine`` value that selects it).
    name: ClassVar[str] = ""
    #: Exact for primes below this (None: any modulus ModP accepts, below 2**31).
    prime_limit: ClassVar[int | None] = None
    #: What holds the residues while eliminating (documentation of the exactness limit).
    dtype: ClassVar[str] = "int64"
    #: The devices it runs on.
    devices: ClassVar[tuple[str, ...]] = ("cpu",)
    #: The devices on which ``auto`` may pick it.
    auto_on: ClassVar[tuple[str, ...]] = ()
    #: Order among the engines (``auto`` tries the lowest first; the listing's order).
    preference: ClassVar[int] = 100
    #: Whether :meth:`left_kernel` is available.
    has_left_kernel: ClassVar[bool] = False
    #: Whether :meth:`grow` can extend one elimination (else it re-ranks at each step).
    incremental_growth: ClassVar[bool] = False

    @classmethod
    def fits(cls, p: int) -> bool:
        """Whether the engine is exact for the prime ``p``."""
        return cls.prime_limit is None or p < cls.prime_limit

    @classmethod
    def missing(cls) -> str | None:
        """What the engine needs that is not installed here (one phrase), or None."""
        return None

    @classmethod
    def device_problem(cls, device: str) -> str | None:
        """Why ``device`` cannot run here (one phrase), or None."""
        return None

    @classmethod
    def choose(cls, engine: str = "auto", p: int = 0, device: str = "cpu",
               arg: str = "engine") -> RankEngine:
        """Validate (:func:`check_rank_engine`, ``arg`` names the argument in errors) and
        resolve ``"auto"``: the registered engine's instance for ``p`` and ``device``."""
        check_rank_engine(engine, p, name=arg, device=device)
        chosen = _auto(int(p), device, arg) if engine == "auto" else ENGINES[engine]
        return chosen(int(p), device)

    @abstractmethod
    def _rank(self, M: np.ndarray, overwrite: bool) -> int:
        """The rank of the non-empty matrix ``M`` mod p (what an engine implements)."""

    def rank(self, M: np.ndarray, overwrite: bool = False) -> int:
        """Exact rank of the integer (or integer-valued float) matrix ``M`` mod p; ``M`` is
        not modified unless ``overwrite`` (an engine may then eliminate it in place)."""
        M = np.asarray(M)
        if M.size == 0:
            return 0
        return int(self._rank(M, overwrite))

    def rank_many(self, mats: list) -> list[int]:
        """The ranks of several matrices mod p (an engine may rank small ones in one call;
        here, one by one). The matrices are not modified."""
        return [self.rank(M) for M in mats]

    def pivots(self, M: np.ndarray, overwrite: bool = False) -> tuple[list[int], list[int]]:
        """(rows, cols) of a nonsingular rank x rank minor of ``M`` mod p: the BLAS
        elimination where it applies (``overwrite``: on a float64 ``M`` in place), else
        python-flint's rref on ``M`` and ``M^T``."""
        M = np.asarray(M)
        if M.size == 0:
            return [], []
        if self.p < FLOAT64_PRIME_LIMIT and blas_elimination.available():
            rows, cols = blas_elimination.pivots(residues(M, self.p, overwrite), self.p)
            return [int(i) for i in rows], [int(i) for i in cols]
        M = np.asarray(M, dtype=np.int64)
        cols = pivot_columns(M, self.p)
        rows = pivot_columns(np.ascontiguousarray(M[:, cols].T), self.p)
        return rows, cols

    def left_kernel(self, M: np.ndarray, overwrite: bool = False) -> np.ndarray:
        """A basis of the left kernel of ``M`` mod p, (rows - rank) x rows residues
        (float64); only where ``has_left_kernel``."""
        raise ConfigError(f"rank_engine={self.name!r} has no left kernel")

    def matmul(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """(A @ B) mod p, exactly, for float64 residues (any inner dimension)."""
        return matmul_mod_long(A, B, self.p)

    def grow(self, incremental: bool = True) -> GrowingRank:
        """A rank that grows with its matrix (:class:`GrowingRank`): one extended
        elimination when ``incremental`` and the engine declares ``incremental_growth``,
        else re-ranked at each step."""
        return GrowingRank(self, incremental and self.incremental_growth
                           and self.missing() is None)


def residues(M: np.ndarray, p: int, overwrite: bool = False) -> np.ndarray:
    """``M`` mod p as a C-contiguous float64 array: ``M`` itself with ``overwrite`` when it
    is one already (reduced in place if needed), else a copy."""
    if overwrite and isinstance(M, np.ndarray) and M.dtype == np.float64 \
            and M.flags.c_contiguous:
        A = M
    else:
        A = np.array(M, dtype=np.float64, order="C")
    if A.size and (A.min() < 0 or A.max() >= p):
        np.mod(A, float(p), out=A)
    return A


def flint_matrix(M: np.ndarray, p: int):
    """``M`` mod p as python-flint's nmod_mat."""
    import flint

    R, C = M.shape
    flat = (np.asarray(M, dtype=np.int64) % p).ravel().tolist()
    return flint.nmod_mat(R, C, flat, int(p))


def pivot_columns(M: np.ndarray, p: int) -> list[int]:
    """The pivot columns of ``M``'s reduced row echelon form mod p (python-flint)."""
    R, r = flint_matrix(M, p).rref()
    return [next(j for j in range(M.shape[1]) if int(R[i, j]) != 0) for i in range(r)]


#: The registered engines by name, in registration order (:func:`register`).
ENGINES: Registry[type[RankEngine]] = Registry("rank_engine", RankEngine, classes=True,
                                               listed=("auto",))


def register(engine_cls: type[RankEngine]) -> type[RankEngine]:
    """Add ``engine_cls`` to the registry under its ``name`` (usable as a decorator).

    Raises ConfigError (:class:`seprank.registry.Registry`'s messages) for a class that is
    no RankEngine, a missing name, ``"auto"``, or a name another class holds.
    """
    return ENGINES.register(engine_cls)


def unregister(name: str) -> type[RankEngine] | None:
    """Remove the engine ``name`` from the registry and return it (None if it is not there)."""
    return ENGINES.unregister(name)


def engine_names() -> tuple[str, ...]:
    """The registered engines' names, by ``preference`` (then registration order)."""
    order = list(ENGINES)
    return tuple(sorted(order, key=lambda n: (ENGINES[n].preference, order.index(n))))


def engine_class(name: str) -> type[RankEngine]:
    """The registered engine class ``name`` (KeyError when there is none)."""
    return ENGINES[name]


class EngineNames(Sequence):
    """``("auto", *engine_names())``, read from the registry at each use."""

    def __getitem__(self, i):
        return ("auto", *engine_names())[i]

    def __len__(self) -> int:
        return 1 + len(ENGINES)

    def __eq__(self, other) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


#: GF(p) rank engines accepted by ``rank_engine``: "auto" and every registered one.
RANK_ENGINES = EngineNames()


def _power(n: int) -> str:
    return f"2**{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def _auto(p: int | None, device: str, name: str) -> type[RankEngine]:
    """The engine ``"auto"`` stands for on ``device`` (``p=None``: any prime): the
    engines declaring the device in ``auto_on``, by preference, the first that fits ``p``
    and runs here. Raises ConfigError when none does."""
    cands = [ENGINES[n] for n in engine_names() if device in ENGINES[n].auto_on]
    fit = [c for c in cands if p is None or c.fits(p)]
    if not fit:
        limits = [c.prime_limit for c in cands if c.prime_limit is not None]
        need = f"prime < {_power(max(limits))}" if limits else "a registered engine"
        raise ConfigError(f"device={device!r} needs {need} (got prime={p})")
    for c in fit:
        if c.device_problem(device) is None and c.missing() is None:
            return c
    if why := fit[0].device_problem(device):
        raise ConfigError(f"device={device!r} is unavailable: {why}")
    raise ConfigError(f"{name}='auto' has no engine that runs here: {fit[0].name!r} "
                      f"{fit[0].missing()}")


def check_rank_engine(
    engine: str, p: int | None, name: str = "engine", device: str = "cpu"
) -> None:
    """Raise ConfigError unless ``engine`` and ``device`` are known, fit the prime, and
    can run here (what the engine declares: its prime limit, devices, installation).

    ``name`` is the engine argument's name in the caller's error message; ``p=None`` (no
    modulus involved) or a non-integer (rejected later, by ModP) skips the prime check.
    """
    if not isinstance(engine, str) or engine not in RANK_ENGINES:
        raise ConfigError(f"{name}={engine!r} must be one of {', '.join(RANK_ENGINES)}")
    if device not in DEVICES:
        raise ConfigError(f"device={device!r} must be one of {', '.join(DEVICES)}")
    prime = int(p) if isinstance(p, (int, np.integer)) else None
    if engine == "auto":
        _auto(prime, device, name)
        return
    cls = ENGINES[engine]
    if prime is not None and not cls.fits(prime):
        others = [n for n in engine_names() if ENGINES[n].fits(prime)]
        hint = f"; use auto or {' or '.join(others)}" if others else ""
        raise ConfigError(f"{name}={engine!r} needs prime < {_power(cls.prime_limit)} "
                          f"(got prime={p}){hint}")
    if device not in cls.devices:
        on = " or ".join(repr(n) for n in RANK_ENGINES if n == "auto"
                         or device in ENGINES[n].devices)
        raise ConfigError(f"device={device!r} needs {name}={on} (got {engine!r})")
    if why := cls.device_problem(device):
        raise ConfigError(f"device={device!r} is unavailable: {why}")
    if why := cls.missing():
        raise ConfigError(f"{name}={engine!r} {why}")

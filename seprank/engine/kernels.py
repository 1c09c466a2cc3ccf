"""First-run feedback: will running the compiled (numba) kernels call the compiler?

The kernels are compiled with ``cache=True``, so only the first run on a machine pays the
compilation; later runs load them from ``__pycache__`` (or numba's cache folder), and a
second measurement in one process (a notebook) uses the copies already in memory.
:func:`will_compile` says whether a run would compile, so that the notice is printed only
then; :func:`compile_count` counts the compilations that actually happened.
"""

from __future__ import annotations

from seprank.algebra import blas_elimination, lu_rank
from seprank.engine import structural_poly
from seprank.nets import attention_kernel

COMPILING = "compiling kernels (first run only; cached for later runs)"
COMPILING_UNCACHED = "compiling kernels (uncached: compiled again on every run)"


def _dispatchers(blas: bool = True, grid: bool = True, blocked: bool | None = None,
                 fill: bool = True) -> list:
    """The numba dispatchers: the attention kernel unless ``grid`` is False (a run that
    evaluates no attention grid: the catalecticant strategy, another network), and the
    BLAS engine's unless ``blas`` is False (a run ranking with another engine): with
    ``blocked`` (a run that grows its elimination or records pivots for a certificate)
    the blocked elimination's, else its rank's (:mod:`seprank.algebra.lu_rank`: the leaf's,
    which every rank calls, a small matrix's through the batch kernel; the row swaps',
    solve's and products' run only past one leaf's width, and which depends on the
    prime); None: both. ``fill``: the catalecticant matrices' fill
    (:mod:`seprank.engine.structural_poly`), which the catalecticant strategy runs."""
    out = []
    if blas and blocked is not False:
        names = ["_panel", "_gj_inverse", "_move_rows", "_combine", "subtract_products"]
        out = [getattr(blas_elimination, n, None) for n in names]
    if blas and not blocked:
        out += [getattr(lu_rank, "_leaf", None)]
    if grid:
        out.append(getattr(attention_kernel, "_kernel", None))
    if fill:
        out.append(getattr(structural_poly, "_fill", None))
    return [d for d in out if d is not None and hasattr(d, "_cache")]


def _needs_compiler(d) -> bool | None:
    """True when ``d`` has nothing compiled in memory and no fresh on-disk cache entry;
    None when it has no on-disk cache at all (compiled on every run)."""
    if d.overloads:  # compiled or loaded already in this process
        return False
    cache_file = getattr(d._cache, "_cache_file", None)
    if cache_file is None:  # numba's NullCache: no writable cache folder
        return None
    return not cache_file._load_index()  # missing, another numba's, or the source changed


def will_compile(dispatchers=None) -> bool:
    """Whether running the compiled kernels now would call numba's compiler.

    Parameters
    ----------
    dispatchers : list, optional
        The numba dispatchers to look at (default: every seprank kernel).

    Returns
    -------
    bool
        True when some kernel has no compiled copy in memory and no fresh entry in its
        on-disk cache (its index is missing or stale), or has no on-disk cache at all;
        False otherwise, and when numba's internals are not as expected (say nothing
        rather than something false).
    """
    try:
        return any(_needs_compiler(d) is not False
                   for d in (_dispatchers() if dispatchers is None else dispatchers))
    except (AttributeError, ImportError, OSError, EOFError, ValueError):
        return False


def compiling_message(dispatchers=None) -> str:
    """The notice to print before a compile: :data:`COMPILING`, or
    :data:`COMPILING_UNCACHED` where a kernel has no on-disk cache.

    Parameters
    ----------
    dispatchers : list, optional
        As for :func:`will_compile`.

    Returns
    -------
    str
    """
    try:
        ds = _dispatchers() if dispatchers is None else dispatchers
        uncached = any(_needs_compiler(d) is None for d in ds)
    except (AttributeError, ImportError, OSError, EOFError, ValueError):
        uncached = False
    return COMPILING_UNCACHED if uncached else COMPILING


def compile_count(dispatchers=None) -> int:
    """How many times the kernels have been compiled (not loaded) in this process.

    Parameters
    ----------
    dispatchers : list, optional
        As for :func:`will_compile`.

    Returns
    -------
    int
        The sum of numba's cache misses over the dispatchers (0 where numba keeps none).
    """
    ds = _dispatchers() if dispatchers is None else dispatchers
    return sum(sum(getattr(d, "_cache_misses", {}).values()) for d in ds)


def notice(blas: bool = True, grid: bool = True, blocked: bool | None = None,
           fill: bool = False) -> str | None:
    """The line to print before a measurement, or None when nothing it runs will compile.

    Only the kernels the run uses are looked at: one it never calls is never compiled
    (nor cached), so counting it would print the notice on every run.

    Parameters
    ----------
    blas : bool
        Whether the run ranks with the BLAS engine (the other engines run no BLAS kernel).
    grid : bool
        Whether the run evaluates a grid with the compiled attention kernel
        (:func:`seprank.engine.sample_grid.uses_kernel`; not the catalecticant strategy,
        which builds no grid).
    blocked : bool
        Whether the run grows its elimination (the grid strategies) or records pivots
        (certifying): the blocked elimination's kernels, not the recursive LU's (None:
        both).
    fill : bool
        Whether the run fills catalecticant matrices (the catalecticant strategy).

    Returns
    -------
    str or None
        :func:`compiling_message` when :func:`will_compile` says so, else None.
    """
    used = _dispatchers(blas=blas, grid=grid, blocked=blocked, fill=fill)
    return compiling_message(used) if used and will_compile(used) else None


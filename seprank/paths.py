"""Output folders: validated before anything is written; and the compiled kernels' cache
(:func:`jit`: cached on disk where numba can write one, compiled uncached otherwise)."""

from __future__ import annotations

import sys
from pathlib import Path

from seprank.errors import ConfigError


def check_out_dir(path, arg: str = "out") -> Path:
    """Create ``path`` if needed and make sure a file can be written there, before any work.

    Parameters
    ----------
    path : str or Path
        The output folder.
    arg : str, default "out"
        The argument's name in the error message.

    Returns
    -------
    Path
        ``path``, now an existing, writable folder.

    Raises
    ------
    ConfigError
        If it cannot be made or written (``out='/proc/x' is not a writable folder``).
    """
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / ".seprank-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or exc
        raise ConfigError(f"{arg}={str(path)!r} is not a writable folder ({reason})") from None
    return p


#: Whether numba could cache so far (None: not tried yet); the fallback is said once.
_CACHING: list = []
NO_CACHE = ("seprank: no writable cache folder for the compiled kernels (HOME, "
            "NUMBA_CACHE_DIR and the package folder): they are compiled on each run, uncached")


def jit(nb, fn, **options):
    """``nb.njit(cache=True, **options)(fn)``; where numba finds no writable cache folder
    ("cannot cache function ...: no locator available"), ``nb.njit(**options)(fn)``, said
    once on stderr: the package imports and runs, only slower to start."""
    if not _CACHING or _CACHING[0]:
        try:
            out = nb.njit(cache=True, **options)(fn)
            _CACHING[:] = [True]
            return out
        except RuntimeError as exc:
            if "cannot cache" not in str(exc):
                raise
            if not _CACHING or _CACHING[0]:
                print(NO_CACHE, file=sys.stderr)
            _CACHING[:] = [False]
    return nb.njit(**options)(fn)

"""Where seprank writes, and how: output folders checked before any work
(:func:`check_out_dir`, which writes nothing), one writer for every file
(:func:`atomic_write`: a temporary file in the target's folder, then an atomic rename, as
git and rsync write; a link at the target is replaced, never written through; an error
leaves no partial file); and the compiled kernels' cache (:func:`jit`: cached on disk
where numba can write one, compiled uncached otherwise)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from seprank.errors import ConfigError, OutputError


def check_out_dir(path, arg: str = "out") -> Path:
    """Create ``path`` if needed and make sure files can be written there, before any work.

    Nothing is written: no probe file (a probe would truncate whatever a link of its
    name points to). A link the user named as the folder is followed (their word).

    Parameters
    ----------
    path : str or Path
        The output folder.
    arg : str, default "out"
        The argument's name in the error message.

    Returns
    -------
    Path
        ``path``, now an existing folder this process may create files in.

    Raises
    ------
    ConfigError
        If it is empty (``out='' is empty: name a folder``), or cannot be made, or is not a
        writable folder (``out='/proc/x' is not a writable folder``).
    """
    if isinstance(path, (str, os.PathLike)) and not os.fspath(path).strip():
        raise ConfigError(f"{arg}='' is empty: name a folder ('.' for this one)")
    if not isinstance(path, (str, os.PathLike)):
        raise ConfigError(f"{arg}={path!r} must be a folder's path (a string), "
                          f"got {type(path).__name__}")
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
        if not p.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a folder")
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(f"{arg}={str(path)!r} is not a writable folder ({reason})") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise ConfigError(f"{arg}={str(path)!r} is not a writable folder (permission denied)")
    return p


def read_bounded(path, limit: int, arg: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit``, read without blocking.

    A FIFO, a device (``/dev/zero``), a folder or a file over ``limit`` is refused in
    one line before a byte is read. A link the caller named is followed (their word).

    Parameters
    ----------
    path : str or Path
        The file.
    limit : int
        The most bytes it may hold.
    arg : str, default "file"
        The argument's name in the message.

    Returns
    -------
    bytes
        Its content.

    Raises
    ------
    ConfigError
        ``file '/dev/zero' is a device or special file, not a regular file`` and the like.
    """
    name = f"{arg} {str(path)!r}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"{name} cannot be read ({_reason(exc)})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO"
                    if stat.S_ISFIFO(st.st_mode) else "a device or special file")
            raise ConfigError(f"{name} is {what}, not a regular file")
        if st.st_size > limit:
            raise ConfigError(f"{name} is {st.st_size:,} bytes, at most {limit:,}")
        with os.fdopen(os.dup(fd), "rb") as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{name} cannot be read ({_reason(exc)})") from None
    finally:
        os.close(fd)
    if len(raw) > limit:  # it grew while being read
        raise ConfigError(f"{name} is over {limit:,} bytes")
    return raw


def _umask() -> int:
    """The process's umask, read without changing it where /proc says it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", *, encoding: str | None = "utf-8",
                 newline: str | None = None):
    """Open a temporary file beside ``path`` for writing; on success rename it to ``path``.

    The temporary file is made in the target's own folder (``O_EXCL``: never through a
    link), fsynced, given the mode a new file gets (or the mode of the regular file it
    replaces) and renamed over ``path`` with :func:`os.replace`. A link at ``path`` is
    therefore replaced by the new file, its target left untouched; a folder there is
    refused. On any error the temporary file is removed and nothing at ``path`` changes.

    Parameters
    ----------
    path : str or Path
        The file to write (its folder must exist; a link to the folder, which the user
        named, is followed).
    mode : {"w", "wb", "a"}, default "w"
        Text, binary, or text appended to what ``path`` holds (copied into the new file,
        which then replaces it).
    encoding : str or None, default "utf-8"
        The text encoding (text modes).
    newline : str or None
        As for :func:`open` (``""`` for the csv module).

    Yields
    ------
    file object
        The temporary file, open for writing.

    Raises
    ------
    OutputError
        If the file cannot be written (disk full, permissions, a folder at ``path``, an
        encoding error): one line naming the file; nothing partial is left.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_write(d / "a.txt") as f:
    ...     _ = f.write("hello")
    >>> (d / "a.txt").read_text()
    'hello'
    """
    if mode not in ("w", "wb", "a"):
        raise ValueError(f"mode={mode!r} must be 'w', 'wb' or 'a'")
    target = Path(path)
    folder = target.parent
    tmp = None
    try:
        old = _existing(target)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name[:80]}.", suffix=".tmp")
        perm = stat.S_IMODE(old.st_mode) if old is not None else 0o666 & ~_umask()
        os.fchmod(fd, perm)
        binary = mode == "wb"
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else encoding,
                       newline=None if binary else newline) as f:
            if mode == "a" and old is not None:
                with open(target, encoding=encoding, newline="") as src:  # a regular file
                    for chunk in iter(lambda: src.read(2**20), ""):
                        f.write(chunk)
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        tmp = None
    except (OSError, UnicodeError) as exc:
        raise OutputError(f"{target}: cannot be written ({_reason(exc)}); nothing was "
                          "left there") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _existing(target: Path):
    """The stat of a regular file at ``target`` (not followed if a link), None if there is
    none or a link; OSError (EISDIR) for a folder or any other kind of file there."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return None  # replaced by the new file; its target is never opened
    if not stat.S_ISREG(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "not a regular file")
    return st


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnicodeError):
        return f"cannot encode a character: {exc.reason}"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def write_text(path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` with :func:`atomic_write`; return the path.

    Parameters
    ----------
    path : str or Path
        The file.
    text : str
        Its content.
    encoding : str, default "utf-8"
        The encoding.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputError
        If it cannot be written (nothing partial is left).
    """
    with atomic_write(path, "w", encoding=encoding) as f:
        f.write(text)
    return Path(path)


def write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` with :func:`atomic_write`; return the path.

    Parameters
    ----------
    path : str or Path
        The file.
    data : bytes
        Its content.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputError
        If it cannot be written (nothing partial is left).
    """
    with atomic_write(path, "wb") as f:
        f.write(data)
    return Path(path)


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

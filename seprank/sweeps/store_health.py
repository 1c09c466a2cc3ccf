"""What the result store (:mod:`seprank.sweeps.store`) checks before a verb writes into it
and after a sweep ends: every row readable (a damaged row refuses the store to every verb
that writes, with the message ``seprank results`` gives), a read-only file or folder told
apart from a corrupt one by error codes (never by the words of a message, which depend on
the locale), and the tasks another sweep still holds.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
from pathlib import Path

from seprank.errors import ConfigError

#: The columns of a row that hold JSON (decoded by every reader of the store).
JSON_COLUMNS = ("spec", "config", "measurement", "extra", "partition")
#: SQLite's result codes for a file that cannot be written or opened (not corruption).
_READONLY_CODES = {"SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH"}
_READONLY_ERRNO = {errno.EROFS, errno.EACCES, errno.EPERM}


def corrupt(where: str, why: str) -> ConfigError:
    """The one message every verb gives for a damaged store."""
    return ConfigError(f"{where} is corrupt ({why}); not listed or written (restore it, or "
                       "rerun into a new --db)")


def check_rows(db: sqlite3.Connection, where: str) -> None:
    """ConfigError (:func:`corrupt`) unless every row's JSON columns decode.

    SQLite's quick_check verifies the file's structure, not the text a row holds: a byte
    changed inside a row's JSON leaves the file "ok" and the row unreadable. Every text is
    fetched (SQLite refuses one that is not UTF-8) and SQLite's own ``json_valid`` checks
    the JSON in C (0.2 s for 10,000 rows of 3 KB); a row it flags is decoded by Python's
    json, which decides (it reads the NaN and Infinity that json.dumps writes, which
    SQLite's JSON does not), and every row is where SQLite has no JSON functions.
    """
    cols = ", ".join(JSON_COLUMNS)
    invalid = " OR ".join(f"({c} IS NOT NULL AND NOT json_valid({c}))" for c in JSON_COLUMNS)
    try:
        for _ in db.execute(f"SELECT {cols} FROM tasks"):  # text that is not UTF-8 raises
            pass
        try:
            keys = [r[0] for r in db.execute(f"SELECT key FROM tasks WHERE {invalid}")]
        except sqlite3.OperationalError as exc:
            if "json_valid" not in str(exc):
                raise
            keys = None  # an SQLite without JSON functions: every row decoded below
        rows = db.execute(f"SELECT key, {cols} FROM tasks") if keys is None else (
            r for k in keys for r in db.execute(f"SELECT key, {cols} FROM tasks WHERE key = ?",
                                                (k,)))
        for row in rows:
            for name, text in zip(JSON_COLUMNS, row[1:]):
                if text is not None:
                    try:
                        json.loads(text)
                    except ValueError as exc:
                        raise corrupt(where, f"row {str(row[0])[:10]}: {name} is not JSON: "
                                      f"{exc}") from None
    except sqlite3.Error as exc:
        raise corrupt(where, str(exc)) from None


def read_only(path: Path) -> str | None:
    """Why ``path`` (a store to write) cannot be written, or None: its folder or the file
    itself, by ``os.access`` (as root every file is writable except on a read-only mount,
    which :func:`open_failure` tells by its error code)."""
    folder = path.parent if str(path.parent) else Path(".")
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if path.exists() and not os.access(path, os.W_OK):
        return f"the file {str(path)!r} is read-only"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {str(folder)!r} is read-only"
    return None


def linked_companions(path: Path) -> None:
    """ConfigError if a file SQLite makes beside the store (``-wal``, ``-shm``,
    ``-journal``) is a link: SQLite would write through it into whatever it points to."""
    for suffix in ("-wal", "-shm", "-journal"):
        side = Path(f"{path}{suffix}")
        if side.is_symlink():
            raise ConfigError(f"db={str(path)!r}: {side.name} is a link; SQLite would write "
                              "through it, so the store is not opened (remove the link)")


def open_failure(exc: BaseException, where: str, path: Path) -> ConfigError:
    """The ConfigError for a store that could not be opened for writing: read-only (by
    SQLite's result code or the errno), else corrupt or unusable."""
    name = getattr(exc, "sqlite_errorname", None)
    code = getattr(exc, "errno", None)
    if name in _READONLY_CODES or code in _READONLY_ERRNO:
        why = read_only(path) or "the file system refuses writes"
        return ConfigError(f"{where} cannot be written: {why} (read it with seprank results, "
                           "or choose another --db)")
    return ConfigError(f"{where} is not a usable SQLite file ({exc})")


def claimed_elsewhere(db: sqlite3.Connection, keys, owner: str, stale_s: float,
                      alive) -> dict[str, int]:
    """``{HOST:PID: count}``: tasks among ``keys`` not done that another live owner claims
    (a claim older than ``stale_s``, or of a dead process here, is no one's: it is taken
    over by the next sweep that asks)."""
    out: dict[str, int] = {}
    keys = list(keys)
    fresh = time.time() - stale_s
    for i in range(0, len(keys), 500):
        part = keys[i : i + 500]
        q = ("SELECT c.owner FROM claims c LEFT JOIN tasks t ON t.key = c.key WHERE c.key IN "
             f"({','.join('?' * len(part))}) AND c.owner != ? AND c.heartbeat >= ? AND "
             "(t.status IS NULL OR t.status != 'done')")
        for (who,) in db.execute(q, [*part, owner, fresh]):
            if not alive(str(who)):
                continue
            host, _, rest = str(who).partition(":")
            name = f"{host}:{rest.partition(':')[0]}"
            out[name] = out.get(name, 0) + 1
    return out


def claims_line(pending: dict[str, int]) -> str:
    """``3 tasks claimed by host:123, not finished`` (owners listed, most tasks first)."""
    n = sum(pending.values())
    who = ", ".join(f"{o}" + (f" ({k})" if len(pending) > 1 else "")
                    for o, k in sorted(pending.items(), key=lambda x: -x[1]))
    return f"{n} task{'s' if n != 1 else ''} claimed by {who}, not finished"


def wait_line(pending: dict[str, int], since: float) -> str:
    """The progress line of ``sweep --wait``."""
    return (f"waiting for {claims_line(pending)} ({time.monotonic() - since:,.0f} s so far; "
            "a claim whose sweep died is taken over once stale)")

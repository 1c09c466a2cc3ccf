"""The result store: one SQLite file, one row per task, keyed by a content hash.

A row holds the task's full :class:`~seprank.engine.result.Measurement` as JSON (and, for a
``verify`` task, its verify row), plus indexed columns for the usual queries. Every
finished task is written in its own transaction, so a crash loses at most the tasks in
flight; a rerun skips the keys already ``done``. Only the process that drives a sweep
writes here (workers return their results to it).

A file that is not a seprank store (another program's SQLite file, a corrupt or an empty
file) is refused before anything is written to it (:func:`check_file`); ``readonly``
opens it without writing anything (``seprank results``). Two sweeps on one store share
the work through claims (:meth:`Store.claim`: a row per task in flight, with its owner and
a heartbeat; a claim whose heartbeat is older than ``STALE_S`` belongs to a dead sweep and
is taken over), so each task is measured once. Each row keeps the code fingerprint of
the code that measured it (``code``, :mod:`seprank.sweeps.fingerprint`), part of its key.

>>> import tempfile, pathlib
>>> db = Store(pathlib.Path(tempfile.mkdtemp()) / "r.sqlite")
>>> db.count()
0
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sqlite3
import time
import uuid
from pathlib import Path

from seprank import labels
from seprank.engine import display
from seprank.errors import ConfigError, StoreWriteError
from seprank.sweeps import store_health as health
from seprank.sweeps.fingerprint import fingerprint

#: Columns that can be filtered by ``seprank results --where`` (all are indexed or small).
COLUMNS = (
    "key", "status", "task", "grid", "arch", "depth", "width", "heads", "seq_len", "residual",
    "partition", "method", "strategy", "seed", "prime", "max_samples", "version", "rank",
    "saturated", "seconds", "est_seconds", "est_bytes", "attempts", "error", "host",
    "finished", "code",
)
#: SQLite's application_id of a seprank store ("SEPR"), set when the store is created.
APPLICATION_ID = 0x53455052
#: A claim whose heartbeat is older than this (seconds) belongs to a sweep that died.
STALE_S = 120.0
#: Claims are refreshed at least this often (seconds) by the sweep holding them.
HEARTBEAT_S = 20.0
# A task's status: done (measured), failed (raised; retried on a rerun), refused (would
# not fit).
#: The store shared by transition, figures and results when no --db is given.
DEFAULT_DB = "seprank-results/results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    key TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    task TEXT, grid TEXT, arch TEXT,
    depth INTEGER, width INTEGER, heads INTEGER, seq_len INTEGER, residual INTEGER,
    partition TEXT, method TEXT, strategy TEXT, seed INTEGER, prime INTEGER,
    max_samples INTEGER, version TEXT,
    rank INTEGER, saturated INTEGER, seconds REAL, est_seconds REAL, est_bytes INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0, error TEXT, host TEXT, finished TEXT,
    spec TEXT NOT NULL, config TEXT, measurement TEXT, extra TEXT, code TEXT
);
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY, owner TEXT NOT NULL, heartbeat REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_status ON tasks (status);
CREATE INDEX IF NOT EXISTS tasks_grid ON tasks (grid);
CREATE INDEX IF NOT EXISTS tasks_shape ON tasks (arch, depth, width, heads, seq_len);
"""
_JSON = ("spec", "config", "measurement", "extra", "partition")


_HEADER = b"SQLite format 3\x00"
_TABLES = {"tasks", "claims"}


#: how long an empty file is watched for another sweep's header before it is refused
CREATING_SECONDS = 2.0
#: Seconds a store waits for another process's hold on it while it turns on WAL (SQLite
#: answers "database is locked" at once there, without its busy handler).
WAL_WAIT_S = 60.0


def _wal(db: sqlite3.Connection) -> None:
    """``PRAGMA journal_mode=WAL``, tried again while another process holds the file (two
    sweeps creating one new store at once: one of them would otherwise fail at once)."""
    end = time.monotonic() + WAL_WAIT_S
    pause = 0.005
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > end:
                raise
            time.sleep(pause)
            pause = min(0.2, pause * 2)


def _header(path: Path, where: str, wait: float) -> bytes:
    """The first 16 bytes of ``path``; an empty file is read again for up to ``wait``
    seconds (SQLite creates a store's file empty and writes its header a moment later)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with path.open("rb") as f:
                head = f.read(16)
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise ConfigError(f"{where} cannot be read ({exc.strerror or exc})") from None
        if head or time.monotonic() >= deadline or not path.is_file():
            return head
        time.sleep(0.05)


def check_file(path: Path, readonly: bool = False) -> bool:
    """ConfigError (nothing written) unless ``path`` is absent (a new store, when not
    ``readonly``) or a seprank store: an SQLite file whose tables are seprank's, whose
    ``tasks`` table has seprank's columns and which passes SQLite's quick_check; an empty
    file (not ``readonly``) is watched for ``CREATING_SECONDS`` (another sweep may be
    creating it) before it is refused. Returns whether the file exists."""
    where = f"db={str(path)!r}"
    health.linked_companions(path)  # SQLite's -wal, -shm, -journal: never through a link
    if not path.exists():
        return False
    head = _header(path, where, wait=0.0 if readonly else CREATING_SECONDS)
    if not head and not path.exists():  # removed while it was watched: absent
        return False
    if not path.is_file() or not head:
        raise ConfigError(f"{where} is empty (or not a file), not a seprank store: left "
                          "untouched (remove it, or name a new file with --db)")
    if head != _HEADER:
        raise ConfigError(f"{where} is not an SQLite file, so not a seprank store: left "
                          "untouched")
    try:
        db = sqlite3.connect(_read_only_uri(path), uri=True, timeout=60)
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE "
                                                "type = 'table'")}
            cols = {r[1] for r in db.execute("PRAGMA table_info(tasks)")}
            check = db.execute("PRAGMA quick_check(1)").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise ConfigError(f"{where} is corrupt or not a seprank store ({exc}): left "
                          "untouched") from None
    if not tables and not readonly:  # another sweep is creating this store right now
        return True
    if tables - _TABLES or "tasks" not in tables or not set(COLUMNS) - {"code"} <= cols:
        other = sorted(tables - _TABLES) or ["tasks (other columns)"]
        raise ConfigError(f"{where} is another program's SQLite file (table {other[0]}), "
                          "not a seprank store: left untouched")
    if check != "ok":
        check = " ".join(check.split())
        raise health.corrupt(where, f"SQLite quick_check: {check[:80]}")
    if tables:  # every row readable: one message for every verb, writer or reader
        db = sqlite3.connect(_read_only_uri(path), uri=True, timeout=60)
        try:
            health.check_rows(db, where)
        finally:
            db.close()
    return True


def _read_only_uri(path: Path) -> str:
    """A URI opening ``path`` without writing anything: ``immutable`` when no sweep has it
    open (no -wal or -shm file: everything is in the file itself), else read-only mode,
    which reads a live sweep's write-ahead log (and shares its -shm)."""
    live = any(Path(f"{path}{x}").exists() for x in ("-wal", "-shm"))
    return f"{path.resolve().as_uri()}?{'mode=ro' if live else 'immutable=1'}"


class Store:
    """An open result store (SQLite; created with its schema if the file is new).

    Parameters
    ----------
    path : str or pathlib.Path
        The store's file (its folder is created when writing).
    readonly : bool, default False
        Open an existing store without writing.

    Raises
    ------
    ConfigError
        If ``readonly`` and the file does not exist, or it is not a usable SQLite file,
        or is corrupt (a row that does not decode included), or (not ``readonly``) it or
        its folder cannot be written ("cannot be written", never "corrupt").
    """

    def __init__(self, path: Path | str, readonly: bool = False):
        if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
            raise ConfigError(f"db={path!r:.60} must be a file's path (a non-empty string)")
        self.path = Path(path)
        self.readonly = readonly
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._beat = None
        exists = check_file(self.path, readonly)
        if readonly and not exists:
            raise ConfigError(f"db={str(path)!r} does not exist")
        try:
            if readonly:
                self._db = sqlite3.connect(_read_only_uri(self.path), uri=True, timeout=60,
                                           isolation_level=None)
            else:
                if why := health.read_only(self.path):  # said as such, not as "corrupt"
                    raise PermissionError(errno.EACCES, why)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
                _wal(self._db)
                self._db.execute("PRAGMA synchronous=FULL")
                if exists:  # as before: IF NOT EXISTS writes only what an older store lacks
                    self._db.executescript(_SCHEMA)
                else:  # a new store: its schema in one transaction (one sync, not six)
                    self._db.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}PRAGMA application_id "
                                           f"= {APPLICATION_ID};\nCOMMIT;")
                if "code" not in {r[1] for r in self._db.execute("PRAGMA table_info(tasks)")}:
                    self._db.execute("ALTER TABLE tasks ADD COLUMN code TEXT")  # an older store
        except (OSError, sqlite3.Error) as exc:  # read-only told from corrupt by its code
            raise health.open_failure(exc, f"db={str(path)!r}", self.path) from None
        self._db.row_factory = sqlite3.Row

    def close(self) -> None:
        """Release this owner's claims and close the connection."""
        self.release()
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def status_of(self, keys) -> dict[str, str]:
        """Return the status of each of the given keys that has a row.

        Parameters
        ----------
        keys : iterable of str
            Task keys.

        Returns
        -------
        dict of str to str
            ``{key: status}`` (``done``, ``failed`` or ``refused``) for the keys stored.
        """
        out: dict[str, str] = {}
        keys = list(keys)
        for i in range(0, len(keys), 500):
            part = keys[i : i + 500]
            q = f"SELECT key, status FROM tasks WHERE key IN ({','.join('?' * len(part))})"
            out.update({r["key"]: r["status"] for r in self._db.execute(q, part)})
        return out

    def claimed_elsewhere(self, keys) -> dict[str, int]:
        """The tasks among ``keys`` not done that another sweep claims, by owner.

        Parameters
        ----------
        keys : iterable of str
            Task keys.

        Returns
        -------
        dict of str to int
            ``{"HOST:PID": count}`` (empty: none).
        """
        return health.claimed_elsewhere(self._db, keys, self.owner, STALE_S, _alive)

    def attempts(self, key: str) -> int:
        """How many times the task ``key`` was stored.

        Parameters
        ----------
        key : str
            The task key.

        Returns
        -------
        int
            Its attempts (0 without a row).
        """
        r = self._db.execute("SELECT attempts FROM tasks WHERE key = ?", (key,)).fetchone()
        return 0 if r is None else int(r["attempts"])

    def put(self, spec: dict, result: dict) -> None:
        """Write one task's outcome (insert or replace its row) in one transaction.

        Parameters
        ----------
        spec : dict
            The task spec (:mod:`seprank.sweeps.tasks`).
        result : dict
            Its outcome: ``status``, and the ``measurement``, ``seconds``, ``error``, ``host``
            and ``extra`` where present.

        Raises
        ------
        StoreWriteError
            If the store cannot be written (every task stored before is kept).
        """
        m = result.get("measurement") or {}
        cfg = spec["params"]
        row = {
            "key": spec["key"], "status": result["status"], "task": spec["task"],
            "grid": spec.get("grid"), "arch": spec["arch"], "depth": cfg.get("depth"),
            "width": cfg.get("width"), "heads": cfg.get("heads"), "seq_len": cfg.get("seq_len"),
            "residual": _int(cfg.get("residual")),
            "partition": m.get("partition", spec.get("partition")),
            "method": m.get("method", spec["method"]),
            "strategy": m.get("strategy", spec["strategy"]), "seed": spec["seed"],
            "prime": m.get("prime", spec.get("prime")), "max_samples": spec.get("max_samples"),
            "version": spec["version"], "rank": m.get("rank"),
            "saturated": _int(m.get("saturated")), "seconds": result.get("seconds"),
            "est_seconds": spec.get("est_seconds"), "est_bytes": spec.get("est_bytes"),
            "error": result.get("error"), "host": result.get("host"),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "spec": spec, "config": m.get("config", cfg), "measurement": m or None,
            "extra": result.get("extra"), "code": spec.get("code"),
        }
        for k in _JSON:
            row[k] = None if row[k] is None else json.dumps(row[k], sort_keys=True)
        cols = list(row)
        sql = (f"INSERT INTO tasks ({', '.join(cols)}, attempts) VALUES "
               f"({', '.join('?' * len(cols))}, 1) ON CONFLICT(key) DO UPDATE SET "
               + ", ".join(f"{c} = excluded.{c}" for c in cols if c != "key")
               + ", attempts = tasks.attempts + 1")
        try:
            with self._db:  # one transaction per finished task
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(sql, [row[c] for c in cols])
                self._db.execute("DELETE FROM claims WHERE key = ? AND owner = ?",
                                 (spec["key"], self.owner))
        except (OSError, sqlite3.Error) as exc:
            raise StoreWriteError(f"db={str(self.path)!r}: cannot store task {spec['key'][:10]} "
                                  f"({exc}); every task finished before it is kept") from None

    def claim(self, key: str) -> str | None:
        """Claim ``key`` for this store's owner (a stale claim is taken over).

        Parameters
        ----------
        key : str
            The task key.

        Returns
        -------
        str or None
            None if claimed, else why not: ``"done"`` (stored meanwhile) or the live owner
            holding it.

        Raises
        ------
        StoreWriteError
            If the claim cannot be written.
        """
        now = time.time()
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                r = self._db.execute("SELECT status FROM tasks WHERE key = ?", (key,)).fetchone()
                if r is not None and r[0] == "done":
                    return "done"
                c = self._db.execute("SELECT owner, heartbeat FROM claims WHERE key = ?",
                                     (key,)).fetchone()
                if c is not None and c[0] != self.owner and now - c[1] < STALE_S \
                        and _alive(c[0]):
                    return c[0]
                self._db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?)",
                                 (key, self.owner, now))
        except (OSError, sqlite3.Error) as exc:
            raise StoreWriteError(f"db={str(self.path)!r}: cannot claim a task ({exc})") from None
        self._start_heartbeat()
        return None

    def _start_heartbeat(self) -> None:
        """Refresh this owner's claims every HEARTBEAT_S seconds from a thread of its own
        (with its own connection), so a long task keeps its claim, even on ``serial``."""
        import threading

        if self._beat is not None:
            return
        self._beat = threading.Event()

        def beat(stop=self._beat):
            db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            try:
                while not stop.wait(HEARTBEAT_S):
                    db.execute("UPDATE claims SET heartbeat = ? WHERE owner = ?",
                               (time.time(), self.owner))
            except sqlite3.Error:  # the store fails: the claims go stale, put() reports it
                pass
            finally:
                db.close()

        threading.Thread(target=beat, daemon=True, name="seprank-claims").start()

    def release(self) -> None:
        """Drop this owner's remaining claims (the sweep ends or stops)."""
        if self._beat is not None:
            self._beat.set()
            self._beat = None
        if not self.readonly:
            try:
                self._db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
            except sqlite3.Error:  # the store is failing already: claims go stale
                pass

    def get(self, key: str) -> dict | None:
        """The row of the task ``key``.

        Parameters
        ----------
        key : str
            The task key.

        Returns
        -------
        dict or None
            The row, its JSON columns decoded; None without a row.
        """
        r = self._db.execute("SELECT * FROM tasks WHERE key = ?", (key,)).fetchone()
        return None if r is None else _decode(r)

    def count(self, status: str | None = None) -> int:
        """Number of tasks stored, or of those with a status.

        Parameters
        ----------
        status : str, optional
            Count only the rows with this status (default: every row).

        Returns
        -------
        int
            The number of rows.
        """
        if status is None:
            return self._db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        q = "SELECT COUNT(*) FROM tasks WHERE status = ?"
        return self._db.execute(q, (status,)).fetchone()[0]

    def query(self, where: list[str] | tuple = ()) -> list[dict]:
        """Return the rows matching every filter, in the order they finished.

        Parameters
        ----------
        where : list of str or tuple of str, default ()
            Filters ``COLUMN OP VALUE``, OP one of = != < <= > >= (e.g. ``"depth>=2"``).

        Returns
        -------
        list of dict
            The rows, their JSON columns decoded.

        Raises
        ------
        ConfigError
            If a filter is invalid or the file is corrupt.
        """
        sql, args = _where(where)
        q = f"SELECT * FROM tasks{sql} ORDER BY finished, rowid"
        try:
            return [_decode(r) for r in self._db.execute(q, args)]
        except (sqlite3.Error, ValueError) as exc:  # a half-corrupt file: not partly listed
            raise health.corrupt(f"db={str(self.path)!r}", str(exc)) from None

    def to_dataframe(self, where: list[str] | tuple = ()):
        """The rows (those matching ``where``, as :meth:`query`) as a tidy pandas DataFrame.

        Parameters
        ----------
        where : str or list of str
            ``COLUMN OP VALUE`` filters, all of which must hold (as ``seprank results
            --where``); one string is one filter.

        Returns
        -------
        pandas.DataFrame
            One row per task with the store's columns (:data:`COLUMNS`) in the order they
            finished; ``residual`` and ``saturated`` are bool (pandas' nullable
            ``boolean`` where a failed task has none), ``partition`` and ``block_ranks``
            (each block's rank, from the stored measurement) lists of ints, ``config``
            a dict, ``label`` the measurement's label (:mod:`seprank.labels`; None for a
            failed task), and ``stale`` (bool) says whether other code measured the row.

        Raises
        ------
        ConfigError
            When pandas is not installed (``pip install 'seprank[pandas]'``), a filter
            is malformed, or the store is corrupt.
        """
        display.require_pandas()
        if isinstance(where, str):
            where = [where]
        elif not isinstance(where, (list, tuple)) or not all(isinstance(w, str) for w in where):
            raise ConfigError(f"where={where!r} must be a filter string such as 'depth=2' or a "
                              "list of them")
        current = fingerprint()
        records = []
        for r in self.query(where):
            rec = {c: r.get(c) for c in COLUMNS}
            rec["config"] = r.get("config")
            rec["label"] = r.get("label")
            m = r.get("measurement") or {}
            rec["block_ranks"] = display.block_ranks(m.get("blocks"))
            rec["stale"] = r.get("code") != current
            records.append(rec)
        df = display.tidy_frame(records, bool_columns=("residual", "saturated", "stale"),
                                list_columns=("partition", "block_ranks"))
        if not records:
            df = df.reindex(columns=[*COLUMNS, "config", "label", "block_ranks", "stale"])
        return df


def _alive(owner: str) -> bool:
    """False when ``owner`` (host:pid:tag) is a process of this host that no longer runs
    (a killed sweep: its claims are taken over at once, not after STALE_S)."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


def _int(v):
    return None if v is None else int(bool(v))


def _decode(r: sqlite3.Row) -> dict:
    d = dict(r)
    for k in _JSON:
        if d.get(k) is not None:
            d[k] = json.loads(d[k])
    m = d.get("measurement")  # label: as recorded, or derived from its fields (older rows)
    d["label"] = (m.get("label") or labels.label_of(m)) if m and "rank" in m else None
    return d


_OPS = ("!=", "<=", ">=", "=", "<", ">")


def _where(filters) -> tuple[str, list]:
    parts, args = [], []
    if isinstance(filters, str):  # one filter, not its letters
        filters = [filters]
    if not isinstance(filters, (list, tuple)) or not all(isinstance(f, str) for f in filters):
        raise ConfigError(f"where={filters!r:.60} must be a list of filters such as "
                          "['depth>=2'] (strings)")
    for f in filters:
        op = next((o for o in _OPS if o in f), None)
        if op is None:
            raise ConfigError(f"where={f!r} must be COLUMN=VALUE (or !=, <, <=, >, >=)")
        col, _, val = f.partition(op)
        col, val = col.strip().replace("-", "_"), val.strip()
        if col not in COLUMNS:
            raise ConfigError(f"where={f!r}: {col!r} is not a column; valid: {', '.join(COLUMNS)}")
        if col in ("residual", "saturated") and val.lower() in ("true", "false"):
            val = str(int(val.lower() == "true"))
        parts.append(f"{col} {op} ?")
        args.append(_number(val))
    return (" WHERE " + " AND ".join(parts) if parts else ""), args


def _number(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text

"""The result store: one SQLite file, one row per task, keyed by a content hash.

A row holds the task's full :class:`~seprank.engine.result.Measurement` as JSON (and, for a
``verify`` task, its verify row), plus indexed columns for the usual queries. Every
finished task is written in its own transaction, so a crash loses at most the tasks in
flight; a rerun skips the keys already ``done``. Only the process that drives a sweep
writes here (workers return their results to it).

>>> import tempfile, pathlib
>>> db = Store(pathlib.Path(tempfile.mkdtemp()) / "r.sqlite")
>>> db.count()
0
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from seprank.errors import ConfigError

#: Columns that can be filtered by ``seprank results --where`` (all are indexed or small).
COLUMNS = (
    "key", "status", "task", "grid", "arch", "depth", "width", "heads", "seq_len", "residual",
    "partition", "method", "strategy", "seed", "prime", "max_samples", "version", "rank",
    "saturated", "seconds", "est_seconds", "est_bytes", "attempts", "error", "host",
    "finished",
)  # fmt: skip
#: Statuses: done (measured), failed (raised; retried on a rerun), refused (would not fit).
STATUSES = ("done", "failed", "refused")
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
    spec TEXT NOT NULL, config TEXT, measurement TEXT, extra TEXT
);
CREATE INDEX IF NOT EXISTS tasks_status ON tasks (status);
CREATE INDEX IF NOT EXISTS tasks_grid ON tasks (grid);
CREATE INDEX IF NOT EXISTS tasks_shape ON tasks (arch, depth, width, heads, seq_len);
"""
_JSON = ("spec", "config", "measurement", "extra", "partition")


class Store:
    """An open result store (created with its schema if the file is new)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"db={str(path)!r} is not a usable SQLite file ({exc})") from None
        self._db.row_factory = sqlite3.Row

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def status_of(self, keys) -> dict[str, str]:
        """key -> status for the given keys that have a row."""
        out: dict[str, str] = {}
        keys = list(keys)
        for i in range(0, len(keys), 500):
            part = keys[i : i + 500]
            q = f"SELECT key, status FROM tasks WHERE key IN ({','.join('?' * len(part))})"
            out.update({r["key"]: r["status"] for r in self._db.execute(q, part)})
        return out

    def attempts(self, key: str) -> int:
        r = self._db.execute("SELECT attempts FROM tasks WHERE key = ?", (key,)).fetchone()
        return 0 if r is None else int(r["attempts"])

    def put(self, spec: dict, result: dict) -> None:
        """Write one task's outcome (insert or replace its row) in one transaction."""
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
            "extra": result.get("extra"),
        }  # fmt: skip
        for k in _JSON:
            row[k] = None if row[k] is None else json.dumps(row[k], sort_keys=True)
        cols = list(row)
        sql = (f"INSERT INTO tasks ({', '.join(cols)}, attempts) VALUES "
               f"({', '.join('?' * len(cols))}, 1) ON CONFLICT(key) DO UPDATE SET "
               + ", ".join(f"{c} = excluded.{c}" for c in cols if c != "key")
               + ", attempts = tasks.attempts + 1")  # fmt: skip
        with self._db:  # one transaction per finished task
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(sql, [row[c] for c in cols])

    def get(self, key: str) -> dict | None:
        r = self._db.execute("SELECT * FROM tasks WHERE key = ?", (key,)).fetchone()
        return None if r is None else _decode(r)

    def count(self, status: str | None = None) -> int:
        if status is None:
            return self._db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        q = "SELECT COUNT(*) FROM tasks WHERE status = ?"
        return self._db.execute(q, (status,)).fetchone()[0]

    def query(self, where: list[str] | tuple = ()) -> list[dict]:
        """Rows matching every ``COLUMN OP VALUE`` filter (OP one of = != < <= > >=), in the
        order they finished."""
        sql, args = _where(where)
        q = f"SELECT * FROM tasks{sql} ORDER BY finished, rowid"
        return [_decode(r) for r in self._db.execute(q, args)]


def _int(v):
    return None if v is None else int(bool(v))


def _decode(r: sqlite3.Row) -> dict:
    d = dict(r)
    for k in _JSON:
        if d.get(k) is not None:
            d[k] = json.loads(d[k])
    return d


_OPS = ("!=", "<=", ">=", "=", "<", ">")


def _where(filters) -> tuple[str, list]:
    parts, args = [], []
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

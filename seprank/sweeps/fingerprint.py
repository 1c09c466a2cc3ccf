"""The code fingerprint stored with every task and part of its key: the package version
and a hash of the sources that decide a measurement (``engine/``, ``algebra/``, ``nets/``,
``verdicts/``, ``theory/`` and ``sweeps/tasks.py``), so that a result measured by other
code is not reused silently (``seprank results`` marks such rows ``stale``)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from seprank import _version

#: The folders and files (relative to the package) whose sources make the fingerprint.
SOURCES = ("engine", "algebra", "nets", "verdicts", "theory", "sweeps/tasks.py")


@functools.cache
def fingerprint() -> str:
    """``VERSION+HASH``: HASH the first 12 hex digits of sha256 over the sources, in order."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for name in SOURCES:
        p = root / name
        for f in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return f"{_version.__version__}+{h.hexdigest()[:12]}"

"""Byte-level corpus: the Python standard library's own source files (no download).

Split by file, fixed and documented: a file goes to validation when
crc32(relative path) % 10 == 0, to training otherwise. Files are read in sorted order
until ``max_bytes`` per split; the result is identical on every machine with the same
Python version.
"""

from __future__ import annotations

import sysconfig
import zlib
from pathlib import Path

import numpy as np


class CorpusError(RuntimeError):
    """The corpus is missing or too small."""


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def load_corpus(max_bytes: int = 8_000_000, root: Path | None = None):
    """(train, val) uint8 arrays of Python source bytes, split by file."""
    root = stdlib_dir() if root is None else Path(root)
    if not root.is_dir():
        raise CorpusError(f"corpus: standard library source not found at {root}")
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    if not files:
        raise CorpusError(f"corpus: no .py files under {root}")
    parts: dict[str, list[bytes]] = {"train": [], "val": []}
    sizes = {"train": 0, "val": 0}
    cap = {"train": max_bytes, "val": max(max_bytes // 8, 200_000)}
    for p in files:
        rel = p.relative_to(root).as_posix()
        split = "val" if zlib.crc32(rel.encode()) % 10 == 0 else "train"
        if sizes[split] >= cap[split]:
            if all(sizes[s] >= cap[s] for s in sizes):
                break
            continue
        try:
            b = p.read_bytes()
        except OSError:
            continue
        parts[split].append(b)
        sizes[split] += len(b)
    train = np.frombuffer(b"".join(parts["train"]), dtype=np.uint8)
    val = np.frombuffer(b"".join(parts["val"]), dtype=np.uint8)
    if len(train) < 100_000 or len(val) < 20_000:
        raise CorpusError(f"corpus: too small under {root} ({len(train)} / {len(val)} bytes)")
    return train, val


def batches(data: np.ndarray, batch: int, ctx: int, rng: np.random.Generator):
    """Endless random (x, y) windows of length ctx from ``data``."""
    import torch

    n = len(data) - ctx - 1
    while True:
        idx = rng.integers(0, n, size=batch)
        w = np.stack([data[i : i + ctx + 1] for i in idx]).astype(np.int64)
        t = torch.from_numpy(w)
        yield t[:, :-1], t[:, 1:]

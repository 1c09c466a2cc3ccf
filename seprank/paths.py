"""Output folders: validated before anything is written."""

from __future__ import annotations

from pathlib import Path

from seprank.errors import ConfigError


def check_out_dir(path, arg: str = "out") -> Path:
    """Create ``path`` if needed and make sure a file can be written there, before any work."""
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

"""An environment whose Python processes run each sweep task at least ``seconds`` long.

The tests that stop a sweep midway (a signal, a killed worker) wait for a few stored tasks
and then act; on their own the tasks take milliseconds, so a sweep could finish in the gap
and the test would test nothing (or fail: stop 31's CI saw exit 0 instead of 130). A
``sitecustomize`` on PYTHONPATH is imported at start-up by every process that inherits the
environment (a sweep's driver, its pool or Dask workers), and wraps the task's work with a
sleep: the code measured, and the keys stored, are this checkout's.
"""

from __future__ import annotations

import os
from pathlib import Path

SITE = """\
import time
import seprank.sweeps.tasks as _tasks
_run = _tasks._run
def _slow_run(spec):
    time.sleep({seconds})
    return _run(spec)
_tasks._run = _slow_run
"""


def slow_env(env: dict, folder: Path, seconds: float) -> dict:
    """``env`` with a sitecustomize (written to ``folder``) first on its PYTHONPATH."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITE.format(seconds=float(seconds)))
    old = env.get("PYTHONPATH")
    return dict(env, PYTHONPATH=str(folder) + (os.pathsep + old if old else ""))

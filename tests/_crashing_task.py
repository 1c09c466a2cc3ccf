"""A task function for tests/sweeps/test_sweep.py: kills its worker process for a marked spec
(importable by name, as spawned pool workers need)."""

import os

from seprank.sweeps.tasks import run_task


def run_or_die(spec: dict) -> dict:
    if spec.get("die"):
        os._exit(1)  # the worker dies: no exception, no result
    return run_task(spec)


def run_slowly(spec: dict) -> dict:
    """run_task after ``spec["sleep"]`` seconds (a task still running when its worker goes)."""
    import time

    time.sleep(spec.get("sleep", 0))
    return run_task(spec)

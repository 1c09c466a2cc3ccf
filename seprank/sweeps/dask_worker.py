"""Dask worker preload for LocalClusters that seprank starts: a terminal's Ctrl-C (sent to
the whole process group) is the sweep driver's to handle; it stops the sweep and closes
the cluster, so the workers do not die of it with a traceback. From that signal on a
worker's own logging is silenced too: the driver closes the scheduler while the workers
are still sending heartbeats, and each lost heartbeat would print an ERROR with a
traceback (the tasks' results and failures reach the driver through their futures, not
through these logs)."""

import logging
import signal


def _quiet_after_ctrl_c(signum, frame) -> None:
    for name in ("distributed", "tornado"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def dask_setup(worker) -> None:  # called by Dask in the worker's main thread
    signal.signal(signal.SIGINT, _quiet_after_ctrl_c)

"""Dask worker preload for LocalClusters that seprank starts: a terminal's Ctrl-C (sent to
the whole process group) is the sweep driver's to handle; it stops the sweep and closes
the cluster, so the workers ignore SIGINT instead of dying with a traceback."""

import signal


def dask_setup(worker) -> None:  # called by Dask in the worker's main thread
    signal.signal(signal.SIGINT, signal.SIG_IGN)

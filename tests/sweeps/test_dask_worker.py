"""The worker preload: Ctrl-C does not kill a worker, and silences its logging from then on
(the lost heartbeats of a closing cluster would each print a traceback)."""

import logging
import signal

from seprank.sweeps import dask_worker


def test_ctrl_c_is_absorbed_and_quiets_the_worker_logs():
    old = signal.getsignal(signal.SIGINT)
    levels = {n: logging.getLogger(n).level for n in ("distributed", "tornado")}
    try:
        dask_worker.dask_setup(None)
        handler = signal.getsignal(signal.SIGINT)
        assert handler is dask_worker._quiet_after_ctrl_c
        handler(signal.SIGINT, None)  # no KeyboardInterrupt
        for name in levels:
            assert logging.getLogger(name).level > logging.CRITICAL
    finally:
        signal.signal(signal.SIGINT, old)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)

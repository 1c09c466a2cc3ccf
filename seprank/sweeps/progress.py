"""The progress of a sweep: done / running / failed / skipped and the time left, through
``tqdm.auto`` (:mod:`seprank.engine.bars`).

In a notebook it is a widget and in a terminal a bar on stderr, redrawn in place; in a
log or a pipe the same text is printed as a plain line at most every ``every`` seconds
(and once at the end), never with carriage returns. The time left is an estimate:
elapsed time scaled by the estimated cost (from the proved bounds) of the tasks left over
that of the tasks done, which the bar shows instead of tqdm's rate-based one.
"""

from __future__ import annotations

import sys
import time

from seprank.engine import bars
from seprank.engine.estimate import format_seconds

#: The time left is the elapsed time scaled by the estimates of the tasks left over those
#: of the tasks done, once these are at least this fraction of the elapsed time; before,
#: the estimates of the tasks left as they are (tasks estimated at almost nothing say
#: nothing about the rate, and a scale from them would put the rest at years).
CALIBRATE = 0.1


class Progress:
    """Counts of a sweep's tasks, shown as a tqdm bar or as periodic lines.

    Parameters
    ----------
    total : int
        The sweep's tasks, the skipped ones included.
    skipped : int
        Tasks already in the store (counted as finished from the start).
    enabled : bool
        False: show nothing (``--quiet``).
    stream : file-like, optional
        Where the bar or the lines go (default ``sys.stderr``).
    every : float
        Seconds between two lines where no bar can be drawn.
    label : str
        The bar's label, e.g. ``sweep example``.
    bar : bool, optional
        Force a tqdm bar (True) or plain lines (False); default: a bar where
        :func:`seprank.engine.bars.interactive` says one can be drawn.
    """

    def __init__(self, total: int, skipped: int, *, enabled: bool = True, stream=None,
                 every: float = 10.0, label: str = "sweep", bar: bool | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.total, self.skipped, self.label, self.every = total, skipped, label, every
        self.done = self.failed = self.refused = self.running = 0
        self.est_done = self.est_left = 0.0
        self.t0 = time.perf_counter()
        self._last = -1e9
        self.bar = None
        if enabled and (bar or (bar is None and bars.interactive(self.stream))):
            self.bar = bars.make_bar(total, label, unit="task", initial=skipped,
                                     stream=self.stream, force=True)

    @property
    def finished(self) -> int:
        """Tasks with an outcome: done, failed, refused or skipped (in the store)."""
        return self.done + self.failed + self.refused + self.skipped

    def counts(self) -> str:
        """The counts and the estimated time left, e.g. ``2 done, 1 running, ...``.

        Returns
        -------
        str
        """
        s = (f"{self.done} done, {self.running} running, {self.failed} failed, "
             f"{self.refused} refused, {self.skipped} skipped: in the store")
        left = self.eta()
        if left is not None:
            s += f", about {format_seconds(left)} left (estimate)"
        return s

    def line(self) -> str:
        """The plain progress line: ``LABEL: FINISHED/TOTAL (counts)``.

        Returns
        -------
        str
        """
        return f"{self.label}: {self.finished}/{self.total} ({self.counts()})"

    def eta(self) -> float | None:
        """Seconds left, estimated from the proved-bound costs (None before any is done;
        :data:`CALIBRATE` says when the elapsed time rescales them).

        Returns
        -------
        float or None
        """
        elapsed = time.perf_counter() - self.t0
        if self.est_done <= 0 or elapsed <= 0 or self.est_left <= 1e-9 * self.est_done:
            return None
        if self.est_done < CALIBRATE * elapsed:  # the tasks done were estimated at almost
            return self.est_left  # nothing (elapsed is start-up, compiling, the tasks still
        return elapsed * self.est_left / self.est_done  # running): the cost model unscaled

    def update(self, force: bool = False) -> None:
        """Show the current counts: move the bar, or print a line if ``every`` seconds
        have passed since the last one (or ``force``).

        Parameters
        ----------
        force : bool
            Print a line now (where there is no bar).
        """
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.n = self.finished
            self.bar.set_postfix_str(self.counts(), refresh=False)
            self.bar.refresh() if force else self.bar.update(0)
            return
        now = time.perf_counter()
        if force or now - self._last >= self.every:
            print(self.line(), file=self.stream, flush=True)
            self._last = now

    def discard(self) -> None:
        """End a bar without a final line (nothing ran: the error line follows alone)."""
        if self.bar is not None:
            self.bar.leave = False
            self.bar.close()
            self.bar = None

    def close(self) -> None:
        """Show the final counts and end the bar (or print the last line)."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.update(force=True)
            self.bar.close()
            self.bar = None
        else:
            self.update(force=True)

"""One live progress line for a sweep: done / running / failed / skipped and the time left.

On a terminal the line is redrawn in place; elsewhere (a log, a pipe) a line is printed at
most every ``every`` seconds. The time left is an estimate: elapsed time scaled by the
estimated cost (from the proved bounds) of the tasks left over that of the tasks done.
"""

from __future__ import annotations

import sys
import time

from seprank.engine.estimate import format_seconds


class Progress:
    def __init__(self, total: int, skipped: int, *, enabled: bool = True, stream=None,
                 every: float = 10.0, label: str = "sweep"):  # fmt: skip
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.tty = enabled and getattr(self.stream, "isatty", lambda: False)()
        self.total, self.skipped, self.label, self.every = total, skipped, label, every
        self.done = self.failed = self.refused = self.running = 0
        self.est_done = self.est_left = 0.0
        self.t0 = time.perf_counter()
        self._last = -1e9
        self._width = 0

    def line(self) -> str:
        n = self.done + self.failed + self.refused
        s = (f"{self.label}: {n + self.skipped}/{self.total} ({self.done} done, "
             f"{self.running} running, {self.failed} failed, {self.refused} refused, "
             f"{self.skipped} skipped: in the store)")  # fmt: skip
        left = self.eta()
        if left is not None:
            s += f", about {format_seconds(left)} left (estimate)"
        return s

    def eta(self) -> float | None:
        elapsed = time.perf_counter() - self.t0
        if self.est_done <= 0 or elapsed <= 0 or self.est_left <= 1e-9 * self.est_done:
            return None
        return elapsed * self.est_left / self.est_done

    def update(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.tty:
            text = self.line()
            pad = " " * max(0, self._width - len(text))
            self._width = len(text)
            print("\r" + text + pad, end="", file=self.stream, flush=True)
        elif force or now - self._last >= self.every:
            print(self.line(), file=self.stream, flush=True)
            self._last = now

    def close(self) -> None:
        if self.enabled:
            if self.tty:
                self.update()
                print(file=self.stream, flush=True)
            else:
                self.update(force=True)

"""Progress on stderr while `rmqplan simulate` runs, for a person at a terminal; nothing otherwise.

`Progress.for_stream(stream)` is live only when the stream is a terminal: pipes, files and CI logs get no progress
(a JSON consumer or a log reader wants the answer, not carriage returns). A live display writes

- `note(line)`: a line that stays (which engine runs and why);
- `status(text)`: one line rewritten in place (`\\r`, then erase to the end of the line), at most ten times a
  second and only once the run has lasted `delay` seconds, so a quick run leaves nothing to read;
- `groups(done, total)`: the local engine's hook (`planner.local.simulate(progress=...)`): generated groups
  done, elapsed and remaining seconds;
- `close()`: erases the status line, so the report starts on a clean line.

The Spark engine's stages and tasks come from Spark's status tracker, polled by `planner.spark_session.
watch_status`, which feeds `status`.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional, TextIO

CLEAR = "\r\x1b[K"  # carriage return, erase to the end of the line


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def seconds(value: float) -> str:
    """A duration for people: "0.4 s", "12 s", "3 min 20 s"."""
    if value < 10:
        return f"{value:.1f} s"
    if value < 120:
        return f"{value:.0f} s"
    return f"{int(value // 60)} min {int(value % 60)} s"


class Progress:
    def __init__(self, stream: Optional[TextIO], delay: float = 0.5, interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic):
        self.stream = stream  # None: disabled
        self.delay, self.interval, self.clock = delay, interval, clock
        self.started = clock()
        self._shown = ""  # the status line on screen
        self._last = float("-inf")
        self._lock = threading.Lock()  # the Spark watcher thread and the main thread both write
        self._first: Optional[tuple[float, int]] = None  # (when, groups done) at the first `groups` report

    @classmethod
    def for_stream(cls, stream: TextIO, **kwargs) -> "Progress":
        return cls(stream if is_terminal(stream) else None, **kwargs)

    @property
    def live(self) -> bool:
        return self.stream is not None

    def elapsed(self) -> float:
        return self.clock() - self.started

    def note(self, line: str) -> None:
        if self.stream is None:
            return
        with self._lock:
            self.stream.write((CLEAR if self._shown else "") + line + "\n" + self._shown)
            self.stream.flush()

    def status(self, text: str, force: bool = False) -> None:
        if self.stream is None:
            return
        now = self.clock()
        with self._lock:
            if not force and (now - self.started < self.delay or now - self._last < self.interval):
                return
            self._last, self._shown = now, text
            self.stream.write(CLEAR + text)
            self.stream.flush()

    def groups(self, done: int, total: int) -> None:
        """The local engine's hook: `done` of `total` generated groups allocated and counted. The time left is
        reckoned at the pace since the first report, so the start (interpreter, helper processes) does not
        count as the pace of the work."""
        if self.stream is None:
            return
        now, elapsed = self.clock(), self.elapsed()
        if self._first is None:
            self._first = (now, done)
        text = f"rmqplan: {done:,} of {total:,} generated groups ({100 * done // max(total, 1)}%), {seconds(elapsed)}"
        since, before = self._first
        if before < done < total and now > since:
            text += f", about {seconds((now - since) * (total - done) / (done - before))} left"
        self.status(text)

    def close(self) -> None:
        if self.stream is None:
            return
        with self._lock:
            if self._shown:
                self.stream.write(CLEAR)
                self.stream.flush()
            self._shown = ""

"""Progress on stderr while `rmqplan simulate` runs, for a person at a terminal; nothing otherwise.

`Progress.for_stream(stream)` is live only when the stream is a terminal: pipes, files and CI logs get no progress
(a JSON consumer or a log reader wants the answer, not carriage returns). A live display writes

- `note(line)`: a line that stays (which engine runs and why);
- `status(text)`: one line rewritten in place (`\\r`, then erase to the end of the line), at most ten times a
  second and only once the run has lasted `delay` seconds, so a quick run leaves nothing to read;
- `groups(done, total)`: the local engine's hook (`rmqplan.engines.local.simulate(progress=...)`): generated groups
  done, elapsed and remaining seconds;
- `phase(text)`: what runs now, for work that counts nothing (reading a fleet, a hand-written fleet's steps, the
  report): a ticker thread redraws it with the elapsed time until the next phase, `groups` or `close`;
- `close()`: erases the status line, so the report starts on a clean line.

The Spark engine's stages and tasks come from Spark's status tracker, polled by `rmqplan.engines.spark_session.
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
        self._phase: Optional[str] = None
        self._ticker: Optional[threading.Thread] = None
        self._stop = threading.Event()

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

    def phase(self, text: Optional[str]) -> None:
        """Show `text` (what runs now), redrawn with the elapsed time while it runs; None: stop redrawing (another
        source of status lines takes over)."""
        if self.stream is None:
            return
        self._phase = text
        if text is not None and self._ticker is None:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="rmqplan-progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            text = self._phase
            if text is not None:
                self.status(f"rmqplan: {text}, {seconds(self.elapsed())}")

    def _stop_ticker(self) -> None:
        self._phase = None
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None

    def groups(self, done: int, total: int) -> None:
        """The local engine's hook: `done` of `total` generated groups allocated and counted. The time left is
        reckoned at the pace since the first report, so the start (interpreter, helper processes) does not
        count as the pace of the work."""
        if self.stream is None:
            return
        self._phase = None  # counted progress from here
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
        self._stop_ticker()
        with self._lock:
            if self._shown:
                self.stream.write(CLEAR)
                self.stream.flush()
            self._shown = ""

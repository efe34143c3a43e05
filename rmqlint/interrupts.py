"""Ctrl-C (SIGINT) and SIGTERM in both commands: one line, the shell's exit status, nothing temporary left behind.

`rmqlint.output.run_command` turns SIGTERM into `Terminated`, as Python turns SIGINT into KeyboardInterrupt, so
that the `finally` clauses that remove a temporary file or directory run for both; the command then writes
`PROG: interrupted` (or `terminated`) and exits 130 (143): 128 plus the signal's number, as a shell reports a
command the signal ended.

`sigint_blocked()` starts helper processes without Ctrl-C: the terminal sends SIGINT to the whole process group,
and a helper still importing its modules would print a traceback; the command stops its helpers itself.

`deferred()` holds both signals back over the few steps that must not be cut in two: a temporary file made and its
name kept, so that the `finally` that removes it knows it; a directory renamed into place. A signal that arrives
there acts when the block ends.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

EXIT_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
_HELD = (signal.SIGINT, signal.SIGTERM)


class Terminated(BaseException):
    """SIGTERM, raised wherever the command is when it arrives (a BaseException, as KeyboardInterrupt is)."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


@contextmanager
def terminate_raises() -> Iterator[None]:
    """SIGTERM raises `Terminated` inside the block, where nothing else handles SIGTERM already (a test harness,
    an embedding program) and in the main thread only (the one Python runs signal handlers in)."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back until the block ends, then acted on (the first of them) as they would have been
    where they arrived: a KeyboardInterrupt (or `Terminated`) raised when the block ends, never inside it. Takes no
    lock and may be nested."""
    if threading.current_thread() is not threading.main_thread():
        yield  # a signal's handler runs in the main thread: it cannot cut into this one
        return
    caught: list[int] = []
    previous: dict[int, object] = {}

    def hold(signum, frame) -> None:
        caught.append(signum)

    try:
        for signum in _HELD:
            handler = signal.getsignal(signum)
            if handler is None or handler == signal.SIG_IGN:  # installed outside Python, or ignored: left alone
                continue
            previous[signum] = handler
            signal.signal(signum, hold)
        yield
    finally:
        for signum, handler in reversed(previous.items()):  # SIGINT last: until then, it is held still
            signal.signal(signum, handler)
        if caught:
            signal.raise_signal(caught[0])  # now with its own handler: raises here, or ends the process (SIG_DFL)


@contextmanager
def sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread inside the block, so that the processes started in it begin with it blocked
    (a blocked signal stays blocked across exec, and Python does not unblock it): they never get Ctrl-C. A SIGINT
    for this process that arrives meanwhile waits, and acts when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)

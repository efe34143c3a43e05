"""The local engine's background writer: every batch reaches the sink in order, and a failure to write is not
lost (raised by the next call or by close, so `--out` leaves no output and says why)."""

from __future__ import annotations

import threading

import pytest

from planner.out_tables import BackgroundSink


class Recording:
    def __init__(self, fail_at=None):
        self.seen, self.closed, self.fail_at = [], False, fail_at
        self.threads = set()

    def __call__(self, table, batch):
        self.threads.add(threading.current_thread().name)
        if batch == self.fail_at:
            raise OSError(28, "No space left on device")
        self.seen.append((table, batch))

    def close(self):
        self.closed = True


def test_batches_arrive_in_order_in_another_thread():
    inner = Recording()
    sink = BackgroundSink(inner, depth=2)
    for i in range(50):
        sink("assignments" if i % 2 else "groups", i)
    sink.close()
    assert [b for _t, b in inner.seen] == list(range(50)) and inner.closed
    assert inner.threads == {"rmqplan-out-writer"}


def test_a_write_error_is_raised_and_the_parts_are_not_published():
    inner = Recording(fail_at=3)
    sink = BackgroundSink(inner, depth=1)
    with pytest.raises(OSError, match="No space left"):
        for i in range(100):
            sink("assignments", i)
        sink.close()
    assert not inner.closed and [b for _t, b in inner.seen] == [0, 1, 2]

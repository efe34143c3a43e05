"""rocketmq-client-go's forms of the strategies: what a Go process (`client = "go"`) computes, from the Go client's
own code (`consumer/strategy.go`, the same in every v2 release from v2.0.0 on), transcribed here in Python.

Facts taken from apache/rocketmq-client-go (read, not copied):
- `defaultConsumer.doBalance` sorts cidAll with `sort.Strings` and mqAll by topic, brokerName (`strings.Compare`)
  and queue id: byte order of UTF-8, which is code point order. Java sorts by UTF-16 code units, so the two differ
  only where a character above U+FFFF meets one in U+E000..U+FFFF (`go_sorted`). Duplicated ids stay.
- No strategy throws: an empty currentCID, mqAll or cidAll, or a currentCID not in cidAll, gives nothing
  (`AllocateByConfig` returns its list whatever it is given).
- `AllocateByAveragely` and `AllocateByAveragelyCircle` do the Java classes' arithmetic; `AllocateByMachineNearby`
  is `AllocateByAveragely` (it reads no machine room).
- `AllocateByMachineRoom` picks the queues whose brokerName splits (`strings.Split`: empty parts kept) into two
  parts, the first in consumeridcs, but takes its block of `picked / n` from mqAll by position (as the Java class
  did before 4.8.0), and the one more from the picked queues.
- `AllocateByConsistentHash` builds a `stathat.com/c/consistent` ring: CRC-32 (IEEE) of `strconv.Itoa(i) + cid`
  for i < virtual nodes, a repeated id adding no point, an equal hash taken by the id added later; a queue
  (`MessageQueue.String()`, the text Java's toString gives) goes to the first point strictly after its hash, else
  to the first point. With 0 virtual nodes the ring's `updateSortedHashes` divides by zero: a panic, in a goroutine
  that does not recover, so the process stops.

Strings reach a Go process as UTF-8; a lone surrogate (possible in JSON input) is U+FFFD there, as Go's JSON
decoder makes it (`go_utf8`).

Each form's vectorised kernel answers the calls whose names sort alike in Go and Java (`go_kernel`: no character
from U+D800 up, the usual case) with array arithmetic, and the others call by call with the transcription.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from rmqplan.model.fleet import Queue
from rmqplan.allocation.strategies import strategy_for
from rmqplan.allocation.strategies.base import Share, Strategy, per_call_kernel

GO = "go"
LIBRARY = "rocketmq-client-go"
_FIRST_UNSAFE = "\ud800"  # below it UTF-16 units, code points and UTF-8 bytes all sort alike


def go_utf8(s: str) -> bytes:
    """The bytes of `s` in a Go process: UTF-8, surrogates written as two code points paired, a lone one U+FFFD."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "replace").encode("utf-8")


def _safe(strings: Sequence[str]) -> bool:
    return all(s.isascii() or max(s) < _FIRST_UNSAFE for s in strings)


def go_sorted(mq_all: Sequence[Queue], cid_all: Sequence[str]) -> tuple[list[Queue], list[str]]:
    """mqAll and cidAll as `doBalance` sorts them (byte order; equal ids kept)."""
    if _safe(cid_all) and _safe([q.topic for q in mq_all]) and _safe([q.broker for q in mq_all]):
        return sorted(mq_all), sorted(cid_all)
    return (sorted(mq_all, key=lambda q: (go_utf8(q.topic), go_utf8(q.broker), q.queue_id)),
            sorted(cid_all, key=go_utf8))


class GoForm(Strategy):
    """What every Go form shares: no check, messages that say whose code it is, and the kernel's split between
    the vectorised form (`vectorised`) and the transcription."""

    client = GO
    checks_input = False

    def describe(self, spec):
        return f"{strategy_for(self.name).describe(spec)} of {LIBRARY}"

    def allocate_all(self, spec, mq_all, cid_all, rooms) -> dict[str, Share]:
        return {cid: self.allocate_one(spec, cid, mq_all, cid_all, rooms) for cid in dict.fromkeys(cid_all)}

    def kernel(self, calls):
        return go_kernel(self, calls, self.vectorised)

    def vectorised(self, calls):
        """The calls (names that sort alike, m > 0, no empty asking id) as arrays; by default call by call."""
        return per_call_kernel(self, calls)


def go_kernel(strategy: Strategy, calls, vectorised: Callable):
    """Calls whose names sort otherwise in Go go call by call (`per_call_kernel`); of the others, those with no
    queue give nothing, asks with an empty client id are dropped (Go returns nil), and `vectorised` answers the
    rest."""
    from rmqplan.allocation.batch import Rows

    batch = calls.batch
    if not len(calls):
        return Rows.empty()
    # a call whose queues are on a broker with such a name sorts otherwise
    unsafe_broker = np.array([not _safe([b]) for b in batch.brokers], dtype=np.int64)
    before = np.zeros(batch.queue_count + 1, dtype=np.int64)
    np.cumsum(unsafe_broker[batch.q_broker] if len(unsafe_broker) else 0, out=before[1:])
    safe = before[calls.q_start + calls.m] == before[calls.q_start]
    c_off = batch.c_off
    for k, r in enumerate(calls.rebalance.tolist()):
        safe[k] = safe[k] and _safe([batch.names.topic(r)]) and \
            _safe(batch.names.client_ids(np.arange(c_off[r], c_off[r + 1], dtype=np.int64)))
    parts = []
    if not safe.all():
        parts.append(per_call_kernel(strategy, calls.subset(np.flatnonzero(~safe))))
    keep = np.flatnonzero(safe & (calls.m > 0))
    if len(keep):
        mine = calls.subset(keep)
        if batch.c_empty_id is not None:
            named = ~batch.c_empty_id[mine.ask_entry]
            mine = type(mine)(mine.batch, mine.rebalance, mine.spec, mine.n, mine.m, mine.q_start,
                              mine.ask_call[named], mine.ask_index[named], mine.ask_entry[named])
        parts.append(vectorised(mine))
    return Rows.concat(parts)

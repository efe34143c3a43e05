"""Rebalances as columns: the input of the allocation kernel (`rmqplan.allocation.kernel`), the same for every engine.

A rebalance is one group's topic in one scenario: what each of the group's processes computes when it rebalances
that topic. A `Batch` holds many of them (hand-written groups, generated groups, scenario states: more rebalances
in the same batch, never a loop of jobs) as flat numpy arrays cut by offsets:

- per rebalance r: its scenario id, group id, model, whether it is a retry topic;
- its readable queues `q_off[r]:q_off[r+1]`, in RocketMQ order (topic, broker, queue id in Java order): per queue
  the broker id (into `brokers`) and the queue id;
- its cidAll entries `c_off[r]:c_off[r+1]`, one per process of the group, in declaration order: per entry
  `c_index` = `cidAll.indexOf(its client id)` (how many ids sort before it in Java order), `c_order` = its
  position in the sorted cidAll (equal ids keep declaration order), whether it subscribes to the topic (`c_asks`:
  it runs its strategy; the others only take a place in the split), its strategy (`c_spec`, into `specs`) and the
  machine room of its client id (`c_room`, into `rooms`, -1 for none; MACHINE_ROOM_NEARBY).

Strings (topic names, client ids, broker names) stay out of the hot arrays; `names` gives them on demand, for the
strategies that hash or match them and for the results of the rebalances a report shows. `rmqplan.fleet_batch`
builds a batch from a hand-written fleet, `rmqplan.generated.generate` from a `[generate]` table.
"""

from __future__ import annotations

from collections import abc
from dataclasses import dataclass, field
from typing import Optional, Protocol, Sequence

import numpy as np

from rmqplan.model.fleet import Queue, StrategySpec

CLUSTERING_CODE, BROADCASTING_CODE = 0, 1


class BatchNames(Protocol):
    """The strings of a batch, on demand (a generated batch computes them; a hand-written one looks them up)."""

    def topic(self, r: int) -> str:
        """The topic rebalance r allocates."""

    def client_ids(self, entries: np.ndarray) -> list[str]:
        """The client ids of the given cidAll entries."""


@dataclass
class Batch:
    # per rebalance (R)
    scenario: np.ndarray  # int32
    group: np.ndarray  # int64: group id (unique per group within the fleet)
    model: np.ndarray  # int8: CLUSTERING_CODE | BROADCASTING_CODE
    retry: np.ndarray  # bool: %RETRY%<group>
    q_off: np.ndarray  # int64[R + 1]
    c_off: np.ndarray  # int64[R + 1]
    # per queue (Q)
    q_broker: np.ndarray  # int32 into `brokers`
    q_id: np.ndarray  # int32
    # per cidAll entry (C)
    c_index: np.ndarray  # int64
    c_order: np.ndarray  # int64
    c_asks: np.ndarray  # bool
    c_spec: np.ndarray  # int32 into `specs`
    c_room: np.ndarray  # int32 into `rooms`, -1 for none
    # tables
    specs: list  # list[StrategySpec]
    brokers: list  # list[str]
    broker_room: np.ndarray  # int32 per broker into `rooms`, -1 for none (MACHINE_ROOM_NEARBY's resolver)
    rooms: list  # list[str]
    names: BatchNames
    c_empty_id: Optional[np.ndarray] = None  # bool per entry: the client id is "" (None: no entry has one)

    @property
    def rebalances(self) -> int:
        return len(self.q_off) - 1

    @property
    def entries(self) -> int:
        return int(self.c_off[-1])

    @property
    def queue_count(self) -> int:
        return int(self.q_off[-1])

    def queue_counts(self) -> np.ndarray:
        return np.diff(self.q_off)

    def entry_counts(self) -> np.ndarray:
        return np.diff(self.c_off)

    def entry_rebalance(self) -> np.ndarray:
        """The rebalance of every entry (computed once: the kernel and the tally both read it; read-only)."""
        found = self.__dict__.get("_entry_rebalance")
        if found is None:
            found = self.__dict__["_entry_rebalance"] = segment_ids(self.c_off)
            found.flags.writeable = False
        return found

    def queue_rebalance(self) -> np.ndarray:
        return segment_ids(self.q_off)

    def queue(self, r: int, i: int) -> Queue:
        """The i-th queue (global index) of rebalance r as a Queue."""
        return Queue(self.names.topic(r), self.brokers[self.q_broker[i]], int(self.q_id[i]))


# -------------------------------------------------------------------------------------------- segment helpers


def segment_ids(off: np.ndarray) -> np.ndarray:
    """For offsets [0, a, b, ...]: the segment of every element (0 repeated a times, 1 repeated b - a times ...)."""
    return np.repeat(np.arange(len(off) - 1, dtype=np.int64), np.diff(off))


def segment_sums(values: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Sum of `values` over each segment of `off` (empty segments give 0)."""
    cs = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=cs[1:])
    return cs[off[1:]] - cs[off[:-1]]


def segment_counts(mask: np.ndarray, off: np.ndarray, ids: Optional[np.ndarray] = None) -> np.ndarray:
    """How many elements of each segment of `off` are set in the boolean `mask`; `ids`, the segment of every
    element, if the caller has it. A sparse mask (the usual problem flags) is counted from its set elements."""
    found = np.flatnonzero(mask)
    segments = len(off) - 1
    if 8 * len(found) > len(mask):
        return segment_sums(mask.view(np.int8), off)
    at = ids[found] if ids is not None else np.searchsorted(off, found, "right") - 1
    return np.bincount(at, minlength=segments)


def concat_ranges(starts: np.ndarray, counts: np.ndarray, steps=None) -> tuple[np.ndarray, np.ndarray]:
    """Every `starts[i] + steps[i] * j` for j < counts[i], concatenated: (values, owner i of each value)."""
    counts = np.asarray(counts, dtype=np.int64)
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return repeat_ranges(starts, counts, steps), owner


def repeat_ranges(starts: np.ndarray, counts: np.ndarray, steps=None) -> np.ndarray:
    """`concat_ranges`'s values alone: the running position plus one value repeated per range (no gather)."""
    counts = np.asarray(counts, dtype=np.int64)
    before = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=before[1:])
    values = np.arange(int(before[-1] + counts[-1]) if len(counts) else 0, dtype=np.int64)
    starts = np.asarray(starts, dtype=np.int64)
    if steps is None:  # starts[i] + (position - before[i])
        values += np.repeat(starts - before, counts)
    else:  # starts[i] + steps[i] * (position - before[i])
        steps = np.asarray(steps, dtype=np.int64)
        values *= np.repeat(steps, counts)
        values += np.repeat(starts - steps * before, counts)
    return values


def offsets(counts) -> np.ndarray:
    off = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    return off


# ------------------------------------------------------------------------------------------------ a spec table


@dataclass
class SpecTable:
    """StrategySpecs numbered in the order they are first seen."""

    specs: list = field(default_factory=list)
    ids: dict = field(default_factory=dict)

    def id(self, spec: StrategySpec) -> int:
        found = self.ids.get(spec)
        if found is None:
            found = self.ids[spec] = len(self.specs)
            self.specs.append(spec)
        return found


@dataclass
class StringTable:
    """Strings numbered in the order they are first seen."""

    values: list = field(default_factory=list)
    ids: dict = field(default_factory=dict)

    def id(self, value: str) -> int:
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = len(self.values)
            self.values.append(value)
        return found


def client_ranks(java_keys: Sequence) -> tuple[list[int], list[int]]:
    """For one cidAll in declaration order, given each id's Java sort key: (indexOf in the sorted list, position in
    the sorted list with equal ids in declaration order)."""
    order = sorted(range(len(java_keys)), key=lambda i: java_keys[i])  # stable: equal ids keep their order
    position = [0] * len(java_keys)
    index = [0] * len(java_keys)
    first: dict = {}
    for pos, i in enumerate(order):
        position[i] = pos
        index[i] = first.setdefault(java_keys[i], pos)
    return index, position


# ------------------------------------------------------------------------------------------ strategy calls


@dataclass
class Calls:
    """The calls of one strategy in a batch, as its vectorised form (`Strategy.kernel`) gets them.

    Call k runs `batch.specs[spec[k]]` for rebalance `rebalance[k]`: mqAll is the batch's queues
    `q_start[k] : q_start[k] + m[k]` (RocketMQ order), cidAll the rebalance's `n[k]` entries. The asks are the
    entries that run the call: `ask_call`, `ask_index` (`cidAll.indexOf` of their client id) and `ask_entry` (the
    batch entry, for the rows). m > 0, n > 0 and no asking client id is empty (the engine answers those cases
    the way `check()` does before any strategy runs)."""

    batch: Batch
    rebalance: np.ndarray  # int64[K]
    spec: np.ndarray  # int32[K]
    n: np.ndarray  # int64[K]
    m: np.ndarray  # int64[K]
    q_start: np.ndarray  # int64[K]
    ask_call: np.ndarray  # int64[A]
    ask_index: np.ndarray  # int64[A]
    ask_entry: np.ndarray  # int64[A]

    def __len__(self) -> int:
        return len(self.rebalance)

    def subset(self, calls: np.ndarray) -> "Calls":
        """Only the given calls (sorted indices), renumbered."""
        keep = np.zeros(len(self), dtype=bool)
        keep[calls] = True
        new_id = np.cumsum(keep) - 1
        a = keep[self.ask_call]
        return Calls(self.batch, self.rebalance[calls], self.spec[calls], self.n[calls], self.m[calls],
                     self.q_start[calls], new_id[self.ask_call[a]], self.ask_index[a], self.ask_entry[a])

    def spec_of(self, k: int) -> StrategySpec:
        return self.batch.specs[int(self.spec[k])]

    def ranges(self, start: np.ndarray, count: np.ndarray, step=None) -> "Rows":
        """Rows for asks that hold the ranks `start + step * j` (j < count, count >= 0) of their call's queues,
        ask by ask."""
        first = self.q_start[self.ask_call] + start
        return Rows(np.repeat(self.ask_entry, count), repeat_ranges(first, count, step))


@dataclass
class Rows:
    """Who holds what: `entry` holds the batch queue `queue`. `pos` orders an entry's share when its list order is
    not queue order (CONFIG's list, MACHINE_ROOM_NEARBY's own room first); None means queue order. `extra` are
    queues outside the rebalance's readable queues (a CONFIG list naming another topic's queue): (entry, Queue,
    pos), a list or an `ExtraRows`. `errors`: entry -> the exception its strategy throws (its process holds
    nothing)."""

    entry: np.ndarray
    queue: np.ndarray
    pos: Optional[np.ndarray] = None
    extra: Sequence = field(default_factory=list)
    errors: dict = field(default_factory=dict)

    @staticmethod
    def empty() -> "Rows":
        return Rows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    @staticmethod
    def concat(parts: Sequence["Rows"]) -> "Rows":
        parts = [p for p in parts if len(p.entry) or p.extra or p.errors]
        if not parts:
            return Rows.empty()
        if len(parts) == 1:
            return parts[0]
        pos = None
        if any(p.pos is not None for p in parts):
            pos = np.concatenate([p.pos if p.pos is not None else p.queue for p in parts])
        extra, errors = [], {}
        for p in parts:
            extra.extend(p.extra)
            errors.update(p.errors)
        return Rows(np.concatenate([p.entry for p in parts]), np.concatenate([p.queue for p in parts]), pos,
                    extra, errors)


class ExtraRows(abc.Sequence):
    """`Rows.extra` as columns, as a vectorised kernel makes them: the same (entry, Queue, pos) rows, each tuple
    made only when iterated. Millions of tuples made at once cost more than the kernel (and the collector walks
    them again and again while they live); a consumer that needs one column reads it (`extra_entries`)."""

    __slots__ = ("entry", "queue", "pos")

    def __init__(self, entry: np.ndarray, queue: np.ndarray, pos: np.ndarray):
        self.entry, self.queue, self.pos = entry, queue, pos  # int64, object (Queue), int64

    def __len__(self) -> int:
        return len(self.entry)

    def __iter__(self):
        return zip(self.entry.tolist(), self.queue.tolist(), self.pos.tolist())

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(self)[i]
        return int(self.entry[i]), self.queue[i], int(self.pos[i])

    def __eq__(self, other) -> bool:
        return isinstance(other, abc.Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"ExtraRows({list(self)!r})"


def extra_entries(extra: Sequence) -> np.ndarray:
    """The entry of every extra row."""
    if isinstance(extra, ExtraRows):
        return extra.entry
    return np.fromiter((e for e, _, _ in extra), dtype=np.int64, count=len(extra))


# ------------------------------------------------------------------------------------------------ sub-batches


class SubsetNames:
    """The names of a `sub_batch`: rebalance j is the batch's `rebalance[j]`, entry d the batch's `entry[d]`.
    The bulk forms (`client_keys`, `client_id_bytes`, `topic_bytes`, `topic_list`) exist when the batch's names
    have them."""

    def __init__(self, names: BatchNames, rebalance: np.ndarray, entry: np.ndarray):
        self.names, self.rebalance, self.entry = names, rebalance, entry

    def topic(self, r: int) -> str:
        return self.names.topic(int(self.rebalance[r]))

    def client_ids(self, entries: np.ndarray) -> list[str]:
        return self.names.client_ids(self.entry[entries])

    def __getattr__(self, attr: str):
        if attr in ("client_keys", "client_id_bytes"):
            bulk = getattr(self.names, attr)  # AttributeError when the batch's names have no bulk form
            return lambda entries: bulk(self.entry[entries])
        if attr in ("topic_bytes", "topic_list"):
            bulk = getattr(self.names, attr)
            return lambda rebalances: bulk(self.rebalance[rebalances])
        raise AttributeError(attr)


def sub_batch(batch: Batch, rebalance: np.ndarray, q_off: np.ndarray, queues: np.ndarray, c_off: np.ndarray,
              entries: np.ndarray, c_asks: np.ndarray, c_spec: np.ndarray, specs: list) -> Batch:
    """A batch whose rebalance j takes the batch's queues `queues[q_off[j]:q_off[j+1]]` (in RocketMQ order) and
    entries `entries[c_off[j]:c_off[j+1]]` of the batch's rebalance `rebalance[j]`, given in cidAll order: cidAll
    is that subset, in that order (`c_order` counts along it; `c_index` is the place of the first of each run
    of equal client ids, equal in the batch by their `c_index`)."""
    j = segment_ids(c_off)
    position = np.arange(len(entries), dtype=np.int64) - c_off[j]
    index_of = batch.c_index[entries]
    new_run = np.ones(len(entries), dtype=bool)
    new_run[1:] = (index_of[1:] != index_of[:-1]) | (j[1:] != j[:-1])
    index = position if new_run.all() else position[np.flatnonzero(new_run)[np.cumsum(new_run) - 1]]
    return Batch(
        scenario=batch.scenario[rebalance], group=batch.group[rebalance], model=batch.model[rebalance],
        retry=batch.retry[rebalance], q_off=q_off, c_off=c_off, q_broker=batch.q_broker[queues],
        q_id=batch.q_id[queues], c_index=index, c_order=position, c_asks=c_asks, c_spec=c_spec,
        c_room=batch.c_room[entries], specs=specs, brokers=batch.brokers, broker_room=batch.broker_room,
        rooms=batch.rooms, names=SubsetNames(batch.names, rebalance, entries),
        c_empty_id=None if batch.c_empty_id is None else batch.c_empty_id[entries])

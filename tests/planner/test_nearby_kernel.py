"""MACHINE_ROOM_NEARBY's vectorised form against its transcription (`allocate_all`, call by call) on random batches:
rooms on brokers and clients (missing, empty, shared by several brokers, without queues or without clients),
every delegate, repeated and empty client ids, processes that do not subscribe, and calls of other strategies in
the same rebalance. Every process's list (in its order, queues of other topics included) and every exception must
be the same."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, Rows, client_ranks, offsets
from rmqplan.allocation.kernel import allocate
from rmqplan.allocation.strategies import parse_strategy_name
from rmqplan.allocation.strategies.base import per_call_kernel
from rmqplan.allocation.strategies.machine_room_nearby import MachineRoomNearby
from rmqplan.model.javaorder import java_string_key

ROOMS = ["hz", "sh", "bj", "", "\uffff", "\U0001F600"]  # "" names no room, as a missing one
BROKERS = sorted(["hz@a", "sh@b", "c", "bj@d", "\uffff@e"], key=java_string_key)  # queues come broker by broker
CLIENT_IDS = ["10.0.0.1@1", "10.0.0.2@1", "a", "", "\U0001F600", "\uffff", "é@2", "b"]
DELEGATES = [
    parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="AVG"),
    parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="AVG_BY_CIRCLE"),
    parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="CONSISTENT_HASH", virtual_nodes=2),
    parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="CONSISTENT_HASH", virtual_nodes=0),
    parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="MACHINE_ROOM", consumer_idcs=["hz", "bj"]),
    parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="CONFIG",
                        config_queues=[["T0", "hz@a", 0], ["T1", "sh@b", 1], ["Other", "x", 0]]),
    parse_strategy_name("AVG"),  # a process of the group on another strategy (a rollout caught half-way)
]


class _Names:
    def __init__(self, topics, client_ids):
        self.topics, self.ids = topics, client_ids

    def topic(self, r):
        return self.topics[r]

    def client_ids(self, entries):
        return [self.ids[e] for e in entries.tolist()]


# a room of ROOMS by index, mostly a real one: a single missing room fails the whole call
room = st.sampled_from([0, 0, 1, 1, 2, 4, 5, 0, 1, 2, 4, 5, 3, -1])
# (client id, subscribes, spec, its own room: None for its client id's; batches built from a fleet give every
# entry of an id one room, a batch given by hand may not: Rooms takes the last that has one, in cidAll order)
process = st.tuples(st.sampled_from(CLIENT_IDS), st.booleans() | st.just(True), st.integers(0, len(DELEGATES) - 1),
                    st.none() | st.none() | room)
rebalance = st.fixed_dictionaries({
    "counts": st.lists(st.integers(0, 4), min_size=len(BROKERS), max_size=len(BROKERS)),
    "processes": st.lists(process, min_size=1, max_size=7),
})


@settings(max_examples=400, deadline=None)
@given(st.lists(rebalance, min_size=1, max_size=5),
       st.lists(room, min_size=len(BROKERS), max_size=len(BROKERS)),
       st.lists(room, min_size=len(CLIENT_IDS), max_size=len(CLIENT_IDS)).map(lambda r: dict(zip(CLIENT_IDS, r))),
       st.sampled_from(DELEGATES[:-1]))
def test_the_vectorised_nearby_equals_the_transcription(rebalances, broker_room, client_room, usual):
    q_broker, q_id, q_counts, cids, c_index, c_order, c_spec, c_asks, c_room = ([] for _ in range(9))
    for r in rebalances:
        for b, count in enumerate(r["counts"]):
            q_broker += [b] * count
            q_id += list(range(count))
        q_counts.append(sum(r["counts"]))
        ids = [cid for cid, _, _, _ in r["processes"]]
        index, position = client_ranks([java_string_key(c) for c in ids])
        cids += ids
        c_index += index
        c_order += position
        c_asks += [asks for _, asks, _, _ in r["processes"]]
        c_spec += [s if s == len(DELEGATES) - 1 else DELEGATES.index(usual) if s % 2 else s
                   for _, _, s, _ in r["processes"]]
        c_room += [client_room[cid] if own is None else own for cid, _, _, own in r["processes"]]
    n = len(rebalances)
    batch = Batch(
        scenario=np.zeros(n, dtype=np.int32), group=np.arange(n), model=np.full(n, CLUSTERING_CODE, dtype=np.int8),
        retry=np.zeros(n, dtype=bool), q_off=offsets(q_counts),
        c_off=offsets([len(r["processes"]) for r in rebalances]),
        q_broker=np.array(q_broker, dtype=np.int32), q_id=np.array(q_id, dtype=np.int32),
        c_index=np.array(c_index, dtype=np.int64), c_order=np.array(c_order, dtype=np.int64),
        c_asks=np.array(c_asks, dtype=bool), c_spec=np.array(c_spec, dtype=np.int32),
        c_room=np.array(c_room, dtype=np.int32),
        specs=DELEGATES, brokers=BROKERS, broker_room=np.array(broker_room, dtype=np.int32), rooms=ROOMS,
        names=_Names([f"T{r}" for r in range(n)], cids),
        c_empty_id=np.array([c == "" for c in cids], dtype=bool))
    assert _lists(batch, allocate(batch)) == _lists(batch, _transcribed(batch))


def test_rooms_without_clients_come_after_the_own_room_in_java_order():
    # rooms hz (the client's), then, shared by all, "\U0001F600" before "\uffff" (UTF-16 order: D83D DE00 < FFFF)
    batch = Batch(
        scenario=np.zeros(1, dtype=np.int32), group=np.arange(1), model=np.full(1, CLUSTERING_CODE, dtype=np.int8),
        retry=np.zeros(1, dtype=bool), q_off=offsets([3]), c_off=offsets([1]),
        q_broker=np.array([0, 1, 2], dtype=np.int32), q_id=np.zeros(3, dtype=np.int32),
        c_index=np.zeros(1, dtype=np.int64), c_order=np.zeros(1, dtype=np.int64), c_asks=np.ones(1, dtype=bool),
        c_spec=np.zeros(1, dtype=np.int32), c_room=np.zeros(1, dtype=np.int32), specs=DELEGATES[:1],
        brokers=["a", "b", "c"], broker_room=np.array([5, 4, 0], dtype=np.int32), rooms=ROOMS,
        names=_Names(["T"], ["x"]))
    assert _lists(batch, allocate(batch)) == {0: [("q", 2), ("q", 0), ("q", 1)]}


def _transcribed(batch: Batch) -> Rows:
    vectorised = MachineRoomNearby.kernel
    MachineRoomNearby.kernel = lambda self, calls: per_call_kernel(self, calls)
    try:
        return allocate(batch)
    finally:
        MachineRoomNearby.kernel = vectorised


def _lists(batch: Batch, rows: Rows) -> dict:
    """Each entry's list in its order (queues of the batch by index, others as Queues), or its exception."""
    items: dict[int, list] = {}
    pos = rows.pos if rows.pos is not None else rows.queue
    for e, q, p in zip(rows.entry.tolist(), rows.queue.tolist(), pos.tolist()):
        items.setdefault(e, []).append((p, ("q", q)))
    for e, q, p in rows.extra:
        items.setdefault(e, []).append((p, ("x", q)))
    out = {e: [item for _, item in sorted(got, key=lambda x: x[0])] for e, got in items.items()}
    for e, message in rows.errors.items():
        assert e not in out
        out[e] = message
    return out


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(-5, 10**7), max_size=30), st.lists(st.integers(-6, 10**7 + 1), max_size=30))
def test_lookup_finds_each_key_or_minus_one(keys, wanted):
    from rmqplan.allocation.strategies.machine_room_nearby import _lookup

    keys = sorted(keys)
    wanted += keys[:3]
    got = _lookup(np.array(keys, dtype=np.int64), np.array(wanted, dtype=np.int64))
    assert got.tolist() == [keys.index(w) if w in keys else -1 for w in wanted]

"""rocketmq-client-go's forms: each vectorised kernel against its transcription (call by call) on random batches
with every Go form and a Java one side by side in a rebalance (a mixed group), repeated, empty and non-ASCII client
ids (which sort otherwise in Go), ids whose ring keys coincide ("1" + "1@x" is "11" + "@x"), brokers that split
otherwise on "@", 0 virtual nodes (a panic), rebalances without queues, processes that do not subscribe."""

from __future__ import annotations

import zlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, client_ranks, offsets
from rmqplan.allocation.byte_rows import ByteRows
from rmqplan.allocation.crc32 import crc32_rows
from rmqplan.allocation.kernel import allocate
from rmqplan.allocation.strategies import for_process, parse_strategy_name, strategy_for
from rmqplan.allocation.strategies.base import per_call_kernel
from rmqplan.allocation.strategies.go import GoForm
from rmqplan.model.fleet import Queue
from rmqplan.model.javaorder import java_string_key
from tests.planner.test_nearby_kernel import _lists, _Names

BROKERS = sorted(["broker-a", "hz@broker-a", "sh@broker-b", "hz@", "hz@x@", "@hz", "\uffffb"], key=java_string_key)
TOPICS = ["T0", "T1", "%RETRY%g", "\U0001F600"]
CLIENT_IDS = ["10.0.0.1@1", "10.0.0.2@1", "10.0.0.1@77", "@x", "1@x", "10.0.0.3@n", "", "\uffff@1", "\U0001F600@1"]


def _go(name: str, **params):
    return for_process(parse_strategy_name(name, **params), "go", "2.1.2")


spec = st.one_of(
    st.sampled_from([_go("AVG"), _go("AVG_BY_CIRCLE"), _go("MACHINE_ROOM_NEARBY"), parse_strategy_name("AVG"),
                     parse_strategy_name("CONSISTENT_HASH")]),
    st.integers(0, 13).map(lambda v: _go("CONSISTENT_HASH", virtual_nodes=v)),
    st.lists(st.sampled_from(["hz", "sh", "", "x"]), max_size=3).map(lambda r: _go("MACHINE_ROOM", consumer_idcs=r)),
    st.lists(st.builds(Queue, st.sampled_from(TOPICS), st.sampled_from(BROKERS), st.integers(0, 3)), max_size=4)
    .map(lambda qs: _go("CONFIG", config_queues=qs)),
)
# names that sort otherwise in Go send a call to the transcription: drawn now and then, so most calls are vectorised
SAFE_IDS = [c for c in CLIENT_IDS if c.isascii()]
rebalance = st.fixed_dictionaries({
    "topic": st.sampled_from([0, 0, 1, 1, 2, 3]),
    "counts": st.tuples(*(st.integers(0, 4) if b.isascii() else st.sampled_from([0, 0, 0, 0, 2])
                          for b in BROKERS)).map(list),
    # (client id, subscribes, spec: an index into the drawn specs)
    "processes": st.lists(st.tuples(st.sampled_from(SAFE_IDS * 4 + CLIENT_IDS), st.booleans() | st.just(True),
                                    st.integers(0, 7)), min_size=1, max_size=8),
})


def _batch(specs, rebalances) -> Batch:
    q_broker, q_id, q_counts, cids, c_index, c_order, c_spec, c_asks = ([] for _ in range(8))
    for r in rebalances:
        queues = [(b, i) for b, count in enumerate(r["counts"]) for i in range(count)]
        q_broker += [b for b, _ in queues]
        q_id += [i for _, i in queues]
        q_counts.append(len(queues))
        ids = [cid for cid, _, _ in r["processes"]]
        index, position = client_ranks([java_string_key(c) for c in ids])
        cids += ids
        c_index += index
        c_order += position
        c_asks += [asks for _, asks, _ in r["processes"]]
        c_spec += [s % len(specs) for _, _, s in r["processes"]]
    n = len(rebalances)
    return Batch(
        scenario=np.zeros(n, dtype=np.int32), group=np.arange(n), model=np.full(n, CLUSTERING_CODE, dtype=np.int8),
        retry=np.zeros(n, dtype=bool), q_off=offsets(q_counts),
        c_off=offsets([len(r["processes"]) for r in rebalances]),
        q_broker=np.array(q_broker, dtype=np.int32), q_id=np.array(q_id, dtype=np.int32),
        c_index=np.array(c_index, dtype=np.int64), c_order=np.array(c_order, dtype=np.int64),
        c_asks=np.array(c_asks, dtype=bool), c_spec=np.array(c_spec, dtype=np.int32),
        c_room=np.full(len(cids), -1, dtype=np.int32), specs=specs, brokers=BROKERS,
        broker_room=np.full(len(BROKERS), -1, dtype=np.int32), rooms=[],
        names=_Names([TOPICS[r["topic"]] for r in rebalances], cids),
        c_empty_id=np.array([c == "" for c in cids], dtype=bool) if "" in cids else None)


def _transcribed(batch: Batch):
    forms = [strategy_for(s.name, "go") for s in batch.specs if s.client == "go"]
    saved = {type(f): type(f).__dict__.get("kernel") for f in forms}
    for cls in saved:
        cls.kernel = lambda self, calls: per_call_kernel(self, calls)
    try:
        return allocate(batch)
    finally:
        for cls, kernel in saved.items():
            if kernel is None:
                del cls.kernel
            else:
                cls.kernel = kernel


VECTORISED = {"calls": 0}


@settings(max_examples=500, deadline=None)
@given(st.lists(spec, min_size=1, max_size=8), st.lists(rebalance, min_size=1, max_size=5))
def test_go_kernels_equal_the_transcription(specs, rebalances):
    batch = _batch(specs, rebalances)
    assert _lists(batch, allocate(batch)) == _lists(batch, _transcribed(batch))


def test_the_random_batches_reach_the_vectorised_forms(monkeypatch):
    """The property above is not met by the call-by-call fallback alone: most calls go through `vectorised`."""
    seen = []

    def counting(self, calls):
        from rmqplan.allocation.strategies.go import go_kernel
        return go_kernel(self, calls, lambda c: (seen.append((self.name, len(c))), self.vectorised(c))[1])

    monkeypatch.setattr(GoForm, "kernel", counting)
    specs = [_go("AVG"), _go("AVG_BY_CIRCLE"), _go("MACHINE_ROOM_NEARBY"), _go("CONSISTENT_HASH"),
             _go("MACHINE_ROOM", consumer_idcs=["hz"])]
    counts = [0 if b.startswith("\uffff") else 2 for b in BROKERS]
    rebalances = [{"topic": 0, "counts": counts, "processes": [(c, True, s) for c in CLIENT_IDS[:6]]}
                  for s in range(len(specs))]
    allocate(_batch(specs, rebalances))
    assert {name for name, calls in seen if calls} == {"AVG", "AVG_BY_CIRCLE", "MACHINE_ROOM_NEARBY",
                                                       "CONSISTENT_HASH", "MACHINE_ROOM"}


def test_a_go_ring_whose_keys_coincide_is_built_as_go_builds_it():
    # "1" + "1@x" and "11" + "@x" are one key: the id Go adds later ("1@x" sorts after "@x") takes the point
    specs = [_go("CONSISTENT_HASH", virtual_nodes=12)]
    batch = _batch(specs, [{"topic": 0, "counts": [8] + [0] * (len(BROKERS) - 1),
                            "processes": [("@x", True, 0), ("1@x", True, 0)]}])
    got = _lists(batch, allocate(batch))
    assert got == _lists(batch, _transcribed(batch)) and sum(len(v) for v in got.values()) == 8


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=90), max_size=40))
def test_bulk_crc32_is_zlibs(keys):
    assert crc32_rows(ByteRows.from_bytes(keys)).tolist() == [zlib.crc32(k) for k in keys]


def test_a_queue_whose_hash_is_a_point_goes_to_the_next_point_on_a_go_ring():
    from rmqplan.allocation.strategies.consistent_hash import RingTable

    # one ring, points 5 (owner 0) and 9 (owner 1): hash 5 is at a point (Java's ring: its owner) but not after it
    table = RingTable(np.array([5, 9], dtype=np.uint32), np.array([0, 1]), np.array([0, 2]), 2)
    rings, hashes = np.zeros(4, dtype=np.int64), np.array([5, 6, 9, 10], dtype=np.uint32)
    assert table.route(rings, hashes).tolist() == [0, 1, 1, 0]
    assert table.route(rings, hashes, after=True).tolist() == [1, 1, 0, 0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=12), st.binary(max_size=40)), max_size=30))
def test_a_crc_continued_or_put_together_from_a_prefix_is_zlibs(pairs):
    from rmqplan.allocation.crc32 import prefixed

    heads = np.array([zlib.crc32(p) for p, _ in pairs], dtype=np.uint32)
    tails = ByteRows.from_bytes([t for _, t in pairs])
    want = [zlib.crc32(p + t) for p, t in pairs]
    assert crc32_rows(tails, start=heads).tolist() == want
    registers = crc32_rows(tails, start=np.full(len(pairs), 0xFFFFFFFF, dtype=np.uint32)) ^ np.uint32(0xFFFFFFFF)
    assert prefixed(heads, tails.lengths, registers).tolist() == want

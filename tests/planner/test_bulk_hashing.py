"""CONSISTENT_HASH in bulk against the one-key-at-a-time reference: the numpy MD5 (`rmqplan.allocation.md5`) against
hashlib, the byte strings it hashes (`rmqplan.allocation.byte_rows`, a generated batch's names in bulk) against the
names as strings, and the vectorised allocation (`ring_kernel`) against the transcription (`HashRing`) on random
rings."""

from __future__ import annotations

import hashlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, client_ranks, offsets
from rmqplan.allocation.byte_rows import ByteRows
from rmqplan.allocation.kernel import allocate
from rmqplan.allocation.md5 import md5_head
from rmqplan.allocation.strategies import allocate_all, parse_strategy_name
from rmqplan.allocation.strategies.base import java_utf8
from rmqplan.generated.generate import generated_batch
from rmqplan.generated.states import state_batch
from rmqplan.model.fleet import GenerateSpec, Queue
from rmqplan.model.javaorder import java_string_key

BOUNDARIES = [0, 1, 3, 4, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 200]


def reference(key: bytes) -> int:
    return int.from_bytes(hashlib.md5(key).digest()[:4], "big")


lengths = st.one_of(st.sampled_from(BOUNDARIES), st.integers(0, 260))
raw_keys = lengths.flatmap(lambda n: st.binary(min_size=n, max_size=n))
text_keys = st.text(min_size=0, max_size=80).map(java_utf8)  # non-ASCII: 2-4 bytes a character, lone surrogates
keys = st.one_of(raw_keys, text_keys)


@settings(max_examples=300, deadline=None)
@given(st.lists(keys, min_size=1, max_size=40))
def test_md5_head_is_the_first_four_digest_bytes_of_hashlib(values):
    assert md5_head(ByteRows.from_bytes(values)).tolist() == [reference(v) for v in values]


@settings(max_examples=300, deadline=None)
@given(st.lists(keys, min_size=1, max_size=12), st.lists(st.tuples(st.integers(0, 11), keys), min_size=1, max_size=40),
       st.booleans())
def test_md5_head_of_prefixed_keys_hashes_each_whole_key(prefixes, suffixed, padded):
    which = np.array([w % len(prefixes) for w, _ in suffixed])
    rows = ByteRows.from_bytes(prefixes)
    if padded:  # prefixes laid out as a caller builds them (a multiple of 64 wide)
        rows = rows.padded(64 * (max(map(len, prefixes)) // 64 + 1 + len(prefixes) % 2))
    got = md5_head(ByteRows.from_bytes([s for _, s in suffixed]), rows, which)
    assert got.tolist() == [reference(prefixes[w] + s) for w, (_, s) in zip(which, suffixed)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**63 - 1) | st.integers(0, 12), min_size=1, max_size=30), st.integers(1, 9))
def test_decimal_writes_numbers_as_java_does(values, min_digits):
    assert ByteRows.decimal(np.array(values)).tolist() == [str(v).encode() for v in values]
    assert ByteRows.decimal(np.array(values), min_digits).tolist() == [f"{v:0{min_digits}d}".encode() for v in values]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(raw_keys, raw_keys), min_size=1, max_size=20), st.binary(max_size=5))
def test_join_take_and_stack_are_row_by_row_concatenations(pairs, constant):
    a = ByteRows.from_bytes([x for x, _ in pairs])
    b = ByteRows.from_bytes([y for _, y in pairs])
    assert ByteRows.join([a, constant, b]).tolist() == [x + constant + y for x, y in pairs]
    width = 64 * ((max(len(x) + len(y) for x, y in pairs) + len(constant)) // 64 + 1)
    padded = ByteRows.join([constant, a, b], width)
    assert [bytes(row[:n]) for row, n in zip(padded.matrix, padded.lengths)] == [constant + x + y for x, y in pairs]
    assert not any(row[n:].any() for row, n in zip(padded.matrix, padded.lengths))
    order = list(range(len(pairs)))[::-1]
    assert a.take(np.array(order)).tolist() == [pairs[i][0] for i in order]
    assert ByteRows.stack([a, b]).tolist() == [x for x, _ in pairs] + [y for _, y in pairs]


# ----------------------------------------------------------------------------------- a generated batch's names


def test_generated_names_in_bulk_equal_the_names():
    spec = GenerateSpec(300, 5, (1, 6), (1, 3), 2, 0.2, ("CONSISTENT_HASH",))
    batch = generated_batch(spec, 0, 300)
    entries = np.arange(batch.entries)
    names = batch.names
    cids = names.client_ids(entries)
    assert names.client_id_bytes(entries).tolist() == [c.encode() for c in cids]
    rebalances = np.arange(batch.rebalances)
    assert names.topic_bytes(rebalances).tolist() == [names.topic(r).encode() for r in rebalances.tolist()]
    assert names.topic_list(rebalances[::-1]) == [names.topic(r) for r in rebalances[::-1].tolist()]
    keys = names.client_keys(entries)
    assert len({(k, c) for k, c in zip(keys.tolist(), cids)}) == len(set(keys.tolist()))  # a key, one id


def test_scenario_state_names_in_bulk_equal_the_names():
    from rmqplan.generated.states import GeneratedScenario

    spec = GenerateSpec(60, 3, (1, 5), (1, 3), 2, 0.2, ("CONSISTENT_HASH",))
    base = generated_batch(spec, 0, 60)
    scenario = GeneratedScenario("rolling", 1, ("s",) * 12, False, (True, True), (True, True), restart_from=1)
    states = state_batch(spec, base, [scenario]).batch
    entries = np.arange(states.entries)
    cids = states.names.client_ids(entries)
    assert states.names.client_id_bytes(entries).tolist() == [c.encode() for c in cids]
    rebalances = np.arange(states.rebalances)
    assert states.names.topic_bytes(rebalances).tolist() == [states.names.topic(r).encode()
                                                              for r in rebalances.tolist()]
    assert states.names.topic_list(rebalances) == [states.names.topic(r) for r in rebalances.tolist()]
    keys = states.names.client_keys(entries)
    assert len({(k, c) for k, c in zip(keys.tolist(), cids)}) == len(set(keys.tolist()))


# ------------------------------------------------------------------------------------------- random rings


class _Names:
    def __init__(self, topics, client_ids):
        self.topics, self.ids = topics, client_ids

    def topic(self, r):
        return self.topics[r]

    def client_ids(self, entries):
        return [self.ids[e] for e in entries.tolist()]


client_id = st.one_of(st.sampled_from(["10.0.0.1@1", "10.0.0.2@1", "a", "\U0001F600", "\uffff", "é@2"]),
                      st.text(min_size=1, max_size=70))
rebalance = st.fixed_dictionaries({
    "cids": st.lists(client_id, min_size=1, max_size=7),
    "virtual_nodes": st.sampled_from([0, 1, 2, 3, 10, 11, 40]),
    "topic": st.text(max_size=70),
    "counts": st.lists(st.integers(0, 12), min_size=2, max_size=2),
    "again": st.booleans(),  # the previous rebalance's cidAll and virtual nodes (a group's other topic)
})


@settings(max_examples=150, deadline=None)
@given(st.lists(rebalance, min_size=1, max_size=6), st.lists(st.text(max_size=30), min_size=2, max_size=2,
                                                             unique=True))
def test_the_vectorised_rings_equal_the_transcription(rebalances, brokers):
    brokers = sorted(brokers, key=java_string_key)  # queues come in RocketMQ order: broker by broker
    for prev, r in zip(rebalances, rebalances[1:]):
        if r["again"]:
            r["cids"], r["virtual_nodes"] = prev["cids"], prev["virtual_nodes"]
    specs = sorted({r["virtual_nodes"] for r in rebalances})
    q_broker, q_id, q_counts, cids, c_index, c_order, c_spec = [], [], [], [], [], [], []
    for r in rebalances:
        for b, count in enumerate(r["counts"]):
            q_broker += [b] * count
            q_id += list(range(count))
        q_counts.append(sum(r["counts"]))
        index, position = client_ranks([java_string_key(c) for c in r["cids"]])
        cids += r["cids"]
        c_index += index
        c_order += position
        c_spec += [specs.index(r["virtual_nodes"])] * len(r["cids"])
    n = len(rebalances)
    batch = Batch(
        scenario=np.zeros(n, dtype=np.int32), group=np.arange(n), model=np.full(n, CLUSTERING_CODE, dtype=np.int8),
        retry=np.zeros(n, dtype=bool), q_off=offsets(q_counts), c_off=offsets([len(r["cids"]) for r in rebalances]),
        q_broker=np.array(q_broker, dtype=np.int32), q_id=np.array(q_id, dtype=np.int32),
        c_index=np.array(c_index, dtype=np.int64), c_order=np.array(c_order, dtype=np.int64),
        c_asks=np.ones(len(cids), dtype=bool), c_spec=np.array(c_spec, dtype=np.int32),
        c_room=np.full(len(cids), -1, dtype=np.int32),
        specs=[parse_strategy_name("CONSISTENT_HASH", virtual_nodes=v) for v in specs], brokers=brokers,
        broker_room=np.full(2, -1, dtype=np.int32), rooms=[], names=_Names([r["topic"] for r in rebalances], cids))
    rows = allocate(batch)
    held: dict[int, list[int]] = {}
    for e, q in zip(rows.entry.tolist(), rows.queue.tolist()):
        held.setdefault(e, []).append(q)
    for k, r in enumerate(rebalances):
        queues = [Queue(r["topic"], brokers[b], i) for b, i in zip(q_broker[batch.q_off[k]:batch.q_off[k + 1]],
                                                                   q_id[batch.q_off[k]:batch.q_off[k + 1]])]
        if not queues:
            continue
        shares = allocate_all(batch.specs[c_spec[batch.c_off[k]]], queues, r["cids"])
        for e in range(batch.c_off[k], batch.c_off[k + 1]):
            got = [queues[q - batch.q_off[k]] for q in sorted(held.get(e, []))]
            assert got == shares[cids[e]], (k, cids[e])

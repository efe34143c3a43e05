"""CONFIG's vectorised form against its transcription (`allocate_all`, call by call) on random batches: several
lists (one per process, shared, empty), lists naming queues of other topics, of brokers the batch does not have,
queue ids it does not have, the same queue twice; rebalances of the same topic, processes that do not subscribe,
processes of another strategy, a broker table out of Java order, a queue twice in a rebalance, queues out of
RocketMQ order. Every process's list (in its order, queues of other topics included) must be the same."""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, client_ranks, offsets
from rmqplan.allocation.kernel import allocate
from rmqplan.allocation.strategies import parse_strategy_name
from rmqplan.allocation.strategies.base import per_call_kernel
from rmqplan.allocation.strategies.config import Config
from rmqplan.model.fleet import Queue, StrategySpec
from rmqplan.model.javaorder import java_string_key
from tests.planner.test_nearby_kernel import _lists, _Names

BROKERS = sorted(["a", "b", "\uffff", "\U0001F600"], key=java_string_key)
TOPICS = ["T0", "T1", "%RETRY%g", "\U0001F600"]
CLIENT_IDS = ["10.0.0.1@1", "10.0.0.2@1", "a", "\uffff", "b"]
listed_queue = st.builds(Queue, st.sampled_from(TOPICS + ["Other"]), st.sampled_from(BROKERS + ["x", ""]),
                         st.sampled_from([0, 1, 2, 3, 7, -1, 2**40]))
spec = st.lists(listed_queue, max_size=8).map(lambda qs: StrategySpec("CONFIG", config_queues=tuple(qs)))
rebalance = st.fixed_dictionaries({
    "topic": st.integers(0, len(TOPICS) - 1),
    "counts": st.lists(st.integers(0, 3), min_size=len(BROKERS), max_size=len(BROKERS)),
    "twice": st.none() | st.integers(0, 20),  # a queue of the rebalance given twice (after itself)
    "reversed": st.sampled_from([False, False, True]),  # its queues out of RocketMQ order (a batch given by hand)
    # (client id, subscribes, spec: an index into the drawn specs, or -1 for AVG)
    "processes": st.lists(st.tuples(st.sampled_from(CLIENT_IDS), st.booleans() | st.just(True),
                                    st.integers(-1, 5)), min_size=1, max_size=6),
})


@settings(max_examples=400, deadline=None)
@given(st.lists(spec, min_size=1, max_size=6), st.lists(rebalance, min_size=1, max_size=5), st.booleans())
def test_the_vectorised_config_equals_the_transcription(specs, rebalances, java_order):
    specs = specs + [parse_strategy_name("AVG")]
    # the batch's broker table; queues come broker by broker in Java order either way, the table may not be in it
    brokers = BROKERS if java_order else BROKERS[::-1]
    q_broker, q_id, q_counts, cids, c_index, c_order, c_spec, c_asks = ([] for _ in range(8))
    for r in rebalances:
        queues = [(brokers.index(b), i) for b, count in zip(BROKERS, r["counts"]) for i in range(count)]
        if r["twice"] is not None and queues:
            at = r["twice"] % len(queues)
            queues.insert(at + 1, queues[at])
        if r["reversed"]:
            queues.reverse()
        q_broker += [b for b, _ in queues]
        q_id += [i for _, i in queues]
        q_counts.append(len(queues))
        ids = [cid for cid, _, _ in r["processes"]]
        index, position = client_ranks([java_string_key(c) for c in ids])
        cids += ids
        c_index += index
        c_order += position
        c_asks += [asks for _, asks, _ in r["processes"]]
        c_spec += [len(specs) - 1 if s < 0 else s % (len(specs) - 1) for _, _, s in r["processes"]]
    n = len(rebalances)
    batch = Batch(
        scenario=np.zeros(n, dtype=np.int32), group=np.arange(n), model=np.full(n, CLUSTERING_CODE, dtype=np.int8),
        retry=np.zeros(n, dtype=bool), q_off=offsets(q_counts),
        c_off=offsets([len(r["processes"]) for r in rebalances]),
        q_broker=np.array(q_broker, dtype=np.int32), q_id=np.array(q_id, dtype=np.int32),
        c_index=np.array(c_index, dtype=np.int64), c_order=np.array(c_order, dtype=np.int64),
        c_asks=np.array(c_asks, dtype=bool), c_spec=np.array(c_spec, dtype=np.int32),
        c_room=np.full(len(cids), -1, dtype=np.int32), specs=specs, brokers=brokers,
        broker_room=np.full(len(brokers), -1, dtype=np.int32), rooms=[],
        names=_Names([TOPICS[r["topic"]] for r in rebalances], cids))
    got = _lists(batch, allocate(batch))
    assert got == _lists(batch, _transcribed(batch))
    # and as the class gives it: every asking process of a CONFIG spec holds its list, whatever the rebalance
    for e in np.flatnonzero(batch.c_asks & (batch.q_off[1:] > batch.q_off[:-1])[batch.entry_rebalance()]).tolist():
        listed = specs[c_spec[e]].config_queues
        if specs[c_spec[e]].name == "CONFIG":
            r = int(batch.entry_rebalance()[e])
            assert [q if kind == "x" else batch.queue(r, q) for kind, q in got.get(e, [])] == list(listed)


def _transcribed(batch: Batch):
    vectorised = Config.kernel
    Config.kernel = lambda self, calls: per_call_kernel(self, calls)
    try:
        return allocate(batch)
    finally:
        Config.kernel = vectorised


def test_extra_rows_are_the_rows_they_hold():
    from rmqplan.allocation.batch import ExtraRows, Rows, extra_entries

    queues = np.empty(3, dtype=object)
    queues[:] = [Queue("T", "b", 1), Queue("U", "", 7), Queue("T", "b", 1)]
    extra = ExtraRows(np.array([4, 0, 4]), queues, np.array([2, 0, 5]))
    rows = [(4, Queue("T", "b", 1), 2), (0, Queue("U", "", 7), 0), (4, Queue("T", "b", 1), 5)]
    assert list(extra) == rows and extra == rows and len(extra) == 3 and extra[1] == rows[1] and extra[1:] == rows[1:]
    assert pickle.loads(pickle.dumps(extra)) == rows  # a chunk's rows go back from a helper process pickled
    assert extra_entries(extra).tolist() == extra_entries(rows).tolist() == [4, 0, 4]
    assert not ExtraRows(np.zeros(0, dtype=np.int64), queues[:0], np.zeros(0, dtype=np.int64))
    both = Rows.concat([Rows(np.array([1]), np.array([0]), extra=extra), Rows(np.array([2]), np.array([1]),
                                                                             extra=rows[:1])])
    assert both.extra == rows + rows[:1]

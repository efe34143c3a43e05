"""CONFIG: `AllocateMessageQueueByConfig`, a fixed list (`queues` in fleet.toml), returned as configured
whatever the input: no `check`, no sorting, queues of other topics included."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, count, repeat
from operator import itemgetter
from typing import Optional

import numpy as np

from rmqplan.allocation.strategies.base import CONFIG_QUEUES, Strategy, first_index
from rmqplan.model.javaorder import java_string_key


class Config(Strategy):
    name = "CONFIG"
    java_class = "AllocateMessageQueueByConfig"
    params = (CONFIG_QUEUES,)
    checks_input = False

    def unassigned_reason(self, spec):
        return "the CONFIG strategy's fixed queue list does not name them"

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        return list(spec.config_queues)

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        return {cid: list(spec.config_queues) for cid in first_index(cid_all)}

    def kernel(self, calls):
        """The list of every asking process, in its order: queues of the call's rebalance by batch index, the
        others (another topic, a broker or queue id the rebalance does not have) as `extra`. All asks at once:
        an ask's list is its spec's range of the batch's encoded lists (`_lists`), and a listed queue of the
        rebalance's topic is found among the batch's queues by its key (`_queue_keys`)."""
        from rmqplan.allocation.batch import ExtraRows, Rows, repeat_ranges

        batch = calls.batch
        if not len(calls.ask_call):
            return Rows.empty()
        lists = _lists(batch)
        ask_spec = calls.spec[calls.ask_call]
        first = lists.off[ask_spec]
        counts = lists.off[ask_spec + 1] - first
        item = repeat_ranges(first, counts)  # every ask's listed queues, list by list
        owner = np.repeat(np.arange(len(ask_spec), dtype=np.int64), counts)
        entry, pos, call = calls.ask_entry[owner], item - first[owner], calls.ask_call[owner]
        found = np.full(len(item), -1, dtype=np.int64)
        listed_topic, call_topic = _topic_codes(batch, lists, calls.rebalance)
        of_topic = np.flatnonzero(listed_topic[item] == call_topic[call])
        if len(of_topic):
            found[of_topic] = _queue_keys(batch).find(calls.rebalance[call[of_topic]],
                                                      lists.broker[item[of_topic]], lists.queue_id[item[of_topic]])
        held = found >= 0
        rows = Rows(entry[held], found[held], pos[held])
        other = np.flatnonzero(~held)
        if len(other):
            rows.extra = ExtraRows(entry[other], lists.queues[item[other]], pos[other])
        return rows


@dataclass
class _Lists:
    """The CONFIG lists of a batch's specs as arrays: spec s lists the items `off[s]:off[s + 1]`; per item its
    broker (the Java rank of its name among the batch's brokers, -1 for a name the batch does not have), queue id
    and the Queue itself (`flat`: the same Queues as a list, for the topics' pass)."""

    off: np.ndarray  # int64[S + 1]
    broker: np.ndarray  # int64
    queue_id: np.ndarray  # int64
    queues: np.ndarray  # object: Queue
    flat: list


def _lists(batch) -> _Lists:
    """The batch's `_Lists`, built once per batch (and specs table) by one C-level pass per column: no Python
    statement per listed queue."""
    from rmqplan.allocation.batch import offsets

    cached = batch.__dict__.get("_config_lists")
    if cached is not None and cached[0] is batch.specs:
        return cached[1]
    listed = [s.config_queues for s in batch.specs]
    off = offsets(np.fromiter(map(len, listed), dtype=np.int64, count=len(listed)))
    total = int(off[-1])
    flat = list(chain.from_iterable(listed))
    broker = np.fromiter(map(_broker_ranks(batch).get, map(itemgetter(1), flat), repeat(-1)), dtype=np.int64,
                         count=total)
    queue_id = np.fromiter(map(itemgetter(2), flat), dtype=np.int64, count=total)
    lists = _Lists(off, broker, queue_id, np.fromiter(flat, dtype=object, count=total), flat)
    batch.__dict__["_config_lists"] = (batch.specs, lists)
    return lists


def _broker_ranks(batch) -> dict:
    """Broker name -> its rank in Java order among the batch's distinct names: the order of a rebalance's queues."""
    return {b: i for i, b in enumerate(sorted(set(batch.brokers), key=java_string_key))}


def _topic_codes(batch, lists: _Lists, rebalance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The topics as codes (equal for equal names): per listed item (-1 for a topic no call has), per call. Only
    the calls' topics are coded (one name per rebalance), then each item's looked up: one dict lookup per item,
    no insertion."""
    distinct, inverse = np.unique(rebalance, return_inverse=True)
    bulk = getattr(batch.names, "topic_list", None)  # the names' bulk form, when they have one
    names = bulk(distinct) if bulk is not None else map(batch.names.topic, distinct.tolist())
    first: dict = {}  # a topic's code: its first rebalance among `distinct`
    codes = np.fromiter(map(first.setdefault, names, count()), dtype=np.int64, count=len(distinct))
    listed = np.fromiter(map(first.get, map(itemgetter(0), lists.flat), repeat(-1)), dtype=np.int64,
                         count=len(lists.flat))
    return listed, codes[inverse]


@dataclass
class _QueueKeys:
    """The batch's queues by key (rebalance, broker rank, queue id): `key` sorted, `index[i]` the batch queue of
    `key[i]` (None: the batch's own order, as RocketMQ's order of each rebalance's queues gives it)."""

    key: np.ndarray
    index: Optional[np.ndarray]
    brokers: int
    low: int  # the smallest queue id
    span: int  # queue ids are low .. low + span - 1

    def find(self, rebalance: np.ndarray, broker: np.ndarray, queue_id: np.ndarray) -> np.ndarray:
        """The batch index of each queue, the last of equal ones (as a dict of mqAll keeps it), or -1."""
        valid = (broker >= 0) & (queue_id >= self.low) & (queue_id < self.low + self.span)
        wanted = (rebalance * self.brokers + np.where(valid, broker, 0)) * self.span + (queue_id - self.low)
        at = np.searchsorted(self.key, wanted, side="right") - 1
        np.maximum(at, 0, out=at)
        hit = valid & (self.key[at] == wanted) if len(self.key) else np.zeros(len(wanted), dtype=bool)
        return np.where(hit, at if self.index is None else self.index[at], -1)


def _queue_keys(batch) -> _QueueKeys:
    from rmqplan.allocation.batch import segment_ids

    cached = batch.__dict__.get("_config_queue_keys")
    if cached is not None:
        return cached
    ranks = _broker_ranks(batch)
    broker = np.array([ranks[b] for b in batch.brokers], dtype=np.int64)
    q_id = batch.q_id.astype(np.int64)
    low = int(q_id.min(initial=0))
    span = int(q_id.max(initial=0)) - low + 1
    brokers = max(len(ranks), 1)
    key = (segment_ids(batch.q_off) * brokers + broker[batch.q_broker]) * span + (q_id - low)
    index = None
    if len(key) > 1 and not bool(np.all(key[1:] >= key[:-1])):
        index = np.argsort(key, kind="stable")  # equal keys keep batch order: the last is mqAll's
        key = key[index]
    keys = _QueueKeys(key, index, brokers, low, span)
    batch.__dict__["_config_queue_keys"] = keys
    return keys

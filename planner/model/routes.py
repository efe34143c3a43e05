"""Readable and writable queues of a topic, and the retry topic of a clustering group.

- Consumers read queue ids `0 .. read_queues-1` on each of the topic's brokers where the effective permission
  (topic permission AND broker permission) is readable; producers write `0 .. write_queues-1` where writable.
- A CLUSTERING group also rebalances `%RETRY%<group>`. The client heartbeats to the brokers it knows from its
  routes and the broker creates the retry topic (read-write, `retry_queues` queues, default 1) on demand, so we
  place it on the brokers of the topics the group's processes subscribe to (any process, group order), keeping
  those whose broker permission is readable.
Queue lists come back in RocketMQ order (`rmqplan.model.javaorder.queue_key`: topic, brokerName, queueId).
"""

from __future__ import annotations

import weakref
from typing import Iterable

from rmqplan.model.javaorder import sort_queues
from rmqplan.model.fleet import DEFAULT_RETRY_QUEUES, Broker, Fleet, Queue, SubscriptionSpec, Topic

RETRY_PREFIX = "%RETRY%"


def retry_topic(group: str) -> str:
    return RETRY_PREFIX + group


def is_retry_topic(topic: str) -> bool:
    return topic.startswith(RETRY_PREFIX)


_INDEX: dict[int, tuple] = {}  # id(fleet) -> (weakref, brokers by name, topics by name, readable queues by topic)


def _index(fleet: Fleet) -> tuple[dict[str, Broker], dict[str, Topic], dict[str, list[Queue]]]:
    """Brokers and topics by name, built once per fleet (lookups per group must not scan every topic), and the
    readable queues of its topics as they are asked for.
    Keyed by identity: a Fleet holds dicts, so it cannot be hashed."""
    found = _INDEX.get(id(fleet))
    if found is None or found[0]() is not fleet:
        ref = weakref.ref(fleet, lambda _, key=id(fleet): _INDEX.pop(key, None))
        found = (ref, {b.name: b for b in fleet.brokers}, {t.name: t for t in fleet.topics}, {})
        _INDEX[id(fleet)] = found
    return found[1], found[2], found[3]


def _broker_map(fleet: Fleet) -> dict[str, Broker]:
    return _index(fleet)[0]


def topic_by_name(fleet: Fleet, name: str) -> Topic:
    return _index(fleet)[1][name]


def _queue_counts(fleet: Fleet, topic: Topic, read: bool) -> list[tuple[str, int]]:
    """(broker, how many queue ids consumers read there (`read`), or producers write) for each of the topic's
    brokers, in its order."""
    brokers = _broker_map(fleet)
    if read:
        return [(b, topic.read_queues[b] if topic.readable and brokers[b].readable else 0) for b in topic.brokers]
    return [(b, topic.write_queues[b] if topic.writable and brokers[b].writable else 0) for b in topic.brokers]


def readable_queues(fleet: Fleet, topic: Topic) -> list[Queue]:
    """Every group subscribing to a topic rebalances the same list: made once per topic of a fleet (a new list
    each call, the Queues shared)."""
    index = _index(fleet)
    known = index[1].get(topic.name) is topic
    made = index[2].get(topic.name) if known else None
    if made is None:
        made = sort_queues(Queue(topic.name, b, i) for b, n in _queue_counts(fleet, topic, True) for i in range(n))
        if known:
            index[2][topic.name] = made
    return list(made)


def writable_queues(fleet: Fleet, topic: Topic) -> list[Queue]:
    return sort_queues(Queue(topic.name, b, i) for b, n in _queue_counts(fleet, topic, False) for i in range(n))


def unreadable_written_queues(fleet: Fleet, topic: Topic) -> list[Queue]:
    """Queues producers write to that no consumer reads: their messages are never consumed. Queue ids run from 0
    on each broker, so they are the ids from the read count up to the write count."""
    return _beyond(topic, _queue_counts(fleet, topic, False), _queue_counts(fleet, topic, True))


def unwritten_readable_queues(fleet: Fleet, topic: Topic) -> list[Queue]:
    """Queues consumers read that no producer writes to: they receive no new message (they drain, then stay
    empty)."""
    return _beyond(topic, _queue_counts(fleet, topic, True), _queue_counts(fleet, topic, False))


def _beyond(topic: Topic, these: list[tuple[str, int]], those: list[tuple[str, int]]) -> list[Queue]:
    """The queues of `these` counts that `those` do not reach, per broker."""
    reach = dict(those)
    return sort_queues(Queue(topic.name, b, i) for b, n in these for i in range(reach[b], n))


def why_unwritten(fleet: Fleet, topic: Topic, broker: str) -> str:
    """Why readable queues on `broker` are not (all) written, for messages."""
    b = _broker_map(fleet)[broker]
    if not topic.writable:
        return f"topic {topic.name} is not writable (perm)"
    if not b.writable:
        return f"broker {broker} is not writable (perm)"
    return f"read_queues {topic.read_queues[broker]} > write_queues {topic.write_queues[broker]} on {broker}"


def why_unreadable(fleet: Fleet, topic: Topic, broker: str) -> str:
    """Why written queues on `broker` are not (all) read, for messages."""
    b = _broker_map(fleet)[broker]
    if not topic.readable:
        return f"topic {topic.name} is not readable (perm)"
    if not b.readable:
        return f"broker {broker} is not readable (perm)"
    return f"write_queues {topic.write_queues[broker]} > read_queues {topic.read_queues[broker]} on {broker}"


def subscribed_topics(subscription_lists: Iterable[Iterable[SubscriptionSpec]]) -> list[str]:
    """Topic names in order of first appearance over the given subscription lists."""
    seen: dict[str, None] = {}
    for subs in subscription_lists:
        for s in subs:
            seen.setdefault(s.topic, None)
    return list(seen)


def retry_queues(fleet: Fleet, group: str, topics: Iterable[str],
                 per_broker: int = DEFAULT_RETRY_QUEUES) -> list[Queue]:
    """`%RETRY%<group>` queues on the (readable) brokers of the subscribed `topics`."""
    brokers = _broker_map(fleet)
    names: dict[str, None] = {}
    for t in topics:
        for b in topic_by_name(fleet, t).brokers:
            names.setdefault(b, None)
    qs = [Queue(retry_topic(group), b, i) for b in names if brokers[b].readable for i in range(per_broker)]
    return sort_queues(qs)

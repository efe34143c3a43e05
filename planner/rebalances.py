"""The rebalances of a hand-written fleet as one `planner.batch.Batch`, and what the report needs to name them.

The baseline of every group, then each scenario's group (`planner.scenarios`), are expanded into processes
(`planner.identity`); each rebalances the topics its processes subscribe to (first appearance, declaration
order), then `%RETRY%<group>` for a clustering group (`planner.routes`):

- mqAll = the topic's readable queues; cidAll = the client ids of ALL the group's processes, one entry per process,
  duplicates kept. The broker reports every connection of the group whatever it subscribes to, so a process that
  does not subscribe to the topic still takes a place in the split; it just never pulls its share.
- a process subscribes to the retry topic of its clustering group (a push consumer does so at start).
- machine rooms for MACHINE_ROOM_NEARBY come from the brokers' `room` and the processes' `room` (a client id's
  room is that of its first process, in declaration order, that has one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from planner.batch import BROADCASTING_CODE, CLUSTERING_CODE, Batch, SpecTable, StringTable, client_ranks, offsets
from planner.identity import group_processes
from planner.javaorder import java_string_key
from planner.model import BROADCASTING, CLUSTERING, Fleet, Group, Process, Queue
from planner.routes import readable_queues, retry_queues, retry_topic, subscribed_topics, topic_by_name
from planner.scenarios import scenario_processes

BASELINE = "baseline"


@dataclass(frozen=True)
class Rebalance:
    """What a batch's rebalance is, in the fleet's words."""

    scenario: str
    group: Group
    topic: str
    queues: list  # list[Queue], RocketMQ order
    processes: list  # list[Process], declaration order
    is_retry: bool


@dataclass
class FleetRebalances:
    batch: Batch
    rebalances: list  # list[Rebalance], one per batch rebalance
    scenarios: list  # scenario names, baseline first


class _Names:
    def __init__(self, topics: list[str], client_ids: list[str]):
        self._topics = topics
        self._client_ids = client_ids

    def topic(self, r: int) -> str:
        return self._topics[r]

    def client_ids(self, entries: np.ndarray) -> list[str]:
        ids = self._client_ids
        return [ids[e] for e in entries.tolist()]


def rebalanced_topics(group: Group, processes: Sequence[Process]) -> list[str]:
    """Topics the group's processes subscribe to (first appearance, declaration order), without the retry topic."""
    return subscribed_topics([group.subscriptions, *(p.subscriptions for p in processes)])


def group_rebalances(fleet: Fleet, scenario: str, group: Group, processes: list[Process]) -> list[Rebalance]:
    topics = rebalanced_topics(group, processes)
    out = [Rebalance(scenario, group, t, readable_queues(fleet, topic_by_name(fleet, t)), processes, False)
           for t in topics]
    if group.model == CLUSTERING:
        out.append(Rebalance(scenario, group, retry_topic(group.name), retry_queues(fleet, group.name, topics),
                             processes, True))
    return out


def fleet_rebalances(fleet: Fleet) -> FleetRebalances:
    """The baseline of every hand-written group, then each scenario's group."""
    runs = [(BASELINE, g, group_processes(g)) for g in fleet.groups]
    by_name = {g.name: g for g in fleet.groups}
    runs += [(s.name, by_name[s.group], scenario_processes(by_name[s.group], s)) for s in fleet.scenarios]
    group_ids = {g.name: i for i, g in enumerate(fleet.groups)}
    scenario_ids = {BASELINE: 0, **{s.name: i + 1 for i, s in enumerate(fleet.scenarios)}}
    rebalances = [rb for scenario, g, procs in runs for rb in group_rebalances(fleet, scenario, g, procs)]
    return FleetRebalances(build_batch(fleet, rebalances, group_ids, scenario_ids), rebalances,
                           list(scenario_ids))


def build_batch(fleet: Fleet, rebalances: list[Rebalance], group_ids: dict, scenario_ids: dict) -> Batch:
    specs, brokers, rooms = SpecTable(), StringTable(), StringTable()
    for b in fleet.brokers:
        brokers.id(b.name)
    q_broker, q_id, c_index, c_order, c_asks, c_spec, c_room, c_empty, cids = ([] for _ in range(9))
    for rb in rebalances:
        q_broker.extend(brokers.id(q.broker) for q in rb.queues)
        q_id.extend(q.queue_id for q in rb.queues)
        index, order = client_ranks([java_string_key(p.client_id) for p in rb.processes])
        c_index.extend(index)
        c_order.extend(order)
        room_of: dict[str, str] = {}
        for p in rb.processes:
            if p.room:
                room_of.setdefault(p.client_id, p.room)
        for p in rb.processes:
            c_asks.append(rb.is_retry or any(s.topic == rb.topic for s in p.subscriptions))
            c_spec.append(specs.id(p.strategy))
            room = room_of.get(p.client_id)
            c_room.append(rooms.id(room) if room else -1)
            c_empty.append(p.client_id == "")
            cids.append(p.client_id)
    broker_rooms = {b.name: b.room for b in fleet.brokers if b.room}
    broker_room = np.array([rooms.id(broker_rooms[b]) if b in broker_rooms else -1 for b in brokers.values],
                           dtype=np.int32)
    i64 = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
    return Batch(
        scenario=np.array([scenario_ids[rb.scenario] for rb in rebalances], dtype=np.int32),
        group=i64([group_ids[rb.group.name] for rb in rebalances]),
        model=np.array([BROADCASTING_CODE if rb.group.model == BROADCASTING else CLUSTERING_CODE
                        for rb in rebalances], dtype=np.int8),
        retry=np.array([rb.is_retry for rb in rebalances], dtype=bool),
        q_off=offsets([len(rb.queues) for rb in rebalances]),
        c_off=offsets([len(rb.processes) for rb in rebalances]),
        q_broker=np.asarray(q_broker, dtype=np.int32), q_id=np.asarray(q_id, dtype=np.int32),
        c_index=i64(c_index), c_order=i64(c_order), c_asks=np.asarray(c_asks, dtype=bool),
        c_spec=np.asarray(c_spec, dtype=np.int32), c_room=np.asarray(c_room, dtype=np.int32),
        specs=specs.specs, brokers=brokers.values, broker_room=broker_room, rooms=rooms.values,
        names=_Names([rb.topic for rb in rebalances], cids),
        c_empty_id=np.asarray(c_empty, dtype=bool) if any(c_empty) else None,
    )


def rebalance_queues(batch: Batch, r: int) -> list[Queue]:
    return [batch.queue(r, i) for i in range(int(batch.q_off[r]), int(batch.q_off[r + 1]))]

"""The rebalances of a hand-written fleet as one `rmqplan.allocation.batch.Batch`, and what the report needs to name them.

The baseline of every group, then every state of every scenario (`rmqplan.model.states`: each step's fleet view and the
groups it touches), are rebalances of the same batch: a state is a batch "scenario" id (`states` names them). Each
group's processes (`rmqplan.model.identity`) rebalance the topics they subscribe to (first appearance, declaration
order), then `%RETRY%<group>` for a clustering group, over the state's routes (`rmqplan.model.routes`):

- mqAll = the topic's readable queues; cidAll = the client ids of ALL the group's processes, one entry per process,
  duplicates kept. The broker reports every connection of the group whatever it subscribes to, so a process that
  does not subscribe to the topic still takes a place in the split; it just never pulls its share.
- a push consumer subscribes to the retry topic of its clustering group at start; lite pull and pull consumers do
  not (they take a place in its split all the same). A group with no push consumer has no retry rebalance.
- each process runs its strategy as its client's code does (`rmqplan.allocation.strategies.for_process`): a Go
  process rocketmq-client-go's form, a Java one its release's classes (MACHINE_ROOM before 4.8.0).
- machine rooms for MACHINE_ROOM_NEARBY come from the brokers' `room` and the processes' `room` (a client id's
  room is that of its first process, in declaration order, that has one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from rmqplan.allocation.batch import (
    BROADCASTING_CODE,
    CLUSTERING_CODE,
    Batch,
    SpecTable,
    StringTable,
    client_ranks,
    offsets,
)
from rmqplan.allocation.strategies import for_process
from rmqplan.model.identity import PUSH, group_processes
from rmqplan.model.javaorder import java_string_key
from rmqplan.model.fleet import BROADCASTING, CLUSTERING, Fleet, Group, Process, Queue
from rmqplan.model.routes import readable_queues, retry_queues, retry_topic, subscribed_topics, topic_by_name
from rmqplan.model.states import ScenarioStates, scenario_states

BASELINE = "baseline"


@dataclass(frozen=True)
class StateRef:
    """A batch state: the baseline (step 0) or step `step` of scenario `scenario`."""

    scenario: str
    step: int
    name: str


@dataclass(frozen=True)
class Rebalance:
    """What a batch's rebalance is, in the fleet's words."""

    scenario: str
    group: Group
    topic: str
    queues: list  # list[Queue], RocketMQ order
    processes: list  # list[Process], declaration order
    is_retry: bool
    state: int = 0  # its batch state (`FleetRebalances.states`)


@dataclass
class FleetRebalances:
    batch: Optional[Batch]
    rebalances: list  # list[Rebalance], one per batch rebalance
    scenarios: list  # scenario names, baseline first
    states: list  # list[StateRef], by batch state id (0 is the baseline)
    sequences: list  # list[ScenarioStates], one per scenario


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


def group_rebalances(fleet: Fleet, scenario: str, group: Group, processes: list[Process],
                     state: int = 0) -> list[Rebalance]:
    """The group's rebalances over `fleet`'s routes (a scenario state's view)."""
    topics = rebalanced_topics(group, processes)
    out = [Rebalance(scenario, group, t, readable_queues(fleet, topic_by_name(fleet, t)), processes, False, state)
           for t in topics]
    if group.model == CLUSTERING and _pushes(group, processes):
        out.append(Rebalance(scenario, group, retry_topic(group.name), retry_queues(fleet, group.name, topics),
                             processes, True, state))
    return out


def _pushes(group: Group, processes: list[Process]) -> bool:
    """Whether the group rebalances its retry topic: one of its processes is a push consumer (with none running,
    one of its declared sets is)."""
    if processes:
        return any(p.consumer == PUSH for p in processes)
    return not group.instances or any(s.consumer == PUSH for s in group.instances)


def fleet_rebalances(fleet: Fleet, sequences: Optional[list[ScenarioStates]] = None) -> FleetRebalances:
    """The baseline of every hand-written group, then every step of each scenario (`sequences`, default the
    fleet's scenarios' states), as one batch."""
    fr = state_rebalances(fleet, sequences)
    fr.batch = build_batch(fleet, fr.rebalances, {g.name: i for i, g in enumerate(fleet.groups)})
    return fr


def state_rebalances(fleet: Fleet, sequences: Optional[list[ScenarioStates]] = None) -> FleetRebalances:
    """`fleet_rebalances` without the batch (`batch` None): the rebalances of every state, for a caller that
    batches several fleets' states together (`rmqplan.compare`)."""
    if sequences is None:
        sequences = [scenario_states(fleet, s) for s in fleet.scenarios]
    states = [StateRef(BASELINE, 0, BASELINE)]
    rebalances = [rb for g in fleet.groups for rb in group_rebalances(fleet, BASELINE, g, group_processes(g))]
    for seq in sequences:
        for step in seq.steps:
            state = len(states)
            states.append(StateRef(seq.scenario.name, step.index, step.name))
            for gs in step.groups:
                rebalances += group_rebalances(step.view, seq.scenario.name, gs.group, list(gs.processes), state)
    return FleetRebalances(None, rebalances, [BASELINE, *(seq.scenario.name for seq in sequences)], states,
                           list(sequences))


def build_batch(fleet: Fleet, rebalances: list[Rebalance], group_ids: dict) -> Batch:
    """The rebalances as a batch; a rebalance's batch scenario id is its `state`."""
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
            c_asks.append(p.consumer == PUSH if rb.is_retry else any(s.topic == rb.topic for s in p.subscriptions))
            c_spec.append(specs.id(for_process(p.strategy, p.client, p.client_version)))
            room = room_of.get(p.client_id)
            c_room.append(rooms.id(room) if room else -1)
            c_empty.append(p.client_id == "")
            cids.append(p.client_id)
    broker_rooms = {b.name: b.room for b in fleet.brokers if b.room}
    broker_room = np.array([rooms.id(broker_rooms[b]) if b in broker_rooms else -1 for b in brokers.values],
                           dtype=np.int32)
    i64 = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
    return Batch(
        scenario=np.array([rb.state for rb in rebalances], dtype=np.int32),
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

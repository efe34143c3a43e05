"""The exact pure-Python engine: every process's share of every queue it rebalances, as the client computes it.

For each scenario (the baseline first, then each scenario's one group), each group and each topic it rebalances
(the topics any of its processes subscribe to, in order of first appearance, then `%RETRY%<group>` for a
CLUSTERING group; see `planner.routes`):

- `mqAll` = the topic's readable queues; `cidAll` = the client ids of ALL the group's processes, one entry per
  process, duplicates kept. The broker reports every connection of the group whatever it subscribes to
  (`findConsumerIdList(topic, group)` asks for the group), so a process that does not subscribe to the topic
  still takes a place in the split; it just never pulls its share, which ends up orphaned.
- CLUSTERING: each subscribing process runs ITS OWN strategy (a per-instance override is a rollout caught half-way)
  with its own client id as `currentCID`. Rooms for MACHINE_ROOM_NEARBY come from the brokers' `room` and the
  processes' `room`. A strategy that throws: that process gets nothing and is listed in `errored`. A topic with
  no readable queue is not rebalanced (the client would throw on an empty mqAll; nothing can be held anyway).
- BROADCASTING: every subscribing process takes every readable queue.
- `assignment` has an entry for each subscribing process only; `processes` lists all of the group's processes.
- orphaned = readable queues no process holds; duplicated = queues two or more processes hold (clustering only);
  idle = subscribing processes holding none of the topic's queues (not computed for retry topics, which have one
  queue per broker and would call most processes idle).
- In a scenario (`planner.scenarios`), `moved` = queues whose owners (instance labels) differ from the baseline's.
"""

from __future__ import annotations

from typing import Sequence

from planner.identity import group_processes
from planner.model import (
    BROADCASTING,
    CLUSTERING,
    Fleet,
    Group,
    GroupTopicResult,
    Process,
    Queue,
    Simulation,
    StrategySpec,
)
from planner.routes import readable_queues, retry_queues, retry_topic, subscribed_topics, topic_by_name
from planner.scenarios import moved_queues, scenario_processes
from planner.strategies import StrategyError, allocate_all
from planner.tally import tally

BASELINE = "baseline"


def rebalanced_topics(group: Group, processes: Sequence[Process]) -> list[str]:
    """Topics the group's processes subscribe to (first appearance, declaration order), without the retry topic."""
    return subscribed_topics([group.subscriptions, *(p.subscriptions for p in processes)])


def _subscribers(processes: Sequence[Process], topic: str, is_retry: bool) -> list[Process]:
    if is_retry:
        return list(processes)  # a clustering push consumer subscribes to its retry topic at start
    return [p for p in processes if any(s.topic == topic for s in p.subscriptions)]


def allocate_topic(fleet: Fleet, group: Group, processes: Sequence[Process], topic: str, queues: list[Queue],
                   scenario: str = BASELINE, is_retry: bool = False) -> GroupTopicResult:
    """One group's split of one topic's readable `queues` (RocketMQ order) among `processes`."""
    subscribers = _subscribers(processes, topic, is_retry)
    result = GroupTopicResult(scenario=scenario, group=group.name, topic=topic, model=group.model,
                              queues=list(queues), assignment={}, processes=list(processes))
    if group.model == BROADCASTING:
        for p in subscribers:
            result.assignment[p.instance] = list(queues)
    elif queues:
        cid_all = [p.client_id for p in processes]
        broker_rooms = {b.name: b.room for b in fleet.brokers if b.room}
        client_rooms: dict[str, str] = {}
        for p in processes:
            if p.room:
                client_rooms.setdefault(p.client_id, p.room)
        shares_by_strategy: dict[StrategySpec, dict] = {}
        for p in subscribers:
            shares = shares_by_strategy.get(p.strategy)
            if shares is None:
                shares = allocate_all(p.strategy, queues, cid_all, broker_rooms=broker_rooms,
                                      client_rooms=client_rooms)
                shares_by_strategy[p.strategy] = shares
            share = shares.get(p.client_id, [])
            if isinstance(share, StrategyError):
                result.assignment[p.instance] = []
                result.errored[p.instance] = str(share)
            else:
                result.assignment[p.instance] = list(share)
    else:
        for p in subscribers:
            result.assignment[p.instance] = []
    return tally(result)


def simulate_group(fleet: Fleet, group: Group, processes: Sequence[Process],
                   scenario: str = BASELINE) -> list[GroupTopicResult]:
    """Every topic the group rebalances, in order, with the retry topic last for clustering groups."""
    topics = rebalanced_topics(group, processes)
    out = [allocate_topic(fleet, group, processes, t, readable_queues(fleet, topic_by_name(fleet, t)), scenario)
           for t in topics]
    if group.model == CLUSTERING:
        out.append(allocate_topic(fleet, group, processes, retry_topic(group.name),
                                  retry_queues(fleet, group.name, topics), scenario, is_retry=True))
    return out


def simulate(fleet: Fleet) -> Simulation:
    """The baseline for every group, then each scenario's group with its moves against the baseline."""
    results: list[GroupTopicResult] = []
    baseline_by_key: dict[tuple[str, str], GroupTopicResult] = {}
    for group in fleet.groups:
        for r in simulate_group(fleet, group, group_processes(group)):
            results.append(r)
            baseline_by_key[(r.group, r.topic)] = r
    group_by_name = {g.name: g for g in fleet.groups}
    for scenario in fleet.scenarios:
        group = group_by_name[scenario.group]
        for r in simulate_group(fleet, group, scenario_processes(group, scenario), scenario.name):
            r.moved = moved_queues(baseline_by_key.get((r.group, r.topic)), r)
            results.append(r)
    return Simulation(fleet, results, [BASELINE, *(s.name for s in fleet.scenarios)])

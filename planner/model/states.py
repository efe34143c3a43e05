"""What a scenario does to the fleet, as a sequence of states: the contract between scenarios and engines.

A state says what an engine needs and nothing about scenario kinds: the fleet view in force (brokers with their
permissions, topics with their brokers and queue counts; `rmqplan.model.routes` reads it like any fleet) and, for each
group the state touches, its processes with their client ids. An engine that simulates given processes over given
routes simulates any state; a group a state does not list is as it was in the state before.

A scenario (`[[scenarios]]`) becomes its steps, each a state compared with the state before it (the first with the
baseline):

- **change** (one step; absent when the scenario only restarts): the fleet view with `remove_brokers` (their queues
  leave every route, retry topics included), `broker_perm` (4 read, 2 write: a broker that cannot be read leaves
  consumers' routes, one that cannot be written leaves producers') and `set_queues` applied; the scenario's group
  with `remove_hosts`, `remove_instances` and `add_instances` applied (`scenario_processes`), every group whose
  instance sets `replicas` scales (`rmqplan.model.scaling`); and every other group
  whose routes the view changes (a topic or retry topic it rebalances has other readable queues).
- **rolling restart** (`rolling_restart = true`, a group name or a list of them): every process of the restarting
  groups (true: the scenario's group, or every group when the scenario names none), as the change left them,
  restarts one at a time in the order they are listed: `down 1`, `up 1`, `down 2`, `up 2`, ... While down, a process is gone (its client id leaves cidAll). It returns under the same label
  with the client id a new JVM reports: a fixed instanceName, a declared `pid` (containers: pid 1) and a
  broadcasting `DEFAULT` stay; a synthetic pid is new; on clients >= 4.9.0 its nanoTime is later than that of every
  process of the group started before it. Both continue the group's start counter (`rmqplan.model.identity`: the n of
  `10000 + n` and `1000000000000 + n`), so the k-th restart of a group whose largest n is N gets N + k; a process
  given `started_as` (as connected) gets the group's largest pid + k and largest nanoTime + k. Groups
  restarting together step in parallel: step `down j` stops the j-th process of every group that has one. A
  fleet-wide restart of a fleet with `[generate]` has as many steps as its largest group needs, generated ones
  included (`rmqplan.generated.states` adds their states).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from rmqplan.model.identity import client_id_for, expand_instances, fresh_start, group_processes, started_parts
from rmqplan.model.fleet import Broker, Fleet, Group, InstanceSpec, Process, QueueResize, Scaling, Scenario, Topic
from rmqplan.model.scaling import layout as scaling_layout, template as scaling_template
from rmqplan.model.routes import readable_queues, retry_queues, subscribed_topics, topic_by_name

PERM_READ, PERM_WRITE = 4, 2
CHANGE = "change"


@dataclass(frozen=True)
class GroupState:
    """A group's processes in a state, declaration order, and the labels of those that (re)start in it (the
    others ran in the state before: a process whose rebalance fails keeps what it held there)."""

    group: Group
    processes: tuple[Process, ...]
    started: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Step:
    """One state of a scenario: `index` from 1, `name` for people ("change", "down 10.0.0.6#1"), the fleet view
    in force and the groups it touches."""

    index: int
    name: str
    view: Fleet
    groups: tuple[GroupState, ...]


@dataclass(frozen=True)
class ScenarioStates:
    scenario: Scenario
    steps: tuple[Step, ...]


# ------------------------------------------------------------------------------------------------- the view


def fleet_view(fleet: Fleet, scenario: Scenario) -> Fleet:
    """The fleet with the scenario's broker and topic changes applied (the fleet itself when it has none)."""
    if not scenario.changes_routes():
        return fleet
    down = set(scenario.remove_brokers)
    perms = dict(scenario.broker_perm)
    brokers = tuple(_with_perm(b, perms.get(b.name)) for b in fleet.brokers if b.name not in down)
    resize = {r.topic: r for r in scenario.set_queues}
    topics = tuple(_topic_view(t, down, resize.get(t.name)) for t in fleet.topics)
    return replace(fleet, brokers=brokers, topics=topics, scenarios=())


def _with_perm(broker: Broker, perm: Optional[int]) -> Broker:
    if perm is None:
        return broker
    return replace(broker, readable=bool(perm & PERM_READ), writable=bool(perm & PERM_WRITE))


def _topic_view(topic: Topic, down: set[str], resize: Optional[QueueResize]) -> Topic:
    read, write = dict(topic.read_queues), dict(topic.write_queues)
    if resize is not None:
        read.update(resize.read_queues or {})
        write.update(resize.write_queues or {})
    kept = tuple(b for b in topic.brokers if b not in down)
    return replace(topic, brokers=kept, read_queues={b: read[b] for b in kept}, write_queues={b: write[b] for b in kept})


# -------------------------------------------------------------------------------------------- the processes


@dataclass(frozen=True)
class _Started:
    """A process with what its client id was made from (to make it again after a restart)."""

    process: Process
    spec: InstanceSpec
    n: int  # its number on its host: the label's n, and the start counter of its first start


def _expand(group: Group, specs, numbers: dict[str, int]) -> list[_Started]:
    out = []
    for spec in specs:
        for p in expand_instances(group, [spec], numbers):
            out.append(_Started(p, spec, int(p.instance.rsplit("#", 1)[1])))
    return out


def _scaled(group: Group, started: list[_Started], scaling: Scaling, numbers: dict[str, int]) -> list[_Started]:
    """The processes with the sets `scaling` names at its number (`rmqplan.model.scaling.layout`): on each host the
    first ones stay (their labels too), the rest leave, and new ones are numbered on after the host's last."""
    target = dict(scaling_layout(group, scaling))
    paths = {group.instances[i].path for i in scaling.sets}
    kept, seen = [], {}
    for s in started:
        if s.spec.path in paths:
            host = s.process.host
            seen[host] = seen.get(host, 0) + 1
            if seen[host] > target.get(host, 0):
                continue
        kept.append(s)
    like = scaling_template(group, scaling)
    added = [replace(like, hosts=(h,), count=c - seen.get(h, 0)) for h, c in target.items() if c > seen.get(h, 0)]
    return kept + _expand(group, added, numbers)


def _scenario_started(group: Group, scenario: Optional[Scenario]) -> tuple[list[_Started], int]:
    """The group's processes once the scenario's process changes are applied, and the largest start counter used."""
    numbers: dict[str, int] = {}
    baseline = _expand(group, group.instances, numbers)
    if scenario is None or not scenario.changes_group(group.name):
        return baseline, max(numbers.values(), default=0)
    for scaling in scenario.replicas:
        if scaling.group == group.name:
            baseline = _scaled(group, baseline, scaling, numbers)
    if scenario.group != group.name:
        return baseline, max(numbers.values(), default=0)
    failed = set(scenario.remove_hosts)
    kept = [s for s in baseline if s.process.host not in failed]
    if scenario.remove_instances:
        kept = kept[: max(len(kept) - scenario.remove_instances, 0)]
    added = _expand(group, scenario.add_instances, numbers)
    return kept + added, max(numbers.values(), default=0)


def scenario_processes(group: Group, scenario: Scenario) -> list[Process]:
    """The group's processes in a scenario's change: every process on `remove_hosts` goes first, then the last
    `remove_instances` of the rest (last first), then `add_instances` join, numbered on after the baseline's on
    each host (a label is never reused). Removal applies to the baseline, so remove 1 + add 1 is a replacement."""
    return [s.process for s in _scenario_started(group, scenario)[0]]


def restarted(started: _Started, model: str, counter: int, fresh: Optional[tuple[int, int]] = None) -> Process:
    """The process as it returns from a restart that is start number `counter` of its group (`fresh`: the pid and
    nanoTime it gets when it was given `started_as`)."""
    p, spec = started.process, started.spec
    client_id, source = client_id_for(spec, model, p.host, counter, fresh if spec.started_as is not None else None)
    return replace(p, client_id=client_id, id_source=f"{source}, restarted")


# ------------------------------------------------------------------------------------------------ the steps


def _routes_changed(fleet: Fleet, view: Fleet, group: Group, processes: list[Process]) -> bool:
    topics = subscribed_topics([group.subscriptions, *(p.subscriptions for p in processes)])
    for t in topics:
        if readable_queues(fleet, topic_by_name(fleet, t)) != readable_queues(view, topic_by_name(view, t)):
            return True
    return group.model == "clustering" and \
        retry_queues(fleet, group.name, topics) != retry_queues(view, group.name, topics)


def scenario_states(fleet: Fleet, scenario: Scenario, generated_processes: int = 0) -> ScenarioStates:
    """The steps of a scenario over the fleet's hand-written groups. A rolling restart of every group takes at least
    `generated_processes` down/up pairs: the most processes any generated group has
    (`rmqplan.generated.states.restart_processes`)."""
    view = fleet_view(fleet, scenario)
    started = {g.name: _scenario_started(g, scenario) for g in fleet.groups}
    steps: list[Step] = []
    if not scenario.restarts() or scenario.changes_routes() or scenario.changes_processes():
        touched = []
        for g in fleet.groups:
            processes = [s.process for s in started[g.name][0]]
            if scenario.changes_group(g.name) or (view is not fleet and _routes_changed(fleet, view, g, processes)):
                before = {p.instance for p in group_processes(g)}
                touched.append(GroupState(g, tuple(processes),
                                          frozenset(p.instance for p in processes if p.instance not in before)))
        steps.append(Step(1, CHANGE, view, tuple(touched)))
    if scenario.restarts():
        every = scenario.restarts_every_group
        groups = [g for g in fleet.groups if every or g.name in scenario.rolling_restart]
        steps += _rolling_restart(view, groups, started, len(steps), single=len(groups) == 1 and not every,
                                  at_least=generated_processes if every else 0)
    return ScenarioStates(scenario, tuple(steps))


def _rolling_restart(view: Fleet, groups: list[Group], started: dict, before: int, single: bool,
                     at_least: int = 0) -> list[Step]:
    """The down/up steps of `groups` in parallel; `at_least` processes' worth of steps (for groups this list does
    not hold: generated ones)."""
    current = {g.name: [s.process for s in started[g.name][0]] for g in groups}
    counter = {g.name: started[g.name][1] for g in groups}
    longest = max([at_least, *(len(started[g.name][0]) for g in groups)])
    steps = []
    for j in range(longest):
        down, up = [], []
        for g in groups:
            mine = started[g.name][0]
            if j >= len(mine):
                continue
            processes = current[g.name]
            down.append(GroupState(g, tuple(processes[:j] + processes[j + 1:])))
            counter[g.name] += 1
            fresh = fresh_start((started_parts(s.spec, s.n) for s in mine), counter[g.name] - started[g.name][1],
                                started_parts(mine[j].spec, mine[j].n)[0])
            processes[j] = restarted(mine[j], g.model, counter[g.name], fresh)
            up.append(GroupState(g, tuple(processes), frozenset([processes[j].instance])))
        if single and groups:
            label = started[groups[0].name][0][j].process.instance
            names = (f"down {label}", f"up {label}")
        else:
            names = (f"down process {j + 1}", f"up process {j + 1}")
        steps.append(Step(before + len(steps) + 1, names[0], view, tuple(down)))
        steps.append(Step(before + len(steps) + 1, names[1], view, tuple(up)))
    return steps

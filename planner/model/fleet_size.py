"""What simulating a hand-written fleet holds at most, counted from what it declares, before anything is expanded.

A hand-written fleet is simulated whole (every process, queue and assignment of every group in every state is a
Python object), and a few hundred bytes can declare billions of them: 1,000 hosts x `count = 100000`, a topic of
65,536 queues on each of thousands of brokers, a rolling restart of a group of 100,000 processes (two states per
process, each holding all of them). So the fleet is weighed first, from its numbers alone, and refused with one line
when it holds more than `MAX_ENTRIES`: an entry is a process, a queue or an assignment of one group's rebalance in
one state, and a rebalance's own objects weigh `REBALANCE_ENTRIES`. The count is an upper bound:

- a group's processes: `hosts` x `count` of each instance set; a scenario adds its `add_instances` and the sets
  `replicas` scales at their number;
- its queues: the read queues of every topic it subscribes to, on every broker of it (the larger count where a
  scenario's `set_queues` changes it), and one retry queue per broker for a clustering group;
- its assignments: every queue to every process when each process reads them all (broadcasting); a process's
  slot of the queues for the strategies that divide by position in cidAll (AVG, AVG_BY_CIRCLE, the machine room
  ones: one queue at least, so the processes and the queues together bound them); where client ids are hashed
  (CONSISTENT_HASH) processes sharing an id all hold its queues, and only processes on one host can share one (a
  client id starts with the host's address): every queue to the most processes one host runs; CONFIG's list to
  each process in each rebalance; and as much again for each other strategy of a group caught half-way between two;
- its states: the baseline, each scenario's change (every group, when the scenario changes routes: a broker down, a
  permission, a queue count), and two states per process of a rolling restart.

A `[generate]`d fleet is worked through in chunks, but the groups its report shows in full (all of a small one,
else the worst `DETAIL_LIMIT`: counted as the largest that many, as drawn) are results like hand-written ones and
count too; `generated_group_entries` sets how many groups a chunk takes (`rmqplan.engines.chunks`).

`MAX_ENTRIES` is measured (`benchmarks/fleet_memory.py`): a fleet at the bound, in its costliest shapes (many small
groups, a scenario that touches all, broadcasting, a rolling restart, one client id shared by a host's
containers), stays under 300 MB with any output format; `--max-entries` (simulate, status, watch) moves it where
there is the memory. Larger fleets are what `[generate]` is for, which works through its groups in chunks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from rmqplan.model.draws import drawn_sizes
from rmqplan.model.fleet import (DEFAULT_RETRY_QUEUES, DETAIL_LIMIT, FULL_RESULTS_GROUPS, Fleet, GenerateSpec, Group,
                                 InstanceSpec, Scenario)

MAX_ENTRIES = 1_300_000
REBALANCE_ENTRIES = 20  # a rebalance's own objects (its result, lists, moves) weigh about as much as 20 entries
GENERATED = "[generate]"  # FleetSize.largest_group when a generated group is the largest
EXACT_GROUPS = 10_000_000  # up to this many generated groups, the largest are drawn (about a second for 10M)
GENERATED_WEIGHT = 2.2  # a listed generated group costs 270 B an entry (hand-written: 180), beside a chunk in flight


@dataclass(frozen=True)
class FleetSize:
    """The entries a fleet's simulation holds at most, and the group that holds the most of them."""

    entries: int
    largest_group: str = ""
    largest_entries: int = 0


def _processes(specs: Iterable[InstanceSpec]) -> tuple[int, int]:
    """(processes, the most processes one host runs) of instance sets."""
    per_host: dict[str, int] = {}
    total = 0
    for spec in specs:
        total += len(spec.hosts) * spec.count
        for host in spec.hosts:
            per_host[host] = per_host.get(host, 0) + spec.count
    return total, max(per_host.values(), default=0)


def _queues(by_name: dict, group: Group, specs: Iterable[InstanceSpec],
            resized: dict[str, dict[str, int]]) -> tuple[int, int]:
    """(rebalances, queues): a rebalance per topic the group (or one of its sets) subscribes to and its retry topic;
    the topics' read queues on all their brokers (the largest count a scenario gives), and the retry topic's."""
    topics = {s.topic for s in group.subscriptions}
    for spec in specs:
        topics.update(s.topic for s in spec.subscriptions or ())
    queues, brokers = 0, set()
    for name in topics:
        topic = by_name.get(name)
        if topic is None:
            continue
        sizes = resized.get(name, {})
        queues += sum(max(topic.read_queues.get(b, 0), sizes.get(b, 0)) for b in {*topic.read_queues, *sizes})
        brokers.update(topic.brokers, sizes)
    if group.model == "clustering":
        queues += DEFAULT_RETRY_QUEUES * len(brokers)
    return len(topics) + (group.model == "clustering"), queues


def _hashes(strategy) -> bool:
    """A strategy that places queues by hashing client ids: processes sharing an id hold the same queues, all of
    what the id gets (the others give each process its slot of cidAll, duplicates included)."""
    return strategy.name == "CONSISTENT_HASH" or (strategy.nearby is not None and _hashes(strategy.nearby))


def _assignments(group: Group, specs: Iterable[InstanceSpec], processes: int, per_host: int, rebalances: int,
                 queues: int) -> int:
    if group.model != "clustering":
        return processes * queues
    strategies = {group.strategy, *(s.strategy for s in specs if s.strategy is not None)}
    config = sum(len(s.config_queues) for s in strategies if s.name == "CONFIG")
    hashing = sum(1 for s in strategies if s.name != "CONFIG" and _hashes(s))
    slots = sum(1 for s in strategies if s.name != "CONFIG" and not _hashes(s))
    # each strategy of a group caught half-way divides the queues on its own: their shares add up
    return hashing * per_host * queues + slots * (processes * rebalances + queues) + processes * config * rebalances


def _resized(scenario: Scenario) -> dict[str, dict[str, int]]:
    """Topic -> broker -> the read queues a `set_queues` gives it."""
    out: dict[str, dict[str, int]] = {}
    for resize in scenario.set_queues:
        for broker, n in (resize.read_queues or {}).items():
            out.setdefault(resize.topic, {})[broker] = max(out.get(resize.topic, {}).get(broker, 0), n)
    return out


def _scenario_processes(group: Group, scenario: Scenario) -> tuple[int, int, tuple[InstanceSpec, ...]]:
    """(processes, the most one host runs, the instance sets) of the group in the scenario's change: a scaled set
    at its number (spread over its hosts, or as many a host as it has on hosts of their own), added sets."""
    scaled: set[int] = set()
    processes, per_host = 0, 0
    for scaling in scenario.replicas:
        if scaling.group == group.name:
            sets = [group.instances[i] for i in scaling.sets]
            hosts = max(sum(len(s.hosts) for s in sets), 1)
            processes += scaling.replicas
            per_host = max(per_host, -(-scaling.replicas // hosts), *(s.count for s in sets))
            scaled.update(scaling.sets)
    kept = [s for i, s in enumerate(group.instances) if i not in scaled]
    added = list(scenario.add_instances) if scenario.group == group.name else []
    p, h = _processes(kept + added)
    return processes + p, per_host + h, tuple(kept + added)


def _group_state_entries(processes, queues, hashed_together):
    """One generated group in one state (numbers, or numpy arrays of groups): its main topic's and retry topic's
    rebalances, processes and queues, and their assignments (every queue to each process when they share one
    client id under CONSISTENT_HASH, else a slot each in both rebalances and the queues once)."""
    import numpy as np

    assignments = np.where(hashed_together, processes * queues, 2 * processes + queues)
    return 2 * REBALANCE_ENTRIES + processes + queues + assignments


def generated_group_entries(spec: GenerateSpec, mean: bool = False) -> int:
    """The most one generated group of the spec can hold in one state: its largest process count and queue counts
    (the retry topic's included), its processes sharing one client id under CONSISTENT_HASH where the spec lets
    groups collide and draw that strategy. `mean`: what a group holds on average (the middle of each range, the
    colliding share of groups hashing together), what a chunk of many groups holds per group."""
    if not mean:
        queues = (spec.queues[1] + DEFAULT_RETRY_QUEUES) * spec.brokers
        hashed = spec.colliding_client_ids > 0 and "CONSISTENT_HASH" in spec.strategies
        return int(_group_state_entries(spec.instances[1], queues, hashed))
    processes = (spec.instances[0] + spec.instances[1]) / 2
    queues = ((spec.queues[0] + spec.queues[1]) / 2 + DEFAULT_RETRY_QUEUES) * spec.brokers
    hashing = spec.colliding_client_ids * spec.strategies.count("CONSISTENT_HASH") / max(len(spec.strategies), 1)
    spread = _group_state_entries(processes, queues, False)
    together = _group_state_entries(processes, queues, True)
    return max(1, round(float((1 - hashing) * spread + hashing * together)))


def _generated(fleet: Fleet) -> tuple[int, int]:
    """(entries of the generated groups a report holds in full, the most one of them holds): every group of a
    small `[generate]`, else its DETAIL_LIMIT worst (which they are is known only once simulated: the DETAIL_LIMIT
    largest, as drawn, up to EXACT_GROUPS groups; beyond, each at the largest the spec allows), in the baseline
    and each scenario that reaches them (routes changed; every group restarted: two states per process). The other
    groups are counted chunk by chunk (`rmqplan.engines.chunks`), in memory of their own."""
    import numpy as np

    spec = fleet.generate
    if spec is None:
        return 0, 0
    changes = sum(1 for s in fleet.scenarios if s.changes_routes())
    restarts = sum(1 for s in fleet.scenarios if s.restarts_every_group)

    def states(processes):
        return 1 + changes + restarts * 2 * processes

    if spec.groups > EXACT_GROUPS:
        one = int(GENERATED_WEIGHT * generated_group_entries(spec) * states(spec.instances[1]))
        return DETAIL_LIMIT * one, one
    listed = spec.groups if spec.groups <= FULL_RESULTS_GROUPS else DETAIL_LIMIT
    largest = np.zeros(0)
    for start in range(0, spec.groups, 1 << 20):
        processes, queues, hashed = drawn_sizes(spec, start, min(start + (1 << 20), spec.groups))
        queues = queues + DEFAULT_RETRY_QUEUES * spec.brokers
        each = GENERATED_WEIGHT * _group_state_entries(processes, queues, hashed) * states(processes)
        largest = np.sort(np.concatenate([largest, each]))[-listed:]
    return int(largest.sum()), int(largest.max())


def fleet_size(fleet: Fleet) -> FleetSize:
    """The upper bound of what `fleet` holds when simulated: its hand-written groups, and the generated groups its
    report lists in full (see the module)."""
    total, largest, largest_entries = 0, "", 0
    by_name = {t.name: t for t in fleet.topics}
    for group in fleet.groups:
        processes, per_host = _processes(group.instances)
        rebalances, queues = _queues(by_name, group, group.instances, {})
        entries = REBALANCE_ENTRIES * rebalances + processes + queues + \
            _assignments(group, group.instances, processes, per_host, rebalances, queues)
        for scenario in fleet.scenarios:
            changed = scenario.changes_group(group.name) or scenario.changes_routes()
            restarting = scenario.restarts_every_group or group.name in scenario.rolling_restart
            if not (changed or restarting):
                continue
            p, h, specs = _scenario_processes(group, scenario)
            r, q = _queues(by_name, group, specs, _resized(scenario))
            state = REBALANCE_ENTRIES * r + p + q + _assignments(group, specs, p, h, r, q)
            entries += state * ((1 if changed else 0) + (2 * p if restarting else 0))
        total += entries
        if entries > largest_entries:
            largest, largest_entries = group.name, entries
    listed, one = _generated(fleet)
    if one > largest_entries:
        largest, largest_entries = GENERATED, one
    return FleetSize(total + listed, largest, largest_entries)


def too_large_line(label: str, size: FleetSize, bound: int, help: str) -> str:
    """The one line a fleet over `bound` gets; `help` says what to do instead."""
    about = ", about 300 MB" if bound == MAX_ENTRIES else ""
    largest = f"group {size.largest_group!r}"
    if size.largest_group == GENERATED:  # the worst generated groups, reported in full, are what is too large
        largest, help = "a generated group", ("give [generate] fewer instances, queues or brokers, or raise "
                                              "--max-entries")
    return (f"{label}: too large to simulate whole: its groups' processes, queues and assignments in every state come "
            f"to as many as {size.entries:,} entries (at most {bound:,}{about}; {largest} alone "
            f"{size.largest_entries:,}): {help}")

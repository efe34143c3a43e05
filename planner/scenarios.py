"""What-if scenarios (DESIGN §5 `[[scenarios]]`): the processes a scenario runs, and what it moves.

- A scenario changes one group: it removes every process on the `remove_hosts` (a failed host), then the last
  `remove_instances` processes of what is left (last first), then appends the processes of `add_instances`
  (same defaults as the group's instance sets). Removal applies to the baseline only, so `remove 1 + add 1` is
  a replacement (a restart with a new client id).
- Added processes continue each host's numbering after the baseline's, so a label is never reused.
- `moved` queues of a scenario's group/topic: queues whose set of owners (instance labels) differs from the
  baseline's. A scenario's churn is the number of moved queues summed over its group's topics.
"""

from __future__ import annotations

from typing import Optional

from planner.identity import expand_instances
from planner.model import Group, GroupTopicResult, Process, Queue, Scenario, Simulation


def scenario_processes(group: Group, scenario: Scenario) -> list[Process]:
    """The group's processes in a scenario: the baseline minus the last `remove_instances`, plus the added ones."""
    numbers: dict[str, int] = {}
    baseline = expand_instances(group, group.instances, numbers)
    failed = set(scenario.remove_hosts)
    kept = [p for p in baseline if p.host not in failed]
    if scenario.remove_instances:
        kept = kept[: max(len(kept) - scenario.remove_instances, 0)]
    return kept + expand_instances(group, scenario.add_instances, numbers)


def owners(result: GroupTopicResult) -> dict[Queue, frozenset[str]]:
    """queue -> the instance labels holding it (every readable queue is a key)."""
    held: dict[Queue, set[str]] = {q: set() for q in result.queues}
    for instance, share in result.assignment.items():
        for q in share:
            held.setdefault(q, set()).add(instance)
    return {q: frozenset(s) for q, s in held.items()}


def moved_queues(baseline: Optional[GroupTopicResult], result: GroupTopicResult) -> list[Queue]:
    """Queues whose set of owners differs from the baseline's (every held queue when the baseline lacks the topic)."""
    now = owners(result)
    if baseline is None:
        return [q for q in result.queues if now[q]]
    before = owners(baseline)
    changed = [q for q in result.queues if now.get(q, frozenset()) != before.get(q, frozenset())]
    changed += [q for q in baseline.queues if q not in now and before[q]]
    return changed


def churn(sim: Simulation) -> list[dict]:
    """Per scenario (baseline excluded): `{"name", "moved_queues"}`."""
    moved: dict[str, int] = {name: 0 for name in sim.scenarios[1:]}
    for r in sim.results:
        if r.scenario in moved:
            moved[r.scenario] += len(r.moved)
    return [{"name": name, "moved_queues": n} for name, n in moved.items()]

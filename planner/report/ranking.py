"""The worst problem first: the order in which every report (text, JSON, HTML) lists groups and findings.

Within the baseline and within each scenario, a group's weight is, in this order:
- its severity: the most severe of its findings (error, then warning, then info; a group without findings last);
- how much is lost: its orphaned plus duplicated queues over all its topics (retry topics included);
- then its idle and failed processes;
- then its place in the fleet (fleet order breaks ties, so the order never changes between runs).

Findings follow their scenario (the baseline first), then their severity, then their group's weight, then their
own queues (most first). A finding of a topic rather than a group (PLAN004, PLAN008) weighs its own queues.
The engines pick the groups a large generated fleet shows in full by the same weight
(`rmqplan.engines.chunks.summary`), so the groups shown are the worst ones, not the first ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rmqplan.model.fleet import BROADCASTING
from rmqplan.model.simulation import Simulation
from rmqplan.report.codes import ERROR, INFO, WARNING

SEVERITY_RANK = {ERROR: 0, WARNING: 1, INFO: 2}
NO_FINDING = len(SEVERITY_RANK)


@dataclass(frozen=True, order=True)
class Weight:
    """How bad a group is in one scenario; a smaller weight sorts first (so the counts are negated)."""

    severity: int  # SEVERITY_RANK of its worst finding, NO_FINDING without one
    lost: int  # minus its orphaned + duplicated queues
    processes: int  # minus its idle + failed processes
    position: int  # its first result's place in the simulation (fleet order)

    @property
    def problem(self) -> bool:
        return self.severity != NO_FINDING


def group_weights(sim: Simulation, findings: Sequence) -> dict[tuple[str, str], Weight]:
    """(scenario, group) -> its Weight, for every group with a result."""
    severity: dict[tuple[str, str], int] = {}
    for f in findings:
        if f.group is not None:
            key = (f.scenario, f.group)
            severity[key] = min(severity.get(key, NO_FINDING), SEVERITY_RANK[f.severity])
    lost: dict[tuple[str, str], int] = {}
    processes: dict[tuple[str, str], int] = {}
    position: dict[tuple[str, str], int] = {}
    for r in sim.results:
        key = (r.scenario, r.group)
        position.setdefault(key, len(position))
        clustering = r.model != BROADCASTING
        lost[key] = lost.get(key, 0) + (len(r.orphaned) + len(r.duplicated) if clustering else 0)
        processes[key] = processes.get(key, 0) + len(r.idle) + len(r.errored)
    return {key: Weight(severity.get(key, NO_FINDING), -lost[key], -processes[key], position[key])
            for key in position}


def ordered_groups(weights: dict[tuple[str, str], Weight], scenario: str) -> list[str]:
    """The groups of `scenario`, worst first."""
    mine = [(w, group) for (s, group), w in weights.items() if s == scenario]
    return [group for _, group in sorted(mine)]


def ordered_findings(findings: Sequence, sim: Simulation) -> list:
    """`findings` worst first (the module's order); equal ones keep their order."""
    weights = group_weights(sim, findings)
    scenario_index = {name: i for i, name in enumerate(sim.scenarios)}

    def key(item):
        i, f = item
        own = len(f.queues or ())
        w = weights.get((f.scenario, f.group)) if f.group is not None else None
        group = (w.lost, w.processes, w.position) if w is not None else (-own, 0, -1)
        return scenario_index.get(f.scenario, len(scenario_index)), SEVERITY_RANK[f.severity], group, -own, i

    return [f for _, f in sorted(enumerate(findings), key=key)]

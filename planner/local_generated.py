"""`[generate]`d groups on the local engine: generated, allocated and counted chunk by chunk.

Each chunk of `CHUNK_GROUPS` groups is one batch (`planner.generate.generated_batch`); the kernel and the tally run
over it, the totals and problem counts are added up, and the results the report shows are built for the first
problem groups (every group of a small fleet). Memory stays bounded whatever the number of groups.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator, Optional

import numpy as np

from planner.batch import Batch, Rows
from planner.generate import generated_batch, generated_group_fleet
from planner.identity import group_processes
from planner.kernel import allocate
from planner.model import DETAIL_LIMIT, FULL_RESULTS_GROUPS, GenerateSpec, Queue, Simulation
from planner.results import Described, results_of
from planner.tally import PROBLEMS, Tally, problem_counts, tally, totals

CHUNK_GROUPS = 16_384  # ~170k processes, ~620k assignments: the arrays stay in the CPU caches' reach
TOTAL_KEYS = ("groups", "instances", "queues", "assignments", "orphaned_queues", "duplicated_queues",
              "idle_instances")

Progress = Optional[Callable[[int, int], None]]


def chunks(spec: GenerateSpec, chunk: int = CHUNK_GROUPS) -> Iterator[tuple[int, int]]:
    for start in range(0, spec.groups, chunk):
        yield start, min(start + chunk, spec.groups)


def run_chunk(spec: GenerateSpec, start: int, stop: int) -> tuple[Batch, Rows, Tally]:
    batch = generated_batch(spec, start, stop)
    rows = allocate(batch)
    return batch, rows, tally(batch, rows)


class GeneratedDescriber:
    """Names of generated rebalances (rebalance 2k is group k's topic, 2k + 1 its retry topic)."""

    def __init__(self, spec: GenerateSpec, batch: Batch):
        self.spec, self.batch = spec, batch
        self._groups: dict[int, tuple] = {}

    def __call__(self, r: int) -> Described:
        g = int(self.batch.group[r])
        found = self._groups.get(g)
        if found is None:
            group, topic = generated_group_fleet(self.spec, g)
            found = self._groups[g] = (group, topic, group_processes(group))
        group, topic, processes = found
        lo, hi = int(self.batch.q_off[r]), int(self.batch.q_off[r + 1])
        name = self.batch.names.topic(r)
        queues = [Queue(name, self.batch.brokers[b], int(i))
                  for b, i in zip(self.batch.q_broker[lo:hi].tolist(), self.batch.q_id[lo:hi].tolist())]
        return Described("baseline", group.name, name, queues, processes)


def shown_rebalances(batch: Batch, t: Tally, room: int, everything: bool) -> np.ndarray:
    """The rebalances to report in full: all of them, or both rebalances of the first `room` problem groups."""
    if everything:
        return np.arange(batch.rebalances)
    if room <= 0:
        return np.zeros(0, dtype=np.int64)
    problem_groups = np.unique(batch.group[t.problem()])[:room]
    return np.flatnonzero(np.isin(batch.group, problem_groups))


def simulate_generated(fleet, sim: Simulation, progress: Progress = None) -> Simulation:
    """Adds the generated groups to a hand-written simulation: totals and problem counts for all, results for the
    first problem groups (all groups of a fleet of at most FULL_RESULTS_GROUPS)."""
    spec = fleet.generate
    everything = spec.groups <= FULL_RESULTS_GROUPS
    gen = dict.fromkeys(TOTAL_KEYS, 0)
    counts = dict.fromkeys(PROBLEMS, 0)
    results, shown_groups, problems, shown_problems = [], 0, 0, 0
    for start, stop in chunks(spec):
        batch, rows, t = run_chunk(spec, start, stop)
        everyone = np.arange(batch.rebalances)
        for key, value in totals(batch, t, everyone).items():
            gen[key] += value
        for key, value in problem_counts(t, everyone).items():
            counts[key] += value
        problem = t.problem()
        problems += int(problem.sum())
        which = shown_rebalances(batch, t, DETAIL_LIMIT - shown_groups, everything)
        if len(which):
            results += results_of(batch, rows, t, which, GeneratedDescriber(spec, batch))
            shown_groups += len(np.unique(batch.group[which]))
            shown_problems += int(problem[which].sum())
        if progress is not None:
            progress(stop, spec.groups)
    hand = sim.totals or dict.fromkeys(TOTAL_KEYS, 0)
    whole = {k: hand.get(k, 0) + gen[k] for k in TOTAL_KEYS}
    whole["groups"] = len(fleet.groups) + spec.groups
    hand_counts = sim.problem_counts or dict.fromkeys(PROBLEMS, 0)
    return replace(sim, results=list(sim.results) + results, totals=whole,
                   omitted_results=sim.omitted_results + problems - shown_problems,
                   problem_counts={k: hand_counts.get(k, 0) + counts[k] for k in PROBLEMS})

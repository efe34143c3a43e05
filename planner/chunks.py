"""Generated groups chunk by chunk: the work both engines do on each chunk (the local engine in a loop, the Spark
engine in its tasks), so that their answers come from the same code.

A chunk of `CHUNK_GROUPS` generated groups is one batch (`planner.generate.generated_batch`); the kernel and the
tally run over it. From a chunk come: its summary (totals, problem counts, its first problem groups), the results
the report shows, and for `--out` its rows of every table (`planner.out_tables`) and the findings of its problem
groups. The findings are computed by a function the caller passes (`planner.findings.find`): this step does not
know what a finding says.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import numpy as np

from planner.batch import Batch, Rows
from planner.generate import generated_batch
from planner.kernel import allocate
from planner.model import Fleet, GenerateSpec, Queue, Simulation
from planner.results import Described, results_of
from planner.tally import Tally, problem_counts, tally, totals

CHUNK_GROUPS = 16_384  # ~170k processes, ~620k assignments: the arrays stay in the CPU caches' reach
TOTAL_KEYS = ("groups", "instances", "queues", "assignments", "orphaned_queues", "duplicated_queues",
              "idle_instances")

Find = Callable[[Simulation], list]  # the findings of a Simulation's results (planner.findings.find)
Sink = Callable[[str, object], None]  # (table name, Arrow record batch)


def chunks(spec: GenerateSpec, chunk: int = CHUNK_GROUPS) -> Iterator[tuple[int, int]]:
    for start in range(0, spec.groups, chunk):
        yield start, min(start + chunk, spec.groups)


def run_chunk(spec: GenerateSpec, start: int, stop: int) -> tuple[Batch, Rows, Tally]:
    batch = generated_batch(spec, start, stop)
    rows = allocate(batch)
    return batch, rows, tally(batch, rows)


def summary(batch: Batch, t: Tally, limit: int) -> dict:
    """Totals, problem counts, the number of problem rebalances and the first `limit` problem groups."""
    everyone = np.arange(batch.rebalances)
    problem = t.problem()
    return {**totals(batch, t, everyone), **problem_counts(t, everyone), "problems": int(problem.sum()),
            "first_problem_groups": np.unique(batch.group[problem])[:limit].tolist()}


class GeneratedDescriber:
    """Names of generated rebalances (rebalance 2k is group k's topic, 2k + 1 its retry topic)."""

    def __init__(self, spec: GenerateSpec, batch: Batch):
        self.spec, self.batch = spec, batch
        self._processes: dict[int, list] = {}

    def __call__(self, r: int) -> Described:
        batch, k = self.batch, r // 2
        processes = self._processes.get(k)
        if processes is None:
            strategy = batch.specs[int(batch.c_spec[batch.c_off[r]])]
            processes = self._processes[k] = batch.names.processes(k, strategy)
        lo, hi = int(batch.q_off[r]), int(batch.q_off[r + 1])
        name = batch.names.topic(r)
        queues = [Queue(name, batch.brokers[b], i)
                  for b, i in zip(batch.q_broker[lo:hi].tolist(), batch.q_id[lo:hi].tolist())]
        return Described("baseline", processes[0].group, name, queues, processes)


def shown_rebalances(batch: Batch, t: Tally, room: int, everything: bool) -> np.ndarray:
    """The rebalances to report in full: all of them, or both rebalances of the first `room` problem groups."""
    if everything:
        return np.arange(batch.rebalances)
    if room <= 0:
        return np.zeros(0, dtype=np.int64)
    problem_groups = np.unique(batch.group[t.problem()])[:room]
    return np.flatnonzero(np.isin(batch.group, problem_groups))


@dataclass(frozen=True)
class OutIds:
    """How generated groups are numbered in the `--out` tables (`planner.out_tables`)."""

    group_base: int  # hand-written groups come first
    topic_base: int
    broker_ids: np.ndarray  # per generated broker index


def write_tables(spec: GenerateSpec, batch: Batch, rows: Rows, t: Tally, ids: OutIds, sink: Sink) -> None:
    """The chunk's rows of the assignments, groups and processes tables."""
    import pyarrow as pa

    from planner.out_tables import assignment_batch, generated_group_names, generated_process_names, \
        group_batch, process_batch

    group_ids = ids.group_base + batch.group
    topic_ids = ids.topic_base + 2 * batch.group + batch.retry.astype(np.int64)
    sink("assignments", assignment_batch(batch, rows, group_ids, topic_ids, ids.broker_ids))
    groups, topics = generated_group_names(batch.names.groups)
    scenario = pa.array(np.full(batch.rebalances, "baseline", dtype=object), type=pa.string())
    sink("groups", group_batch(batch, t, group_ids, topic_ids, scenario, groups, topics))
    names = batch.names
    instance, client_id, host = generated_process_names(names)
    sink("processes", process_batch(np.zeros(len(names.process_i), dtype=np.int32),
                                    ids.group_base + names.groups[names.process_group],
                                    names.process_i.astype(np.int32), instance, client_id, host))


def finding_lines(spec: GenerateSpec, batch: Batch, rows: Rows, t: Tally, find: Find) -> list[str]:
    """Every finding of the chunk's problem rebalances, one JSON line each, in group order."""
    which = np.flatnonzero(t.problem())
    if not len(which):
        return []
    results = results_of(batch, rows, t, which, GeneratedDescriber(spec, batch))
    no_topics = Fleet("<generated>", (), (), (), (), None)  # topic findings (PLAN004) are the fleet's, not here
    return [json.dumps(f.to_json()) for f in find(Simulation(no_topics, results))]


def out_ids(fleet: Fleet, hand_topics: int, brokers) -> OutIds:
    from planner.generate import broker_names

    return OutIds(len(fleet.groups), hand_topics, brokers.of(broker_names(fleet.generate)))


Progress = Optional[Callable[[int, int], None]]

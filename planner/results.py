"""Rebalances as the report shows them: a `GroupTopicResult` per rebalance, from the kernel's rows and the tally.

Both engines build the rebalances a report lists with this, so their results are the same objects: each
subscribing process's share in its strategy's list order, the failed processes and their errors, the orphaned
and duplicated queues and the idle processes as the tally counted them, and in a scenario the queues whose owners
(instance labels) differ from the baseline's (`planner.scenarios.moved_queues`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from planner.batch import CLUSTERING_CODE, Batch, Rows
from planner.model import BROADCASTING, CLUSTERING, GroupTopicResult, Queue
from planner.scenarios import moved_queues
from planner.tally import Tally


@dataclass(frozen=True)
class Described:
    """What a report says about one rebalance: its names (the batch holds numbers)."""

    scenario: str
    group: str
    topic: str
    queues: list  # list[Queue], RocketMQ order: the batch's queues of the rebalance
    processes: list  # list[Process], declaration order: the batch's entries of the rebalance


def shares_of(batch: Batch, rows: Rows, entries: np.ndarray) -> dict[int, list[Queue]]:
    """entry -> its share (Queues in its strategy's list order), for the given entries only."""
    wanted = np.isin(rows.entry, entries)
    entry, queue = rows.entry[wanted], rows.queue[wanted]
    pos = rows.pos[wanted] if rows.pos is not None else queue
    rebalance = np.searchsorted(batch.q_off, queue, "right") - 1
    listed: dict[int, list] = {int(e): [] for e in entries.tolist()}
    for e, q, p, r in zip(entry.tolist(), queue.tolist(), pos.tolist(), rebalance.tolist()):
        listed[e].append((p, batch.queue(r, q)))
    wanted_set = set(listed)
    for e, q, p in rows.extra:
        if e in wanted_set:
            listed[e].append((p, q))
    return {e: [q for _, q in sorted(items, key=lambda item: item[0])] for e, items in listed.items()}


def results_of(batch: Batch, rows: Rows, t: Tally, which: Sequence[int],
               describe) -> list[GroupTopicResult]:
    """GroupTopicResults of the rebalances `which` (in that order); `describe(r)` gives a `Described`."""
    if not len(which):
        return []
    which = list(which)
    spans = [np.arange(batch.c_off[r], batch.c_off[r + 1]) for r in which]
    shares = shares_of(batch, rows, np.concatenate(spans))
    out = []
    idle_entry = t.idle_entry(batch)
    for r, entries in zip(which, spans):
        d = describe(r)
        model = CLUSTERING if batch.model[r] == CLUSTERING_CODE else BROADCASTING
        res = GroupTopicResult(scenario=d.scenario, group=d.group, topic=d.topic, model=model,
                               queues=list(d.queues), assignment={}, processes=list(d.processes))
        q_lo = int(batch.q_off[r])
        for e, p in zip(entries.tolist(), d.processes):
            if not batch.c_asks[e]:
                continue
            if e in rows.errors:
                res.assignment[p.instance] = []
                res.errored[p.instance] = rows.errors[e]
            else:
                res.assignment[p.instance] = shares[e]
        holders = t.holders[q_lo:int(batch.q_off[r + 1])]
        if model == CLUSTERING:
            res.orphaned = [q for q, h in zip(d.queues, holders.tolist()) if h == 0]
            res.duplicated = [q for q, h in zip(d.queues, holders.tolist()) if h > 1]
        idle = idle_entry[entries]
        res.idle = [p for p, is_idle in zip(d.processes, idle.tolist()) if is_idle]
        out.append(res)
    return out


def with_moves(results: Iterable[GroupTopicResult], baseline: str) -> list[GroupTopicResult]:
    """Fill `moved` of every scenario result against the baseline result of the same group and topic."""
    results = list(results)
    before = {(r.group, r.topic): r for r in results if r.scenario == baseline}
    for r in results:
        if r.scenario != baseline:
            r.moved = moved_queues(before.get((r.group, r.topic)), r)
    return results

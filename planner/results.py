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


def results_of(batch: Batch, rows: Rows, t: Tally, which: Sequence[int],
               describe) -> list[GroupTopicResult]:
    """GroupTopicResults of the rebalances `which` (in that order); `describe(r)` gives a `Described`."""
    which = np.asarray(list(which), dtype=np.int64)
    if not len(which):
        return []
    described = [describe(int(r)) for r in which.tolist()]
    slot = np.full(batch.rebalances, -1, dtype=np.int64)
    slot[which] = np.arange(len(which))
    # the rows of the listed rebalances, by entry, each entry's in its list order
    row_r = batch.entry_rebalance()[rows.entry]
    keep = slot[row_r] >= 0
    entry, queue, r_of = rows.entry[keep], rows.queue[keep], row_r[keep]
    pos = rows.pos[keep] if rows.pos is not None else queue
    order = np.lexsort((pos, entry))
    shares: dict[int, list] = {}
    local = (queue - batch.q_off[r_of])[order]
    for e, q, s in zip(entry[order].tolist(), local.tolist(), slot[r_of][order].tolist()):
        shares.setdefault(e, []).append(described[s].queues[q])
    if rows.extra:
        extra: dict[int, list] = {}
        for e, q, p in rows.extra:
            if slot[row_r_of(batch, e)] >= 0:
                extra.setdefault(e, []).append((p, q))
        for e, items in extra.items():  # merged into the list order with the other rows
            own = [(p, q) for p, q in zip(_positions(rows, e), shares.get(e, []))]
            shares[e] = [q for _, q in sorted(own + items, key=lambda item: item[0])]
    idle_entry = t.idle_entry(batch)
    out = []
    for r, d in zip(which.tolist(), described):
        lo, hi = int(batch.c_off[r]), int(batch.c_off[r + 1])
        model = CLUSTERING if batch.model[r] == CLUSTERING_CODE else BROADCASTING
        res = GroupTopicResult(scenario=d.scenario, group=d.group, topic=d.topic, model=model,
                               queues=list(d.queues), assignment={}, processes=list(d.processes))
        for e, p in zip(range(lo, hi), d.processes):
            if not batch.c_asks[e]:
                continue
            if e in rows.errors:
                res.assignment[p.instance] = []
                res.errored[p.instance] = rows.errors[e]
            else:
                res.assignment[p.instance] = shares.get(e, [])
        holders = t.holders[int(batch.q_off[r]):int(batch.q_off[r + 1])].tolist()
        if model == CLUSTERING:
            res.orphaned = [q for q, h in zip(d.queues, holders) if h == 0]
            res.duplicated = [q for q, h in zip(d.queues, holders) if h > 1]
        res.idle = [p for p, is_idle in zip(d.processes, idle_entry[lo:hi].tolist()) if is_idle]
        out.append(res)
    return out


def row_r_of(batch: Batch, entry: int) -> int:
    return int(np.searchsorted(batch.c_off, entry, "right") - 1)


def _positions(rows: Rows, e: int) -> list:
    """The list positions of entry e's rows that are queues of its rebalance, in list order."""
    mine = rows.entry == e
    pos = rows.pos[mine] if rows.pos is not None else rows.queue[mine]
    return sorted(pos.tolist())


def with_moves(results: Iterable[GroupTopicResult], baseline: str) -> list[GroupTopicResult]:
    """Fill `moved` of every scenario result against the baseline result of the same group and topic."""
    results = list(results)
    before = {(r.group, r.topic): r for r in results if r.scenario == baseline}
    for r in results:
        if r.scenario != baseline:
            r.moved = moved_queues(before.get((r.group, r.topic)), r)
    return results


@dataclass
class HandWritten:
    """The hand-written part of a run: its batch and rebalances, the kernel's rows, the tally and the results
    (kept for `--out`)."""

    rebalances: object  # planner.rebalances.FleetRebalances
    rows: Rows
    tally: Tally
    sim: object  # Simulation


def hand_written_simulation(fleet, fr, rows: Rows, counted: Tally):
    """The Simulation of a hand-written fleet's batch: every result, the totals and problem counts."""
    from planner.model import Simulation
    from planner.rebalances import BASELINE
    from planner.tally import problem_counts, totals

    def describe(r: int) -> Described:
        rb = fr.rebalances[r]
        return Described(rb.scenario, rb.group.name, rb.topic, rb.queues, rb.processes)

    results = with_moves(results_of(fr.batch, rows, counted, range(fr.batch.rebalances), describe), BASELINE)
    whole = {**totals(fr.batch, counted, np.flatnonzero(fr.batch.scenario == 0)), "groups": len(fleet.groups)}
    return Simulation(fleet, results, fr.scenarios, totals=whole,
                      problem_counts=problem_counts(counted, np.arange(fr.batch.rebalances)))

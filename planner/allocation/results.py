"""Rebalances as the report shows them: a `GroupTopicResult` per rebalance, from the kernel's rows and the tally.

Both engines build the rebalances a report lists with this, so their results are the same objects: each
subscribing process's share in its strategy's list order, the failed processes and their errors, the orphaned
and duplicated queues and the idle processes as the tally counted them, and in a scenario the queues whose owners
(instance labels) differ from the baseline's, and in each step of a scenario from the state before
(`rmqplan.model.scenarios`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, Rows
from rmqplan.model.fleet import BROADCASTING, CLUSTERING
from rmqplan.model.simulation import GroupTopicResult
from rmqplan.model.scenarios import moved_queues
from rmqplan.allocation.tally import Tally


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
            res.assignment[p.instance] = shares.get(e, [])  # a failed one: what it kept (`failures`)
            if e in rows.errors:
                res.errored[p.instance] = rows.errors[e]
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


@dataclass
class HandWritten:
    """The hand-written part of a run: its batch and rebalances, the kernel's rows, the tally and the results
    (kept for `--out`)."""

    rebalances: object  # rmqplan.allocation.rebalances.FleetRebalances
    rows: Rows
    tally: Tally
    sim: object  # Simulation


def hand_written_simulation(fleet, fr, rows: Rows, counted: Tally):
    """The Simulation of a hand-written fleet's batch: the baseline's results, each scenario's last state against
    the baseline (`moved`), its steps against the states before them (`moved`, `moves`), the totals and problem
    counts (of the baseline and each scenario's last state, the results a report lists)."""
    from rmqplan.model.simulation import Simulation
    from rmqplan.allocation.rebalances import BASELINE
    from rmqplan.allocation.tally import problem_counts, totals

    def describe(r: int) -> Described:
        rb = fr.rebalances[r]
        return Described(rb.scenario, rb.group.name, rb.topic, rb.queues, rb.processes)

    every = results_of(fr.batch, rows, counted, range(fr.batch.rebalances), describe)
    listed, steps, last = scenario_results(fr, every)
    whole = {**totals(fr.batch, counted, np.flatnonzero(fr.batch.scenario == 0)), "groups": len(fleet.groups)}
    from rmqplan.model.scenarios import step_counts

    views = {seq.scenario.name: seq.steps[-1].view for seq in fr.sequences if seq.steps}
    base = [r for r in listed if r.scenario == BASELINE]
    counts = {name: step_counts(s, base) for name, s in steps.items()}
    moved = {name: sum(len(r.moved) for r in listed if r.scenario == name) for name in steps}
    return Simulation(fleet, listed, fr.scenarios, totals=whole,
                      problem_counts=problem_counts(counted, np.asarray(last, dtype=np.int64)),
                      steps=steps, views=views, step_counts=counts, moved_counts=moved)


def scenario_results(fr, every: list[GroupTopicResult]) -> tuple[list, dict, list]:
    """From the results of every rebalance of `fr` (in batch order): the results a report lists (the baseline's,
    then per scenario each touched group's last state, `moved` against the baseline), the steps per scenario
    (`moved` and `moves` against each group's state before), and the batch rebalances the listed results are."""
    from rmqplan.model.simulation import StepResult
    from rmqplan.model.scenarios import moves

    by_state: dict[int, list[int]] = {}
    for r, rb in enumerate(fr.rebalances):
        by_state.setdefault(rb.state, []).append(r)
    group_order: dict[str, int] = {}
    for rb in fr.rebalances:
        group_order.setdefault(rb.group.name, len(group_order))
    baseline_rs = by_state.get(0, [])
    base = {(every[r].group, every[r].topic): every[r] for r in baseline_rs}
    listed = [every[r] for r in baseline_rs]
    last_rs = list(baseline_rs)
    steps: dict[str, list] = {}
    state = 1
    for seq in fr.sequences:
        name = seq.scenario.name
        latest: dict[str, list[int]] = {}  # group -> the rebalances of its latest state in this scenario
        steps[name] = []
        for step in seq.steps:
            results = []
            mine = by_state.get(state, [])
            for r in mine:
                res = copy.copy(every[r])
                if res.group in latest:
                    before = next((every[b] for b in latest[res.group] if every[b].topic == res.topic), None)
                else:
                    before = base.get((res.group, res.topic))
                res.moves = moves(before, res)
                res.moved = [m.queue for m in res.moves]
                results.append(res)
            stepped: dict[str, list[int]] = {}  # one pass: a step of a scenario over every group is 10,000s
            for r in mine:
                stepped.setdefault(every[r].group, []).append(r)
            latest.update(stepped)
            steps[name].append(StepResult(name, step.index, step.name, results))
            state += 1
        for group in sorted(latest, key=lambda g: group_order[g]):
            for r in latest[group]:
                res = every[r]
                res.moved = moved_queues(base.get((res.group, res.topic)), res)
                listed.append(res)
                last_rs.append(r)
    return listed, steps, last_rs


def per_rebalance_results(sim) -> list:
    """One result per batch rebalance of a hand-written simulation, in batch order: the baseline's, then every
    step's (against each group's state before)."""
    out = [r for r in sim.results if r.scenario == sim.scenarios[0]]
    for name in sim.scenarios[1:]:
        for step in sim.steps.get(name, []):
            out.extend(step.results)
    return out

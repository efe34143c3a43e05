"""A failed rebalance changes nothing: the process keeps what it held.

`RebalanceImpl.rebalanceByTopic` calls the strategy inside a try; when it throws, the client logs the exception and
returns before `updateProcessQueueTableInRebalance`, so the process queue table stays as it was. At the baseline a
process has just started and holds nothing, which is what the kernel's rows say; in a scenario's step, a process
that ran in the state before keeps the queues it held there (of this topic; queues that left the route too: its
table still has them), unless it (re)started in this step. `keep_on_failure` adds those queues to the rows of the
failed processes, state by state in order (a process that keeps failing keeps what it kept). The failure itself
stays in `Rows.errors` (PLAN005).

Generated groups draw strategies that cannot throw on the ids they are given (never empty); they fail only on a
topic without a readable queue (every generated broker out of the routes), which
`rmqplan.generated.states.keep_on_failure` handles the same way over the state arrays.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from rmqplan.allocation.batch import Batch, Rows
from rmqplan.allocation.rebalances import FleetRebalances
from rmqplan.model.fleet import Queue


def _started(fr: FleetRebalances) -> dict[int, dict[str, frozenset[str]]]:
    """state id -> group -> the labels of the processes that (re)start in that step."""
    out: dict[int, dict[str, frozenset[str]]] = {}
    state = 1
    for seq in fr.sequences:
        for step in seq.steps:
            out[state] = {gs.group.name: gs.started for gs in step.groups}
            state += 1
    return out


def _shares(batch: Batch, rows: Rows) -> dict[int, list[tuple[int, Queue]]]:
    """entry -> its share as (list position, queue), every row and extra row."""
    out: dict[int, list[tuple[int, Queue]]] = {}
    pos = rows.pos if rows.pos is not None else rows.queue
    r_of = batch.entry_rebalance()
    for e, q, p in zip(rows.entry.tolist(), rows.queue.tolist(), pos.tolist()):
        out.setdefault(e, []).append((p, batch.queue(int(r_of[e]), q)))
    for e, q, p in rows.extra:
        out.setdefault(e, []).append((p, q))
    return out


def keep_on_failure(batch: Batch, rows: Rows, parts: Sequence[FleetRebalances]) -> Optional[Rows]:
    """The rows with each failed process's kept queues added, or None when no process keeps anything. `parts`:
    the FleetRebalances whose rebalances make up the batch, in batch order (each numbers its own states)."""
    if not rows.errors:
        return None
    shares = _shares(batch, rows)
    added_entry, added_queue, added_pos, extra = [], [], [], []
    start = 0
    for fr in parts:
        started = _started(fr)
        base: dict[tuple[str, str], dict[str, list[Queue]]] = {}  # (group, topic) -> label -> queues
        latest: dict[tuple[str, str], dict[str, dict[str, list[Queue]]]] = {}  # (scenario, group) -> topic -> ...
        seen_state: dict[tuple[str, str], int] = {}
        for i, rb in enumerate(fr.rebalances):
            r = start + i
            lo, hi = int(batch.c_off[r]), int(batch.c_off[r + 1])
            key = (rb.scenario, rb.group.name)
            if rb.state and seen_state.get(key) != rb.state:  # the first rebalance of the group in this state
                previous = latest.get(key)
            if rb.state == 0:
                before = None
            elif previous is not None:
                before = previous.get(rb.topic, {})
            else:
                before = base.get((rb.group.name, rb.topic), {})
            new = started.get(rb.state, {}).get(rb.group.name, frozenset())
            held: dict[str, list[Queue]] = {}
            index = None
            for e, p in zip(range(lo, hi), rb.processes):
                if not batch.c_asks[e]:
                    continue
                share = [q for _, q in sorted(shares.get(e, []), key=lambda item: item[0])]
                if e in rows.errors and before is not None and p.instance not in new and before.get(p.instance):
                    share = before[p.instance]
                    if index is None:
                        q_lo = int(batch.q_off[r])
                        index = {q: q_lo + k for k, q in enumerate(rb.queues)}
                    for k, q in enumerate(share):
                        if q in index:
                            added_entry.append(e)
                            added_queue.append(index[q])
                            added_pos.append(k)
                        else:
                            extra.append((e, q, k))
                held[p.instance] = share
            if rb.state == 0:
                base[(rb.group.name, rb.topic)] = held
            else:
                if seen_state.get(key) != rb.state:
                    latest[key] = {}
                    seen_state[key] = rb.state
                latest[key][rb.topic] = held
        start += len(fr.rebalances)
    if not added_entry and not extra:
        return None
    pos = rows.pos if rows.pos is not None else rows.queue
    return Rows(np.concatenate([rows.entry, np.asarray(added_entry, dtype=np.int64)]),
                np.concatenate([rows.queue, np.asarray(added_queue, dtype=np.int64)]),
                np.concatenate([pos, np.asarray(added_pos, dtype=np.int64)]),
                list(rows.extra) + extra, dict(rows.errors))


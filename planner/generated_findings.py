"""The findings of a generated chunk's problem rebalances, one JSON line each, in rebalance order.

A million generated groups have some 40,000 problem rebalances. Turning each into a `GroupTopicResult` (every
process and queue as an object) to run `planner.findings.find` on it costs about 6 s; here the two shapes that
make almost all of them are written from the chunk's arrays with the same message templates
(`planner.findings`):

- a colliding group (every process reports one client id, `planner.generate`): its orphaned queues (PLAN001) and
  duplicated queues (PLAN002), because all its processes compute the same share;
- a group with more processes than readable queues: its idle processes (PLAN003), a queue is never split.

Any other problem rebalance (a strategy that leaves queues to nobody by design, an imbalance, a failure, a shape
not listed) goes through `find` on its result, as every rebalance did before. A test compares both ways on
generated fleets of every generatable strategy.
"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np

from planner.batch import CLUSTERING_CODE, Batch, Rows, segment_sums
from planner.tally import Tally


@lru_cache(maxsize=1)
def _no_topics():
    from planner.model import Fleet

    return Fleet("<generated>", (), (), (), (), None)  # topic findings (PLAN004) are the fleet's, not a chunk's


def generated_finding_lines(spec, batch: Batch, rows: Rows, t: Tally, find, describe) -> list[str]:
    """Every finding of the chunk's problem rebalances: `find` (`planner.findings.find`) on the results that
    `describe` (a `planner.chunks.GeneratedDescriber`) names, except for the shapes above, written directly
    when `find` is `planner.findings.find`."""
    from planner import findings
    from planner.model import Simulation
    from planner.results import results_of

    which = np.flatnonzero(t.problem())
    if not len(which):
        return []
    fast = _fast_shapes(batch, rows, t, which) if find is findings.find else np.zeros(len(which), dtype=bool)
    lines: dict[int, list[str]] = {}
    slow = which[~fast]
    if len(slow):
        for r, result in zip(slow.tolist(), results_of(batch, rows, t, slow, describe)):
            lines[r] = [json.dumps(f.to_json()) for f in find(Simulation(_no_topics(), [result]))]
    if fast.any():
        lines.update(_written(batch, t, which[fast]))
    return [line for r in which.tolist() for line in lines[r]]


def _fast_shapes(batch: Batch, rows: Rows, t: Tally, which: np.ndarray) -> np.ndarray:
    """Per problem rebalance: it has one of the two shapes, with nothing else to say."""
    from planner.strategies import strategy_of

    if rows.extra or batch.rebalances == 0 or batch.entries == 0:
        return np.zeros(len(which), dtype=bool)
    names = batch.names
    first = batch.c_off[which]
    n = batch.c_off[which + 1] - first
    k = np.asarray(names.process_group)[np.asarray(names.entry_process)[np.minimum(first, batch.entries - 1)]]
    colliding = np.asarray(names.colliding)[k]
    by_design = np.array([bool(strategy_of(s).unassigned_reason(s)) for s in batch.specs], dtype=bool)
    everyone_asks = segment_sums(~batch.c_asks, batch.c_off)[which] == 0
    plain = ((batch.model[which] == CLUSTERING_CODE) & everyone_asks & (n > 0)
             & ~by_design[batch.c_spec[np.minimum(first, batch.entries - 1)]]
             & (t.errored[which] == 0) & (t.imbalanced[which] == 0))
    q = t.queues[which]
    shared = colliding & (n >= 2) & (t.idle[which] == 0)
    too_few = (~colliding & ~batch.retry[which] & (t.idle[which] > 0) & (t.orphaned[which] == 0)
               & (t.duplicated[which] == 0) & (q > 0) & (q < n))
    return plain & (shared | too_few)


def _written(batch: Batch, t: Tally, which: np.ndarray) -> dict[int, list[str]]:
    from planner.findings import SEVERITY, PlanFinding, duplicated_message, idle_message, orphaned_message, \
        shared_id_text, too_few_queues_text
    from planner.generate import MODULUS, PROCESS_STEP, colliding_id_source, group_name
    from planner.model import Queue

    names = batch.names
    groups = np.asarray(names.groups)
    idle_entry = t.idle_entry(batch)
    source = colliding_id_source()
    out: dict[int, list[str]] = {}

    def line(code, group, topic, message, queues=None) -> str:
        return json.dumps(PlanFinding(code, SEVERITY[code], "baseline", group, topic, message, queues).to_json())

    for r in which.tolist():
        lo, hi = int(batch.c_off[r]), int(batch.c_off[r + 1])
        k = int(names.process_group[names.entry_process[lo]])
        group, topic = group_name(int(groups[k])), names.topic(r)
        q_lo, q_hi = int(batch.q_off[r]), int(batch.q_off[r + 1])
        lines = []
        if names.colliding[k]:
            host = f"10.{int(names.shared_host[k])}.0.1"
            because = shared_id_text([f"{host}#{i + 1}" for i in range(hi - lo)], f"{host}@1", source)
            holders = t.holders[q_lo:q_hi]
            for code, picked, message in (("PLAN001", holders == 0, orphaned_message),
                                          ("PLAN002", holders > 1, duplicated_message)):
                at = np.flatnonzero(picked) + q_lo
                if not len(at):
                    continue
                queues = [Queue(topic, batch.brokers[b], qid)
                          for b, qid in zip(batch.q_broker[at].tolist(), batch.q_id[at].tolist())]
                lines.append(line(code, group, topic, message(group, topic, queues, q_hi - q_lo, because), queues))
        else:
            i = np.flatnonzero(idle_entry[lo:hi])
            a = (int(names.a0[k]) + i * PROCESS_STEP) % MODULUS
            idle = [f"10.{x}.{y}.{z}#1" for x, y, z in zip((a % 256).tolist(), (i // 256).tolist(),
                                                           (i % 256).tolist())]
            because = too_few_queues_text(topic, q_hi - q_lo, hi - lo)
            lines.append(line("PLAN003", group, topic, idle_message(group, topic, idle, hi - lo, because)))
        out[r] = lines
    return out

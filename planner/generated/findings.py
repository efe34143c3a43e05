"""The findings of a generated chunk's problem rebalances, one JSON line each, in rebalance order.

A million generated groups have some 40,000 problem rebalances. Turning each into a `GroupTopicResult` (every
process and queue as an object) to run `rmqplan.report.findings.find_by_result` on it costs about 6 s, and even a
loop that words them from the chunk's arrays 1.3 s; here the two shapes that make almost all of them are worded for every
rebalance at once from the chunk's arrays by Arrow's string kernels (0.3 s), in the words of `rmqplan.report.findings`:

- a colliding group (every process reports one client id, `rmqplan.generated.generate`): its orphaned queues (PLAN001) and
  duplicated queues (PLAN002), because all its processes compute the same share;
- a group with more processes than readable queues: its idle processes (PLAN003), a queue is never split.

Any other problem rebalance (a strategy that leaves queues to nobody by design, an imbalance, a failure, a shape
not listed) goes through `find` on its result, as every rebalance did before. A test compares both ways, line for
line, on generated fleets of every generatable strategy and shape: a change of wording in `rmqplan.report.findings` that is
not made here too fails it. Only `--out` writes every finding, so pyarrow is there whenever this runs.
"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, Rows, concat_ranges, segment_sums
from rmqplan.allocation.tally import Tally


@lru_cache(maxsize=1)
def _no_topics():
    from rmqplan.model.fleet import Fleet

    return Fleet("<generated>", (), (), (), (), None)  # topic findings (PLAN004) are the fleet's, not a chunk's


def generated_finding_lines(spec, batch: Batch, rows: Rows, t: Tally, find, describe) -> list[str]:
    """Every finding of the chunk's problem rebalances, in rebalance order: `find`
    (`rmqplan.report.findings.find_by_result`) on the results that `describe` (a
    `rmqplan.engines.chunks.GeneratedDescriber`) names, except for the shapes above, written directly when `find` is
    `rmqplan.report.findings.find_by_result`."""
    from rmqplan.report import findings
    from rmqplan.model.simulation import Simulation
    from rmqplan.allocation.results import results_of

    which = np.flatnonzero(t.problem())
    if not len(which):
        return []
    fast = (_fast_shapes(batch, rows, t, which) if find is findings.find_by_result
            else np.zeros(len(which), dtype=bool))
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
    from rmqplan.allocation.strategies import strategy_of

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
    """The lines of the problem rebalances `which` (all of one of the two shapes), built for all of them at once
    with Arrow's string kernels, exactly as `rmqplan.report.findings` words them and `json.dumps` writes them: generated
    names and the texts around them hold nothing JSON escapes, and the fixed texts are escaped once."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rmqplan.report.findings import MAX_LISTED, SEVERITY
    from rmqplan.generated.generate import MODULUS, PROCESS_STEP, colliding_id_source
    from rmqplan.generated.text import generated_group_names, generated_labels, join, number_text, shared_hosts

    names = batch.names
    k = np.asarray(names.process_group)[np.asarray(names.entry_process)[batch.c_off[which]]]
    colliding = np.asarray(names.colliding)[k]
    group_of, topic_of = generated_group_names(np.asarray(names.groups)[k])
    retry = batch.retry[which]
    group = pc.take(group_of, pa.array(2 * np.arange(len(which)) + retry))  # a group's name is on both its rows
    topic = pc.take(topic_of, pa.array(2 * np.arange(len(which)) + retry))
    n = batch.c_off[which + 1] - batch.c_off[which]
    q = batch.q_off[which + 1] - batch.q_off[which]
    lines: dict[int, list[str]] = {int(r): [] for r in which}

    def head(code, rows):
        return join(pa.scalar(f'{{"code": "{code}", "severity": "{SEVERITY[code]}", "scenario": "baseline", '
                              '"group": "'), pc.take(group, rows), pa.scalar('", "topic": "'), pc.take(topic, rows),
                    pa.scalar('", "message": "'))

    def listed(texts, owner, rows):
        """Per row: the first MAX_LISTED of its texts, then " and N more" (`rmqplan.report.findings._names`)."""
        count = np.bincount(owner, minlength=len(rows))
        first = np.flatnonzero(np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count) < MAX_LISTED)
        shown = np.minimum(count, MAX_LISTED)
        text = pc.binary_join(pa.ListArray.from_arrays(pa.array(np.concatenate(([0], np.cumsum(shown))).astype(
            np.int32)), pc.take(texts, pa.array(first))), ", ")
        more = count - shown
        return join(text, pc.if_else(pa.array(more > 0), join(pa.scalar(" and "), number_text(more),
                                                               pa.scalar(" more")), pa.scalar("")))

    def plural(values, word, many=None):
        """"1 queue", "2 queues" (`rmqplan.model.words.count`), per row."""
        return join(number_text(values), pa.scalar(" "), noun(values, word, many))

    def noun(values, word, many=None):
        return pc.if_else(pa.array(values == 1), pa.scalar(word), pa.scalar(many or word + "s"))

    # more processes than queues: PLAN003 names the idle processes
    idle_rows = np.flatnonzero(~colliding)
    if len(idle_rows):
        idle_entry = t.idle_entry(batch)
        entries, owner = concat_ranges(batch.c_off[which[idle_rows]], n[idle_rows])
        picked = idle_entry[entries]
        entries, owner = entries[picked], owner[picked]
        i = entries - batch.c_off[which[idle_rows]][owner]
        a = (np.asarray(names.a0)[k[idle_rows]][owner] + i * PROCESS_STEP) % MODULUS
        rows = pa.array(idle_rows)
        t_idle = pc.take(topic, rows)
        count = np.bincount(owner, minlength=len(idle_rows))
        text = join(head("PLAN003", rows), number_text(count), pa.scalar(" of "),
                    plural(n[idle_rows], "process", "processes"), pa.scalar(" of group "), pc.take(group, rows),
                    pa.scalar(" "), noun(count, "holds", "hold"), pa.scalar(" no queue of "), t_idle,
                    pa.scalar(" ("), listed(generated_labels(a, i), owner, idle_rows), pa.scalar("): "), t_idle,
                    pa.scalar(" has "), plural(q[idle_rows], "readable queue"), pa.scalar(" for "),
                    plural(n[idle_rows], "distinct client id"), pa.scalar(' (a queue is never split)"}'))
        for r, line in zip(which[idle_rows].tolist(), text.to_pylist()):
            lines[r].append(line)
    # a colliding group: every process computes the same share, so PLAN001 and PLAN002 name the same reason
    shared_rows = np.flatnonzero(colliding)
    if len(shared_rows):
        rows = pa.array(shared_rows)
        host = pc.take(shared_hosts(), pa.array(np.asarray(names.shared_host)[k[shared_rows]]))
        count = n[shared_rows]
        members, owner = concat_ranges(np.ones(len(shared_rows), dtype=np.int64), count)
        source = json.dumps(colliding_id_source())[1:-1]
        because = join(listed(join(pc.take(host, pa.array(owner)), pa.scalar("#"), number_text(members)), owner,
                              shared_rows),
                       pa.scalar(" all report client id "), host, pa.scalar(f"@1 ({source}), so each computes the "
                                                                             "same share; their messages "))
        what = pc.if_else(pa.array(retry[shared_rows]), noun(q[shared_rows], "retry queue"),
                          noun(q[shared_rows], "queue"))
        queues, q_owner = concat_ranges(batch.q_off[which[shared_rows]], q[shared_rows])
        holders = t.holders[queues]
        brokers = pa.array(list(batch.brokers), type=pa.string())
        parts = []
        for code, picked, verb, outcome in (
                ("PLAN001", holders == 0, " consumed by no process of group ", "pile up unread"),
                ("PLAN002", holders > 1, " held by two or more processes of group ", "are consumed twice")):
            at, own = queues[picked], q_owner[picked]
            held = np.bincount(own, minlength=len(shared_rows))
            some = np.flatnonzero(held > 0)
            if not len(some):
                continue
            own = np.searchsorted(some, own)  # row of `some`
            broker, qid = batch.q_broker[at], number_text(batch.q_id[at])
            # a generated rebalance's queues come broker by broker (generated_batch): a broker's are one run
            run = np.flatnonzero(np.concatenate(([True], (own[1:] != own[:-1]) | (broker[1:] != broker[:-1]))))
            run_ids = pc.binary_join(pa.ListArray.from_arrays(pa.array(np.append(run, len(at)).astype(np.int32)),
                                                              qid), ", ")
            per_broker = join(pc.take(brokers, pa.array(broker[run])), pa.scalar(": "), run_ids)
            run_starts = np.searchsorted(own[run], np.arange(len(some) + 1)).astype(np.int32)
            formatted = pc.binary_join(pa.ListArray.from_arrays(pa.array(run_starts), per_broker), "; ")
            topic_at = pc.take(pc.take(topic, pa.array(shared_rows[some])), pa.array(own))
            entry = join(pa.scalar('["'), topic_at, pa.scalar('", "'), pc.take(brokers, pa.array(broker)),
                         pa.scalar('", '), qid, pa.scalar("]"))
            starts = np.searchsorted(own, np.arange(len(some) + 1)).astype(np.int32)
            listed_queues = pc.binary_join(pa.ListArray.from_arrays(pa.array(starts), entry), ", ")
            sel = pa.array(shared_rows[some])
            s = pa.array(some)
            parts.append((some, join(head(code, sel), number_text(held[some]), pa.scalar(" of "),
                                     number_text(q[shared_rows][some]), pa.scalar(" "), pc.take(what, s),
                                     pa.scalar(" of "), pc.take(topic, sel), pa.scalar(" "),
                                     noun(held[some], "is", "are"), pa.scalar(verb), pc.take(group, sel),
                                     pa.scalar(" ("), formatted, pa.scalar("): "), pc.take(because, s),
                                     pa.scalar(f'{outcome}", "queues": ['), listed_queues, pa.scalar("]}"))))
        for some, text in parts:  # PLAN001 before PLAN002 within a rebalance
            for r, line in zip(which[shared_rows[some]].tolist(), text.to_pylist()):
                lines[r].append(line)
    return lines

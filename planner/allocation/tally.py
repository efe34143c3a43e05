"""The one count of problems every engine makes, over a whole batch at once (`rmqplan.allocation.batch`, `rmqplan.allocation.kernel`).

Per rebalance (a group's topic in one scenario), from who holds what:
- orphaned: readable queues no process holds (clustering only; broadcasting processes each read everything);
- duplicated: readable queues two or more processes hold (clustering only);
- idle: subscribing processes that hold nothing. Not counted for retry topics, which have one queue per broker
  and would call most processes idle, nor for processes whose strategy throws on a topic without a readable
  queue (errored says it);
- errored: subscribing processes whose strategy throws (they keep what they held, `rmqplan.allocation.failures`);
- imbalanced: clustering subscribers, not on a retry topic, that hold at least 2 queues and at least twice the
  fair share (readable queues / subscribers), when 2 or more subscribe.
Queues a process holds outside the topic's readable queues (a CONFIG list naming another topic's queue) count in
its share and its `assignments`, but are neither orphaned nor duplicated here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, Rows, extra_entries, segment_counts, segment_sums

# What a rebalance may suffer from, as `Tally` counts it: the findings map each to a code.
PROBLEMS = ("orphaned", "duplicated", "idle", "errored", "imbalanced")


@dataclass
class Tally:
    holders: np.ndarray  # per queue: processes holding it
    held: np.ndarray  # per entry: queues in its share (queues of other topics included)
    errored_entry: np.ndarray  # bool per entry
    # per rebalance
    queues: np.ndarray
    processes: np.ndarray
    subscribers: np.ndarray
    assignments: np.ndarray
    orphaned: np.ndarray
    duplicated: np.ndarray
    idle: np.ndarray
    errored: np.ndarray
    imbalanced: np.ndarray

    def problem(self) -> np.ndarray:
        """Per rebalance: it has at least one of PROBLEMS."""
        return (self.orphaned > 0) | (self.duplicated > 0) | (self.idle > 0) | (self.errored > 0) \
            | (self.imbalanced > 0)

    def idle_entry(self, batch: Batch) -> np.ndarray:
        """Per entry: a subscribing process holding nothing, outside retry topics (and not failing on no queue)."""
        r = batch.entry_rebalance()
        return batch.c_asks & (self.held == 0) & ~batch.retry[r] & ~(self.errored_entry & (self.queues[r] == 0))

    def imbalanced_entry(self, batch: Batch) -> np.ndarray:
        r = batch.entry_rebalance()
        m, subs = self.queues[r], self.subscribers[r]
        fair_case = (batch.model[r] == CLUSTERING_CODE) & ~batch.retry[r] & (m > 0) & (subs >= 2)
        return batch.c_asks & fair_case & (self.held >= 2) & (self.held * subs >= 2 * m)


def tally(batch: Batch, rows: Rows) -> Tally:
    """Count every rebalance's problems from its rows (each count as `idle_entry` and `imbalanced_entry` say,
    summed per rebalance without building the per-entry arrays: problems are few, so they are counted where
    they are)."""
    holders = np.bincount(rows.queue, minlength=batch.queue_count)
    held = np.bincount(rows.entry, minlength=batch.entries)
    if rows.extra:
        np.add.at(held, extra_entries(rows.extra), 1)
    errored_entry = np.zeros(batch.entries, dtype=bool)
    if rows.errors:
        errored_entry[np.fromiter(rows.errors, dtype=np.int64, count=len(rows.errors))] = True
    c_off, q_off = batch.c_off, batch.q_off
    entry_r = batch.entry_rebalance()
    queues, processes = batch.queue_counts(), batch.entry_counts()
    clustering = batch.model == CLUSTERING_CODE
    every_asks = bool(batch.c_asks.all())
    subscribers = processes.copy() if every_asks else segment_counts(batch.c_asks, c_off, entry_r)
    empty = held == 0
    if rows.errors:  # failing on a topic without a readable queue: errored, not idle
        empty &= ~(errored_entry & (queues == 0)[entry_r])
    if not every_asks:
        empty &= batch.c_asks
    idle = segment_counts(empty, c_off, entry_r)
    idle[batch.retry] = 0
    # imbalanced: held >= 2 and held * subscribers >= 2 * queues, i.e. held >= max(2, ceil(2 * queues / subs))
    fair_case = clustering & ~batch.retry & (queues > 0) & (subscribers >= 2)
    least = np.maximum(2, (2 * queues + subscribers - 1) // np.maximum(subscribers, 1))
    if fair_case.any():
        least[~fair_case] = np.iinfo(np.int64).max
        over = held >= np.repeat(least, processes)
        if not every_asks:
            over &= batch.c_asks
        imbalanced = segment_counts(over, c_off, entry_r)
    else:
        imbalanced = np.zeros(batch.rebalances, dtype=np.int64)
    orphaned = segment_counts(holders == 0, q_off)
    duplicated = segment_counts(holders > 1, q_off)
    orphaned[~clustering] = 0
    duplicated[~clustering] = 0
    return Tally(
        holders=holders, held=held, errored_entry=errored_entry, queues=queues, processes=processes,
        subscribers=subscribers, assignments=segment_sums(held, c_off), orphaned=orphaned, duplicated=duplicated,
        idle=idle, errored=segment_counts(errored_entry, c_off, entry_r) if rows.errors
        else np.zeros(batch.rebalances, dtype=np.int64), imbalanced=imbalanced)


def totals(batch: Batch, t: Tally, rebalances: np.ndarray) -> dict:
    """The summary totals over the given (baseline) rebalances: processes counted once per group."""
    first_of_group = np.ones(len(rebalances), dtype=bool)
    groups = batch.group[rebalances]
    first_of_group[1:] = groups[1:] != groups[:-1]  # a group's rebalances are adjacent
    return {
        "groups": int(len(np.unique(groups))),
        "instances": int(t.processes[rebalances][first_of_group].sum()),
        "queues": int(t.queues[rebalances].sum()),
        "assignments": int(t.assignments[rebalances].sum()),
        "orphaned_queues": int(t.orphaned[rebalances].sum()),
        "duplicated_queues": int(t.duplicated[rebalances].sum()),
        "idle_instances": int(t.idle[rebalances].sum()),
    }


def problem_counts(t: Tally, rebalances: np.ndarray) -> dict:
    """How many of the given rebalances have each of PROBLEMS."""
    return {name: int((getattr(t, name)[rebalances] > 0).sum()) for name in PROBLEMS}


def problem_weights(group_of: np.ndarray, t: Tally, rebalances: np.ndarray) -> np.ndarray:
    """Per group with a problem among `rebalances` (`group_of`: each rebalance's group): [group, error, lost,
    processes] as int64 rows, `rmqplan.report.ranking`'s weight: an orphaned or duplicated queue or a failing
    strategy is an error, idle or imbalanced processes a warning; lost is its orphaned + duplicated queues,
    processes its idle + failed ones."""
    g = group_of[rebalances]
    groups, at = np.unique(g, return_inverse=True)
    error = (t.orphaned[rebalances] > 0) | (t.duplicated[rebalances] > 0) | (t.errored[rebalances] > 0)
    lost = t.orphaned[rebalances] + t.duplicated[rebalances]
    processes = t.idle[rebalances] + t.errored[rebalances]
    return np.stack([groups, np.bincount(at, weights=error, minlength=len(groups)) > 0,
                     np.bincount(at, weights=lost, minlength=len(groups)),
                     np.bincount(at, weights=processes, minlength=len(groups))], axis=1).astype(np.int64)


def worst(weights: np.ndarray, limit: int) -> np.ndarray:
    """The `limit` worst groups of [group, error, lost, processes] rows (a group given in several rows weighs its
    worst one): errors first, then the most lost, then the most processes, then the lowest group id."""
    weights = np.asarray(weights, dtype=np.int64).reshape(-1, 4)
    order = np.lexsort((weights[:, 0], -weights[:, 3], -weights[:, 2], -weights[:, 1]))
    ranked = weights[order]
    _, first = np.unique(ranked[:, 0], return_index=True)  # each group's worst row
    return ranked[np.sort(first)][:limit]

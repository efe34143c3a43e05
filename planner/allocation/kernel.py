"""The allocation kernel: every rebalance of a `rmqplan.allocation.batch.Batch` at once, the same code in every engine.

For each rebalance (see `rmqplan.allocation.batch`):
- no readable queue: nothing is rebalanced (the client would throw on an empty mqAll; nothing can be held);
- BROADCASTING: every subscribing process takes every readable queue;
- CLUSTERING: each subscribing process runs ITS OWN strategy (a per-instance override is a rollout caught
  half-way) with its own client id; a subscribing process whose client id is "" fails `check()` first (unless its
  strategy skips the check). The subscribing processes are grouped into calls (one per rebalance and strategy
  spec) and each registered strategy's vectorised form (`Strategy.kernel`) answers all its calls at once.

The result is `Rows`: who holds which queue, the errors of the processes whose strategy throws. The strategies'
transcriptions (`rmqplan.allocation.strategies`) stay the reference the tests compare this with.
"""

from __future__ import annotations

import numpy as np

from rmqplan.allocation.batch import BROADCASTING_CODE, Batch, Calls, Rows, concat_ranges
from rmqplan.allocation.strategies import strategy_of
from rmqplan.allocation.strategies.base import IAE, StrategyError

EMPTY_ID_ERROR = str(StrategyError(IAE, "currentCID is empty"))


def allocate(batch: Batch) -> Rows:
    """Who holds what in every rebalance of the batch."""
    m = batch.queue_counts()
    entry_rebalance = batch.entry_rebalance()
    asks = batch.c_asks & (m[entry_rebalance] > 0)
    broadcasting = batch.model[entry_rebalance] == BROADCASTING_CODE
    parts = [_broadcast(batch, np.flatnonzero(asks & broadcasting), entry_rebalance)]
    clustering = asks & ~broadcasting
    parts += _clustering(batch, np.flatnonzero(clustering), entry_rebalance, m)
    return Rows.concat(parts)


def _broadcast(batch: Batch, entries: np.ndarray, entry_rebalance: np.ndarray) -> Rows:
    r = entry_rebalance[entries]
    queues, owner = concat_ranges(batch.q_off[r], batch.q_off[r + 1] - batch.q_off[r])
    return Rows(entries[owner], queues)


def _clustering(batch: Batch, entries: np.ndarray, entry_rebalance: np.ndarray, m: np.ndarray) -> list[Rows]:
    if not len(entries):
        return []
    spec = batch.c_spec[entries].astype(np.int64)
    checks = np.array([strategy_of(s).checks(s) for s in batch.specs], dtype=bool)
    errors = Rows.empty()
    if batch.c_empty_id is not None:
        failing = batch.c_empty_id[entries] & checks[spec]
        errors.errors = {int(e): EMPTY_ID_ERROR for e in entries[failing]}
        entries, spec = entries[~failing], spec[~failing]
    # one call per (rebalance, spec); entries come in rebalance order, so equal keys are usually adjacent
    key = entry_rebalance[entries] * len(batch.specs) + spec
    if len(key) < 2 or bool(np.all(key[1:] >= key[:-1])):
        starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1]))) if len(key) else np.zeros(0, int)
        call_key = key[starts]
        ask_call = np.cumsum(np.concatenate(([False], key[1:] != key[:-1]))) if len(key) else key
    else:
        call_key, ask_call = np.unique(key, return_inverse=True)
    call_rebalance = call_key // len(batch.specs)
    call_spec = (call_key % len(batch.specs)).astype(np.int32)
    strategy_names = np.array([s.name for s in batch.specs], dtype=object)
    parts = [errors]
    for name in dict.fromkeys(strategy_names[call_spec].tolist()):
        mine = np.flatnonzero(strategy_names[call_spec] == name)
        calls = _calls(batch, call_rebalance, call_spec, m, mine, ask_call, entries)
        parts.append(strategy_of(name).kernel(calls))
    return parts


def _calls(batch, call_rebalance, call_spec, m, mine, ask_call, entries) -> Calls:
    renumber = np.full(len(call_rebalance), -1, dtype=np.int64)
    renumber[mine] = np.arange(len(mine))
    a = renumber[ask_call] >= 0
    r = call_rebalance[mine]
    return Calls(batch, r, call_spec[mine], (batch.c_off[r + 1] - batch.c_off[r]), m[r], batch.q_off[r],
                 renumber[ask_call[a]], batch.c_index[entries[a]], entries[a])

"""The allocation kernel: every rebalance of a `rmqplan.allocation.batch.Batch` at once, the same code in every engine.

For each rebalance (see `rmqplan.allocation.batch`):
- BROADCASTING: every subscribing process takes every readable queue (none: it holds nothing, as the client
  updates its table with the empty set);
- CLUSTERING: each subscribing process runs ITS OWN strategy (a per-instance override is a rollout caught
  half-way) with its own client id; a subscribing process whose client id is "" fails `check()` first, and on a
  topic still routed but with no readable queue (the client's mqAll is an empty set, not null) it fails with
  "mqAll is null or mqAll empty" (unless its strategy skips the check: CONFIG still returns its list). A failed
  process keeps what it held (`rmqplan.allocation.failures`). The other subscribing processes are grouped into
  calls (one per rebalance and strategy spec) and each registered strategy's vectorised form (`Strategy.kernel`)
  answers all its calls at once: a process of a client with forms of its own (Go) runs its client's form.

The result is `Rows`: who holds which queue, the errors of the processes whose strategy throws. The strategies'
transcriptions (`rmqplan.allocation.strategies`) stay the reference the tests compare this with.
"""

from __future__ import annotations

from itertools import count
from operator import attrgetter

import numpy as np

from rmqplan.allocation.batch import BROADCASTING_CODE, CLUSTERING_CODE, Batch, Calls, Rows, concat_ranges
from rmqplan.allocation.strategies import strategy_for, strategy_of
from rmqplan.allocation.strategies.base import IAE, StrategyError

EMPTY_ID_ERROR = str(StrategyError(IAE, "currentCID is empty"))
NO_QUEUE_ERROR = str(StrategyError(IAE, "mqAll is null or mqAll empty"))


def allocate(batch: Batch) -> Rows:
    """Who holds what in every rebalance of the batch."""
    m = batch.queue_counts()
    entry_rebalance = batch.entry_rebalance()
    has_queues = m > 0
    clustering_r = batch.model == CLUSTERING_CODE  # with no readable queue too: `check()` throws
    parts = []
    broadcasting_r = has_queues & (batch.model == BROADCASTING_CODE)
    if broadcasting_r.any():
        parts.append(_broadcast(batch, np.flatnonzero(batch.c_asks & broadcasting_r[entry_rebalance]),
                                entry_rebalance))
    if clustering_r.all() and has_queues.all() and batch.c_asks.all():  # every entry runs its strategy
        entries = None
    else:
        entries = np.flatnonzero(batch.c_asks & clustering_r[entry_rebalance])
    parts += _clustering(batch, entries, entry_rebalance, m)
    return Rows.concat(parts)


def _broadcast(batch: Batch, entries: np.ndarray, entry_rebalance: np.ndarray) -> Rows:
    r = entry_rebalance[entries]
    queues, owner = concat_ranges(batch.q_off[r], batch.q_off[r + 1] - batch.q_off[r])
    return Rows(entries[owner], queues)


def _clustering(batch: Batch, entries, entry_rebalance: np.ndarray, m: np.ndarray) -> list[Rows]:
    """The asking entries (`entries`, ascending; None: every entry) grouped into calls, one per (rebalance,
    spec), and each strategy's calls answered at once."""
    parts = []
    # `check()` throws in its order: an empty client id first, then an empty mqAll (entries None: every
    # rebalance has queues)
    fails = []
    if batch.c_empty_id is not None:
        fails.append((EMPTY_ID_ERROR, lambda asking: batch.c_empty_id[asking]))
    if entries is not None:
        fails.append((NO_QUEUE_ERROR, lambda asking: m[entry_rebalance[asking]] == 0))
    for error, failing_of in fails:
        asking = np.arange(batch.entries) if entries is None else entries
        failing = failing_of(asking)
        if failing.any():  # the strategies that check (asked only of the failing specs: specs may be many)
            specs = np.unique(batch.c_spec[asking[failing]])
            checks = np.zeros(len(batch.specs), dtype=bool)
            checks[specs] = [strategy_of(batch.specs[s]).checks(batch.specs[s]) for s in specs.tolist()]
            failing &= checks[batch.c_spec[asking]]
        if failing.any():
            parts.append(Rows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                              errors={int(e): error for e in asking[failing]}))
            entries = asking[~failing]
    if entries is None:
        if not batch.entries:
            return parts
        calls = _whole_rebalances(batch, entry_rebalance, m)
        if calls is None:
            entries = np.arange(batch.entries)
    if entries is not None:
        if not len(entries):
            return parts
        calls = _grouped(batch, entries, entry_rebalance, m)
    call_rebalance, call_spec, ask_call, ask_entry = calls
    # the specs' strategies by C-level passes, no Python statement per spec: a batch may hold a spec per process
    # (CONFIG lists); a strategy is its name and the client whose form computes it (`StrategySpec.client`)
    spec_names = list(map(attrgetter("name", "client"), batch.specs))
    if len(set(spec_names)) <= 1:
        call_code, name_of, used = None, spec_names[:1], [0] if spec_names else []
    else:  # a code per name (its first spec), the strategies in the order of their first call
        codes: dict = {}
        spec_code = np.fromiter(map(codes.setdefault, spec_names, count()), dtype=np.int64, count=len(spec_names))
        name_of = {code: name for name, code in codes.items()}
        call_code = spec_code[call_spec]
        used, first = np.unique(call_code, return_index=True)
        used = used[np.argsort(first)].tolist()
    for code in used:
        mine = None if call_code is None else np.flatnonzero(call_code == code)
        parts.append(strategy_for(*name_of[code]).kernel(_calls(batch, call_rebalance, call_spec, m, mine, ask_call,
                                                               ask_entry)))
    return parts


def _whole_rebalances(batch: Batch, entry_rebalance: np.ndarray, m: np.ndarray):
    """When every entry asks and every rebalance has entries of one spec only: one call per rebalance, its
    entries the asks (call_rebalance, call_spec, ask_call, ask_entry); else None."""
    c_off = batch.c_off
    if not (c_off[1:] > c_off[:-1]).all():
        return None
    spec = batch.c_spec
    if len(batch.specs) > 1:
        change = spec[1:] != spec[:-1]
        change[c_off[1:-1] - 1] = False  # a new spec where a new rebalance starts is a new call anyway
        if change.any():
            return None
    return (np.arange(batch.rebalances, dtype=np.int64), spec[c_off[:-1]].astype(np.int32), entry_rebalance,
            None)


def _grouped(batch: Batch, entries: np.ndarray, entry_rebalance: np.ndarray, m: np.ndarray):
    """One call per (rebalance, spec) of the asking `entries`: (call_rebalance, call_spec, ask_call, ask_entry)."""
    spec = batch.c_spec[entries].astype(np.int64)
    # entries come in rebalance order, so equal keys are usually adjacent
    key = entry_rebalance[entries] * len(batch.specs) + spec
    if len(key) < 2 or bool(np.all(key[1:] >= key[:-1])):
        new = np.empty(len(key), dtype=bool)
        new[0] = True
        np.not_equal(key[1:], key[:-1], out=new[1:])
        call_key = key[new]
        ask_call = np.cumsum(new) - 1
    else:
        call_key, ask_call = np.unique(key, return_inverse=True)
    return call_key // len(batch.specs), (call_key % len(batch.specs)).astype(np.int32), ask_call, entries


def _calls(batch, call_rebalance, call_spec, m, mine, ask_call, ask_entry) -> Calls:
    """The Calls of one strategy: the calls `mine` (None: all) and their asks."""
    if mine is not None:
        renumber = np.full(len(call_rebalance), -1, dtype=np.int64)
        renumber[mine] = np.arange(len(mine))
        a = renumber[ask_call] >= 0
        ask_entry = np.flatnonzero(a) if ask_entry is None else ask_entry[a]
        ask_call = renumber[ask_call[a]]
        call_rebalance, call_spec = call_rebalance[mine], call_spec[mine]
    r = call_rebalance
    c_off = batch.c_off
    if ask_entry is None:  # every entry, in order
        ask_entry = np.arange(batch.entries, dtype=np.int64)
        ask_index = batch.c_index
    else:
        ask_index = batch.c_index[ask_entry]
    return Calls(batch, r, call_spec, c_off[r + 1] - c_off[r], m[r], batch.q_off[r], ask_call, ask_index,
                 ask_entry)

"""AVG: `AllocateMessageQueueAveragely`, contiguous blocks of the sorted queues in client id order.

With `index` = cidAll.indexOf(currentCID), n = |cidAll|, m = |mqAll| and mod = m % n: the first `mod` indices
take `m / n + 1` queues, the others `m / n` (at least 1 while m <= n), starting at `index * average` (plus `mod`
after the bigger blocks); a start past the end gives nothing.
"""

from __future__ import annotations

import numpy as np

from rmqplan.allocation.strategies.base import Strategy, first_index


def avg_ranges(index, n, m):
    """`avg_range` over arrays (or numbers): (start, count)."""
    mod = m % n
    bigger = (mod > 0) & (index < mod)
    average = np.where(m <= n, 1, np.where(bigger, m // n + 1, m // n))
    start = np.where(bigger, index * average, index * average + mod)
    return start, np.maximum(0, np.minimum(average, m - start))


def avg_range(index: int, n: int, m: int) -> tuple[int, int]:
    """(start, count) of the ranks taken by the process at `index`."""
    mod = m % n
    bigger = mod > 0 and index < mod
    if m <= n:
        average = 1
    elif bigger:
        average = m // n + 1
    else:
        average = m // n
    start = index * average if bigger else index * average + mod
    return start, max(0, min(average, m - start))


class Avg(Strategy):
    name = "AVG"
    java_class = "AllocateMessageQueueAveragely"
    generatable = True

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        index = cid_all.index(current)
        mod = len(mq_all) % len(cid_all)
        if len(mq_all) <= len(cid_all):
            average = 1
        elif mod > 0 and index < mod:
            average = len(mq_all) // len(cid_all) + 1
        else:
            average = len(mq_all) // len(cid_all)
        start = index * average if (mod > 0 and index < mod) else index * average + mod
        count = min(average, len(mq_all) - start)
        return [mq_all[start + i] for i in range(count)]

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        n, m = len(cid_all), len(mq_all)
        shares = {}
        for cid, index in first_index(cid_all).items():
            start, count = avg_range(index, n, m)
            shares[cid] = mq_all[start:start + count]
        return shares

    def kernel(self, calls):
        # `avg_range` without its branches: with q, mod = divmod(m, n) per call, the process at `index` takes
        # q + (index < mod) queues from index * q + min(index, mod) (a start past the end comes with count 0)
        q, mod = np.divmod(calls.m, calls.n)
        q, mod, index = q[calls.ask_call], mod[calls.ask_call], calls.ask_index
        start = index * q
        start += np.minimum(index, mod)
        count = q + (index < mod)
        return calls.ranges(start, count)

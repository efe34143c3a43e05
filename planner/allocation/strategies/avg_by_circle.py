"""AVG_BY_CIRCLE: `AllocateMessageQueueAveragelyByCircle`, the sorted queues dealt out one at a time: the
process at `index` takes ranks index, index + n, index + 2n, ... (n = |cidAll|)."""

from __future__ import annotations

import numpy as np

from rmqplan.allocation.strategies.base import Strategy, first_index


class AvgByCircle(Strategy):
    name = "AVG_BY_CIRCLE"
    java_class = "AllocateMessageQueueAveragelyByCircle"
    generatable = True

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        index = cid_all.index(current)
        return [mq_all[i] for i in range(index, len(mq_all)) if i % len(cid_all) == index]

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        n = len(cid_all)
        return {cid: mq_all[index::n] for cid, index in first_index(cid_all).items()}

    def kernel(self, calls):
        # ranks index, index + n, ... below m: with q, mod = divmod(m, n) per call, q + (index < mod) of them
        q, mod = np.divmod(calls.m, calls.n)
        count = q[calls.ask_call] + (calls.ask_index < mod[calls.ask_call])
        return calls.ranges(calls.ask_index, count, calls.n[calls.ask_call])

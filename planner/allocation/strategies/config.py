"""CONFIG: `AllocateMessageQueueByConfig`, a fixed list (`queues` in fleet.toml), returned as configured
whatever the input: no `check`, no sorting, queues of other topics included."""

from __future__ import annotations

from rmqplan.allocation.strategies.base import CONFIG_QUEUES, Strategy, first_index


class Config(Strategy):
    name = "CONFIG"
    java_class = "AllocateMessageQueueByConfig"
    params = (CONFIG_QUEUES,)
    checks_input = False

    def unassigned_reason(self, spec):
        return "the CONFIG strategy's fixed queue list does not name them"

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        return list(spec.config_queues)

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        return {cid: list(spec.config_queues) for cid in first_index(cid_all)}

    def kernel(self, calls):
        """The list for every asking process: queues of the rebalance by index, others as `extra`."""
        import numpy as np

        from rmqplan.allocation.batch import Rows

        batch = calls.batch
        entry, queue, pos = [], [], []
        rows = Rows.empty()
        for k in range(len(calls)):
            asks = calls.ask_entry[calls.ask_call == k].tolist()
            if not asks:
                continue
            r, start = int(calls.rebalance[k]), int(calls.q_start[k])
            at = {batch.queue(r, i): i for i in range(start, start + int(calls.m[k]))}
            for p, q in enumerate(calls.spec_of(k).config_queues):
                i = at.get(q)
                for e in asks:
                    if i is None:
                        rows.extra.append((e, q, p))
                    else:
                        entry.append(e)
                        queue.append(i)
                        pos.append(p)
        rows.entry, rows.queue = np.asarray(entry, dtype=np.int64), np.asarray(queue, dtype=np.int64)
        rows.pos = np.asarray(pos, dtype=np.int64)
        return rows

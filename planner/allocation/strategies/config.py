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
        order = np.argsort(calls.ask_call, kind="stable")  # the asks of call k: order[bounds[k]:bounds[k + 1]]
        bounds = np.searchsorted(calls.ask_call[order], np.arange(len(calls) + 1))
        asking = calls.ask_entry[order].tolist()
        for k in np.flatnonzero(bounds[1:] > bounds[:-1]).tolist():
            asks = asking[bounds[k]:bounds[k + 1]]
            listed = calls.spec_of(k).config_queues
            topic, at = _queue_index(batch, int(calls.rebalance[k]), int(calls.q_start[k]), int(calls.m[k]), listed)
            for p, q in enumerate(listed):
                i = at.get((q.broker, q.queue_id)) if q.topic == topic else None
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



def _queue_index(batch, r: int, start: int, m: int, listed) -> tuple[str, dict]:
    """Rebalance r's topic and {(broker, queue id): batch index} of its queues `start:start + m` (empty when no
    listed queue is of that topic: a list of another topic's queues has nothing to look up)."""
    topic = batch.names.topic(r)
    at: dict = {}
    if any(q.topic == topic for q in listed):
        brokers = batch.brokers
        for j, (b, i) in enumerate(zip(batch.q_broker[start:start + m].tolist(), batch.q_id[start:start + m].tolist())):
            at[(brokers[b], i)] = start + j
    return topic, at

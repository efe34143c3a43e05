"""MACHINE_ROOM: `AllocateMessageQueueByMachineRoom`. It keeps the queues whose brokerName splits on "@" (Java
`split`, trailing empty parts dropped) into exactly two parts, the first of which is in `consumer_idcs`; then
each process takes a block of `picked / n` of them at `index * (picked / n)`, and the process at `index` one more
(`picked[index + (picked / n) * n]`) while `index < picked % n`."""

from __future__ import annotations

from typing import Sequence

from rmqplan.model.fleet import Queue
from rmqplan.allocation.strategies.base import CONSUMER_IDCS, Strategy, first_index


def java_split_at(s: str) -> list[str]:
    """`s.split("@")`: trailing empty strings are dropped (a string without "@" stays whole)."""
    if "@" not in s:
        return [s]
    parts = s.split("@")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def broker_room(broker: str):
    """The room MACHINE_ROOM reads from a broker name `room@name`, or None."""
    parts = java_split_at(broker)
    return parts[0] if len(parts) == 2 else None


def picked_queues(idcs: Sequence[str], mq_all: Sequence[Queue]) -> list[Queue]:
    rooms = set(idcs)
    return [q for q in mq_all if broker_room(q.broker) in rooms]


def machine_room_ranks(index: int, n: int, picked: int) -> list[int]:
    """Positions among the picked queues taken by the process at `index`."""
    mod, rem = divmod(picked, n)
    ranks = list(range(mod * index, mod * index + mod))
    if rem > index:
        ranks.append(index + mod * n)
    return ranks


class MachineRoom(Strategy):
    name = "MACHINE_ROOM"
    java_class = "AllocateMessageQueueByMachineRoom"
    params = (CONSUMER_IDCS,)

    def unassigned_reason(self, spec):
        return (f"MACHINE_ROOM takes only queues of brokers named room@name with the room in consumer_idcs "
                f"{list(spec.consumer_idcs)}")

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        index = cid_all.index(current)
        pre = picked_queues(spec.consumer_idcs, mq_all)
        mod, rem = divmod(len(pre), len(cid_all))
        result = pre[mod * index: mod * index + mod]
        if rem > index:
            result.append(pre[index + mod * len(cid_all)])
        return result

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        pre = picked_queues(spec.consumer_idcs, mq_all)
        n = len(cid_all)
        return {cid: [pre[r] for r in machine_room_ranks(index, n, len(pre))]
                for cid, index in first_index(cid_all).items()}

    def kernel(self, calls):
        """Picked queues per call (a broker's room is looked up once per broker and spec), then blocks."""
        import numpy as np

        from rmqplan.allocation.batch import Rows, concat_ranges

        batch = calls.batch
        specs = np.unique(calls.spec)
        rooms = [broker_room(b) for b in batch.brokers]
        wanted = np.zeros((int(specs.max()) + 1, len(batch.brokers)), dtype=bool)
        for s in specs.tolist():
            idcs = set(batch.specs[s].consumer_idcs)
            wanted[s] = [room in idcs for room in rooms]
        queues, call = concat_ranges(calls.q_start, calls.m)
        picked_mask = wanted[calls.spec[call], batch.q_broker[queues]]
        picked, picked_call = queues[picked_mask], call[picked_mask]
        p = np.bincount(picked_call, minlength=len(calls)).astype(np.int64)
        p_start = np.zeros(len(calls), dtype=np.int64)
        np.cumsum(p[:-1], out=p_start[1:])
        n, index = calls.n[calls.ask_call], calls.ask_index
        mod, rem = p[calls.ask_call] // n, p[calls.ask_call] % n
        block, ask_b = concat_ranges(index * mod, mod)
        extra_asks = np.flatnonzero(rem > index)
        ranks = np.concatenate([block, index[extra_asks] + mod[extra_asks] * n[extra_asks]])
        asks = np.concatenate([ask_b, extra_asks])
        return Rows(calls.ask_entry[asks], picked[p_start[calls.ask_call[asks]] + ranks])

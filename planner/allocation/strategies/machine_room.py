"""MACHINE_ROOM: `AllocateMessageQueueByMachineRoom`. It keeps the queues whose brokerName splits on "@" (Java
`split`, trailing empty parts dropped) into exactly two parts, the first of which is in `consumer_idcs`; then
each process takes a block of `picked / n` of them at `index * (picked / n)`, and the process at `index` one more
(`picked[index + (picked / n) * n]`) while `index < picked % n`.

Clients before 4.8.0 took the block from the positions `index * (picked / n)` .. of ALL the readable queues
(`mqAll.get(i)`, apache/rocketmq#2477), so a process could take queues of other rooms, and miss its own; the one
more came from the picked queues as today (never one of the block: the picked queue at `index + mod * n` sits at
that position of mqAll or later, past every block). Clients before 4.9.3 did not check their input either (an
empty mqAll gives every process nothing instead of an IllegalArgumentException).
"""

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


BLOCK_FROM_PICKED_SINCE = (4, 8, 0)
CHECKS_SINCE = (4, 9, 3)


def legacy_share(index: int, n: int, mq_all: Sequence[Queue], pre: Sequence[Queue]) -> list[Queue]:
    """The share before 4.8.0: the block from mqAll, the one more from the picked queues."""
    mod, rem = divmod(len(pre), n)
    share = list(mq_all[mod * index: mod * index + mod])
    if rem > index:
        share.append(pre[index + mod * n])
    return share


class MachineRoom(Strategy):
    name = "MACHINE_ROOM"
    java_class = "AllocateMessageQueueByMachineRoom"
    params = (CONSUMER_IDCS,)
    changed_in = (BLOCK_FROM_PICKED_SINCE, CHECKS_SINCE)

    def checks(self, spec):
        return spec.classes_before is None

    def unassigned_reason(self, spec):
        return (f"MACHINE_ROOM takes only queues of brokers named room@name with the room in consumer_idcs "
                f"{list(spec.consumer_idcs)}")

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        index = cid_all.index(current)
        pre = picked_queues(spec.consumer_idcs, mq_all)
        if spec.classes_before == BLOCK_FROM_PICKED_SINCE:
            return legacy_share(index, len(cid_all), mq_all, pre)
        mod, rem = divmod(len(pre), len(cid_all))
        result = pre[mod * index: mod * index + mod]
        if rem > index:
            result.append(pre[index + mod * len(cid_all)])
        return result

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        pre = picked_queues(spec.consumer_idcs, mq_all)
        n = len(cid_all)
        if spec.classes_before == BLOCK_FROM_PICKED_SINCE:
            return {cid: legacy_share(index, n, mq_all, pre) for cid, index in first_index(cid_all).items()}
        return {cid: [pre[r] for r in machine_room_ranks(index, n, len(pre))]
                for cid, index in first_index(cid_all).items()}

    def kernel(self, calls):
        """Picked queues per call (a broker's room is looked up once per broker and spec), then blocks. Calls of
        a client before 4.8.0 go call by call (`allocate_all`)."""
        import numpy as np

        from rmqplan.allocation.batch import Rows, concat_ranges
        from rmqplan.allocation.strategies.base import per_call_kernel

        batch = calls.batch
        legacy = np.array([batch.specs[s].classes_before == BLOCK_FROM_PICKED_SINCE for s in calls.spec.tolist()], dtype=bool)
        if legacy.any():
            today = np.flatnonzero(~legacy)
            parts = [per_call_kernel(self, calls.subset(np.flatnonzero(legacy)))]
            if len(today):
                parts.append(self.kernel(calls.subset(today)))
            return Rows.concat(parts)
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

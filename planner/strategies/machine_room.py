"""MACHINE_ROOM: `AllocateMessageQueueByMachineRoom`. It keeps the queues whose brokerName splits on "@" (Java
`split`, trailing empty parts dropped) into exactly two parts, the first of which is in `consumer_idcs`; then
each process takes a block of `picked / n` of them at `index * (picked / n)`, and the process at `index` one more
(`picked[index + (picked / n) * n]`) while `index < picked % n`."""

from __future__ import annotations

from typing import Sequence

from planner.model import Queue
from planner.strategies.base import CONSUMER_IDCS, Strategy, first_index


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

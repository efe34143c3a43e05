"""MACHINE_ROOM_NEARBY: `AllocateMachineRoomNearby`, a delegate strategy (`nearby`) applied room by room.

Queues and clients are grouped by room (`TreeMap`, so rooms in Java string order); a queue or a client without a
room (missing or empty) throws. The delegate allocates the current client's room's queues among that room's
clients, then each room with no client is shared by all clients, in room order. The result keeps the Java list
order (own room first), which is not queue order. Java's `getName()` is "MACHINE_ROOM_NEARBY-" + the delegate's.
"""

from __future__ import annotations

from rmqplan.model.javaorder import sort_strings
from rmqplan.model.fleet import Queue
from rmqplan.allocation.strategies.base import IAE, Rooms, Strategy, StrategyError, first_index, mq_string


def group_by_room(mq_all, cid_all, rooms: Rooms) -> tuple[dict[str, list[Queue]], dict[str, list[str]]]:
    mr2mq: dict[str, list[Queue]] = {}
    for q in mq_all:
        room = rooms.broker(q)
        if room is None:
            raise StrategyError(IAE, f"Machine room is null for mq {mq_string(q)}")
        mr2mq.setdefault(room, []).append(q)
    mr2c: dict[str, list[str]] = {}
    for cid in cid_all:
        room = rooms.client(cid)
        if room is None:
            raise StrategyError(IAE, f"Machine room is null for consumer id {cid}")
        mr2c.setdefault(room, []).append(cid)
    return mr2mq, mr2c


def delegate_of(spec):
    if spec.nearby is None:
        raise StrategyError("NullPointerException", "allocateMessageQueueStrategy is null")
    return spec.nearby


class MachineRoomNearby(Strategy):
    name = "MACHINE_ROOM_NEARBY"
    java_class = "AllocateMachineRoomNearby"
    takes_delegate = True

    def describe(self, spec):
        return f"MACHINE_ROOM_NEARBY-{spec.nearby.name}" if spec.nearby is not None else self.name

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        from rmqplan.allocation.strategies import strategy_of  # the delegate is any registered strategy

        delegate = delegate_of(spec)
        inner = strategy_of(delegate)
        mr2mq, mr2c = group_by_room(mq_all, cid_all, rooms)
        current_room = rooms.client(current)
        result: list[Queue] = []
        mq_here = mr2mq.pop(current_room, None)
        if mq_here:
            result.extend(inner.call_one(delegate, current, mq_here, mr2c.get(current_room) or [], rooms))
        for room in sort_strings(mr2mq):
            if room not in mr2c:
                result.extend(inner.call_one(delegate, current, mr2mq[room], cid_all, rooms))
        return result

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        from rmqplan.allocation.strategies import allocate_sorted

        distinct = first_index(cid_all)
        try:
            delegate = delegate_of(spec)
            mr2mq, mr2c = group_by_room(mq_all, cid_all, rooms)
        except StrategyError as e:
            return {cid: e for cid in distinct}
        shares: dict = {cid: [] for cid in distinct}
        # 1. each room's queues among that room's clients (one delegate run per room)
        for room, clients in mr2c.items():
            mq_here = mr2mq.get(room)
            if mq_here:
                shares.update(allocate_sorted(delegate, mq_here, clients, rooms))
        # 2. rooms without a client, shared by all, in TreeMap order; a throw stops that process's run
        for room in sort_strings(mr2mq):
            if room in mr2c:
                continue
            shared = allocate_sorted(delegate, mr2mq[room], cid_all, rooms)
            for cid, have in shares.items():
                if isinstance(have, StrategyError):
                    continue
                extra = shared[cid]
                if isinstance(extra, StrategyError):
                    shares[cid] = extra
                else:
                    have.extend(extra)
        return shares

"""MACHINE_ROOM_NEARBY: `AllocateMachineRoomNearby`, a delegate strategy (`nearby`) applied room by room.

Queues and clients are grouped by room (`TreeMap`, so rooms in Java string order); a queue or a client without a
room (missing or empty) throws. The delegate allocates the current client's room's queues among that room's
clients, then each room with no client is shared by all clients, in room order. The result keeps the Java list
order (own room first), which is not queue order. Java's `getName()` is "MACHINE_ROOM_NEARBY-" + the delegate's.

The vectorised form (`MachineRoomNearby.kernel`) turns each call into the delegate's calls, one per room with
queues: its own room's queues among that room's clients, or a room without clients among all of them; the
delegate's own vectorised form answers them all at once (`rmqplan.allocation.batch.sub_batch`), and each row's
list position puts the own room first, then the shared rooms in Java string order.
"""

from __future__ import annotations

import numpy as np

from rmqplan.model.javaorder import sort_strings
from rmqplan.model.fleet import Queue
from rmqplan.allocation.strategies.base import (
    IAE,
    Rooms,
    Strategy,
    StrategyError,
    first_index,
    mq_string,
    per_call_kernel,
)

ROOM_SHIFT = 32  # a row's list position: (room rank << ROOM_SHIFT) + its position in the delegate's share


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

    def kernel(self, calls):
        """See the module docstring. Calls whose delegate is missing or itself takes a delegate (never parsed
        from a fleet) go call by call."""
        from rmqplan.allocation.batch import Rows

        from rmqplan.allocation.strategies import strategy_of

        batch = calls.batch
        delegates = [s.nearby for s in batch.specs]
        odd = np.array([d is None or strategy_of(d).takes_delegate for d in delegates], dtype=bool)[calls.spec]
        if odd.any():
            parts = [per_call_kernel(self, calls.subset(np.flatnonzero(odd)))]
            if not odd.all():
                parts.append(self.kernel(calls.subset(np.flatnonzero(~odd))))
            return Rows.concat(parts)
        return _nearby_rows(calls, delegates)


def _nearby_rows(calls, delegates):
    from rmqplan.allocation.batch import Calls, Rows, SpecTable, concat_ranges, offsets, sub_batch
    from rmqplan.allocation.strategies import strategy_of

    batch = calls.batch
    k_count = len(calls)
    width = len(batch.rooms) + 1  # room keys: call * width + room
    named = np.array([bool(r) for r in batch.rooms] + [False], dtype=bool)  # an empty name is no room; -1 too
    # each call's queues and their rooms
    queues, q_call = concat_ranges(calls.q_start, calls.m)
    q_room = batch.broker_room[batch.q_broker[queues]].astype(np.int64)
    q_room[~named[q_room]] = -1
    # each call's cidAll, in its order, and the room of each client id
    e_off = offsets(calls.n)
    entries, e_call = concat_ranges(batch.c_off[calls.rebalance], calls.n)
    order = np.empty(len(entries), dtype=np.int64)
    order[e_off[e_call] + batch.c_order[entries]] = np.arange(len(entries))
    entries = entries[order]  # c_order: each entry's place in its cidAll
    e_room = _client_id_rooms(batch, entries, e_call, named)
    # a queue or a client id without a room: IllegalArgumentException for every ask of the call
    failed = (np.bincount(q_call[q_room < 0], minlength=k_count) > 0) \
        | (np.bincount(e_call[e_room < 0], minlength=k_count) > 0)
    errors = {}
    if failed.any():
        message = _missing_rooms(batch, calls, failed, queues, q_call, q_room, entries, e_call, e_room)
        for a in np.flatnonzero(failed[calls.ask_call]).tolist():
            errors[int(calls.ask_entry[a])] = message[int(calls.ask_call[a])]
        q_keep = ~failed[q_call]
        queues, q_call, q_room = queues[q_keep], q_call[q_keep], q_room[q_keep]
    # the delegate's calls: one per (call, room with queues), ordered by call then room
    q_key = q_call * width + q_room
    if len(q_key) > 1 and not bool(np.all(q_key[1:] >= q_key[:-1])):
        q_order = np.argsort(q_key, kind="stable")
        queues, q_key = queues[q_order], q_key[q_order]
    new_sub = np.ones(len(q_key), dtype=bool)
    new_sub[1:] = q_key[1:] != q_key[:-1]
    sub_key = q_key[new_sub]
    sub_q_off = offsets(np.diff(np.append(np.flatnonzero(new_sub), len(q_key))))
    sub_count = len(sub_key)
    if not sub_count:
        return Rows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), errors=errors)
    sub_call, sub_room = sub_key // width, sub_key % width
    # a room's own clients: the entries of that (call, room), in cidAll order
    e_key = e_call * width + e_room
    sub_of_key = _lookup(sub_key, e_key)
    own = sub_of_key >= 0
    has_clients = np.zeros(sub_count, dtype=bool)
    has_clients[sub_of_key[own]] = True
    own_at = np.flatnonzero(own)
    own_at = own_at[np.argsort(sub_of_key[own_at], kind="stable")]
    # a room without clients: the call's whole cidAll
    shared = np.flatnonzero(~has_clients)
    shared_at, shared_of = concat_ranges(e_off[sub_call[shared]], calls.n[sub_call[shared]])
    own_sub = sub_of_key[own_at]
    sizes = np.bincount(own_sub, minlength=sub_count)
    own_off = offsets(sizes)
    sizes[shared] = calls.n[sub_call[shared]]
    sub_c_off = offsets(sizes)
    at = np.empty(int(sub_c_off[-1]), dtype=np.int64)  # each delegate entry: its place in `entries`
    sub_of = np.empty(len(at), dtype=np.int64)
    own_place = np.arange(len(own_at), dtype=np.int64)
    own_place += (sub_c_off[:-1] - own_off[:-1])[own_sub]
    at[own_place], sub_of[own_place] = own_at, own_sub
    shared_place = sub_c_off[shared[shared_of]] + (shared_at - e_off[sub_call[shared[shared_of]]])
    at[shared_place], sub_of[shared_place] = shared_at, shared[shared_of]
    sub_entries = entries[at]
    # who asks: the entries that ask in the call
    ask_call_of = np.full(batch.entries, -1, dtype=np.int64)
    ask_call_of[calls.ask_entry] = calls.ask_call
    asks = ask_call_of[sub_entries] == sub_call[sub_of]
    table = SpecTable()
    used = np.bincount(calls.spec, minlength=len(delegates)) > 0
    sub_spec = np.array([table.id(d) if used[s] else -1 for s, d in enumerate(delegates)],
                        dtype=np.int32)[calls.spec[sub_call]]
    sub = sub_batch(batch, calls.rebalance[sub_call], sub_q_off, queues, sub_c_off, sub_entries, asks,
                    sub_spec[sub_of], table.specs)
    ask_entry = np.flatnonzero(asks)
    sub_calls = Calls(sub, np.arange(sub_count, dtype=np.int64), sub_spec, sizes, np.diff(sub_q_off),
                      sub_q_off[:-1], sub_of[ask_entry], sub.c_index[ask_entry], ask_entry)
    names = [s.name for s in table.specs]
    parts = []
    if len(names) == 1:
        parts.append(strategy_of(names[0]).kernel(sub_calls))
    else:
        sub_name = np.array(names, dtype=object)[sub_spec]
        for name in dict.fromkeys(sub_name.tolist()):
            parts.append(strategy_of(name).kernel(sub_calls.subset(np.flatnonzero(sub_name == name))))
    got = Rows.concat(parts)
    # back to the batch: entries, queues, list positions (own room first, then shared rooms in Java order)
    rank = np.zeros(width, dtype=np.int64)
    rank[[batch.rooms.index(r) for r in sort_strings(batch.rooms)]] = np.arange(1, width)
    sub_rank = np.where(has_clients, 0, rank[sub_room]) << ROOM_SHIFT
    within = got.pos if got.pos is not None else got.queue
    rows = Rows(sub_entries[got.entry], queues[got.queue], sub_rank[sub_of[got.entry]] + within)
    if got.extra:  # a delegate's queue outside its room (CONFIG's list) may be a queue of the call after all
        at_of: dict[int, dict] = {}
        more = ([], [], [])
        for e, q, p in got.extra:
            j = int(sub_of[e])
            r = int(calls.rebalance[sub_call[j]])
            found = at_of.get(r)
            if found is None:
                found = at_of[r] = {batch.queue(r, i): i for i in range(int(batch.q_off[r]),
                                                                        int(batch.q_off[r + 1]))}
            key = int(sub_rank[j]) + p
            if q in found:
                for column, value in zip(more, (int(sub_entries[e]), found[q], key)):
                    column.append(value)
            else:
                rows.extra.append((int(sub_entries[e]), q, key))
        rows.entry, rows.queue, rows.pos = (np.concatenate([old, np.array(new, dtype=np.int64)])
                                            for old, new in zip((rows.entry, rows.queue, rows.pos), more))
    rows.errors = {int(sub_entries[e]): message for e, message in got.errors.items()}
    rows.errors.update(errors)
    return rows


def _lookup(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """For each of `wanted`: its position in the ascending, distinct `keys`, or -1."""
    out = np.full(len(wanted), -1, dtype=np.int64)
    if not len(keys):
        return out
    inside = (wanted >= keys[0]) & (wanted <= keys[-1])
    if int(keys[-1] - keys[0]) < 4 * (len(keys) + len(wanted)) + 1024:  # a table as long as the keys' range
        table = np.full(int(keys[-1] - keys[0]) + 1, -1, dtype=np.int64)
        table[keys - keys[0]] = np.arange(len(keys))
        out[inside] = table[wanted[inside] - keys[0]]
        return out
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    hit = keys[at] == wanted
    out[hit] = at[hit]
    return out


def _client_id_rooms(batch, entries, e_call, named):
    """The room of each entry's client id as `call_inputs` resolves it: the room of the last entry of that id, in
    cidAll order, that has one (-1: none; an empty name is none). `entries`: each call's cidAll in its order."""
    room = batch.c_room[entries].astype(np.int64)
    index = batch.c_index[entries]
    new_run = np.ones(len(entries), dtype=bool)
    new_run[1:] = (index[1:] != index[:-1]) | (e_call[1:] != e_call[:-1])
    if new_run.all():  # no repeated client id
        room[~named[room]] = -1
        return room
    run = np.cumsum(new_run) - 1
    roomed = np.flatnonzero(room >= 0)
    last = np.full(int(run[-1]) + 1, -1, dtype=np.int64)
    if len(roomed):
        ends = np.ones(len(roomed), dtype=bool)
        ends[:-1] = run[roomed][1:] != run[roomed][:-1]
        last[run[roomed][ends]] = room[roomed][ends]
    out = last[run]
    out[~named[out]] = -1
    return out


def _missing_rooms(batch, calls, failed, queues, q_call, q_room, entries, e_call, e_room) -> dict[int, str]:
    """`group_by_room`'s exception for each failed call: its first queue without a room, else its first client
    id (cidAll order) without one."""
    out = {}
    bad = np.flatnonzero(q_room < 0)
    k, first = np.unique(q_call[bad], return_index=True)
    for k, i in zip(k.tolist(), bad[first].tolist()):
        q = batch.queue(int(calls.rebalance[k]), int(queues[i]))
        out[k] = str(StrategyError(IAE, f"Machine room is null for mq {mq_string(q)}"))
    bad = np.flatnonzero((e_room < 0) & failed[e_call])
    k, first = np.unique(e_call[bad], return_index=True)
    for k, e in zip(k.tolist(), entries[bad[first]].tolist()):
        if k not in out:
            cid = batch.names.client_ids(np.array([e]))[0]
            out[k] = str(StrategyError(IAE, f"Machine room is null for consumer id {cid}"))
    return out

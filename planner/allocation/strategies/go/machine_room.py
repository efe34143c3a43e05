"""MACHINE_ROOM in rocketmq-client-go: `AllocateByMachineRoom(consumeridcs)`. It picks the queues whose brokerName
splits on "@" (`strings.Split`: "hz@" is two parts, "hz@b@" three) into exactly two parts, the first of which is in
consumeridcs; the process at `index` takes the block `mqAll[index * mod : index * mod + mod]` of ALL the readable
queues, mod = picked / n (as Java's class did before 4.8.0: a process may take queues of other rooms and miss its
own), then `picked[index + mod * n]` while `index < picked % n`.

consumeridcs is a slice in Go: a room listed twice picks its queues twice. fleet.toml's `consumer_idcs` is read as a
set (as the Java class's `Set`), so a Go process is taken to list each room once.
"""

from __future__ import annotations

import numpy as np

from rmqplan.allocation.strategies.base import CONSUMER_IDCS
from rmqplan.allocation.strategies.go import LIBRARY, GoForm, go_sorted


def go_broker_room(broker: str):
    """The room `strings.Split(brokerName, "@")` gives when it has exactly two parts, else None."""
    parts = broker.split("@")
    return parts[0] if len(parts) == 2 else None


class GoMachineRoom(GoForm):
    name = "MACHINE_ROOM"
    aliases = ("AllocateByMachineRoom",)
    params = (CONSUMER_IDCS,)

    def describe(self, spec):
        return f"MACHINE_ROOM of {LIBRARY} (consumer_idcs {list(spec.consumer_idcs)})"

    def unassigned_reason(self, spec):
        return (f"MACHINE_ROOM of {LIBRARY} deals out only as many queues as brokers named room@name with the "
                f"room in consumer_idcs {list(spec.consumer_idcs)} have, taking its blocks from all the queues")

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        mq_all, cid_all = go_sorted(mq_all, cid_all)
        if current == "" or not mq_all or not cid_all or current not in cid_all:
            return []
        index = cid_all.index(current)
        pre = [q for q in mq_all for idc in spec.consumer_idcs if go_broker_room(q.broker) == idc]
        mod, rem = len(pre) // len(cid_all), len(pre) % len(cid_all)
        result = [mq_all[i] for i in range(mod * index, mod * index + mod)]
        if rem > index:
            result.append(pre[index + mod * len(cid_all)])
        return result

    def vectorised(self, calls):
        """Picked queues per call (a broker's room looked up once per broker and spec); the block by position in
        the call's queues, the one more from its picked ones (always after the block: the picked queue at `index
        + mod * n` sits at that position of mqAll or later)."""
        from rmqplan.allocation.batch import Rows, concat_ranges

        batch = calls.batch
        specs = np.unique(calls.spec)
        rooms = [go_broker_room(b) for b in batch.brokers]
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
        extra = np.flatnonzero(rem > index)
        entries = np.concatenate([calls.ask_entry[ask_b], calls.ask_entry[extra]])
        held = np.concatenate([calls.q_start[calls.ask_call[ask_b]] + block,
                               picked[p_start[calls.ask_call[extra]] + index[extra] + mod[extra] * n[extra]]])
        return Rows(entries, held)

"""CONSISTENT_HASH in rocketmq-client-go: `AllocateByConsistentHash(virtualNodeCnt)` over a
`stathat.com/c/consistent` ring (v1.0.0), which is not Java's:

- a point per replica i < virtual nodes at the CRC-32 (IEEE) of `strconv.Itoa(i) + cid` (Java: the MD5 of
  `cid + "-" + i`); the ids are added in Go's order, a repeated id puts its points again (no new ones), and an
  equal hash is the later id's (a map written in add order);
- a queue's key is `MessageQueue.String()`, `MessageQueue [topic=T, brokerName=B, queueId=N]`, hashed the same way;
  it goes to the first point strictly AFTER its hash (`sort.Search` for `> key`; Java: at or after), else to the
  first point;
- 0 virtual nodes: adding the first id divides by zero (`cap(...) / (NumberOfReplicas * 4)`), a panic the
  rebalance goroutine does not recover, so the process stops (an error here).

So a Go process and a Java process of one group place the same queue on different owners: their shares do not
partition the queues.
"""

from __future__ import annotations

import bisect
import zlib

import numpy as np

from rmqplan.allocation.strategies.base import VIRTUAL_NODES, StrategyError, mq_string
from rmqplan.allocation.strategies.go import LIBRARY, GoForm, go_sorted, go_utf8
from rmqplan.model.words import count

PANIC = "panic"
DIVIDE_BY_ZERO = "runtime error: integer divide by zero"


class GoHashRing:
    """The `consistent.Consistent` ring `AllocateByConsistentHash` builds from cidAll (in Go's order)."""

    def __init__(self, cid_all, replicas: int) -> None:
        circle: dict[int, str] = {}
        for cid in cid_all:
            if replicas == 0:
                raise StrategyError(PANIC, DIVIDE_BY_ZERO)
            for i in range(replicas):
                circle[zlib.crc32(go_utf8(str(i) + cid))] = cid
        self.points = sorted(circle)
        self.owners = [circle[p] for p in self.points]

    def get(self, name: str):
        """`Get(name)`: the owner, or None for an empty ring (`ErrEmptyCircle`)."""
        if not self.points:
            return None
        i = bisect.bisect_right(self.points, zlib.crc32(go_utf8(name)))
        return self.owners[i if i < len(self.points) else 0]


class GoConsistentHash(GoForm):
    name = "CONSISTENT_HASH"
    aliases = ("AllocateByConsistentHash",)
    params = (VIRTUAL_NODES,)

    def describe(self, spec):
        return f"CONSISTENT_HASH of {LIBRARY} ({count(spec.virtual_nodes, 'virtual node')})"

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        mq_all, cid_all = go_sorted(mq_all, cid_all)
        if current == "" or not mq_all or not cid_all or current not in cid_all:
            return []
        ring = GoHashRing(cid_all, spec.virtual_nodes)
        return [q for q in mq_all if ring.get(mq_string(q)) == current]

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        mq_all, cid_all = go_sorted(mq_all, cid_all)
        distinct = dict.fromkeys(cid_all)
        if not mq_all:
            return {cid: [] for cid in distinct}
        try:
            ring = GoHashRing(cid_all, spec.virtual_nodes)
        except StrategyError as e:
            return {cid: ([] if cid == "" else e) for cid in distinct}
        shares: dict = {cid: [] for cid in distinct}
        for q in mq_all:
            shares[ring.get(mq_string(q))].append(q)
        if "" in shares:  # currentCID "" returns nil before the ring is built
            shares[""] = []
        return shares

    def vectorised(self, calls):
        """Every call's ring at once: the points of each call's distinct ids (CRC-32 in bulk,
        `rmqplan.allocation.crc32`) in a `RingTable` row, each queue's hash searched in its call's row for the
        first point after it. A ring with two equal points (then the later id's, by Go's order) is built by
        `GoHashRing`, call by call; 0 virtual nodes panics."""
        from rmqplan.allocation.batch import Rows, concat_ranges, offsets
        from rmqplan.allocation.strategies.base import per_call_kernel
        from rmqplan.allocation.strategies.consistent_hash import RingTable, _repeat_ranges, _takers

        batch = calls.batch
        k_count = len(calls)
        v = np.array([batch.specs[s].virtual_nodes for s in calls.spec.tolist()], dtype=np.int64)
        entries, call = concat_ranges(batch.c_off[calls.rebalance], calls.n)
        first = batch.c_order[entries] == batch.c_index[entries]  # one point set per distinct id
        entries, call = entries[first], call[first]
        point_of, replica = _repeat_ranges(v[call])
        hashes = _point_hashes(batch.names.client_ids(entries), point_of, replica)
        points = offsets(np.bincount(call, weights=v[call], minlength=k_count).astype(np.int64))
        table = RingTable(hashes, batch.c_index[entries][point_of], points, int(calls.n.max()))
        routed = (v > 0) & ~table.collided
        q_index, q_call = concat_ranges(calls.q_start, np.where(routed, calls.m, 0))
        q_hash = _queue_hashes(batch, calls.rebalance[q_call], q_index)
        holder = table.route(q_call, q_hash, after=True)
        parts = [_takers(calls, offsets(calls.n), q_call, holder, q_index)]
        collided = np.flatnonzero((v > 0) & table.collided)
        if len(collided):
            parts.append(per_call_kernel(self, calls.subset(collided)))
        panics = np.isin(calls.ask_call, np.flatnonzero(v == 0))
        if panics.any():
            error = str(StrategyError(PANIC, DIVIDE_BY_ZERO))
            parts.append(Rows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                              errors={int(e): error for e in calls.ask_entry[panics]}))
        return Rows.concat(parts)


def _point_hashes(cids: list[str], point_of: np.ndarray, replica: np.ndarray) -> np.ndarray:
    """CRC-32 of `strconv.Itoa(replica) + cid` for each point (its id `cids[point_of]`): each id's bytes and each
    replica's prefix hashed once (`rmqplan.allocation.crc32.prefixed`)."""
    from rmqplan.allocation.byte_rows import ByteRows
    from rmqplan.allocation.crc32 import crc32_rows, prefixed

    rows = ByteRows.from_bytes([go_utf8(c) for c in cids])
    zero = np.full(len(rows), 0xFFFFFFFF, dtype=np.uint32)  # a zero register
    tails = crc32_rows(rows, start=zero) ^ np.uint32(0xFFFFFFFF)
    prefixes = np.array([zlib.crc32(str(i).encode()) for i in range(int(replica.max(initial=-1)) + 1)],
                        dtype=np.uint32)
    return prefixed(prefixes[replica], rows.lengths[point_of], tails[point_of])


def _queue_hashes(batch, rebalance: np.ndarray, queues: np.ndarray) -> np.ndarray:
    """CRC-32 of `MessageQueue.String()` of each queue (of its rebalance's topic), as Go's bytes: the text before
    the queue id hashed once per topic and broker, the id and "]" after it."""
    from rmqplan.allocation.byte_rows import ByteRows
    from rmqplan.allocation.crc32 import crc32_rows

    pairs = rebalance * len(batch.brokers) + batch.q_broker[queues]
    distinct, at = np.unique(pairs, return_inverse=True)
    topics: dict[int, str] = {}
    heads = []
    for pair in distinct.tolist():
        r, b = divmod(pair, len(batch.brokers))
        topic = topics.get(r)
        if topic is None:
            topic = topics[r] = batch.names.topic(r)
        heads.append(zlib.crc32(go_utf8(f"MessageQueue [topic={topic}, brokerName={batch.brokers[b]}, queueId=")))
    tails = ByteRows.join([ByteRows.decimal(batch.q_id[queues]), b"]"])
    return crc32_rows(tails, start=np.array(heads, dtype=np.uint32)[at])

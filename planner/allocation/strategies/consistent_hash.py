"""CONSISTENT_HASH: `AllocateMessageQueueConsistentHash` over a `ConsistentHashRouter` (common/consistenthash).

- Ring key = MD5 of the UTF-8 bytes, the first 4 digest bytes as an unsigned big-endian number.
- A node's virtual keys are `cid + "-" + i`, numbered on from the replicas of that id already on the ring (a
  repeated id adds replicas); `TreeMap.put` on an equal hash replaces the owner (the later put wins).
- A queue routes to the first point at or after the hash of `MessageQueue [topic=T, brokerName=B, queueId=N]`,
  else to the first point; an empty ring (0 virtual nodes) routes nothing.
"""

from __future__ import annotations

import bisect
from typing import Optional, Sequence

from rmqplan.model.fleet import Queue
from rmqplan.allocation.strategies.base import (
    VIRTUAL_NODES,
    Strategy,
    first_index,
    java_utf8,
    md5_bytes,
    md5_hash,
    mq_string,
)


class HashRing:
    """ConsistentHashRouter over client ids, as AllocateMessageQueueConsistentHash builds it."""

    def __init__(self, cid_all: Sequence[str], virtual_nodes: int) -> None:
        owner: dict[int, str] = {}
        finished: set[str] = set()
        run_cid: Optional[str] = None
        run_points = 0  # getExistingReplicas(run_cid): its points still on the ring
        for cid in cid_all:
            if cid != run_cid:
                if run_cid is not None:
                    finished.add(run_cid)
                run_cid = cid
                # sorted ids repeat back to back, so a new run starts from zero; otherwise count like Java
                run_points = sum(1 for o in owner.values() if o == cid) if cid in finished else 0
            prefix = java_utf8(cid) + b"-"
            start = run_points
            for i in range(start, start + virtual_nodes):
                h = md5_bytes(prefix + str(i).encode())
                if owner.get(h) != cid:  # a new point, or taken from another id: TreeMap.put, the later wins
                    run_points += 1
                owner[h] = cid
        self.points = sorted(owner)
        self.owners = [owner[p] for p in self.points]

    def route(self, object_key: str) -> Optional[str]:
        return self.route_hash(md5_hash(object_key))

    def route_hash(self, h: int) -> Optional[str]:
        if not self.points:
            return None
        i = bisect.bisect_left(self.points, h)  # tailMap(hash).firstKey(), else the first point
        return self.owners[i if i < len(self.points) else 0]


def queue_hashes(mq_all: Sequence[Queue]) -> list[int]:
    """md5_hash(mq_string(q)) for each queue, encoding each topic and broker name once."""
    utf8: dict[str, bytes] = {}

    def enc(s: str) -> bytes:
        b = utf8.get(s)
        if b is None:
            b = utf8[s] = java_utf8(s)
        return b

    return [md5_bytes(b"MessageQueue [topic=" + enc(q[0]) + b", brokerName=" + enc(q[1])
                      + b", queueId=" + str(q[2]).encode() + b"]") for q in mq_all]


class ConsistentHash(Strategy):
    name = "CONSISTENT_HASH"
    java_class = "AllocateMessageQueueConsistentHash"
    params = (VIRTUAL_NODES,)
    generatable = True  # with the default 10 virtual nodes

    def describe(self, spec):
        return f"CONSISTENT_HASH ({spec.virtual_nodes} virtual nodes)"

    def unassigned_reason(self, spec):
        if spec.virtual_nodes == 0:
            return "CONSISTENT_HASH with virtual_nodes = 0 puts no process on the ring, so it routes nothing"
        return None

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        ring = HashRing(cid_all, spec.virtual_nodes)
        return [q for q in mq_all if ring.route(mq_string(q)) == current]

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        shares = {cid: [] for cid in first_index(cid_all)}
        ring = HashRing(cid_all, spec.virtual_nodes)
        if ring.points:
            points, owners, last = ring.points, ring.owners, len(ring.points)
            for q, h in zip(mq_all, queue_hashes(mq_all)):
                i = bisect.bisect_left(points, h)
                shares[owners[i if i < last else 0]].append(q)
        return shares

    def kernel(self, calls):
        """Rings as sorted arrays of (call, point hash): a queue goes to the first point at or after its hash in
        its call's ring, else to the call's first point. A ring with two equal points (a 32-bit MD5 prefix
        collision: then Java's replica numbering depends on the put order) is built by `HashRing` instead."""
        import numpy as np

        from rmqplan.allocation.batch import Rows, concat_ranges
        from rmqplan.allocation.strategies.base import per_call_kernel

        batch = calls.batch
        vnodes = np.array([batch.specs[s].virtual_nodes for s in range(len(batch.specs))], dtype=np.int64)
        v = vnodes[calls.spec]
        # every cidAll entry of every call, in sorted order (equal ids back to back)
        entries, call = concat_ranges(batch.c_off[calls.rebalance], calls.n)
        order = np.lexsort((batch.c_order[entries], call))
        entries, call = entries[order], call[order]
        occurrence = batch.c_order[entries] - batch.c_index[entries]
        # ring points: cid + "-" + (occurrence * V + i), i < V
        point_hash = []
        for cid, occ, vn in zip(batch.names.client_ids(entries), occurrence.tolist(), v[call].tolist()):
            prefix = java_utf8(cid) + b"-"
            point_hash.extend(md5_bytes(prefix + str(i).encode()) for i in range(occ * vn, occ * vn + vn))
        counts = v[call]
        point_call = np.repeat(call, counts)
        point_owner = np.repeat(batch.c_index[entries], counts)
        keys = (point_call.astype(np.uint64) << np.uint64(32)) | np.asarray(point_hash, dtype=np.uint64)
        order = np.argsort(keys, kind="stable")
        keys, point_owner, point_call = keys[order], point_owner[order], point_call[order]
        collided = np.unique(point_call[1:][keys[1:] == keys[:-1]])
        fallback = per_call_kernel(self, calls.subset(collided)) if len(collided) else Rows.empty()
        if len(collided):
            keep = ~np.isin(point_call, collided)
            keys, point_owner, point_call = keys[keep], point_owner[keep], point_call[keep]
        ring_start = np.searchsorted(point_call, np.arange(len(calls)), "left")
        ring_end = np.searchsorted(point_call, np.arange(len(calls)), "right")
        # route every queue of every call that has a ring
        routed = (ring_end > ring_start) & ~np.isin(np.arange(len(calls)), collided)
        queues, qcall = concat_ranges(calls.q_start, np.where(routed, calls.m, 0))
        hashes = self._queue_hashes(batch, calls, queues, qcall)
        at = np.searchsorted(keys, (qcall.astype(np.uint64) << np.uint64(32)) | hashes, "left")
        at = np.where(at >= ring_end[qcall], ring_start[qcall], at)
        owner = point_owner[at]
        # each asking entry takes the queues routed to its index
        width = int(calls.n.max()) + 1
        qkey = qcall * width + owner
        order = np.argsort(qkey, kind="stable")
        qkey, queues = qkey[order], queues[order]
        akey = calls.ask_call * width + calls.ask_index
        lo = np.searchsorted(qkey, akey, "left")
        hi = np.searchsorted(qkey, akey, "right")
        picks, ask = concat_ranges(lo, hi - lo)
        return Rows.concat([Rows(calls.ask_entry[ask], queues[picks]), fallback])

    @staticmethod
    def _queue_hashes(batch, calls, queues, qcall):
        """md5_hash(mq_string(q)) of the listed batch queues (each queue once, whatever the calls sharing it)."""
        import numpy as np

        out = np.zeros(len(queues), dtype=np.uint64)
        uniq, inverse = np.unique(queues, return_inverse=True)
        if not len(uniq):
            return out
        rebalance = np.searchsorted(batch.q_off, uniq, "right") - 1
        encoded: dict = {}

        def enc(s: str) -> bytes:
            b = encoded.get(s)
            if b is None:
                b = encoded[s] = java_utf8(s)
            return b

        topics = {r: enc(batch.names.topic(r)) for r in np.unique(rebalance).tolist()}
        brokers = [enc(b) for b in batch.brokers]
        values = [md5_bytes(b"MessageQueue [topic=" + topics[r] + b", brokerName=" + brokers[b]
                            + b", queueId=" + str(i).encode() + b"]")
                  for r, b, i in zip(rebalance.tolist(), batch.q_broker[uniq].tolist(), batch.q_id[uniq].tolist())]
        return np.asarray(values, dtype=np.uint64)[inverse]

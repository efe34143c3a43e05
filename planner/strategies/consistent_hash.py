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

from planner.model import Queue
from planner.strategies.base import VIRTUAL_NODES, Strategy, first_index, java_utf8, md5_bytes, md5_hash, mq_string


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

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

import numpy as np

from rmqplan.allocation.batch import Rows, concat_ranges, offsets
from rmqplan.allocation.byte_rows import ByteRows, PaddedRows
from rmqplan.allocation.md5 import md5_head
from rmqplan.model.fleet import Queue
from rmqplan.model.words import count
from rmqplan.allocation.strategies.base import (
    VIRTUAL_NODES,
    Strategy,
    first_index,
    java_utf8,
    per_call_kernel,
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
        return f"CONSISTENT_HASH ({count(spec.virtual_nodes, 'virtual node')})"

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
        """Every call at once (`ring_kernel`)."""
        return ring_kernel(self, calls)


# ------------------------------------------------------------------------------------------ the vectorised form


def ring_kernel(strategy: Strategy, calls):
    """CONSISTENT_HASH over a batch's calls, as arrays:

    - rings: a call whose cidAll (the same client ids in the same order) and virtual nodes equal the previous
      call's shares its ring (a group's topics); each ring's points are MD5ed in bulk (`rmqplan.allocation.md5`:
      `cid + "-" + replica`, the cid's bytes laid out once for its replicas) and sorted ring by ring in rows of a
      matrix, rings grouped by size into power-of-two widths;
    - queues: each queue of the calls' rebalances hashed once, the "MessageQueue [topic=T, brokerName=B, queueId="
      prefix's first block once per topic and broker;
    - each queue goes to the first point at or after its hash in its ring's row (a search over the rows laid end to
      end), else to the row's first point; the asking entries at the owner's index take it.

    A ring with two equal points (a 32-bit MD5 prefix collision: then Java's replica numbering depends on the put
    order) is built by `HashRing` instead, call by call."""
    batch = calls.batch
    k_count = len(calls)
    vnodes = np.array([batch.specs[s].virtual_nodes for s in range(len(batch.specs))], dtype=np.int64)
    v = vnodes[calls.spec]
    # each call's cidAll in sorted order
    start = offsets(calls.n)
    entries, call = concat_ranges(batch.c_off[calls.rebalance], calls.n)
    ordered = np.empty_like(entries)
    ordered[start[call] + batch.c_order[entries]] = entries
    ring = _rings(batch, calls, v, start, ordered, call)
    first_call = np.flatnonzero(np.concatenate(([True], ring[1:] != ring[:-1]))) if k_count else ring
    # ring points: cid + "-" + (occurrence * V + i), i < V, for the entries of each ring's first call
    ring_n, ring_v = calls.n[first_call], v[first_call]
    r_entries, r_of = concat_ranges(start[first_call], ring_n)
    r_entries = ordered[r_entries]
    occurrence = batch.c_order[r_entries] - batch.c_index[r_entries]
    point_of, replica_i = _repeat_ranges(ring_v[r_of])
    replica = occurrence[point_of] * ring_v[r_of][point_of] + replica_i
    cids = _client_id_bytes(batch.names, r_entries)
    hashes = md5_head(ByteRows.decimal(replica), ByteRows.join([cids, b"-"], _block_width(cids, 1)), point_of)
    points = offsets(ring_n * ring_v)  # ring j's points: points[j]:points[j + 1], entry by entry
    owner = batch.c_index[r_entries][point_of]
    table = RingTable(hashes, owner, points, int(calls.n.max()) if k_count else 1)
    # calls to route: a ring with points and no collision
    routed = (v > 0) & ~table.collided[ring]
    fallback = np.flatnonzero((v > 0) & table.collided[ring])
    q_index, q_call = concat_ranges(calls.q_start, np.where(routed, calls.m, 0))
    q_hash = _queue_hashes(batch, calls, routed)
    holder = table.route(ring[q_call], q_hash)
    rows = _takers(calls, start, q_call, holder, q_index)
    if len(fallback):
        rows = Rows.concat([rows, per_call_kernel(strategy, calls.subset(fallback))])
    return rows


def _rings(batch, calls, v, start, ordered, call) -> np.ndarray:
    """The ring of each call: a new one unless the previous call has the same virtual nodes and cidAll."""
    k_count = len(calls)
    if k_count == 0:
        return np.zeros(0, dtype=np.int64)
    keys = _client_keys(batch.names, ordered)
    candidate = np.zeros(k_count, dtype=bool)
    candidate[1:] = (calls.n[1:] == calls.n[:-1]) & (v[1:] == v[:-1])
    same = candidate.copy()
    cand = np.flatnonzero(candidate)
    if len(cand):
        at, owner = concat_ranges(start[cand], calls.n[cand])
        differs = keys[at] != keys[at - calls.n[cand][owner]]
        same[cand] = np.bincount(owner, weights=differs, minlength=len(cand)) == 0
    return np.cumsum(~same) - 1


def _block_width(rows: ByteRows, extra: int) -> int:
    """The width, in whole MD5 blocks, of a matrix that holds each string and `extra` more bytes."""
    return 64 * ((int(rows.lengths.max(initial=0)) + extra) // 64 + 1)


def _repeat_ranges(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For counts [2, 3]: ([0, 0, 1, 1, 1], [0, 1, 0, 1, 2])."""
    within, owner = concat_ranges(np.zeros(len(counts), dtype=np.int64), counts)
    return owner, within


class RingTable:
    """Rings as rows of sorted points `(hash << bits) | owner` (owner: cidAll.indexOf of the point's client id),
    rings of up to w points in a matrix w wide (w a power of two), the free places filled with `pad`, which
    sorts after every point. Laid end to end with the row number above the point, each matrix is one sorted
    array: `route` is one binary search per queue."""

    def __init__(self, hashes: np.ndarray, owner: np.ndarray, points: np.ndarray, most_owners: int):
        self.bits = max(1, int(most_owners).bit_length())  # owners < most_owners <= 2**bits - 1: pad is bigger
        self.span = 32 + self.bits
        pad = np.uint64((1 << self.span) - 1)
        size = np.diff(points)
        rings = len(size)
        self.size = size
        self.width = np.where(size > 1, np.left_shift(1, _bit_length(np.maximum(size, 1) - 1)), 1)
        self.row = np.zeros(rings, dtype=np.int64)  # row of each ring in its width's matrix
        self.collided = np.zeros(rings, dtype=bool)
        self.matrices: dict[int, np.ndarray] = {}  # width -> rows laid end to end (row << span | point)
        packed = (hashes.astype(np.uint64) << np.uint64(self.bits)) | owner.astype(np.uint64)
        for w in np.unique(self.width).tolist():
            mine = np.flatnonzero(self.width == w)
            self.row[mine] = np.arange(len(mine))
            matrix = np.full((len(mine), w), pad, dtype=np.uint64)
            at, which = concat_ranges(points[mine], size[mine])
            matrix.reshape(-1)[which * w + (at - points[mine][which])] = packed[at]
            matrix.sort(axis=1)
            real = np.arange(w) < size[mine][:, None]
            h = matrix >> np.uint64(self.bits)
            equal = (h[:, 1:] == h[:, :-1]) & real[:, 1:]
            self.collided[mine] = equal.any(axis=1)
            if len(mine) >= 1 << (64 - self.span):  # more rows than fit above the points: never in practice
                raise ValueError(f"{len(mine)} rings of {w} points are too many for one table")
            matrix |= np.arange(len(mine), dtype=np.uint64)[:, None] << np.uint64(self.span)
            self.matrices[w] = matrix.reshape(-1)

    def route(self, ring: np.ndarray, queue_hash: np.ndarray, after: bool = False) -> np.ndarray:
        """The owner of each queue: the first point at or after its hash in its ring (`after`: strictly after, as
        rocketmq-client-go's ring searches), else the ring's first."""
        out = np.empty(len(ring), dtype=np.int64)
        width = self.width[ring]
        mask = np.uint64((1 << self.bits) - 1)
        for w, flat in self.matrices.items():
            mine = np.flatnonzero(width == w) if len(self.matrices) > 1 else np.arange(len(ring))
            row = self.row[ring[mine]]
            key = (row.astype(np.uint64) << np.uint64(self.span)) | (queue_hash[mine].astype(np.uint64)
                                                                      << np.uint64(self.bits))
            if after:  # past every point of that hash, whatever its owner
                key |= mask
            at = np.searchsorted(flat, key, "right" if after else "left")
            col = at - row * w
            at = np.where(col >= self.size[ring[mine]], row * w, at)  # past the ring's last point: its first
            out[mine] = (flat[at] & mask).astype(np.int64)
        return out


def _bit_length(x: np.ndarray) -> np.ndarray:
    """int.bit_length of each (>= 0) number."""
    out = np.zeros(len(x), dtype=np.int64)
    x = x.astype(np.int64).copy()
    while x.any():
        nz = x > 0
        out += nz
        x >>= 1
    return out


def _queue_hashes(batch, calls, routed: np.ndarray) -> np.ndarray:
    """md5_hash(mq_string(q)) of every queue of the routed calls, in their order (each rebalance's queues hashed
    once, whatever the calls sharing it)."""
    reb = calls.rebalance[routed]
    if not len(reb):
        return np.zeros(0, dtype=np.uint32)
    if bool(np.all(reb[1:] >= reb[:-1])):
        distinct = reb[np.concatenate(([True], reb[1:] != reb[:-1]))]
    else:
        distinct = np.unique(reb)
    count = batch.q_off[distinct + 1] - batch.q_off[distinct]
    queues, which = concat_ranges(batch.q_off[distinct], count)
    broker = batch.q_broker[queues]
    # one prefix per run of a rebalance's queues on one broker (queues come broker by broker)
    new_run = np.ones(len(queues), dtype=bool)
    new_run[1:] = (which[1:] != which[:-1]) | (broker[1:] != broker[:-1])
    run_start = np.flatnonzero(new_run)
    run_of = np.cumsum(new_run) - 1
    brokers = ByteRows.from_bytes([java_utf8(b) for b in batch.brokers])
    topics = _topic_bytes(batch.names, distinct)
    longest = 43 + int(topics.lengths.max()) + int(brokers.lengths.max())  # 43: the constants' bytes
    width = 64 * (longest // 64 + 1)
    fixed_topics, fixed_brokers = (topics.fixed(), brokers.fixed()) if hasattr(np, "strings") else (None, None)
    if fixed_topics is not None and fixed_brokers is not None:  # numpy's (2.0+) string concatenation: a C loop
        text = np.strings.add(b"MessageQueue [topic=", fixed_topics[which[run_start]])
        for part in (b", brokerName=", fixed_brokers[broker[run_start]], b", queueId="):
            text = np.strings.add(text, part)
        prefixes = PaddedRows.from_fixed(text, width)
    else:
        prefixes = ByteRows.join([b"MessageQueue [topic=", topics.take(which[run_start]), b", brokerName=",
                                  brokers.take(broker[run_start]), b", queueId="], width)
    hashes = md5_head(ByteRows.join([ByteRows.decimal(batch.q_id[queues]), b"]"]), prefixes, run_of)
    # the routed calls' queues, by position in their rebalance's run of distinct queues
    at = np.searchsorted(distinct, reb)
    first = np.zeros(len(distinct) + 1, dtype=np.int64)
    np.cumsum(count, out=first[1:])
    offs, _ = concat_ranges(first[at], calls.m[routed])
    return hashes[offs]


def _takers(calls, start, q_call, holder, q_index):
    """Rows: each routed queue to the asking entries of its call whose cidAll index is its holder's."""
    slots = int(start[-1]) if len(start) else 0
    ask_slot = start[calls.ask_call] + calls.ask_index
    q_slot = start[q_call] + holder
    count = np.bincount(ask_slot, minlength=slots)
    if not len(count) or count.max() <= 1:  # one asking entry per client id: a lookup
        ask_at = np.full(slots, -1, dtype=np.int64)
        ask_at[ask_slot] = np.arange(len(ask_slot))
        a = ask_at[q_slot] if len(q_slot) else q_slot
        keep = a >= 0
        return Rows(calls.ask_entry[a[keep]], q_index[keep])
    order = np.argsort(ask_slot, kind="stable")
    first = np.zeros(slots + 1, dtype=np.int64)
    np.cumsum(count, out=first[1:])
    picks, q = concat_ranges(first[q_slot], count[q_slot])
    return Rows(calls.ask_entry[order[picks]], q_index[q])


# ------------------------------------------------------------------------- a batch's names as bytes, in bulk


def _client_keys(names, entries: np.ndarray) -> np.ndarray:
    """A number per entry, equal for equal client ids (`BatchNames.client_keys` when the names have it)."""
    fast = getattr(names, "client_keys", None)
    if fast is not None:
        return np.asarray(fast(entries), dtype=np.int64)
    ids: dict[str, int] = {}
    return np.array([ids.setdefault(c, len(ids)) for c in names.client_ids(entries)], dtype=np.int64)


def _client_id_bytes(names, entries: np.ndarray) -> ByteRows:
    fast = getattr(names, "client_id_bytes", None)
    if fast is not None:
        return fast(entries)
    return ByteRows.from_bytes([java_utf8(c) for c in names.client_ids(entries)])


def _topic_bytes(names, rebalances: np.ndarray) -> ByteRows:
    fast = getattr(names, "topic_bytes", None)
    if fast is not None:
        return fast(rebalances)
    return ByteRows.from_bytes([java_utf8(names.topic(r)) for r in rebalances.tolist()])

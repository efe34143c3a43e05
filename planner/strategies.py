"""The RocketMQ client's queue allocation strategies, exactly as the Java classes compute them.

Facts taken from apache/rocketmq `client/consumer/rebalance/*` and `common/consistenthash/*` (read, not copied):

- `RebalanceImpl` sorts `mqAll` (built from a Set, so no duplicate queues) and `cidAll` (duplicates kept), then
  calls `allocate(group, ownClientId, mqAll, cidAll)`. A throw fails that process's rebalance.
- `AbstractAllocateMessageQueueStrategy.check`: empty currentCID, empty mqAll or empty cidAll throw
  IllegalArgumentException (in that order); a currentCID missing from cidAll gives an empty share.
  Every strategy runs it first except CONFIG, which returns its fixed list whatever the input.
- Duplicated client ids: `cidAll.indexOf` finds the first one, so every process with that id gets that share.
- CONSISTENT_HASH: ring key = MD5 of the UTF-8 bytes, first 4 bytes as an unsigned big-endian number; a node's
  virtual keys are `cid + "-" + i`, numbered on from the replicas of that id already on the ring (a repeated id
  adds replicas); `TreeMap.put` on an equal hash replaces the owner; a queue routes to the first point at or after
  the hash of `MessageQueue [topic=T, brokerName=B, queueId=N]`, else the first point; an empty ring routes nothing.
- MACHINE_ROOM: queues whose brokerName splits on "@" (Java `split`, trailing empty parts dropped) into exactly
  two parts whose first part is in `consumeridcs`, then dealt out in blocks.
- MACHINE_ROOM_NEARBY: queues and clients grouped by room (`TreeMap`, so rooms in Java string order); a queue or
  client without a room (missing or empty) throws; the delegate allocates the current room's queues among that
  room's clients, then each room with no client is shared by all clients, in room order. The result keeps the
  Java list order (own room first), which is not queue order.

`allocate` is the straight transcription for one process (the reference); `allocate_all` computes every distinct
client id at once (one sort, one hash ring) for the engines' hot path. Tests check that the two agree.
"""

from __future__ import annotations

import bisect
import hashlib
import struct
from typing import Any, Mapping, Optional, Sequence, Union

from planner.javaorder import sort_client_ids, sort_queues, sort_strings
from planner.model import DEFAULT_VIRTUAL_NODES, STRATEGIES, STRATEGY_ALIASES, Queue, StrategySpec

IAE = "IllegalArgumentException"

Share = Union[list[Queue], "StrategyError"]


class StrategyError(Exception):
    """The Java strategy threw: its rebalance fails. `java_exception` is the simple class name."""

    def __init__(self, java_exception: str, message: str = "") -> None:
        super().__init__(f"{java_exception}: {message}" if message else java_exception)
        self.java_exception = java_exception
        self.message = message


class _Rooms:
    """The MachineRoomResolver: brokerName -> room, clientId -> room; a missing or empty entry is no room."""

    def __init__(self, broker_rooms: Optional[Mapping[str, str]], client_rooms: Optional[Mapping[str, str]]):
        self.broker_rooms = broker_rooms or {}
        self.client_rooms = client_rooms or {}

    def broker(self, q: Queue) -> Optional[str]:
        return self.broker_rooms.get(q.broker) or None

    def client(self, cid: str) -> Optional[str]:
        return self.client_rooms.get(cid) or None


# --------------------------------------------------------------------------------------------- strategy names


def _canonical(part: str) -> Optional[str]:
    if part in STRATEGIES:
        return part
    return STRATEGY_ALIASES.get(part.rsplit(".", 1)[-1])  # a class name, simple or fully qualified


def _unknown(name: str) -> ValueError:
    known = ", ".join(STRATEGIES)
    return ValueError(
        f"unknown strategy {name!r}: expected one of {known}, MACHINE_ROOM_NEARBY-<strategy>, "
        "or a Java class name such as AllocateMessageQueueAveragely"
    )


def parse_strategy_name(
    name: str,
    *,
    virtual_nodes: int = DEFAULT_VIRTUAL_NODES,
    consumer_idcs: Sequence[str] = (),
    nearby: Union[str, StrategySpec, None] = None,
    config_queues: Sequence[Sequence[Any]] = (),
) -> StrategySpec:
    """`"AVG"`, `"AllocateMessageQueueAveragely"`, `"MACHINE_ROOM_NEARBY-AVG"` (the Java `getName()` of a nearby
    strategy), or `"MACHINE_ROOM_NEARBY"` with `nearby=`. Parameters go to the strategy that uses them, also
    inside a nearby delegate. Raises ValueError with a message fit for a user."""
    if not isinstance(name, str):
        raise ValueError(f"strategy must be a string, got {type(name).__name__}")
    params = dict(virtual_nodes=virtual_nodes, consumer_idcs=consumer_idcs, config_queues=config_queues)
    outer, dash, rest = name.partition("-")
    canonical = _canonical(outer)
    if canonical is None or (dash and canonical != "MACHINE_ROOM_NEARBY"):
        raise _unknown(name)
    if canonical == "MACHINE_ROOM_NEARBY":
        if dash:
            if not rest:
                raise _unknown(name)
            try:
                delegate = parse_strategy_name(rest, **params)
            except ValueError:
                raise _unknown(name) from None
            if nearby is not None:
                other = nearby if isinstance(nearby, StrategySpec) else parse_strategy_name(nearby, **params)
                if other != delegate:
                    raise ValueError(f"strategy {name!r} names the delegate {rest!r} but nearby is {nearby!r}")
        elif nearby is None:
            raise ValueError("strategy MACHINE_ROOM_NEARBY needs a delegate strategy (e.g. nearby = \"AVG\")")
        else:
            delegate = nearby if isinstance(nearby, StrategySpec) else parse_strategy_name(nearby, **params)
        return StrategySpec(name=canonical, nearby=delegate)
    if canonical == "CONSISTENT_HASH":
        if isinstance(virtual_nodes, bool) or not isinstance(virtual_nodes, int) or virtual_nodes < 0:
            raise ValueError(f"virtual_nodes must be an integer >= 0, got {virtual_nodes!r}")
        return StrategySpec(name=canonical, virtual_nodes=virtual_nodes)
    if canonical == "MACHINE_ROOM":
        if isinstance(consumer_idcs, str) or not all(isinstance(r, str) for r in consumer_idcs):
            raise ValueError(f"consumer_idcs must be a list of room names, got {consumer_idcs!r}")
        return StrategySpec(name=canonical, consumer_idcs=tuple(sorted(set(consumer_idcs))))
    if canonical == "CONFIG":
        return StrategySpec(name=canonical, config_queues=tuple(_to_queue(q) for q in config_queues))
    return StrategySpec(name=canonical)


def _to_queue(q: Sequence[Any]) -> Queue:
    if isinstance(q, Queue):
        return q
    topic, broker, queue_id = q
    if not isinstance(topic, str) or not isinstance(broker, str) or isinstance(queue_id, bool) \
            or not isinstance(queue_id, int):
        raise ValueError(f"a queue is [topic, broker, queueId], got {list(q)!r}")
    return Queue(topic, broker, queue_id)


# ------------------------------------------------------------------------------------------ shared Java facts


def mq_string(q: Queue) -> str:
    """`MessageQueue.toString()`: the key CONSISTENT_HASH hashes."""
    return f"MessageQueue [topic={q.topic}, brokerName={q.broker}, queueId={q.queue_id}]"


def _java_utf8(s: str) -> bytes:
    """`String.getBytes(UTF_8)`: a lone surrogate becomes '?'."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        # Pair up surrogates written as two code points, as Java would see them, then replace lone ones.
        paired = s.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
        return paired.encode("utf-8", "replace")


try:  # CPython's built-in MD5 costs half of OpenSSL's per call on these short keys (the ring's hot loop)
    from _md5 import md5 as _md5
except ImportError:  # other interpreters
    def _md5(data: bytes):  # type: ignore[misc]
        return hashlib.md5(data, usedforsecurity=False)
_first_u32 = struct.Struct(">I").unpack_from


def _md5_bytes(data: bytes) -> int:
    return _first_u32(_md5(data).digest())[0]


def md5_hash(key: str) -> int:
    """ConsistentHashRouter's MD5Hash: the first 4 digest bytes as an unsigned number."""
    return _md5_bytes(_java_utf8(key))


def _java_split_at(s: str) -> list[str]:
    """`s.split("@")`: trailing empty strings are dropped (a string without "@" stays whole)."""
    if "@" not in s:
        return [s]
    parts = s.split("@")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _machine_room_queues(idcs: Sequence[str], mq_all: Sequence[Queue]) -> list[Queue]:
    rooms = set(idcs)
    picked = []
    for q in mq_all:
        parts = _java_split_at(q.broker)
        if len(parts) == 2 and parts[0] in rooms:
            picked.append(q)
    return picked


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
            prefix = _java_utf8(cid) + b"-"
            start = run_points
            for i in range(start, start + virtual_nodes):
                h = _md5_bytes(prefix + str(i).encode())
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


def _mq_hashes(mq_all: Sequence[Queue]) -> list[int]:
    """md5_hash(mq_string(q)) for each queue, encoding each topic and broker name once."""
    utf8: dict[str, bytes] = {}

    def enc(s: str) -> bytes:
        b = utf8.get(s)
        if b is None:
            b = utf8[s] = _java_utf8(s)
        return b

    return [_md5_bytes(b"MessageQueue [topic=" + enc(q[0]) + b", brokerName=" + enc(q[1])
                       + b", queueId=" + str(q[2]).encode() + b"]") for q in mq_all]


# ------------------------------------------------------------------------- one process: the Java transcription


def _check(current_cid: str, mq_all: Sequence[Queue], cid_all: Sequence[str]) -> bool:
    if not current_cid:
        raise StrategyError(IAE, "currentCID is empty")
    if not mq_all:
        raise StrategyError(IAE, "mqAll is null or mqAll empty")
    if not cid_all:
        raise StrategyError(IAE, "cidAll is null or cidAll empty")
    return current_cid in cid_all


def _one_avg(current: str, mq_all: Sequence[Queue], cid_all: Sequence[str]) -> list[Queue]:
    index = cid_all.index(current)
    mod = len(mq_all) % len(cid_all)
    if len(mq_all) <= len(cid_all):
        average = 1
    elif mod > 0 and index < mod:
        average = len(mq_all) // len(cid_all) + 1
    else:
        average = len(mq_all) // len(cid_all)
    start = index * average if (mod > 0 and index < mod) else index * average + mod
    count = min(average, len(mq_all) - start)
    return [mq_all[start + i] for i in range(count)]


def _one_avg_by_circle(current: str, mq_all: Sequence[Queue], cid_all: Sequence[str]) -> list[Queue]:
    index = cid_all.index(current)
    return [mq_all[i] for i in range(index, len(mq_all)) if i % len(cid_all) == index]


def _one_consistent_hash(spec: StrategySpec, current: str, mq_all: Sequence[Queue],
                         cid_all: Sequence[str]) -> list[Queue]:
    ring = HashRing(cid_all, spec.virtual_nodes)
    return [q for q in mq_all if ring.route(mq_string(q)) == current]


def _one_machine_room(spec: StrategySpec, current: str, mq_all: Sequence[Queue],
                      cid_all: Sequence[str]) -> list[Queue]:
    index = cid_all.index(current)
    pre = _machine_room_queues(spec.consumer_idcs, mq_all)
    mod, rem = divmod(len(pre), len(cid_all))
    result = pre[mod * index: mod * index + mod]
    if rem > index:
        result.append(pre[index + mod * len(cid_all)])
    return result


def _group_by_room(mq_all: Sequence[Queue], cid_all: Sequence[str],
                   rooms: _Rooms) -> tuple[dict[str, list[Queue]], dict[str, list[str]]]:
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


def _delegate(spec: StrategySpec) -> StrategySpec:
    if spec.nearby is None:
        raise StrategyError("NullPointerException", "allocateMessageQueueStrategy is null")
    return spec.nearby


def _one_machine_room_nearby(spec: StrategySpec, current: str, mq_all: Sequence[Queue], cid_all: Sequence[str],
                             rooms: _Rooms) -> list[Queue]:
    delegate = _delegate(spec)
    mr2mq, mr2c = _group_by_room(mq_all, cid_all, rooms)
    current_room = rooms.client(current)
    result: list[Queue] = []
    mq_here = mr2mq.pop(current_room, None)
    if mq_here:
        result.extend(_one(delegate, current, mq_here, mr2c.get(current_room) or [], rooms))
    for room in sort_strings(mr2mq):
        if room not in mr2c:
            result.extend(_one(delegate, current, mr2mq[room], cid_all, rooms))
    return result


def _one(spec: StrategySpec, current: str, mq_all: Sequence[Queue], cid_all: Sequence[str],
         rooms: _Rooms) -> list[Queue]:
    """One strategy call on lists already in the client's order (a delegate is called with sublists)."""
    if spec.name == "CONFIG":
        return list(spec.config_queues)
    if spec.name not in STRATEGIES:
        raise ValueError(f"unknown strategy {spec.name!r}")
    if not _check(current, mq_all, cid_all):
        return []
    if spec.name == "AVG":
        return _one_avg(current, mq_all, cid_all)
    if spec.name == "AVG_BY_CIRCLE":
        return _one_avg_by_circle(current, mq_all, cid_all)
    if spec.name == "CONSISTENT_HASH":
        return _one_consistent_hash(spec, current, mq_all, cid_all)
    if spec.name == "MACHINE_ROOM":
        return _one_machine_room(spec, current, mq_all, cid_all)
    return _one_machine_room_nearby(spec, current, mq_all, cid_all, rooms)


def _client_order(queues: Sequence[Any], client_ids: Sequence[str]) -> tuple[list[Queue], list[str]]:
    """What RebalanceImpl hands the strategy: the queue set sorted, the client id list sorted."""
    try:
        distinct = set(queues)
    except TypeError:  # lists, e.g. from JSON
        distinct = {_to_queue(q) for q in queues}
    else:
        if set(map(type, distinct)) != {Queue}:
            distinct = {_to_queue(q) for q in distinct}
    mq_all = sort_queues(distinct)
    return mq_all, sort_client_ids(client_ids)


def allocate(spec: StrategySpec, queues: Sequence[Any], client_ids: Sequence[str], current_cid: str, *,
             broker_rooms: Optional[Mapping[str, str]] = None,
             client_rooms: Optional[Mapping[str, str]] = None) -> list[Queue]:
    """The share of the process whose client id is `current_cid`. Raises StrategyError when Java throws."""
    mq_all, cid_all = _client_order(queues, client_ids)
    return _one(spec, current_cid, mq_all, cid_all, _Rooms(broker_rooms, client_rooms))


# ------------------------------------------------------------------------------ every process of a group at once


def _first_index(cid_all: Sequence[str]) -> dict[str, int]:
    """`cidAll.indexOf(cid)` for every distinct id (dict order = sorted order)."""
    first: dict[str, int] = {}
    for i, cid in enumerate(cid_all):
        first.setdefault(cid, i)
    return first


def _all_avg(spec: StrategySpec, mq_all: list[Queue], cid_all: list[str], rooms: _Rooms) -> dict[str, Share]:
    n, q = len(cid_all), len(mq_all)
    mod = q % n
    shares: dict[str, Share] = {}
    for cid, index in _first_index(cid_all).items():
        bigger = mod > 0 and index < mod
        average = 1 if q <= n else (q // n + 1 if bigger else q // n)
        start = index * average if bigger else index * average + mod
        shares[cid] = mq_all[start:start + max(0, min(average, q - start))]
    return shares


def _all_avg_by_circle(spec: StrategySpec, mq_all: list[Queue], cid_all: list[str],
                       rooms: _Rooms) -> dict[str, Share]:
    n = len(cid_all)
    return {cid: mq_all[index::n] for cid, index in _first_index(cid_all).items()}


def _all_consistent_hash(spec: StrategySpec, mq_all: list[Queue], cid_all: list[str],
                         rooms: _Rooms) -> dict[str, Share]:
    shares: dict[str, Share] = {cid: [] for cid in _first_index(cid_all)}
    ring = HashRing(cid_all, spec.virtual_nodes)
    if ring.points:
        points, owners, last = ring.points, ring.owners, len(ring.points)
        for q, h in zip(mq_all, _mq_hashes(mq_all)):
            i = bisect.bisect_left(points, h)
            shares[owners[i if i < last else 0]].append(q)  # type: ignore[union-attr]
    return shares


def _all_machine_room(spec: StrategySpec, mq_all: list[Queue], cid_all: list[str],
                      rooms: _Rooms) -> dict[str, Share]:
    pre = _machine_room_queues(spec.consumer_idcs, mq_all)
    n = len(cid_all)
    mod, rem = divmod(len(pre), n)
    shares: dict[str, Share] = {}
    for cid, index in _first_index(cid_all).items():
        share = pre[mod * index: mod * index + mod]
        if rem > index:
            share.append(pre[index + mod * n])
        shares[cid] = share
    return shares


def _all_machine_room_nearby(spec: StrategySpec, mq_all: list[Queue], cid_all: list[str],
                             rooms: _Rooms) -> dict[str, Share]:
    distinct = _first_index(cid_all)
    try:
        delegate = _delegate(spec)
        mr2mq, mr2c = _group_by_room(mq_all, cid_all, rooms)
    except StrategyError as e:
        return {cid: e for cid in distinct}
    shares: dict[str, Share] = {cid: [] for cid in distinct}
    # 1. each room's queues among that room's clients (one delegate run per room)
    for room, clients in mr2c.items():
        mq_here = mr2mq.get(room)
        if mq_here:
            shares.update(_all_sorted(delegate, mq_here, clients, rooms))
    # 2. rooms without a client, shared by all, in TreeMap order; a throw stops that process's run
    for room in sort_strings(mr2mq):
        if room in mr2c:
            continue
        shared = _all_sorted(delegate, mr2mq[room], cid_all, rooms)
        for cid, have in shares.items():
            if isinstance(have, StrategyError):
                continue
            extra = shared[cid]
            if isinstance(extra, StrategyError):
                shares[cid] = extra
            else:
                have.extend(extra)
    return shares


_ALL = {
    "AVG": _all_avg,
    "AVG_BY_CIRCLE": _all_avg_by_circle,
    "CONSISTENT_HASH": _all_consistent_hash,
    "MACHINE_ROOM": _all_machine_room,
    "MACHINE_ROOM_NEARBY": _all_machine_room_nearby,
}


def _all_sorted(spec: StrategySpec, mq_all: list[Queue], cid_all: list[str], rooms: _Rooms) -> dict[str, Share]:
    if spec.name == "CONFIG":  # no check(): the fixed list for everyone
        return {cid: list(spec.config_queues) for cid in _first_index(cid_all)}
    compute = _ALL.get(spec.name)
    if compute is None:
        raise ValueError(f"unknown strategy {spec.name!r}")
    if not mq_all:  # check() throws for every process (cidAll is not empty here)
        error = StrategyError(IAE, "mqAll is null or mqAll empty")
        shares: dict[str, Share] = {cid: error for cid in _first_index(cid_all)}
    else:
        shares = compute(spec, mq_all, cid_all, rooms)
    if "" in shares:  # check() looks at currentCID first
        shares[""] = StrategyError(IAE, "currentCID is empty")
    return shares


def allocate_all(spec: StrategySpec, queues: Sequence[Any], client_ids: Sequence[str], *,
                 broker_rooms: Optional[Mapping[str, str]] = None,
                 client_rooms: Optional[Mapping[str, str]] = None) -> dict[str, Share]:
    """Every distinct client id's share (or the StrategyError its process hits), keys in Java order.
    Equal to `allocate` per client id; the lists are fresh, callers may keep them."""
    mq_all, cid_all = _client_order(queues, client_ids)
    if not cid_all:
        return {}
    return _all_sorted(spec, mq_all, cid_all, _Rooms(broker_rooms, client_rooms))

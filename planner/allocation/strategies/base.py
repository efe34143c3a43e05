"""What every allocation strategy is made of: the `Strategy` base class, its parameters, and the Java facts the
strategies share.

A strategy is one class in one module of this package (see `rmqplan.allocation.strategies`). It says:
- `name` (fleet.toml's canonical name, e.g. "AVG") and `java_class` (the simple name of the RocketMQ class, accepted
  in place of the name, simple or fully qualified);
- `params`: the fleet.toml keys it reads (`Param`s below), with their defaults and checks;
- `allocate_one`: the straight transcription of the Java class for one process (the reference every engine is
  tested against), over lists already in the client's order;
- optionally `allocate_all` (every distinct client id at once; by default `allocate_one` per id) and `kernel`
  (the vectorised form over columnar batches, `rmqplan.allocation.kernel`).

Facts taken from apache/rocketmq `client/consumer/rebalance/*` (read, not copied):
- `RebalanceImpl` sorts `mqAll` (built from a Set, so no duplicate queues) and `cidAll` (duplicates kept), then
  calls `allocate(group, ownClientId, mqAll, cidAll)`. A throw fails that process's rebalance.
- `AbstractAllocateMessageQueueStrategy.check`: empty currentCID, empty mqAll or empty cidAll throw
  IllegalArgumentException (in that order); a currentCID missing from cidAll gives an empty share. Every strategy
  runs it first unless it says otherwise (`checks_input = False`: CONFIG returns its list whatever the input).
- Duplicated client ids: `cidAll.indexOf` finds the first one, so every process with that id gets that share.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Optional, Sequence, Union

from rmqplan.model.fleet import DEFAULT_VIRTUAL_NODES, Queue, StrategySpec

if TYPE_CHECKING:
    import numpy as np

    from rmqplan.allocation.batch import Rows

IAE = "IllegalArgumentException"
MAX_VIRTUAL_NODES = 100_000  # a bigger ring takes minutes to build; no real client uses one


class StrategyError(Exception):
    """The Java strategy threw: its rebalance fails. `java_exception` is the simple class name."""

    def __init__(self, java_exception: str, message: str = "") -> None:
        super().__init__(f"{java_exception}: {message}" if message else java_exception)
        self.java_exception = java_exception
        self.message = message

    def __reduce__(self):  # picklable with its two fields (Spark ships results between processes)
        return (StrategyError, (self.java_exception, self.message))


Share = Union[list[Queue], StrategyError]


class Rooms:
    """The MachineRoomResolver: brokerName -> room, clientId -> room; a missing or empty entry is no room."""

    def __init__(self, broker_rooms: Optional[Mapping[str, str]] = None,
                 client_rooms: Optional[Mapping[str, str]] = None):
        self.broker_rooms = broker_rooms or {}
        self.client_rooms = client_rooms or {}

    def broker(self, q: Queue) -> Optional[str]:
        return self.broker_rooms.get(q.broker) or None

    def client(self, cid: str) -> Optional[str]:
        return self.client_rooms.get(cid) or None


# ------------------------------------------------------------------------------------------------- parameters


def describe_value(value: Any) -> str:
    """A value as the user wrote it (TOML or JSON), for "got ..."."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value if len(value) <= 40 else value[:37] + "..."}"'
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__name__}"


def _virtual_nodes(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected an integer >= 0, got {describe_value(value)}")
    if value > MAX_VIRTUAL_NODES:
        raise ValueError(f"expected an integer from 0 to {MAX_VIRTUAL_NODES}, got {value}")
    return value


def _consumer_idcs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(r, str) for r in value):
        raise ValueError(f"expected an array of room names, got {describe_value(value)}")
    return tuple(sorted(set(value)))  # a HashSet in the client: order and repeats do not matter


def to_queue(q: Any) -> Queue:
    """A queue given as `[topic, broker, queueId]` (or a Queue). Raises ValueError."""
    if isinstance(q, Queue):
        return q
    ok = (isinstance(q, (list, tuple)) and len(q) == 3 and isinstance(q[0], str) and isinstance(q[1], str)
          and isinstance(q[2], int) and not isinstance(q[2], bool) and q[2] >= 0)
    if not ok:
        shown = list(q) if isinstance(q, (list, tuple)) else describe_value(q)
        raise ValueError(f"expected [topic, broker, queueId >= 0], got {shown}")
    return Queue(q[0], q[1], q[2])


def _config_queues(value: Any) -> tuple[Queue, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"expected an array of [topic, broker, queueId], got {describe_value(value)}")
    out = []
    for i, q in enumerate(value):
        try:
            out.append(to_queue(q))
        except ValueError as e:
            raise ValueError(f"[{i}]: {e}") from None  # the caller puts the key in front: "queues[2]: ..."
    return tuple(out)


class ParamError(ValueError):
    """A strategy name or parameter that cannot be used: `key` is the fleet.toml key ("strategy", "nearby",
    "virtual_nodes", ...), `detail` says what is wrong ("expected ..., got ..."); `at(key)` puts them together,
    so the fleet parser can prefix its key path and `rmqplan allocate` its field name."""

    def __init__(self, key: str, detail: str):
        super().__init__(at_key(key, detail) if key != "strategy" else detail)
        self.key = key
        self.detail = detail

    def at(self, key: str) -> str:
        return at_key(key, self.detail)


def at_key(key: str, detail: str) -> str:
    """"queues" + "[2]: expected ..." -> "queues[2]: expected ..."; otherwise "key: detail"."""
    return f"{key}{detail}" if detail.startswith("[") else f"{key}: {detail}"


@dataclass(frozen=True)
class Param:
    """A strategy parameter: its fleet.toml key (also the `rmqplan allocate` case field, except `queues`, which a
    case calls `config_queues`), the `StrategySpec` field that holds it, its default and its check (returns the
    normalised value or raises ValueError: "expected ..., got ...", to follow the key; a message that starts
    with "[" names an item, "queues[2]: ...")."""

    key: str
    field: str
    default: Any
    check: Callable[[Any], Any]
    case_field: str = ""  # the name in `rmqplan allocate` cases, when it differs from `key`

    @property
    def case_key(self) -> str:
        return self.case_field or self.key


VIRTUAL_NODES = Param("virtual_nodes", "virtual_nodes", DEFAULT_VIRTUAL_NODES, _virtual_nodes)
CONSUMER_IDCS = Param("consumer_idcs", "consumer_idcs", (), _consumer_idcs)
CONFIG_QUEUES = Param("queues", "config_queues", (), _config_queues, case_field="config_queues")
# `nearby` (a delegate strategy) is parsed by the registry: its value names another strategy.
NEARBY_KEY = "nearby"
ALL_PARAMS = (VIRTUAL_NODES, CONSUMER_IDCS, CONFIG_QUEUES)


# ------------------------------------------------------------------------------------------ shared Java facts


def mq_string(q: Queue) -> str:
    """`MessageQueue.toString()`: the key CONSISTENT_HASH hashes."""
    return f"MessageQueue [topic={q.topic}, brokerName={q.broker}, queueId={q.queue_id}]"


def java_utf8(s: str) -> bytes:
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


def md5_bytes(data: bytes) -> int:
    return _first_u32(_md5(data).digest())[0]


def md5_hash(key: str) -> int:
    """ConsistentHashRouter's MD5Hash: the first 4 digest bytes as an unsigned number."""
    return md5_bytes(java_utf8(key))


def check(current_cid: str, mq_all: Sequence[Queue], cid_all: Sequence[str]) -> bool:
    """`AbstractAllocateMessageQueueStrategy.check`: throws like Java; False when currentCID is not in cidAll."""
    if not current_cid:
        raise StrategyError(IAE, "currentCID is empty")
    if not mq_all:
        raise StrategyError(IAE, "mqAll is null or mqAll empty")
    if not cid_all:
        raise StrategyError(IAE, "cidAll is null or cidAll empty")
    return current_cid in cid_all


def first_index(cid_all: Sequence[str]) -> dict[str, int]:
    """`cidAll.indexOf(cid)` for every distinct id (dict order = sorted order)."""
    first: dict[str, int] = {}
    for i, cid in enumerate(cid_all):
        first.setdefault(cid, i)
    return first


# ----------------------------------------------------------------------------------------------- the base class


class Strategy:
    """One allocation strategy. Subclasses set the class attributes and `allocate_one`; see the module docstring.
    Instances are stateless; the registry holds one per class."""

    name: ClassVar[str]
    java_class: ClassVar[str]
    params: ClassVar[tuple[Param, ...]] = ()
    takes_delegate: ClassVar[bool] = False  # MACHINE_ROOM_NEARBY: `nearby` names the strategy used inside a room
    checks_input: ClassVar[bool] = True  # runs AbstractAllocateMessageQueueStrategy.check first
    generatable: ClassVar[bool] = False  # `[generate] strategies` may draw it (it needs no parameter, no room)
    # Client releases whose classes changed how this strategy allocates, oldest first: a process on an older client
    # runs the older form (`StrategySpec.classes_before`; `rmqplan.allocation.strategies.for_release`).
    changed_in: ClassVar[tuple[tuple[int, int, int], ...]] = ()
    # Whose code this class transcribes: "java" (a strategy of its own, `name` new to the registry) or another
    # client's form of the Java strategy `name` ("go": `rmqplan.allocation.strategies.go`), which the processes of
    # that client run (`StrategySpec.client`).
    client: ClassVar[str] = "java"
    # Other names fleet.toml and code facts may give the strategy by (another client's function names)
    aliases: ClassVar[tuple[str, ...]] = ()

    def spec(self, **values: Any) -> StrategySpec:
        """The StrategySpec of this strategy with the given parameter values (checked; others default). Values of
        parameters this strategy does not read are ignored, so a spec compares equal whatever they were."""
        spec = StrategySpec(self.name)
        fields = {}
        for p in self.params:
            if p.key in values and values[p.key] is not None:
                fields[p.field] = p.check(values[p.key])
            else:
                fields[p.field] = p.default
        return replace(spec, **fields)

    def checks(self, spec: StrategySpec) -> bool:
        """Whether the class runs `check` first (`checks_input`; a strategy whose older releases did not says so
        by the spec's `classes_before`)."""
        return self.checks_input

    def describe(self, spec: StrategySpec) -> str:
        """How messages name it, e.g. "CONSISTENT_HASH (3 virtual nodes)"."""
        return spec.name

    def unassigned_reason(self, spec: StrategySpec) -> Optional[str]:
        """Why this strategy, so configured, leaves queues to nobody by design (for PLAN001/PLAN003 messages),
        or None when it gives every queue to some client id."""
        return None

    # -- the reference: one process ---------------------------------------------------------------------------

    def allocate_one(self, spec: StrategySpec, current: str, mq_all: Sequence[Queue], cid_all: Sequence[str],
                     rooms: Rooms) -> list[Queue]:
        """The share of `current`, transcribed from the Java class, after `check` (when `checks_input`)."""
        raise NotImplementedError

    def call_one(self, spec: StrategySpec, current: str, mq_all: Sequence[Queue], cid_all: Sequence[str],
                 rooms: Rooms) -> list[Queue]:
        """`allocate(...)` as the client calls it: `check` first (unless the class skips it), then the split."""
        if self.checks(spec) and not check(current, mq_all, cid_all):
            return []
        return self.allocate_one(spec, current, mq_all, cid_all, rooms)

    # -- every distinct client id at once ---------------------------------------------------------------------

    def allocate_all(self, spec: StrategySpec, mq_all: list[Queue], cid_all: list[str],
                     rooms: Rooms) -> dict[str, Share]:
        """Every distinct id's share, `mq_all` not empty and `cid_all` sorted; errors are values. Subclasses
        override this with a faster form; tests prove it equal to `call_one` per id."""
        shares: dict[str, Share] = {}
        for cid in first_index(cid_all):
            try:
                shares[cid] = self.call_one(spec, cid, mq_all, cid_all, rooms)
            except StrategyError as e:
                shares[cid] = e
        return shares

    # -- the vectorised form: many calls over a batch ---------------------------------------------------------

    def kernel(self, calls) -> "Rows":
        """Every call of this strategy in a batch (`rmqplan.allocation.batch.Calls`) -> who holds what (`Rows`). The
        default runs `allocate_all` call by call on the names (exact, for strategies without a vectorised form);
        the built-in strategies override it with array arithmetic."""
        return per_call_kernel(self, calls)


def call_inputs(calls, k: int) -> tuple[list[Queue], list[str], "np.ndarray", Rooms]:
    """What the Java class gets for call k: mqAll (Queues, RocketMQ order), cidAll (sorted ids), the sorted
    entries, and the room resolver of the batch."""
    import numpy as np

    batch = calls.batch
    r = int(calls.rebalance[k])
    start, m = int(calls.q_start[k]), int(calls.m[k])
    mq_all = [batch.queue(r, i) for i in range(start, start + m)]
    lo, hi = int(batch.c_off[r]), int(batch.c_off[r + 1])
    entries = np.arange(lo, hi, dtype=np.int64)
    entries = entries[np.argsort(batch.c_order[lo:hi], kind="stable")]
    cid_all = batch.names.client_ids(entries)
    broker_rooms = {name: batch.rooms[room] for name, room in zip(batch.brokers, batch.broker_room) if room >= 0}
    client_rooms = {cid: batch.rooms[batch.c_room[e]] for cid, e in zip(cid_all, entries) if batch.c_room[e] >= 0}
    return mq_all, cid_all, entries, Rooms(broker_rooms, client_rooms)


def per_call_kernel(strategy: Strategy, calls) -> "Rows":
    """Run `allocate_all` for each call and turn the shares into rows (queues of the call by index, others as
    `extra`), errors by entry."""
    import numpy as np

    from rmqplan.allocation.batch import Rows
    from rmqplan.allocation.strategies import allocate_sorted

    entry_out, queue_out, pos_out = [], [], []
    rows = Rows.empty()
    order = np.argsort(calls.ask_call, kind="stable")
    bounds = np.searchsorted(calls.ask_call[order], np.arange(len(calls) + 1))
    for k in range(len(calls)):
        asks = order[bounds[k]:bounds[k + 1]]
        if not len(asks):
            continue
        mq_all, cid_all, entries, rooms = call_inputs(calls, k)
        spec = calls.spec_of(k)
        shares = allocate_sorted(spec, mq_all, cid_all, rooms)
        at = {q: int(calls.q_start[k]) + i for i, q in enumerate(mq_all)}
        cid_of_entry = dict(zip(entries.tolist(), cid_all))
        for a in asks:
            e = int(calls.ask_entry[a])
            share = shares[cid_of_entry[e]]
            if isinstance(share, StrategyError):
                rows.errors[e] = str(share)
                continue
            for pos, q in enumerate(share):
                i = at.get(q)
                if i is None:
                    rows.extra.append((e, q, pos))
                else:
                    entry_out.append(e)
                    queue_out.append(i)
                    pos_out.append(pos)
    rows.entry = np.asarray(entry_out, dtype=np.int64)
    rows.queue = np.asarray(queue_out, dtype=np.int64)
    rows.pos = np.asarray(pos_out, dtype=np.int64)
    return rows

"""The synthetic fleet of `[generate]`, built the same way as numpy arrays (`generated_batch`, what both engines
allocate) and in plain Python (`generated_group`, what reports name and tests check against).

Every random choice is `field_hash(seed, group index, field)`: a few rounds of multiply-add modulo the prime
2^31-1 and xor-shifts. Each product stays below 2^62, so int64 arrays never overflow, and the arrays and the
Python function give the same numbers bit for bit.

What a generated group looks like (group index g, 0-based):
- group `GID_<g:07d>`, clustering, subscribing `*` to its own topic `TOPIC_<g:07d>`;
- the topic is on every broker `broker-00`, `broker-01`, ... with `queues` read (= write) queues per broker,
  each drawn uniformly from [low, high];
- `instances` processes, drawn from [low, high]; the strategy is drawn from `strategies` (default AVG;
  CONSISTENT_HASH uses 10 virtual nodes);
- a share `colliding_client_ids` of the groups runs old clients in containers on host networking: every process
  reports `10.<a>.0.1@1`, one client id (labels `<host>#1..n`). Otherwise process i runs on its own host
  `10.<a>.<i // 256>.<i % 256>` and reports `<host>@<pid>#<nanotime>` (a 4.9+ client), unique by construction.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterator

from rmqplan.model.draws import (  # noqa: F401 - the generator's names for its draws, imported from here too
    COLLIDE_SCALE,
    COLLIDING_CLIENT_VERSION,
    F_COLLIDE,
    F_HOST,
    F_INSTANCES,
    F_NANOTIME,
    F_PROCESS,
    F_QUEUES,
    F_STRATEGY,
    MODULUS,
    NANOTIME_STEP,
    PROCESS_STEP,
    collide_threshold,
    draw,
    field_hash,
    field_np,
    mix_np,
    seed_state,
)
from rmqplan.model.identity import instance_name_for
from rmqplan.model.fleet import (
    CLUSTERING,
    Broker,
    Process,
    Fleet,
    GenerateSpec,
    Group,
    InstanceSpec,
    Queue,
    StrategySpec,
    SubscriptionSpec,
    Topic,
)

def group_name(g: int) -> str:
    return f"GID_{g:07d}"


def topic_name(g: int) -> str:
    return f"TOPIC_{g:07d}"


def strategy_names(spec: GenerateSpec) -> tuple[str, ...]:
    from rmqplan.allocation.strategies import generatable_names

    names = tuple(spec.strategies) or ("AVG",)
    drawable = generatable_names()
    for name in names:
        if name not in drawable:
            raise ValueError(f"generate.strategies: {name!r} is not one of {', '.join(drawable)}")
    return names


@dataclass(frozen=True)
class GeneratedGroup:
    """One generated group: its topic's queue counts per broker and its processes, declaration order."""

    index: int
    group: str
    topic: str
    strategy: str
    colliding: bool
    queue_counts: tuple[int, ...]  # per broker, in `GenerateSpec.broker_names` order
    hosts: tuple[str, ...]
    instances: tuple[str, ...]  # labels "<host>#<n>"
    client_ids: tuple[str, ...]

    def queues(self, brokers: list[str]) -> list[Queue]:
        """Readable queues in RocketMQ order (broker names sort like their indices)."""
        return [Queue(self.topic, b, i) for b, count in zip(brokers, self.queue_counts) for i in range(count)]


def generated_group(spec: GenerateSpec, g: int, state: int | None = None) -> GeneratedGroup:
    state = seed_state(spec.seed) if state is None else state
    strategies = strategy_names(spec)
    n = draw(field_hash(state, g, F_INSTANCES), spec.instances)
    colliding = field_hash(state, g, F_COLLIDE) % COLLIDE_SCALE < collide_threshold(spec)
    strategy = strategies[field_hash(state, g, F_STRATEGY) % len(strategies)]
    counts = tuple(draw(field_hash(state, g, F_QUEUES + b), spec.queues) for b in range(spec.brokers))
    if colliding:
        host = f"10.{field_hash(state, g, F_HOST) % 256}.0.1"
        hosts = (host,) * n
        labels = tuple(f"{host}#{i + 1}" for i in range(n))
        cids = (f"{host}@1",) * n
    else:
        hs, ls, cs = [], [], []
        a0, nano0 = field_hash(state, g, F_PROCESS), field_hash(state, g, F_NANOTIME)
        for i in range(n):
            a = (a0 + i * PROCESS_STEP) % MODULUS
            nano = (nano0 + i * NANOTIME_STEP) % MODULUS
            host = f"10.{a % 256}.{i // 256}.{i % 256}"
            hs.append(host)
            ls.append(f"{host}#1")
            cs.append(f"{host}@{1 + (a >> 8) % 65535}#{nano}")
        hosts, labels, cids = tuple(hs), tuple(ls), tuple(cs)
    return GeneratedGroup(g, group_name(g), topic_name(g), strategy, colliding, counts, hosts, labels, cids)


def largest_group(spec: GenerateSpec) -> int:
    """The most processes any generated group has (the steps a restart of every group takes), computed as
    `generated_batch` draws them, a million groups at a time."""
    import numpy as np

    most, state = 0, seed_state(spec.seed)
    lo, hi = spec.instances
    for start in range(0, spec.groups, 1 << 20):
        g = np.arange(start, min(start + (1 << 20), spec.groups), dtype=np.int64)
        n = lo + _field_np(_mix_np((state + g) % MODULUS), F_INSTANCES) % (hi - lo + 1)
        most = max(most, int(n.max()))
        if most == hi:
            break
    return most


def iter_generated_groups(spec: GenerateSpec, start: int = 0, stop: int | None = None) -> Iterator[GeneratedGroup]:
    """The generated groups `start <= g < stop` (default all), one at a time: no fleet held in memory."""
    state = seed_state(spec.seed)
    for g in range(start, spec.groups if stop is None else min(stop, spec.groups)):
        yield generated_group(spec, g, state)


def strategy_spec(name: str) -> StrategySpec:
    """A drawn strategy with its default parameters (e.g. CONSISTENT_HASH: 10 virtual nodes)."""
    from rmqplan.allocation.strategies import strategy_of

    return strategy_of(name).spec()


def generated_instance_specs(gg: GeneratedGroup, gpath: str) -> tuple[InstanceSpec, ...]:
    """The processes of a generated group as fleet.toml would declare them: a colliding group is `count`
    containers with pid 1 on a pre-4.9.0 client on one host; otherwise each process's pid#nanotime is written as
    a fixed instanceName, which yields the same client id."""
    if gg.colliding:
        return (InstanceSpec(f"{gpath}.instances[0]", (gg.hosts[0],), count=len(gg.hosts), pid=1,
                             client_version=COLLIDING_CLIENT_VERSION),)
    return tuple(InstanceSpec(f"{gpath}.instances[{i}]", (host,), instance_name=cid.split("@", 1)[1])
                 for i, (host, cid) in enumerate(zip(gg.hosts, gg.client_ids)))


def generated_fleet(spec: GenerateSpec, path: str = "<generated>") -> Fleet:
    """The generated groups as a hand-written fleet would give them (for small counts and the local engine),
    see `generated_instance_specs`."""
    brokers = spec.broker_names()
    topics, groups = [], []
    for gg in iter_generated_groups(spec):
        counts = dict(zip(brokers, gg.queue_counts))
        topics.append(Topic(gg.topic, counts, dict(counts), tuple(brokers)))
        gpath = f"generate.groups[{gg.index}]"
        specs = generated_instance_specs(gg, gpath)
        groups.append(Group(gpath, gg.group, CLUSTERING, strategy_spec(gg.strategy),
                            (SubscriptionSpec(gg.topic, "*"),), specs))
    return Fleet(path, tuple(Broker(b) for b in brokers), tuple(topics), tuple(groups), (), None)


# ------------------------------------------------------------------------------------------------ numpy side


_mix_np, _field_np = mix_np, field_np


@functools.lru_cache(maxsize=16)
def _decimal_ranks(count: int, terminator: str):
    """rank[v] = the position of str(v) + terminator among those strings for v < count, in Java (= ASCII) order:
    the order of a decimal field of a generated client id, whatever follows it (read-only: it is shared)."""
    import numpy as np

    order = sorted(range(count), key=lambda v: f"{v}{terminator}")
    ranks = np.empty(count, dtype=np.int64)
    ranks[order] = np.arange(count)
    ranks.flags.writeable = False
    return ranks


@dataclass
class GeneratedNames:
    """The strings of a generated batch (`generated_batch`), computed only when asked for."""

    spec: GenerateSpec
    groups: "object"  # np.ndarray: the group index g of each batch group
    process_group: "object"  # np.ndarray: per process, its batch group
    process_i: "object"  # np.ndarray: per process, its declaration index in its group
    entry_process: "object"  # np.ndarray: per batch entry, its process
    colliding: "object"
    shared_host: "object"
    a0: "object"
    nano0: "object"

    def topic(self, r: int) -> str:
        g = int(self.groups[r // 2])
        return topic_name(g) if r % 2 == 0 else f"%RETRY%{group_name(g)}"

    def processes(self, k: int, strategy: StrategySpec) -> list[Process]:
        """The processes of batch group k as `rmqplan.model.identity` expands `generated_instance_specs` (tested equal),
        without building the fleet."""
        g = int(self.groups[k])
        name = group_name(g)
        subscriptions = (SubscriptionSpec(topic_name(g), "*"),)
        first = int(self.process_group.searchsorted(k, "left"))
        last = int(self.process_group.searchsorted(k, "right"))
        path = f"generate.groups[{g}]"
        out = []
        if self.colliding[k]:
            host = f"10.{int(self.shared_host[k])}.0.1"
            source = colliding_id_source()
            for i in range(last - first):
                out.append(Process(name, f"{host}#{i + 1}", host, f"{host}@1", source, strategy, subscriptions,
                                   None, f"{path}.instances[0]", COLLIDING_CLIENT_VERSION))
            return out
        a0, nano0 = int(self.a0[k]), int(self.nano0[k])
        for i in range(last - first):
            a = (a0 + i * PROCESS_STEP) % MODULUS
            nano = (nano0 + i * NANOTIME_STEP) % MODULUS
            host = f"10.{a % 256}.{i // 256}.{i % 256}"
            instance_name = f"{1 + (a >> 8) % 65535}#{nano}"
            out.append(Process(name, f"{host}#1", host, f"{host}@{instance_name}",
                               f"fixed instanceName '{instance_name}'", strategy, subscriptions, None,
                               f"{path}.instances[{i}]"))
        return out

    def client_ids(self, entries) -> list[str]:
        out = []
        for p in self.entry_process[entries].tolist():
            k, i = int(self.process_group[p]), int(self.process_i[p])
            if self.colliding[k]:
                out.append(f"10.{int(self.shared_host[k])}.0.1@1")
            else:
                a = (int(self.a0[k]) + i * PROCESS_STEP) % MODULUS
                nano = (int(self.nano0[k]) + i * NANOTIME_STEP) % MODULUS
                out.append(f"10.{a % 256}.{i // 256}.{i % 256}@{1 + (a >> 8) % 65535}#{nano}")
        return out


    # The same strings in bulk, for the strategies that hash them (CONSISTENT_HASH): `rmqplan.allocation.batch`.

    def client_keys(self, entries):
        """A number per entry, equal for entries of one client id: the process, or the group of a colliding one."""
        import numpy as np

        p = self.entry_process[entries]
        k = self.process_group[p]
        return np.where(self.colliding[k], -1 - k, p)

    def client_id_bytes(self, entries):
        import numpy as np

        p = self.entry_process[entries]
        k = self.process_group[p]
        i = self.process_i[p]
        a = (self.a0[k] + i * PROCESS_STEP) % MODULUS
        nano = (self.nano0[k] + i * NANOTIME_STEP) % MODULUS
        return client_id_bytes(np.asarray(self.colliding)[k], self.shared_host[k], a, i, 1 + (a >> 8) % 65535, nano)

    def topic_bytes(self, rebalances):
        return topic_bytes(self.groups[rebalances // 2], rebalances % 2 == 1)

    def topic_list(self, rebalances) -> list[str]:
        """`topic` of each rebalance, without a call and a numpy scalar per rebalance."""
        return [f"%RETRY%{group_name(g)}" if r & 1 else topic_name(g)
                for r, g in zip(rebalances.tolist(), self.groups[rebalances // 2].tolist())]


def client_id_bytes(colliding, shared_host, a, i, pid, nano):
    """`generated_group`'s client ids as ByteRows: `10.<a % 256>.<i // 256>.<i % 256>@<pid>#<nano>`, or
    `10.<shared host>.0.1@1` where `colliding`."""
    import numpy as np

    from rmqplan.allocation.byte_rows import ByteRows

    dec = ByteRows.decimal
    own = np.flatnonzero(~colliding)
    shared = np.flatnonzero(colliding)
    parts = [ByteRows.join([b"10.", dec(a[own] % 256), b".", dec(i[own] // 256), b".", dec(i[own] % 256), b"@",
                            dec(pid[own]), b"#", dec(nano[own])])]
    if len(shared):
        parts.append(ByteRows.join([b"10.", dec(shared_host[shared]), b".0.1@1"]))
    rows = ByteRows.stack(parts)
    if not len(shared):
        return rows
    order = np.empty(len(colliding), dtype=np.int64)
    order[np.concatenate([own, shared])] = np.arange(len(colliding))
    return rows.take(order)


def topic_bytes(g, retry):
    """The topic of group index g (`TOPIC_<g:07d>`), or its retry topic (`%RETRY%GID_<g:07d>`), as ByteRows."""
    import numpy as np

    from rmqplan.allocation.byte_rows import ByteRows

    number = ByteRows.decimal(g, 7)
    main, retries = np.flatnonzero(~retry), np.flatnonzero(retry)
    rows = ByteRows.stack([ByteRows.join([b"TOPIC_", number.take(main)]),
                           ByteRows.join([b"%RETRY%GID_", number.take(retries)])])
    order = np.empty(len(g), dtype=np.int64)
    order[np.concatenate([main, retries])] = np.arange(len(g))
    return rows.take(order)


def colliding_id_source() -> str:
    """Why every process of a colliding group reports one client id (pid-1 containers on an old client)."""
    return instance_name_for(InstanceSpec("", ("",), pid=1, client_version=COLLIDING_CLIENT_VERSION), CLUSTERING,
                             1)[1]


def generated_batch(spec: GenerateSpec, start: int, stop: int, groups=None):
    """The generated groups `start <= g < stop` (or the listed group indices `groups`, ascending) as a
    `rmqplan.allocation.batch.Batch`: per group its main topic and its
    retry topic (rebalances 2k and 2k + 1), the same numbers as `generated_group`, computed as arrays.

    Client id order without strings: a generated id is `10.<a>.<b>.<c>@...`, hosts unique within a group (b, c
    come from the process index), so two ids of a group compare as their host fields do, field by field; a
    decimal field followed by "." (which sorts before the digits) or "@" (after them) has a fixed rank among the
    numbers it can hold (`_decimal_ranks`). A colliding group's processes all have one id (index 0)."""
    import numpy as np

    from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, offsets, repeat_ranges
    from rmqplan.allocation.strategies import strategy_of

    g = np.arange(start, stop, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64)
    count = len(g)
    state = seed_state(spec.seed)
    gs = _mix_np((state + g) % MODULUS)
    lo_i, hi_i = spec.instances
    lo_q, hi_q = spec.queues
    names = strategy_names(spec)
    n = lo_i + _field_np(gs, F_INSTANCES) % (hi_i - lo_i + 1)
    colliding = _field_np(gs, F_COLLIDE) % COLLIDE_SCALE < collide_threshold(spec)
    strategy = (_field_np(gs, F_STRATEGY) % len(names)).astype(np.int32)
    brokers = spec.brokers
    counts = np.stack([lo_q + _field_np(gs, F_QUEUES + b) % (hi_q - lo_q + 1) for b in range(brokers)], axis=1)
    shared_host = _field_np(gs, F_HOST) % 256
    a0, nano0 = _field_np(gs, F_PROCESS), _field_np(gs, F_NANOTIME)

    # processes: group k, index i (a decimal field's rank by `& 255` and `>> 8`: the numbers are >= 0)
    p_off = offsets(n)
    k = np.repeat(np.arange(count, dtype=np.int64), n)
    i = repeat_ranges(np.zeros(count, dtype=np.int64), n)
    a = a0[k]
    a += i * PROCESS_STEP
    a %= MODULUS
    third = _decimal_ranks(256, "@")
    second = _decimal_ranks(max(hi_i // 256 + 1, 1), ".")
    first = _decimal_ranks(256, ".")
    key = first[a & 255]
    key *= len(second)
    key += second[i >> 8]
    key *= 256
    key += third[i & 255]
    shared = colliding[k]
    key[shared] = 0
    key += k * (256 * 256 * len(second))
    order = np.argsort(key, kind="stable")
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order)) - p_off[k[order]]
    index = np.where(shared, 0, position) if colliding.any() else position

    # entries: each group's processes twice (main topic, then retry topic)
    n2 = np.repeat(n, 2)
    entry_process = repeat_ranges(np.repeat(p_off[:-1], 2), n2)
    # queues: per group its topic's queues broker by broker, then the retry topic's one queue per broker
    m = counts.sum(axis=1)
    q_counts = np.stack([m, np.full(count, brokers)], axis=1).reshape(-1)
    seg_counts = np.concatenate([counts, np.ones((count, brokers), dtype=np.int64)], axis=1).reshape(-1)
    seg_broker = np.tile(np.arange(brokers, dtype=np.int32), 2 * count)
    seg_start = np.zeros(len(seg_counts), dtype=np.int32)
    np.cumsum(seg_counts[:-1], out=seg_start[1:])
    q_id = np.arange(int(seg_start[-1] + seg_counts[-1]) if count else 0, dtype=np.int32)
    q_id -= np.repeat(seg_start, seg_counts)
    specs = [strategy_of(name).spec() for name in names]
    return Batch(
        scenario=np.zeros(2 * count, dtype=np.int32),
        group=np.repeat(g, 2),
        model=np.full(2 * count, CLUSTERING_CODE, dtype=np.int8),
        retry=np.tile(np.array([False, True]), count),
        q_off=offsets(q_counts),
        c_off=offsets(n2),
        q_broker=np.repeat(seg_broker, seg_counts), q_id=q_id,
        c_index=index[entry_process], c_order=position[entry_process],
        c_asks=np.ones(len(entry_process), dtype=bool),
        c_spec=np.repeat(strategy, 2 * n),
        c_room=np.full(len(entry_process), -1, dtype=np.int32),
        specs=specs, brokers=spec.broker_names(), broker_room=np.full(brokers, -1, dtype=np.int32), rooms=[],
        names=GeneratedNames(spec, g, k, i, entry_process, colliding, shared_host, a0, nano0),
    )


def generated_group_fleet(spec: GenerateSpec, g: int) -> tuple[Group, Topic]:
    """Generated group g as a hand-written fleet would declare it (`generated_instance_specs`)."""
    gg = generated_group(spec, g)
    brokers = spec.broker_names()
    counts = dict(zip(brokers, gg.queue_counts))
    gpath = f"generate.groups[{g}]"
    group = Group(gpath, gg.group, CLUSTERING, strategy_spec(gg.strategy), (SubscriptionSpec(gg.topic, "*"),),
                  generated_instance_specs(gg, gpath))
    return group, Topic(gg.topic, counts, dict(counts), tuple(brokers))

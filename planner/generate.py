"""The synthetic fleet of `[generate]` (DESIGN §5), built the same way in Spark and in plain Python.

Every random choice is `field_hash(seed, group index, field)`: a few rounds of multiply-add modulo the prime
2^31-1 and xor-shifts. Each product stays below 2^62, so Spark's ANSI mode never overflows, and the Spark
columns (`field_hash_col`) and the Python function give the same numbers bit for bit.

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

from dataclasses import dataclass
from typing import Iterator

from planner.model import (
    CLUSTERING,
    Broker,
    Fleet,
    GenerateSpec,
    Group,
    InstanceSpec,
    Queue,
    StrategySpec,
    SubscriptionSpec,
    Topic,
)

MODULUS = 2_147_483_647  # 2^31 - 1
COLLIDE_SCALE = 1_000_000  # colliding_client_ids is compared in millionths
COLLIDING_CLIENT_VERSION = "4.5.1"  # colliding groups: pid 1 in containers on a client older than 4.9.0

# Fields: what each hash draws.
F_INSTANCES = 1
F_COLLIDE = 2
F_STRATEGY = 3
F_HOST = 4  # the shared host of a colliding group
F_QUEUES = 16  # + broker index
F_PROCESS = 5  # the hosts/pids of a group's processes
F_NANOTIME = 6  # their nanotimes
# Per process i a single multiply-add on the group's draw (cheap inside Spark's interpreted array lambdas).
PROCESS_STEP = 1_234_567_891
NANOTIME_STEP = 987_654_323


def _mix(x: int) -> int:
    x = (x * 1_103_515_245 + 12_345) % MODULUS
    x ^= x >> 16
    x = (x * 1_664_525 + 1_013_904_223) % MODULUS
    return x ^ (x >> 13)


def seed_state(seed: int) -> int:
    """The seed folded into [0, 2^31-1): computed once in Python and passed to Spark as a literal."""
    return _mix(seed % MODULUS)


def field_hash(state: int, g: int, f: int) -> int:
    """A number in [0, 2^31) for (seed, group index, field); `state` is `seed_state(seed)`."""
    return _mix((_mix((state + g) % MODULUS) + f) % MODULUS)


def broker_names(spec: GenerateSpec) -> list[str]:
    width = max(2, len(str(spec.brokers - 1)))
    return [f"broker-{b:0{width}d}" for b in range(spec.brokers)]


def group_name(g: int) -> str:
    return f"GID_{g:07d}"


def topic_name(g: int) -> str:
    return f"TOPIC_{g:07d}"


def strategy_names(spec: GenerateSpec) -> tuple[str, ...]:
    from planner.strategies import generatable_names

    names = tuple(spec.strategies) or ("AVG",)
    drawable = generatable_names()
    for name in names:
        if name not in drawable:
            raise ValueError(f"generate.strategies: {name!r} is not one of {', '.join(drawable)}")
    return names


def collide_threshold(spec: GenerateSpec) -> int:
    return round(spec.colliding_client_ids * COLLIDE_SCALE)


def _draw(h: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return low + h % (high - low + 1)


@dataclass(frozen=True)
class GeneratedGroup:
    """One generated group: its topic's queue counts per broker and its processes, declaration order."""

    index: int
    group: str
    topic: str
    strategy: str
    colliding: bool
    queue_counts: tuple[int, ...]  # per broker, in `broker_names` order
    hosts: tuple[str, ...]
    instances: tuple[str, ...]  # labels "<host>#<n>"
    client_ids: tuple[str, ...]

    def queues(self, brokers: list[str]) -> list[Queue]:
        """Readable queues in RocketMQ order (broker names sort like their indices)."""
        return [Queue(self.topic, b, i) for b, count in zip(brokers, self.queue_counts) for i in range(count)]


def generated_group(spec: GenerateSpec, g: int, state: int | None = None) -> GeneratedGroup:
    state = seed_state(spec.seed) if state is None else state
    strategies = strategy_names(spec)
    n = _draw(field_hash(state, g, F_INSTANCES), spec.instances)
    colliding = field_hash(state, g, F_COLLIDE) % COLLIDE_SCALE < collide_threshold(spec)
    strategy = strategies[field_hash(state, g, F_STRATEGY) % len(strategies)]
    counts = tuple(_draw(field_hash(state, g, F_QUEUES + b), spec.queues) for b in range(spec.brokers))
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


def iter_generated_groups(spec: GenerateSpec, start: int = 0, stop: int | None = None) -> Iterator[GeneratedGroup]:
    """The generated groups `start <= g < stop` (default all), one at a time: no fleet held in memory."""
    state = seed_state(spec.seed)
    for g in range(start, spec.groups if stop is None else min(stop, spec.groups)):
        yield generated_group(spec, g, state)


def strategy_spec(name: str) -> StrategySpec:
    """A drawn strategy with its default parameters (e.g. CONSISTENT_HASH: 10 virtual nodes)."""
    from planner.strategies import strategy_of

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
    brokers = broker_names(spec)
    topics, groups = [], []
    for gg in iter_generated_groups(spec):
        counts = dict(zip(brokers, gg.queue_counts))
        topics.append(Topic(gg.topic, counts, dict(counts), tuple(brokers)))
        gpath = f"generate.groups[{gg.index}]"
        specs = generated_instance_specs(gg, gpath)
        groups.append(Group(gpath, gg.group, CLUSTERING, strategy_spec(gg.strategy),
                            (SubscriptionSpec(gg.topic, "*"),), specs))
    return Fleet(path, tuple(Broker(b) for b in brokers), tuple(topics), tuple(groups), (), None)


# ------------------------------------------------------------------------------------------------ Spark side


def _mix_col(x):
    from pyspark.sql import functions as F

    x = F.pmod(x * F.lit(1_103_515_245) + F.lit(12_345), F.lit(MODULUS))
    x = x.bitwiseXOR(F.shiftright(x, 16))
    x = F.pmod(x * F.lit(1_664_525) + F.lit(1_013_904_223), F.lit(MODULUS))
    return x.bitwiseXOR(F.shiftright(x, 13))


def group_state_col(state: int, g):
    """The per-group part of `field_hash` (materialise it as a column: each mix references its input twice)."""
    from pyspark.sql import functions as F

    return _mix_col(F.pmod(F.lit(state) + g, F.lit(MODULUS)))


def field_hash_col(group_state, f):
    """`field_hash` as a Spark column, from the `group_state_col` column and a field (long column or literal)."""
    from pyspark.sql import functions as F

    return _mix_col(F.pmod(group_state + f, F.lit(MODULUS)))


def process_columns(i) -> dict:
    """host, instance and client_id of process `i` (a long column or lambda variable) of a generated group row
    (needs its columns colliding, shared_host, a0, nano0): the same formulas as `generated_group`."""
    from pyspark.sql import functions as F

    a = F.pmod(F.col("a0") + i * F.lit(PROCESS_STEP), F.lit(MODULUS))
    nano = F.pmod(F.col("nano0") + i * F.lit(NANOTIME_STEP), F.lit(MODULUS))
    own_host = F.concat_ws(".", F.lit("10"), F.pmod(a, F.lit(256)).cast("string"),
                           F.floor(i / 256).cast("long").cast("string"), F.pmod(i, F.lit(256)).cast("string"))
    own_cid = F.concat(own_host, F.lit("@"), (F.lit(1) + F.pmod(F.shiftright(a, 8), F.lit(65535))).cast("string"),
                       F.lit("#"), nano.cast("string"))
    return {
        "host": F.when(F.col("colliding"), F.col("shared_host")).otherwise(own_host),
        "instance": F.when(F.col("colliding"), F.concat(F.col("shared_host"), F.lit("#"), (i + 1).cast("string")))
        .otherwise(F.concat(own_host, F.lit("#1"))),
        "client_id": F.when(F.col("colliding"), F.concat(F.col("shared_host"), F.lit("@1"))).otherwise(own_cid),
    }


def group_columns(spec: GenerateSpec) -> dict:
    """Every per-group column of `generated_groups_df` as an expression of the columns `g` and `gs`
    (`group_state_col`), so that they can be (re)computed on any DataFrame that has the group index."""
    from pyspark.sql import functions as F

    strategies = strategy_names(spec)
    g, gs = F.col("g"), F.col("gs")
    lo_i, hi_i = spec.instances
    lo_q, hi_q = spec.queues
    return {
        "group": F.format_string("GID_%07d", g),
        "topic": F.format_string("TOPIC_%07d", g),
        "strategy": F.element_at(F.array(*[F.lit(s) for s in strategies]),
                                 (F.pmod(field_hash_col(gs, F.lit(F_STRATEGY)), F.lit(len(strategies))) + 1)
                                 .cast("int")),
        "colliding": F.pmod(field_hash_col(gs, F.lit(F_COLLIDE)), F.lit(COLLIDE_SCALE))
        < F.lit(collide_threshold(spec)),
        "n": (F.lit(lo_i) + F.pmod(field_hash_col(gs, F.lit(F_INSTANCES)), F.lit(hi_i - lo_i + 1))).cast("int"),
        "queue_counts": F.array(*[
            (F.lit(lo_q) + F.pmod(field_hash_col(gs, F.lit(F_QUEUES + b)), F.lit(hi_q - lo_q + 1))).cast("int")
            for b in range(spec.brokers)
        ]),
        "shared_host": F.concat(F.lit("10."), F.pmod(field_hash_col(gs, F.lit(F_HOST)), F.lit(256)).cast("string"),
                                F.lit(".0.1")),
        "a0": field_hash_col(gs, F.lit(F_PROCESS)),
        "nano0": field_hash_col(gs, F.lit(F_NANOTIME)),
    }


def with_group_columns(df, spec: GenerateSpec, names=None):
    """`df` (which has the group index `g`) plus the named `group_columns` (default all)."""
    from pyspark.sql import functions as F

    cols = group_columns(spec)
    names = list(cols) if names is None else list(names)
    return (df.withColumn("gs", group_state_col(seed_state(spec.seed), F.col("g")))
            .select(*[c for c in df.columns if c not in names], *(cols[name].alias(name) for name in names)))


def default_partitions(spark, groups: int) -> int:
    """Range partitions for `groups` generated groups: at least one per core, and at most about 125k groups
    (1.3M processes) each, so that the per-partition sort by client id stays in memory at default settings."""
    return max(spark.sparkContext.defaultParallelism, -(-groups // 125_000))


def generated_groups_df(spark, spec: GenerateSpec, num_partitions: int | None = None, with_processes: bool = False,
                        ids=None):
    """One row per generated group, built from `spark.range` (or the long column `g` of `ids`) with column
    arithmetic only. A range keeps each group in one partition, and Spark knows it: per-group windows and
    aggregations downstream need no shuffle.

    Columns: g (long), group, topic, strategy, colliding, n (processes), queue_counts (array<int>, broker order),
    and what `process_columns` needs (shared_host, a0, nano0). `with_processes` adds `processes`
    (array<struct<i, host, instance, client_id>>, declaration order; an interpreted lambda, for small fleets)."""
    from pyspark.sql import functions as F

    if ids is not None:
        base = ids.select(F.col("g").cast("long").alias("g"))
    else:
        partitions = num_partitions or default_partitions(spark, spec.groups)
        base = spark.range(0, spec.groups, 1, partitions).select(F.col("id").alias("g"))
    df = with_group_columns(base, spec)
    if with_processes:
        # An optimizer barrier: without it Spark inlines the group hashes into the interpreted lambda below and
        # recomputes them for every process (a Generate is never collapsed).
        df = df.select("*", F.explode_outer(F.array(F.lit(0))).alias("_barrier")).drop("_barrier")

        def process(i):
            cols = process_columns(i)
            return F.struct(i.cast("int").alias("i"), *(c.alias(name) for name, c in cols.items()))

        df = df.withColumn("processes", F.transform(F.sequence(F.lit(0).cast("long"), (F.col("n") - 1).cast("long")),
                                                    process))
    return df

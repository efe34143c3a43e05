"""The RocketMQ allocation strategies as DataFrame transformations (built-in column functions only).

Every function here is DataFrame -> DataFrame (or builds a column) and is chained with `.transform`; none runs
Python per row. The semantics are `planner.strategies` (the Java classes), see its docstring; here is how each
becomes column arithmetic:

- Java order: strings sort by UTF-16 code units, so sort keys are `encode(s, 'UTF-16BE')` (binary compares
  unsigned bytewise, exactly like the code units).
- A process's `index` is `cidAll.indexOf(cid)`: the first position of its key in the group's sorted key array.
- AVG / AVG_BY_CIRCLE / MACHINE_ROOM give each index a range (or a stride) of queue ranks: arithmetic, then a
  `sequence` of ranks joined back to the queues (or mapped to (broker, queueId) arithmetically for generated
  fleets, see `planner.spark_generated`).
- CONSISTENT_HASH: ring points and queue keys hashed with the built-in md5 (first 4 bytes =
  `conv(substr(md5(key), 1, 8), 16, 10)`); a repeated client id numbers its replicas on from the earlier copies;
  on equal hashes the later put wins (max put order); a queue routes to the first point at or after its hash
  (a window over points and queues sorted by hash, descending), else to the first point.
- MACHINE_ROOM_NEARBY: a process's share is the union of "asks": its own room's queues among its room's clients,
  then each room without clients among all clients, each with the delegate strategy. Each ask is a sub-problem
  (`pk`: scenario, group, topic, room, scope) with its own queue ranks and client list.

Input tables (see `planner.spark` for how a fleet becomes them):
- processes: scenario, group, model, ord, instance, host, client_id, room, subscribed (array<string>), the
  strategy (s_name, s_vnodes, s_idcs, s_cfg) and its nearby delegate (d_name, d_vnodes, d_idcs, d_cfg);
- topics: scenario, group, topic, is_retry, t_ord;
- queues: scenario, group, topic, broker, queue_id, broker_room.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

GT = ["scenario", "group", "topic"]  # one rebalance: a group's topic in a scenario
SG = ["scenario", "group"]
# One strategy call: p_room "" is the whole topic; a room (MACHINE_ROOM_NEARBY) restricts the queues to it, and
# p_scope "room" restricts the clients to it too. (No nulls in join keys: null never equals null.)
PK = ["scenario", "group", "topic", "p_room", "p_scope"]
CFG_TYPE = "array<struct<topic:string,broker:string,queue_id:int>>"


def java_key(col) -> Column:
    """Sort key in Java string order."""
    return F.encode(col, "UTF-16BE")


def md5_hash(key) -> Column:
    """ConsistentHashRouter's MD5Hash: the first 4 digest bytes as an unsigned number."""
    return F.conv(F.substring(F.md5(key), 1, 8), 16, 10).cast("long")


def mq_string(topic, broker, queue_id) -> Column:
    """`MessageQueue.toString()`."""
    return F.concat(F.lit("MessageQueue [topic="), topic, F.lit(", brokerName="), broker, F.lit(", queueId="),
                    queue_id.cast("string"), F.lit("]"))


# ------------------------------------------------------------------------------------------- range arithmetic


def avg_start_count(index: Column, n: Column, m: Column) -> tuple[Column, Column]:
    """AllocateMessageQueueAveragely: the first rank and how many ranks the process at `index` takes."""
    mod = m % n
    bigger = (mod > 0) & (index < mod)
    average = F.when(m <= n, F.lit(1)).when(bigger, (m / n).cast("long") + 1).otherwise((m / n).cast("long"))
    start = F.when(bigger, index * average).otherwise(index * average + mod)
    count = F.greatest(F.lit(0), F.least(average, m - start))
    return start, count


def circle_count(index: Column, n: Column, m: Column) -> Column:
    """AllocateMessageQueueAveragelyByCircle: ranks index, index+n, ... below m."""
    return F.when(index < m, F.floor((m - index + n - 1) / n)).otherwise(F.lit(0)).cast("long")


def machine_room_ranks(index: Column, n: Column, p: Column) -> Column:
    """AllocateMessageQueueByMachineRoom over the `p` picked queues: a block of `p div n`, plus one of the rest."""
    mod = (p / n).cast("long")
    rem = p % n
    block = F.when(mod > 0, F.sequence(index * mod, index * mod + mod - 1)).otherwise(F.array().cast("array<long>"))
    extra = F.when(rem > index, F.array(index + mod * n)).otherwise(F.array().cast("array<long>"))
    return F.concat(block, extra)


def java_split_two_room(broker: Column) -> Column:
    """The room of `room@name` as MACHINE_ROOM reads it: Java `split("@")` (trailing empty parts dropped) must
    give exactly two parts; null otherwise."""
    trimmed = F.regexp_replace(broker, "@+$", "")  # Java drops trailing empty strings
    parts = F.split(trimmed, "@", -1)
    return F.when(F.instr(broker, "@") > 0, F.when(F.size(parts) == 2, parts.getItem(0)))


# ------------------------------------------------------------------------------------------- transformations


def rank_queues(queues: DataFrame, keys=GT) -> DataFrame:
    """Adds `rank` (0-based, RocketMQ order within `keys`) and `m` (queues in the call)."""
    w = Window.partitionBy(*keys).orderBy(java_key(F.col("topic")), java_key(F.col("broker")), F.col("queue_id"))
    return (queues.withColumn("rank", (F.row_number().over(w) - 1).cast("long"))
            .withColumn("m", F.count(F.lit(1)).over(Window.partitionBy(*keys)).cast("long")))


def index_clients(clients: DataFrame, keys=PK) -> DataFrame:
    """Adds `index` (`cidAll.indexOf(client_id)`), `n` (size of cidAll, duplicates kept) and `occurrence`
    (how many equal ids come before this entry in the sorted list) to one row per cidAll entry."""
    keyed = clients.withColumn("_k", java_key(F.col("client_id")))
    sorted_keys = keyed.groupBy(*keys).agg(F.sort_array(F.collect_list("_k")).alias("_keys"))
    w = Window.partitionBy(*keys, "_k").orderBy("ord")
    return (keyed.join(sorted_keys, keys)
            .withColumn("n", F.size("_keys").cast("long"))
            .withColumn("index", (F.array_position("_keys", F.col("_k")) - 1).cast("long"))
            .withColumn("occurrence", (F.row_number().over(w) - 1).cast("long"))
            .drop("_keys"))


def client_rooms(processes: DataFrame) -> DataFrame:
    """(scenario, group, client_id) -> room: the first process (declaration order) with that id and a room."""
    with_room = processes.where(F.col("room").isNotNull() & (F.col("room") != ""))
    return (with_room.groupBy(*SG, "client_id")
            .agg(F.min_by("room", "ord").alias("cid_room")))


def ranks_for_asks(asks: DataFrame) -> DataFrame:
    """For asks with `a_name` in AVG / AVG_BY_CIRCLE / MACHINE_ROOM and their `index`, `n`, `m` (and `p`, the
    MACHINE_ROOM-picked count): one row per rank the process takes (`rank`, in the call's queue order)."""
    start, count = avg_start_count(F.col("index"), F.col("n"), F.col("m"))
    ranks = (
        F.when(F.col("a_name") == "AVG",
               F.when(count > 0, F.sequence(start, start + count - 1)))
        .when(F.col("a_name") == "AVG_BY_CIRCLE",
              F.when(F.col("index") < F.col("m"), F.sequence(F.col("index"), F.col("m") - 1, F.col("n"))))
        .when(F.col("a_name") == "MACHINE_ROOM", machine_room_ranks(F.col("index"), F.col("n"), F.col("p")))
    )
    return asks.withColumn("rank", F.explode(ranks))


def hash_ring(clients: DataFrame, keys=PK) -> DataFrame:
    """Ring points of a ConsistentHashRouter per call and virtual node count `vnodes`: one row per point
    (`point`, `owner`) after equal-hash overwrites. `clients` is one row per cidAll entry, with `index`,
    `occurrence` (from `index_clients`) and `vnodes`."""
    replica = F.col("occurrence") * F.col("vnodes") + F.col("_i")
    points = (clients.where(F.col("vnodes") > 0)
              .withColumn("_i", F.explode(F.sequence(F.lit(0).cast("long"), F.col("vnodes").cast("long") - 1)))
              .withColumn("point", md5_hash(F.concat(F.col("client_id"), F.lit("-"), replica.cast("string"))))
              # put order: sorted cidAll position (index + occurrence), then replica
              .withColumn("_put", F.struct((F.col("index") + F.col("occurrence")).alias("p"), F.col("_i").alias("i"))))
    return (points.groupBy(*keys, "vnodes", "point")
            .agg(F.max_by("client_id", "_put").alias("owner")))


def route_on_ring(queues: DataFrame, ring: DataFrame, keys=PK) -> DataFrame:
    """Adds `owner` to each queue row (with `rank`) of each (call, vnodes): the first ring point at or after the
    hash of `MessageQueue [...]`, else the first point; no row when the ring is empty."""
    qs = queues.withColumn("point", md5_hash(mq_string(F.col("topic"), F.col("broker"), F.col("queue_id"))))
    cols = [*keys, "vnodes", "point"]
    both = (ring.select(*cols, F.col("owner"), F.lit(0).alias("_kind"), F.lit(None).cast("long").alias("rank"))
            .unionByName(qs.select(*cols, F.lit(None).cast("string").alias("owner"), F.lit(1).alias("_kind"),
                                   F.col("rank"))))
    # descending hash, ring points before queues on equal hashes: the last point seen is the first one >= hash
    w = (Window.partitionBy(*keys, "vnodes").orderBy(F.col("point").desc(), F.col("_kind"))
         .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    first_point = ring.groupBy(*keys, "vnodes").agg(F.min_by("owner", "point").alias("_first"))
    return (both.withColumn("_next", F.last("owner", ignorenulls=True).over(w))
            .where(F.col("_kind") == 1)
            .join(first_point, [*keys, "vnodes"])
            .select(*keys, "vnodes", "rank", F.coalesce("_next", "_first").alias("owner")))

"""The Spark engine (`rmqplan simulate --engine spark`, the default): same answers as `planner.local`.

Hand-written groups: the fleet's processes, topics and queues (expanded by `planner.identity` and
`planner.routes`, a few rows each) become three small DataFrames; the allocation and the failed processes are
DataFrame transformations (`planner.spark_alloc`), the problems are counted by `planner.tally`; the results of a hand-written fleet are small and collected into the same
`Simulation` the local engine returns, so reports and findings are identical.

`[generate]`d groups are built, allocated and counted inside Spark (`planner.spark_generated`); only totals and
the problem groups (orphaned, duplicated, idle, imbalanced) come back to the driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from planner.identity import group_processes
from planner.model import BROADCASTING, CLUSTERING, Fleet, GroupTopicResult, Process, Queue, SimulateOptions, Simulation
from planner.routes import readable_queues, retry_queues, retry_topic, topic_by_name
from planner.scenarios import moved_queues, scenario_processes
from planner.tally import tally
from planner.spark_session import SparkUnavailable, get_session, progress  # noqa: F401  (re-exported for cli)

BASELINE = "baseline"
# A hand-written fleet is a few thousand rows: one shuffle partition (not hundreds of empty tasks), and no code
# generation or adaptive re-planning, whose fixed costs dominate at this size.
SMALL_DATA_CONF = {"spark.sql.shuffle.partitions": "1", "spark.sql.codegen.wholeStage": "false",
                   "spark.sql.adaptive.enabled": "false"}


@dataclass
class FleetTables:
    """A hand-written fleet as rows, plus what the driver needs to rebuild results in the local engine's order."""

    processes: list  # rows for PROCESS_SCHEMA
    topics: list  # rows for TOPIC_SCHEMA
    queues: list  # rows for QUEUE_SCHEMA
    order: list  # [(scenario, group, topic, model, queues, processes, subscribers)] in result order
    scenarios: list


STRATEGY_FIELDS = "name string, vnodes int, idcs array<string>, cfg array<struct<topic:string,broker:string,queue_id:int>>"
PROCESS_SCHEMA = (
    "scenario string, group string, model string, ord int, instance string, host string, client_id string, "
    "room string, subscribed array<string>, "
    "s_name string, s_vnodes int, s_idcs array<string>, s_cfg array<struct<topic:string,broker:string,queue_id:int>>, "
    "d_name string, d_vnodes int, d_idcs array<string>, d_cfg array<struct<topic:string,broker:string,queue_id:int>>"
)
TOPIC_SCHEMA = "scenario string, group string, topic string, is_retry boolean, t_ord int"
QUEUE_SCHEMA = "scenario string, group string, topic string, broker string, queue_id int, broker_room string"


def _strategy_row(spec) -> tuple:
    if spec is None:
        return (None, None, None, None)
    return (spec.name, spec.virtual_nodes, list(spec.consumer_idcs),
            [(q.topic, q.broker, q.queue_id) for q in spec.config_queues])


def _rebalanced_topics(group, processes) -> list[str]:
    from planner.local import rebalanced_topics

    return rebalanced_topics(group, processes)


def fleet_tables(fleet: Fleet) -> FleetTables:
    """The baseline of every hand-written group, then each scenario's group, as rows."""
    rooms = {b.name: (b.room or None) for b in fleet.brokers}
    by_name = {g.name: g for g in fleet.groups}
    runs = [(BASELINE, g, group_processes(g)) for g in fleet.groups]
    runs += [(s.name, by_name[s.group], scenario_processes(by_name[s.group], s)) for s in fleet.scenarios]
    processes, topics, queues, order = [], [], [], []
    for scenario, group, procs in runs:
        for i, p in enumerate(procs):
            processes.append((scenario, group.name, group.model, i, p.instance, p.host, p.client_id, p.room,
                              [s.topic for s in p.subscriptions],
                              *_strategy_row(p.strategy), *_strategy_row(p.strategy.nearby)))
        names = _rebalanced_topics(group, procs)
        listed = [(t, readable_queues(fleet, topic_by_name(fleet, t)), False) for t in names]
        if group.model == CLUSTERING:
            listed.append((retry_topic(group.name), retry_queues(fleet, group.name, names), True))
        for t_ord, (t, qs, is_retry) in enumerate(listed):
            topics.append((scenario, group.name, t, is_retry, t_ord))
            queues.extend((scenario, group.name, t, q.broker, q.queue_id, rooms.get(q.broker)) for q in qs)
            subscribers = [p for p in procs if is_retry or any(s.topic == t for s in p.subscriptions)]
            order.append((scenario, group.name, t, group.model, qs, procs, subscribers, is_retry))
    return FleetTables(processes, topics, queues, order, [BASELINE, *(s.name for s in fleet.scenarios)])


def _materialize(df):
    """Cut the lineage of a small intermediate table: its plan is reused by several branches, and without this
    the final plan repeats it in every branch (the plan, not the data, is what grows)."""
    return df.localCheckpoint(eager=True)


def allocation_frames(spark, tables: FleetTables):
    """The DataFrames of one hand-written fleet: (assignments, errors).

    assignments: scenario, group, topic, instance, q_topic, broker, queue_id, ask_key, pos (sort keys);
    errors: scenario, group, topic, instance, error."""
    from pyspark.sql import functions as F

    from planner import spark_alloc as A

    procs = spark.createDataFrame(tables.processes, PROCESS_SCHEMA)
    topics = spark.createDataFrame(tables.topics, TOPIC_SCHEMA)
    queues = _materialize(spark.createDataFrame(tables.queues, QUEUE_SCHEMA).transform(A.rank_queues))
    m_per = queues.groupBy(*A.GT).agg(F.count(F.lit(1)).alias("m_all"))
    rooms = A.client_rooms(procs)
    everyone = _materialize(procs.join(rooms, [*A.SG, "client_id"], "left"))  # every cidAll entry, its id's room

    # Who rebalances what: every subscriber of every topic (a retry topic: every process).
    rebalancing = (topics.join(everyone, A.SG)
                   .where(F.col("is_retry") | F.array_contains("subscribed", F.col("topic")))
                   .join(m_per, A.GT))  # topics with no readable queue are not rebalanced
    rebalancing = _materialize(rebalancing)

    broadcast = (rebalancing.where(F.col("model") == BROADCASTING)
                 .join(queues.select(*A.GT, "broker", "queue_id", "rank"), A.GT)
                 .select(*A.GT, "instance", F.col("topic").alias("q_topic"), "broker", "queue_id",
                         F.lit(0).alias("ask_ord"), F.lit(None).cast("binary").alias("ask_room"),
                         F.col("rank").alias("pos")))
    clustering = rebalancing.where(F.col("model") == CLUSTERING)

    # MACHINE_ROOM_NEARBY throws for the whole group when a queue or a client id has no room.
    queue_error = (queues.where(F.col("broker_room").isNull() | (F.col("broker_room") == ""))
                   .groupBy(*A.GT)
                   .agg(F.min_by(F.concat(F.lit("IllegalArgumentException: Machine room is null for mq "),
                                          A.mq_string(F.col("topic"), F.col("broker"), F.col("queue_id"))),
                                 "rank").alias("q_err")))
    client_error = (everyone.where(F.col("cid_room").isNull())
                    .groupBy(*A.SG)
                    .agg(F.min_by(F.concat(F.lit("IllegalArgumentException: Machine room is null for consumer id "),
                                           F.col("client_id")), A.java_key(F.col("client_id"))).alias("c_err")))
    nearby = (clustering.where(F.col("s_name") == "MACHINE_ROOM_NEARBY")
              .join(queue_error, A.GT, "left").join(client_error, A.SG, "left")
              .withColumn("error", F.coalesce("q_err", "c_err")))
    errors = nearby.where(F.col("error").isNotNull()).select(*A.GT, "instance", "error")
    nearby_ok = nearby.where(F.col("error").isNull())

    def ask(df, prefix, room, scope, ask_room):
        return df.select(*A.GT, "instance", "client_id",
                         F.col(f"{prefix}_name").alias("a_name"), F.col(f"{prefix}_vnodes").alias("a_vnodes"),
                         F.col(f"{prefix}_idcs").alias("a_idcs"), F.col(f"{prefix}_cfg").alias("a_cfg"),
                         room.alias("p_room"), F.lit(scope).alias("p_scope"), ask_room.alias("ask_room"))

    plain = ask(clustering.where(F.col("s_name") != "MACHINE_ROOM_NEARBY"), "s", F.lit(""), "all",
                F.lit(None).cast("binary"))
    # 1. own room: the room's queues among the room's clients (only when the room has queues)
    rooms_with_queues = queues.select(*A.GT, F.col("broker_room").alias("cid_room")).distinct()
    own = ask(nearby_ok.join(rooms_with_queues, [*A.GT, "cid_room"]), "d", F.col("cid_room"), "room",
              F.lit(None).cast("binary"))
    # 2. each room with queues and no client, in Java order: its queues among all clients
    client_room_set = everyone.select(*A.SG, F.col("cid_room").alias("q_room")).distinct()
    lonely = (queues.select(*A.GT, F.col("broker_room").alias("q_room")).distinct()
              .join(client_room_set, [*A.SG, "q_room"], "left_anti"))
    shared = ask(nearby_ok.join(lonely, A.GT), "d", F.col("q_room"), "all", A.java_key(F.col("q_room")))
    asks = _materialize(plain.unionByName(own).unionByName(shared))

    # Each strategy call (pk): its queues in order, and its client list (every process of the group, or a room's).
    pks = asks.select(*A.PK).distinct()
    call_queues = (queues.drop("rank", "m").join(pks, A.GT)
                   .where((F.col("p_room") == "") | (F.col("broker_room") == F.col("p_room")))
                   .transform(lambda df: A.rank_queues(df, A.PK)))
    call_queues = _materialize(call_queues)
    call_clients = (everyone.join(pks, A.SG)
                    .where((F.col("p_scope") == "all") | (F.col("cid_room") == F.col("p_room")))
                    .transform(lambda df: A.index_clients(df, A.PK)))
    call_clients = _materialize(call_clients)
    client_index = call_clients.select(*A.PK, "client_id", "index", "n").distinct()
    sized = (asks.join(client_index, [*A.PK, "client_id"])
             .join(call_queues.select(*A.PK, "m").distinct(), A.PK))
    sized = _materialize(sized)

    queue_cols = [F.col("topic").alias("q_topic"), "broker", "queue_id"]
    out_cols = [*A.GT, "instance", "q_topic", "broker", "queue_id", "ask_room", "pos"]

    # AVG and AVG_BY_CIRCLE: ranges of ranks.
    ranged = (sized.where(F.col("a_name").isin("AVG", "AVG_BY_CIRCLE")).withColumn("p", F.lit(None).cast("long"))
              .transform(A.ranks_for_asks)
              .join(call_queues.select(*A.PK, "rank", *queue_cols), [*A.PK, "rank"])
              .withColumn("pos", F.col("rank")))
    # MACHINE_ROOM: the queues picked by consumer_idcs, dealt out in blocks.
    mr_asks = sized.where(F.col("a_name") == "MACHINE_ROOM")
    picked = (call_queues.drop("rank", "m")
              .join(mr_asks.select(*A.PK, "a_idcs").distinct(), A.PK)
              .where(F.array_contains("a_idcs", A.java_split_two_room(F.col("broker"))))
              .transform(lambda df: A.rank_queues(df, [*A.PK, "a_idcs"])))
    picked_count = picked.select(*A.PK, "a_idcs", F.col("m").alias("p")).distinct()
    machine_room = (mr_asks.join(picked_count, [*A.PK, "a_idcs"])
                    .transform(A.ranks_for_asks)
                    .join(picked.select(*A.PK, "a_idcs", "rank", *queue_cols), [*A.PK, "a_idcs", "rank"])
                    .withColumn("pos", F.col("rank")))
    # CONSISTENT_HASH: route every queue on the call's ring, keep the ones routed to the asking client id.
    ch_asks = sized.where(F.col("a_name") == "CONSISTENT_HASH").withColumnRenamed("a_vnodes", "vnodes")
    ring_keys = ch_asks.select(*A.PK, "vnodes").distinct()
    ring = A.hash_ring(call_clients.join(ring_keys, A.PK))
    routed = A.route_on_ring(call_queues.join(ring_keys, A.PK), ring)
    consistent = (ch_asks.join(routed, [*A.PK, "vnodes"])
                  .where(F.col("owner") == F.col("client_id"))
                  .join(call_queues.select(*A.PK, "rank", *queue_cols), [*A.PK, "rank"])
                  .withColumn("pos", F.col("rank")))
    # CONFIG: the fixed list, whatever the input.
    config = (sized.where(F.col("a_name") == "CONFIG")
              .select("*", F.posexplode("a_cfg").alias("pos", "q"))
              .select("*", F.col("q.topic").alias("q_topic"), F.col("q.broker").alias("broker"),
                      F.col("q.queue_id").alias("queue_id")))

    assignments = (ranged.select(*out_cols).unionByName(machine_room.select(*out_cols))
                   .unionByName(consistent.select(*out_cols)).unionByName(config.select(*out_cols))
                   .unionByName(broadcast.select(*out_cols)))
    assignments = _materialize(assignments)
    return assignments, errors


def simulate_hand_written(spark, fleet: Fleet) -> Simulation:
    """The exact results of the fleet's hand-written groups (and scenarios), computed in Spark, collected."""
    tables = fleet_tables(fleet)
    results: list[GroupTopicResult] = []
    if tables.processes:
        # A hand-written fleet is a few thousand rows: one shuffle partition avoids hundreds of empty tasks.
        previous = {k: spark.conf.get(k, None) for k in SMALL_DATA_CONF}
        for key, value in SMALL_DATA_CONF.items():
            spark.conf.set(key, value)
        try:
            assignments, errors = allocation_frames(spark, tables)
            assigned = sorted(assignments.collect(),
                              key=lambda r: (r.ask_room is not None, r.ask_room or b"", r.pos))
            error_rows = errors.collect()
        finally:
            for key, value in previous.items():
                if value is None:
                    spark.conf.unset(key)
                else:
                    spark.conf.set(key, value)
    else:
        assigned, error_rows = [], []
    shares: dict[tuple, list[Queue]] = {}
    for r in assigned:
        shares.setdefault((r.scenario, r.group, r.topic, r.instance), []).append(Queue(r.q_topic, r.broker, r.queue_id))
    failed: dict[tuple, dict] = {}
    for r in error_rows:
        failed.setdefault((r.scenario, r.group, r.topic), {})[r.instance] = r.error
    baseline: dict[tuple, GroupTopicResult] = {}
    for scenario, group, topic, model, qs, procs, subscribers, is_retry in tables.order:
        key = (scenario, group, topic)
        res = GroupTopicResult(scenario=scenario, group=group, topic=topic, model=model, queues=list(qs),
                               assignment={p.instance: shares.get((*key, p.instance), []) for p in subscribers},
                               processes=list(procs), errored=failed.get(key, {}))
        tally(res)
        if scenario == BASELINE:
            baseline[(group, topic)] = res
        else:
            res.moved = moved_queues(baseline.get((group, topic)), res)
        results.append(res)
    return Simulation(fleet, results, tables.scenarios)


def simulate(fleet: Fleet, options: Optional[SimulateOptions] = None) -> Simulation:
    """`rmqplan simulate --engine spark`. Raises SparkUnavailable (one line) when Spark cannot run."""
    options = options or SimulateOptions()
    spark = get_session(options.master, options.conf)
    sim = simulate_hand_written(spark, fleet)
    if fleet.generate is not None:
        from planner.spark_generated import simulate_generated

        sim = simulate_generated(spark, fleet, sim, options)
    return sim

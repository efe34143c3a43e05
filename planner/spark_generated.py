"""`[generate]`d groups in Spark: built, allocated and counted without a shuffle on the AVG path.

One row per group (`planner.generate.generated_groups_df`) carries its processes as a small array. Per group:
the client ids' Java sort keys are sorted (`sort_array` of `encode(cid, 'UTF-16BE')`), exploded with their sorted
position, and each process's `index` is the first position of its key. AVG and AVG_BY_CIRCLE then give each
process a range (or a stride) of queue ranks, and ranks map to (broker, queueId) from the per-broker counts
(brokers sort like their indices, so broker b starts at the sum of the counts before it). The retry topic
`%RETRY%<group>` has one queue per broker. Totals come from per-process arithmetic: for AVG and AVG_BY_CIRCLE
the ranges of distinct indices never overlap, so a range is held by as many processes as share that client id.
CONSISTENT_HASH groups route their queues on a ring (`planner.spark_alloc`), which needs a shuffle.

Only totals and the problem groups (orphaned, duplicated, idle or imbalanced; at most `DETAIL_LIMIT` shown in
full) reach the driver; `Simulation.write_tables` writes every assignment with Spark.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Optional

from pyspark.sql import DataFrame, functions as F

from planner import spark_alloc as A
from planner.generate import broker_names, generated_groups_df, process_columns
from planner.model import CLUSTERING, DEFAULT_VIRTUAL_NODES, GenerateSpec, GroupTopicResult, Process, Queue, \
    SimulateOptions, Simulation, StrategySpec, SubscriptionSpec
from planner.spark_session import progress

DETAIL_LIMIT = 200  # problem groups returned in full (the rest are counted in the totals)
RETRY_PREFIX = "%RETRY%"
TOTAL_KEYS = ("groups", "instances", "queues", "assignments", "orphaned_queues", "duplicated_queues", "idle_instances")


def materialized(df: DataFrame) -> DataFrame:
    """An optimizer barrier: Spark inlines a column's expression into every later use (CollapseProject), so an
    `index` used twenty times downstream would be searched for twenty times per row. A Generate is never
    collapsed, so exploding a one-element array pins the columns computed so far (in the same code-gen stage)."""
    return df.select("*", F.explode_outer(F.array(F.lit(0))).alias("_pin")).drop("_pin")


def with_sorted_clients(groups: DataFrame) -> DataFrame:
    """Adds `keys`: the group's client ids as Java sort keys with their declaration index, sorted (Java's
    cidAll). The lambda builds only the key; everything else about a process is computed after the explode."""
    def key(i):
        return F.struct(A.java_key(process_columns(i)["client_id"]).alias("k"), i.alias("i"))

    return groups.withColumn("keys", F.sort_array(F.transform(
        F.sequence(F.lit(0).cast("long"), F.col("n").cast("long") - 1), key)))


def explode_processes(groups: DataFrame, brokers: int) -> DataFrame:
    """One row per process: sorted position `sp`, `index` (cidAll.indexOf), `mult` (processes sharing its id),
    `m` (main topic queues), `offsets` (array of each broker's first rank), plus instance/host/client_id."""
    counts = [F.col("queue_counts").getItem(b).cast("long") for b in range(brokers)]
    offsets = [F.lit(0).cast("long")]
    for b in range(1, brokers):
        offsets.append(offsets[-1] + counts[b - 1])
    m = offsets[-1] + counts[-1]
    exploded = (groups
                .select("*", F.posexplode_outer("keys").alias("sp", "key"))
                .withColumn("kk", F.col("keys.k")))  # after the explode: reads the sorted array, no re-sort
    proc = process_columns(F.col("key.i"))
    return materialized(exploded
            .select("g", "group", "topic", "strategy", "colliding", F.col("n").cast("long").alias("n"),
                    m.alias("m"), "queue_counts", F.array(*offsets).alias("offsets"), "sp",
                    (F.array_position("kk", F.col("key.k")) - 1).cast("long").alias("index"),
                    (F.col("n") - F.size(F.array_remove("kk", F.col("key.k")))).cast("long").alias("mult"),
                    F.col("key.i").cast("int").alias("ord"),
                    *(c.alias(name) for name, c in proc.items())))


def with_shares(procs: DataFrame, brokers: int) -> DataFrame:
    """Adds, for AVG and AVG_BY_CIRCLE processes, `start`/`count` (main topic ranks) and `r_start`/`r_count`
    (retry ranks, one queue per broker); CONSISTENT_HASH rows get nulls (routed separately)."""
    avg_start, avg_count = A.avg_start_count(F.col("index"), F.col("n"), F.col("m"))
    r_m = F.lit(brokers).cast("long")
    r_avg_start, r_avg_count = A.avg_start_count(F.col("index"), F.col("n"), r_m)
    is_avg = F.col("strategy") == "AVG"
    is_circle = F.col("strategy") == "AVG_BY_CIRCLE"
    return materialized(procs
            .withColumn("count", F.when(is_avg, avg_count)
                        .when(is_circle, A.circle_count(F.col("index"), F.col("n"), F.col("m"))))
            .withColumn("start", F.when(is_avg, avg_start).when(is_circle, F.col("index")))
            .withColumn("step", F.when(is_avg, F.lit(1).cast("long")).when(is_circle, F.col("n")))
            .withColumn("r_count", F.when(is_avg, r_avg_count)
                        .when(is_circle, A.circle_count(F.col("index"), F.col("n"), r_m)))
            .withColumn("r_start", F.when(is_avg, r_avg_start).when(is_circle, F.col("index"))))


def ranged_assignments(procs: DataFrame, brokers: list[str]) -> DataFrame:
    """Explode AVG/AVG_BY_CIRCLE shares into (topic, broker, queue_id) rows, arithmetic only. A process holds
    ranks start, start+step, ... (count of them); each broker is a segment [lo, lo + c) of ranks (main topic:
    the broker's queues; retry topic: rank b is broker b's queue 0). Per segment, the held ranks inside it are a
    `sequence`, and queue_id = rank - lo. One explode chain, so observed metrics are counted once."""
    b = len(brokers)
    retry_topic = F.concat(F.lit(RETRY_PREFIX), F.col("group"))
    segments = [
        F.struct(F.col("topic").alias("t"), F.lit(brokers[i]).alias("broker"),
                 F.col("offsets").getItem(i).alias("lo"), F.col("queue_counts").getItem(i).cast("long").alias("c"),
                 F.col("start").alias("s"), F.col("count").alias("k"))
        for i in range(b)
    ] + [
        F.struct(retry_topic.alias("t"), F.lit(brokers[i]).alias("broker"), F.lit(i).cast("long").alias("lo"),
                 F.lit(1).cast("long").alias("c"), F.col("r_start").alias("s"), F.col("r_count").alias("k"))
        for i in range(b)
    ]
    seg = (procs  # CONSISTENT_HASH rows have null counts: `x.k > 0` drops them
           .select("g", "group", "instance", "client_id", "host", "step", F.explode(F.array(*segments)).alias("x"))
           .where(F.col("x.k") > 0))
    start, step, lo = F.col("x.s"), F.col("step"), F.col("x.lo")
    end = start + step * (F.col("x.k") - 1)  # last rank held
    first = F.when(lo <= start, start).otherwise(start + step * F.ceil((lo - start) / step))
    last = F.least(end, lo + F.col("x.c") - 1)
    return (seg.withColumn("first", first.cast("long")).withColumn("last", last.cast("long"))
            .where(F.col("first") <= F.col("last"))
            .select("g", "group", F.col("x.t").alias("topic"), "instance", "client_id", "host",
                    F.col("x.broker").alias("broker"),
                    F.explode(F.sequence((F.col("first") - lo).cast("int"), (F.col("last") - lo).cast("int"),
                                         step.cast("int"))).alias("queue_id")))


def consistent_hash_assignments(procs: DataFrame, brokers: list[str]) -> DataFrame:
    """CONSISTENT_HASH groups: every queue (main and retry) routed on the group's ring of 10 virtual nodes per
    client id entry; each process whose id owns a queue holds it."""
    keys = ["g", "topic"]
    ch = procs.where(F.col("strategy") == "CONSISTENT_HASH")
    topics = F.array(F.col("topic"), F.concat(F.lit(RETRY_PREFIX), F.col("group")))
    clients = (ch.select("*", F.explode(topics).alias("t")).drop("topic").withColumnRenamed("t", "topic")
               .withColumn("occurrence", F.col("sp") - F.col("index"))
               .withColumn("vnodes", F.lit(DEFAULT_VIRTUAL_NODES)))
    ring = A.hash_ring(clients, keys)
    names = F.array(*[F.lit(x) for x in brokers])
    groups = ch.where(F.col("sp") == 0)
    main_q = (groups.select("g", "topic", "offsets", F.explode(F.sequence(F.lit(0).cast("long"), F.col("m") - 1))
                            .alias("rank"))
              .withColumn("b", F.expr(f"size(filter(offsets, o -> o <= rank))") - 1)
              .select("g", "topic", "rank", F.element_at(names, F.col("b") + 1).alias("broker"),
                      (F.col("rank") - F.element_at("offsets", F.col("b") + 1)).cast("int").alias("queue_id")))
    retry_q = groups.select("g", F.concat(F.lit(RETRY_PREFIX), F.col("group")).alias("topic"),
                            F.posexplode(names).alias("rank", "broker")).withColumn("queue_id", F.lit(0)) \
        .withColumn("rank", F.col("rank").cast("long"))
    queues = main_q.unionByName(retry_q).withColumn("vnodes", F.lit(DEFAULT_VIRTUAL_NODES))
    routed = A.route_on_ring(queues, ring, keys).join(queues.drop("vnodes"), [*keys, "rank"])
    holders = ch.select("g", "group", "instance", "client_id", "host")
    return (routed.join(holders, [routed.g == holders.g, routed.owner == holders.client_id])
            .select(routed.g, "group", "topic", "instance", "client_id", "host", "broker", "queue_id"))


def generated_assignments(spark, spec: GenerateSpec) -> tuple[DataFrame, DataFrame]:
    """(processes with shares, assignment rows) of the generated fleet; both lazy."""
    brokers = broker_names(spec)
    procs = (generated_groups_df(spark, spec)
             .transform(with_sorted_clients)
             .transform(lambda df: explode_processes(df, len(brokers)))
             .transform(lambda df: with_shares(df, len(brokers))))
    rows = ranged_assignments(procs, brokers)
    if "CONSISTENT_HASH" in spec.strategies:
        rows = rows.unionByName(consistent_hash_assignments(procs, brokers))
    return procs, rows


def ranged_totals(procs: DataFrame, brokers: int) -> list:
    """Totals of the AVG/AVG_BY_CIRCLE groups from per-process arithmetic (no explode, no shuffle)."""
    ranged = procs.where(F.col("count").isNotNull())
    first = F.col("sp") == F.col("index")  # the first process of each distinct client id speaks for it
    held = F.col("count") + F.col("r_count")
    return ranged.agg(
        F.countDistinct("g").alias("groups"),
        F.count(F.lit(1)).alias("instances"),
        F.sum(F.when(F.col("sp") == 0, F.col("m") + brokers).otherwise(0)).alias("queues"),
        F.sum(held).alias("assignments"),
        F.sum(F.when(first, held).otherwise(0)).alias("covered"),
        F.sum(F.when(first & (F.col("mult") > 1), held).otherwise(0)).alias("duplicated_queues"),
        F.sum(F.when(F.col("count") == 0, 1).otherwise(0)).alias("idle_instances"),
    ).first()


def problem_flags(procs: DataFrame) -> DataFrame:
    """Groups whose allocation has a problem, from per-process arithmetic: a shared client id (orphaned and
    duplicated queues), an idle process, a process with >= 2 queues and >= twice the fair share."""
    heavy = (F.col("count") >= 2) & (F.col("count") * F.col("n") >= 2 * F.col("m"))
    return (procs.where((F.col("mult") > 1) | (F.col("count") == 0) | heavy)
            .select("g").distinct())


def simulate_generated(spark, fleet, sim: Simulation, options: SimulateOptions) -> Simulation:
    """Adds the generated groups to a hand-written simulation: totals for all, results for problem groups."""
    from planner.report import totals as count_results

    spec = fleet.generate
    brokers = broker_names(spec)
    started = time.monotonic()
    progress(f"generating {spec.groups} groups in Spark")
    procs, rows = generated_assignments(spark, spec)
    hand = count_results(sim) if sim.results else dict.fromkeys(TOTAL_KEYS, 0)
    hand["groups"] = len(fleet.groups)
    if "CONSISTENT_HASH" in spec.strategies:
        # the ring needs shuffles; keep its result for the totals, the problem groups and --out
        procs, rows = procs.persist(), rows.persist()
        gen = _totals_from_rows(procs, rows, len(brokers))
    else:
        t = ranged_totals(procs, len(brokers))
        gen = {"groups": spec.groups, "instances": t.instances or 0, "queues": t.queues or 0,
               "assignments": t.assignments or 0, "orphaned_queues": (t.queues or 0) - (t.covered or 0),
               "duplicated_queues": t.duplicated_queues or 0, "idle_instances": t.idle_instances or 0}
    progress(f"{gen['assignments']} assignments in {time.monotonic() - started:.0f}s")
    totals = {k: hand.get(k, 0) + gen.get(k, 0) for k in TOTAL_KEYS}
    problems = [r.g for r in problem_flags(procs).orderBy("g").limit(DETAIL_LIMIT + 1).collect()]
    shown = problems[:DETAIL_LIMIT]
    results = list(sim.results) + _problem_results(spark, spec, procs, rows, shown)
    omitted = 0
    if len(problems) > DETAIL_LIMIT:
        omitted = 2 * (problem_flags(procs).count() - DETAIL_LIMIT)  # a main and a retry result per group
    return replace(sim, results=results, totals=totals, omitted_results=omitted,
                   write_tables=_table_writer(spark, sim, rows))


def _totals_from_rows(procs: DataFrame, rows: DataFrame, brokers: int) -> dict:
    """Totals when the ring is involved: count holders per queue from the assignment rows."""
    per_queue = rows.groupBy("g", "topic", "broker", "queue_id").agg(F.count(F.lit(1)).alias("h"))
    q = per_queue.agg(F.count(F.lit(1)).alias("covered"), F.sum("h").alias("assignments"),
                      F.sum(F.when(F.col("h") > 1, 1).otherwise(0)).alias("dup")).first()
    held_main = rows.where(~F.col("topic").startswith(RETRY_PREFIX)).select("g", "instance").distinct()
    p = procs.agg(F.count(F.lit(1)).alias("instances"),
                  F.sum(F.when(F.col("sp") == 0, F.col("m") + brokers).otherwise(0)).alias("queues")).first()
    idle = procs.select("g", "instance").join(held_main, ["g", "instance"], "left_anti").count()
    return {"groups": procs.select("g").distinct().count(), "instances": p.instances, "queues": p.queues,
            "assignments": q.assignments or 0, "orphaned_queues": p.queues - (q.covered or 0),
            "duplicated_queues": q.dup or 0, "idle_instances": idle}


def _problem_results(spark, spec: GenerateSpec, procs: DataFrame, rows: DataFrame, gs: list) -> list:
    """Full GroupTopicResults (main and retry topic) of the listed generated groups, from Spark's rows."""
    if not gs:
        return []
    wanted = spark.createDataFrame([(g,) for g in gs], "g long")
    proc_rows = procs.join(F.broadcast(wanted), "g").select("g", "group", "topic", "strategy", "n", "queue_counts",
                                                             "ord", "instance", "host", "client_id").collect()
    held = rows.join(F.broadcast(wanted), "g").select("g", "topic", "instance", "broker", "queue_id").collect()
    brokers = broker_names(spec)
    by_group: dict[int, list] = {}
    for r in proc_rows:
        by_group.setdefault(r.g, []).append(r)
    shares: dict[tuple, list] = {}
    for r in held:
        shares.setdefault((r.g, r.topic, r.instance), []).append(Queue(r.topic, r.broker, r.queue_id))
    out = []
    for g in gs:
        members = sorted(by_group.get(g, []), key=lambda r: r.ord)
        if not members:
            continue
        first = members[0]
        strategy = StrategySpec(first.strategy)
        subs = (SubscriptionSpec(first.topic, "*"),)
        processes = [Process(first.group, r.instance, r.host, r.client_id, "generated", strategy, subs)
                     for r in members]
        main = [Queue(first.topic, b, i) for b, c in zip(brokers, first.queue_counts) for i in range(c)]
        retry = [Queue(RETRY_PREFIX + first.group, b, 0) for b in brokers]
        for topic, queues, is_retry in ((first.topic, main, False), (RETRY_PREFIX + first.group, retry, True)):
            res = GroupTopicResult("baseline", first.group, topic, CLUSTERING, queues, {}, processes)
            count: dict[Queue, int] = {}
            for p in processes:
                share = sorted(shares.get((g, topic, p.instance), []), key=lambda q: (q.broker, q.queue_id))
                res.assignment[p.instance] = share
                for q in share:
                    count[q] = count.get(q, 0) + 1
            res.orphaned = [q for q in queues if q not in count]
            res.duplicated = [q for q in queues if count.get(q, 0) > 1]
            if not is_retry:
                res.idle = [p for p in processes if not res.assignment[p.instance]]
            out.append(res)
    return out


def _table_writer(spark, sim: Simulation, rows: DataFrame):
    """Writes `assignments` (hand-written + generated rows) and `groups` (hand-written results + one row per
    generated group and topic) as Parquet with Spark."""
    import os

    from planner.report import ASSIGNMENT_COLUMNS, GROUP_COLUMNS, assignment_rows, group_rows

    def schema(columns) -> str:
        return ", ".join(f"`{name}` {kind}" for name, kind in columns)

    def write(directory: str) -> None:
        hand_sim = replace(sim, results=[r for r in sim.results])
        assignments = spark.createDataFrame(assignment_rows(hand_sim), schema(ASSIGNMENT_COLUMNS))
        generated = rows.select(F.lit("baseline").alias("scenario"), "group", "topic", "instance", "client_id",
                                "host", "broker", F.col("queue_id").cast("int"))
        assignments.unionByName(generated).write.mode("errorifexists").parquet(os.path.join(directory, "assignments"))
        per_topic = (rows.groupBy("group", "topic")
                     .agg(F.countDistinct("instance").alias("holders"), F.count(F.lit(1)).alias("assignments")))
        groups = spark.createDataFrame(group_rows(hand_sim), schema(GROUP_COLUMNS))
        gen_groups = per_topic.select(
            F.lit("baseline").alias("scenario"), "group", "topic", F.lit(CLUSTERING).alias("model"),
            F.lit(None).cast("int").alias("queues"), F.col("holders").cast("int").alias("instances"),
            F.col("assignments").cast("int").alias("assignments"), F.lit(None).cast("int").alias("orphaned"),
            F.lit(None).cast("int").alias("duplicated"), F.lit(None).cast("int").alias("idle"),
            F.lit(0).alias("moved"), F.lit(0).alias("errored"))
        groups.unionByName(gen_groups).write.mode("errorifexists").parquet(os.path.join(directory, "groups"))

    return write


def run_to_sink(spark, spec: GenerateSpec, sink: str = "noop", path: Optional[str] = None) -> dict:
    """Generate, allocate and write every assignment of an AVG/AVG_BY_CIRCLE generated fleet in ONE pass
    (`sink` "noop" or "parquet" at `path`); the totals are observed on the way (no second pass)."""
    from pyspark.sql import Observation

    if "CONSISTENT_HASH" in spec.strategies:
        raise ValueError("run_to_sink covers AVG and AVG_BY_CIRCLE; CONSISTENT_HASH needs the ring's shuffles")
    brokers = broker_names(spec)
    procs = (generated_groups_df(spark, spec)
             .transform(with_sorted_clients)
             .transform(lambda df: explode_processes(df, len(brokers)))
             .transform(lambda df: with_shares(df, len(brokers))))
    first = F.col("sp") == F.col("index")
    held = F.col("count") + F.col("r_count")
    observation = Observation("rmqplan_generated_totals")
    observed = procs.observe(
        observation,
        F.sum(F.when(F.col("sp") == 0, 1).otherwise(0)).alias("groups"),
        F.count(F.lit(1)).alias("instances"),
        F.sum(F.when(F.col("sp") == 0, F.col("m") + len(brokers)).otherwise(0)).alias("queues"),
        F.sum(held).alias("assignments"),
        F.sum(F.when(first, held).otherwise(0)).alias("covered"),
        F.sum(F.when(first & (F.col("mult") > 1), held).otherwise(0)).alias("duplicated_queues"),
        F.sum(F.when(F.col("count") == 0, 1).otherwise(0)).alias("idle_instances"),
    )
    writer = ranged_assignments(observed, brokers).write.mode("overwrite")
    if sink == "noop":
        writer.format("noop").save()
    else:
        writer.parquet(path)
    t = observation.get
    return {"groups": t["groups"], "instances": t["instances"], "queues": t["queues"],
            "assignments": t["assignments"], "orphaned_queues": t["queues"] - t["covered"],
            "duplicated_queues": t["duplicated_queues"], "idle_instances": t["idle_instances"]}

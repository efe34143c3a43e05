"""`[generate]`d groups in Spark: built, allocated and counted in one pass, without a shuffle on the AVG path.

The groups come from `spark.range` (`planner.generate.generated_groups_df`), which Spark knows to be range
partitioned by the group index `g`; exploding a group into its processes keeps them in its partition, so the
per-group windows below sort within partitions and shuffle nothing. Per process:
- its client id (`planner.generate.process_columns`); generated ids are ASCII ("10.a.b.c@pid#nanotime"), for
  which Spark's string order (UTF-8 bytes) is Java's (UTF-16 code units), so they sort as they are;
- `index` = `cidAll.indexOf(cid)` = how many ids of the group sort before it = `rank() - 1` ordered by id;
  `sp` its position in the sorted list (`row_number() - 1`; equal ids are interchangeable); `mult` how many
  processes share its id;
- AVG and AVG_BY_CIRCLE give each index a range (or a stride) of queue ranks (`planner.spark_alloc`), and ranks
  map to (broker, queueId) from the per-broker counts (brokers sort like their indices, so broker b starts at the
  sum of the counts before it). The retry topic `%RETRY%<group>` has one queue per broker.
Totals come from this per-process arithmetic: ranges of distinct indices never overlap, so a range is held by as
many processes as share that client id, and one process per id (`sp == index`) speaks for it.
CONSISTENT_HASH groups route their queues on a ring (`planner.spark_alloc`), which needs a shuffle.

Only totals and the problem groups (orphaned, duplicated, idle or imbalanced; the first `DETAIL_LIMIT` in full)
reach the driver, or every group of a fleet of at most `FULL_RESULTS_GROUPS` (as the local engine reports it);
`Simulation.write_tables` writes every assignment with Spark.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Optional

from pyspark.sql import Column, DataFrame, Window, functions as F

from planner import spark_alloc as A
from planner.generate import COLLIDING_CLIENT_VERSION, broker_names, generated_groups_df, process_columns, \
    with_group_columns
from planner.identity import instance_name_for
from planner.model import CLUSTERING, DEFAULT_VIRTUAL_NODES, DETAIL_LIMIT, FULL_RESULTS_GROUPS, GenerateSpec, \
    GroupTopicResult, InstanceSpec, Process, Queue, SimulateOptions, Simulation, StrategySpec, SubscriptionSpec
from planner.spark_session import progress
from planner.tally import tally

RETRY_PREFIX = "%RETRY%"
TOTAL_KEYS = ("groups", "instances", "queues", "assignments", "orphaned_queues", "duplicated_queues", "idle_instances")


def generated_processes(groups: DataFrame, brokers: int) -> DataFrame:
    """One row per process of each generated group: g, strategy, n, m (main topic queues), i (declaration
    index) and client_id. A narrow explode: the rows stay in their group's partition. Only what the allocation
    needs goes through the sort; names and hosts are computed again where they are needed."""
    m = sum((F.col("queue_counts").getItem(b).cast("long") for b in range(1, brokers)),
            F.col("queue_counts").getItem(0).cast("long"))
    exploded = groups.select("g", "strategy", "colliding", "shared_host", "a0", "nano0",
                             F.col("n").cast("long").alias("n"), m.alias("m"),
                             F.explode(F.sequence(F.lit(0).cast("long"), F.col("n").cast("long") - 1)).alias("i"))
    return exploded.select("g", "strategy", "n", "m", "i",
                           process_columns(F.col("i"))["client_id"].alias("client_id"))


def with_client_ranks(procs: DataFrame) -> DataFrame:
    """Adds `index` (cidAll.indexOf = ids sorting before = rank - 1), `sp` (position in the sorted cidAll) and
    `mult` (processes sharing the id = ids sorting at or before it - index). One window, ordered by client id
    within the group: a sort within partitions and one pass over it."""
    by_id = Window.partitionBy("g").orderBy("client_id")  # default frame: up to the last equal id
    return (procs.select("*", (F.rank().over(by_id) - 1).cast("long").alias("index"),
                         (F.row_number().over(by_id) - 1).cast("long").alias("sp"),
                         F.count(F.lit(1)).over(by_id).alias("_at_or_before"))
            .withColumn("mult", F.col("_at_or_before") - F.col("index"))
            .drop("_at_or_before"))


def with_shares(procs: DataFrame, brokers: int) -> DataFrame:
    """Adds, for AVG and AVG_BY_CIRCLE processes, `start`/`count`/`step` (main topic ranks) and `r_start`/
    `r_count` (retry ranks, one queue per broker); CONSISTENT_HASH rows get nulls (routed separately)."""
    index, n, m = F.col("index"), F.col("n"), F.col("m")
    avg_start, avg_count = A.avg_start_count(index, n, m)
    r_m = F.lit(brokers).cast("long")
    r_avg_start, r_avg_count = A.avg_start_count(index, n, r_m)
    is_avg = F.col("strategy") == "AVG"
    is_circle = F.col("strategy") == "AVG_BY_CIRCLE"
    return procs.select(
        "*",
        F.when(is_avg, avg_count).when(is_circle, A.circle_count(index, n, m)).alias("count"),
        F.when(is_avg, avg_start).when(is_circle, index).alias("start"),
        F.when(is_avg, F.lit(1).cast("long")).when(is_circle, n).alias("step"),
        F.when(is_avg, r_avg_count).when(is_circle, A.circle_count(index, n, r_m)).alias("r_count"),
        F.when(is_avg, r_avg_start).when(is_circle, index).alias("r_start"))


def allocated_processes(groups: DataFrame, brokers: int) -> DataFrame:
    """generated groups -> one row per process with its client rank and its share (the hot path)."""
    return (groups.transform(lambda df: generated_processes(df, brokers))
            .transform(with_client_ranks)
            .transform(lambda df: with_shares(df, brokers)))


def with_identity(procs: DataFrame, spec: GenerateSpec) -> DataFrame:
    """Adds what reports and tables name: group, topic, queue_counts, offsets (each broker's first main rank),
    and the process's host, instance label and `ord` (declaration index)."""
    brokers = spec.brokers
    named = with_group_columns(procs, spec, ["group", "topic", "queue_counts", "colliding", "shared_host", "a0",
                                             "nano0"])
    counts = [F.col("queue_counts").getItem(b).cast("long") for b in range(brokers)]
    offsets = [F.lit(0).cast("long")]
    for b in range(1, brokers):
        offsets.append(offsets[-1] + counts[b - 1])
    ident = process_columns(F.col("i"))
    return (named.select("*", F.array(*offsets).alias("offsets"), ident["host"].alias("host"),
                         ident["instance"].alias("instance"), F.col("i").cast("int").alias("ord"))
            .drop("shared_host", "a0", "nano0"))


def ranged_assignments(procs: DataFrame, brokers: list[str]) -> DataFrame:
    """Explode AVG/AVG_BY_CIRCLE shares into (topic, broker, queue_id) rows, arithmetic only. A process holds
    ranks start, start+step, ... (count of them); each broker is a segment [lo, lo + c) of ranks (main topic:
    the broker's queues; retry topic: rank b is broker b's queue 0). Per segment, the held ranks inside it are a
    `sequence`, and queue_id = rank - lo."""
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


def generated_assignments(spark, spec: GenerateSpec, ids: Optional[DataFrame] = None) \
        -> tuple[DataFrame, DataFrame]:
    """(processes with shares and names, assignment rows) of the generated fleet, or of the groups whose
    indices are the column `g` of `ids`; both lazy."""
    brokers = broker_names(spec)
    procs = (generated_groups_df(spark, spec, ids=ids)
             .transform(lambda df: allocated_processes(df, len(brokers)))
             .transform(lambda df: with_identity(df, spec)))
    rows = ranged_assignments(procs, brokers)
    if "CONSISTENT_HASH" in spec.strategies:
        rows = rows.unionByName(consistent_hash_assignments(procs, brokers))
    return procs, rows


def group_sums(procs: DataFrame, brokers: int) -> DataFrame:
    """Per AVG/AVG_BY_CIRCLE group (`procs` from `allocated_processes`): processes, queues, assignments, held by
    distinct ids (`covered`), duplicated queues, idle processes, and whether the group has a problem. A
    code-generated aggregation; on range partitions it shuffles nothing."""
    rep = F.col("sp") == F.col("index")  # one process per distinct client id speaks for it
    held = F.col("count") + F.col("r_count")
    return procs.groupBy("g").agg(
        F.count(F.lit(1)).alias("instances"),
        F.max(F.col("m") + brokers).alias("queues"),
        F.sum(held).alias("assignments"),
        F.sum(F.when(rep, held).otherwise(0)).alias("covered"),
        F.sum(F.when(rep & (F.col("mult") > 1), held).otherwise(0)).alias("duplicated_queues"),
        F.sum(F.when(F.col("count") == 0, 1).otherwise(0)).alias("idle_instances"),
        F.max(problem_process(F.col("count")).cast("int")).alias("problem"))


def total_columns() -> list[Column]:
    """The fleet totals over `group_sums` rows, as aggregate columns (for `agg` or `observe`)."""
    return [F.count(F.lit(1)).alias("groups"),
            *(F.sum(c).alias(c) for c in ("instances", "queues", "assignments", "covered", "duplicated_queues",
                                          "idle_instances", "problem"))]


def totals_from_metrics(t) -> dict:
    get = (lambda k: t[k] or 0)
    return {"groups": get("groups"), "instances": get("instances"), "queues": get("queues"),
            "assignments": get("assignments"), "orphaned_queues": get("queues") - get("covered"),
            "duplicated_queues": get("duplicated_queues"), "idle_instances": get("idle_instances")}


def problem_process(count: Column) -> Column:
    """A process (holding `count` main topic queues) whose group has a problem: a shared client id (orphaned and
    duplicated queues), no queue (idle), or >= 2 queues and >= twice the fair share (imbalance)."""
    heavy = (count >= 2) & (count * F.col("n") >= 2 * F.col("m"))
    return (F.col("mult") > 1) | (count == 0) | heavy


def simulate_generated(spark, fleet, sim: Simulation, options: SimulateOptions) -> Simulation:
    """Adds the generated groups to a hand-written simulation: totals for all, results for problem groups."""
    from pyspark.sql import Observation

    from planner.report import totals as count_results

    spec = fleet.generate
    brokers = broker_names(spec)
    started = time.monotonic()
    progress(f"generating and allocating {spec.groups} groups in Spark")
    hand = count_results(sim) if sim.results else dict.fromkeys(TOTAL_KEYS, 0)
    hand["groups"] = len(fleet.groups)
    procs = allocated_processes(generated_groups_df(spark, spec), len(brokers))
    if "CONSISTENT_HASH" in spec.strategies:
        # the ring needs shuffles; its rows give the totals and the ring groups' main topic shares
        named, rows = generated_assignments(spark, spec)
        named, rows = named.persist(), rows.persist()
        gen = _totals_from_rows(named, rows, len(brokers))
        held = (rows.where(~F.col("topic").startswith(RETRY_PREFIX)).groupBy("g", "instance")
                .agg(F.count(F.lit(1)).alias("held")))
        ring = (named.where(F.col("count").isNull()).join(held, ["g", "instance"], "left")
                .withColumn("held", F.coalesce("held", F.lit(0))))
        flagged = (named.where(F.col("count").isNotNull() & problem_process(F.col("count"))).select("g")
                   .unionByName(ring.where(problem_process(F.col("held"))).select("g"))
                   .distinct())
        problems = [r.g for r in flagged.orderBy("g").limit(DETAIL_LIMIT).collect()]
        problem_count = flagged.count() if len(problems) == DETAIL_LIMIT else len(problems)
        named.unpersist()
        rows.unpersist()
    else:
        # One pass: the per-group sums are code-generated, the totals observed on the million group rows, the
        # first problem groups a per-partition top-k; nothing is shuffled (range partitions).
        counted = Observation("rmqplan_generated_totals")
        sums = group_sums(procs, len(brokers)).observe(counted, *total_columns())
        problems = [r.g for r in sums.where(F.col("problem") == 1).orderBy("g").limit(DETAIL_LIMIT)
                    .select("g").collect()]
        gen = totals_from_metrics(counted.get)
        problem_count = counted.get["problem"] or 0
    progress(f"{gen['assignments']} assignments in {time.monotonic() - started:.0f}s")
    totals = {k: hand.get(k, 0) + gen.get(k, 0) for k in TOTAL_KEYS}
    if spec.groups <= FULL_RESULTS_GROUPS:
        # small enough to report every group (with --assignments, every process's queues), as the local engine
        # does; the problem groups are then all among them
        shown, omitted = list(range(spec.groups)), 0
    else:
        shown, omitted = problems, 2 * max(0, problem_count - len(problems))  # a main and a retry result each
    results = list(sim.results) + _problem_results(spark, spec, shown)
    return replace(sim, results=results, totals=totals, omitted_results=omitted,
                   write_tables=_table_writer(spark, spec, sim))


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


def _problem_results(spark, spec: GenerateSpec, gs: list) -> list:
    """Full GroupTopicResults (main and retry topic) of the listed generated groups, in group order: the same
    pipeline, run again on just these groups, its rows collected."""
    if not gs:
        return []
    wanted = spark.createDataFrame([(g,) for g in gs], "g long").coalesce(1)
    procs, rows = generated_assignments(spark, spec, ids=wanted)
    procs = procs.persist()  # read twice below, a few hundred rows
    proc_rows = procs.select("g", "group", "topic", "strategy", "colliding", "n", "queue_counts", "ord",
                             "instance", "host", "client_id").collect()
    held = rows.select("g", "topic", "instance", "broker", "queue_id").collect()
    procs.unpersist()
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
        processes = [Process(first.group, r.instance, r.host, r.client_id, _id_source(r), strategy, subs)
                     for r in members]
        main = [Queue(first.topic, b, i) for b, c in zip(brokers, first.queue_counts) for i in range(c)]
        retry = [Queue(RETRY_PREFIX + first.group, b, 0) for b in brokers]
        for topic, queues, is_retry in ((first.topic, main, False), (RETRY_PREFIX + first.group, retry, True)):
            res = GroupTopicResult("baseline", first.group, topic, CLUSTERING, queues, {}, processes)
            for p in processes:
                res.assignment[p.instance] = sorted(shares.get((g, topic, p.instance), []),
                                                    key=lambda q: (q.broker, q.queue_id))
            out.append(tally(res))
    return out


def _id_source(r) -> str:
    """Why a generated process has its client id, worded as the local engine words it for the same process
    (`planner.generate.generated_instance_specs` through `planner.identity`)."""
    if r.colliding:
        spec = InstanceSpec("", (r.host,), pid=1, client_version=COLLIDING_CLIENT_VERSION)
        return instance_name_for(spec, CLUSTERING, r.ord + 1)[1]
    return f"fixed instanceName '{r.client_id.split('@', 1)[1]}'"


def ranged_group_table(procs: DataFrame, brokers: int) -> DataFrame:
    """Per AVG/AVG_BY_CIRCLE group, its main and retry topic rows of the `groups` table, from per-process
    arithmetic (`procs` as `generated_assignments` gives them; no shuffle on range partitions)."""
    rep = F.col("sp") == F.col("index")
    per_group = (procs.where(F.col("count").isNotNull()).groupBy("g", "group", "topic").agg(
        F.first("n").alias("n"), F.first("m").alias("m"),
        F.sum("count").alias("a"), F.sum("r_count").alias("ra"),
        F.sum(F.when(rep, F.col("count")).otherwise(0)).alias("cov"),
        F.sum(F.when(rep, F.col("r_count")).otherwise(0)).alias("rcov"),
        F.sum(F.when(rep & (F.col("mult") > 1), F.col("count")).otherwise(0)).alias("dup"),
        F.sum(F.when(rep & (F.col("mult") > 1), F.col("r_count")).otherwise(0)).alias("rdup"),
        F.sum(F.when(F.col("count") == 0, 1).otherwise(0)).alias("idle")))
    main = per_group.select("group", "topic", F.col("m").alias("queues"), "n", F.col("a").alias("assignments"),
                            (F.col("m") - F.col("cov")).alias("orphaned"), F.col("dup").alias("duplicated"),
                            "idle")
    retry = per_group.select("group", F.concat(F.lit(RETRY_PREFIX), F.col("group")).alias("topic"),
                             F.lit(brokers).alias("queues"), "n", F.col("ra").alias("assignments"),
                             (F.lit(brokers) - F.col("rcov")).alias("orphaned"), F.col("rdup").alias("duplicated"),
                             F.lit(0).alias("idle"))
    return main.unionByName(retry)


def ring_group_table(procs: DataFrame, rows: DataFrame, brokers: int) -> DataFrame:
    """The same rows for CONSISTENT_HASH groups, from their assignment rows (holders per queue)."""
    ring = procs.where(F.col("count").isNull())
    per_queue = (rows.join(ring.select("g").distinct(), "g")
                 .groupBy("g", "topic", "broker", "queue_id").agg(F.count(F.lit(1)).alias("h")))
    per_topic = per_queue.groupBy("g", "topic").agg(F.count(F.lit(1)).alias("cov"), F.sum("h").alias("a"),
                                                   F.sum(F.when(F.col("h") > 1, 1).otherwise(0)).alias("dup"))
    holding = (rows.where(~F.col("topic").startswith(RETRY_PREFIX)).select("g", "instance").distinct()
               .groupBy("g").agg(F.count(F.lit(1)).alias("holding")))
    groups = ring.where(F.col("sp") == 0).select("g", "group", "topic", "n", "m")
    topics = groups.select("g", "group", "topic", "n", F.col("m").alias("queues"), F.lit(True).alias("main")) \
        .unionByName(groups.select("g", "group", F.concat(F.lit(RETRY_PREFIX), F.col("group")).alias("topic"), "n",
                                   F.lit(brokers).cast("long").alias("queues"), F.lit(False).alias("main")))
    return (topics.join(per_topic, ["g", "topic"], "left").join(holding, "g", "left")
            .select("group", "topic", "queues", "n", F.coalesce("a", F.lit(0)).alias("assignments"),
                    (F.col("queues") - F.coalesce("cov", F.lit(0))).alias("orphaned"),
                    F.coalesce("dup", F.lit(0)).alias("duplicated"),
                    F.when(F.col("main"), F.col("n") - F.coalesce("holding", F.lit(0))).otherwise(0).alias("idle")))


def _table_writer(spark, spec: GenerateSpec, sim: Simulation):
    """Writes `assignments` (hand-written + generated rows) and `groups` (hand-written results + a main and a
    retry row per generated group) as Parquet with Spark."""
    import os

    from planner.report import ASSIGNMENT_COLUMNS, GROUP_COLUMNS, assignment_rows, group_rows

    def schema(columns) -> str:
        return ", ".join(f"`{name}` {kind}" for name, kind in columns)

    def write(directory: str) -> None:
        procs, rows = generated_assignments(spark, spec)
        assignments = spark.createDataFrame(assignment_rows(sim), schema(ASSIGNMENT_COLUMNS))
        generated = rows.select(F.lit("baseline").alias("scenario"), "group", "topic", "instance", "client_id",
                                "host", "broker", F.col("queue_id").cast("int"))
        assignments.unionByName(generated).write.mode("errorifexists").parquet(os.path.join(directory, "assignments"))
        per_topic = ranged_group_table(procs, spec.brokers)
        if "CONSISTENT_HASH" in spec.strategies:
            per_topic = per_topic.unionByName(ring_group_table(procs, rows, spec.brokers))
        groups = spark.createDataFrame(group_rows(sim), schema(GROUP_COLUMNS))
        gen_groups = per_topic.select(
            F.lit("baseline").alias("scenario"), "group", "topic", F.lit(CLUSTERING).alias("model"),
            *(F.col(c).cast("int").alias(name) for c, name in (
                ("queues", "queues"), ("n", "instances"), ("assignments", "assignments"), ("orphaned", "orphaned"),
                ("duplicated", "duplicated"), ("idle", "idle"))),
            F.lit(0).alias("moved"), F.lit(0).alias("errored"))
        groups.unionByName(gen_groups).write.mode("errorifexists").parquet(os.path.join(directory, "groups"))

    return write


def run_to_sink(spark, spec: GenerateSpec, sink: str = "noop", path: Optional[str] = None) -> dict:
    """Generate, allocate and write every assignment row of an AVG/AVG_BY_CIRCLE generated fleet in ONE pass
    (`sink` "noop" or "parquet" at `path`); the totals are observed on the way (no second pass)."""
    from pyspark.sql import Observation

    if "CONSISTENT_HASH" in spec.strategies:
        raise ValueError("run_to_sink covers AVG and AVG_BY_CIRCLE; CONSISTENT_HASH needs the ring's shuffles")
    brokers = broker_names(spec)
    observation = Observation("rmqplan_generated_totals")
    rep = F.col("sp") == F.col("index")
    held = F.col("count") + F.col("r_count")
    procs = (allocated_processes(generated_groups_df(spark, spec), len(brokers))
             .observe(observation,
                      F.sum(F.when(F.col("i") == 0, 1).otherwise(0)).alias("groups"),
                      F.count(F.lit(1)).alias("instances"),
                      F.sum(F.when(F.col("i") == 0, F.col("m") + len(brokers)).otherwise(0)).alias("queues"),
                      F.sum(held).alias("assignments"),
                      F.sum(F.when(rep, held).otherwise(0)).alias("covered"),
                      F.sum(F.when(rep & (F.col("mult") > 1), held).otherwise(0)).alias("duplicated_queues"),
                      F.sum(F.when(F.col("count") == 0, 1).otherwise(0)).alias("idle_instances"))
             .transform(lambda df: with_identity(df, spec)))
    writer = ranged_assignments(procs, brokers).write.mode("overwrite")
    if sink == "noop":
        writer.format("noop").save()
    else:
        writer.parquet(path)
    return totals_from_metrics(observation.get)

"""The Spark engine (`rmqplan simulate --engine spark`): the allocation kernel of the local engine, run by Spark
per partition (`mapInArrow`), so both engines give the same answers from the same code.

- Hand-written groups: the driver expands the fleet into one batch (`planner.rebalances`), ships it as one Arrow
  row per rebalance, and each task runs the kernel and the tally on its rows; the results come back as one row per
  rebalance and become the `Simulation` the local engine returns.
- `[generate]`d groups: a task per chunk of groups generates, allocates and counts them where it runs; only one
  summary row per chunk (totals, problem counts, the first problem groups) comes back. The groups the report shows
  in full are computed by a second, small job; `--out` runs the chunks again to write every assignment and
  finding (`planner.spark_out`).

The tasks import `planner` and numpy and pyarrow: on a cluster (a master that is not local) the driver ships the
`planner` package to the executors as a zip; numpy and pyarrow must be installed there.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from dataclasses import replace
from typing import Callable, Optional

import numpy as np
import pyarrow as pa

from planner.chunks import CHUNK_GROUPS, TOTAL_KEYS, GeneratedDescriber, OutIds, out_ids
from planner.model import DETAIL_LIMIT, FULL_RESULTS_GROUPS, Fleet, OutRequest, SimulateOptions, Simulation
from planner.out_tables import FINDINGS_FILE, write_hand_written_out
from planner.rebalances import fleet_rebalances
from planner.results import HandWritten, hand_written_simulation, results_of
from planner.spark_arrow import RESULT_SCHEMA, batch_table, batch_tables, rows_and_tally, spark_ddl
from planner.spark_session import SparkUnavailable, get_session  # noqa: F401  (re-exported for cli)
from planner.tally import PROBLEMS

Progress = Optional[Callable[[int, int], None]]
CHUNKS_PER_TASK = 32  # about 500k generated groups, 20M assignments per task
LINE_SCHEMA = pa.schema([("kind", pa.string()), ("line", pa.string())])


def ship_package(spark) -> None:
    """On a cluster, executors import `planner` from a zip of this package (once per session)."""
    sc = spark.sparkContext
    if sc.master.startswith("local") or getattr(sc, "_rmqplan_shipped", False):
        return
    import planner

    root = os.path.dirname(os.path.abspath(planner.__file__))
    path = os.path.join(tempfile.mkdtemp(prefix="rmqplan-"), "planner.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for folder, _, files in os.walk(root):
            for name in files:
                if name.endswith((".py", ".json", ".md")):
                    full = os.path.join(folder, name)
                    z.write(full, os.path.relpath(full, os.path.dirname(root)))
    sc.addPyFile(path)
    sc._rmqplan_shipped = True


def _registered_modules() -> list[str]:
    """Modules whose import registers the strategies this driver knows (plug-ins included)."""
    from planner.strategies import names, strategy_of

    return sorted({type(strategy_of(n)).__module__ for n in names()})


def _ensure_registered(modules: list[str]) -> None:
    """In a task: import the modules that registered strategies in the driver (plug-ins shipped with
    `addPyFile`), registering those the package walk does not find."""
    import importlib

    from planner.strategies import names, register
    from planner.strategies.base import Strategy

    known = set(names())
    for name in modules:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, Strategy) and value.__module__ == name
                    and getattr(value, "name", None) and value.name not in known):
                register(value)
                known.add(value.name)


# ----------------------------------------------------------------------------------------- hand-written fleets


def simulate_hand_written(spark, fleet: Fleet) -> Simulation:
    """The exact results of the fleet's hand-written groups (and scenarios), allocated and counted in Spark."""
    return run_hand_written(spark, fleet).sim


def run_hand_written(spark, fleet: Fleet) -> HandWritten:
    """`simulate_hand_written`, with what `--out` needs."""
    fr = fleet_rebalances(fleet)
    batch = fr.batch
    if batch.rebalances == 0:
        from planner.kernel import allocate
        from planner.tally import tally

        rows = allocate(batch)
        counted = tally(batch, rows)
        return HandWritten(fr, rows, counted, hand_written_simulation(fleet, fr, rows, counted))
    ship_package(spark)
    tables, modules = batch_tables(batch), _registered_modules()

    def run(iterator):
        from planner.kernel import allocate
        from planner.spark_arrow import result_batch, table_batch
        from planner.tally import tally

        _ensure_registered(modules)
        for record_batch in iterator:
            ids, part = table_batch(record_batch, tables)
            rows = allocate(part)
            yield result_batch(ids, part, rows, tally(part, rows))

    partitions = max(1, min(spark.sparkContext.defaultParallelism, batch.rebalances // 2000))
    source = spark.createDataFrame(batch_table(batch)).repartition(partitions)
    returned = source.mapInArrow(run, spark_ddl(RESULT_SCHEMA)).toArrow()
    rows, counted = rows_and_tally(batch, returned)
    return HandWritten(fr, rows, counted, hand_written_simulation(fleet, fr, rows, counted))


# ------------------------------------------------------------------------------------------ generated fleets


def chunk_frame(spark, spec, chunk: int = CHUNK_GROUPS):
    """One row per chunk of generated groups (`start`, `stop`) from `spark.range`: no data from the driver, no
    shuffle; a partition per core, more when a core would get over CHUNKS_PER_TASK chunks (each task costs a
    fixed tenth of a second or so, so fewer is faster while the cores are busy)."""
    from pyspark.sql import functions as F

    count = -(-spec.groups // chunk)
    partitions = max(1, min(count, max(spark.sparkContext.defaultParallelism, -(-count // CHUNKS_PER_TASK))))
    return spark.range(0, count, 1, partitions).select(
        (F.col("id") * chunk).alias("start"), F.least((F.col("id") + 1) * chunk, F.lit(spec.groups)).alias("stop"))


def _chunk_task(spec, modules, limit: int, out: Optional[OutRequest], ids: Optional[OutIds]):
    """The task over a partition's chunks: one summary line per chunk (JSON, kind "s"); with `out`, the chunk's
    table rows written as Parquet part files of this task and its findings as lines (kind "f")."""

    def run(iterator):
        import json

        from planner.chunks import finding_lines, run_chunk, summary, write_tables
        from planner.out_tables import ParquetSink

        _ensure_registered(modules)
        sink = None
        for ranges in iterator:
            kinds, lines = [], []
            for start, stop in zip(ranges.column("start").to_pylist(), ranges.column("stop").to_pylist()):
                batch, rows, t = run_chunk(spec, start, stop)
                if out is not None:
                    if sink is None:
                        sink = ParquetSink(out.directory, f"part-{start:012d}")
                    write_tables(spec, batch, rows, t, ids, sink)
                    found = finding_lines(spec, batch, rows, t, out.find)
                    kinds += ["f"] * len(found)
                    lines += found
                kinds.append("s")
                lines.append(json.dumps({"start": start, **summary(batch, t, limit)}))
            yield pa.RecordBatch.from_pydict({"kind": kinds, "line": lines}, schema=LINE_SCHEMA)
        if sink is not None:
            sink.close()

    return run


def _details(spec, modules):
    def run(iterator):
        from planner.generate import generated_batch
        from planner.kernel import allocate
        from planner.spark_arrow import result_batch
        from planner.tally import tally

        _ensure_registered(modules)
        groups = np.concatenate([b.column("g").to_numpy() for b in iterator] or [np.zeros(0, dtype=np.int64)])
        if not len(groups):
            return
        batch = generated_batch(spec, 0, 0, groups=np.sort(groups))
        rows = allocate(batch)
        yield result_batch(np.arange(batch.rebalances), batch, rows, tally(batch, rows))

    return run


def _chunk_summaries(spark, spec, modules, out: Optional[OutRequest], ids: Optional[OutIds]) -> list[dict]:
    """Run the chunk tasks; with `out`, Spark writes the findings lines (text) while the summaries are observed
    on the way, then the lines are appended to findings.json in group order."""
    import json

    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    lines = chunk_frame(spark, spec).mapInArrow(_chunk_task(spec, modules, DETAIL_LIMIT, out, ids),
                                                spark_ddl(LINE_SCHEMA))
    if out is None:
        found = lines.toArrow().column("line").to_pylist()
    else:
        observed = Observation("rmqplan_chunks")
        parts = os.path.join(out.directory, ".findings-parts")
        (lines.observe(observed, F.concat_ws("\n", F.collect_list(F.when(F.col("kind") == "s", F.col("line"))))
                       .alias("summaries"))
         .where(F.col("kind") == "f").select("line").write.text(parts))
        found = [x for x in (observed.get["summaries"] or "").split("\n") if x]
        _append_parts(parts, os.path.join(out.directory, FINDINGS_FILE))
    return sorted((json.loads(x) for x in found), key=lambda s: s["start"])


def _append_parts(parts: str, target: str) -> None:
    """Spark's text parts (one per task, in chunk order) appended to one file, then removed."""
    import shutil

    with open(target, "ab") as out:
        for name in sorted(os.listdir(parts)):
            if name.startswith("part-"):
                with open(os.path.join(parts, name), "rb") as part:
                    shutil.copyfileobj(part, out)
    shutil.rmtree(parts)


def simulate_generated(spark, fleet: Fleet, sim: Simulation, options: SimulateOptions,
                       progress: Progress = None, out: Optional[OutRequest] = None, ids: Optional[OutIds] = None) \
        -> Simulation:
    """Adds the generated groups: totals and problem counts of every group from one summary per chunk, the first
    problem groups (every group of a small fleet) in full from a second job over just those groups."""
    from planner.generate import generated_batch

    spec = fleet.generate
    ship_package(spark)
    modules = _registered_modules()
    everything = spec.groups <= FULL_RESULTS_GROUPS
    summaries = _chunk_summaries(spark, spec, modules, out, ids)
    gen = {k: sum(s[k] for s in summaries) for k in TOTAL_KEYS}
    counts = {k: sum(s[k] for s in summaries) for k in PROBLEMS}
    problems = sum(s["problems"] for s in summaries)
    if progress is not None:
        progress(spec.groups, spec.groups)
    if everything:
        shown = list(range(spec.groups))
    else:
        shown = [g for s in summaries for g in s["first_problem_groups"]][:DETAIL_LIMIT]
    results, shown_problems = [], 0
    if shown:
        details = (spark.createDataFrame([(g,) for g in shown], "g bigint").coalesce(1)
                   .mapInArrow(_details(spec, modules), spark_ddl(RESULT_SCHEMA)).toArrow())
        batch = generated_batch(spec, 0, 0, groups=np.array(shown, dtype=np.int64))
        rows, t = rows_and_tally(batch, details)
        results = results_of(batch, rows, t, range(batch.rebalances), GeneratedDescriber(spec, batch))
        shown_problems = int(t.problem().sum())
    hand = sim.totals or dict.fromkeys(TOTAL_KEYS, 0)
    whole = {k: hand.get(k, 0) + gen[k] for k in TOTAL_KEYS}
    whole["groups"] = len(fleet.groups) + spec.groups
    hand_counts = sim.problem_counts or dict.fromkeys(PROBLEMS, 0)
    written = None
    if out is not None:
        written = (sim.findings_written or 0) + sum(s["orphaned"] + s["duplicated"] + s["idle"] + s["errored"]
                                                   + s["imbalanced"] for s in summaries)
    return replace(sim, results=list(sim.results) + results, totals=whole,
                   omitted_results=sim.omitted_results + problems - shown_problems,
                   problem_counts={k: hand_counts.get(k, 0) + counts[k] for k in PROBLEMS},
                   findings_written=written)


def simulate(fleet: Fleet, options: Optional[SimulateOptions] = None, out: Optional[OutRequest] = None,
             progress: Progress = None) -> Simulation:
    """`rmqplan simulate --engine spark`. Raises SparkUnavailable (one line) when Spark cannot run."""
    options = options or SimulateOptions()
    spark = get_session(options.master, options.conf)
    hand = run_hand_written(spark, fleet)
    sim = hand.sim
    topics = brokers = ids = None
    if out is not None:
        from planner.out_tables import BrokerIds

        brokers = BrokerIds()
        topics, written = write_hand_written_out(out, hand, brokers)
        sim = replace(sim, findings_written=written)
        if fleet.generate is not None:
            ids = out_ids(fleet, topics, brokers)
    if fleet.generate is not None:
        sim = simulate_generated(spark, fleet, sim, options, progress, out, ids)
    if out is not None:
        from planner.out_tables import ParquetSink, write_empty_tables

        sink = ParquetSink(out.directory, "part-00000")
        sink("brokers", brokers.table())
        sink.close()
        write_empty_tables(out.directory)
    return sim

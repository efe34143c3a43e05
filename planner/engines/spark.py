"""The Spark engine (`rmqplan simulate --engine spark`): the allocation kernel of the local engine, run by Spark
per partition (`mapInArrow`), so both engines give the same answers from the same code.

- Hand-written groups: the driver expands the fleet into one batch (`rmqplan.allocation.rebalances`), ships it as one Arrow
  row per rebalance, and each task runs the kernel and the tally on its rows; the results come back as one row per
  rebalance and become the `Simulation` the local engine returns.
- `[generate]`d groups: each task generates, allocates and counts its chunks of groups where it runs
  (`rmqplan.engines.chunks`, from `spark.range`: nothing comes from the driver, nothing is shuffled); only one summary line
  per chunk (totals, problem counts, the worst problem groups) comes back. The groups the report shows in full are
  computed by a second, small job. With `--out` the same tasks write their chunks' table rows (Parquet part files,
  pyarrow) and return every finding as a line, which Spark writes as text while the summaries are observed on the
  way: one pass.

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

from rmqplan.engines.chunks import OutIds, chunk_groups, listed_groups, out_ids, with_generated
from rmqplan.generated.states import fleet_generated_scenarios, fleet_scenario_states
from rmqplan.model.fleet import DETAIL_LIMIT, FULL_RESULTS_GROUPS, Fleet
from rmqplan.model.simulation import OutRequest, SimulateOptions, Simulation
from rmqplan.report.out_tables import FINDINGS_FILE, write_hand_written_out
from rmqplan.allocation.failures import keep_on_failure
from rmqplan.allocation.rebalances import fleet_rebalances
from rmqplan.allocation.results import HandWritten, hand_written_simulation
from rmqplan.engines.spark_arrow import RESULT_SCHEMA, batch_table, batch_tables, rows_and_tally, spark_ddl
from rmqplan.engines.spark_session import SparkUnavailable, get_session  # noqa: F401  (re-exported for cli)
from rmqplan.allocation.strategies import ensure_registered

Progress = Optional[Callable[[int, int], None]]
CHUNKS_PER_TASK = 32  # about 500k generated groups, 20M assignments per task
LINE_SCHEMA = pa.schema([("kind", pa.string()), ("line", pa.string())])


def ship_package(spark) -> None:
    """On a cluster, executors import `rmqplan` from a zip of this package (once per session)."""
    sc = spark.sparkContext
    if sc.master.startswith("local") or getattr(sc, "_rmqplan_shipped", False):
        return
    import rmqplan

    root = os.path.dirname(os.path.abspath(rmqplan.__file__))
    path = os.path.join(tempfile.mkdtemp(prefix="rmqplan-"), "rmqplan.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for folder, _, files in os.walk(root):
            for name in files:
                if name.endswith((".py", ".json", ".md")):
                    full = os.path.join(folder, name)
                    z.write(full, os.path.join("rmqplan", os.path.relpath(full, root)))  # the folder is planner/
    sc.addPyFile(path)
    sc._rmqplan_shipped = True


def _plugin_strategies() -> list:
    """The strategy classes registered from outside this package (plug-ins, tests), to ship with the tasks: their
    modules are pickled by value, so executors need not import them."""
    import sys

    from pyspark import cloudpickle

    from rmqplan.allocation.strategies import plugin_classes

    plugins = plugin_classes()
    for cls in plugins:
        module = sys.modules.get(cls.__module__)
        if module is not None and cls.__module__ != "__main__":
            cloudpickle.register_pickle_by_value(module)
    return plugins


# ----------------------------------------------------------------------------------------- hand-written fleets


def simulate_hand_written(spark, fleet: Fleet) -> Simulation:
    """The exact results of the fleet's hand-written groups (and scenarios), allocated and counted in Spark."""
    return run_hand_written(spark, fleet).sim


def run_hand_written(spark, fleet: Fleet) -> HandWritten:
    """`simulate_hand_written`, with what `--out` needs."""
    fr = fleet_rebalances(fleet, fleet_scenario_states(fleet))
    rows, counted = run_batch(spark, fr.batch)
    kept = keep_on_failure(fr.batch, rows, [fr])
    if kept is not None:  # a failed rebalance keeps the queues of the state before: counted again with them
        from rmqplan.allocation.tally import tally

        rows, counted = kept, tally(fr.batch, kept)
    return HandWritten(fr, rows, counted, hand_written_simulation(fleet, fr, rows, counted))


def run_batch(spark, batch):
    """The kernel and the tally over a batch the driver built (one Arrow row per rebalance, one job):
    (rows, tally) as the local engine computes them."""
    if batch.rebalances == 0:
        from rmqplan.allocation.kernel import allocate
        from rmqplan.allocation.tally import tally

        rows = allocate(batch)
        return rows, tally(batch, rows)
    ship_package(spark)
    tables, plugins = batch_tables(batch), _plugin_strategies()

    def run(iterator):
        from rmqplan.allocation.kernel import allocate
        from rmqplan.engines.spark_arrow import result_batch, table_batch
        from rmqplan.allocation.tally import tally

        ensure_registered(plugins)  # the driver's plug-in strategies
        for record_batch in iterator:
            ids, part = table_batch(record_batch, tables)
            rows = allocate(part)
            yield result_batch(ids, part, rows, tally(part, rows))

    partitions = max(1, min(spark.sparkContext.defaultParallelism, batch.rebalances // 2000))
    source = spark.createDataFrame(batch_table(batch)).coalesce(partitions)
    returned = source.mapInArrow(run, spark_ddl(RESULT_SCHEMA)).toArrow()
    return rows_and_tally(batch, returned)


# ------------------------------------------------------------------------------------------ generated fleets


def chunk_frame(spark, spec, chunk: Optional[int] = None):
    """One row per chunk of generated groups (`start`, `stop`) from `spark.range`: no data from the driver, no
    shuffle; a partition per core, more when a core would get over CHUNKS_PER_TASK chunks (each task costs a
    fixed tenth of a second or so, so fewer is faster while the cores are busy)."""
    from pyspark.sql import functions as F

    chunk = chunk or chunk_groups(spec)
    count = -(-spec.groups // chunk)
    partitions = max(1, min(count, max(spark.sparkContext.defaultParallelism, -(-count // CHUNKS_PER_TASK))))
    return spark.range(0, count, 1, partitions).select(
        (F.col("id") * chunk).alias("start"), F.least((F.col("id") + 1) * chunk, F.lit(spec.groups)).alias("stop"))


def _chunk_task(spec, plugins, limit: int, out: Optional[OutRequest], ids: Optional[OutIds], scenarios=()):
    """The task over a partition's chunks: one summary line per chunk (JSON, kind "s"); with `out`, the chunk's
    table rows written as Parquet part files of this task and its findings as lines (kind "f"). Scenarios that
    touch generated groups add their states to each chunk (`rmqplan.generated.states`)."""

    def run(iterator):
        import json

        from rmqplan.engines.chunks import chunk_work
        from rmqplan.engines.heap import keep_freed_memory
        from rmqplan.report.out_tables import ParquetSink

        keep_freed_memory()
        ensure_registered(plugins)  # the driver's plug-in strategies
        sink = None
        for ranges in iterator:
            kinds, lines = [], []
            for start, stop in zip(ranges.column("start").to_pylist(), ranges.column("stop").to_pylist()):
                if out is not None and sink is None:
                    sink = ParquetSink(out.directory, f"part-{start:012d}")
                part, found = chunk_work(spec, start, stop, limit, list(scenarios), out, ids, sink)
                kinds += ["f"] * len(found) + ["s"]
                lines += found + [json.dumps(part)]
            yield pa.RecordBatch.from_pydict({"kind": kinds, "line": lines}, schema=LINE_SCHEMA)
        if sink is not None:
            sink.close()

    return run


def _details(spec, plugins, scenarios=()):
    """The task of the details job: the listed groups' baseline, then, run by run (`rmqplan.engines.chunks.state_parts`),
    each run's baseline and states, their rebalances numbered on one after the other."""
    def run(iterator):
        from rmqplan.engines.chunks import state_parts, state_rows
        from rmqplan.generated.generate import generated_batch
        from rmqplan.allocation.kernel import allocate
        from rmqplan.engines.spark_arrow import result_batch
        from rmqplan.allocation.tally import tally

        ensure_registered(plugins)  # the driver's plug-in strategies
        groups = np.concatenate([b.column("g").to_numpy() for b in iterator] or [np.zeros(0, dtype=np.int64)])
        if not len(groups):
            return
        batch = generated_batch(spec, 0, 0, groups=np.sort(groups))
        parts = [(batch, allocate(batch))]
        for base, sb in state_parts(spec, list(scenarios), batch):
            base_rows = allocate(base)
            parts += [(base, base_rows), (sb.batch, state_rows(base, base_rows, sb))]
        start = 0
        for part, rows in parts:
            yield result_batch(np.arange(part.rebalances) + start, part, rows, tally(part, rows))
            start += part.rebalances

    return run


def _chunk_summaries(spark, spec, plugins, out: Optional[OutRequest],
                     ids: Optional[OutIds], scenarios=()) -> tuple[list[dict], int]:
    """Run the chunk tasks: (their summaries in group order, findings written). With `out`, Spark writes the
    findings lines (text) while the summaries are observed on the way, then the lines are appended to
    findings.json in group order."""
    import json

    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    lines = chunk_frame(spark, spec).mapInArrow(_chunk_task(spec, plugins, DETAIL_LIMIT, out, ids, scenarios),
                                                spark_ddl(LINE_SCHEMA))
    written = 0
    if out is None:
        found = lines.toArrow().column("line").to_pylist()
    else:
        observed = Observation("rmqplan_chunks")
        parts = os.path.join(out.directory, ".findings-parts")
        (lines.observe(observed, F.concat_ws("\n", F.collect_list(F.when(F.col("kind") == "s", F.col("line"))))
                       .alias("summaries"))
         .where(F.col("kind") == "f").select("line").write.text(parts))
        found = [x for x in (observed.get["summaries"] or "").split("\n") if x]
        written = _append_parts(parts, os.path.join(out.directory, FINDINGS_FILE))
    return sorted((json.loads(x) for x in found), key=lambda s: s["start"]), written


def _append_parts(parts: str, target: str) -> int:
    """Spark's text parts (one per task, in chunk order) appended to one file, then removed; returns the lines."""
    import shutil

    lines = 0
    with open(target, "ab") as out:
        for name in sorted(os.listdir(parts)):
            if name.startswith("part-"):
                with open(os.path.join(parts, name), "rb") as part:
                    while block := part.read(1 << 20):
                        out.write(block)
                        lines += block.count(b"\n")
    shutil.rmtree(parts)
    return lines


def _details_job(spark, spec, plugins, groups: list[int], scenarios=()):
    """Rows and tally of the listed generated groups (and their scenario states: `rmqplan.engines.chunks.StateRun`s),
    computed by one small Spark job, as batches the driver builds the same way (to name them)."""
    import pyarrow.compute as pc

    from rmqplan.engines.chunks import StateRun, state_parts
    from rmqplan.generated.generate import generated_batch
    from rmqplan.generated.states import state_moves

    details = (spark.createDataFrame([(g,) for g in groups], "g bigint").coalesce(1)
               .mapInArrow(_details(spec, plugins, scenarios), spark_ddl(RESULT_SCHEMA)).toArrow())
    ids = details.column("r")
    start = 0

    def take(part):
        nonlocal start
        mine = details.filter(pc.and_(pc.greater_equal(ids, start), pc.less(ids, start + part.rebalances)))
        mine = mine.set_column(0, "r", pc.subtract(mine.column("r"), start))
        start += part.rebalances
        return rows_and_tally(part, mine)

    batch = generated_batch(spec, 0, 0, groups=np.array(groups, dtype=np.int64))
    rows, t = take(batch)
    states = []
    for base, sb in state_parts(spec, list(scenarios), batch):
        base_rows, base_t = take(base)
        srows, st = take(sb.batch)
        states.append(StateRun(base, base_rows, base_t, sb, srows, st,
                               state_moves(spec, base, base_rows, base_t, sb, srows, st)))
    return batch, rows, t, states


def simulate_generated(spark, fleet: Fleet, sim: Simulation, options: SimulateOptions,
                       progress: Progress = None, out: Optional[OutRequest] = None, ids: Optional[OutIds] = None) \
        -> Simulation:
    """Adds the generated groups: totals and problem counts of every group from one summary per chunk, the first
    problem groups in full from a second job over just those groups. A small fleet (every group shown) is one job
    over all its groups."""
    from rmqplan.engines.chunks import summary

    spec = fleet.generate
    ship_package(spark)
    plugins = _plugin_strategies()
    scenarios = fleet_generated_scenarios(fleet)
    written, details = 0, None
    if spec.groups <= FULL_RESULTS_GROUPS and out is None:
        details = _details_job(spark, spec, plugins, list(range(spec.groups)), scenarios)
        batch, _, t, states = details
        summaries = [{"start": 0, **summary(batch, t, 0, states)}]
    else:
        summaries, written = _chunk_summaries(spark, spec, plugins, out, ids, scenarios)
        shown = listed_groups(spec, summaries)
        if shown:
            details = _details_job(spark, spec, plugins, shown, scenarios)
    if progress is not None:
        progress(spec.groups, spec.groups)
    return with_generated(fleet, sim, summaries, details, written if out is not None else None)


def simulate(fleet: Fleet, options: Optional[SimulateOptions] = None, out: Optional[OutRequest] = None,
             progress: Progress = None) -> Simulation:
    """`rmqplan simulate --engine spark`. Raises SparkUnavailable (one line) when Spark cannot run."""
    options = options or SimulateOptions()
    spark = get_session(options.master, options.conf)
    hand = run_hand_written(spark, fleet)
    sim = hand.sim
    topics = brokers = ids = None
    if out is not None:
        from rmqplan.report.out_tables import BrokerIds

        brokers = BrokerIds()
        topics, written = write_hand_written_out(out, hand, brokers)
        sim = replace(sim, findings_written=written)
        if fleet.generate is not None:
            ids = out_ids(fleet, topics, brokers)
    if fleet.generate is not None:
        sim = simulate_generated(spark, fleet, sim, options, progress, out, ids)
    if out is not None:
        from rmqplan.report.out_tables import ParquetSink, write_empty_tables

        sink = ParquetSink(out.directory, "part-00000")
        sink("brokers", brokers.table())
        sink.close()
        write_empty_tables(out.directory)
    return sim

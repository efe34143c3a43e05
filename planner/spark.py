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

from planner.local_generated import CHUNK_GROUPS, TOTAL_KEYS, GeneratedDescriber
from planner.model import DETAIL_LIMIT, FULL_RESULTS_GROUPS, Fleet, SimulateOptions, Simulation
from planner.rebalances import BASELINE, fleet_rebalances
from planner.results import Described, results_of, with_moves
from planner.spark_arrow import RESULT_SCHEMA, batch_table, batch_tables, rows_and_tally, spark_ddl
from planner.spark_session import SparkUnavailable, get_session  # noqa: F401  (re-exported for cli)
from planner.tally import PROBLEMS, problem_counts, totals

Progress = Optional[Callable[[int, int], None]]
CHUNKS_PER_TASK = 32  # about 500k generated groups, 20M assignments per task
SUMMARY_SCHEMA = pa.schema([
    ("start", pa.int64()), ("stop", pa.int64()),
    *((k, pa.int64()) for k in TOTAL_KEYS), *((k, pa.int64()) for k in PROBLEMS), ("problems", pa.int64()),
    ("first_problem_groups", pa.list_(pa.int64())),
])


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
    fr = fleet_rebalances(fleet)
    batch = fr.batch
    if batch.rebalances == 0:
        return Simulation(fleet, [], fr.scenarios, totals={**dict.fromkeys(TOTAL_KEYS, 0), "groups": 0},
                          problem_counts=dict.fromkeys(PROBLEMS, 0))
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

    def describe(r: int) -> Described:
        rb = fr.rebalances[r]
        return Described(rb.scenario, rb.group.name, rb.topic, rb.queues, rb.processes)

    results = with_moves(results_of(batch, rows, counted, range(batch.rebalances), describe), BASELINE)
    baseline = np.flatnonzero(batch.scenario == 0)
    return Simulation(fleet, results, fr.scenarios, totals={**totals(batch, counted, baseline),
                                                            "groups": len(fleet.groups)},
                      problem_counts=problem_counts(counted, np.arange(batch.rebalances)))


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


def _summaries(spec, modules, limit: int):
    def run(iterator):
        from planner.local_generated import TOTAL_KEYS, run_chunk
        from planner.tally import PROBLEMS, problem_counts, totals

        _ensure_registered(modules)
        for ranges in iterator:
            out = {name: [] for name in SUMMARY_SCHEMA.names}
            for start, stop in zip(ranges.column("start").to_pylist(), ranges.column("stop").to_pylist()):
                batch, _, t = run_chunk(spec, start, stop)
                everyone = np.arange(batch.rebalances)
                problem = t.problem()
                out["start"].append(start)
                out["stop"].append(stop)
                for key, value in {**totals(batch, t, everyone), **problem_counts(t, everyone)}.items():
                    out[key].append(value)
                out["problems"].append(int(problem.sum()))
                out["first_problem_groups"].append(np.unique(batch.group[problem])[:limit].tolist())
            yield pa.RecordBatch.from_pydict(out, schema=SUMMARY_SCHEMA)

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


def simulate_generated(spark, fleet: Fleet, sim: Simulation, options: SimulateOptions,
                       progress: Progress = None) -> Simulation:
    """Adds the generated groups: totals and problem counts of every group from one summary row per chunk, the
    first problem groups (every group of a small fleet) in full from a second job over just those groups."""
    from planner.generate import generated_batch

    spec = fleet.generate
    ship_package(spark)
    modules = _registered_modules()
    everything = spec.groups <= FULL_RESULTS_GROUPS
    summaries = (chunk_frame(spark, spec).mapInArrow(_summaries(spec, modules, DETAIL_LIMIT),
                                                     spark_ddl(SUMMARY_SCHEMA))
                 .toArrow().sort_by("start"))
    gen = {k: int(pa.compute.sum(summaries.column(k)).as_py() or 0) for k in TOTAL_KEYS}
    counts = {k: int(pa.compute.sum(summaries.column(k)).as_py() or 0) for k in PROBLEMS}
    problems = int(pa.compute.sum(summaries.column("problems")).as_py() or 0)
    if progress is not None:
        progress(spec.groups, spec.groups)
    if everything:
        shown = list(range(spec.groups))
    else:
        shown = [g for groups in summaries.column("first_problem_groups").to_pylist() for g in groups][:DETAIL_LIMIT]
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
    return replace(sim, results=list(sim.results) + results, totals=whole,
                   omitted_results=sim.omitted_results + problems - shown_problems,
                   problem_counts={k: hand_counts.get(k, 0) + counts[k] for k in PROBLEMS})


def simulate(fleet: Fleet, options: Optional[SimulateOptions] = None, progress: Progress = None) -> Simulation:
    """`rmqplan simulate --engine spark`. Raises SparkUnavailable (one line) when Spark cannot run."""
    options = options or SimulateOptions()
    spark = get_session(options.master, options.conf)
    sim = simulate_hand_written(spark, fleet)
    if fleet.generate is not None:
        sim = simulate_generated(spark, fleet, sim, options, progress)
    return sim

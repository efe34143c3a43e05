"""Which engine runs a fleet: `--engine auto` (the default), `local` or `spark`.

Both engines run the same kernel and give the same answers; they differ in cost. The local engine has no fixed
cost and runs a large generated fleet's chunks on every usable CPU (`rmqplan.engines.chunk_tasks`); Spark costs seconds
before its first task (a JVM, a session, a Python worker) and then runs the same kernel on the same cores. On one
machine the local engine finishes first at every size measured (BENCHMARKS.md, "The rule of `--engine
auto`"), so auto takes it for every fleet, and Spark when the user names a cluster or Spark settings
(`--master`, `--conf`): more machines than this one.

The local engine's time is estimated from the `[generate]` table alone, to say how long a long run will take: a
cost per group, per process entry (a group's processes, once for its topic and once for its retry topic) and per
queue (`brokers` x mean(queues), plus a retry queue per broker), fitted on four shapes of generated fleets
(within 10% of each) on one core, then shared by the processes that run the chunks. `--out` adds its own costs per
group, process entry and queue (the tables' rows, the findings, the bytes into the page cache), fitted on the same
four shapes with `--out` (within 13% of each on two CPUs).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Optional

from rmqplan.model.fleet import Fleet, GenerateSpec
from rmqplan.model.words import count

# Measured: the local engine's seconds per million groups, process entries and queues on one core, and its start
# (interpreter, imports). The weights between the three come from a fit on four fleet shapes (200k to 10M groups);
# their scale was measured again after the kernel got faster, on benchmarks.plan_bench's fleet with `taskset -c 0`
# (1M groups 1.95 s, 10M 15.44 s). What a helper process adds, as a share of one core (10M groups: 9.46-10.46 s on
# two CPUs), and what the helpers' start and the last chunks' imbalance add to the wall time.
LOCAL_SECONDS_PER_MGROUP = 0.028
LOCAL_SECONDS_PER_MENTRY = 0.0416
LOCAL_SECONDS_PER_MQUEUE = 0.0168
LOCAL_START_SECONDS = 0.3
# What `--out` adds on one core (the same four shapes, 2.7-36 s more CPU; 1M groups: 3.25-3.5 s on two CPUs): the
# processes table (a client id per process) and the findings weigh most; the assignments, encoded from runs, little.
# Writing grows faster than the rows on a machine filling its page cache (10M groups write 5 GB), so one linear
# fit is 5-8% high at 1-2M groups and 8% low at 10M on CPU, within 13% on the wall time of all four.
OUT_SECONDS_PER_MGROUP = 1.07
OUT_SECONDS_PER_MENTRY = 0.096
OUT_SECONDS_PER_MQUEUE = 0.006
HELPER_EFFICIENCY = 0.8
HELPER_START_SECONDS = 0.25
LONG_RUN_SECONDS = 10  # the local engine says how long it expects above this
SPARK_EXTRA = "pip install 'rmqlint[spark]'"


@dataclass(frozen=True)
class EngineChoice:
    engine: str  # "local" | "spark"
    reason: str  # why, for the first line: "auto: a hand-written fleet", "--engine spark", ...
    expected_seconds: Optional[float] = None  # the local engine's estimate for a generated fleet

    def describe(self, expectation: bool = True) -> str:
        """`local engine (auto: a hand-written fleet)`, with the expected time when the run is long (before it)."""
        text = f"{self.engine} engine ({self.reason})"
        if expectation and self.engine == "local" and (self.expected_seconds or 0) >= LONG_RUN_SECONDS:
            from rmqplan.report.progress import seconds

            text += f": expect about {seconds(self.expected_seconds)}"
        return text


def expected_local_seconds(spec: GenerateSpec, cores: Optional[int] = None, out: bool = False) -> float:
    """The local engine's wall time for the generated groups of `spec` on `cores` CPUs (default: the usable
    ones), on this project's reference machine; `out`: writing `--out` tables and findings too."""
    from rmqplan.engines.chunk_tasks import helper_count
    from rmqplan.engines.cpus import usable_cpus
    from rmqplan.engines.chunks import chunk_groups

    mean_queues = (spec.queues[0] + spec.queues[1]) / 2 + 1  # per broker, the retry queue included
    mean_processes = (spec.instances[0] + spec.instances[1]) / 2
    queues = spec.groups * spec.brokers * mean_queues
    entries = spec.groups * 2 * mean_processes
    work = (spec.groups * LOCAL_SECONDS_PER_MGROUP + entries * LOCAL_SECONDS_PER_MENTRY
            + queues * LOCAL_SECONDS_PER_MQUEUE) / 1e6
    if out:
        work += (spec.groups * OUT_SECONDS_PER_MGROUP + entries * OUT_SECONDS_PER_MENTRY
                 + queues * OUT_SECONDS_PER_MQUEUE) / 1e6
    helpers = helper_count(-(-spec.groups // chunk_groups(spec)), usable_cpus() if cores is None else cores)
    if not helpers:
        return LOCAL_START_SECONDS + work
    return LOCAL_START_SECONDS + HELPER_START_SECONDS + work / (1 + helpers * HELPER_EFFICIENCY)


def spark_installed() -> bool:
    """PySpark can be imported (without importing it: that costs a second)."""
    try:
        return importlib.util.find_spec("pyspark") is not None
    except (ImportError, ValueError):  # a broken or blocked install
        return False


def choose_engine(fleet: Fleet, engine: str = "auto", master: Optional[str] = None, conf=(),
                  cores: Optional[int] = None, out: bool = False) -> EngineChoice:
    """The engine for `fleet`, why, and the local engine's expected time (`out`: with `--out`)."""
    generated = fleet.generate
    expected = expected_local_seconds(generated, cores, out) if generated is not None else None
    if engine in ("local", "spark"):
        return EngineChoice(engine, f"--engine {engine}", expected)
    if master:
        return EngineChoice("spark", f"auto: --master {master}", expected)
    if conf:
        return EngineChoice("spark", "auto: --conf given", expected)
    if generated is None:
        n = len(fleet.groups)
        return EngineChoice("local", f"auto: a hand-written fleet of {count(n, 'group', separators=True)}", expected)
    return EngineChoice("local", f"auto: {count(generated.groups, 'generated group', separators=True)}", expected)

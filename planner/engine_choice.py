"""Which engine runs a fleet: `--engine auto` (the default), `local` or `spark`.

Both engines run the same kernel and give the same answers; they differ in cost. The local engine has no fixed
cost and runs on one core; Spark costs seconds before its first task (a JVM, a session, a Python worker) and then
runs the kernel on every core it has. So auto takes the local engine for every hand-written fleet and for a
generated one whose expected local time stays below what Spark's fixed cost buys back on this machine's cores,
and Spark when the user names a cluster or Spark settings (`--master`, `--conf`). The figures behind the
constants are in BENCHMARKS.md ("Which engine").

The local engine's time is estimated from the `[generate]` table alone, as a cost per group, per process entry (a
group's processes, once for its topic and once for its retry topic) and per queue (`brokers` x mean(queues), plus
a retry queue per broker), fitted on eight shapes of generated fleets (within 25% of each).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Optional

from planner.model import Fleet, GenerateSpec

# Measured (BENCHMARKS.md, "Which engine"): the local engine's seconds per million groups, process entries and
# queues, and its start (interpreter, imports); Spark's fixed cost (JVM, session, first job, Python workers) and
# parallel efficiency on local[*] (what each core adds, as a share of the local engine's one core). Quiet runs
# give 0.78; 0.66 puts the 2-core switch where cold runs of both engines met (10M groups) and leans to the local
# engine, which needs 180 MB where Spark needs 1.2 GB and slows less on a shared machine.
LOCAL_SECONDS_PER_MGROUP = 0.40
LOCAL_SECONDS_PER_MENTRY = 0.108
LOCAL_SECONDS_PER_MQUEUE = 0.021
LOCAL_START_SECONDS = 0.3
SPARK_FIXED_SECONDS = 8.6
SPARK_CORE_EFFICIENCY = 0.66
LONG_RUN_SECONDS = 10  # the local engine says how long it expects above this
SPARK_EXTRA = "pip install 'rmqtools[spark]'"


@dataclass(frozen=True)
class EngineChoice:
    engine: str  # "local" | "spark"
    reason: str  # why, for the first line: "auto: a hand-written fleet", "--engine spark", ...
    expected_seconds: Optional[float] = None  # the local engine's estimate for a generated fleet

    def describe(self, expectation: bool = True) -> str:
        """`local engine (auto: a hand-written fleet)`, with the expected time when the run is long (before it)."""
        text = f"{self.engine} engine ({self.reason})"
        if expectation and self.engine == "local" and (self.expected_seconds or 0) >= LONG_RUN_SECONDS:
            from planner.progress import seconds

            text += f": expect about {seconds(self.expected_seconds)}"
        return text


def expected_local_seconds(spec: GenerateSpec) -> float:
    """The local engine's wall time for the generated groups of `spec`, on this project's reference machine."""
    mean_queues = (spec.queues[0] + spec.queues[1]) / 2 + 1  # per broker, the retry queue included
    mean_processes = (spec.instances[0] + spec.instances[1]) / 2
    queues = spec.groups * spec.brokers * mean_queues
    entries = spec.groups * 2 * mean_processes
    return LOCAL_START_SECONDS + (spec.groups * LOCAL_SECONDS_PER_MGROUP + entries * LOCAL_SECONDS_PER_MENTRY
                                  + queues * LOCAL_SECONDS_PER_MQUEUE) / 1e6


def spark_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def break_even_seconds(cores: int) -> Optional[float]:
    """The local time above which Spark on `cores` local cores finishes first: T = F + T / (cores x e), so
    T = F / (1 - 1 / (cores x e)); None when Spark never catches up (one core)."""
    speedup = cores * SPARK_CORE_EFFICIENCY
    if speedup <= 1:
        return None
    return SPARK_FIXED_SECONDS / (1 - 1 / speedup)


def spark_installed() -> bool:
    """PySpark can be imported (without importing it: that costs a second)."""
    try:
        return importlib.util.find_spec("pyspark") is not None
    except (ImportError, ValueError):  # a broken or blocked install
        return False


def choose_engine(fleet: Fleet, engine: str = "auto", master: Optional[str] = None, conf=(),
                  cores: Optional[int] = None) -> EngineChoice:
    generated = fleet.generate
    expected = expected_local_seconds(generated) if generated is not None else None
    if engine in ("local", "spark"):
        return EngineChoice(engine, f"--engine {engine}", expected)
    if master:
        return EngineChoice("spark", f"auto: --master {master}", expected)
    if conf:
        return EngineChoice("spark", "auto: --conf given", expected)
    if generated is None:
        n = len(fleet.groups)
        return EngineChoice("local", f"auto: a hand-written fleet of {n} group{'s' if n != 1 else ''}", expected)
    groups = f"{generated.groups:,} generated groups"
    cores = cores if cores is not None else spark_cores()
    threshold = break_even_seconds(cores)
    if threshold is None or expected < threshold:
        return EngineChoice("local", f"auto: {groups}", expected)
    from planner.progress import seconds

    return EngineChoice("spark", f"auto: {groups}, about {seconds(expected)} on the local engine, "
                                 f"{cores} cores make Spark faster above {seconds(threshold)}", expected)

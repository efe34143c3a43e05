"""`python -m benchmarks.plan_bench`: the planner on generated fleets, Spark engine vs local engine.

For 10k, 100k and 1M generated groups (1-20 processes, 4-32 queues on each of 2 brokers, 1% colliding client
ids, AVG; the retry topic included) it prints seconds and assignments/s for:
- spark: `rmqplan simulate` on a `[generate]` fleet.toml, in process, after the session is up and warmed on a
  small fleet (`planner.fleet.load_fleet` + `planner.spark.simulate`): every group allocated, the totals, the
  problem groups found and the first 200 of them in full (best and median of `--repeat` runs);
- spark-rows: every assignment written as a row (noop sink) with the totals observed in the same pass
  (`planner.spark_generated.run_to_sink`), what `--out` pays on top;
- local: the pure-Python engine (`planner.local.simulate_group`) over `planner.generate.iter_generated_groups`;
- cli (largest size only): the whole `rmqplan simulate --fleet F --format json` command, JVM start included.
Totals must agree everywhere. On the 100k fleet it also checks both engines' assignments: an order-free digest of
every assignment (count, and two sums of 31-bit MD5 prefixes of "group|topic|instance|broker|queueId").

Options: --sizes 10000,100000 (default 10000,100000,1000000), --local-max N (skip the local engine above N
groups; default: run it everywhere), --repeat N (Spark runs per size, default 3), --master URL.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import subprocess
import sys
import time

from planner.generate import broker_names, iter_generated_groups
from planner.model import CLUSTERING, Broker, Fleet, GenerateSpec, Group, InstanceSpec, Process, StrategySpec, \
    SubscriptionSpec, Topic
from planner.report import totals as count_totals

SEED = 7


def spec_for(groups: int) -> GenerateSpec:
    return GenerateSpec(groups=groups, seed=SEED, instances=(1, 20), queues=(4, 32), brokers=2,
                        colliding_client_ids=0.01, strategies=("AVG",))


# ------------------------------------------------------------------------------------------------- local engine


def local_run(spec: GenerateSpec, digest: bool = False) -> tuple[dict, tuple]:
    """The local engine over every generated group: (totals, digest)."""
    from planner.local import simulate_group
    from planner.model import Simulation

    brokers = broker_names(spec)
    broker_objs = tuple(Broker(b) for b in brokers)
    strategy = StrategySpec("AVG")
    acc = dict.fromkeys(("instances", "queues", "assignments", "orphaned_queues", "duplicated_queues",
                         "idle_instances"), 0)
    dig = [0, 0, 0]
    for gg in iter_generated_groups(spec):
        counts = dict(zip(brokers, gg.queue_counts))
        topic = Topic(gg.topic, counts, counts, tuple(brokers))
        group = Group("", gg.group, CLUSTERING, strategy, (SubscriptionSpec(gg.topic),), ())
        fleet = Fleet("", broker_objs, (topic,), (group,))
        processes = [Process(gg.group, label, host, cid, "generated", strategy, group.subscriptions)
                     for label, host, cid in zip(gg.instances, gg.hosts, gg.client_ids)]
        results = simulate_group(fleet, group, processes)
        t = count_totals(Simulation(fleet, results))
        for k in acc:
            acc[k] += t[k]
        if digest:
            for r in results:
                for inst, share in r.assignment.items():
                    for q in share:
                        d = hashlib.md5(f"{r.group}|{r.topic}|{inst}|{q.broker}|{q.queue_id}".encode()).digest()
                        dig[0] += 1
                        dig[1] += int.from_bytes(d[:4], "big") & 0x7FFFFFFF
                        dig[2] += int.from_bytes(d[4:8], "big") & 0x7FFFFFFF
    return {"groups": spec.groups, **acc}, tuple(dig)


# ------------------------------------------------------------------------------------------------- Spark engine


def spark_digest(spark, spec: GenerateSpec) -> tuple:
    from pyspark.sql import functions as F

    from planner.spark_generated import generated_assignments

    _, rows = generated_assignments(spark, spec)
    h = F.md5(F.concat_ws("|", "group", "topic", "instance", "broker", F.col("queue_id").cast("string")))
    part = lambda a, b: F.conv(F.substring(h, a, b), 16, 10).cast("long").bitwiseAND(F.lit(0x7FFFFFFF))  # noqa: E731
    row = rows.agg(F.count(F.lit(1)).alias("n"), F.sum(part(1, 8)).alias("a"), F.sum(part(9, 8)).alias("b")).first()
    return (row.n, row.a or 0, row.b or 0)


def machine() -> dict:
    def run(cmd):
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            return (done.stdout + done.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "?"

    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    import pyspark

    return {"nproc": os.cpu_count(), "memory": mem, "java": run(["java", "-version"]),
            "python": platform.python_version(), "pyspark": pyspark.__version__}


def fleet_toml(spec: GenerateSpec) -> str:
    lo_i, hi_i = spec.instances
    lo_q, hi_q = spec.queues
    return (f"version = 1\n[generate]\ngroups = {spec.groups}\nseed = {spec.seed}\ninstances = [{lo_i}, {hi_i}]\n"
            f"queues = [{lo_q}, {hi_q}]\nbrokers = {spec.brokers}\n"
            f"colliding_client_ids = {spec.colliding_client_ids}\n")


def spark_simulate(path: str, master=None) -> tuple[float, dict, int]:
    """`rmqplan simulate` in process: (seconds, totals, problem group/topic results shown)."""
    from planner.fleet import load_fleet
    from planner.model import SimulateOptions
    from planner.spark import simulate

    t0 = time.monotonic()
    sim = simulate(load_fleet(path), SimulateOptions(master=master))
    return time.monotonic() - t0, sim.totals, len(sim.results)


def cli_simulate(path: str) -> float:
    exe = os.path.join(os.path.dirname(sys.executable), "rmqplan")
    t0 = time.monotonic()
    done = subprocess.run([exe, "simulate", "--fleet", path, "--format", "json"], capture_output=True)
    elapsed = time.monotonic() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"rmqplan simulate failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def row(n, engine, seconds, assignments, note=""):
    print(f"{n:>9} {engine:>10} {seconds:>9.1f} {assignments:>12} {assignments / seconds:>14,.0f}  {note}",
          flush=True)


def main(argv=None) -> int:
    import statistics
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m benchmarks.plan_bench")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--local-max", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default=None)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    from planner.spark_generated import run_to_sink
    from planner.spark_session import get_session

    info = machine()
    print("machine: " + ", ".join(f"{k} {v}" for k, v in info.items()), flush=True)
    work = tempfile.mkdtemp(prefix="rmqplan-bench-")
    started = time.monotonic()
    spark = get_session(args.master)
    print(f"spark session: {time.monotonic() - started:.1f}s ({spark.sparkContext.master})", flush=True)
    warm = os.path.join(work, "warm.toml")
    with open(warm, "w") as f:
        f.write(fleet_toml(spec_for(2000)))
    spark_simulate(warm, args.master)  # warm-up: JIT and code generation
    run_to_sink(spark, spec_for(2000))

    print(f"{'groups':>9} {'engine':>10} {'seconds':>9} {'assignments':>12} {'assignments/s':>14}")
    ok = True
    for n in sizes:
        spec = spec_for(n)
        path = os.path.join(work, f"fleet-{n}.toml")
        with open(path, "w") as f:
            f.write(fleet_toml(spec))
        runs = [spark_simulate(path, args.master) for _ in range(max(1, args.repeat))]
        times = [r[0] for r in runs]
        spark_totals = runs[0][1]
        ok = ok and all(r[1] == spark_totals for r in runs)
        row(n, "spark", min(times), spark_totals["assignments"],
            f"best of {len(times)}; median {statistics.median(times):.1f}s; all: "
            + ", ".join(f"{t:.1f}" for t in times))
        t0 = time.monotonic()
        sink_totals = run_to_sink(spark, spec)
        row(n, "spark-rows", time.monotonic() - t0, sink_totals["assignments"], "every assignment row, noop sink")
        if sink_totals != spark_totals:
            ok = False
            print(f"  TOTALS DIFFER: simulate {spark_totals} rows {sink_totals}", flush=True)
        if args.local_max is None or n <= args.local_max:
            t0 = time.monotonic()
            local_totals, _ = local_run(spec, digest=False)
            row(n, "local", time.monotonic() - t0, local_totals["assignments"])
            if local_totals != spark_totals:
                ok = False
                print(f"  TOTALS DIFFER: spark {spark_totals} local {local_totals}", flush=True)
        if n == max(sizes):
            row(n, "cli", cli_simulate(path), spark_totals["assignments"], "rmqplan simulate, JVM start included")
        print(f"  totals: {spark_totals}", flush=True)
        if n == 100_000:
            _, local_digest = local_run(spec, digest=True)
            sd = spark_digest(spark, spec)
            same = sd == local_digest
            ok = ok and same
            print(f"  100k agreement: digest spark {sd} local {local_digest}: {'SAME' if same else 'DIFFERENT'}",
                  flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

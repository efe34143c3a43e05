"""`python -m benchmarks.strategy_bench`: each generatable strategy on the local engine against one thread of the
RocketMQ client's own classes, on the same generated groups.

The shape (default 1M groups): 3-5 processes, 4-8 queues on each of 2 brokers, the retry topic (one queue per
broker), no colliding client ids (`--colliding` to add some): 14M assignments per million groups. For each strategy
(AVG, AVG_BY_CIRCLE, CONSISTENT_HASH with its default 10 virtual nodes):

- `java thread`, `java process`: `benchmarks/java/AllocateBench.java`, compiled with javac against the client jars
  that `make install` fetches from Maven Central (.cache/rocketmq/client-5.3.3), allocating the same groups in one
  thread: that thread's CPU time and the JVM's (GC and JIT threads too), best of `--repeat`; mqAll and cidAll are
  sorted before the clock starts. AVG and AVG_BY_CIRCLE call the class once per process; CONSISTENT_HASH builds the
  class's ring (ConsistentHashRouter) once per group and routes every queue of both topics once (the least work
  that gives every share), and once per rebalance (what one allocate() call builds); `--class-calls` also times
  AllocateMessageQueueConsistentHash.allocate once per process (a ring per call, as every consumer runs it);
- `kernel`, `engine`: rmqplan's allocation alone, and generating, allocating and counting every chunk, in this
  process without helpers (CPU time, best of `--repeat`): what the engine costs per CPU; `engine/java` divides it
  by the Java thread's;
- `cli wall`, `cli CPU`: `rmqplan simulate --fleet F --format json --engine local` in a fresh process, as a user
  runs it (this process and its helper processes, all CPUs): the fastest of `--repeat` runs, its wall time and the
  CPU time of the command and its children.

Both sides print an order-free checksum of every (process, queue) pair; they must be equal. Without Java or the
jars, the Java side is skipped (said so). Options: --groups N, --strategies A,B, --repeat N (default 3),
--colliding SHARE, --class-calls, --no-cli.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.plan_bench import load, machine, user_env

SEED = 7
ROOT = Path(__file__).resolve().parents[1]
JAVA_SOURCE = ROOT / "benchmarks" / "java" / "AllocateBench.java"
CLIENT = "client-5.3.3"
STRATEGIES = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")


def fleet_toml(groups: int, strategy: str, colliding: float) -> str:
    return (f'version = 1\n[generate]\ngroups = {groups}\nseed = {SEED}\ninstances = [3, 5]\nqueues = [4, 8]\n'
            f'brokers = 2\ncolliding_client_ids = {colliding}\nstrategies = ["{strategy}"]\n')


# ------------------------------------------------------------------------------------------------- our side


def cli(path: str) -> tuple[float, float]:
    """(wall, CPU of the command and its children) of one `rmqplan simulate` run."""
    exe = os.path.join(os.path.dirname(sys.executable), "rmqplan")
    cmd = [exe, "simulate", "--fleet", path, "--format", "json", "--engine", "local"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, env=user_env())
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def engine_one_cpu(path: str) -> tuple[float, float, int, int]:
    """(CPU seconds of the kernel alone, of the engine: generating, allocating and counting every chunk, in this
    process without helpers; assignments; checksum, taken outside the clock)."""
    from rmqplan.allocation.kernel import allocate
    from rmqplan.allocation.tally import tally
    from rmqplan.engines.chunks import chunks
    from rmqplan.generated.generate import generated_batch
    from rmqplan.sources.fleet_file import load_fleet

    spec = load_fleet(path).generate
    kernel = engine = 0.0
    count = total = 0
    for start, stop in chunks(spec):
        t0 = time.process_time()
        batch = generated_batch(spec, start, stop)
        t1 = time.process_time()
        rows = allocate(batch)
        t2 = time.process_time()
        tally(batch, rows)
        t3 = time.process_time()
        kernel += t2 - t1
        engine += t3 - t0
        n, s = rows_checksum(batch, rows)
        count += n
        total = (total + s) % 2**64
    return kernel, engine, count, total


def rows_checksum(batch, rows) -> tuple[int, int]:
    """AllocateBench's checksum of a generated batch's rows: mix64 of (2 * group + retry, broker, queueId,
    position of the process in the sorted cidAll), summed with wrap-around."""
    import numpy as np

    r = np.searchsorted(batch.q_off, rows.queue, "right") - 1
    rebalance = (batch.group[r] * 2 + batch.retry[r]).astype(np.uint64)
    x = (((rebalance << np.uint64(8) | batch.q_broker[rows.queue].astype(np.uint64)) << np.uint64(16)
          | batch.q_id[rows.queue].astype(np.uint64)) << np.uint64(16)) | batch.c_order[rows.entry].astype(np.uint64)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return len(x), int(np.add.reduce(x, dtype=np.uint64))


# ------------------------------------------------------------------------------------------------ Java's side


def write_groups(path: str, groups: int, colliding: float) -> None:
    """The generated groups (the planner's own reference generator, one group at a time) for AllocateBench."""
    from rmqplan.generated.generate import iter_generated_groups
    from rmqplan.model.fleet import GenerateSpec

    spec = GenerateSpec(groups, SEED, (3, 5), (4, 8), 2, colliding)
    with open(path, "w", encoding="utf-8") as f:
        f.write(" ".join(spec.broker_names()) + "\n")
        for gg in iter_generated_groups(spec):
            f.write(f"{gg.group} {gg.topic} {' '.join(map(str, gg.queue_counts))} {' '.join(gg.client_ids)}\n")


def java_runs(data: str, runs: list[str]) -> dict[str, dict]:
    """AllocateBench's figures per run name, or {} (with a line saying why) without Java or the jars."""
    import shutil

    from tests.cluster.rocketmq import CACHE, classpath, compiled

    if shutil.which("java") is None or shutil.which("javac") is None:
        print("java: skipped: no java or javac on PATH", flush=True)
        return {}
    if not any((CACHE / CLIENT).glob("rocketmq-client-*.jar")):
        print(f"java: skipped: no client jar in {CACHE / CLIENT} (`make install` fetches it with Maven)", flush=True)
        return {}
    try:
        classes = compiled(JAVA_SOURCE, CLIENT)
    except (OSError, RuntimeError) as e:
        print(f"java: skipped: {e}", flush=True)
        return {}
    cmd = ["java", "-Xmx6g", "-XX:+UseParallelGC", "-Drocketmq.client.logLevel=ERROR", "-cp",
           f"{classes}:{classpath(CLIENT)}", "AllocateBench", data, *runs]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"java: failed ({done.returncode}): {done.stderr[-800:]}", flush=True)
        return {}
    out = {}
    pattern = re.compile(r"java (\S+): assignments (\d+) checksum ([0-9a-f]+) wall best ([\d.]+) median ([\d.]+) "
                         r"cpu best ([\d.]+) median ([\d.]+) process cpu best ([\d.]+)")
    for line in done.stdout.splitlines():
        m = pattern.match(line)
        if m:
            out[m[1]] = {"assignments": int(m[2]), "checksum": int(m[3], 16), "wall": float(m[4]),
                         "wall_median": float(m[5]), "cpu": float(m[6]), "cpu_median": float(m[7]),
                         "process_cpu": float(m[8])}
    return out


# ------------------------------------------------------------------------------------------------------ main


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.strategy_bench")
    parser.add_argument("--groups", type=int, default=1_000_000)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--colliding", type=float, default=0.0)
    parser.add_argument("--class-calls", action="store_true")
    parser.add_argument("--no-cli", action="store_true")
    args = parser.parse_args(argv)
    strategies = args.strategies.split(",")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()), flush=True)
    print(f"load average before: {load()}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="rmqplan-strategy-bench-"))
    data = str(work / "groups.txt")
    write_groups(data, args.groups, args.colliding)
    runs = [f"{s}:{args.repeat}" for s in strategies]
    if "CONSISTENT_HASH" in strategies:
        runs.append(f"CONSISTENT_HASH_REBALANCE:{args.repeat}")
        if args.class_calls:
            runs.append("CONSISTENT_HASH_CLASS:1")
    java = java_runs(data, runs)
    print(f"{args.groups:,} groups, 3-5 processes, 4-8 queues on each of 2 brokers, the retry topic, "
          f"colliding client ids {args.colliding}; CPU seconds, best of {args.repeat}", flush=True)
    print(f"{'strategy':<22} {'java thread':>11} {'java process':>12} {'kernel':>8} {'engine':>8} "
          f"{'engine/java':>11} {'cli wall':>8} {'cli CPU':>8}  checksum", flush=True)
    ok = True
    for strategy in strategies:
        path = str(work / f"{strategy}.toml")
        with open(path, "w") as f:
            f.write(fleet_toml(args.groups, strategy, args.colliding))
        wall = cli_cpu = float("nan")
        if not args.no_cli:
            cli(path)  # byte code compiled: what a second run finds
            wall, cli_cpu = min(cli(path) for _ in range(max(1, args.repeat)))
        runs = [engine_one_cpu(path) for _ in range(max(1, args.repeat))]
        kernel, engine = min(r[0] for r in runs), min(r[1] for r in runs)
        count, checksum = runs[0][2], runs[0][3]
        ok = ok and all(r[2:] == (count, checksum) for r in runs)
        for name in (strategy, f"{strategy}_REBALANCE", f"{strategy}_CLASS"):
            j = java.get(name)
            if j is None and name != strategy:
                continue
            same = j is not None and (j["assignments"], j["checksum"]) == (count, checksum)
            ok = ok and (j is None or same)
            label = {"CONSISTENT_HASH": "CONSISTENT_HASH", "CONSISTENT_HASH_REBALANCE": "  (ring per rebalance)",
                     "CONSISTENT_HASH_CLASS": "  (class per process)"}.get(name, name)
            java_cpu = f"{j['cpu']:>11.2f} {j['process_cpu']:>12.2f}" if j else f"{'-':>11} {'-':>12}"
            ratio = f"{engine / j['cpu']:>11.2f}" if j else f"{'-':>11}"
            ours = (f"{kernel:>8.2f} {engine:>8.2f} {ratio} {wall:>8.2f} {cli_cpu:>8.2f}" if name == strategy
                    else f"{'':>8} {'':>8} {engine / j['cpu']:>11.2f} {'':>8} {'':>8}")
            check = (f"{checksum:016x} ({count:,} assignments)" if j is None
                     else f"{'same' if same else 'DIFFERENT: java ' + format(j['checksum'], '016x')}")
            print(f"{label:<22} {java_cpu} {ours}  {check}", flush=True)
    print(f"load average after: {load()}", flush=True)
    for p in work.iterdir():
        p.unlink()
    work.rmdir()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

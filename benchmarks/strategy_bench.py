"""`python -m benchmarks.strategy_bench`: every strategy on the local engine against one thread of the RocketMQ
client's own classes, on the same generated groups.

The shape (default 1M groups): 3-5 processes, 4-8 queues on each of 2 brokers, the retry topic (one queue per
broker), no colliding client ids (`--colliding` to add some): 14M assignments per million groups. The strategies
that `[generate]` cannot draw get the same groups dressed by the benchmark, the same way on both sides:

- MACHINE_ROOM (consumer_idcs ["hz", "sh"]) and MACHINE_ROOM_NEARBY (delegate AVG): broker b is named
  `ROOMS[b % 2]@broker-0b` and deployed in that room; a process is deployed in ROOMS[pid % 2], pid being the number
  after "@" in its client id;
- CONFIG: the process at declaration index i of n lists the queues of its topic, then of its retry topic, at sorted
  positions i, i + n, ... (in each rebalance the other topic's queues are held all the same: `Rows.extra`).

Columns (CPU seconds, best of `--repeat`):
- `java thread`, `java process`: `benchmarks/java/AllocateBench.java`, compiled with javac against the client jars
  that `make rocketmq` fetches from Maven Central (.cache/rocketmq/client-5.3.3), in one thread: that thread's CPU
  time and the JVM's (GC and JIT threads too). The kernel row: allocation alone, each group's lists built and
  sorted before the clock; the class called once per process, except CONSISTENT_HASH: the class's ring
  (ConsistentHashRouter) built once per group with every queue of both topics routed once (the least work that
  gives every share), and once per rebalance (what one allocate() call builds); `--class-calls` also times
  AllocateMessageQueueConsistentHash.allocate once per process (a ring per call, as every consumer runs it).
  The engine row (generatable strategies): each group generated from the seed inside the clock (Java's port of
  rmqplan's generator: strings, MessageQueues, both lists sorted), allocated as in the kernel row, and its problems
  counted as rmqplan's tally counts them;
- `rmqplan`: the kernel row: `rmqplan.allocation.kernel.allocate` alone over each chunk's batch (built before the
  clock); the engine row: generating, allocating and counting every chunk (`generated_batch`, `allocate`,
  `tally`), in this process without helpers, its freed memory kept as the engine keeps it
  (`rmqplan.engines.heap`); `ratio` divides it by the Java thread's;
- `cli wall`, `cli CPU` (generatable strategies): `rmqplan simulate --fleet F --format json --engine local` in a
  fresh process, as a user runs it (this process and its helper processes, all CPUs): the fastest of `--repeat`
  runs, its wall time and the CPU time of the command and its children.

Both sides print an order-free checksum of every (process, queue) pair, and the engine rows their problem totals;
they must be equal. The Java side checks that its generator gives the groups file's groups, string for string.
Without Java or the jars, the Java side is skipped (said so). Options: --groups N, --strategies A,B, --repeat N
(default 3), --colliding SHARE, --class-calls, --no-cli.
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
from dataclasses import replace
from pathlib import Path

from benchmarks.plan_bench import load, machine, user_env

SEED = 7
ROOT = Path(__file__).resolve().parents[1]
JAVA_SOURCE = ROOT / "benchmarks" / "java" / "AllocateBench.java"
CLIENT = "client-5.3.3"
GENERATED = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")
DRESSED = ("MACHINE_ROOM", "MACHINE_ROOM_NEARBY", "CONFIG")
STRATEGIES = GENERATED + DRESSED
ROOMS = ("hz", "sh")
SHAPE = dict(instances=(3, 5), queues=(4, 8), brokers=2)


def generate_spec(groups: int, strategy: str, colliding: float):
    from rmqplan.model.fleet import GenerateSpec

    return GenerateSpec(groups, SEED, SHAPE["instances"], SHAPE["queues"], SHAPE["brokers"], colliding,
                        (strategy if strategy in GENERATED else "AVG",))


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


def dressed(batch, strategy: str):
    """A generated batch (drawn with AVG) as the benchmark's MACHINE_ROOM, MACHINE_ROOM_NEARBY or CONFIG groups."""
    import numpy as np

    from rmqplan.allocation.strategies import parse_strategy_name
    from rmqplan.generated.generate import MODULUS, PROCESS_STEP
    from rmqplan.model.fleet import Queue

    names = batch.names
    if strategy == "CONFIG":
        return _config_batch(batch, np, Queue)
    brokers = [f"{ROOMS[b % len(ROOMS)]}@{name}" for b, name in enumerate(batch.brokers)]
    p = np.asarray(names.entry_process)
    k = np.asarray(names.process_group)[p]
    a = (np.asarray(names.a0)[k] + np.asarray(names.process_i)[p] * PROCESS_STEP) % MODULUS
    pid = np.where(np.asarray(names.colliding)[k], 1, 1 + (a >> 8) % 65535)
    spec = (parse_strategy_name("MACHINE_ROOM", consumer_idcs=list(ROOMS)) if strategy == "MACHINE_ROOM"
            else parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="AVG"))
    return replace(batch, brokers=brokers, rooms=list(ROOMS), specs=[spec],
                   broker_room=(np.arange(len(brokers)) % len(ROOMS)).astype(np.int32),
                   c_room=(pid % len(ROOMS)).astype(np.int32), c_spec=np.zeros(batch.entries, dtype=np.int32))


def _config_batch(batch, np, Queue):
    """Each process its own CONFIG list (see the module docstring): one spec per process, both of its entries."""
    from rmqplan.model.fleet import StrategySpec

    names = batch.names
    specs, c_spec = [], np.empty(batch.entries, dtype=np.int32)
    brokers = batch.brokers
    q_broker, q_id, q_off, c_off = (a.tolist() for a in (batch.q_broker, batch.q_id, batch.q_off, batch.c_off))
    for g in range(batch.rebalances // 2):
        main, retry = 2 * g, 2 * g + 1
        topics = (names.topic(main), names.topic(retry))
        mq, rq = ([Queue(topic, brokers[b], i) for b, i in zip(q_broker[q_off[r]:q_off[r + 1]],
                                                               q_id[q_off[r]:q_off[r + 1]])]
                  for topic, r in zip(topics, (main, retry)))
        n = c_off[main + 1] - c_off[main]
        for i in range(n):
            c_spec[c_off[main] + i] = c_spec[c_off[retry] + i] = len(specs)
            specs.append(StrategySpec("CONFIG", config_queues=tuple(mq[i::n] + rq[i::n])))
    return replace(batch, specs=specs, c_spec=c_spec)


def ours(spec, strategy: str, engine: bool) -> dict:
    """CPU seconds of the kernel alone (every chunk's batch built before the clock) or, with `engine`, of
    generating, allocating and counting every chunk in this process; the checksum and totals outside the clock."""
    from rmqplan.allocation.kernel import allocate
    from rmqplan.allocation.tally import tally
    from rmqplan.engines.chunks import chunks
    from rmqplan.generated.generate import generated_batch

    cpu = 0.0
    count = total = 0
    totals = dict.fromkeys(("assignments", "orphaned", "duplicated", "idle", "imbalanced"), 0)
    for start, stop in chunks(spec):
        if engine:
            t0 = time.process_time()
            batch = generated_batch(spec, start, stop)
            rows = allocate(batch)
            t = tally(batch, rows)
            cpu += time.process_time() - t0
            for name in totals:
                totals[name] += int(getattr(t, name).sum())
        else:
            batch = generated_batch(spec, start, stop)
            if strategy in DRESSED:
                batch = dressed(batch, strategy)
            t0 = time.process_time()
            rows = allocate(batch)
            cpu += time.process_time() - t0
        n, s = rows_checksum(batch, rows)
        count += n
        total = (total + s) % 2**64
    return {"cpu": cpu, "assignments": count, "checksum": total, "totals": totals if engine else None}


def rows_checksum(batch, rows) -> tuple[int, int]:
    """AllocateBench's checksum of a generated batch's rows (and extra rows, by broker and queue id): mix64 of
    (2 * group + retry, broker, queueId, position of the process in the sorted cidAll), summed with wrap-around."""
    import numpy as np

    entry = rows.entry
    broker = batch.q_broker[rows.queue].astype(np.uint64)
    queue_id = batch.q_id[rows.queue].astype(np.uint64)
    if rows.extra:
        brokers = {name: b for b, name in enumerate(batch.brokers)}
        entry = np.concatenate([entry, np.array([e for e, _, _ in rows.extra], dtype=np.int64)])
        broker = np.concatenate([broker, np.array([brokers[q.broker] for _, q, _ in rows.extra], dtype=np.uint64)])
        queue_id = np.concatenate([queue_id, np.array([q.queue_id for _, q, _ in rows.extra], dtype=np.uint64)])
    r = batch.entry_rebalance()[entry]
    rebalance = (batch.group[r] * 2 + batch.retry[r]).astype(np.uint64)
    x = (((rebalance << np.uint64(8) | broker) << np.uint64(16) | queue_id) << np.uint64(16)) \
        | batch.c_order[entry].astype(np.uint64)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return len(x), int(np.add.reduce(x, dtype=np.uint64))


# ------------------------------------------------------------------------------------------------ Java's side


def write_groups(path: str, spec) -> None:
    """The generated groups (the planner's own reference generator, one group at a time) for AllocateBench."""
    from rmqplan.generated.generate import iter_generated_groups

    with open(path, "w", encoding="utf-8") as f:
        f.write(" ".join(spec.broker_names()) + "\n")
        for gg in iter_generated_groups(spec):
            f.write(f"{gg.group} {gg.topic} {' '.join(map(str, gg.queue_counts))} {' '.join(gg.client_ids)}\n")


def java_runs(data: str, spec, runs: list[str]) -> dict[str, dict]:
    """AllocateBench's figures per run name, or {} (with a line saying why) without Java or the jars."""
    import shutil

    from rmqplan.generated.generate import collide_threshold
    from harness.rocketmq_java import CACHE, classpath, compiled

    if shutil.which("java") is None or shutil.which("javac") is None:
        print("java: skipped: no java or javac on PATH", flush=True)
        return {}
    if not any((CACHE / CLIENT).glob("rocketmq-client-*.jar")):
        print(f"java: skipped: no client jar in {CACHE / CLIENT} (`make rocketmq` fetches it with Maven)", flush=True)
        return {}
    try:
        classes = compiled(JAVA_SOURCE, CLIENT)
    except (OSError, RuntimeError) as e:
        print(f"java: skipped: {e}", flush=True)
        return {}
    shape = ",".join(map(str, (spec.groups, spec.seed, *spec.instances, *spec.queues, spec.brokers,
                               collide_threshold(spec))))
    cmd = ["java", "-Xmx8g", "-XX:+UseParallelGC", "-Drocketmq.client.logLevel=ERROR", "-cp",
           f"{classes}:{classpath(CLIENT)}", "AllocateBench", data, shape, *runs]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"java: failed ({done.returncode}): {done.stderr[-800:]}", flush=True)
        return {}
    out = {}
    pattern = re.compile(r"java (\S+): assignments (\d+) checksum ([0-9a-f]+) wall best ([\d.]+) median ([\d.]+) "
                         r"cpu best ([\d.]+) median ([\d.]+) process cpu best ([\d.]+)(?: totals (.*?))? \(s;")
    for line in done.stdout.splitlines():
        m = pattern.match(line)
        if m:
            totals = None
            if m[9]:
                words = m[9].split()
                totals = {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}
            out[m[1]] = {"assignments": int(m[2]), "checksum": int(m[3], 16), "wall": float(m[4]),
                         "cpu": float(m[6]), "process_cpu": float(m[8]), "totals": totals}
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
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        parser.error(f"unknown strategies {unknown} (expected some of {', '.join(STRATEGIES)})")
    repeat = max(1, args.repeat)
    from rmqplan.engines.heap import keep_freed_memory

    keep_freed_memory()  # as the engine does in every process that runs chunks
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()), flush=True)
    print(f"load average before: {load()}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="rmqplan-strategy-bench-"))
    data = str(work / "groups.txt")
    base = generate_spec(args.groups, "AVG", args.colliding)
    write_groups(data, base)
    runs = []
    for s in strategies:
        runs.append(f"{s}:{repeat}")
        if s in GENERATED:
            runs.append(f"ENGINE_{s}:{repeat}")
    if "CONSISTENT_HASH" in strategies:
        runs.append(f"CONSISTENT_HASH_REBALANCE:{repeat}")
        if args.class_calls:
            runs.append("CONSISTENT_HASH_CLASS:1")
    java = java_runs(data, base, runs)
    print(f"{args.groups:,} groups, 3-5 processes, 4-8 queues on each of 2 brokers, the retry topic, "
          f"colliding client ids {args.colliding}; CPU seconds, best of {repeat}", flush=True)
    print(f"{'strategy':<32} {'java thread':>11} {'java process':>12} {'rmqplan':>8} {'ratio':>6} "
          f"{'cli wall':>8} {'cli CPU':>8}  checksum", flush=True)
    ok = True
    for strategy in strategies:
        spec = generate_spec(args.groups, strategy, args.colliding)
        wall = cli_cpu = float("nan")
        if strategy in GENERATED and not args.no_cli:
            path = str(work / f"{strategy}.toml")
            with open(path, "w") as f:
                f.write(fleet_toml(args.groups, strategy, args.colliding))
            cli(path)  # byte code compiled: what a second run finds
            wall, cli_cpu = min(cli(path) for _ in range(repeat))
        kernel = None
        rows = [(strategy, f"{strategy} kernel", False)]
        if strategy in GENERATED:
            rows.append((f"ENGINE_{strategy}", f"{strategy} engine", True))
        for name, label, engine in rows:
            got = [ours(spec, strategy, engine) for _ in range(repeat)]
            mine = dict(got[0], cpu=min(g["cpu"] for g in got))
            kernel = kernel or mine
            ok = ok and all((g["assignments"], g["checksum"], g["totals"]) ==
                            (mine["assignments"], mine["checksum"], mine["totals"]) for g in got)
            j = java.get(name)
            same = j is not None and (j["assignments"], j["checksum"]) == (mine["assignments"], mine["checksum"]) \
                and (not engine or j["totals"] == mine["totals"])
            ok = ok and (j is None or same)
            java_cpu = f"{j['cpu']:>11.2f} {j['process_cpu']:>12.2f}" if j else f"{'-':>11} {'-':>12}"
            ratio = f"{mine['cpu'] / j['cpu']:>6.2f}" if j else f"{'-':>6}"
            cli_cols = f"{wall:>8.2f} {cli_cpu:>8.2f}" if engine and not args.no_cli else f"{'':>8} {'':>8}"
            check = f"{mine['checksum']:016x} ({mine['assignments']:,} assignments)"
            if engine:
                check += f" totals {mine['totals']}"
            if j is not None:
                check = "same" if same else (f"DIFFERENT: java {j['checksum']:016x} {j['assignments']:,} "
                                             f"{j['totals']}; ours {check}")
            print(f"{label:<32} {java_cpu} {mine['cpu']:>8.2f} {ratio} {cli_cols}  {check}", flush=True)
        if strategy == "CONSISTENT_HASH":
            for name, label in (("CONSISTENT_HASH_REBALANCE", "  java: ring per rebalance"),
                                ("CONSISTENT_HASH_CLASS", "  java: the class per process")):
                j = java.get(name)
                if j is not None:  # against the kernel row
                    same = (j["assignments"], j["checksum"]) == (kernel["assignments"], kernel["checksum"])
                    ok = ok and same
                    print(f"{label:<32} {j['cpu']:>11.2f} {j['process_cpu']:>12.2f} {kernel['cpu']:>8.2f} "
                          f"{kernel['cpu'] / j['cpu']:>6.2f} {'':>8} {'':>8}  {'same' if same else 'DIFFERENT'}",
                          flush=True)
    print(f"load average after: {load()}", flush=True)
    for p in work.iterdir():
        p.unlink()
    work.rmdir()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

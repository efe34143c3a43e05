"""`python -m benchmarks.plan_bench`: rmqplan on generated fleets, as a user runs it and engine alone.

For each size (default 10k, 100k and 1M generated groups: 1-20 processes, 4-32 queues on each of 2 brokers, 1%
colliding client ids, AVG; the retry topic included, so 1M groups make 38.1M assignments) it prints seconds and
assignments per second for:
- `cli <engine>`: the whole command `rmqplan simulate --fleet F --format json --engine <engine>` in a fresh
  process (interpreter, imports, JVM and Spark session included), best and median of `--repeat` runs;
- `cli <engine> --out`: the same command writing every assignment, table and finding to a directory, each run
  right after one without (`--repeat` pairs): best, median, the ratio of the medians and the range of the pairs';
- `engine <engine>`: `planner.<engine>.simulate` in this process, the Spark session already up and warmed on a
  small fleet (what the engine itself costs).
The engines' totals must agree everywhere; on the 100k fleet both engines' `--out` tables must name the same
assignments (an order-free digest of every row, joined through the dimension tables).

Byte code is cached for the measured processes (PYTHONPYCACHEPREFIX under benchmarks/work/), as it is for an
installed package, even where the environment sets PYTHONDONTWRITEBYTECODE; Spark's class archive
(~/.cache/rmqplan) is made by a first, unmeasured run.

Options: --sizes 10000,100000 (default 10000,100000,1000000), --engines local,spark, --repeat N (default 3),
--no-out (skip the --out runs), --master URL.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SEED = 7
WORK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "work")


def user_env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(WORK, "pycache")
    return env


def fleet_toml(groups: int) -> str:
    return (f"version = 1\n[generate]\ngroups = {groups}\nseed = {SEED}\ninstances = [1, 20]\nqueues = [4, 32]\n"
            f"brokers = 2\ncolliding_client_ids = 0.01\n")


def machine() -> dict:
    def first_line(cmd):
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            return (done.stdout + done.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "?"

    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    import numpy
    import pyarrow
    import pyspark

    return {"nproc": os.cpu_count(), "memory": mem, "java": first_line(["java", "-version"]),
            "python": platform.python_version(), "numpy": numpy.__version__, "pyarrow": pyarrow.__version__,
            "pyspark": pyspark.__version__}


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def cli(path: str, engine: str, out: str | None, master: str | None) -> tuple[float, dict]:
    exe = os.path.join(os.path.dirname(sys.executable), "rmqplan")
    cmd = [exe, "simulate", "--fleet", path, "--format", "json", "--engine", engine]
    if out:
        cmd += ["--out", out]
    if master:
        cmd += ["--master", master]
    t0 = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, env=user_env())
    elapsed = time.monotonic() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return elapsed, json.loads(done.stdout)["totals"]


def out_digest(directory: str) -> tuple:
    """Count and two order-free sums over every assignment named `group|topic|instance|broker|queueId`."""
    import hashlib

    import pyarrow.parquet as pq

    def table(name):
        return pq.read_table(os.path.join(directory, name)).to_pydict()

    groups = table("groups")
    topic = {(s, g, t): name for s, g, t, name in zip(groups["scenario_id"], groups["group_id"], groups["topic_id"],
                                                       groups["topic"])}
    group = {(s, g): name for s, g, name in zip(groups["scenario_id"], groups["group_id"], groups["group"])}
    processes = table("processes")
    instance = {(s, g, p): name for s, g, p, name in zip(processes["scenario_id"], processes["group_id"],
                                                         processes["process"], processes["instance"])}
    brokers = dict(zip(*table("brokers").values()))
    a = table("assignments")
    digest = [0, 0, 0]
    for s, g, t, p, b, q in zip(a["scenario_id"], a["group_id"], a["topic_id"], a["process"], a["broker_id"],
                                a["queue_id"]):
        d = hashlib.md5(f"{group[s, g]}|{topic[s, g, t]}|{instance[s, g, p]}|{brokers[b]}|{q}".encode()).digest()
        digest[0] += 1
        digest[1] += int.from_bytes(d[:4], "big")
        digest[2] += int.from_bytes(d[4:8], "big")
    return tuple(digest)


def row(groups: int, what: str, seconds: float, assignments: int, note: str = "") -> None:
    print(f"{groups:>10,} {what:<18} {seconds:>8.2f} {assignments:>12,} {assignments / seconds:>14,.0f}  {note}",
          flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.plan_bench")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--engines", default="local,spark")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-out", action="store_true")
    parser.add_argument("--master", default=None)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    engines = args.engines.split(",")

    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()), flush=True)
    print(f"load average before: {load()}", flush=True)
    work = tempfile.mkdtemp(prefix="rmqplan-bench-")
    warm = os.path.join(work, "warm.toml")
    with open(warm, "w") as f:
        f.write(fleet_toml(1000))
    for engine in engines:  # byte code compiled, Spark's class archive written: what a second run finds
        cli(warm, engine, None, args.master)
    time.sleep(5 if "spark" in engines else 0)  # the first JVM writes its class archive as it exits
    ok = True
    print(f"{'groups':>10} {'run':<18} {'seconds':>8} {'assignments':>12} {'assignments/s':>14}")
    for n in sizes:
        path = os.path.join(work, f"gen-{n}.toml")
        with open(path, "w") as f:
            f.write(fleet_toml(n))
        seen: dict = {}
        for engine in engines:
            out = os.path.join(work, f"out-{engine}-{n}")
            runs, out_runs = [], []
            for _ in range(max(1, args.repeat)):  # alternating, so that both see the machine alike
                runs.append(cli(path, engine, None, args.master))
                if not args.no_out:
                    shutil.rmtree(out, ignore_errors=True)  # the last run's tables: deleting them is not writing
                    out_runs.append(cli(path, engine, out, args.master))
            times = [t for t, _ in runs]
            seen[engine] = runs[0][1]
            ok = ok and all(t == runs[0][1] for _, t in runs + out_runs)
            row(n, f"cli {engine}", min(times), runs[0][1]["assignments"],
                f"best of {len(times)}; median {statistics.median(times):.2f} s; all "
                + ", ".join(f"{t:.2f}" for t in times))
            if out_runs:
                out_times = [t for t, _ in out_runs]
                pairs = [b / a for a, b in zip(times, out_times)]
                row(n, f"cli {engine} --out", min(out_times), out_runs[0][1]["assignments"],
                    f"median {statistics.median(out_times):.2f} s, "
                    f"{statistics.median(out_times) / statistics.median(times):.2f}x the run without --out "
                    f"(pairs {min(pairs):.2f}-{max(pairs):.2f}x); all " + ", ".join(f"{t:.2f}" for t in out_times)
                    + f"; {_size(out)}")
        if len(set(json.dumps(t, sort_keys=True) for t in seen.values())) > 1:
            ok = False
            print(f"  TOTALS DIFFER: {seen}", flush=True)
        print(f"  totals: {next(iter(seen.values()))}", flush=True)
        if not args.no_out and len(engines) > 1 and n == 100_000:
            digests = {e: out_digest(os.path.join(work, f"out-{e}-{n}")) for e in engines}
            same = len(set(digests.values())) == 1
            ok = ok and same
            print(f"  --out agreement: {digests}: {'SAME' if same else 'DIFFERENT'}", flush=True)
    for engine in engines:
        _engine_runs(engine, sizes, work, args)
    print(f"load average after: {load()}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def _size(directory: str) -> str:
    total = sum(os.path.getsize(os.path.join(folder, f)) for folder, _, files in os.walk(directory) for f in files)
    return f"{total / 1e6:.0f} MB written"


def _engine_runs(engine: str, sizes, work: str, args) -> None:
    """The engine alone, in this process (Spark session up and warmed)."""
    from rmqplan.sources.fleet_file import load_fleet

    if engine == "spark":
        from rmqplan.model.simulation import SimulateOptions
        from rmqplan.engines.spark import simulate as spark_simulate

        options = SimulateOptions(master=args.master)
        warm = os.path.join(work, "warm.toml")
        with open(warm, "w") as f:
            f.write(fleet_toml(20_000))
        spark_simulate(load_fleet(warm), options)
        run = lambda fleet: spark_simulate(fleet, options)  # noqa: E731
    else:
        from rmqplan.engines.local import simulate as run
    for n in sizes:
        fleet = load_fleet(os.path.join(work, f"gen-{n}.toml"))
        times = []
        for _ in range(max(1, args.repeat)):
            t0 = time.monotonic()
            sim = run(fleet)
            times.append(time.monotonic() - t0)
        row(n, f"engine {engine}", min(times), sim.totals["assignments"],
            f"median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    sys.exit(main())

"""`python -m benchmarks.scenario_bench`: what a rolling restart of every generated group costs, as a user runs it.

For each size (default 100k and 1M generated groups, the fleet of `benchmarks.plan_bench`: 1-20 processes, 4-32
queues on each of 2 brokers, 1% colliding client ids, AVG) it runs, in a fresh process per run,
`rmqplan simulate --fleet F --format json --engine <engine>` on the plain fleet and on the same fleet with one
scenario, `rolling_restart = "group"` (every group restarts process by process: 2n states of each group of n
processes, 40 steps). It prints the best and median wall time of `--repeat` runs, the rebalances' cidAll entries
the scenario adds, and the rollout; the engines must print the same JSON document (checked byte for byte).

Then `--compare-strategies` with the minimum (networkx) on the bundled example fleet plus a rolling restart of
its `orders` group, and on a hand-written group of `--compare-processes` processes over 64 queues restarting.

Options: --sizes 100000,1000000, --engines local,spark, --repeat N (default 1), --master URL.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.plan_bench import fleet_toml, load, machine, user_env

ROLLING = '\n[[scenarios]]\nname = "rolling"\nrolling_restart = "group"\n'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(path: str, engine: str, master, *extra: str) -> tuple[float, bytes]:
    exe = os.path.join(os.path.dirname(sys.executable), "rmqplan")
    cmd = [exe, "simulate", "--fleet", path, "--format", "json", "--engine", engine, *extra]
    if master and engine == "spark":
        cmd += ["--master", master]
    t0 = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, env=user_env())
    elapsed = time.monotonic() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return elapsed, done.stdout


def entries(groups: int) -> tuple[int, int]:
    """cidAll entries of the baseline and of the rolling restart's states (both topics of every group)."""
    import numpy as np

    from rmqplan.generated.generate import F_INSTANCES, MODULUS, _field_np, _mix_np, seed_state

    n = 1 + _field_np(_mix_np((seed_state(7) + np.arange(groups, dtype=np.int64)) % MODULUS), F_INSTANCES) % 20
    return int(2 * n.sum()), int(2 * (2 * n * n - n).sum())


def main(argv=None) -> int:
    import json

    parser = argparse.ArgumentParser(prog="python -m benchmarks.scenario_bench")
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--engines", default="local,spark")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--master", default=None)
    parser.add_argument("--compare-processes", type=int, default=40)
    args = parser.parse_args(argv)
    engines = args.engines.split(",")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()), flush=True)
    print(f"load average before: {load()}", flush=True)
    work = tempfile.mkdtemp(prefix="rmqplan-scenario-bench-")
    warm = os.path.join(work, "warm.toml")
    with open(warm, "w") as f:
        f.write(fleet_toml(1000) + ROLLING)
    for engine in engines:
        run(warm, engine, args.master)
    time.sleep(5 if "spark" in engines else 0)
    ok = True
    print(f"{'groups':>10} {'run':<26} {'best s':>8} {'median s':>9}  note")
    for n in [int(s) for s in args.sizes.split(",")]:
        base_entries, state_entries = entries(n)
        docs = {}
        for label, text in (("plain", fleet_toml(n)), ("rolling restart", fleet_toml(n) + ROLLING)):
            path = os.path.join(work, f"gen-{n}-{label.split()[0]}.toml")
            with open(path, "w") as f:
                f.write(text)
            for engine in engines:
                runs = [run(path, engine, args.master) for _ in range(max(1, args.repeat))]
                times = [t for t, _ in runs]
                docs[(label, engine)] = runs[0][1]
                note = ""
                if label != "plain":
                    doc = json.loads(runs[0][1])
                    rollout = doc["scenarios"][1]["rollout"]
                    note = (f"{state_entries:,} cidAll entries of states ({state_entries / base_entries:.1f}x the "
                            f"baseline's {base_entries:,}); rollout {rollout}")
                print(f"{n:>10,} {label + ' ' + engine:<26} {min(times):>8.2f} {statistics.median(times):>9.2f}  "
                      f"{note}", flush=True)
            digests = {e: hashlib.sha256(docs[(label, e)]).hexdigest()[:16] for e in engines}
            same = len(set(digests.values())) == 1
            ok = ok and same
            print(f"  {label}: JSON of {', '.join(engines)}: {'IDENTICAL' if same else 'DIFFERENT'} {digests}",
                  flush=True)
    # the comparison and the minimum on hand-written groups
    example = os.path.join(work, "example-rolling.toml")
    with open(os.path.join(ROOT, "examples", "fleet.toml")) as f:
        text = f.read()
    with open(example, "w") as f:
        f.write(text + '\n[[scenarios]]\nname = "rolling"\ngroup = "orders"\nrolling_restart = "group"\n')
    big = os.path.join(work, "one-group.toml")
    with open(big, "w") as f:
        f.write('[[brokers]]\nname = "broker-a"\n[[brokers]]\nname = "broker-b"\n[[topics]]\nname = "T"\n'
                'read_queues = 32\n[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n'
                f'[[groups.instances]]\nhosts = ["10.0.0.1"]\ncount = {args.compare_processes}\n' + ROLLING.replace(
                    'name = "rolling"', 'name = "rolling"\ngroup = "g"'))
    print(f"{'run (local engine)':<72} {'best s':>8} {'median s':>9}")
    for label, path in (("example fleet + a rolling restart of orders (3 processes)", example),
                        (f"1 group of {args.compare_processes} processes, 64 queues, rolling restart", big)):
        for extra in ((), ("--compare-strategies",), ("--compare-strategies", "--plan", os.path.join(work, "plan"))):
            times = [run(path, "local", None, *extra)[0] for _ in range(max(1, args.repeat))]
            flags = " ".join(x for x in extra if x.startswith("--"))
            print(f"{(label + (' ' + flags if flags else '')):<72} {min(times):>8.2f} {statistics.median(times):>9.2f}",
                  flush=True)
    print(f"load average after: {load()}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

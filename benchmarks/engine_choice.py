"""`python -m benchmarks.engine_choice`: where `--engine auto` should switch from the local engine to Spark.

For each size (default 1M, 2M, 5M, 10M, 20M generated groups, the fleet of `benchmarks.plan_bench`) it runs the
command a user types, `rmqplan simulate --fleet F --format json --engine <engine>`, in a fresh process, for both
engines, and prints the wall time (best and median of `--repeat`) and the peak memory of the whole process tree
(the rmqplan process, and for Spark its JVM and Python workers), sampled every 0.1 s from /proc.

Options: --sizes 1000000,2000000 (default 1000000,2000000,5000000,10000000,20000000), --engines local,spark,
--repeat N (default 2).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from benchmarks.plan_bench import fleet_toml, load, machine, user_env


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(name))
    return tree


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(root: int) -> tuple[int, int]:
    """(RSS of the process tree under `root`, RSS of `root` alone), bytes."""
    tree, total, stack = _children(), 0, [root]
    while stack:
        pid = stack.pop()
        total += _rss(pid)
        stack.extend(tree.get(pid, ()))
    return total, _rss(root)


def run(path: str, engine: str) -> tuple[float, int, int, dict]:
    """(seconds, peak tree RSS, peak rmqplan RSS, totals) of one cold command."""
    exe = os.path.join(os.path.dirname(sys.executable), "rmqplan")
    cmd = [exe, "simulate", "--fleet", path, "--format", "json", "--engine", engine]
    peak = [0, 0]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=user_env())

    def sample():
        while proc.poll() is None:
            total, own = tree_rss(proc.pid)
            peak[0], peak[1] = max(peak[0], total), max(peak[1], own)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    elapsed = time.monotonic() - t0
    sampler.join()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-800:]}")
    return elapsed, peak[0], peak[1], json.loads(out)["totals"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine_choice")
    parser.add_argument("--sizes", default="1000000,2000000,5000000,10000000,20000000")
    parser.add_argument("--engines", default="local,spark")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()), flush=True)
    print(f"load average before: {load()}", flush=True)
    work = tempfile.mkdtemp(prefix="rmqplan-choice-")
    warm = os.path.join(work, "warm.toml")
    with open(warm, "w") as f:
        f.write(fleet_toml(1000))
    for engine in args.engines.split(","):  # byte code compiled, Spark's class archive written
        run(warm, engine)
    time.sleep(5)
    print(f"{'groups':>11} {'engine':<6} {'best s':>7} {'median s':>8} {'tree MB':>8} {'rmqplan MB':>10} "
          f"{'assignments':>12}  load")
    ok = True
    for n in (int(s) for s in args.sizes.split(",")):
        path = os.path.join(work, f"gen-{n}.toml")
        with open(path, "w") as f:
            f.write(fleet_toml(n))
        seen = {}
        for engine in args.engines.split(","):
            runs = [run(path, engine) for _ in range(max(1, args.repeat))]
            times = [r[0] for r in runs]
            seen[engine] = runs[0][3]
            print(f"{n:>11,} {engine:<6} {min(times):>7.2f} {statistics.median(times):>8.2f} "
                  f"{max(r[1] for r in runs) / 2**20:>8.0f} {max(r[2] for r in runs) / 2**20:>10.0f} "
                  f"{runs[0][3]['assignments']:>12,}  {load()}", flush=True)
        if len({json.dumps(t, sort_keys=True) for t in seen.values()}) > 1:
            ok = False
            print(f"  TOTALS DIFFER: {seen}", flush=True)
        os.remove(path)
    print(f"load average after: {load()}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""`python -m benchmarks.watch_soak`: `rmqplan watch` running for a long time, as a service runs (not a test).

It starts `rmqplan watch --interval 1` in a process of its own against a cluster, for `--minutes` (default 30), and
prints its resident memory (VmRSS, from /proc) every minute, the reads it made and the time a read takes (from its
own `/metrics`: `rmqplan_watch_read_duration_seconds`), and how long SIGTERM takes to stop it. It fails (exit 1)
when the memory at the end is more than 1.1 times the memory after the first minute, or a read failed.

The cluster:
- `--large` (default): `python -m harness.fake_rocketmq.large`, 2,000 groups and 20,000 queues on 2 brokers served over the
  real protocol by a process of its own (the same answers every run);
- `--namesrv ADDR`: a running cluster, e.g. the live tests' RocketMQ (BENCHMARKS.md says how it was measured).

Both processes run at the lowest CPU priority (nice 19), beside whatever else the machine does.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.executable).parent
NICE = ["nice", "-n", "19"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def scrape(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url + "/metrics", timeout=30) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        m = re.match(r'^(rmqplan_watch_[a-z_]+(?:\{outcome="\w+"\})?) (\S+)$', line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def soak(namesrv: str, minutes: float, interval: float) -> bool:
    watch = subprocess.Popen([*NICE, str(BIN / "rmqplan"), "watch", "--namesrv", namesrv, "--listen", "127.0.0.1:0",
                              "--interval", str(interval)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    first = watch.stderr.readline()
    match = re.search(r"serving (http://\S+?)/ ", first)
    if match is None:
        watch.kill()
        raise RuntimeError(f"rmqplan watch did not start: {first}{watch.stderr.read()}")
    url = match.group(1)
    started = time.monotonic()
    samples = []
    try:
        for minute in range(1, int(minutes) + 1):
            time.sleep(max(0.0, started + 60 * minute - time.monotonic()))
            m = scrape(url)
            reads = m.get('rmqplan_watch_reads_total{outcome="ok"}', 0)
            failed = m.get('rmqplan_watch_reads_total{outcome="failed"}', 0)
            count, total = m.get("rmqplan_watch_read_duration_seconds_count", 0), \
                m.get("rmqplan_watch_read_duration_seconds_sum", 0)
            samples.append((minute, rss_mb(watch.pid), reads, failed, total / count if count else 0.0))
            print(f"  {minute:>3} min: RSS {samples[-1][1]:7.1f} MB, {reads:,.0f} reads ({failed:,.0f} failed), "
                  f"{samples[-1][4]:.3f} s a read on average so far; load average {os.getloadavg()[0]:.2f}",
                  flush=True)
    finally:
        stop = time.monotonic()
        watch.send_signal(signal.SIGTERM)
        _, err = watch.communicate(timeout=30)
        stopped = time.monotonic() - stop
    first_rss, last_rss = samples[0][1], samples[-1][1]
    print(f"  RSS after 1 min {first_rss:.1f} MB, after {samples[-1][0]} min {last_rss:.1f} MB "
          f"({last_rss / first_rss:.3f}x); {samples[-1][2]:,.0f} reads, {samples[-1][3]:,.0f} failed, "
          f"{samples[-1][4]:.3f} s a read on average; SIGTERM stopped it in {stopped:.2f} s (exit {watch.returncode})")
    if "Traceback" in err:
        print(err)
    return last_rss <= 1.1 * first_rss and samples[-1][3] == 0 and "Traceback" not in err


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.watch_soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--namesrv", metavar="ADDR", help="a running cluster (default: the large fake one)")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args(argv)
    print(f"# rmqplan watch --interval {args.interval:g} for {args.minutes:g} min; {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}")
    fake = None
    namesrv = args.namesrv
    if namesrv is None:
        fake = subprocess.Popen([*NICE, sys.executable, "-m", "harness.fake_rocketmq.large"], stdout=subprocess.PIPE,
                                text=True)
        namesrv = fake.stdout.readline().strip()
        print(f"# the large fake cluster (2,000 groups, 20,000 queues) at {namesrv}")
    else:
        print(f"# the cluster of {namesrv}")
    try:
        ok = soak(namesrv, args.minutes, args.interval)
    finally:
        if fake is not None:
            fake.terminate()
            fake.wait(timeout=30)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

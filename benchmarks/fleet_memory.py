"""The peak memory of `rmqplan simulate` on hand-written fleets just under the size it simulates whole (not a test):
`rmqplan.model.fleet_size.MAX_ENTRIES`, in the shapes that cost the most per entry, through every output.

    python -m benchmarks.fleet_memory                 # every shape, every output
    python -m benchmarks.fleet_memory --only company --keep /tmp/fleets

Each shape is written with as many groups as stay under the bound (the fleet's own `fleet_size`), then run as a
user runs it, in a fresh process: `rmqplan simulate --fleet F` with `--format text`, `--format json`,
`--details --assignments` and `--html PAGE`; the figure is the peak resident set size (`ru_maxrss` of the child).
The bound is right when every figure stays under 300 MB.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

BIN = Path(sys.executable).parent
OUTPUTS = {
    "text": ["--format", "text"],
    "json": ["--format", "json"],
    "details": ["--details", "--assignments"],
    "html": ["--html", "{page}"],
}


def _company(n: int) -> str:
    from harness.real_fleet import fleet_toml

    return fleet_toml(n, 7)


def _ip(g: int) -> str:
    return f"10.{g // 62500}.{g // 250 % 250}.{g % 250}"


def _topic_each(n: int, brokers: int, queues: int, group: str, instances, scenario: str = "") -> str:
    """`n` groups, each subscribing to a topic of its own with `queues` queues on each of `brokers` brokers;
    `group` the group's own keys, `instances(g)` its instance set's."""
    out = ["\n".join(f'[[brokers]]\nname = "broker-{b}"\n' for b in "ab"[:brokers])]
    for g in range(n):
        out.append(f'[[topics]]\nname = "T{g}"\nread_queues = {queues}\n\n[[groups]]\nname = "g{g}"\n{group}'
                   f'subscriptions = [{{ topic = "T{g}" }}]\n\n[[groups.instances]]\n{instances(g)}')
    if scenario:
        out.append(scenario)
    return "\n".join(out)


def _small_groups(n: int) -> str:
    """One process on one queue per group, a topic each: the rebalance's own objects are most of the cost."""
    return _topic_each(n, 1, 1, "", lambda g: f'hosts = ["{_ip(g)}"]\n')


def _broker_down(n: int) -> str:
    """Host-network groups of 3 (pid 1, half on an old client) over 8 queues on 2 brokers; a broker goes down."""
    out = ['[[brokers]]\nname = "broker-a"\n\n[[brokers]]\nname = "broker-b"\n']
    out += [f'[[topics]]\nname = "T{t}"\nread_queues = 8\n' for t in range(-(-n // 10))]
    for g in range(n):
        version = "4.5.1" if g % 2 else "4.9.3"
        out.append(f'[[groups]]\nname = "g{g}"\nsubscriptions = [{{ topic = "T{g // 10}" }}]\n\n'
                   f'[[groups.instances]]\nhosts = ["{_ip(g)}"]\ncount = 3\npid = 1\nclient_version = "{version}"\n')
    out.append('[[scenarios]]\nname = "broker-a down"\nremove_brokers = ["broker-a"]\n')
    return "\n".join(out)


def _broadcasting(n: int) -> str:
    """100 processes each reading all 100 queues of their topic."""
    return _topic_each(n, 1, 100, 'model = "broadcasting"\n', lambda g: f'hosts = ["{_ip(g)}"]\ncount = 100\n')


def _rolling_restart(n: int) -> str:
    """Groups of 40 pods over 64 queues, every group restarting process by process."""
    def pods(g: int) -> str:
        return "hosts = [" + ", ".join(f'"10.{g // 250}.{g % 250}.{i}"' for i in range(40)) + "]\n"

    return _topic_each(n, 2, 32, "", pods, '[[scenarios]]\nname = "restart"\nrolling_restart = true\n')


def _shared_hash(n: int) -> str:
    """CONSISTENT_HASH groups of 20 containers sharing one client id (pid 1 on one address, 4.5.1) over 64 queues:
    each of them holds every queue of the id's share."""
    return _topic_each(n, 2, 32, 'strategy = "CONSISTENT_HASH"\n',
                       lambda g: f'hosts = ["{_ip(g)}"]\ncount = 20\npid = 1\nclient_version = "4.5.1"\n')


SHAPES: dict[str, Callable[[int], str]] = {
    "company": _company, "small groups": _small_groups, "broker down": _broker_down,
    "broadcasting": _broadcasting, "rolling restart": _rolling_restart, "shared hash ids": _shared_hash,
}


def _entries(text: str) -> int:
    from rmqplan.model.fleet_size import fleet_size
    from rmqplan.sources.fleet_file import parse_fleet_text

    return fleet_size(parse_fleet_text(text, "benchmark", max_entries=sys.maxsize)).entries


def at_the_bound(make: Callable[[int], str]) -> tuple[int, str, int]:
    """(groups, text, entries) of the largest fleet of the shape under the bound."""
    from rmqplan.model.fleet_size import MAX_ENTRIES

    n = 64
    per = _entries(make(n)) / n
    n = max(int(MAX_ENTRIES / per), 1)
    while True:
        text = make(n)
        entries = _entries(text)
        if entries <= MAX_ENTRIES:
            return n, text, entries
        n = max(int(n * 0.99), 1)


def peak(args: list[str]) -> tuple[float, float, int]:
    """(seconds, peak MB, exit code) of `rmqplan ARGS`, run as this process's only child (`_measured` gives each
    run a process of its own: the children's peak is then that run's)."""
    start = time.perf_counter()
    done = subprocess.run([str(BIN / "rmqplan"), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"rmqplan {' '.join(args)}: exit {done.returncode}\n{done.stderr.decode(errors='replace')}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, done.returncode


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(SHAPES), action="append", help="a shape (repeatable); all by default")
    ap.add_argument("--keep", metavar="DIR", help="write the fleets there and keep them")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="fleet-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}")
    print("| shape | groups | entries | output | s | peak MB |")
    print("|---|---|---|---|---|---|")
    for name in args.only or list(SHAPES):
        groups, text, entries = at_the_bound(SHAPES[name])
        fleet = work / (name.replace(" ", "-") + ".toml")
        fleet.write_text(text)
        for output, extra in OUTPUTS.items():
            extra = [a.format(page=work / "page.html") for a in extra]
            seconds, mb, _ = _measured(["simulate", "--fleet", str(fleet), *extra])
            print(f"| {name} | {groups:,} | {entries:,} | {output} | {seconds:.1f} | {mb:.0f} |", flush=True)
    return 0


def _measured(args: list[str]) -> tuple[float, float, int]:
    """`peak` in a process of its own, so that each figure is one run's (RUSAGE_CHILDREN keeps the largest)."""
    probe = ("import sys, json; from benchmarks.fleet_memory import peak; "
             "print(json.dumps(peak(sys.argv[1:])))")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(done.stderr.strip() or done.stdout.strip())
    import json

    seconds, mb, code = json.loads(done.stdout)
    return seconds, mb, code


if __name__ == "__main__":
    sys.exit(main())

"""How many CPUs this process may use: its affinity (`taskset`, a cpuset), within its cgroup's CPU quota (a
container's `--cpus`, a Kubernetes CPU limit). `os.cpu_count()` counts the machine's CPUs, which in a pod limited to
2 CPUs on a 64-core node would start 63 helper processes to share two CPUs' time."""

from __future__ import annotations

import math
import os
from typing import Optional


def usable_cpus(cgroup_root: str = "/sys/fs/cgroup", own_cgroups: str = "/proc/self/cgroup") -> int:
    """The CPUs this process may run on (its affinity: `taskset`), and no more than its cgroup's CPU quota allows
    (a container's `--cpus`, a Kubernetes CPU limit), rounded up: a pod limited to 2 CPUs on a 64-core node gets
    one helper, not 63."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
    quota = cgroup_cpu_quota(cgroup_root, own_cgroups)
    return max(1, min(cpus, math.ceil(quota))) if quota else cpus


def cgroup_cpu_quota(cgroup_root: str = "/sys/fs/cgroup", own_cgroups: str = "/proc/self/cgroup") \
        -> Optional[float]:
    """CPUs' worth of time this process's cgroup may use (quota / period, cgroup v2 `cpu.max` or v1
    `cpu.cfs_quota_us`), None when unlimited or unknown. The cgroup's own directory is tried first, then the root
    (inside a container's cgroup namespace its cgroup is the root)."""
    try:
        with open(own_cgroups, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        path = path.strip("/")
        if controllers == "":  # cgroup v2
            for folder in (os.path.join(cgroup_root, path), cgroup_root):
                text = _read(os.path.join(folder, "cpu.max"))
                if text is not None:
                    quota, _, period = text.partition(" ")
                    return _ratio(quota, period)
        elif "cpu" in controllers.split(","):  # cgroup v1, mounted as cpu or cpu,cpuacct
            for mount in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
                for folder in (os.path.join(cgroup_root, mount, path), os.path.join(cgroup_root, mount)):
                    quota = _read(os.path.join(folder, "cpu.cfs_quota_us"))
                    if quota is not None:
                        return _ratio(quota, _read(os.path.join(folder, "cpu.cfs_period_us")) or "")
    return None


def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def _ratio(quota: str, period: str) -> Optional[float]:
    try:
        q, p = int(quota), int(period)
    except ValueError:  # "max": unlimited
        return None
    return q / p if q > 0 and p > 0 else None  # -1: unlimited (v1)

"""Client ids of a group's processes (ip@instanceName[@unitName], pid as the default name).

A RocketMQ client id is `clientIP + "@" + instanceName`, plus `"@" + unitName` when unitName is not blank.
instanceName is "DEFAULT" unless set (`instance_name = "DEFAULT"` written out is the same thing). At start a
CLUSTERING consumer replaces "DEFAULT": clients < 4.9.0 with the pid, clients >= 4.9.0 with
`pid + "#" + System.nanoTime()`. A BROADCASTING consumer keeps "DEFAULT". A fixed instanceName is never replaced.

Processes are expanded from instance sets in declaration order: for each set, for each host, `count` processes.
Each gets the label `<host>#<n>`, the n-th process of this group on that host (1-based, counted over all of the
group's instance sets). Scenarios (`rmqplan.model.scenarios`) continue each host's numbering for added processes.

The C++ client 2.x (rocketmq-client-cpp, the core of the Python 2.x client; `client = "cpp"`) names itself
`clientIP + "@" + pid + "#" + instanceName` and never replaces "DEFAULT": its processes differ by pid, so only
processes with one IP and one pid (containers on host networking, each pid 1) share an id, whatever the
instanceName.

Synthetic values, used only when the fleet does not give them (deterministic, so both engines agree):
- pid absent: pid = 10000 + n, where n is the process's number on its host (so distinct per host);
- nanoTime (clients >= 4.9.0): 1000000000000 + n (a fixed width, so ids on one host sort by n).
A fleet that gives `pid = 1` gives it to every process of that set (containers: every JVM is pid 1).
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from rmqplan.model.fleet import BROADCASTING, Group, InstanceSpec, Process, parse_client_version

DEFAULT_INSTANCE_NAME = "DEFAULT"
JAVA_CLIENT, CPP_CLIENT = "java", "cpp"
CLIENTS = (JAVA_CLIENT, CPP_CLIENT)
NANOTIME_SINCE = (4, 9, 0)  # clients from 4.9.0 on append System.nanoTime() to the pid
SYNTHETIC_PID_BASE = 10000
SYNTHETIC_NANOTIME_BASE = 1_000_000_000_000


def build_client_id(ip: str, instance_name: str, unit_name: Optional[str] = None) -> str:
    """ClientConfig.buildMQClientId: ip@instanceName[@unitName] (a blank unitName is left out)."""
    cid = f"{ip}@{instance_name}"
    if unit_name is not None and unit_name.strip():
        cid += f"@{unit_name}"
    return cid


def instance_name_for(spec: InstanceSpec, model: str, n: int) -> tuple[str, str]:
    """The instanceName the n-th process on its host runs with after start, and why (for messages)."""
    if spec.instance_name is not None and spec.instance_name != DEFAULT_INSTANCE_NAME:
        return spec.instance_name, f"fixed instanceName '{spec.instance_name}'"
    if model == BROADCASTING:
        return DEFAULT_INSTANCE_NAME, f"broadcasting keeps '{DEFAULT_INSTANCE_NAME}'"
    if spec.pid is not None:
        pid, pid_text = spec.pid, f"pid {spec.pid}"
    else:
        pid, pid_text = SYNTHETIC_PID_BASE + n, f"pid {SYNTHETIC_PID_BASE + n} (synthetic)"
    version = parse_client_version(spec.client_version) or (0, 0, 0)
    if version < NANOTIME_SINCE:
        return str(pid), f"{pid_text} on client {spec.client_version} (< 4.9.0 uses the pid alone)"
    nano = SYNTHETIC_NANOTIME_BASE + n
    return f"{pid}#{nano}", f"{pid_text} on client {spec.client_version} (>= 4.9.0 appends System.nanoTime())"


def client_id_for(spec: InstanceSpec, model: str, host: str, n: int) -> tuple[str, str]:
    """The client id the n-th process on `host` of the set `spec` reports after start, and why (for messages)."""
    if spec.client == CPP_CLIENT:
        name = spec.instance_name or DEFAULT_INSTANCE_NAME
        pid = spec.pid if spec.pid is not None else SYNTHETIC_PID_BASE + n
        pid_text = f"pid {pid}" if spec.pid is not None else f"pid {pid} (synthetic)"
        why = f"{pid_text} and instanceName '{name}': the C++ client reports ip@pid#instanceName"
        return f"{host}@{pid}#{name}", why
    name, source = instance_name_for(spec, model, n)
    if spec.unit_name is not None and spec.unit_name.strip():
        source += f", unitName '{spec.unit_name}'"
    return build_client_id(host, name, spec.unit_name), source


def expand_instances(group: Group, specs: Iterable[InstanceSpec],
                     numbers: Optional[dict[str, int]] = None) -> list[Process]:
    """Processes of `specs` in declaration order. `numbers` (host -> last n used) is updated in place."""
    numbers = {} if numbers is None else numbers
    out = []
    for spec in specs:
        for host in spec.hosts:
            for _ in range(spec.count):
                n = numbers.get(host, 0) + 1
                numbers[host] = n
                client_id, source = client_id_for(spec, group.model, host, n)
                out.append(Process(
                    group=group.name,
                    instance=f"{host}#{n}",
                    host=host,
                    client_id=client_id,
                    id_source=source,
                    strategy=spec.strategy if spec.strategy is not None else group.strategy,
                    subscriptions=spec.subscriptions if spec.subscriptions is not None else group.subscriptions,
                    room=spec.room,
                    spec_path=spec.path,
                ))
    return out


def group_processes(group: Group) -> list[Process]:
    """The baseline processes of a group."""
    return expand_instances(group, group.instances)


def shared_client_ids(processes: Sequence[Process]) -> dict[str, list[Process]]:
    """client id -> the processes reporting it, for ids reported by two or more processes."""
    by_id: dict[str, list[Process]] = {}
    for p in processes:
        by_id.setdefault(p.client_id, []).append(p)
    return {cid: ps for cid, ps in by_id.items() if len(ps) > 1}

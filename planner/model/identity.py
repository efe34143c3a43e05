"""Client ids of a group's processes (ip@instanceName[@unitName], pid as the default name).

A RocketMQ client id is `clientIP + "@" + instanceName`, plus `"@" + unitName` when unitName is not blank
(`UtilAll.isBlank`: empty, or only characters Java's `Character.isWhitespace` accepts; a no-break space U+00A0,
U+2007, U+202F or a NEL U+0085 is not blank and stays in the id), plus `"@STREAM"` for a lite pull or pull consumer
from client 4.9.4 on (their constructors set `enableStreamRequestType`). instanceName is "DEFAULT" unless set
(`instance_name = "DEFAULT"` written out is the same thing). At start a CLUSTERING consumer (push, lite pull or
pull) replaces "DEFAULT": clients < 4.9.0 with the pid, clients >= 4.9.0 with `pid + "#" + System.nanoTime()`. A
BROADCASTING consumer keeps "DEFAULT". A fixed instanceName is never replaced. An instance_name holding `${HOSTNAME}`
or `${PID}` is made at run time by each process from its host's name (written as the host: a pod's own on pod
networking, the node's on host networking, so the processes of one node share it) or its pid. A process that is
running now can be given what its client made of the default (`started_as`, as connected: "pid" or
"pid#nanoTime"); it reports that until it restarts, and a restart gives it a pid after the largest of its group's
processes (pid 1, a container's entrypoint, stays 1) and a nanoTime after theirs (`fresh_start`), as a host's next
process gets.

Processes are expanded from instance sets in declaration order: for each set, for each host, `count` processes.
Each gets the label `<host>#<n>`, the n-th process of this group on that host (1-based, counted over all of the
group's instance sets). Scenarios (`rmqplan.model.scenarios`) continue each host's numbering for added processes.

The C++ client 2.x (rocketmq-client-cpp, the core of the Python 2.x client; `client = "cpp"`) names itself
`clientIP + "@" + pid + "#" + instanceName` and never replaces "DEFAULT": its processes differ by pid, so only
processes with one IP and one pid (containers on host networking, each pid 1) share an id, whatever the
instanceName.

The Go client (rocketmq-client-go v2, `client = "go"`) names itself `clientIP + "@" + pid` while its instance name
is "DEFAULT", in every release and every message model: the push consumer's start replaces "DEFAULT" with
`pid#nanoTime` in its own copy of the options only, after the client that reports the id was made from another
copy. `WithInstance(name)` gives `clientIP + "@" + name`; `WithUnitName(unit)` (from v2.1.2 on) appends
`"@" + unit`, trimmed of white space as Go's `strings.TrimSpace` does. So Go processes in containers with pid 1 on
one address (host networking, the docker0 address) share a client id, whichever release they run.

Synthetic values, used only when the fleet does not give them (deterministic, so both engines agree):
- pid absent: pid = 10000 + n, where n is the process's number on its host (so distinct per host);
- nanoTime (clients >= 4.9.0): 1000000000000 + n (a fixed width, so ids on one host sort by n).
A fleet that gives `pid = 1` gives it to every process of that set (containers: every JVM is pid 1).
"""

from __future__ import annotations

import unicodedata
from typing import Iterable, Optional, Sequence

from rmqplan.model.fleet import BROADCASTING, Group, InstanceSpec, Process, parse_client_version

DEFAULT_INSTANCE_NAME = "DEFAULT"
JAVA_CLIENT, CPP_CLIENT, GO_CLIENT = "java", "cpp", "go"
CLIENTS = (JAVA_CLIENT, CPP_CLIENT, GO_CLIENT)
GO_UNIT_NAME_SINCE = (2, 1, 2)  # rocketmq-client-go's WithUnitName
# Go's unicode.IsSpace, which strings.TrimSpace trims: the Latin-1 spaces and the Unicode White_Space property.
_GO_SPACES = frozenset("\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                       "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
NANOTIME_SINCE = (4, 9, 0)  # clients from 4.9.0 on append System.nanoTime() to the pid
STREAM_SINCE = (4, 9, 4)  # lite pull and pull consumers append "@STREAM" from 4.9.4 on (enableStreamRequestType)
STREAM_SUFFIX = "@STREAM"
# Who the process is to RocketMQ (fleet.toml `consumer`): a push consumer subscribes to its group's retry topic at
# start; lite pull and pull consumers do not, and name themselves with "@STREAM" (STREAM_SINCE).
PUSH, LITE_PULL, PULL = "push", "lite_pull", "pull"
CONSUMERS = (PUSH, LITE_PULL, PULL)
# Character.isWhitespace: the Unicode space separators except the no-break ones, and these control characters.
_JAVA_WHITESPACE_CONTROLS = frozenset("\t\n\u000b\f\r\u001c\u001d\u001e\u001f")
_NO_BREAK_SPACES = frozenset("\u00a0\u2007\u202f")
SYNTHETIC_PID_BASE = 10000
# In fleet.toml's instance_name: what a process makes its name from at run time (`System.getenv("HOSTNAME")`,
# Spring's `${HOSTNAME}`; the pid): each process's own host name, written as its host, and pid.
HOSTNAME_PLACEHOLDER, PID_PLACEHOLDER = "${HOSTNAME}", "${PID}"
SYNTHETIC_NANOTIME_BASE = 1_000_000_000_000


def java_is_whitespace(ch: str) -> bool:
    """Java's `Character.isWhitespace` (Java 9+, whose Unicode tables Python's match)."""
    if ch in _JAVA_WHITESPACE_CONTROLS:
        return True
    return unicodedata.category(ch) in ("Zs", "Zl", "Zp") and ch not in _NO_BREAK_SPACES


def java_is_blank(text: Optional[str]) -> bool:
    """`UtilAll.isBlank` (and commons-lang3 `StringUtils.isBlank`): None, empty, or only Java whitespace."""
    return text is None or all(java_is_whitespace(ch) for ch in text)


def streams(spec: InstanceSpec) -> bool:
    """Whether the set's processes add "@STREAM" to their client id: lite pull and pull consumers from 4.9.4."""
    version = parse_client_version(spec.client_version) or (0, 0, 0)
    return spec.client == JAVA_CLIENT and spec.consumer != PUSH and version >= STREAM_SINCE


def build_client_id(ip: str, instance_name: str, unit_name: Optional[str] = None, stream: bool = False) -> str:
    """ClientConfig.buildMQClientId: ip@instanceName[@unitName][@STREAM] (a blank unitName is left out)."""
    cid = f"{ip}@{instance_name}"
    if not java_is_blank(unit_name):
        cid += f"@{unit_name}"
    if stream:
        cid += STREAM_SUFFIX
    return cid


def started_parts(spec: InstanceSpec, n: int) -> tuple[int, int]:
    """The pid and nanoTime the n-th process of the set started with: as connected (`started_as`), declared, or
    synthetic."""
    if spec.started_as is not None:
        pid, _, nano = spec.started_as.partition("#")
        return int(pid), int(nano) if nano else SYNTHETIC_NANOTIME_BASE + n
    return (spec.pid if spec.pid is not None else SYNTHETIC_PID_BASE + n), SYNTHETIC_NANOTIME_BASE + n


def _pid(spec: InstanceSpec, n: int, fresh: Optional[tuple[int, int]] = None) -> int:
    return fresh[0] if fresh is not None else spec.pid if spec.pid is not None else SYNTHETIC_PID_BASE + n


def made_name(spec: InstanceSpec, host: str, n: int, fresh: Optional[tuple[int, int]] = None) -> Optional[str]:
    """A name made at run time from the host's name or the pid (`${HOSTNAME}`, `${PID}` in `instance_name`), as the
    n-th process on `host` makes it; None when the set's name is fixed text."""
    name = spec.instance_name or ""
    if HOSTNAME_PLACEHOLDER not in name and PID_PLACEHOLDER not in name:
        return None
    return name.replace(HOSTNAME_PLACEHOLDER, host).replace(PID_PLACEHOLDER, str(_pid(spec, n, fresh)))


def _made_why(spec: InstanceSpec, made: str) -> str:
    parts = [w for p, w in ((PID_PLACEHOLDER, "the pid"),
                            (HOSTNAME_PLACEHOLDER, "the host's name, which on host networking is the node's"))
             if p in (spec.instance_name or "")]
    return f"instanceName '{spec.instance_name}' made at run time from {' and '.join(parts)}: '{made}'"


def instance_name_for(spec: InstanceSpec, model: str, n: int,
                      fresh: Optional[tuple[int, int]] = None, host: str = "") -> tuple[str, str]:
    """The instanceName the n-th process on `host` runs with after start, and why (for messages). `fresh`: the
    pid and nanoTime of a restart of a process that was given `started_as`."""
    made = made_name(spec, host, n, fresh)
    if made is not None:
        return made, _made_why(spec, made)
    if spec.instance_name is not None and spec.instance_name != DEFAULT_INSTANCE_NAME:
        return spec.instance_name, f"fixed instanceName '{spec.instance_name}'"
    if model == BROADCASTING:
        return DEFAULT_INSTANCE_NAME, f"broadcasting keeps '{DEFAULT_INSTANCE_NAME}'"
    if spec.started_as is not None and fresh is None:
        return spec.started_as, f"started as '{spec.started_as}' (as connected) on client {spec.client_version}"
    if fresh is not None:
        (pid, nano), pid_text = fresh, f"pid {fresh[0]} (a new one: after the group's largest)"
    elif spec.pid is not None:
        pid, pid_text, nano = spec.pid, f"pid {spec.pid}", SYNTHETIC_NANOTIME_BASE + n
    else:
        pid, pid_text, nano = SYNTHETIC_PID_BASE + n, f"pid {SYNTHETIC_PID_BASE + n} (synthetic)", \
            SYNTHETIC_NANOTIME_BASE + n
    version = parse_client_version(spec.client_version) or (0, 0, 0)
    if version < NANOTIME_SINCE:
        return str(pid), f"{pid_text} on client {spec.client_version} (< 4.9.0 uses the pid alone)"
    return f"{pid}#{nano}", f"{pid_text} on client {spec.client_version} (>= 4.9.0 appends System.nanoTime())"


def fresh_start(starts: Iterable[tuple[int, int]], k: int, pid: int) -> tuple[int, int]:
    """The pid and nanoTime of the k-th restart (from 1) in a group whose processes started with `starts`, of a
    process that had `pid`: pid 1 (a container's entrypoint) stays 1."""
    starts = list(starts)
    return (1 if pid == 1 else max(p for p, _ in starts) + k), max(n for _, n in starts) + k


def go_trim_space(text: str) -> str:
    """Go's `strings.TrimSpace`."""
    start, end = 0, len(text)
    while start < end and text[start] in _GO_SPACES:
        start += 1
    while end > start and text[end - 1] in _GO_SPACES:
        end -= 1
    return text[start:end]


def go_client_id_for(spec: InstanceSpec, host: str, n: int,
                     fresh: Optional[tuple[int, int]] = None) -> tuple[str, str]:
    """rocketmq-client-go's `rmqClient.ClientID()`: ip@pid with the default name (any model), ip@name with
    `WithInstance`, then @unit when `WithUnitName` gave one."""
    made = made_name(spec, host, n, fresh)
    release = f"rocketmq-client-go {spec.client_version}"
    if made is not None:
        name, why = made, _made_why(spec, made)
    elif spec.instance_name is not None and spec.instance_name != DEFAULT_INSTANCE_NAME:
        name, why = spec.instance_name, f"fixed instance name '{spec.instance_name}' (WithInstance)"
    else:
        if fresh is not None:
            pid, pid_text = fresh[0], f"pid {fresh[0]} (a new one: after the group's largest)"
        elif spec.started_as is not None:
            pid, pid_text = int(spec.started_as), f"pid {spec.started_as} (as connected)"
        elif spec.pid is not None:
            pid, pid_text = spec.pid, f"pid {spec.pid}"
        else:
            pid, pid_text = SYNTHETIC_PID_BASE + n, f"pid {SYNTHETIC_PID_BASE + n} (synthetic)"
        name, why = str(pid), f"{pid_text} on {release}, which names a process ip@pid without WithInstance"
    unit = go_trim_space(spec.unit_name or "")
    cid = f"{host}@{name}"
    if unit:
        cid += f"@{unit}"
        why += f", unit name '{unit}'"
    return cid, why


def client_id_for(spec: InstanceSpec, model: str, host: str, n: int,
                  fresh: Optional[tuple[int, int]] = None) -> tuple[str, str]:
    """The client id the n-th process on `host` of the set `spec` reports after start, and why (for messages)."""
    if spec.client == GO_CLIENT:
        return go_client_id_for(spec, host, n, fresh)
    if spec.client == CPP_CLIENT:
        name = made_name(spec, host, n) or spec.instance_name or DEFAULT_INSTANCE_NAME
        pid = spec.pid if spec.pid is not None else SYNTHETIC_PID_BASE + n
        pid_text = f"pid {pid}" if spec.pid is not None else f"pid {pid} (synthetic)"
        why = f"{pid_text} and instanceName '{name}': the C++ client reports ip@pid#instanceName"
        return f"{host}@{pid}#{name}", why
    name, source = instance_name_for(spec, model, n, fresh, host)
    if not java_is_blank(spec.unit_name):
        source += f", unitName '{spec.unit_name}'"
    stream = streams(spec)
    if stream:
        source += (f", a {spec.consumer.replace('_', ' ')} consumer on client {spec.client_version} "
                   "(>= 4.9.4 adds @STREAM)")
    return build_client_id(host, name, spec.unit_name, stream), source


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
                    client_version=spec.client_version,
                    consumer=spec.consumer,
                    client=spec.client,
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

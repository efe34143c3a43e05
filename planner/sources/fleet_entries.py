"""fleet.toml entries (the writer's `Planned*` values, each with its provenance) from what the sources read.

- `cluster_entries(snapshot)`: brokers and topics from saved `mqadmin` outputs. A route's `perm` is per topic
  and broker (the broker's own permission folded in); fleet.toml has a topic `perm` (all its brokers) and a
  broker `perm` (all its topics), so a topic whose brokers disagree is written with the queues a broker does
  not serve counted as 0: no readable queue where the route is not readable (what is written there is never
  read), no writable queue where it is not writable.
- `live_instances(consumer)`: the processes connected now, one instance set per client id, each written with
  what the client made its id from, so that the simulation is of what runs and a scenario's restart gives a
  process the new id a new JVM gets: a fixed instance name (and unitName) as connected; a default name the client
  replaced (`pid`, or `pid#nanoTime` from 4.9.0 on) with the connection's `client_version` and either `pid` when
  the pid stays over a restart (pid 1: a container's entrypoint; a pid several connections share) or
  `started_as` (the name as connected, the process's until it restarts, when a new pid comes). A lite pull or
  pull consumer (`CONSUME_ACTIVELY`, `@STREAM`) is written as `consumer = "lite_pull"`. A connection whose
  language is GO is rocketmq-client-go (`client = "go"`: its client id is `ip@pid` or `ip@name`, `@unit` after;
  the version it reports is a fixed number, not its release, so the release is Go's default); its pull consumer
  rebalances as the push consumer does, retry topic included. The sets of each host are written in the Java
  order of their client ids (rmqplan numbers a host's processes in that order).
- `backlog_entry(progress, topics)`: a group's `backlog` (messages behind per queue) from its consume progress.
- `deployed_instances(service, layout, ...)`: the processes a deployed service runs, laid out by
  `rmqplan.sources.services.process_layout`, with the instance name and client version the caller read from
  the code and the build files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from rmqplan.model.fleet import DEFAULT_RETRY_QUEUES, SAME_HOSTS, parse_client_version
from rmqplan.model.identity import GO_CLIENT, NANOTIME_SINCE, STREAM_SUFFIX
from rmqplan.model.javaorder import java_string_key
from rmqplan.model import words
from rmqplan.sources.fleet_writer import PlannedBroker, PlannedInstances, PlannedTopic, Sourced
from rmqplan.sources.deploy import DeployedService
from rmqplan.sources.cluster import (RETRY_PREFIX, ClusterSnapshot, Connection, ConsumeProgress, ConsumerConnection,
                                     TopicRoute)
from rmqplan.sources.services import ProcessLayout

PERM_NAMES = {(True, True): "rw", (True, False): "r", (False, True): "w", (False, False): ""}


def _lines(route: TopicRoute, brokers: Iterable[str]) -> str:
    """`path:21,28`: the route's lines for these brokers (a live answer has none: its path says it all)."""
    lines = [str(q.origin.line) for q in route.queues if q.broker in brokers and q.origin.line]
    return f"{route.origin.path}:{','.join(lines)}" if lines else route.origin.path


def _where(origins: list) -> str:
    """`path:3,4` for saved lines, the path alone for a live answer."""
    lines = [str(o.line) for o in origins if o.line]
    return f"{origins[0].path}:{','.join(lines)}" if lines else origins[0].path


def _topic(route: TopicRoute, all_brokers: list[str]) -> PlannedTopic:
    queues = {q.broker: q for q in route.queues}
    names = sorted(queues)
    perms = {(q.readable, q.writable) for q in queues.values()}
    uniform_perm = len(perms) == 1
    if uniform_perm:
        read = {b: queues[b].read_queues for b in names}
        write = {b: queues[b].write_queues for b in names}
        note = ""
    else:  # brokers disagree: count what a broker does not serve as 0
        read = {b: queues[b].read_queues if queues[b].readable else 0 for b in names}
        write = {b: queues[b].write_queues if queues[b].writable else 0 for b in names}
        closed = [f"{b} perm {queues[b].perm} ({PERM_NAMES[(queues[b].readable, queues[b].writable)] or 'none'})"
                  for b in names if not (queues[b].readable and queues[b].writable)]
        note = "; counted 0 where the route does not serve them: " + ", ".join(closed)
    everywhere = names == sorted(all_brokers)

    def compact(counts: dict[str, int]):
        return next(iter(counts.values())) if everywhere and len(set(counts.values())) == 1 else counts

    source = _lines(route, names)
    topic = PlannedTopic(Sourced(route.topic, route.topic_source or f"{route.origin.path} (the file's name)"),
                         Sourced(compact(read), f"{source} readQueueNums{note}"))
    if write != read:
        topic.write_queues = Sourced(compact(write), f"{source} writeQueueNums{note}")
    if not everywhere and not isinstance(topic.read_queues.value, dict):
        topic.brokers = Sourced(names, source)
    if uniform_perm and perms != {(True, True)}:
        (perm,) = perms
        topic.perm = Sourced(PERM_NAMES[perm], f"{source} perm {next(iter(queues.values())).perm}")
    return topic


def cluster_entries(snapshot: ClusterSnapshot, topics: Optional[Iterable[str]] = None,
                    ) -> tuple[list[PlannedBroker], list[PlannedTopic]]:
    """The brokers and the topics (all routes, or the ones named) of a saved cluster. A topic without a route
    is not here: `snapshot.missing_topics` says which the name server does not know."""
    wanted = set(topics) if topics is not None else None
    routes = [r for name, r in sorted(snapshot.routes.items()) if wanted is None or name in wanted]
    where: dict[str, str] = {}
    perms: dict[str, int] = {}
    for broker in snapshot.brokers:
        if broker.broker_id == 0 or broker.name not in where:
            where[broker.name] = str(broker.origin)
            if broker.perm is not None:
                perms[broker.name] = broker.perm
    for route in routes:
        for queues in route.queues:
            where.setdefault(queues.broker, str(queues.origin))
    broker_names = sorted(where)
    brokers = []
    for name in broker_names:
        planned = PlannedBroker(Sourced(name, where[name]))
        perm = perms.get(name)
        if perm is not None and (perm & 6) != 6:  # a broker that is not read-write says so (routes fold it in too)
            planned.perm = Sourced(PERM_NAMES[(bool(perm & 4), bool(perm & 2))], f"{where[name]} brokerPermission={perm}")
        brokers.append(planned)
    return brokers, [_topic(route, broker_names) for route in routes]


@dataclass(frozen=True)
class _Derived:
    """What a connected client id was made from, as far as its text and the connection's version say."""

    name: Optional[str]  # a fixed instance name; None: the default the client replaced
    unit: Optional[str]
    pid: Optional[int]  # when the name is the replaced default
    stream: bool
    started: str = ""  # the replaced default as connected: "pid" or "pid#nanoTime"


GO_LANGUAGE = "GO"  # what the broker reports for a rocketmq-client-go connection (its LanguageCode 9)


def _derived(connection: Connection, actively: bool) -> _Derived:
    if connection.language == GO_LANGUAGE:  # ip@pid with the default name, ip@name with WithInstance; @unit after
        name, _, unit = connection.instance_name.partition("@")
        if name.isdigit() and not name.startswith("0"):
            return _Derived(None, unit or None, int(name), False, name)
        return _Derived(name, unit or None, None, False)
    rest = connection.instance_name
    stream = actively and rest.endswith(STREAM_SUFFIX)
    if stream:
        rest = rest[: -len(STREAM_SUFFIX)]
    name, _, unit = rest.partition("@")
    version = parse_client_version(connection.version or "")
    if connection.language == "JAVA" and version is not None:
        pid, nano = name.partition("#")[::2]
        if pid.isdigit() and not pid.startswith("0") and (
                (version >= NANOTIME_SINCE and nano.isdigit()) or (version < NANOTIME_SINCE and name == pid)):
            return _Derived(None, unit or None, int(pid), stream, name)
    return _Derived(name, unit or None, None, stream)


def live_instances(consumer: ConsumerConnection) -> list[PlannedInstances]:
    """One instance set per connected client id (duplicates are `count`), the sets of a host in the Java order of
    their ids, hosts in the order mqadmin first lists them."""
    sets: dict[str, list] = {}
    for connection in consumer.connections:
        sets.setdefault(connection.client_id, []).append(connection)
    hosts = list(dict.fromkeys(c.ip for c in consumer.connections))
    actively = consumer.consume_type == "CONSUME_ACTIVELY"
    out = []
    for client_id in sorted(sets, key=lambda cid: (hosts.index(sets[cid][0].ip), java_string_key(cid))):
        connections = sets[client_id]
        first = connections[0]
        where = _where([c.origin for c in connections])
        derived = _derived(first, actively)
        shown = f"{first.language} {first.version_name or 'version unknown'}"
        instances = PlannedInstances(
            hosts=Sourced([first.ip], f"{where} (the client id's IP)"),
            count=Sourced(len(connections), f"{where}: {words.count(len(connections), 'connection')} with this "
                                            "client id"),
            note=f"connected now: {client_id} ({shown})")
        if first.version is not None and first.language == "JAVA":
            instances.client_version = Sourced(first.version, f"{where}: {first.version_name} as connected")
        go = first.language == GO_LANGUAGE
        if go:
            instances.client = Sourced(GO_CLIENT, f"{where}: language GO as connected (rocketmq-client-go: its own "
                                                  "client ids and strategy code)")
        if derived.name is not None:
            instances.instance_name = Sourced(derived.name, f"{where}: as connected")
        else:
            if derived.pid == 1 or len(connections) > 1:
                why = ("pid 1: a container's entrypoint, again pid 1 after a restart" if derived.pid == 1 else
                       f"{len(connections)} processes report pid {derived.pid}: each in a pid namespace of its own")
                instances.pid = Sourced(derived.pid, f"{where}: {why}")
                if "#" in derived.started:  # pid-1 containers on 4.9.0+: the nanoTime tells them apart
                    instances.started_as, instances.pid = Sourced(derived.started, f"{where}: {why}"), None
            else:
                instances.started_as = Sourced(derived.started, f"{where}: as connected; a restart gives a new pid")
        if derived.unit is not None:
            instances.unit_name = Sourced(derived.unit, f"{where}: as connected")
        if actively and not go:
            instances.consumer = Sourced("lite_pull", f"{consumer.origin} ConsumeType CONSUME_ACTIVELY (a lite "
                                                      "pull or pull consumer: no retry topic"
                                                      + (", @STREAM in its id)" if derived.stream else ")"))
        out.append(instances)
    return out


def deployed_instances(service: DeployedService, layout: ProcessLayout, *,
                       instance_name: Optional[Sourced[str]] = None,
                       unit_name: Optional[Sourced[str]] = None,
                       client_version: Optional[Sourced[str]] = None,
                       note: str = "") -> list[PlannedInstances]:
    """The instance sets of a service laid out on hosts: hosts with the same number of processes share a set."""
    by_count: dict[int, list[str]] = {}
    for host_set in layout.hosts:
        by_count.setdefault(host_set.count, []).append(host_set.host)
    network = service.host_network_origin or service.origin
    header = note or f"{service.kind} {service.name} ({service.origin}): {layout.why}"
    if service.autoscale is not None and not note:
        scale = service.autoscale
        header += (f"; a {scale.kind} ({scale.origin}) moves it between {scale.min_replicas} and "
                   f"{scale.max_replicas} replicas")
    replicas_said = f"{service.replicas_origin} {service.replicas_note or 'replicas'}"
    bridge = ""
    release = parse_client_version(client_version.value) if client_version is not None else None
    if service.host_network and release is not None and release < (4, 9, 0):
        # RemotingUtil.getLocalAddress skips bridge interfaces from 4.9.0 on only; whether a node runs Docker is
        # not in the repository: said, not modelled
        bridge = ("; a client before 4.9.0 may report Docker's bridge address 172.17.0.1 instead on a node that runs "
                  "Docker, and then replicas on different nodes share it too")
    # a scenario's replicas puts new processes where host networking does: on these nodes, unless one per node
    one_per_node = service.one_per_node or service.replicas_note == "global: one per node"
    scale_out = (Sourced.at(SAME_HOSTS, network, "host networking: a new replica reports the IP of a node it shares")
                 if service.host_network and not one_per_node else None)
    name = Sourced.at(service.name, service.origin, f"{service.kind} {service.name}")
    out = []
    for count, hosts in by_count.items():
        hosts_source = (Sourced.unknown(hosts, f"{layout.why}{bridge} (placeholder names)") if layout.worst_case
                        else Sourced(hosts, f"{network} {layout.why}{bridge} (placeholder names)"))
        out.append(PlannedInstances(
            hosts=hosts_source,
            count=Sourced(count, f"{replicas_said}; {layout.why}") if count > 1 else None,
            name=name, scale_out=scale_out,
            instance_name=instance_name, unit_name=unit_name,
            # a process is pid 1 when it is the container's entrypoint (a shell in front of it changes that)
            pid=Sourced.unknown(1, "a container: the process is pid 1 when it is the entrypoint"),
            client_version=client_version, note=header))
        header = ""
    return out


def backlog_entry(progress: Optional[ConsumeProgress], topics: Iterable[str]) -> Optional[Sourced[dict]]:
    """`backlog = {topic = {broker = [behind by queue id]}}` for `topics` and the group's retry topic, from its
    consume progress; None without progress. Queue ids the brokers did not report are 0 (none missing in
    practice: a broker reports every read queue of the topic)."""
    if progress is None:
        return None
    wanted = list(topics) + [RETRY_PREFIX + progress.group]
    table: dict[str, dict[str, list[int]]] = {}
    for topic in wanted:
        per_broker: dict[str, dict[int, int]] = {}
        for q, offsets in progress.queues.items():
            if q.topic == topic:
                per_broker.setdefault(q.broker, {})[q.queue_id] = offsets.backlog
        # the fleet models a retry topic with the client's default retry queues on each broker
        limit = DEFAULT_RETRY_QUEUES if topic.startswith(RETRY_PREFIX) else None
        if per_broker:
            table[topic] = {b: [ids.get(i, 0) for i in range(max(ids) + 1)][:limit]
                            for b, ids in sorted(per_broker.items())}
    total = sum(n for brokers in table.values() for counts in brokers.values() for n in counts)
    when = ""
    if progress.read_at is not None:
        import time

        when = time.strftime(" at %Y-%m-%d %H:%M:%S %Z", time.localtime(progress.read_at))
    return Sourced(table, f"{progress.origin}{when}: {total:,} messages behind (broker offset - consumer offset)")

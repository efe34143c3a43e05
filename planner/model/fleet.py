"""The fleet as the planner sees it: plain, validated, immutable facts.

`rmqplan.sources.fleet_file` parses and validates `fleet.toml` (schema in the README) into a `Fleet`; `rmqplan.model.identity` expands instance
sets into `Process`es with their client ids; `rmqplan.model.routes` gives each topic's readable and writable queues.
Both engines (`rmqplan.engines.local`, `rmqplan.engines.spark`) read these and must give the same answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, Optional


class Queue(NamedTuple):
    """A message queue. Tuples compare field by field; use `rmqplan.model.javaorder.queue_key` for RocketMQ's order."""

    topic: str
    broker: str
    queue_id: int


CLUSTERING = "clustering"
BROADCASTING = "broadcasting"
DEFAULT_CLIENT_VERSION = "4.9.8"
DEFAULT_GO_CLIENT_VERSION = "2.1.2"  # rocketmq-client-go's latest release (`client = "go"`)
# A [generate] fleet larger than this is summarised on Spark: totals for all, the DETAIL_LIMIT worst problem groups
FULL_RESULTS_GROUPS = 1_000
DETAIL_LIMIT = 200
DEFAULT_VIRTUAL_NODES = 10
DEFAULT_RETRY_QUEUES = 1
VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)([.-][0-9A-Za-z.-]*)?$")


def parse_client_version(text: str) -> Optional[tuple[int, int, int]]:
    """"4.9.3" (or "4.9.3-SNAPSHOT") -> (4, 9, 3); None when it is not a version."""
    m = VERSION_RE.match(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


@dataclass(frozen=True)
class StrategySpec:
    """A strategy with its parameters, as one process runs it."""

    name: str  # a registered strategy (rmqplan.allocation.strategies)
    virtual_nodes: int = DEFAULT_VIRTUAL_NODES  # CONSISTENT_HASH
    consumer_idcs: tuple[str, ...] = ()  # MACHINE_ROOM
    nearby: Optional["StrategySpec"] = None  # MACHINE_ROOM_NEARBY: the delegate used inside a room
    config_queues: tuple[Queue, ...] = ()  # CONFIG
    # The process runs the strategy classes of a client release before this one, whose allocation differs from
    # today's (`Strategy.changed_in`); None: today's. Set per process from its client version, never in fleet.toml.
    classes_before: Optional[tuple[int, int, int]] = None
    # Whose code computes it: "java" (the Java client's classes, the reference) or "go" (rocketmq-client-go's own
    # functions, `rmqplan.allocation.strategies.go`). Set per process from its client, never in fleet.toml.
    client: str = "java"


@dataclass(frozen=True)
class Broker:
    name: str
    room: Optional[str] = None
    readable: bool = True
    writable: bool = True


@dataclass(frozen=True)
class Topic:
    name: str
    read_queues: dict  # broker name -> count (only the topic's brokers)
    write_queues: dict  # broker name -> count
    brokers: tuple[str, ...]
    readable: bool = True
    writable: bool = True


@dataclass(frozen=True)
class SubscriptionSpec:
    topic: str
    expression: str = "*"


@dataclass(frozen=True)
class InstanceSpec:
    """A set of alike processes (`[[groups.instances]]` or a scenario's `add_instances` item)."""

    path: str  # key path in fleet.toml, e.g. "groups[0].instances[1]", for messages
    hosts: tuple[str, ...]
    count: int = 1
    instance_name: Optional[str] = None
    unit_name: Optional[str] = None
    pid: Optional[int] = None
    client_version: str = DEFAULT_CLIENT_VERSION
    room: Optional[str] = None
    strategy: Optional[StrategySpec] = None  # per-instance override (a rollout caught half-way)
    client: str = "java"  # the library that names the process: "java", "cpp" or "go" (rmqplan.model.identity)
    subscriptions: Optional[tuple[SubscriptionSpec, ...]] = None  # per-instance override
    consumer: str = "push"  # "push", "lite_pull" or "pull" (rmqplan.model.identity)
    # What the client made of the default instance name when this process started ("pid", or "pid#nanoTime" from
    # 4.9.0 on), as connected: the process reports it until it restarts (rmqplan.model.identity).
    started_as: Optional[str] = None
    name: Optional[str] = None  # the workload that runs the set (a Deployment...): what a scenario's `replicas` names
    # Where a scenario's `replicas` puts processes beyond the written ones (rmqplan.model.scaling): SAME_HOSTS,
    # NEW_HOSTS, or None: decided by the set's shape
    scale_out: Optional[str] = None


@dataclass(frozen=True)
class Group:
    path: str  # "groups[3]"
    name: str
    model: str  # CLUSTERING | BROADCASTING
    strategy: StrategySpec
    subscriptions: tuple[SubscriptionSpec, ...]
    instances: tuple[InstanceSpec, ...]
    # Messages behind on each queue (broker offset - the group's offset), as the brokers reported them when the
    # fleet was read from a cluster: ((Queue, messages), ...) in RocketMQ order; () when not known. A queue not
    # listed is not known (weighed as 0).
    backlog: tuple[tuple[Queue, int], ...] = ()

    def backlog_of(self) -> dict[Queue, int]:
        return dict(self.backlog)


@dataclass(frozen=True)
class QueueResize:
    """A scenario's `set_queues` item: new read/write queue counts of a topic on some of its brokers (the brokers
    not named keep theirs); None leaves that side as it is."""

    path: str
    topic: str
    read_queues: Optional[dict] = None  # broker name -> count
    write_queues: Optional[dict] = None


SAME_HOSTS, NEW_HOSTS = "same_hosts", "new_hosts"  # InstanceSpec.scale_out


@dataclass(frozen=True)
class Scaling:
    """A scenario's `replicas` item, resolved: the instance sets (indices into the group's `instances`) of one
    group that run `replicas` processes in the scenario, all else of them kept (rmqplan.model.scaling)."""

    path: str  # "scenarios[0].replicas.orders", for messages
    group: str
    sets: tuple[int, ...]
    replicas: int


@dataclass(frozen=True)
class Scenario:
    """A what-if (`rmqplan.model.states` turns it into the states it goes through)."""

    path: str
    name: str
    group: Optional[str]  # the group whose processes change; None: fleet-wide changes only (or every group)
    add_instances: tuple[InstanceSpec, ...] = ()
    remove_instances: int = 0  # remove this many processes, last first
    remove_hosts: tuple[str, ...] = ()  # a failed host: every process of the group on these hosts goes (first)
    remove_brokers: tuple[str, ...] = ()  # brokers that go down: their queues leave every route
    broker_perm: tuple[tuple[str, int], ...] = ()  # (broker, RocketMQ perm bits: 4 read, 2 write)
    set_queues: tuple[QueueResize, ...] = ()
    rolling_restart: tuple[str, ...] = ()  # the hand-written groups that restart, process by process, in fleet order
    restarts_every_group: bool = False  # every group restarts, generated ones too (rolling_restart = true, no group)
    replicas: tuple[Scaling, ...] = ()  # instance sets scaled to a number of processes, each keeping all else

    def restarts(self) -> bool:
        return bool(self.rolling_restart) or self.restarts_every_group

    def changes_routes(self) -> bool:
        return bool(self.remove_brokers or self.broker_perm or self.set_queues)

    def changes_processes(self) -> bool:
        return bool(self.add_instances or self.remove_instances or self.remove_hosts or self.replicas)

    def changes_group(self, group: str) -> bool:
        """Whether the scenario changes the processes of `group` (its `group`, or a set `replicas` scales)."""
        return group == self.group or any(s.group == group for s in self.replicas)


@dataclass(frozen=True)
class GenerateSpec:
    groups: int
    seed: int = 0
    instances: tuple[int, int] = (1, 20)
    queues: tuple[int, int] = (4, 32)
    brokers: int = 2
    colliding_client_ids: float = 0.0
    strategies: tuple[str, ...] = ("AVG",)  # optional `strategies = [...]`: each group draws one (rmqplan.generated.generate)

    def broker_names(self) -> list[str]:
        """The brokers it creates: broker-00, broker-01, ... (scenarios may name them)."""
        width = max(2, len(str(self.brokers - 1)))
        return [f"broker-{b:0{width}d}" for b in range(self.brokers)]


@dataclass(frozen=True)
class Fleet:
    path: str
    brokers: tuple[Broker, ...]
    topics: tuple[Topic, ...]
    groups: tuple[Group, ...]
    scenarios: tuple[Scenario, ...] = ()
    generate: Optional[GenerateSpec] = None


@dataclass(frozen=True)
class Process:
    """One consumer process of a group, with the client id it reports and why."""

    group: str
    instance: str  # stable label, "<host>#<n>": the n-th process of this group on that host (1-based)
    host: str
    client_id: str
    id_source: str  # why this id, for messages: "fixed instanceName 'X'", "pid 1 on client 4.5.1", ...
    strategy: StrategySpec
    subscriptions: tuple[SubscriptionSpec, ...]
    room: Optional[str] = None
    spec_path: str = ""  # the InstanceSpec it came from
    client_version: str = DEFAULT_CLIENT_VERSION
    consumer: str = "push"  # a push consumer also rebalances its group's retry topic; lite pull and pull do not
    client: str = "java"  # the library that names the process and computes its share (rmqplan.model.identity)

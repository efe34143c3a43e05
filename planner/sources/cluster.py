"""What a cluster says, as the planner reads it: brokers, topic routes, the connected consumers of each group and
their consume progress. Two readers give these facts: saved `mqadmin` outputs (`rmqplan.sources.mqadmin`) and
the live cluster over RocketMQ's own protocol (`rmqplan.sources.remoting`); everything downstream
(`rmqplan.sources.fleet_entries`, `rmqplan status`) is shared. Every fact carries the `Origin` it was read from:
a file and line, or the address and request of a live read (line 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from rmqplan.model.fleet import Queue
from rmqplan.sources.origin import Origin, SourceProblem

PERM_READ, PERM_WRITE = 4, 2
RETRY_PREFIX = "%RETRY%"
DLQ_PREFIX = "%DLQ%"  # a group's dead-letter topic: the messages that exhausted their retries
LMQ_PREFIX = "%LMQ%"  # light message queues: one queue each, by the million; no client rebalances them
# The consumer groups a broker makes for itself (MixAll's predefined groups, and its prefix of system groups): the
# broker's own tasks commit offsets under some of them (transactions, pop revives) with no client connected.
SYSTEM_GROUPS = frozenset({
    "DEFAULT_CONSUMER", "TOOLS_CONSUMER", "SCHEDULE_CONSUMER", "FILTERSRV_CONSUMER", "__MONITOR_CONSUMER",
    "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_ONSAPI_PULL",
})
SYSTEM_GROUP_PREFIX = "CID_RMQ_SYS_"


def is_system_group(group: str) -> bool:
    return group in SYSTEM_GROUPS or group.startswith(SYSTEM_GROUP_PREFIX)


@dataclass(frozen=True)
class RouteQueues:
    """One broker's queues of a topic."""

    broker: str
    read_queues: int
    write_queues: int
    perm: int
    origin: Origin

    @property
    def readable(self) -> bool:
        return bool(self.perm & PERM_READ)

    @property
    def writable(self) -> bool:
        return bool(self.perm & PERM_WRITE)


@dataclass(frozen=True)
class RouteBroker:
    name: str
    cluster: str
    addresses: dict  # broker id (0 = master) -> "ip:port"
    origin: Origin


@dataclass
class TopicRoute:
    topic: str
    queues: list[RouteQueues]
    brokers: list[RouteBroker]
    origin: Origin
    topic_source: str = ""  # where the topic's name comes from; "" for a saved output: its file's name


@dataclass(frozen=True)
class ClusterBroker:
    cluster: str
    name: str
    broker_id: int  # 0: the master
    address: str
    version: str  # as printed, e.g. "V5_1_4"; "" when the broker did not answer mqadmin's stats request
    origin: Origin
    perm: Optional[int] = None  # the broker's own permission (brokerPermission: 6 rw, 4 read only), when read


@dataclass(frozen=True)
class Connection:
    client_id: str
    address: str
    language: str  # JAVA, CPP (the Python 2.x and C++ clients), GO, ...
    version: Optional[str]  # "4.9.4", or None when the printed name is not a release
    origin: Origin
    version_name: str = ""  # as printed: "V4_9_4"

    @property
    def ip(self) -> str:
        return self.client_id.split("@", 1)[0]

    @property
    def instance_name(self) -> str:
        """What follows the IP in the client id: the instance name (pid, pid#nanoTime, or a fixed name),
        with `@unitName` when the client set one."""
        return self.client_id.split("@", 1)[1] if "@" in self.client_id else ""


@dataclass(frozen=True)
class ConnectedSubscription:
    topic: str
    expression: str
    origin: Origin

    @property
    def retry(self) -> bool:
        return self.topic.startswith(RETRY_PREFIX)


@dataclass
class ConsumerConnection:
    group: str
    connections: list[Connection]
    subscriptions: list[ConnectedSubscription]
    consume_type: Optional[str]  # CONSUME_PASSIVELY (push) | CONSUME_ACTIVELY (pull) | CONSUME_POP
    message_model: Optional[str]  # CLUSTERING | BROADCASTING
    origin: Origin
    message_model_origin: Optional[Origin] = None
    not_online: bool = False  # mqadmin said the group has no connection (the output is its error)
    # With no connection: the topics the group has committed consume offsets on (its brokers keep them after its
    # last consumer is gone), whose queues nobody consumes now; empty for a group never consumed or deleted.
    committed_topics: list[str] = field(default_factory=list)

    @property
    def client_ids(self) -> list[str]:
        """One entry per connection, duplicates kept: what the broker gives each client as `cidAll`."""
        return [c.client_id for c in self.connections]


@dataclass(frozen=True)
class QueueOffsets:
    """One queue's consume progress for a group, as its broker reports it (consume stats)."""

    queue: Queue
    broker_offset: int  # the queue's max offset: messages written so far
    consumer_offset: int  # the group's committed offset
    last_timestamp: int  # when the last consumed message was stored (ms since the epoch); 0: none consumed
    origin: Origin

    @property
    def backlog(self) -> int:
        """Messages behind: written but not yet consumed (committed) by the group."""
        return max(self.broker_offset - self.consumer_offset, 0)


@dataclass
class ConsumeProgress:
    """A group's progress on every queue its brokers report, read at one moment (`read_at`, seconds since the
    epoch; None for a saved output, whose moment is not known)."""

    group: str
    queues: dict[Queue, QueueOffsets]
    origin: Origin
    read_at: Optional[float] = None

    def backlog(self, queue: Queue) -> Optional[int]:
        offsets = self.queues.get(queue)
        return offsets.backlog if offsets is not None else None


@dataclass
class ClusterSnapshot:
    routes: dict[str, TopicRoute] = field(default_factory=dict)  # topic -> route
    brokers: list[ClusterBroker] = field(default_factory=list)
    consumers: dict[str, ConsumerConnection] = field(default_factory=dict)  # group -> connections
    missing_topics: dict[str, Origin] = field(default_factory=dict)  # topics the name server has no route for
    problems: list[SourceProblem] = field(default_factory=list)
    progress: dict[str, ConsumeProgress] = field(default_factory=dict)  # group -> its consume progress
    source: str = ""  # what was read: "the mqadmin outputs in DIR", "the name server 10.0.0.1:9876"

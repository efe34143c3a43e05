"""A live cluster, read over RocketMQ's own remoting protocol (`rmqplan.sources.remoting`): the same facts as the
saved mqadmin outputs give (`rmqplan.sources.cluster`), read now, plus each group's consume progress.

What it asks, read-only (the name server first, then each broker's master):

1. the name server: the brokers of every cluster (GET_BROKER_CLUSTER_INFO);
2. each master broker: its configuration (GET_BROKER_CONFIG: its permission; the answer's `version` is its
   release), and, when no groups are named, the consumer groups it knows (GET_ALL_SUBSCRIPTIONGROUP_CONFIG);
3. each group's connections (GET_CONSUMER_CONNECTION_LIST), asked of a broker of the group's retry topic
   `%RETRY%<group>` (where its consumers send their heartbeats), else of each master in turn: client ids (one per
   connection, duplicates kept, as the broker hands them to a rebalance), client release, language, message
   model, subscriptions, consume type. A group no broker knows a connection of is not online;
4. the name server: the route of every topic a connected group subscribes to, its retry topic and the topics
   named (GET_ROUTEINFO_BY_TOPIC); a topic it has no route for is a missing topic, as in mqadmin's outputs;
5. a group with no connection (but not the broker's own groups, `rmqplan.sources.cluster.is_system_group`): the
   topics it has committed offsets on, as `mqadmin consumerProgress -g` finds them: GET_CONSUME_STATS without a
   topic, asked of each broker of its retry topic; each broker names the topics it keeps an offset of the group
   for, and filters none out, since no connection says what the group subscribes to. Offsets outlive the
   connections: a group whose last consumer died has them (every queue of those topics is consumed by nobody
   now); a group never consumed has none, and a deleted one no retry topic (`mqadmin deleteSubGroup` deletes it);
6. with progress: each clustering group's consume stats (GET_CONSUME_STATS), per topic from every broker whose
   queues of it are readable: per queue the broker offset, the group's offset and the time of the last message
   consumed; for a group with no connection, on the topics of 5. `LiveCluster.progress` reads them again (the
   second read of `rmqplan status`);
7. with `dead_letters`: the same for each group's dead-letter topic `%DLQ%<group>` where it has a route, whose
   queues no client reads (the messages that exhausted their retries: `rmqplan watch` counts them); the name
   server's list of topics (GET_ALL_TOPIC_LIST_FROM_NAMESERVER, one answer) says which groups have one, so that
   thousands of groups without dead letters cost no request each.

Several name servers (`a:9876;b:9876`) are tried in turn; the first that answers is asked first from then on.
Any failure (refused, no answer in time, a malformed frame, an error code where an answer was expected, an answer
beyond `rmqplan.sources.remoting.limits`) is a `LiveClusterError`: one line naming the server, its address and what
failed. Nothing is returned half-read. A read (`snapshot`, and each `progress` asked again) has one deadline for
all its requests: when it passes, the request still unanswered is named and no other server is tried.
"""

from __future__ import annotations

import time
from typing import Iterable, Optional

from rmqplan.sources.cluster import (
    DLQ_PREFIX,
    LMQ_PREFIX,
    PERM_READ,
    RETRY_PREFIX,
    ClusterBroker,
    ClusterSnapshot,
    ConsumeProgress,
    ConsumerConnection,
    is_system_group,
)
from rmqplan.sources.origin import Origin
from rmqplan.sources.remoting import bodies, codes
from rmqplan.sources.remoting.acl import Credentials
from rmqplan.sources.remoting.client import (
    DEFAULT_DEADLINE,
    DEFAULT_TIMEOUT,
    DeadlineError,
    Recorder,
    RemotingClient,
    RemotingError,
    split_address,
)
from rmqplan.sources.remoting.frame import Command
from rmqplan.sources.remoting.limits import MAX_ANSWER_BYTES

CLUSTERING = "CLUSTERING"


class LiveClusterError(Exception):
    """The cluster could not be read: one line."""


def parse_namesrv(text: str) -> list[str]:
    """`a:9876;b:9876` -> the addresses, in order. Raises LiveClusterError for anything else."""
    if "," in text or " " in text.strip():
        raise LiveClusterError(f"--namesrv {text!r}: separate name servers with ';' (host:port;host:port)")
    addresses = [a.strip() for a in text.split(";") if a.strip()]
    if not addresses:
        raise LiveClusterError("--namesrv: no address given (host:port, or host:port;host:port)")
    for address in addresses:
        try:
            split_address(address)
        except ValueError as e:
            raise LiveClusterError(f"--namesrv: {e}") from None
    return addresses


class LiveCluster:
    def __init__(self, namesrv: str, timeout: float = DEFAULT_TIMEOUT, credentials: Optional[Credentials] = None,
                 recorder: Optional[Recorder] = None, deadline: Optional[float] = DEFAULT_DEADLINE):
        self.namesrv = parse_namesrv(namesrv)
        self.client = RemotingClient(timeout, credentials, recorder, deadline)
        self.masters: dict[str, str] = {}  # broker name -> the address asked (its master's)

    def __enter__(self) -> "LiveCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    @property
    def source(self) -> str:
        return f"the name server{'s' if len(self.namesrv) > 1 else ''} {';'.join(self.namesrv)}"

    # ------------------------------------------------------------------------------------------- asking

    def _ask_namesrv(self, code: int, fields: Optional[dict] = None) -> tuple[str, Command]:
        failures = []
        for address in list(self.namesrv):
            try:
                response = self.client.request(address, code, fields, limit=MAX_ANSWER_BYTES[code])
            except DeadlineError as e:  # no time is left to ask another
                raise LiveClusterError(f"name server {address}: {codes.request_name(code)}"
                                       f"{' of ' + fields['topic'] if fields and 'topic' in fields else ''}: "
                                       f"{e.what}") from None
            except RemotingError as e:
                failures.append(f"{address} ({e.what})")
                continue
            if address != self.namesrv[0]:  # it answers: ask it first from now on
                self.namesrv.remove(address)
                self.namesrv.insert(0, address)
            return address, response
        what = codes.request_name(code)
        if len(failures) == 1:
            raise LiveClusterError(f"name server {failures[0].replace(' (', ': ', 1)[:-1]} ({what})")
        raise LiveClusterError(f"no name server answered {what}: {', '.join(failures)}")

    def _ask_broker(self, broker: str, code: int, fields: Optional[dict] = None, what: str = "") -> Command:
        address = self.masters[broker]
        try:
            return self.client.request(address, code, fields, limit=MAX_ANSWER_BYTES[code])
        except RemotingError as e:
            raise LiveClusterError(f"broker {broker} ({address}): {codes.request_name(code)}"
                                   f"{' ' + what if what else ''}: {e.what}") from None

    @staticmethod
    def _failed(where: str, code: int, response: Command, what: str = "") -> LiveClusterError:
        remark = " ".join((response.remark or "").split())[:300]
        return LiveClusterError(f"{where}: {codes.request_name(code)}{' ' + what if what else ''}: "
                                f"{codes.response_name(response.code)}{': ' + remark if remark else ''}")

    def _broker_where(self, broker: str) -> str:
        return f"broker {broker} ({self.masters[broker]})"

    def _body(self, parse, where: str, *args):
        try:
            return parse(*args)
        except bodies.ClaimError as e:
            raise LiveClusterError(f"{where}: {e}") from None
        except bodies.BodyError as e:
            raise LiveClusterError(f"{where}: malformed answer: {e}") from None

    # --------------------------------------------------------------------------------------------- reads

    def snapshot(self, groups: Optional[Iterable[str]] = None, topics: Iterable[str] = (),
                 progress: bool = True, dead_letters: bool = False) -> ClusterSnapshot:
        """What the cluster says now: every broker, the connections of `groups` (every group the brokers know
        when None), the routes of their topics and of `topics`, and (with `progress`) the consume progress of
        every connected clustering group and of every group with no connection that has committed offsets (with
        `dead_letters`, on its dead-letter topic too)."""
        self.client.start_read()
        snap = ClusterSnapshot(source=self.source)
        snap.brokers = self._brokers()
        names = sorted(set(groups)) if groups is not None else self._groups()
        for group in names:
            consumer = self._connections(group, snap, groups is None)
            if consumer.not_online and not is_system_group(group):
                consumer.committed_topics = self._committed_topics(group, snap)
            snap.consumers[group] = consumer
        wanted = list(dict.fromkeys([*topics, *(t for c in snap.consumers.values() for t in _topics(c))]))
        for topic in wanted:
            self._route(topic, snap)
        if dead_letters:
            listed = self._topic_list()
            for group, consumer in snap.consumers.items():
                if _clustering(consumer) and (listed is None or DLQ_PREFIX + group in listed):
                    self._route(DLQ_PREFIX + group, snap)
        if progress:
            snap.progress = self._progress(snap, dead_letters)
        return snap

    def _brokers(self) -> list[ClusterBroker]:
        address, response = self._ask_namesrv(codes.GET_BROKER_CLUSTER_INFO)
        if response.code != codes.SUCCESS:
            raise self._failed(f"name server {address}", codes.GET_BROKER_CLUSTER_INFO, response)
        origin = Origin(f"{address} cluster info")
        brokers = self._body(bodies.cluster_brokers, f"name server {address}", response.body, origin)
        self.masters = {}
        for b in sorted(brokers, key=lambda b: (b.name, b.broker_id < 0, abs(b.broker_id))):
            self.masters.setdefault(b.name, b.address)  # id 0 is the master; without one, the lowest id
        out = []
        for b in brokers:
            if self.masters.get(b.name) != b.address:
                out.append(b)
                continue
            response = self._ask_broker(b.name, codes.GET_BROKER_CONFIG)
            if response.code != codes.SUCCESS:
                raise self._failed(self._broker_where(b.name), codes.GET_BROKER_CONFIG, response)
            version = codes.version_name(response.version) or ""
            out.append(ClusterBroker(b.cluster, b.name, b.broker_id, b.address, version,
                                     Origin(f"{b.address} broker config"), bodies.broker_permission(response.body)))
        return out

    def _groups(self) -> list[str]:
        found: set[str] = set()
        for broker in sorted(self.masters):
            response = self._ask_broker(broker, codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)
            if response.code != codes.SUCCESS:
                raise self._failed(self._broker_where(broker), codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, response)
            found.update(self._body(bodies.subscription_groups, self._broker_where(broker), response.body))
        return sorted(found)

    def _connections(self, group: str, snap: ClusterSnapshot, groups_listed: bool) -> ConsumerConnection:
        retry = RETRY_PREFIX + group
        self._route(retry, snap)
        route = snap.routes.get(retry)
        candidates = [q.broker for q in route.queues if q.broker in self.masters] if route is not None else []
        candidates += [b for b in sorted(self.masters) if b not in candidates]
        for broker in candidates:
            response = self._ask_broker(broker, codes.GET_CONSUMER_CONNECTION_LIST, {"consumerGroup": group},
                                        f"of group {group}")
            if response.code == codes.CONSUMER_NOT_ONLINE:
                continue
            if response.code != codes.SUCCESS:
                failed = self._failed(self._broker_where(broker), codes.GET_CONSUMER_CONNECTION_LIST, response,
                                      f"of group {group}")
                if response.code == codes.NO_PERMISSION and groups_listed:
                    failed = LiveClusterError(f"{failed} (keys that may read only some groups: --group G)")
                raise failed
            origin = Origin(f"{self.masters[broker]} connections of {group}")
            return self._body(bodies.consumer_connection, self._broker_where(broker), response.body, group, origin)
        origin = Origin(f"{';'.join(self.masters[b] for b in candidates) or self.namesrv[0]} connections of {group}")
        return ConsumerConnection(group, [], [], None, None, origin, not_online=True)

    def _topic_list(self) -> Optional[set[str]]:
        """Every topic the name server knows, in one answer; None when it does not list them
        (`enableAllTopicList=false`): then each dead-letter topic's route is asked."""
        address, response = self._ask_namesrv(codes.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
        if response.code != codes.SUCCESS:
            return None
        return self._body(bodies.topic_list, f"name server {address}", response.body)

    def _committed_topics(self, group: str, snap: ClusterSnapshot) -> list[str]:
        route = snap.routes.get(RETRY_PREFIX + group)
        topics: set[str] = set()
        for broker in sorted({q.broker for q in route.queues if q.broker in self.masters} if route else ()):
            what = f"of group {group}"
            response = self._ask_broker(broker, codes.GET_CONSUME_STATS, {"consumerGroup": group}, what)
            if response.code != codes.SUCCESS:
                raise self._failed(self._broker_where(broker), codes.GET_CONSUME_STATS, response, what)
            topics.update(self._body(bodies.committed_topics, self._broker_where(broker), response.body, group))
        return sorted(t for t in topics if not t.startswith((LMQ_PREFIX, DLQ_PREFIX)))

    def _route(self, topic: str, snap: ClusterSnapshot) -> None:
        if topic in snap.routes or topic in snap.missing_topics:
            return
        fields = {"topic": topic, "acceptStandardJsonOnly": "true"}
        address, response = self._ask_namesrv(codes.GET_ROUTEINFO_BY_TOPIC, fields)
        origin = Origin(f"{address} route of {topic}")
        if response.code == codes.TOPIC_NOT_EXIST:
            snap.missing_topics[topic] = origin
            return
        if response.code != codes.SUCCESS:
            raise self._failed(f"name server {address}", codes.GET_ROUTEINFO_BY_TOPIC, response, f"of {topic}")
        snap.routes[topic] = self._body(bodies.topic_route, f"name server {address}", response.body, topic, origin)

    def progress(self, snap: ClusterSnapshot, dead_letters: bool = False) -> dict[str, ConsumeProgress]:
        """Each clustering group's consume progress on its topics' readable queues (see `snapshot`), read now (a
        read of its own: the deadline counts again)."""
        self.client.start_read()
        return self._progress(snap, dead_letters)

    def _progress(self, snap: ClusterSnapshot, dead_letters: bool = False) -> dict[str, ConsumeProgress]:
        out = {}
        for group, consumer in snap.consumers.items():
            if not _clustering(consumer):
                continue  # a broadcasting group keeps its offsets in its processes, not on the brokers
            topics = list(_topics(consumer))
            dlq = DLQ_PREFIX + group
            if dead_letters and dlq in snap.routes:
                topics.append(dlq)
            if not topics:
                continue
            queues = {}
            for topic in topics:
                route = snap.routes.get(topic)
                for q in route.queues if route is not None else ():
                    if (not q.perm & PERM_READ and topic != dlq) or q.broker not in self.masters:
                        continue  # a dead-letter topic may be write-only: nothing reads it, its count is asked
                    what = f"of group {group} on {topic}"
                    response = self._ask_broker(q.broker, codes.GET_CONSUME_STATS,
                                                {"consumerGroup": group, "topic": topic}, what)
                    if response.code != codes.SUCCESS:
                        raise self._failed(self._broker_where(q.broker), codes.GET_CONSUME_STATS, response, what)
                    origin = Origin(f"{self.masters[q.broker]} consume stats of {group}")
                    stats = self._body(bodies.consume_stats, self._broker_where(q.broker), response.body, group,
                                       origin)
                    queues.update({mq: o for mq, o in stats.items() if mq.topic == topic and mq.broker == q.broker})
            out[group] = ConsumeProgress(group, queues, Origin(f"{self.source}: consume stats of {group}"),
                                         read_at=time.time())
        return out


def _clustering(consumer: ConsumerConnection) -> bool:
    """A group whose offsets the brokers keep: connected clustering consumers, or none connected but offsets
    committed."""
    if consumer.connections:
        return (consumer.message_model or CLUSTERING) == CLUSTERING
    return bool(consumer.committed_topics)


def _topics(consumer: ConsumerConnection) -> Iterable[str]:
    """The topics of a group's queues: its subscriptions, or with no connection the topics it has offsets on."""
    if consumer.connections:
        return dict.fromkeys(s.topic for s in consumer.subscriptions)
    return consumer.committed_topics

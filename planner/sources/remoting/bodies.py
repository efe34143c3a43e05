"""The bodies of the answers rmqplan asks for, as the facts of `rmqplan.sources.cluster`.

Bodies are fastjson's JSON (`rmqplan.sources.relaxed_json`: numeric and object keys), except the broker's
configuration, which is properties text. Shapes (the Java classes' fields):

- cluster info: `brokerAddrTable` {brokerName: {cluster, brokerName, brokerAddrs {id: "ip:port"}}},
  `clusterAddrTable` {cluster: [brokerName]};
- topic route: `queueDatas` [{brokerName, readQueueNums, writeQueueNums, perm, topicSysFlag}], `brokerDatas`
  (as above): the same document `mqadmin topicRoute` prints, read by the same parser;
- consumer connection list: `connectionSet` [{clientId, clientAddr, language, version (a `MQVersion` ordinal)}],
  one entry per connection (two processes reporting one client id are two entries), `subscriptionTable`
  {topic: {topic, subString, ...}}, `consumeType`, `messageModel`, `consumeFromWhere`;
- consume stats: `offsetTable` {{topic, brokerName, queueId}: {brokerOffset, consumerOffset, pullOffset,
  lastTimestamp}}, `consumeTps`;
- subscription groups: `subscriptionGroupTable` {group: {groupName, ...}};
- topic list: `topicList` [topic, ...];
- broker configuration: `brokerPermission=6`, `brokerName=...`, one `key=value` a line.

Each function raises `BodyError` (one line) for a body that is not what it should be, `ClaimError` for one that
holds or claims more than `rmqplan.sources.remoting.limits` lets a reader hold: it is not read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from rmqplan.model.fleet import Queue
from rmqplan.sources import relaxed_json
from rmqplan.sources.cluster import (
    ClusterBroker,
    ConnectedSubscription,
    Connection,
    ConsumerConnection,
    QueueOffsets,
    TopicRoute,
)
from rmqplan.sources.mqadmin import parse_topic_route, version_from_name
from rmqplan.sources.origin import Origin
from rmqplan.sources.remoting import codes
from rmqplan.sources.remoting.codes import version_name
from rmqplan.sources.remoting.limits import MAX_BROKERS, MAX_QUEUES_PER_BROKER, MAX_VALUES, route_claims


class BodyError(ValueError):
    """A body that is not the document its request answers with."""


class ClaimError(BodyError):
    """A body that claims more (brokers, queues, entries) than rmqplan reads from one answer."""


def _too_many(what: str, code: int) -> ClaimError:
    return ClaimError(f"{what} holds more than {MAX_VALUES[code]:,} values, more than a real cluster's answer: "
                      "not read")


def _document(body: bytes, what: str, code: int) -> relaxed_json.JsonObject:
    try:
        doc = relaxed_json.parse(body.decode("utf-8"), MAX_VALUES[code])
    except UnicodeDecodeError as e:
        raise BodyError(f"{what}: not UTF-8 (byte {e.start})") from None
    except relaxed_json.TooManyValues:
        raise _too_many(what, code) from None
    except relaxed_json.RelaxedJsonError as e:
        raise BodyError(f"{what}: not JSON at {e.line}:{e.column}: {e.message}") from None
    if not isinstance(doc, dict):
        raise BodyError(f"{what}: not a JSON object")
    return doc


def _table(doc: dict, key: str, what: str) -> dict:
    value = doc.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BodyError(f"{what}: `{key}` is not an object")
    return value


def _list(doc: dict, key: str, what: str) -> list:
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BodyError(f"{what}: `{key}` is not a list")
    return value


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def cluster_brokers(body: bytes, origin: Origin) -> list[ClusterBroker]:
    """Every broker (master and slaves) of every cluster, by cluster, broker name and id."""
    doc = _document(body, "cluster info", codes.GET_BROKER_CLUSTER_INFO)
    clusters = {}
    for cluster, names in _table(doc, "clusterAddrTable", "cluster info").items():
        for name in names if isinstance(names, list) else []:
            if isinstance(name, str):
                clusters[name] = str(cluster)
    table = _table(doc, "brokerAddrTable", "cluster info")
    if len(table) > MAX_BROKERS:
        raise ClaimError(f"cluster info claims {len(table):,} brokers, more than the limit of {MAX_BROKERS:,}: "
                         "not read")
    out = []
    for name, data in sorted(table.items()):
        if not isinstance(data, dict) or not isinstance(data.get("brokerAddrs"), dict):
            raise BodyError(f"cluster info: broker {name}: no `brokerAddrs`")
        cluster = data.get("cluster") if isinstance(data.get("cluster"), str) else clusters.get(name, "")
        for key, address in sorted(data["brokerAddrs"].items(), key=lambda kv: str(kv[0])):
            broker_id = key if _whole(key) else int(key) if str(key).lstrip("-").isdigit() else None
            if broker_id is None or not isinstance(address, str):
                raise BodyError(f"cluster info: broker {name}: address {key!r}: {address!r} is not id: \"ip:port\"")
            out.append(ClusterBroker(cluster, str(name), broker_id, address, "", origin))
    out.sort(key=lambda b: (b.cluster, b.name, b.broker_id))
    return out


def topic_route(body: bytes, topic: str, origin: Origin) -> TopicRoute:
    """The route of `topic`, parsed as `mqadmin topicRoute`'s output is; every value's origin is `origin`."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BodyError(f"route of {topic}: not UTF-8 (byte {e.start})") from None
    try:
        route, problems = parse_topic_route(text, topic, origin.path, MAX_VALUES[codes.GET_ROUTEINFO_BY_TOPIC])
    except relaxed_json.TooManyValues:
        raise _too_many(f"route of topic {topic}", codes.GET_ROUTEINFO_BY_TOPIC) from None
    if problems or route is None:
        first = problems[0].message if problems else "no route"
        raise BodyError(f"route of {topic}: {first}")
    _check_claims(route)
    return replace(route, origin=origin, topic_source=f"{origin} (the topic asked for)",
                   queues=[replace(q, origin=origin) for q in route.queues],
                   brokers=[replace(b, origin=origin) for b in route.brokers])


def _check_claims(route: TopicRoute) -> None:
    """A route within the limits, or ClaimError naming what it claims: it is not modelled."""
    claims = route_claims(route)
    if claims is not None:
        raise ClaimError(claims)


def consumer_connection(body: bytes, group: str, origin: Origin) -> ConsumerConnection:
    what = f"connections of group {group}"
    doc = _document(body, what, codes.GET_CONSUMER_CONNECTION_LIST)
    connections = []
    for item in _list(doc, "connectionSet", what):
        if not isinstance(item, dict) or not isinstance(item.get("clientId"), str):
            raise BodyError(f"{what}: a connection without a clientId")
        ordinal = item.get("version")
        name = version_name(ordinal) if _whole(ordinal) else None
        language = item.get("language")
        connections.append(Connection(item["clientId"], str(item.get("clientAddr") or ""),
                                      language if isinstance(language, str) else str(language or ""),
                                      version_from_name(name) if name else None, origin, name or ""))
    connections.sort(key=lambda c: (c.client_id, c.address))  # a set on the broker: an order of our own
    subscriptions = []
    for topic, data in sorted(_table(doc, "subscriptionTable", what).items()):
        expression = data.get("subString") if isinstance(data, dict) else None
        subscriptions.append(ConnectedSubscription(str(topic), expression if isinstance(expression, str) else "*",
                                                   origin))
    consume_type, model = doc.get("consumeType"), doc.get("messageModel")
    return ConsumerConnection(group, connections, subscriptions,
                              consume_type if isinstance(consume_type, str) else None,
                              model if isinstance(model, str) else None, origin,
                              origin if isinstance(model, str) else None)


def consume_stats(body: bytes, group: str, origin: Origin) -> dict[Queue, QueueOffsets]:
    what = f"consume stats of group {group}"
    doc = _document(body, what, codes.GET_CONSUME_STATS)
    table = _table(doc, "offsetTable", what)
    if len(table) > MAX_QUEUES_PER_BROKER:  # asked for one topic of one broker
        raise ClaimError(f"{what} claim {len(table):,} queues on one broker, more than the limit of "
                         f"{MAX_QUEUES_PER_BROKER:,}: not read")
    out = {}
    for key, value in table.items():
        fields = key.fields() if isinstance(key, relaxed_json.ObjectKey) else None
        if (fields is None or not isinstance(fields.get("topic"), str) or not isinstance(fields.get("brokerName"), str)
                or not _whole(fields.get("queueId")) or not isinstance(value, dict)):
            raise BodyError(f"{what}: an offsetTable entry is not {{topic, brokerName, queueId}}: {{offsets}}")
        numbers = [value.get(k, 0) for k in ("brokerOffset", "consumerOffset", "lastTimestamp")]
        if not all(_whole(n) for n in numbers):
            raise BodyError(f"{what}: offsets of {fields['topic']} {fields['brokerName']} {fields['queueId']} are "
                            "not whole numbers")
        queue = Queue(fields["topic"], fields["brokerName"], fields["queueId"])
        out[queue] = QueueOffsets(queue, *numbers, origin)
    return out


def committed_topics(body: bytes, group: str) -> list[str]:
    """The topics of a consume stats answer asked without a topic: the ones the broker keeps an offset of the group
    for (with no connection of the group, it filters none out by subscription)."""
    what = f"consume stats of group {group}"
    topics = set()
    for key in _table(_document(body, what, codes.GET_CONSUME_STATS), "offsetTable", what):
        fields = key.fields() if isinstance(key, relaxed_json.ObjectKey) else None
        if fields is None or not isinstance(fields.get("topic"), str):
            raise BodyError(f"{what}: an offsetTable entry is not {{topic, brokerName, queueId}}: {{offsets}}")
        topics.add(fields["topic"])
    return sorted(topics)


def topic_list(body: bytes) -> set[str]:
    """The topics a name server lists (`topicList`)."""
    return {t for t in _list(_document(body, "topic list", codes.GET_ALL_TOPIC_LIST_FROM_NAMESERVER), "topicList",
                             "topic list") if isinstance(t, str)}


def subscription_groups(body: bytes) -> list[str]:
    doc = _document(body, "subscription groups", codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)
    return sorted(str(g) for g in _table(doc, "subscriptionGroupTable", "subscription groups"))


def broker_permission(body: bytes) -> Optional[int]:
    """`brokerPermission` of a broker's configuration text; None when it does not say."""
    for line in body.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "brokerPermission":
            value = value.strip()
            return int(value) if value.isdigit() else None
    return None

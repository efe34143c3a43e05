"""What one answer of a cluster may hold before rmqplan stops reading it.

A server decides how many bytes it sends and how many brokers, queues and entries its answer claims; rmqplan
decides how much it holds. The bounds are generous for real clusters and each says why; an answer beyond one is
refused with one line naming the server, so a broken or hostile server costs bounded memory and time (the whole
read also has a deadline: `rmqplan.sources.remoting.client`).
"""

from __future__ import annotations

from typing import Optional

from rmqplan.sources.cluster import TopicRoute
from rmqplan.sources.remoting import codes
from rmqplan.sources.remoting.frame import MAX_FRAME

# Broker names in the cluster info or in one topic's route. RocketMQ sets no bound; the largest clusters described
# in public run a few hundred broker groups, and rmqplan asks each master at least two questions.
MAX_BROKERS = 1_024
# A topic's read or write queues on one broker (`readQueueNums`, a Java int RocketMQ does not bound). Brokers
# create 8 (`defaultTopicQueueNums`), mqadmin updateTopic 8; every queue is a consume queue of its own files on
# the broker and a unit of the clients' rebalance: topics of a few hundred queues a broker are already rare.
MAX_QUEUES_PER_BROKER = 4_096
# A topic's queues over all its brokers: what rmqplan models and simulates per topic (the fleet file's bound on
# one broker's queues of a topic), 64 brokers at the limit above.
MAX_ROUTE_QUEUES = 65_536

_MB = 1024 * 1024
# The bytes of an answer's frame, by request, checked before the body is read. Measured on RocketMQ 5.3.3: a
# route takes about 220 bytes a broker, the cluster info 160, a broker's configuration 12 KB of properties, a
# consume stats entry 150 bytes (270 with a topic name of 127 characters, the most RocketMQ allows), a connection
# 130; subscription groups 400 bytes a group, so that list alone may need the whole frame the Java client accepts
# (40,000 groups).
MAX_ANSWER_BYTES = {
    codes.GET_BROKER_CLUSTER_INFO: 4 * _MB,  # MAX_BROKERS brokers with their replicas take under 1 MB
    codes.GET_ROUTEINFO_BY_TOPIC: 4 * _MB,  # MAX_BROKERS brokers' queues and addresses take under 1 MB
    codes.GET_BROKER_CONFIG: 1 * _MB,
    codes.GET_CONSUMER_CONNECTION_LIST: 8 * _MB,  # 50,000 connections
    codes.GET_CONSUME_STATS: 4 * _MB,  # MAX_QUEUES_PER_BROKER entries take under 1 MB
    codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG: MAX_FRAME,
    codes.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: MAX_FRAME,  # 30 bytes a topic: 500,000 topics
}

# JSON values (objects, arrays, strings, numbers: 50 to 150 bytes each once parsed) one body may hold: more than a
# real answer at the bounds above holds, and what keeps a body of empty objects (`[{},{},...]`, three bytes a
# value: five million in 16 MB) from costing gigabytes.
MAX_VALUES = {
    codes.GET_BROKER_CLUSTER_INFO: MAX_BROKERS * 64,  # about 10 values a broker
    codes.GET_ROUTEINFO_BY_TOPIC: MAX_BROKERS * 64,  # about 20 values a broker
    codes.GET_CONSUMER_CONNECTION_LIST: 512 * 1024,  # 50,000 connections of 6 values and their subscriptions
    codes.GET_CONSUME_STATS: MAX_QUEUES_PER_BROKER * 16,  # 11 values a queue
    codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG: 1024 * 1024,  # 40,000 groups of about 20 values (what 16 MB holds)
    codes.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: 1024 * 1024,  # a value a topic
}


def route_claims(route: TopicRoute) -> Optional[str]:
    """What a route claims beyond the limits above (then it is not modelled), or None. A route read from a server
    and one saved by mqadmin in a repository are held to the same limits."""
    brokers = {q.broker for q in route.queues} | {b.name for b in route.brokers}
    if len(brokers) > MAX_BROKERS:
        return (f"route of topic {route.topic} claims {len(brokers):,} brokers, more than the limit of "
                f"{MAX_BROKERS:,}: not read")
    for q in route.queues:
        claimed = max(q.read_queues, q.write_queues)
        if claimed > MAX_QUEUES_PER_BROKER:
            return (f"route of topic {route.topic} claims {claimed:,} queues on broker {q.broker}, more than the "
                    f"limit of {MAX_QUEUES_PER_BROKER:,}: not read")
    total = sum(max(q.read_queues, q.write_queues) for q in route.queues)
    if total > MAX_ROUTE_QUEUES:
        return (f"route of topic {route.topic} claims {total:,} queues on {len(route.queues):,} brokers, more than "
                f"the limit of {MAX_ROUTE_QUEUES:,}: not read")
    return None

"""Fleet entries from what the sources read, written, parsed and simulated: the input side end to end."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.report.findings import find
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.sources.fleet_entries import cluster_entries, deployed_instances, live_instances
from rmqplan.sources.fleet_writer import (PlannedFleet, PlannedGroup, PlannedInstances, PlannedSubscription, Sourced,
                                          write_fleet)
from rmqplan.engines.local import simulate
from rmqplan.sources.deploy import read_deployments
from rmqplan.sources.mqadmin import (ClusterSnapshot, RouteQueues, TopicRoute, parse_consumer_connection,
                                     read_cluster_dir)
from rmqplan.model.identity import group_processes
from rmqplan.sources.origin import Origin
from rmqplan.sources.services import process_layout

SHOP = Path(__file__).parent / "fixtures" / "shop"


def _subscriptions(consumer) -> list[PlannedSubscription]:
    return [PlannedSubscription(s.topic, s.expression, Sourced.at("", s.origin)) for s in consumer.subscriptions
            if not s.retry]


def _simulate(planned: PlannedFleet):
    fleet = parse_fleet_text(write_fleet(planned), "fleet.toml")
    sim = simulate(fleet)
    return fleet, {(f.code, f.group, f.topic): f for f in find(sim)}


def test_the_saved_cluster_gives_brokers_and_topics_with_their_lines():
    snap = read_cluster_dir(SHOP / "cluster")
    brokers, topics = cluster_entries(snap)
    assert [(b.name.value, b.name.source.rsplit("/", 1)[-1]) for b in brokers] == [
        ("broker-a", "clusterList.txt:2"), ("broker-b", "clusterList.txt:4")]
    orders, payment = topics
    assert (orders.name.value, orders.read_queues.value, orders.write_queues) == ("OrderEvents", 8, None)
    assert orders.read_queues.source.endswith("topicRoute-OrderEvents.json:23,30 readQueueNums")
    # PaymentEvents is on broker-a only, 4 read and 6 write queues
    assert (payment.read_queues.value, payment.write_queues.value) == ({"broker-a": 4}, {"broker-a": 6})


def test_the_live_orders_group_simulates_to_orphaned_queues():
    """Three connections share one client id (a fixed instanceName on host networking): each takes the same
    share, the rest of OrderEvents is read by nobody."""
    snap = read_cluster_dir(SHOP / "cluster")
    brokers, topics = cluster_entries(snap)
    consumer = snap.consumers["orders_cg"]
    (instances,) = live_instances(consumer)
    assert (instances.hosts.value, instances.count.value, instances.instance_name.value) == (
        ["10.2.0.5"], 3, "orders-node")
    assert instances.count.source.endswith("consumerConnection-orders_cg.txt:2,3,4: 3 connections with this "
                                           "client id")
    group = PlannedGroup(Sourced("orders_cg", str(consumer.origin)),
                         Sourced(consumer.message_model.lower(), str(consumer.message_model_origin)),
                         Sourced.unknown("AVG", "not in the saved outputs: the client default"),
                         _subscriptions(consumer), [instances])
    _, findings = _simulate(PlannedFleet(brokers, topics, [group]))
    orphaned = findings[("PLAN001", "orders_cg", "OrderEvents")]
    assert len(orphaned.queues) == 16 - 6  # 16 readable queues, the one shared id takes ceil(16/3) = 6
    assert ("PLAN001", "orders_cg", "%RETRY%orders_cg") in findings


def test_the_deployed_orders_service_simulates_to_the_same_incident():
    """The orders Deployment: 3 replicas on host networking, all on one node in the worst case, with the fixed
    instanceName the code sets."""
    deployment = read_deployments(SHOP / "deploy")
    orders = next(s for s in deployment.services if s.name == "orders")
    layout = process_layout(orders)
    sets = deployed_instances(orders, layout, instance_name=Sourced("orders-node", "OrderConsumer.java:18"),
                              client_version=Sourced("4.9.4", "pom.xml:16"))
    (instances,) = sets
    assert (instances.hosts.value, instances.count.value, instances.hosts.known) == (["orders-node-1"], 3, False)
    assert "worst case" in instances.hosts.source and "orders.yaml:9" in instances.count.source
    assert instances.note.startswith("Deployment orders (") and instances.pid.value == 1
    brokers, topics = cluster_entries(read_cluster_dir(SHOP / "cluster"), topics=["OrderEvents"])
    group = PlannedGroup(Sourced("orders_cg", "OrderConsumer.java:8"), Sourced.unknown("clustering", "default"),
                         Sourced.unknown("AVG", "default"),
                         [PlannedSubscription("OrderEvents", "created || paid", Sourced("", "OrderConsumer.java:13"))],
                         sets)
    _, findings = _simulate(PlannedFleet(brokers, topics, [group]))
    assert len(findings[("PLAN001", "orders_cg", "OrderEvents")].queues) == 10
    # spread over 3 nodes, every replica has its own IP: nothing orphaned
    spread = deployed_instances(orders, process_layout(orders, nodes=3),
                                instance_name=Sourced("orders-node", "OrderConsumer.java:18"))
    group.instances = spread
    _, findings = _simulate(PlannedFleet(brokers, topics, [group]))
    assert ("PLAN001", "orders_cg", "OrderEvents") not in findings


def test_hosts_with_different_counts_are_separate_sets():
    deployment = read_deployments(SHOP / "deploy")
    notifier = next(s for s in deployment.services if s.name == "notifier")  # compose, host network
    (one,) = deployed_instances(notifier, process_layout(notifier))
    assert (one.hosts.value, one.count.value, one.hosts.known) == (["notifier-host"], 2, True)
    billing = next(s for s in deployment.services if s.name == "billing")
    (pods,) = deployed_instances(billing, process_layout(billing))
    assert pods.hosts.value == ["billing-0", "billing-1"] and pods.count is None
    assert "HorizontalPodAutoscaler" in pods.note and "between 2 and 6" in pods.note


def _route(topic: str, queues: list[tuple[str, int, int, int]]) -> TopicRoute:
    return TopicRoute(topic, [RouteQueues(b, r, w, p, Origin(f"topicRoute-{topic}.json", 10 + i))
                              for i, (b, r, w, p) in enumerate(queues)], [], Origin(f"topicRoute-{topic}.json", 1))


def test_brokers_that_disagree_on_a_topics_permission_count_zero_where_they_do_not_serve():
    snap = ClusterSnapshot(routes={"T": _route("T", [("a", 4, 4, 6), ("b", 4, 4, 2)]),
                                   "R": _route("R", [("a", 4, 4, 4), ("b", 4, 4, 4)])})
    _, (r, t) = cluster_entries(snap)
    assert (t.read_queues.value, t.write_queues.value, t.perm) == ({"a": 4, "b": 0}, 4, None)
    assert "b perm 2 (w)" in t.read_queues.source
    assert (r.read_queues.value, r.perm.value) == (4, "r")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 16), st.integers(0, 16),
                          st.sampled_from([0, 2, 4, 6, 7])), min_size=1, max_size=3, unique_by=lambda q: q[0]),
       st.booleans())
def test_any_route_becomes_a_topic_with_the_same_readable_and_writable_queues(queues, other_topic):
    routes = {"T": _route("T", queues)}
    if other_topic:
        routes["U"] = _route("U", [("a", 1, 1, 6), ("b", 1, 1, 6), ("c", 1, 1, 6)])
    brokers, topics = cluster_entries(ClusterSnapshot(routes=routes))
    group = PlannedGroup(Sourced("g", "x"), Sourced("clustering", "x"), Sourced("AVG", "x"),
                         [PlannedSubscription("T", "*", Sourced("", "x"))],
                         [PlannedInstances(hosts=Sourced(["10.0.0.1"], "x"))])
    fleet = parse_fleet_text(write_fleet(PlannedFleet(brokers, topics, [group])), "fleet.toml")
    topic = next(t for t in fleet.topics if t.name == "T")
    readable = {b: r for b, r, _, p in queues if p & 4 and r}
    writable = {b: w for b, _, w, p in queues if p & 2 and w}
    got_read = {b: n for b, n in topic.read_queues.items() if n} if topic.readable else {}
    got_write = {b: n for b, n in topic.write_queues.items() if n} if topic.writable else {}
    assert got_read == readable and got_write == writable


CONNECTED = """#ClientId                            #ClientAddr            #Language  #Version
10.0.0.9@1696#2059858770195          10.0.0.9:40576         JAVA       V4_9_8
10.0.0.9@1691#2060159726938          10.0.0.9:40606         JAVA       V4_9_8
10.0.0.9@1#2059000000000@STREAM      10.0.0.9:40607         JAVA       V5_3_3
10.0.0.8@7                           10.0.0.8:40608         JAVA       V4_5_1
10.0.0.8@7                           10.0.0.8:40609         JAVA       V4_5_1
10.0.0.8@node@blue                   10.0.0.8:40610         JAVA       V4_9_8

Below is subscription:
#Topic               #SubExpression
T                    *

ConsumeType: {consume_type}
MessageModel: CLUSTERING
"""


def test_connected_clients_are_written_with_what_their_ids_were_made_from():
    """A default name the client replaced is no name: `started_as` (as connected; a restart gives a new pid) or,
    for a pid that stays over a restart (shared by connections, or 1), `pid`; fixed names and unit names as
    connected; a host's sets in the Java order of the ids; CONSUME_ACTIVELY a lite pull consumer."""
    text = CONNECTED.format(consume_type="CONSUME_ACTIVELY")
    consumer, problems = parse_consumer_connection(text, "g", "consumerConnection-g.txt")
    assert not problems
    sets = live_instances(consumer)

    def plain(s):
        return {k: getattr(s, k).value for k in ("hosts", "count", "instance_name", "unit_name", "pid", "started_as",
                                                 "client_version", "consumer") if getattr(s, k) is not None}

    assert [plain(s) for s in sets] == [
        {"hosts": ["10.0.0.9"], "count": 1, "started_as": "1#2059000000000", "client_version": "5.3.3",
         "consumer": "lite_pull"},
        {"hosts": ["10.0.0.9"], "count": 1, "started_as": "1691#2060159726938", "client_version": "4.9.8",
         "consumer": "lite_pull"},
        {"hosts": ["10.0.0.9"], "count": 1, "started_as": "1696#2059858770195", "client_version": "4.9.8",
         "consumer": "lite_pull"},
        {"hosts": ["10.0.0.8"], "count": 2, "pid": 7, "client_version": "4.5.1", "consumer": "lite_pull"},
        {"hosts": ["10.0.0.8"], "count": 1, "instance_name": "node", "unit_name": "blue", "client_version": "4.9.8",
         "consumer": "lite_pull"},
    ]
    # written and read back, the fleet makes exactly the connected ids (but @STREAM where the release adds it)
    group = PlannedGroup(Sourced("g", "x"), Sourced("clustering", "x"), Sourced("AVG", "x"),
                         [PlannedSubscription("T", "*", Sourced("", "x"))], sets)
    fleet = parse_fleet_text(write_fleet(PlannedFleet(*cluster_entries(ClusterSnapshot()), [group])).replace(
        '[[groups]]', '[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 4\n\n[[groups]]', 1),
        "fleet.toml")
    ids = [p.client_id for p in group_processes(fleet.groups[0])]
    assert ids == ["10.0.0.9@1#2059000000000@STREAM", "10.0.0.9@1691#2060159726938@STREAM",
                   "10.0.0.9@1696#2059858770195@STREAM", "10.0.0.8@7", "10.0.0.8@7", "10.0.0.8@node@blue@STREAM"]


GO_CONNECTED = """#ClientId                            #ClientAddr            #Language  #Version
172.17.0.1@1                         172.17.0.1:40576       GO         V4_4_0
172.17.0.1@1                         172.17.0.1:40577       GO         V4_4_0
10.0.0.7@orders@blue                 10.0.0.7:40606         GO         V4_4_0
10.0.0.7@4242                        10.0.0.7:40607         GO         V4_4_0
10.0.0.8@1696#2059858770195          10.0.0.8:40610         JAVA       V4_9_8

Below is subscription:
#Topic               #SubExpression
T                    *

ConsumeType: {consume_type}
MessageModel: CLUSTERING
"""


def test_go_connections_are_go_processes_named_as_the_go_client_names_them():
    """Language GO: rocketmq-client-go, whose ip@pid (pid 1 twice on docker0's address: the incident) or ip@name,
    @unit after, is written back as it was made; the version it reports is not its release; its pull consumer
    (CONSUME_ACTIVELY) rebalances as a push consumer; the group simulates with each process's own client's code."""
    consumer, problems = parse_consumer_connection(GO_CONNECTED.format(consume_type="CONSUME_ACTIVELY"), "g",
                                                   "consumerConnection-g.txt")
    assert not problems
    sets = live_instances(consumer)

    def plain(s):
        return {k: getattr(s, k).value for k in ("hosts", "count", "instance_name", "unit_name", "pid", "started_as",
                                                 "client_version", "client", "consumer") if getattr(s, k) is not None}

    assert [plain(s) for s in sets] == [
        {"hosts": ["172.17.0.1"], "count": 2, "pid": 1, "client": "go"},
        {"hosts": ["10.0.0.7"], "count": 1, "started_as": "4242", "client": "go"},
        {"hosts": ["10.0.0.7"], "count": 1, "instance_name": "orders", "unit_name": "blue", "client": "go"},
        {"hosts": ["10.0.0.8"], "count": 1, "started_as": "1696#2059858770195", "client_version": "4.9.8",
         "consumer": "lite_pull"},
    ]
    group = PlannedGroup(Sourced("g", "x"), Sourced("clustering", "x"), Sourced("CONSISTENT_HASH", "x"),
                         [PlannedSubscription("T", "*", Sourced("", "x"))], sets)
    text = write_fleet(PlannedFleet(*cluster_entries(ClusterSnapshot()), [group])).replace(
        '[[groups]]', '[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 8\n\n[[groups]]', 1)
    fleet = parse_fleet_text(text, "fleet.toml")
    processes = group_processes(fleet.groups[0])
    assert [(p.client_id, p.client) for p in processes] == [
        ("172.17.0.1@1", "go"), ("172.17.0.1@1", "go"), ("10.0.0.7@4242", "go"), ("10.0.0.7@orders@blue", "go"),
        ("10.0.0.8@1696#2059858770195@STREAM", "java")]
    found = {f.code for f in find(simulate(fleet))}
    assert {"PLAN001", "PLAN002", "PLAN009"} <= found

"""fleet.toml written with provenance comments -> read back by the fleet parser as the same fleet."""

from __future__ import annotations

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.fleet import parse_fleet_text
from planner.fleet_writer import (
    PlannedBroker,
    PlannedFleet,
    PlannedGroup,
    PlannedInstances,
    PlannedSubscription,
    PlannedTopic,
    Sourced,
    save_fleet,
    toml_string,
    write_fleet,
)


def _example() -> PlannedFleet:
    return PlannedFleet(
        header=["written by rmqplan fleet", "edit freely"],
        client_version=Sourced("4.9.4", "pom.xml:18"),
        brokers=[PlannedBroker(Sourced("broker-a", "cluster/clusterList.txt:2")),
                 PlannedBroker(Sourced("broker-b", "cluster/clusterList.txt:4"), Sourced("r", "route perm 4"))],
        topics=[PlannedTopic(Sourced("OrderEvents", "cluster/topicRoute-OrderEvents.json"),
                             Sourced({"broker-a": 8, "broker-b": 4}, "cluster/topicRoute-OrderEvents.json:21"),
                             Sourced({"broker-a": 8, "broker-b": 6}, "cluster/topicRoute-OrderEvents.json:23"))],
        groups=[PlannedGroup(
            name=Sourced("orders_cg", "OrderConsumer.java:8"),
            model=Sourced.unknown("clustering", "no setMessageModel: the client default"),
            strategy=Sourced.unknown("AVG", "no setAllocateMessageQueueStrategy: the client default"),
            subscriptions=[PlannedSubscription("OrderEvents", 'created || "paid"',
                                               Sourced("", "OrderConsumer.java:13"))],
            instances=[PlannedInstances(
                hosts=Sourced(["orders-node-1"], "deploy/orders.yaml:18 hostNetwork: all replicas on one node"),
                count=Sourced(3, "deploy/orders.yaml:9"),
                instance_name=Sourced("orders-node", "OrderConsumer.java:18"),
                pid=Sourced.unknown(1, "a container: the JVM is pid 1"),
                note="service orders (Deployment orders)")],
            note="module services/orders")],
    )


def test_every_value_has_its_comment_and_the_fleet_loads():
    text = write_fleet(_example())
    for line in text.splitlines():
        if " = " in line and not line.startswith(("version", "#", "subscriptions")):
            assert "  # " in line, line
    assert 'strategy = "AVG"  # unknown: no setAllocateMessageQueueStrategy: the client default' in text
    assert 'count = 3  # deploy/orders.yaml:9' in text
    fleet = parse_fleet_text(text, "fleet.toml")
    (group,) = fleet.groups
    assert group.name == "orders_cg" and group.subscriptions[0].expression == 'created || "paid"'
    (instances,) = group.instances
    assert (instances.hosts, instances.count, instances.instance_name, instances.pid,
            instances.client_version) == (("orders-node-1",), 3, "orders-node", 1, "4.9.4")
    topic = fleet.topics[0]
    assert topic.read_queues == {"broker-a": 8, "broker-b": 4} and topic.write_queues["broker-b"] == 6
    assert [(b.name, b.readable, b.writable) for b in fleet.brokers] == [("broker-a", True, True),
                                                                         ("broker-b", True, False)]


def test_save_is_atomic(tmp_path):
    target = tmp_path / "fleet.toml"
    target.write_text("old")
    bad = _example()
    bad.brokers[0] = PlannedBroker(Sourced(object(), "x"))  # no TOML form: the write fails
    try:
        save_fleet(bad, str(target))
    except TypeError:
        pass
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]
    save_fleet(_example(), str(target))
    assert parse_fleet_text(target.read_text(), "fleet.toml").groups[0].name == "orders_cg"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_string_survives_toml(text):
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    assert tomllib.loads(f"x = {toml_string(text)}")["x"] == expected


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda s: s.strip() != "")
comments = st.text(max_size=40)


@st.composite
def planned_fleets(draw):
    broker_names = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    topic_names = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    brokers = [PlannedBroker(Sourced(b, draw(comments))) for b in broker_names]
    topics = [PlannedTopic(Sourced(t, draw(comments)), Sourced(draw(st.integers(1, 16)), draw(comments)))
              for t in topic_names]
    groups = []
    for g in draw(st.lists(names, min_size=1, max_size=3, unique=True)):
        subs = [PlannedSubscription(t, draw(st.sampled_from(["*", "a || b", draw(names)])),
                                    Sourced("", draw(comments)))
                for t in draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True))]
        instances = [PlannedInstances(
            hosts=Sourced(draw(st.lists(names, min_size=1, max_size=3, unique=True)), draw(comments)),
            count=Sourced(draw(st.integers(1, 4)), draw(comments)),
            instance_name=draw(st.none() | names.map(lambda n: Sourced(n, "code"))),
            pid=draw(st.none() | st.integers(1, 99999).map(lambda p: Sourced.unknown(p, "container"))),
            note=draw(comments)) for _ in range(draw(st.integers(1, 2)))]
        groups.append(PlannedGroup(Sourced(g, draw(comments)),
                                   Sourced(draw(st.sampled_from(["clustering", "broadcasting"])), draw(comments)),
                                   Sourced(draw(st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"])),
                                           draw(comments)),
                                   subs, instances, note=draw(comments)))
    return PlannedFleet(brokers, topics, groups, header=[draw(comments)])


@settings(max_examples=150, deadline=None)
@given(planned_fleets())
def test_written_fleets_read_back_the_same(planned):
    fleet = parse_fleet_text(write_fleet(planned), "fleet.toml")
    assert [b.name for b in fleet.brokers] == [b.name.value for b in planned.brokers]
    assert [(t.name, set(t.read_queues.values())) for t in fleet.topics] == [
        (t.name.value, {t.read_queues.value}) for t in planned.topics]
    for group, want in zip(fleet.groups, planned.groups, strict=True):
        assert (group.name, group.model, group.strategy.name) == (want.name.value, want.model.value,
                                                                  want.strategy.value)
        assert [(s.topic, s.expression) for s in group.subscriptions] == [
            (s.topic, s.expression) for s in want.subscriptions]
        for inst, w in zip(group.instances, want.instances, strict=True):
            assert inst.hosts == tuple(w.hosts.value) and inst.count == w.count.value
            expected_name = w.instance_name.value if w.instance_name else None
            assert inst.instance_name == (None if expected_name == "DEFAULT" else expected_name)
            assert inst.pid == (w.pid.value if w.pid else None)

"""fleet.toml written with provenance comments -> read back by the fleet parser as the same fleet."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.sources.fleet_file import FleetError, load_fleet, parse_fleet_text
from rmqplan.sources.fleet_writer import (
    PlannedBroker,
    PlannedFleet,
    PlannedGroup,
    PlannedInstances,
    PlannedSubscription,
    PlannedTopic,
    Sourced,
    fleet_document,
    save_fleet,
    toml_string,
    write_fleet,
)
from rmqplan.sources.origin import Origin


def _example() -> PlannedFleet:
    return PlannedFleet(
        header=["written by rmqplan fleet", "edit freely"],
        client_version=Sourced.at("4.9.4", Origin("pom.xml", 18)),
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
    assert 'client_version = "4.9.4"  # pom.xml:18' in text
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


def test_strategy_parameters_and_overrides_are_written():
    planned = _example()
    group = planned.groups[0]
    group.strategy = Sourced("CONSISTENT_HASH", "OrderConsumer.java:15")
    group.params = {"virtual_nodes": Sourced(20, "OrderConsumer.java:15")}
    group.instances.append(PlannedInstances(
        hosts=Sourced(["10.0.0.9"], "consumerConnection-orders_cg.txt:5"),
        strategy=Sourced("CONFIG", "old release"),
        params={"queues": Sourced([["OrderEvents", "broker-a", 0]], "old release")},
        subscriptions=[PlannedSubscription("OrderEvents", "*", Sourced("", "old release"))]))
    text = write_fleet(planned)
    assert tomllib.loads(text) == fleet_document(planned)
    fleet = parse_fleet_text(text, "fleet.toml")
    (group,) = fleet.groups
    assert (group.strategy.name, group.strategy.virtual_nodes) == ("CONSISTENT_HASH", 20)
    override = group.instances[1]
    assert override.strategy.name == "CONFIG" and override.strategy.config_queues[0].queue_id == 0
    assert [s.expression for s in override.subscriptions] == ["*"]


def test_save_checks_the_fleet_and_is_atomic(tmp_path):
    target = tmp_path / "fleet.toml"
    target.write_text("old")
    bad = _example()
    bad.brokers[0] = PlannedBroker(Sourced(object(), "x"))  # no TOML form: the write fails
    with pytest.raises(TypeError):
        save_fleet(bad, target)
    rejected = _example()
    rejected.groups[0].subscriptions[0].topic = "NoSuchTopic"  # simulate would reject it: nothing written
    with pytest.raises(FleetError, match='unknown topic "NoSuchTopic"'):
        save_fleet(rejected, target)
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]
    fleet = save_fleet(_example(), target)
    assert load_fleet(target) == fleet and fleet.groups[0].name == "orders_cg"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_string_survives_toml(text):
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    assert tomllib.loads(f"x = {toml_string(text)}")["x"] == expected


# --- any fleet the parser takes is written and read back the same ---------------------------------------------

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda s: s.strip() != "")
comments = st.text(max_size=40)
versions = st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.integers(3, 5), st.integers(0, 9), st.integers(0, 9))
perms = st.sampled_from(["rw", "r", "w", ""])


def _sourced(value, draw):
    return Sourced(value, draw(comments)) if draw(st.booleans()) else Sourced.unknown(value, draw(comments))


@st.composite
def strategies(draw, topics: list, brokers: list):
    """(strategy, params) the parser takes."""
    name = draw(st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM",
                                 "MACHINE_ROOM_NEARBY", "AllocateMessageQueueAveragely"]))
    params = {}
    if name == "CONSISTENT_HASH" and draw(st.booleans()):
        params["virtual_nodes"] = _sourced(draw(st.integers(0, 50)), draw)
    if name == "MACHINE_ROOM":
        params["consumer_idcs"] = _sourced(draw(st.lists(names, min_size=1, max_size=3)), draw)
    if name == "MACHINE_ROOM_NEARBY" and draw(st.booleans()):
        params["nearby"] = _sourced(draw(st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"])), draw)
    if name == "CONFIG":
        params["queues"] = _sourced(draw(st.lists(st.tuples(st.sampled_from(topics), st.sampled_from(brokers),
                                                            st.integers(0, 8)).map(list), max_size=4)), draw)
    return _sourced(name, draw), params


@st.composite
def subscriptions(draw, topics: list):
    chosen = draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
    return [PlannedSubscription(t, draw(st.sampled_from(["*", "a || b", "TagA ", ""]) | names),
                                Sourced("", draw(comments))) for t in chosen]


@st.composite
def planned_fleets(draw):
    broker_names = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    topic_names = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    brokers = [PlannedBroker(_sourced(b, draw), draw(st.none() | perms.map(lambda p: _sourced(p, draw))),
                             draw(st.none() | names.map(lambda r: _sourced(r, draw)))) for b in broker_names]
    topics = []
    for t in topic_names:
        on = draw(st.lists(st.sampled_from(broker_names), min_size=1, unique=True))
        if draw(st.booleans()):
            read = {b: draw(st.integers(0, 16)) for b in on}
            write = draw(st.none() | st.just({b: draw(st.integers(0, 16)) for b in on}))
            listed = None
        else:
            read, write = draw(st.integers(0, 16)), draw(st.none() | st.integers(0, 16))
            listed = draw(st.none() | st.just(on))
        topics.append(PlannedTopic(_sourced(t, draw), _sourced(read, draw),
                                   None if write is None else _sourced(write, draw),
                                   None if listed is None else _sourced(listed, draw),
                                   draw(st.none() | perms.map(lambda p: _sourced(p, draw)))))
    groups = []
    for g in draw(st.lists(names, min_size=1, max_size=3, unique=True)):
        strategy, params = draw(strategies(topic_names, broker_names))
        instances = []
        for _ in range(draw(st.integers(1, 3))):  # a group has at least one instance set
            override, override_params = draw(st.none() | strategies(topic_names, broker_names)) or (None, {})
            instances.append(PlannedInstances(
                hosts=_sourced(draw(st.lists(names, min_size=1, max_size=3)), draw),
                count=draw(st.none() | st.integers(1, 4).map(lambda n: _sourced(n, draw))),
                instance_name=draw(st.none() | names.map(lambda n: _sourced(n, draw))),
                unit_name=draw(st.none() | st.text(max_size=5).map(lambda n: _sourced(n, draw))),
                pid=draw(st.none() | st.integers(1, 99999).map(lambda p: _sourced(p, draw))),
                client_version=draw(st.none() | versions.map(lambda v: _sourced(v, draw))),
                client=draw(st.none() | st.sampled_from(["java", "cpp"]).map(lambda c: _sourced(c, draw))),
                room=draw(st.none() | names.map(lambda r: _sourced(r, draw))),
                strategy=override, params=override_params,
                subscriptions=draw(st.none() | subscriptions(topic_names)),
                note=draw(comments)))
        groups.append(PlannedGroup(_sourced(g, draw),
                                   _sourced(draw(st.sampled_from(["clustering", "broadcasting"])), draw),
                                   strategy, draw(subscriptions(topic_names)), instances, params,
                                   note=draw(comments)))
    return PlannedFleet(brokers, topics, groups, header=[draw(comments)],
                        client_version=draw(st.none() | versions.map(lambda v: _sourced(v, draw))))


@settings(max_examples=200, deadline=None)
@given(planned_fleets())
def test_written_fleets_read_back_the_same(planned):
    text = write_fleet(planned)
    # every value the description holds, and nothing else
    assert tomllib.loads(text) == fleet_document(planned)
    # and the fleet parser takes it as it is
    fleet = parse_fleet_text(text, "fleet.toml")
    assert [(b.name, b.room) for b in fleet.brokers] == [
        (b.name.value, b.room.value if b.room and b.room.value else None) for b in planned.brokers]
    for topic, want in zip(fleet.topics, planned.topics, strict=True):
        read = want.read_queues.value
        assert topic.name == want.name.value
        assert set(topic.read_queues.values()) == (set(read.values()) if isinstance(read, dict) else {read})
    default_version = planned.client_version.value if planned.client_version else "4.9.8"
    for group, want in zip(fleet.groups, planned.groups, strict=True):
        assert (group.name, group.model) == (want.name.value, want.model.value)
        assert [(s.topic, s.expression) for s in group.subscriptions] == [
            (s.topic, s.expression) for s in want.subscriptions]
        for inst, w in zip(group.instances, want.instances, strict=True):
            assert inst.hosts == tuple(w.hosts.value) and inst.count == (w.count.value if w.count else 1)
            expected_name = w.instance_name.value if w.instance_name else None
            assert inst.instance_name == (None if expected_name == "DEFAULT" else expected_name)
            assert inst.pid == (w.pid.value if w.pid else None)
            assert inst.client_version == (w.client_version.value if w.client_version else default_version)
            assert inst.client == (w.client.value if w.client else "java")
            assert (inst.strategy is None) == (w.strategy is None and not w.params)


@settings(max_examples=100, deadline=None)
@given(planned_fleets())
def test_every_written_value_line_carries_its_comment(planned):
    for line in write_fleet(planned).split("\n"):  # TOML's lines (a name may hold U+0085 or U+2028)
        if line and not line.startswith(("#", "[", "version = ", "subscriptions = [", "]")):
            assert "  # " in line, line

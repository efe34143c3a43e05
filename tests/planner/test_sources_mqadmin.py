"""Saved mqadmin outputs -> brokers, queues, permissions and connected client ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sources import relaxed_json
from planner.sources.mqadmin import (
    parse_cluster_list,
    parse_consumer_connection,
    parse_topic_route,
    read_cluster_dir,
    version_from_name,
)

CLUSTER = Path(__file__).parent / "fixtures" / "shop" / "cluster"


def test_a_saved_cluster_directory_gives_routes_brokers_and_connections():
    snap = read_cluster_dir(CLUSTER)
    assert snap.problems == []
    assert sorted(snap.routes) == ["OrderEvents", "PaymentEvents"]
    orders = snap.routes["OrderEvents"]
    assert [(q.broker, q.read_queues, q.write_queues, q.perm) for q in orders.queues] == [
        ("broker-a", 8, 8, 6), ("broker-b", 8, 8, 6)]
    assert orders.brokers[0].addresses == {0: "10.1.0.11:10911", 1: "10.1.0.12:10911"}
    assert orders.brokers[0].cluster == "ShopCluster"
    # the older spelling topicSynFlag does not matter; write > read is kept as printed
    payment = snap.routes["PaymentEvents"].queues[0]
    assert (payment.read_queues, payment.write_queues) == (4, 6)
    assert [(b.name, b.broker_id, b.address, b.version) for b in snap.brokers] == [
        ("broker-a", 0, "10.1.0.11:10911", "V5_1_4"),
        ("broker-a", 1, "10.1.0.12:10911", "V5_1_4"),
        ("broker-b", 0, "10.1.0.21:10911", "V5_1_4")]


def test_route_values_name_the_line_they_were_read_from():
    text = (CLUSTER / "topicRoute-OrderEvents.json").read_text()
    route, _ = parse_topic_route(text, "OrderEvents", "r.json")
    line = route.queues[1].origin.line
    assert '"readQueueNums":8' in text.splitlines()[line - 1]
    assert route.queues[1].broker == "broker-b"


def test_consumer_connection_current_form():
    snap = read_cluster_dir(CLUSTER)
    cc = snap.consumers["orders_cg"]
    assert [c.client_id for c in cc.connections] == ["10.2.0.5@orders-node"] * 3
    assert {c.version for c in cc.connections} == {"4.9.4"}
    assert cc.connections[0].ip == "10.2.0.5" and cc.connections[0].instance_name == "orders-node"
    assert [(s.topic, s.expression, s.retry) for s in cc.subscriptions] == [
        ("OrderEvents", "created || paid", False), ("%RETRY%orders_cg", "*", True)]
    assert (cc.consume_type, cc.message_model) == ("CONSUME_PASSIVELY", "CLUSTERING")
    assert cc.message_model_origin.line == 12


def test_consumer_connection_old_numbered_form():
    cc = read_cluster_dir(CLUSTER).consumers["audit_cg"]
    assert [(c.client_id, c.address, c.language, c.version) for c in cc.connections] == [
        ("10.2.0.7@1", "10.2.0.7:40112", "JAVA", "4.5.1"), ("10.2.0.8@1", "10.2.0.8:40113", "JAVA", "4.5.1")]
    assert [(s.topic, s.expression) for s in cc.subscriptions] == [
        ("OrderEvents", "*"), ("%RETRY%audit_cg", "*")]
    assert cc.message_model == "CLUSTERING"


def test_route_list_form():
    text = (
        "#ClusterName                                  #BrokerName                      #BrokerAddrs"
        "                                       #ReadQueue #WriteQueue #Perm\n"
        "DefaultCluster                                broker-a                         "
        "{0=10.0.0.1:10911, 1=10.0.0.2:10911}               4          4           6    \n"
        "DefaultCluster                                broker-b                         "
        "{0=10.0.0.3:10911}                                 4          2           4    \n"
        + "-" * 158 + "\n"
        "Total:                                        2                                "
        "                                                   8          6                \n"
    )
    route, problems = parse_topic_route(text, "T", "t")
    assert problems == []
    assert [(q.broker, q.read_queues, q.write_queues, q.perm, q.readable, q.writable) for q in route.queues] == [
        ("broker-a", 4, 4, 6, True, True), ("broker-b", 4, 2, 4, True, False)]
    assert route.brokers[0].addresses == {0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}


def test_versions():
    assert version_from_name("V4_9_4") == "4.9.4"
    assert version_from_name("V5_0_0_SNAPSHOT") == "5.0.0-SNAPSHOT"
    assert version_from_name("HIGHER_VERSION") is None


@pytest.mark.parametrize("text, fragment", [
    ("", "unexpected end"),
    ('{"queueDatas":[{"brokerName":"a","perm":6,"readQueueNums":-1,"writeQueueNums":1}]}', "readQueueNums"),
    ('{"queueDatas":[{"perm":6}]}', "no brokerName"),
    ('{"brokerDatas":[]}', "no `queueDatas`"),
    ('{"queueDatas":[', "unexpected end"),
    ("[1, 2]", "no `queueDatas`"),
])
def test_broken_routes_are_one_line_each(text, fragment):
    route, problems = parse_topic_route(text, "T", "topicRoute-T.json")
    assert problems and all("topicRoute-T.json:" in str(p) for p in problems)
    assert any(fragment in p.message for p in problems)


def test_a_directory_of_bad_files_reports_each_and_goes_on(tmp_path):
    (tmp_path / "topicRoute-A.json").write_bytes(b"\x00\x01binary")
    (tmp_path / "topicRoute-B.json").write_bytes('{"queueDatas":[]}\n\xe4'.encode("latin-1"))
    (tmp_path / "clusterList.txt").write_text("#Cluster Name  #Broker Name  #InTotalYest\nc b 1 2 3 4\n")
    (tmp_path / "consumerConnection-g.txt").write_text("hello world\n")
    (tmp_path / "topicRoute-C.json").write_text((CLUSTER / "topicRoute-OrderEvents.json").read_text())
    (tmp_path / "notes.md").write_text("ignored")
    snap = read_cluster_dir(tmp_path)
    assert list(snap.routes) == ["C"]
    messages = [str(p) for p in snap.problems]
    assert len(messages) == 4, messages
    assert any("binary" in m for m in messages)
    assert any("not UTF-8" in m and ":2:" in m for m in messages)
    assert any("-m form" in m for m in messages)
    assert any("not a consumerConnection" in m for m in messages)


def test_a_missing_directory_is_a_problem_not_a_crash(tmp_path):
    snap = read_cluster_dir(tmp_path / "nope")
    assert len(snap.problems) == 1 and "cannot list" in snap.problems[0].message


def test_cluster_list_header_is_required():
    brokers, problems = parse_cluster_list("c b 0 1.2.3.4:10911 V5_1_4\n", "clusterList.txt")
    assert brokers == [] and "no `#Cluster Name` header" in problems[0].message


# --- the relaxed JSON parser ----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values, st.booleans())
def test_strict_json_parses_as_json_does(value, pretty):
    text = json.dumps(value, indent="\t" if pretty else None)
    assert relaxed_json.parse(text) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_or_fails_with_a_position(text):
    try:
        relaxed_json.parse(text)
    except relaxed_json.RelaxedJsonError as err:
        assert err.line >= 1 and err.column >= 1


def test_fastjson_bare_keys_and_lines():
    obj = relaxed_json.parse('{\n\t"a":{0:"x:1",1:"y:2"},\n\tb:\'q\',\n}')
    assert obj == {"a": {"0": "x:1", "1": "y:2"}, "b": "q"}
    assert obj.lines == {"a": 2, "b": 3}


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(relaxed_json.RelaxedJsonError, match="nested more than"):
        relaxed_json.parse("[" * 5000)

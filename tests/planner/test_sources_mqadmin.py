"""Saved mqadmin outputs -> brokers, queues, permissions and connected client ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.sources import relaxed_json
from rmqplan.sources.mqadmin import (
    parse_cluster_list,
    parse_consumer_connection,
    parse_topic_route,
    read_cluster_dir,
    version_from_name,
)
from tests.planner.mqadmin_print import cluster_list, consumer_connection, topic_route_json, topic_route_list

CLUSTER = Path(__file__).parent / "fixtures" / "shop" / "cluster"


@pytest.fixture(scope="module")
def snap():
    return read_cluster_dir(CLUSTER)


def test_a_saved_cluster_directory_gives_routes_brokers_and_connections(snap):
    assert snap.problems == []
    assert sorted(snap.routes) == ["OrderEvents", "PaymentEvents"]
    orders = snap.routes["OrderEvents"]
    assert [(q.broker, q.read_queues, q.write_queues, q.perm) for q in orders.queues] == [
        ("broker-a", 8, 8, 6), ("broker-b", 8, 8, 6)]
    assert orders.brokers[0].addresses == {0: "10.1.0.11:10911", 1: "10.1.0.12:10911"}
    assert orders.brokers[0].cluster == "ShopCluster"
    # an older broker (topicSynFlag), log lines before the JSON; write > read is kept as printed
    payment = snap.routes["PaymentEvents"].queues[0]
    assert (payment.read_queues, payment.write_queues) == (4, 6)
    assert [(b.name, b.broker_id, b.address, b.version) for b in snap.brokers] == [
        ("broker-a", 0, "10.1.0.11:10911", "V5_1_4"),
        ("broker-a", 1, "10.1.0.12:10911", ""),  # did not answer mqadmin: no version, still a broker
        ("broker-b", 0, "10.1.0.21:10911", "V5_1_4")]


def test_route_values_name_the_line_they_were_read_from(snap):
    for topic in ("OrderEvents", "PaymentEvents"):
        rows = (CLUSTER / f"topicRoute-{topic}.json").read_text().splitlines()
        for queues in snap.routes[topic].queues:
            assert rows[queues.origin.line - 1].strip() == f'"readQueueNums":{queues.read_queues},'
        for broker in snap.routes[topic].brokers:
            assert rows[broker.origin.line - 1].strip() == f'"brokerName":"{broker.name}",'


def test_errors_saved_instead_of_outputs_are_facts(snap):
    """A topic the name server does not know, a group that is not online: what mqadmin said, at its line."""
    assert snap.missing_topics["RefundEvents"].line == 5
    billing = snap.consumers["billing_cg"]
    assert billing.not_online and billing.connections == [] and billing.origin.line == 5


def test_consumer_connection_current_form(snap):
    cc = snap.consumers["orders_cg"]
    assert cc.client_ids == ["10.2.0.5@orders-node"] * 3
    assert {(c.version, c.version_name) for c in cc.connections} == {("4.9.4", "V4_9_4")}
    assert cc.connections[0].ip == "10.2.0.5" and cc.connections[0].instance_name == "orders-node"
    assert [(s.topic, s.expression, s.retry) for s in cc.subscriptions] == [
        ("OrderEvents", "created || paid", False), ("%RETRY%orders_cg", "*", True)]
    assert (cc.consume_type, cc.message_model, cc.not_online) == ("CONSUME_PASSIVELY", "CLUSTERING", False)
    assert cc.message_model_origin.line == 12


def test_consumer_connection_old_numbered_form(snap):
    cc = snap.consumers["audit_cg"]
    assert [(c.client_id, c.address, c.language, c.version) for c in cc.connections] == [
        ("10.2.0.7@1", "10.2.0.7:40112", "JAVA", "4.5.1"), ("10.2.0.8@1", "10.2.0.8:40113", "JAVA", "4.5.1")]
    assert [(s.topic, s.expression) for s in cc.subscriptions] == [
        ("OrderEvents", "*"), ("%RETRY%audit_cg", "*")]
    assert cc.message_model == "CLUSTERING"


def test_a_client_id_with_spaces_and_log_lines_before_the_table():
    text = ("RocketMQLog:WARN No appenders could be found for logger (io.netty.util.internal.PlatformDependent0).\n"
            + consumer_connection([("10.0.0.1@order consumer", "10.0.0.1:5000", "JAVA", "V4_9_8"),
                                   ("10.0.0.2@77#1234", "10.0.0.2:5000", "CPP", "V4_9_8")],
                                  [("T", "a || b")], "CONSUME_PASSIVELY", "BROADCASTING"))
    cc, problems = parse_consumer_connection(text, "g", "c.txt")
    assert problems == []
    assert [(c.client_id, c.instance_name, c.language) for c in cc.connections] == [
        ("10.0.0.1@order consumer", "order consumer", "JAVA"), ("10.0.0.2@77#1234", "77#1234", "CPP")]
    assert cc.connections[0].origin.line == 3 and cc.message_model == "BROADCASTING"


def test_route_list_form():
    brokers = [{"name": "broker-a", "cluster": "DefaultCluster", "addrs": {0: "10.0.0.1:10911", 1: "10.0.0.2:10911"},
                "read": 4, "write": 4, "perm": 6},
               {"name": "broker-b", "cluster": "DefaultCluster", "addrs": {0: "10.0.0.3:10911"},
                "read": 4, "write": 2, "perm": 4}]
    route, problems = parse_topic_route(topic_route_list(brokers), "T", "t")
    assert problems == []
    assert [(q.broker, q.read_queues, q.write_queues, q.perm, q.readable, q.writable) for q in route.queues] == [
        ("broker-a", 4, 4, 6, True, True), ("broker-b", 4, 2, 4, True, False)]
    assert route.brokers[0].addresses == {0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}


def test_versions():
    assert version_from_name("V4_9_4") == "4.9.4"
    assert version_from_name("V5_0_0_SNAPSHOT") == "5.0.0-SNAPSHOT"
    assert version_from_name("HIGHER_VERSION") is None


@pytest.mark.parametrize("text, fragment", [
    ("", "empty: the command printed nothing"),
    ('{"queueDatas":[{"brokerName":"a","perm":6,"readQueueNums":-1,"writeQueueNums":1}]}', "readQueueNums"),
    ('{"queueDatas":[{"perm":6}]}', "no brokerName"),
    ('{"brokerDatas":[]}', "no `queueDatas`"),
    ('{"queueDatas":[', "unexpected end"),
    ("[1, 2]", "not a topicRoute output"),
    ("java.lang.RuntimeException: connect to null failed\n\tat x\n", "mqadmin failed: java.lang.RuntimeException"),
])
def test_broken_routes_are_one_line_each(text, fragment):
    route, problems = parse_topic_route(text, "T", "topicRoute-T.json")
    assert problems and all("topicRoute-T.json:" in str(p) for p in problems)
    assert any(fragment in p.message for p in problems), problems


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


def test_saved_routes_are_held_to_the_live_reads_limits(tmp_path):
    """A cluster folder committed to a repository is input nobody vetted: a 2 KB route claiming 65,536 queues on
    each of 200 brokers, or a route of a million empty values, is one line, not gigabytes of queues."""
    claims = {"queueDatas": [{"brokerName": f"b{i}", "readQueueNums": 65536, "writeQueueNums": 65536, "perm": 6}
                             for i in range(200)], "brokerDatas": []}
    (tmp_path / "topicRoute-Huge.json").write_text(json.dumps(claims))
    (tmp_path / "topicRoute-Wide.json").write_text('{"queueDatas": [' + ",".join(["{}"] * 1_000_000) + "]}")
    (tmp_path / "topicRoute-C.json").write_text((CLUSTER / "topicRoute-OrderEvents.json").read_text())
    snap = read_cluster_dir(tmp_path)
    assert list(snap.routes) == ["C"]
    messages = sorted(str(p) for p in snap.problems)
    assert len(messages) == 2, messages
    assert "topicRoute-Huge.json:1: route of topic Huge claims 65,536 queues on broker b0, more than the limit" \
        in messages[0]
    assert "topicRoute-Wide.json:1: holds more than" in messages[1]


def test_windows_encodings_and_misnamed_files(tmp_path):
    text = (CLUSTER / "consumerConnection-orders_cg.txt").read_text()
    (tmp_path / "consumerConnection-a.txt").write_bytes(text.encode("utf-16"))  # PowerShell's `>`
    (tmp_path / "consumerConnection-b.txt").write_bytes(text.replace("\n", "\r\n").encode("utf-8-sig"))
    (tmp_path / "topicRoute_OrderEvents.json").write_text("{}")
    (tmp_path / "ClusterList.log").write_text("")
    snap = read_cluster_dir(tmp_path)
    assert [snap.consumers[g].client_ids for g in "ab"] == [["10.2.0.5@orders-node"] * 3] * 2
    assert sorted(p.message for p in snap.problems) == [
        "not read: an mqadmin output must be named clusterList.txt",
        "not read: an mqadmin output must be named topicRoute-<Topic>.json"]


def test_a_missing_directory_is_a_problem_not_a_crash(tmp_path):
    snap = read_cluster_dir(tmp_path / "nope")
    assert len(snap.problems) == 1 and "cannot list" in snap.problems[0].message


def test_cluster_list_header_is_required():
    brokers, problems = parse_cluster_list("c b 0 1.2.3.4:10911 V5_1_4\n", "clusterList.txt")
    assert brokers == [] and "no `#Cluster Name` header" in problems[0].message


# --- printed the way mqadmin prints, read back ----------------------------------------------------------------------

names = st.text(st.sampled_from("abcxyz-_019AB%"), min_size=1, max_size=12)
addresses = st.builds(lambda a, b: f"10.{a}.{b}.1:10911", st.integers(0, 255), st.integers(0, 255))


@st.composite
def route_brokers(draw):
    brokers = []
    for name in draw(st.lists(names, min_size=1, max_size=4, unique=True)):
        brokers.append({"name": name, "cluster": draw(names),
                        "addrs": draw(st.dictionaries(st.integers(0, 3), addresses, min_size=1, max_size=3)),
                        "read": draw(st.integers(0, 256)), "write": draw(st.integers(0, 256)),
                        "perm": draw(st.sampled_from([0, 2, 4, 6, 7]))})
    return brokers


@settings(max_examples=150, deadline=None)
@given(route_brokers(), st.sampled_from(["json", "json-old", "list"]))
def test_printed_routes_read_back(brokers, form):
    text = topic_route_list(brokers) if form == "list" else topic_route_json(brokers, old_flag=form == "json-old")
    route, problems = parse_topic_route(text, "T", "t.json")
    assert problems == []
    got = {(q.broker, q.read_queues, q.write_queues, q.perm) for q in route.queues}
    assert got == {(b["name"], b["read"], b["write"], b["perm"]) for b in brokers}
    assert {b.name: b.addresses for b in route.brokers} == {b["name"]: b["addrs"] for b in brokers}
    for q in route.queues:
        assert q.readable == bool(q.perm & 4) and q.writable == bool(q.perm & 2)


versions = st.builds(lambda a, b, c: f"V{a}_{b}_{c}", st.integers(3, 5), st.integers(0, 9), st.integers(0, 9))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(names, st.integers(0, 2), addresses, versions | st.just("")), min_size=1, max_size=6))
def test_printed_cluster_lists_read_back(rows):
    rows = [{"cluster": c, "name": n, "id": i, "addr": a, "version": v} for c, i, a, v, n in
            [(r[0], r[1], r[2], r[3], r[0] + "-b") for r in rows]]
    brokers, problems = parse_cluster_list(cluster_list(rows), "clusterList.txt")
    assert problems == []
    assert [(b.cluster, b.name, b.broker_id, b.address, b.version) for b in brokers] == [
        (r["cluster"], r["name"], r["id"], r["addr"], r["version"]) for r in rows]


client_ids = st.builds(lambda ip, name: f"10.0.0.{ip}@{name}", st.integers(1, 254),
                       st.text(st.sampled_from("abc#12 -_"), min_size=1, max_size=10).map(str.strip).filter(bool))
expressions = st.sampled_from(["*", "a", "a || b", "TagA ||TagB", "x||y||z"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(client_ids, addresses, st.sampled_from(["JAVA", "CPP", "GO"]), versions), max_size=6),
       st.lists(st.tuples(names, expressions), min_size=1, max_size=4, unique_by=lambda s: s[0]),
       st.sampled_from(["CLUSTERING", "BROADCASTING"]), st.booleans())
def test_printed_consumer_connections_read_back(connections, subscriptions, model, old):
    text = consumer_connection(connections, subscriptions, "CONSUME_PASSIVELY", model, old=old)
    cc, problems = parse_consumer_connection(text, "g", "c.txt")
    assert problems == []
    # the table pads with spaces: a run of spaces inside a client id reads as one
    assert [(c.client_id, c.address, c.language, c.version_name) for c in cc.connections] == [
        (" ".join(cid.split()), a, lang, v) for cid, a, lang, v in connections]
    assert [(s.topic, s.expression) for s in cc.subscriptions] == subscriptions
    assert (cc.consume_type, cc.message_model) == ("CONSUME_PASSIVELY", model)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["route", "cluster", "consumer"]))
def test_any_text_reads_without_a_traceback(text, kind):
    if kind == "route":
        _, problems = parse_topic_route(text, "T", "t")
    elif kind == "cluster":
        _, problems = parse_cluster_list(text, "t")
    else:
        _, problems = parse_consumer_connection(text, "g", "t")
    assert all(p.origin.path == "t" and p.origin.line >= 1 and "\n" not in str(p) for p in problems)


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
    obj = relaxed_json.parse('{\n\t"a":{0:"x:1",1:"y:2"\n\t},\n\tb:\'q\',\n}')
    assert obj == {"a": {"0": "x:1", "1": "y:2"}, "b": "q"}
    assert obj.lines == {"a": 2, "b": 4}


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(relaxed_json.RelaxedJsonError, match="nested more than"):
        relaxed_json.parse("[" * 5000)

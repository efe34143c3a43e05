"""A group whose last consumer is gone: the brokers keep the offsets it committed, so every queue of those topics
is orphaned, with the messages behind on it (PLAN001, exit 1) in `status` and `fleet --namesrv`; a group never
consumed (no offset), a deleted one (no retry topic, as `mqadmin deleteSubGroup` leaves it) and the broker's own
groups stay quiet. Against `harness.fake_rocketmq.FakeCluster`, over the real protocol."""

from __future__ import annotations

import io
import json

import pytest

from rmqplan import cli
from rmqplan.model.fleet import Queue
from tests.planner.remoting_server import FakeCluster, FakeGroup


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.run([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def cluster():
    """Two brokers, topic Orders of 2 queues on each; group `orders` consumed it and its retry topic, then every
    consumer went away: 5 messages wait on each Orders queue, 1 on broker-0's retry queue. Group `live` is
    connected on topic Other."""
    c = FakeCluster(brokers=2, topic="Other", queues=1, group="live", clients=("10.0.0.9@1",))
    c.topics.update({"Orders": 2, "%RETRY%orders": 1})
    committed = {Queue("Orders", b, i): 10 for b in c.brokers for i in range(2)}
    committed.update({Queue("%RETRY%orders", b, 0): 0 for b in c.brokers})
    c.groups["orders"] = FakeGroup(clients=(), offsets=committed)
    c.written.update({q: n + 5 for q, n in committed.items() if q.topic == "Orders"})
    c.written[Queue("%RETRY%orders", "broker-0", 0)] = 1
    yield c
    c.close()


def test_status_reports_every_queue_of_a_group_with_nobody_connected_as_orphaned(cluster):
    code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0", "--format", "json")
    assert code == 1, err
    doc = json.loads(out)
    problems = {(p["group"], p["topic"]): p for p in doc["problems"]}
    orders = problems[("orders", "Orders")]
    assert orders["code"] == "PLAN001" and orders["backlog"] == 20
    assert sorted(map(tuple, orders["queues"])) == [("Orders", b, i) for b in ("broker-0", "broker-1")
                                                    for i in (0, 1)]
    assert orders["text"] == ("queues 0-1 (broker-0), 0-1 (broker-1) of Orders: 20 messages behind, consumed by "
                              "nobody: no consumer of the group is connected")
    assert problems[("orders", "%RETRY%orders")]["backlog"] == 1
    group = next(g for g in doc["groups"] if g["group"] == "orders")
    assert (group["connected"], group["client_ids"]) == (False, [])
    assert {t["topic"]: len(t["orphaned"]) for t in group["topics"]} == {"Orders": 4, "%RETRY%orders": 2}
    assert doc["finding_counts"]["PLAN001"] == 2
    assert [f["message"] for f in doc["findings"] if f["group"] == "orders"][0].startswith(
        "all 4 queues of Orders are consumed by no process of group orders (broker-0: 0, 1; broker-1: 0, 1): no "
        "consumer of the group is connected")
    assert not [p for p in doc["problems"] if p["group"] == "live"]


def test_status_text_and_one_group_named(cluster, tmp_path):
    page = tmp_path / "now.html"
    code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0", "--group", "orders",
                         "--html", page)
    assert code == 1 and err == "", err
    assert "0 consumer groups connected, 1 with none connected and offsets committed; problems now in 1: orders" in out
    assert "group orders: no consumer connected; offsets committed on 2 topics, never consumed" in out
    assert "    (nobody)  broker-0: 0, 1; broker-1: 0, 1  (20 behind)" in out
    assert ("  error   PLAN001 queues 0-1 (broker-0), 0-1 (broker-1) of Orders: 20 messages behind, consumed by "
            "nobody: no consumer of the group is connected") in out
    assert 'data-group="orders"' in page.read_text()


def test_fleet_of_the_connected_groups_says_the_disconnected_one_and_exits_1(cluster, tmp_path):
    out_file = tmp_path / "fleet.toml"
    code, out, err = run("fleet", "--namesrv", cluster.namesrv, "-o", out_file)
    assert code == 1
    assert "rmqplan: error PLAN001 all 4 queues of Orders are consumed by no process of group orders" in err
    assert 'name = "live"' in out_file.read_text() and '"orders"' not in out_file.read_text()


@pytest.mark.parametrize("how", ["never consumed", "deleted", "the broker's own"])
def test_groups_without_committed_offsets_or_retry_topic_or_of_the_broker_stay_quiet(cluster, how):
    if how == "never consumed":
        cluster.groups["orders"].offsets = {}
    elif how == "deleted":  # the group and its retry topic are gone; the offsets stay unless cleaned
        del cluster.topics["%RETRY%orders"]
    else:
        cluster.groups["CID_RMQ_SYS_TRANS"] = cluster.groups.pop("orders")
        cluster.topics["%RETRY%CID_RMQ_SYS_TRANS"] = cluster.topics.pop("%RETRY%orders")
    code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0")
    assert code == 0, out + err
    assert "no error-level problem" in out and "orders" not in out
    code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0", "--group", "orders")
    assert code == 0 and "rmqplan: group orders: no consumer of it is connected now, and it has no consume offset " \
                         "committed\n" == err


def test_the_second_read_confirms_nobody_consumes(cluster):
    code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0.1", "--format", "json")
    assert code == 1
    orders = next(p for p in json.loads(out)["problems"] if p["topic"] == "Orders")
    assert orders["verdicts"] == {"confirms": 4, "contradicts": 0, "silent": 0}
    assert "the group's offset stayed at 10 for 0.1 s with 5 behind, never consumed by this group" in orders["evidence"]

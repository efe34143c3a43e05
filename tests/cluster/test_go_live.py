"""rmqplan's Go model against real rocketmq-client-go v2.1.2 consumers (tests/cluster/go, built with `go`) on the live
RocketMQ: what `rmqplan fleet --namesrv` writes of the connected processes (language GO: `client = "go"`) and
`rmqplan simulate` predicts is what every consumer holds, queue for queue.

- go_pid1: three Go consumers with the default name, each pid 1 of a pid namespace of its own, on one address
  (the machine's first interface, as the Go client picks it): one client id, one share, the rest to nobody;
- go_avg: two Go and two Java (4.9.8) consumers with AVG: the codes agree, every queue held once;
- go_hash: two Go and two Java consumers with CONSISTENT_HASH (10 virtual nodes): the rings disagree, queues
  orphaned and doubled with unique client ids (PLAN009), exactly where predicted;
- go_room: three Go consumers with MACHINE_ROOM ("hz") over broker-a and a broker hz@broker-g: Go takes its
  block from all the queues, so they hold queues of broker-a, outside their room.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from tests.cluster.fleets import dump_toml, observed, predicted, rmqplan
from tests.cluster.go_consumers import GoConsumer, driver, go_unavailable
from tests.cluster.rocketmq import Consumer, stable_all

pytestmark = pytest.mark.cluster
TOPIC = "GoOrders"  # 8 queues on broker-a, 4 on broker-b
ROOM_TOPIC = "GoRooms"  # 4 queues on broker-a, 4 on ROOM_BROKER
ROOM_BROKER = "hz@broker-g"
GROUPS = ("go_pid1", "go_avg", "go_hash", "go_room")


@pytest.fixture(scope="module")
def running(cluster):
    why = go_unavailable()
    if why is not None:
        pytest.skip(why)
    driver()
    if ROOM_BROKER not in cluster.brokers:
        cluster.spawn_broker(ROOM_BROKER)
    cluster.update_topic(TOPIC, 8, broker="broker-a")
    cluster.update_topic(TOPIC, 4, broker="broker-b")
    # the retry topics as the brokers make them for a consumer (1 queue each), before the consumers start: a Go
    # consumer reads its routes at start and then every 30 s
    for group in GROUPS[:3]:
        cluster.update_topic(f"%RETRY%{group}", 1, broker="broker-a")
        cluster.update_topic(f"%RETRY%{group}", 1, broker="broker-b")
    sub = {TOPIC: "*"}
    hash_settings = {"strategy": "CONSISTENT_HASH", "vnodes": 10}
    consumers = {
        "go_pid1": [GoConsumer(cluster, group="go_pid1", subscriptions=sub, pid_namespace=True) for _ in range(3)],
        "go_avg": [GoConsumer(cluster, group="go_avg", subscriptions=sub) for _ in range(2)]
        + [Consumer(cluster, group="go_avg", subscriptions=sub, client="4.9.8", ip="127.0.0.1") for _ in range(2)],
        "go_hash": [GoConsumer(cluster, group="go_hash", subscriptions=sub, **hash_settings) for _ in range(2)]
        + [Consumer(cluster, group="go_hash", subscriptions=sub, client="4.9.8", ip="127.0.0.1", **hash_settings)
           for _ in range(2)],
    }
    try:
        cluster.wait_broker(ROOM_BROKER)
        cluster.update_topic(ROOM_TOPIC, 4, broker="broker-a")
        cluster.update_topic(ROOM_TOPIC, 4, broker=ROOM_BROKER)
        for broker in ("broker-a", ROOM_BROKER):
            cluster.update_topic("%RETRY%go_room", 1, broker=broker)
        consumers["go_room"] = [GoConsumer(cluster, group="go_room", subscriptions={ROOM_TOPIC: "*"},
                                           strategy="MACHINE_ROOM", idcs="hz") for _ in range(3)]
        everyone = [c for cs in consumers.values() for c in cs]
        answers = stable_all(everyone)
        states, i = {}, 0
        for group, cs in consumers.items():
            states[group] = answers[i:i + len(cs)]
            i += len(cs)
        yield states
    finally:
        for cs in consumers.values():
            for c in cs:
                c.stop()
        if cluster.brokers[ROOM_BROKER].proc is not None:
            cluster.stop_broker(ROOM_BROKER)


@pytest.fixture(scope="module")
def prediction(cluster, running, tmp_path_factory):
    """The fleet `rmqplan fleet --namesrv` writes of the connected groups (go_room's strategy and rooms added: the
    broker does not know them), and what `rmqplan simulate` predicts of it."""
    work = tmp_path_factory.mktemp("go-live")
    out = work / "fleet.toml"
    rmqplan("fleet", "--namesrv", cluster.namesrv, "--strategy", "go_hash=CONSISTENT_HASH:10", "-o", out, ok=(0,))
    doc = tomllib.loads(out.read_text())
    doc["groups"] = [g for g in doc["groups"] if g["name"] in GROUPS]
    for group in doc["groups"]:
        if group["name"] == "go_room":
            group["strategy"], group["consumer_idcs"] = "MACHINE_ROOM", ["hz"]
    out.write_text(dump_toml(doc))
    simulated = json.loads(rmqplan("simulate", "--fleet", out, "--format", "json", "--assignments").stdout)
    return doc, simulated


def _groups(simulated: dict, name: str) -> list[dict]:
    return [g for g in simulated["scenarios"][0]["groups"] if g["group"] == name]


@pytest.mark.parametrize("group", GROUPS)
def test_every_queue_is_held_by_the_processes_rmqplan_predicts(running, prediction, group):
    _, simulated = prediction
    assert predicted(_groups(simulated, group)) == observed({group: running[group]})


def test_go_processes_as_pid_1_on_one_address_share_one_client_id(running, prediction):
    ids = [a["client_id"] for a in running["go_pid1"]]
    assert len(set(ids)) == 1 and ids[0].endswith("@1")
    doc, simulated = prediction
    sets = next(g for g in doc["groups"] if g["name"] == "go_pid1")["instances"]
    assert [(s["client"], s["pid"], s["count"]) for s in sets] == [("go", 1, 3)]
    # a fleet written by hand from what is deployed (three Go containers on the address, pid 1) names them so
    from rmqplan.model.identity import group_processes
    from rmqplan.sources.fleet_file import parse_fleet_text

    host = ids[0].rsplit("@", 1)[0]
    fleet = parse_fleet_text(f'[[brokers]]\nname = "broker-a"\n[[topics]]\nname = "T"\nread_queues = 8\n'
                             f'[[groups]]\nname = "g"\nsubscriptions = [{{ topic = "T" }}]\n[[groups.instances]]\n'
                             f'hosts = ["{host}"]\ncount = 3\npid = 1\nclient = "go"\n', "fleet.toml")
    assert [p.client_id for p in group_processes(fleet.groups[0])] == ids
    topic = next(g for g in _groups(simulated, "go_pid1") if g["topic"] == TOPIC)
    assert len(topic["orphaned_queues"]) == 8 and len(topic["duplicated_queues"]) == 4


def test_go_and_java_average_alike(running, prediction):
    _, simulated = prediction
    assert not any(g["orphaned_queues"] or g["duplicated_queues"] for g in _groups(simulated, "go_avg"))
    held = observed({"go_avg": running["go_avg"]})
    assert all(len(holders) == 1 for holders in held.values()) and len(held) == 12 + 2


def test_go_and_java_rings_orphan_and_double_queues_with_unique_ids(running, prediction):
    ids = [a["client_id"] for a in running["go_hash"]]
    assert len(set(ids)) == 4
    held = observed({"go_hash": running["go_hash"]})
    topic_queues = {("go_hash", TOPIC, b, q) for b, n in (("broker-a", 8), ("broker-b", 4)) for q in range(n)}
    orphaned = topic_queues - set(held)
    doubled = {k for k in topic_queues if len(held.get(k, ())) > 1}
    assert orphaned or doubled
    _, simulated = prediction
    findings = [f for f in simulated["findings"] if f["group"] == "go_hash" and f["topic"] == TOPIC]
    plan009 = next(f for f in findings if f["code"] == "PLAN009")
    assert {(TOPIC, b, q) for _, b, q in plan009["queues"]} == {k[1:] for k in orphaned | doubled}


def test_go_machine_room_takes_queues_outside_its_room(running):
    held = observed({"go_room": running["go_room"]})
    assert any(k[1] == ROOM_TOPIC and k[2] == "broker-a" for k in held)

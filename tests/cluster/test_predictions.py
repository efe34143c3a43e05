"""rmqplan's predictions against a running RocketMQ: the holders of every queue the consumers hold once the
rebalance is stable are what `rmqplan simulate` predicts for the fleet that `rmqplan fleet` writes from the code
and from mqadmin outputs saved from this same cluster."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.cluster.fleets import (GroupCode, connected_ids, dump_toml, observed, predicted, rmqplan, save_outputs,
                                  write_code)
from tests.cluster.shapes import (BASELINE, BROKER_ROOMS, CLIENT_ROOMS, OTHER, ROOM_BROKER, ROOM_TOPIC, RUN_TIME,
                                  TOPIC)
from tests.cluster.rocketmq import Consumer, connection_ids, stable_all

pytestmark = pytest.mark.cluster
RECORDED = Path(__file__).parent / "recorded"

def _start(cluster, code: GroupCode, processes: list[dict]) -> list[Consumer]:
    out = []
    for settings in processes:
        settings = dict(settings)
        pid_namespace = settings.pop("pid_namespace", False)
        settings.setdefault("ip", "127.0.0.1")
        strategy_params = {"vnodes": code.virtual_nodes} if code.virtual_nodes else {}
        out.append(Consumer(cluster, group=code.group, subscriptions=code.subscriptions, client=code.client,
                            model=code.model, strategy=code.strategy, pid_namespace=pid_namespace,
                            **strategy_params, **settings))
    return out


ROOMS = {"broker_rooms": ",".join(f"{b}={r}" for b, r in BROKER_ROOMS.items()),
         "client_rooms": ",".join(f"{ip}={r}" for ip, r in CLIENT_ROOMS.items())}


@pytest.fixture(scope="module")
def running(cluster):
    """The consumers of both tests, started together (the room broker boots meanwhile): group -> its processes,
    group -> their stable answers."""
    if ROOM_BROKER not in cluster.brokers:
        cluster.spawn_broker(ROOM_BROKER)
    cluster.update_topic(TOPIC, 8, broker="broker-a")
    cluster.update_topic(TOPIC, 4, broker="broker-b")
    cluster.update_topic(OTHER, 2, broker="broker-a")
    consumers = {g: _start(cluster, code, procs) for g, (code, procs) in BASELINE.items()}
    try:
        cluster.wait_broker(ROOM_BROKER)
        cluster.update_topic(ROOM_TOPIC, 4, broker="broker-a")
        cluster.update_topic(ROOM_TOPIC, 4, broker=ROOM_BROKER)
        for group, (code, procs) in RUN_TIME.items():
            extra = ROOMS if code.strategy == "MACHINE_ROOM_NEARBY" else {}
            consumers[group] = _start(cluster, code, [{**_driver_settings(p), **extra} for p in procs])
        everyone = [c for cs in consumers.values() for c in cs]
        answers = stable_all(everyone)
        states, i = {}, 0
        for group, cs in consumers.items():
            states[group] = answers[i:i + len(cs)]
            i += len(cs)
        yield consumers, states
    finally:
        for cs in consumers.values():
            for c in cs:
                c.stop()
        if cluster.brokers[ROOM_BROKER].proc is not None:
            cluster.stop_broker(ROOM_BROKER)


@pytest.fixture(scope="module")
def baseline(cluster, running, tmp_path_factory):
    consumers, states = running
    work = tmp_path_factory.mktemp("baseline")
    save_outputs(cluster, work / "cluster", [TOPIC, OTHER], list(BASELINE))
    write_code(work / "code", [code for code, _ in BASELINE.values()])
    return work, {g: states[g] for g in BASELINE}, consumers


def test_every_queue_is_held_by_whom_rmqplan_predicts(baseline):
    work, states, _ = baseline
    done = rmqplan("fleet", "--from-code", work / "code", "--cluster", work / "cluster", "-o", work / "fleet.toml")
    fleet = tomllib.loads((work / "fleet.toml").read_text())
    assert sorted(g["name"] for g in fleet["groups"]) == sorted(BASELINE), done.stderr
    simulated = json.loads(rmqplan("simulate", "--fleet", work / "fleet.toml", "--format", "json",
                                   "--assignments").stdout)
    ids = connected_ids((work / "fleet.toml").read_text())
    assert predicted(simulated["scenarios"][0]["groups"], ids) == observed(states)
    if os.environ.get("RMQTOOLS_RECORD") == "1":  # refresh the outputs test_recorded.py reads without Java
        record(RECORDED / "baseline", work, states)


def record(dest: Path, work: Path, states: dict) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(work / "cluster", dest / "cluster")
    rows = [[*key, ids] for key, ids in sorted(observed(states).items())]
    (dest / "observed.json").write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")


def _driver_settings(settings: dict) -> dict:
    out = dict(settings)
    if "queues" in out:
        out["queues"] = ",".join(f"{t}/{b}:{q}" for t, b, q in out["queues"])
    return out


def test_strategies_given_data_at_run_time_take_what_rmqplan_predicts(cluster, running, tmp_path):
    """CONFIG (a list per process, one queue in both lists), MACHINE_ROOM (the brokers named room@name) and
    MACHINE_ROOM_NEARBY (rooms from a resolver): rmqplan fleet leaves these groups out, saying why; the test
    writes them into its fleet with the parameters the processes run with and the client ids connected."""
    _, answered = running
    states = {g: answered[g] for g in RUN_TIME}
    save_outputs(cluster, tmp_path / "cluster", [ROOM_TOPIC], list(RUN_TIME))
    # and a group of the same topic that rmqplan can read from the code, so that it writes a fleet at all
    # (its brokers and topics are what the test keeps)
    write_code(tmp_path / "code", [code for code, _ in RUN_TIME.values()]
               + [GroupCode("live_rooms_readable", {ROOM_TOPIC: "*"})])
    done = rmqplan("fleet", "--from-code", tmp_path / "code", "--cluster", tmp_path / "cluster",
                   "-o", tmp_path / "fleet.toml")
    for group in RUN_TIME:
        assert f"group {group}'s queues cannot be predicted from the code: left out" in done.stderr
    fleet = tomllib.loads((tmp_path / "fleet.toml").read_text())
    for broker in fleet["brokers"]:
        broker["room"] = BROKER_ROOMS.get(broker["name"], "")
    fleet["topics"] = [t for t in fleet["topics"] if t["name"] == ROOM_TOPIC]
    fleet["groups"] = []
    for group, (code, procs) in RUN_TIME.items():
        ids = connection_ids((tmp_path / "cluster" / f"consumerConnection-{group}.txt").read_text())
        assert sorted(ids) == sorted(s["client_id"] for s in states[group])
        entry = {"name": group, "strategy": code.strategy, "subscriptions": [{"topic": ROOM_TOPIC,
                                                                              "expression": "*"}]}
        if code.strategy == "MACHINE_ROOM":
            entry["consumer_idcs"] = ["hz"]
        if code.strategy == "MACHINE_ROOM_NEARBY":
            entry["nearby"] = "AVG"
        instances = []
        for client_id in ids:
            ip, name = client_id.split("@", 1)
            inst = {"hosts": [ip], "instance_name": name}
            if code.strategy == "MACHINE_ROOM_NEARBY":
                inst["room"] = CLIENT_ROOMS[ip]
            if code.strategy == "CONFIG":
                [proc] = [p for p in procs if p["instance"] == name]
                inst["queues"] = proc["queues"]
                inst["strategy"] = "CONFIG"
            instances.append(inst)
        if code.strategy == "CONFIG":
            entry["queues"] = instances[0]["queues"]
        entry["instances"] = instances
        fleet["groups"].append(entry)
    (tmp_path / "rooms.toml").write_text(dump_toml(fleet))
    simulated = json.loads(rmqplan("simulate", "--fleet", tmp_path / "rooms.toml", "--format", "json",
                                   "--assignments").stdout)
    seen = observed(states)
    assert predicted(simulated["scenarios"][0]["groups"]) == seen
    # not vacuous: MACHINE_ROOM took only the hz broker's queues; CONFIG held broker-a:1 twice
    assert {k[2] for k in seen if k[0] == "live_room" and k[1] == ROOM_TOPIC} == {ROOM_BROKER}
    assert len(seen[("live_config", ROOM_TOPIC, "broker-a", 1)]) == 2

"""What a running process keeps, against the live cluster and rmqplan's scenarios:

- a rebalance whose strategy throws changes nothing: a process without a machine room joins a MACHINE_ROOM_NEARBY
  group, every process's strategy throws ("Machine room is null for consumer id"), and the running ones keep
  their queues (no queue is orphaned; the new one holds nothing);
- a CONFIG list naming a queue of a broker that stops: the strategy still returns it, so the process keeps it in
  its table (it cannot pull it): the queue does not move.

The fleet is written by the test (these strategies take their data at run time, which `rmqplan fleet` cannot read
from the code): brokers and queues from the cluster, processes with fixed names and the rooms or lists they run
with.
"""

from __future__ import annotations

import json

import pytest

from tests.cluster.fleets import dump_toml, observed, predicted, rmqplan
from tests.cluster.rocketmq import Consumer, stable_all

pytestmark = pytest.mark.cluster

TOPIC = "LiveKept"
GONE = "broker-k"  # this test's own broker, stopped at the end
BROKER_ROOMS = {"broker-a": "sh", GONE: "hz"}
CLIENT_ROOMS = {"127.0.0.1": "hz", "127.0.0.2": "sh"}  # 127.0.0.3: no room
CONFIG_LISTS = {"c1": [[TOPIC, GONE, 0], [TOPIC, "broker-a", 0]], "c2": [[TOPIC, "broker-a", 1]]}


def _fleet(processes: dict) -> dict:
    def group(name, strategy, instances, **keys):
        return {"name": name, "strategy": strategy, **keys, "subscriptions": [{"topic": TOPIC, "expression": "*"}],
                "instances": instances}

    return {
        "version": 1,
        "brokers": [{"name": b, "room": r} for b, r in BROKER_ROOMS.items()],
        "topics": [{"name": TOPIC, "read_queues": {"broker-a": 2, GONE: 2}}],
        "groups": [
            group("kept_nearby", "MACHINE_ROOM_NEARBY", [
                {"hosts": [ip], "instance_name": name, "room": CLIENT_ROOMS[ip]}
                for name, ip in processes["kept_nearby"]], nearby="AVG"),
            group("kept_config", "CONFIG", [
                {"hosts": ["127.0.0.1"], "instance_name": name, "strategy": "CONFIG", "queues": CONFIG_LISTS[name]}
                for name in processes["kept_config"]], queues=CONFIG_LISTS["c1"]),
        ],
    }


def _steps(work, fleet: dict, scenario: dict) -> list[list[dict]]:
    path = work / f"{scenario['name']}.toml"
    path.write_text(dump_toml({**fleet, "scenarios": [scenario]}))
    out = json.loads(rmqplan("simulate", "--fleet", path, "--format", "json", "--assignments").stdout)
    baseline = out["scenarios"][0]["groups"]
    states = []
    for s in out["scenarios"][1]["steps"]:
        touched = {(g["group"], g["topic"]) for g in s["groups"]}
        states.append(s["groups"] + [g for g in baseline if (g["group"], g["topic"]) not in touched])
    return [baseline, *states]


def test_a_failed_rebalance_and_a_listed_queue_of_a_stopped_broker_are_kept(cluster, tmp_path):
    cluster.start_broker(GONE)
    cluster.update_topic(TOPIC, 2, broker="broker-a")
    cluster.update_topic(TOPIC, 2, broker=GONE)
    rooms = {"broker_rooms": ",".join(f"{b}={r}" for b, r in BROKER_ROOMS.items()),
             "client_rooms": ",".join(f"{ip}={r}" for ip, r in CLIENT_ROOMS.items())}
    processes = {"kept_nearby": [("r1", "127.0.0.1"), ("r2", "127.0.0.2")], "kept_config": ["c1", "c2"]}
    running: dict[str, list[Consumer]] = {"kept_nearby": [], "kept_config": []}

    def start(group: str, name: str, ip: str = "127.0.0.1") -> None:
        settings = dict(rooms, nearby="AVG") if group == "kept_nearby" else {
            "queues": ",".join(f"{t}/{b}:{q}" for t, b, q in CONFIG_LISTS[name])}
        strategy = "MACHINE_ROOM_NEARBY" if group == "kept_nearby" else "CONFIG"
        running[group].append(Consumer(cluster, group=group, subscriptions={TOPIC: "*"}, client="4.9.8",
                                       strategy=strategy, instance=name, ip=ip, **settings))

    def observe() -> dict:
        everyone = [c for cs in running.values() for c in cs]
        answers = stable_all(everyone)
        return observed({g: [a for c, a in zip(everyone, answers) if c.group == g] for g in running})

    try:
        for group, names in processes.items():
            for item in names:
                start(group, *item) if isinstance(item, tuple) else start(group, item)
        fleet = _fleet(processes)
        before = observe()
        [baseline, joined] = _steps(tmp_path, fleet, {"name": "roomless", "group": "kept_nearby", "add_instances": [
            {"hosts": ["127.0.0.3"], "instance_name": "r3"}]})
        assert predicted(baseline) == before

        # a process without a room joins the nearby group: every strategy call throws, nothing changes
        start("kept_nearby", "r3", "127.0.0.3")
        after = observe()
        assert predicted(joined) == after
        thrown = [c.send("queues", "queues")["thrown"] for c in running["kept_nearby"]]
        assert all("Machine room is null for consumer id 127.0.0.3@r3" in t.get(TOPIC, "") for t in thrown), thrown
        nearby = {k: v for k, v in after.items() if k[0] == "kept_nearby" and k[1] == TOPIC}
        assert len(nearby) == 4 and nearby == {k: v for k, v in before.items() if k[:2] == ("kept_nearby", TOPIC)}

        # the room-less process leaves: the group's rebalances succeed again, as before it came
        running["kept_nearby"].pop().stop()
        assert observe() == before

        # the broker of c1's listed queue stops: c1 still holds it
        [_, stopped] = _steps(tmp_path, fleet, {"name": "stopped", "remove_brokers": [GONE]})
        moves = [m for g in stopped if g["group"] == "kept_config" for m in g.get("moves", [])]
        cluster.stop_broker(GONE)
        gone = observe()
        assert predicted(stopped) == gone
        assert gone[("kept_config", TOPIC, GONE, 0)] == ["127.0.0.1@c1"] and moves == []
    finally:
        for cs in running.values():
            for c in cs:
                c.stop()
        if cluster.brokers[GONE].proc is not None:
            cluster.stop_broker(GONE)

"""A topic still routed but with no readable queue, against the live cluster and rmqplan's scenarios.

The client's subscribe info of the topic is then an empty set (not null): `RebalanceImpl.rebalanceByTopic` calls
the strategy with an empty mqAll, `check()` throws "mqAll is null or mqAll empty", and the rebalance returns
before the process queue table changes. So the running processes keep the queues they held (they cannot pull
them), and a process that starts meanwhile holds nothing; the retry topic, on the same broker, fails the same way.
Two ways to get there: the topic's only broker made write-only (`updateBrokerConfig brokerPermission 2`), and the
topic's read queues set to 0 (`updateTopic -r 0`). Clients 4.9.8 and 5.3.3 in one group.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.cluster.fleets import dump_toml, observed, predicted, rmqplan
from tests.cluster.rocketmq import Consumer, stable_all

pytestmark = pytest.mark.cluster

TOPIC = "LiveUnreadable"
GROUP = "unreadable_avg"
BROKER = "broker-u"  # this test's own broker: its permission changes
CLIENTS = {"u1": "4.9.8", "u2": "5.3.3", "u3": "4.9.8"}
NO_QUEUE = "IllegalArgumentException: mqAll is null or mqAll empty"


def _fleet(names: list[str]) -> dict:
    return {
        "version": 1,
        "brokers": [{"name": BROKER}],
        "topics": [{"name": TOPIC, "read_queues": 4}],
        "groups": [{"name": GROUP, "subscriptions": [{"topic": TOPIC, "expression": "*"}], "instances": [
            {"hosts": ["127.0.0.1"], "instance_name": n, "client_version": CLIENTS[n]} for n in names]}],
    }


def _last_state(work, fleet: dict, scenario: dict) -> tuple[list[dict], dict]:
    """The groups of the scenario's last state (the baseline's where the scenario lists none) and its totals."""
    path = work / f"{scenario['name']}.toml"
    path.write_text(dump_toml({**fleet, "scenarios": [scenario]}))
    out = json.loads(rmqplan("simulate", "--fleet", path, "--format", "json", "--assignments").stdout)
    baseline = out["scenarios"][0]["groups"]
    last = out["scenarios"][1]["steps"][-1]["groups"]
    touched = {(g["group"], g["topic"]) for g in last}
    return last + [g for g in baseline if (g["group"], g["topic"]) not in touched], out["scenarios"][1]


def test_no_readable_queue_keeps_what_the_processes_held(cluster, tmp_path):
    cluster.start_broker(BROKER)
    cluster.update_topic(TOPIC, 4, broker=BROKER)
    running: list[Consumer] = []

    def start(name: str) -> None:
        running.append(Consumer(cluster, group=GROUP, subscriptions={TOPIC: "*"}, client=CLIENTS[name],
                                instance=name, ip="127.0.0.1"))

    def observe(route=None) -> dict:
        return observed({GROUP: stable_all(running, route=route)})

    def failing() -> None:  # every process's strategy has thrown on the empty mqAll (its route has no queue)
        deadline = time.monotonic() + 60
        while not all(c.send("queues", "queues")["thrown"].get("") == NO_QUEUE for c in running):
            assert time.monotonic() < deadline, [c.send("queues", "queues")["thrown"] for c in running]
            time.sleep(0.2)

    def set_perm(perm: int) -> None:
        out = cluster.admin("updateBrokerConfig", "-n", cluster.namesrv, "-b", cluster.brokers[BROKER].address,
                            "-k", "brokerPermission", "-v", str(perm))
        assert "success" in out, out

    try:
        start("u1")
        start("u2")
        fleet = _fleet(["u1", "u2"])
        before = observe()
        assert len([k for k in before if k[1] == TOPIC]) == 4

        # the broker made write-only, then a process joins: the running two keep everything, the new one holds
        # nothing; nothing moves
        state, scenario = _last_state(tmp_path, fleet, {
            "name": "write-only", "broker_perm": {BROKER: "w"}, "group": GROUP,
            "add_instances": [{"hosts": ["127.0.0.1"], "instance_name": "u3", "client_version": "4.9.8"}]})
        assert predicted(state) == before
        assert all(not g.get("moves") for s in scenario["steps"] for g in s["groups"])
        set_perm(2)
        assert observe(route=(TOPIC, BROKER, 2)) == before
        start("u3")
        failing()
        assert observe() == predicted(state) == before

        # readable again: the three share the queues as at a start
        set_perm(6)
        running[-1].stop()
        running.pop()
        before = observe(route=(TOPIC, BROKER, 6))

        # the topic's read queues set to 0 (still written): the same
        state, _ = _last_state(tmp_path, fleet, {"name": "no-read-queues", "set_queues": [
            {"topic": TOPIC, "read_queues": 0, "write_queues": 4}]})
        assert predicted(state) == before
        cluster.update_topic(TOPIC, 0, 4, broker=BROKER)
        failing()
        assert observe() == before
    finally:
        for c in running:
            c.stop()
        if cluster.brokers[BROKER].proc is not None:
            cluster.stop_broker(BROKER)

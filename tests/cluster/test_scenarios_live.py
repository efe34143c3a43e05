"""rmqplan's what-if scenarios against the live cluster, step by step: before each change the fleet is written
again by `rmqplan fleet` from the code and mqadmin outputs saved then, the change is added to it as a scenario,
and once the consumers are stable after the change on the cluster, every queue's holders are what the scenario's
last state predicts (each step of a rolling restart is compared as it happens).

The processes have fixed instanceNames: a restarted JVM reports the same client id, which keeps the rolling
restart's order deterministic (with pid#nanoTime names the restarted process's new pid decides its place)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.cluster.fleets import GroupCode, dump_toml, observed, predicted, rmqplan, save_outputs, write_code
from tests.cluster.rocketmq import Consumer, stable_all

pytestmark = pytest.mark.cluster

TOPIC = "LiveSteps"
SPARE = "broker-c"  # this test's own broker: it is made read-only, then stopped
GROUPS = {
    "steps_avg": GroupCode("steps_avg", {TOPIC: "*"}, client="4.9.8", instance_name="n"),
    "steps_circle": GroupCode("steps_circle", {TOPIC: "*"}, client="5.3.3", strategy="AVG_BY_CIRCLE",
                              instance_name="n"),
    "steps_hash": GroupCode("steps_hash", {TOPIC: "*"}, client="4.9.3", strategy="CONSISTENT_HASH",
                            virtual_nodes=8, instance_name="n"),
}
NAMES = ["n1", "n2", "n3"]


class Live:
    """The groups' running processes by (group, instanceName), and the steps' work directory."""

    def __init__(self, cluster, work: Path):
        self.cluster, self.work, self.n = cluster, work, 0
        self.processes: dict[tuple[str, str], Consumer] = {}

    def start(self, group: str, name: str) -> Consumer:
        code = GROUPS[group]
        params = {"vnodes": code.virtual_nodes} if code.virtual_nodes else {}
        self.processes[(group, name)] = Consumer(self.cluster, group=group, subscriptions=code.subscriptions,
                                                 client=code.client, strategy=code.strategy, instance=name,
                                                 ip="127.0.0.1", **params)
        return self.processes[(group, name)]

    def stop(self, group: str, name: str) -> None:
        self.processes.pop((group, name)).stop()

    def observe(self) -> dict:
        keys = list(self.processes)
        answers = stable_all([self.processes[k] for k in keys])
        states: dict[str, list] = {}
        for (group, _), answer in zip(keys, answers):
            states.setdefault(group, []).append(answer)
        return observed(states)

    def predict(self, scenario: dict | None) -> list[list[dict]]:
        """The fleet as the cluster shows it now, with `scenario`: the groups of each of its steps, each step's
        groups completed with the untouched groups' baseline (without a scenario: the baseline alone)."""
        self.n += 1
        step = self.work / f"step-{self.n}"
        save_outputs(self.cluster, step / "cluster", [TOPIC], list(GROUPS))
        write_code(step / "code", list(GROUPS.values()))
        rmqplan("fleet", "--from-code", step / "code", "--cluster", step / "cluster", "-o", step / "fleet.toml")
        fleet = self.fleet = tomllib.loads((step / "fleet.toml").read_text())
        if scenario is not None:
            fleet["scenarios"] = [{"name": "live", **scenario}]
        (step / "scenario.toml").write_text(dump_toml(fleet))
        out = json.loads(rmqplan("simulate", "--fleet", step / "scenario.toml", "--format", "json",
                                 "--assignments").stdout)
        baseline = out["scenarios"][0]["groups"]
        if scenario is None:
            return [baseline]
        states = []
        for s in out["scenarios"][1]["steps"]:
            touched = {(g["group"], g["topic"]) for g in s["groups"]}
            states.append(s["groups"] + [g for g in baseline if (g["group"], g["topic"]) not in touched])
        return states


@pytest.fixture(scope="module")
def live(cluster, tmp_path_factory):
    cluster.start_broker(SPARE)
    cluster.update_topic(TOPIC, 8, broker="broker-a")
    cluster.update_topic(TOPIC, 4, broker="broker-b")
    cluster.update_topic(TOPIC, 4, broker=SPARE)
    state = Live(cluster, tmp_path_factory.mktemp("scenarios"))
    try:
        for group in GROUPS:
            for name in NAMES:
                state.start(group, name)
        yield state
    finally:
        for c in state.processes.values():
            c.stop()
        if cluster.brokers[SPARE].proc is not None:
            cluster.stop_broker(SPARE)


def test_each_step_of_each_scenario_is_what_rmqplan_predicts(live):
    cluster = live.cluster
    # the baseline: saved once the consumers are stable (and connected), as every step's fleet is
    seen = live.observe()
    assert predicted(live.predict(None)[0]) == seen

    # a consumer added to each group in turn
    for group in GROUPS:
        [state] = live.predict({"group": group, "add_instances": [{"hosts": ["127.0.0.1"], "instance_name": "n4"}]})
        live.start(group, "n4")
        assert predicted(state) == live.observe(), f"{group}: n4 added"

    # the topic resized on one broker (mqadmin updateTopic)
    [state] = live.predict({"set_queues": [{"topic": TOPIC, "read_queues": {"broker-b": 6},
                                            "write_queues": {"broker-b": 6}}]})
    cluster.update_topic(TOPIC, 6, broker="broker-b")
    assert predicted(state) == live.observe(), "LiveSteps resized to 6 queues on broker-b"

    # a broker made read-only (mqadmin updateBrokerConfig brokerPermission 4)
    [state] = live.predict({"broker_perm": {SPARE: 4}})
    out = cluster.admin("updateBrokerConfig", "-n", cluster.namesrv, "-b", cluster.brokers[SPARE].address,
                        "-k", "brokerPermission", "-v", "4")
    assert "success" in out, out
    assert predicted(state) == live.observe(), "broker-c read-only"
    route = cluster.admin("topicRoute", "-n", cluster.namesrv, "-t", TOPIC)
    assert '"brokerName":"broker-c",\n\t\t\t"perm":4' in route, route  # it did change: the route says so

    # the broker stopped
    [state] = live.predict({"remove_brokers": [SPARE]})
    cluster.stop_broker(SPARE)
    assert predicted(state) == live.observe(), "broker-c stopped"

    # a rolling restart of one group, one process at a time, in the order the fleet lists them
    steps = live.predict({"group": "steps_avg", "rolling_restart": "group"})
    [group] = [g for g in live.fleet["groups"] if g["name"] == "steps_avg"]
    order = [i["instance_name"] for i in group["instances"]]
    assert sorted(order) == ["n1", "n2", "n3", "n4"]
    assert len(steps) == 2 * len(order)
    for i, name in enumerate(order):
        live.stop("steps_avg", name)
        assert predicted(steps[2 * i]) == live.observe(), f"down {name}"
        live.start("steps_avg", name)
        assert predicted(steps[2 * i + 1]) == live.observe(), f"up {name}"

"""rmqplan's what-if scenarios against the live cluster, step by step: before each change the fleet is written
again by `rmqplan fleet` from the code and mqadmin outputs saved then, the change is added to it as a scenario,
and once the consumers are stable after the change on the cluster, every queue's holders are what the scenario's
last state predicts (each step of a rolling restart is compared as it happens).

The processes keep the client's default instanceName, so each reports pid#nanoTime: `rmqplan fleet` writes each
connected process as it started (`started_as`), and a restart in the scenario gets a new pid after the group's
largest, as the restarted JVM does (its real id is new: the holders are compared by connected id, the restarted
process's label standing for its new one). The processes run in one pid namespace (`rocketmq.PidNamespace`), where
pids come in the order the processes start, without the machine's wrap-around."""

from __future__ import annotations

import json
import tomllib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cluster.fleets import (GroupCode, connected_ids, dump_toml, observed, predicted, rmqplan, save_outputs,
                                  write_code)
from tests.cluster.rocketmq import Consumer, PidNamespace, stable_all

pytestmark = pytest.mark.cluster

TOPIC = "LiveSteps"
SPARE = "broker-c"  # this test's own broker: it is made read-only, then stopped
GROUPS = {
    "steps_avg": GroupCode("steps_avg", {TOPIC: "*"}, client="4.9.8"),
    "steps_circle": GroupCode("steps_circle", {TOPIC: "*"}, client="5.3.3", strategy="AVG_BY_CIRCLE"),
    "steps_hash": GroupCode("steps_hash", {TOPIC: "*"}, client="4.9.3", strategy="CONSISTENT_HASH",
                            virtual_nodes=8),
}
NAMES = ["n1", "n2", "n3"]  # the test's handles on the processes (their instanceName is the default)


class Live:
    """The groups' running processes by (group, instanceName), and the steps' work directory."""

    def __init__(self, cluster, work: Path):
        self.cluster, self.work, self.n = cluster, work, 0
        self.processes: dict[tuple[str, str], Consumer] = {}
        self.pids = PidNamespace(cluster)

    def start(self, group: str, name: str) -> Consumer:
        code = GROUPS[group]
        params = {"vnodes": code.virtual_nodes} if code.virtual_nodes else {}
        self.processes[(group, name)] = Consumer(self.cluster, group=group, subscriptions=code.subscriptions,
                                                 client=code.client, strategy=code.strategy, ip="127.0.0.1",
                                                 pid_namespace=self.pids, **params)
        return self.processes[(group, name)]

    def handle(self, group: str, client_id: str) -> str:
        """The test's name of the process of `group` that is connected as `client_id`."""
        [name] = [n for (g, n), c in self.processes.items() if g == group and c.started() == client_id]
        return name

    def stop(self, group: str, name: str) -> None:
        self.processes.pop((group, name)).stop()

    def observe(self, route=None) -> dict:
        keys = list(self.processes)
        answers = stable_all([self.processes[k] for k in keys], route=route)
        states: dict[str, list] = {}
        for (group, _), answer in zip(keys, answers):
            states.setdefault(group, []).append(answer)
        return observed(states)

    def snapshot(self) -> Path:
        """A new step directory holding the mqadmin outputs saved from the cluster now, and the code."""
        self.n += 1
        step = self.work / f"step-{self.n}"
        save_outputs(self.cluster, step / "cluster", [TOPIC], list(GROUPS))
        write_code(step / "code", list(GROUPS.values()))
        return step

    def predict(self, step: Path, scenario: dict | None) -> tuple[list[list[dict]], dict]:
        """`rmqplan fleet` from a snapshot, then `rmqplan simulate` with `scenario`: the groups of each of its
        steps, each completed with the untouched groups' baseline (without a scenario: the baseline alone), and
        the connected ids of the fleet's processes. Only files of `step` are read, so it runs on a thread while
        the cluster changes."""
        rmqplan("fleet", "--from-code", step / "code", "--cluster", step / "cluster", "-o", step / "fleet.toml")
        text = (step / "fleet.toml").read_text()
        fleet = tomllib.loads(text)
        if scenario is not None:
            fleet["scenarios"] = [{"name": "live", **scenario}]
        (step / "scenario.toml").write_text(dump_toml(fleet))
        out = json.loads(rmqplan("simulate", "--fleet", step / "scenario.toml", "--format", "json",
                                 "--assignments").stdout)
        baseline = out["scenarios"][0]["groups"]
        if scenario is None:
            return [baseline], connected_ids(text)
        states = []
        for s in out["scenarios"][1]["steps"]:
            touched = {(g["group"], g["topic"]) for g in s["groups"]}
            states.append(s["groups"] + [g for g in baseline if (g["group"], g["topic"]) not in touched])
        return states, connected_ids(text)


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
        state.pids.close()
        if cluster.brokers[SPARE].proc is not None:
            cluster.stop_broker(SPARE)


def test_each_step_of_each_scenario_is_what_rmqplan_predicts(live):
    cluster = live.cluster
    ahead = ThreadPoolExecutor(1)  # each step's prediction runs while the cluster converges

    def check(future: Future, what: str, route=None) -> dict:
        seen = live.observe(route)
        [state], ids = future.result()
        assert predicted(state, ids) == seen, what
        return ids

    # the baseline: saved once the consumers are stable (and connected), as every step's fleet is
    seen = live.observe()
    [state], ids = live.predict(live.snapshot(), None)
    assert predicted(state, ids) == seen
    assert ids and all("#" in cid for cid in ids.values())  # pid#nanoTime ids, as connected

    # a consumer added to each group in turn: started once the outputs are saved, and added to the scenario with
    # the name its client made (its label: the next on the host)
    for group in GROUPS:
        step = live.snapshot()
        added = live.start(group, "n4").started()
        check(ahead.submit(live.predict, step, {"group": group, "add_instances": [{
            "hosts": ["127.0.0.1"], "client_version": GROUPS[group].client,
            "started_as": added.split("@")[1]}]}), f"{group}: n4 added")

    # the topic resized on one broker (mqadmin updateTopic)
    future = ahead.submit(live.predict, live.snapshot(), {"set_queues": [
        {"topic": TOPIC, "read_queues": {"broker-b": 6}, "write_queues": {"broker-b": 6}}]})
    cluster.update_topic(TOPIC, 6, broker="broker-b")
    check(future, "LiveSteps resized to 6 queues on broker-b")

    # a broker made read-only (mqadmin updateBrokerConfig brokerPermission 4): observed once every consumer's own
    # route of the topic says broker-c is read-only (perm 4), then stable
    future = ahead.submit(live.predict, live.snapshot(), {"broker_perm": {SPARE: 4}})
    out = cluster.admin("updateBrokerConfig", "-n", cluster.namesrv, "-b", cluster.brokers[SPARE].address,
                        "-k", "brokerPermission", "-v", "4")
    assert "success" in out, out
    check(future, "broker-c read-only", route=(TOPIC, SPARE, 4))

    # the broker stopped
    future = ahead.submit(live.predict, live.snapshot(), {"remove_brokers": [SPARE]})
    cluster.stop_broker(SPARE)
    ids = check(future, "broker-c stopped")

    # a rolling restart of one group, one process at a time, in the order the fleet lists them; each restarted
    # JVM reports a new pid#nanoTime, which its label stands for from then on
    steps, ids = live.predict(live.snapshot(), {"group": "steps_avg", "rolling_restart": "group"})
    labels = [label for (group, label) in ids if group == "steps_avg"]
    assert len(labels) == 4 and len(steps) == 2 * len(labels)
    for i, label in enumerate(labels):
        name = live.handle("steps_avg", ids[("steps_avg", label)])
        live.stop("steps_avg", name)
        assert predicted(steps[2 * i], ids) == live.observe(), f"down {label}"
        ids[("steps_avg", label)] = live.start("steps_avg", name).started()
        assert predicted(steps[2 * i + 1], ids) == live.observe(), f"up {label}"

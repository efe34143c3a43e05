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

from tests.cluster.fleets import GroupCode, observed, predicted, rmqplan, save_outputs, write_code
from tests.cluster.shapes import BASELINE, OTHER, TOPIC
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


@pytest.fixture(scope="module")
def baseline(cluster, tmp_path_factory):
    cluster.update_topic(TOPIC, 8, broker="broker-a")
    cluster.update_topic(TOPIC, 4, broker="broker-b")
    cluster.update_topic(OTHER, 2, broker="broker-a")
    consumers = {g: _start(cluster, code, procs) for g, (code, procs) in BASELINE.items()}
    try:
        everyone = [c for cs in consumers.values() for c in cs]
        answers = stable_all(everyone)
        states, i = {}, 0
        for group, cs in consumers.items():
            states[group] = answers[i:i + len(cs)]
            i += len(cs)
        work = tmp_path_factory.mktemp("baseline")
        save_outputs(cluster, work / "cluster", [TOPIC, OTHER], list(BASELINE))
        write_code(work / "code", [code for code, _ in BASELINE.values()])
        yield work, states, consumers
    finally:
        for cs in consumers.values():
            for c in cs:
                c.stop()


def test_every_queue_is_held_by_whom_rmqplan_predicts(baseline):
    work, states, _ = baseline
    done = rmqplan("fleet", "--from-code", work / "code", "--cluster", work / "cluster", "-o", work / "fleet.toml")
    fleet = tomllib.loads((work / "fleet.toml").read_text())
    assert sorted(g["name"] for g in fleet["groups"]) == sorted(BASELINE), done.stderr
    simulated = json.loads(rmqplan("simulate", "--fleet", work / "fleet.toml", "--format", "json",
                                   "--assignments").stdout)
    assert predicted(simulated["scenarios"][0]["groups"]) == observed(states)
    if os.environ.get("RMQTOOLS_RECORD") == "1":  # refresh the outputs test_recorded.py reads without Java
        record(RECORDED / "baseline", work, states)


def record(dest: Path, work: Path, states: dict) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(work / "cluster", dest / "cluster")
    rows = [[*key, ids] for key, ids in sorted(observed(states).items())]
    (dest / "observed.json").write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")

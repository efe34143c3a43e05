"""The live comparison replayed from outputs recorded from the real cluster (tests/cluster/recorded/), for machines
without Java: `rmqplan fleet` reads mqadmin's real output (topicRoute, clusterList, consumerConnection as printed by
RocketMQ 5.3.3), and `rmqplan simulate` predicts the holders the consumers of every client release reported.

`RMQTOOLS_RECORD=1 pytest -m cluster tests/cluster/test_predictions.py` records them again."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from tests.cluster.fleets import connected_ids, predicted, rmqplan, write_code
from tests.cluster.shapes import BASELINE

RECORDED = Path(__file__).parent / "recorded"


def test_the_recorded_cluster_is_what_rmqplan_predicts(tmp_path):
    recorded = RECORDED / "baseline"
    write_code(tmp_path / "code", [code for code, _ in BASELINE.values()])
    rmqplan("fleet", "--from-code", tmp_path / "code", "--cluster", recorded / "cluster", "-o", tmp_path / "f.toml")
    fleet = tomllib.loads((tmp_path / "f.toml").read_text())
    connected = {g["name"]: sum(i.get("count", 1) for i in g["instances"]) for g in fleet["groups"]}
    assert connected == {g: len(procs) for g, (_, procs) in BASELINE.items()}
    assert {t["name"]: t["read_queues"] for t in fleet["topics"]} == {
        "LiveOrders": {"broker-a": 8, "broker-b": 4}, "LiveAudit": {"broker-a": 2}}
    simulated = json.loads(rmqplan("simulate", "--fleet", tmp_path / "f.toml", "--format", "json",
                                   "--assignments").stdout)
    observed = {(g, t, b, q): ids for g, t, b, q, ids in json.loads((recorded / "observed.json").read_text())}
    ids = connected_ids((tmp_path / "f.toml").read_text())
    assert predicted(simulated["scenarios"][0]["groups"], ids) == observed
    # what the recorded run showed: pid-1 processes on 4.5.1 and a fixed name on one IP share a client id
    assert observed[("live_pid1", "LiveOrders", "broker-a", 0)] == ["127.0.0.1@1"] * 3
    assert observed[("live_fixed", "LiveOrders", "broker-a", 0)] == ["127.0.0.1@orders-node"] * 2

"""rmqplan reading the live cluster over RocketMQ's protocol: `fleet --namesrv` and `status --namesrv` agree with
what the consumers hold, and a fixed-instanceName group is diagnosed with its real backlog.

Two groups on one topic of 4 queues on broker-a and 2 on broker-b: `status_avg`, three 5.3.3 consumers (distinct
client ids), and `status_fixed`, two 4.9.8 consumers that set one instanceName on one IP, so both report
127.0.0.1@orders-node, take the same half of the queues and leave the other half to nobody. 60 messages are sent
round robin over the 6 queues (`mqadmin checkMsgSendRT`): status_avg consumes all of them, status_fixed only those
of the queues its processes hold. With RMQTOOLS_RECORD=1 the frames of the status run are recorded into
tests/planner/fixtures/remoting/status.json, which tests/planner/test_remoting_replay.py replays without Java.
"""

from __future__ import annotations

import base64
import json
import os
import time
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from tests.cluster.fleets import observed, predicted, rmqplan
from tests.cluster.rocketmq import Consumer, stable_all

pytestmark = pytest.mark.cluster
TOPIC = "StatusOrders"
FIXED_ID = "127.0.0.1@orders-node"
MESSAGES = 60
RECORDING = Path(__file__).resolve().parents[1] / "planner" / "fixtures" / "remoting" / "status.json"


def _sent(admin_output: str) -> Counter:
    """(broker, queue id) -> messages `mqadmin checkMsgSendRT` reports it sent there."""
    sent: Counter = Counter()
    for line in admin_output.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] == "true" and parts[1].isdigit():
            sent[(parts[0], int(parts[1]))] += 1
    return sent


def _backlog(namesrv: str, group: str) -> dict:
    from rmqplan.sources.live import LiveCluster

    with LiveCluster(namesrv) as live:
        snap = live.snapshot(groups=[group])
    progress = snap.progress.get(group)
    return {(q.broker, q.queue_id): o.backlog for q, o in progress.queues.items() if q.topic == TOPIC} \
        if progress else {}


@pytest.fixture(scope="module")
def incident(cluster):
    cluster.update_topic(TOPIC, 4, broker="broker-a")
    cluster.update_topic(TOPIC, 2, broker="broker-b")
    fixed = [Consumer(cluster, group="status_fixed", subscriptions={TOPIC: "*"}, client="4.9.8", ip="127.0.0.1",
                      instance="orders-node") for _ in range(2)]
    avg = [Consumer(cluster, group="status_avg", subscriptions={TOPIC: "*"}, client="5.3.3", ip="127.0.0.1")
           for _ in range(3)]
    try:
        answers = stable_all(fixed + avg)
        states = {"status_fixed": answers[:2], "status_avg": answers[2:]}
        sent = _sent(cluster.admin("checkMsgSendRT", "-n", cluster.namesrv, "-t", TOPIC, "-a", str(MESSAGES),
                                   "-s", "16"))
        assert sum(sent.values()) == MESSAGES, sent
        held = {(b, q) for a in states["status_fixed"] for t, b, q in a["queues"] if t == TOPIC}
        nobody = {(b, q) for b, q in sent} - held
        deadline = time.monotonic() + 60
        while True:  # the consumers commit their offsets every 5 s
            avg_left, fixed_left = _backlog(cluster.namesrv, "status_avg"), _backlog(cluster.namesrv, "status_fixed")
            if not any(avg_left.values()) and all(fixed_left.get(k) == (sent[k] if k in nobody else 0)
                                                  for k in sent):
                break
            assert time.monotonic() < deadline, (avg_left, fixed_left, sent, nobody)
            time.sleep(1)
        yield states, sent, nobody
    finally:
        for c in fixed + avg:
            c.stop()


def test_fleet_of_what_is_connected_holds_the_real_client_ids_and_predicts_every_queue(cluster, incident, tmp_path):
    states, _, _ = incident
    out = tmp_path / "fleet.toml"
    rmqplan("fleet", "--namesrv", cluster.namesrv, "-o", out, ok=(0, 1))  # 1: a group of another test stopped
    fleet = tomllib.loads(out.read_text())
    groups = {g["name"]: g for g in fleet["groups"]}
    for name, answers in states.items():
        ids = sorted(f"{i['hosts'][0]}@{i.get('instance_name') or i['started_as']}"
                     for i in groups[name]["instances"] for _ in range(i.get("count", 1)))
        assert ids == sorted(a["client_id"] for a in answers)
    simulated = json.loads(rmqplan("simulate", "--fleet", out, "--format", "json", "--assignments").stdout)
    mine = [g for g in simulated["scenarios"][0]["groups"] if g["group"] in states]
    assert predicted(mine) == observed(states)


def test_status_names_the_orphaned_queues_with_their_real_backlog_and_the_brokers_confirm(cluster, incident,
                                                                                           monkeypatch, tmp_path):
    states, sent, nobody = incident
    args = ["status", "--namesrv", f"127.0.0.1:1;{cluster.namesrv}", "--format", "json", "--interval", "6",
            "--html", str(tmp_path / "status.html")]
    code, doc, recorded = _run_recorded(args, monkeypatch)
    assert code == 1
    problems = {(p["group"], p["code"], p["topic"]): p for p in doc["problems"]}
    orphaned = problems[("status_fixed", "PLAN001", TOPIC)]
    assert {(b, q) for _, b, q in orphaned["queues"]} == nobody
    assert orphaned["backlog"] == sum(sent[k] for k in nobody) == MESSAGES // 2
    assert orphaned["verdicts"] == {"confirms": len(nobody), "contradicts": 0, "silent": 0}
    assert f"both processes report {FIXED_ID}" in orphaned["text"]
    doubled = problems[("status_fixed", "PLAN002", TOPIC)]
    assert {(b, q) for _, b, q in doubled["queues"]} == {(b, q) for t, b, q in states["status_fixed"][0]["queues"]
                                                         if t == TOPIC}
    assert not [p for p in doc["problems"] if p["group"] == "status_avg"]
    for group in doc["groups"]:  # every queue's predicted holders are the ones that hold it
        if group["group"] in states:
            holders = {(group["group"], *s["queue"]): sorted(s["holders"]) for t in group["topics"]
                       for s in t["queue_states"] if s["holders"]}
            assert holders == {k: v for k, v in observed(states).items() if k[0] == group["group"]}
    assert (tmp_path / "status.html").read_text().count('data-code="PLAN001"') >= 1
    text = rmqplan("status", "--namesrv", cluster.namesrv, "--group", "status_fixed", "--interval", "0").stdout
    assert (f"queues 3 (broker-a), 0-1 (broker-b) of {TOPIC}: 30 messages behind, consumed by nobody: both "
            f"processes report {FIXED_ID}") in text, text
    if os.environ.get("RMQTOOLS_RECORD") == "1":
        RECORDING.parent.mkdir(parents=True, exist_ok=True)
        RECORDING.write_text(json.dumps({"args": args[:1] + args[3:-2], "namesrv": cluster.namesrv,
                                         "expected": {"exit": code, "sent": {f"{b}:{q}": n for (b, q), n in
                                                                             sorted(sent.items())},
                                                      "nobody": sorted(f"{b}:{q}" for b, q in nobody)},
                                         "exchanges": recorded}, indent=1) + "\n")


def _run_recorded(args: list[str], monkeypatch) -> tuple[int, dict, list]:
    """`rmqplan ARGS` in this process, every request and answer recorded."""
    import io

    from rmqplan import cli
    from rmqplan.sources import live
    from rmqplan.sources.remoting.client import RemotingClient

    recorded = []

    def keep(address: str, request: bytes, response: bytes) -> None:
        recorded.append({"address": address, "request": base64.b64encode(request).decode(),
                         "response": base64.b64encode(response).decode()})

    class Recording(RemotingClient):
        def __init__(self, timeout, credentials=None, recorder=None, deadline=None):
            super().__init__(timeout, credentials, keep, deadline)

    monkeypatch.setattr(live, "RemotingClient", Recording)
    out, err = io.StringIO(), io.StringIO()
    code = cli.run(args, out, err)
    assert code in (0, 1), err.getvalue()
    return code, json.loads(out.getvalue()), recorded

"""A group's only consumer is killed while messages keep arriving: the broker drops its connection at once, keeps
its offsets, and `rmqplan status` reports every queue of the group as consumed by nobody, with the messages behind
that `mqadmin consumerProgress -g` shows for it, and exits 1; `rmqplan watch` serves the same in its series.

Topic GoneOrders has 2 queues on each broker; one 5.3.3 consumer of group `gone_orders` consumes 20 messages and
commits its offsets, is killed (SIGKILL: no unregistering), and 20 more messages arrive.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.cluster import rocketmq
from tests.cluster.fleets import rmqplan
from tests.cluster.rocketmq import Consumer, stable_all

pytestmark = pytest.mark.cluster
TOPIC, GROUP = "GoneOrders", "gone_orders"
MESSAGES = 20


def _send(cluster, n: int) -> None:
    out = cluster.admin("checkMsgSendRT", "-n", cluster.namesrv, "-t", TOPIC, "-a", str(n), "-s", "16")
    assert sum(1 for line in out.splitlines() if " true " in f" {line} ") == n, out


def consumer_progress(cluster, group: str) -> dict[tuple[str, str, int], int]:
    """(topic, broker, queue id) -> #Diff, as `mqadmin consumerProgress -g GROUP` prints them."""
    out = {}
    for line in cluster.admin("consumerProgress", "-n", cluster.namesrv, "-g", group).splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[2].isdigit() and not line.startswith("#"):
            out[(parts[0], parts[1], int(parts[2]))] = int(parts[5])
    return out


def _connected(cluster, group: str) -> bool:
    from rmqplan.sources.live import LiveCluster

    with LiveCluster(cluster.namesrv) as live:
        return bool(live.snapshot(groups=[group], progress=False).consumers[group].connections)


@pytest.fixture(scope="module")
def gone(cluster):
    for broker in ("broker-a", "broker-b"):
        cluster.update_topic(TOPIC, 2, broker=broker)
    consumer = Consumer(cluster, group=GROUP, subscriptions={TOPIC: "*"}, client="5.3.3")
    try:
        stable_all([consumer])
        _send(cluster, MESSAGES)
        deadline = time.monotonic() + 60
        while True:  # consumed and committed (every 5 s)
            progress = consumer_progress(cluster, GROUP)
            if progress and not any(n for (t, _, _), n in progress.items() if t == TOPIC):
                break
            assert time.monotonic() < deadline, progress
            time.sleep(1)
    finally:
        consumer.close()  # SIGKILL
    deadline = time.monotonic() + 30
    while _connected(cluster, GROUP):
        assert time.monotonic() < deadline, "the broker still lists the killed consumer's connection"
        time.sleep(0.2)
    _send(cluster, MESSAGES)
    yield cluster
    # The modules that follow share the cluster: a group left dead would be their PLAN001 too.
    _delete_group(cluster)


def _delete_group(cluster) -> str:
    return cluster.admin("deleteSubGroup", "-n", cluster.namesrv, "-c", rocketmq.CLUSTER_NAME, "-g", GROUP, "-r",
                         "true")


def test_status_reports_every_queue_of_a_group_whose_only_consumer_died_with_mqadmins_backlog(gone):
    cluster = gone
    done = rmqplan("status", "--namesrv", cluster.namesrv, "--group", GROUP, "--interval", "0", "--format", "json",
                   ok=(1,))
    doc = json.loads(done.stdout)
    shown = consumer_progress(cluster, GROUP)
    mine = {k: n for k, n in shown.items() if k[0] == TOPIC}
    assert sorted(mine) == [(TOPIC, b, q) for b in ("broker-a", "broker-b") for q in (0, 1)]
    assert sum(mine.values()) == MESSAGES
    problem = next(p for p in doc["problems"] if p["topic"] == TOPIC)
    assert problem["code"] == "PLAN001" and problem["group"] == GROUP
    assert sorted(tuple(q) for q in problem["queues"]) == sorted(mine)
    assert problem["backlog"] == MESSAGES
    group = next(g for g in doc["groups"] if g["group"] == GROUP)
    assert group["connected"] is False
    states = {tuple(s["queue"]): s["backlog"] for t in group["topics"] for s in t["queue_states"]}
    assert {k: states[k] for k in shown} == shown  # the retry topic's too, wherever mqadmin shows it
    text = rmqplan("status", "--namesrv", cluster.namesrv, "--interval", "0", ok=(1,)).stdout
    assert (f"queues 0-1 (broker-a), 0-1 (broker-b) of {TOPIC}: {MESSAGES} messages behind, consumed by nobody: no "
            "consumer of the group is connected") in text, text


def test_watch_serves_the_same_queues_and_backlog_in_its_series(gone, tmp_path):
    cluster = gone
    shown = {k: n for k, n in consumer_progress(cluster, GROUP).items() if k[0] == TOPIC}
    watch = rocketmq._spawn([str(Path(sys.executable).parent / "rmqplan"), "watch", "--namesrv", cluster.namesrv,
                             "--listen", "127.0.0.1:0", "--interval", "1", "--group", GROUP], cwd=tmp_path,
                            env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        url = re.search(r"serving (http://\S+?)/ ", watch.stderr.readline().decode()).group(1)
        series = f'{{group="{GROUP}",topic="{TOPIC}"}}'
        deadline = time.monotonic() + 30
        while True:
            with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
                metrics = r.read().decode()
            if f"rmqplan_orphaned_queues{series}" in metrics:
                break
            assert time.monotonic() < deadline, metrics
            time.sleep(0.2)
        values = dict(re.findall(r"^(rmqplan_\w+\{[^}]*\}) (\S+)$", metrics, re.M))
        assert float(values[f"rmqplan_orphaned_queues{series}"]) == len(shown) == 4
        assert float(values[f"rmqplan_orphaned_backlog_messages{series}"]) == sum(shown.values()) == MESSAGES
        assert float(values[f'rmqplan_group_connections{{group="{GROUP}"}}']) == 0
    finally:
        watch.send_signal(signal.SIGTERM)
        watch.communicate(timeout=10)
        rocketmq._forget(watch)


def test_a_group_deleted_with_mqadmin_stays_quiet(gone):
    """`mqadmin deleteSubGroup` (the group's retry topic with it): nobody is meant to consume its queues any more."""
    cluster = gone
    out = _delete_group(cluster)
    assert "success" in out.lower(), out
    done = rmqplan("status", "--namesrv", cluster.namesrv, "--interval", "0", "--format", "json", ok=(0, 1))
    doc = json.loads(done.stdout)
    assert not [p for p in doc["problems"] if p["group"] == GROUP], doc["problems"]
    assert GROUP not in {g["group"] for g in doc["groups"]}

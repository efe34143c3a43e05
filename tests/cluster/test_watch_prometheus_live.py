"""`rmqplan watch` as it runs beside Prometheus: a real Prometheus (Debian's `prometheus`) scrapes it every second
while it reads a real RocketMQ every second, with the alerting rules of docs/watch-alerts.yml (their `for` cut to
1 s). Then, step by step: a healthy group starts; a process joins that reports a client id already connected; it
stops; a broker is killed; it comes back. After each step, Prometheus's own query API shows the change in the
series within two intervals of each (the read's and the scrape's), and the alerts of the incident fire (`ALERTS`)
and resolve.

A cluster of its own (a name server, broker-a and broker-b), since a broker is killed. Prometheus and rmqplan
watch are started as the harness starts its processes (`tests.cluster.rocketmq`): killed with the test run, even
when it fails. Without `prometheus` the test skips, and fails with CI=true (.ci/run installs it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.cluster import rocketmq
from tests.cluster.rocketmq import Consumer, stable_all

pytestmark = pytest.mark.cluster
REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
TOPIC, GROUP = "WatchOrders", "watch_orders"
INTERVAL = 1.0  # rmqplan watch's reads, and Prometheus's scrapes and rule evaluations
WITHIN = 2 * (INTERVAL + INTERVAL) + 1.0  # two intervals of each, and a second for the answers on this machine


def _prometheus() -> str:
    found = shutil.which("prometheus")
    if found is None:
        pytest.skip("no `prometheus` on PATH (apt-get install prometheus; .ci/run installs it)")
    return found


def _get(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


class Prometheus:
    def __init__(self, home: Path, target: str):
        binary = _prometheus()
        rules = yaml.safe_load((REPO / "docs" / "watch-alerts.yml").read_text())
        for rule in rules["groups"][0]["rules"]:
            if "for" in rule:
                rule["for"] = "1s"  # the rules as written, without their minutes of patience
        (home / "rules.yml").write_text(yaml.safe_dump(rules))
        (home / "prometheus.yml").write_text(yaml.safe_dump({
            "global": {"scrape_interval": f"{INTERVAL:g}s", "evaluation_interval": f"{INTERVAL:g}s"},
            "rule_files": [str(home / "rules.yml")],
            "scrape_configs": [{"job_name": "rmqplan", "static_configs": [{"targets": [target]}]}]}))
        self.port = rocketmq.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        log = open(home / "prometheus.log", "wb")
        self.proc = rocketmq._spawn([binary, f"--config.file={home / 'prometheus.yml'}",
                                     f"--storage.tsdb.path={home / 'data'}",
                                     f"--web.listen-address=127.0.0.1:{self.port}"], cwd=home, env=dict(os.environ),
                                    stdout=log)
        deadline = time.monotonic() + 60
        while True:
            try:
                if "Ready" in _get(self.url + "/-/ready"):
                    return
            except OSError:
                pass
            assert self.proc.poll() is None, (home / "prometheus.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "Prometheus not ready in 60 s"
            time.sleep(0.2)

    def query(self, expr: str) -> dict:
        """{labels without __name__: value} of an instant query."""
        doc = json.loads(_get(f"{self.url}/api/v1/query?query={urllib.parse.quote(expr)}"))
        assert doc["status"] == "success", doc
        return {tuple(sorted((k, v) for k, v in r["metric"].items() if k != "__name__")): float(r["value"][1])
                for r in doc["data"]["result"]}

    def until(self, expr: str, want, what: str, since: float, within: float = WITHIN) -> float:
        """Seconds from `since` until `want(values)` holds for the query; fails after `within`."""
        while True:
            values = self.query(expr)
            if want(values):
                return time.monotonic() - since
            took = time.monotonic() - since
            assert took < within, f"{what}: {expr} is {values} {took:.1f} s later"
            time.sleep(0.1)

    def firing(self, alert: str) -> set:
        return {dict(k).get("group", "") for k in self.query(f'ALERTS{{alertname="{alert}",alertstate="firing"}}')}

    def close(self) -> None:
        rocketmq._kill_group(self.proc)
        self.proc.wait(timeout=10)
        rocketmq._forget(self.proc)


@pytest.fixture(scope="module")
def own_cluster(rocketmq_home, tmp_path_factory):
    cluster = rocketmq.start_cluster(tmp_path_factory.mktemp("watched"), ("broker-a", "broker-b"))
    try:
        for broker in ("broker-a", "broker-b"):
            cluster.update_topic(TOPIC, 2, broker=broker)
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def watched(own_cluster, tmp_path):
    watch = rocketmq._spawn([str(BIN / "rmqplan"), "watch", "--namesrv", own_cluster.namesrv, "--listen",
                             "127.0.0.1:0", "--interval", f"{INTERVAL:g}"], cwd=tmp_path, env=dict(os.environ),
                            stdout=open(tmp_path / "changes.txt", "wb"), stderr=subprocess.PIPE)
    prometheus = None
    try:
        first = watch.stderr.readline().decode()
        target = re.search(r"serving http://(\S+?)/ ", first)
        assert target, first
        prometheus = Prometheus(tmp_path, target.group(1))
        yield own_cluster, prometheus, watch, tmp_path / "changes.txt"
    finally:
        if prometheus is not None:
            prometheus.close()
        rocketmq._kill_group(watch)
        watch.wait(timeout=10)
        rocketmq._forget(watch)


def test_prometheus_sees_each_change_and_the_alerts_fire_and_resolve(watched):
    cluster, prom, watch, changes = watched
    g = f'group="{GROUP}"'
    gt = f'{g},topic="{TOPIC}"'
    prom.until('up{job="rmqplan"}', lambda v: list(v.values()) == [1.0], "the scrape", time.monotonic(), 30)

    # a healthy group: two processes with client ids of their own
    healthy = [Consumer(cluster, group=GROUP, subscriptions={TOPIC: "*"}, client="4.9.8", ip="127.0.0.1",
                        instance=f"node-{i}") for i in (1, 2)]
    doubled = None
    try:
        for c in healthy:
            c.started()
        since = time.monotonic()
        prom.until(f"rmqplan_group_connections{{{g}}}", lambda v: list(v.values()) == [2.0], "two joined", since)
        stable_all(healthy)
        assert prom.query(f"rmqplan_orphaned_queues{{{gt}}}") == {(("group", GROUP), ("instance", prom_target(prom)),
                                                                   ("job", "rmqplan"), ("topic", TOPIC)): 0.0}
        assert prom.query(f"rmqplan_queues{{{gt}}}").popitem()[1] == 4

        # a process that reports a client id already connected: both take the same share
        doubled = Consumer(cluster, group=GROUP, subscriptions={TOPIC: "*"}, client="4.9.8", ip="127.0.0.1",
                           instance="node-1")
        doubled.started()
        since = time.monotonic()
        prom.until(f"rmqplan_group_shared_client_ids{{{g}}}", lambda v: list(v.values()) == [1.0], "shared id", since)
        prom.until(f"rmqplan_orphaned_queues{{{gt}}}", lambda v: list(v.values()) == [1.0], "orphaned", since)
        prom.until(f"rmqplan_duplicated_queues{{{gt}}}", lambda v: list(v.values()) == [2.0], "held twice", since)
        sent = cluster.admin("checkMsgSendRT", "-n", cluster.namesrv, "-t", TOPIC, "-a", "8", "-s", "16")
        assert "true" in sent, sent
        prom.until(f"rmqplan_orphaned_backlog_messages{{{gt}}}", lambda v: list(v.values())[0] > 0, "backlog",
                   time.monotonic(), 20)  # the messages reach the orphaned queue: 2 of 8, round robin
        for alert in ("RocketMQSharedClientId", "RocketMQQueuesOrphaned", "RocketMQQueuesHeldTwice",
                      "RocketMQOrphanedQueueBacklog"):
            prom.until(f'ALERTS{{alertname="{alert}",alertstate="firing",{g}}}', lambda v: bool(v),
                       f"{alert} fires", time.monotonic(), WITHIN + 2)

        # it stops: one owner per queue again, and the alerts resolve
        doubled.stop()
        doubled = None
        since = time.monotonic()
        prom.until(f"rmqplan_group_shared_client_ids{{{g}}}", lambda v: list(v.values()) == [0.0], "id unshared",
                   since)
        prom.until(f"rmqplan_orphaned_queues{{{gt}}}", lambda v: list(v.values()) == [0.0], "owned again", since)
        prom.until('ALERTS{alertstate="firing",alertname=~"RocketMQ.*"}', lambda v: not v, "alerts resolve",
                   since, WITHIN + 2)

        # a broker killed: its queues leave the route; back: they return
        broker = cluster.brokers["broker-b"]
        rocketmq._kill_group(broker.proc)
        broker.proc.wait(timeout=10)
        rocketmq._forget(broker.proc)
        broker.proc = None
        since = time.monotonic()
        prom.until("rmqplan_brokers", lambda v: list(v.values()) == [1.0], "a broker gone", since, WITHIN + 10)
        prom.until(f"rmqplan_queues{{{gt}}}", lambda v: list(v.values()) == [2.0], "its queues gone", since,
                   WITHIN + 10)
        cluster.start_broker("broker-b")
        since = time.monotonic()
        prom.until("rmqplan_brokers", lambda v: list(v.values()) == [2.0], "the broker back", since, WITHIN + 30)
        prom.until(f"rmqplan_queues{{{gt}}}", lambda v: list(v.values()) == [4.0], "its queues back", since,
                   WITHIN + 30)
        prom.until("rmqplan_watch_last_read_success", lambda v: list(v.values()) == [1.0], "reading", since)
    finally:
        for c in [*healthy, *([doubled] if doubled else [])]:
            c.close()
    started = time.monotonic()
    watch.send_signal(signal.SIGTERM)
    _, err = watch.communicate(timeout=10)
    assert time.monotonic() - started < 1.0 and watch.returncode == 0 and b"Traceback" not in err, err
    said = changes.read_text()
    assert f"{GROUP}: one client id is reported by 2 connections" in said, said
    assert f"[client ids: 127.0.0.1@node-1]" in said
    assert f"{GROUP}: client left" in said


def prom_target(prom: Prometheus) -> str:
    return next(dict(k)["instance"] for k in prom.query('up{job="rmqplan"}'))

"""docs/watch.md and docs/watch-alerts.yml hold what `rmqplan watch` does: the alerting rules pass Prometheus's own
checker (`promtool check rules`; with CI=true a missing promtool fails), name only series the service writes, and
are the ones the page's table lists; the page's metrics table is what `/metrics` writes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client import generate_latest

from rmqplan.model.fleet import Queue
from tests.planner.remoting_server import FakeCluster, FakeGroup
from tests.planner.test_watch import Service

DOCS = Path(__file__).resolve().parents[2] / "docs"
RULES = DOCS / "watch-alerts.yml"


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("promtool is missing (apt-get install prometheus; .ci/run installs it): CI checks the rules")
        pytest.skip("promtool is missing (apt-get install prometheus)")
    return found


def test_the_alerting_rules_pass_promtool():
    done = subprocess.run([promtool(), "check", "rules", str(RULES)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 6 rules found" in done.stdout


def _written_series() -> set[str]:
    """The metric names `/metrics` writes for a cluster with every kind of group."""
    cluster = FakeCluster(brokers=1, topic="T", queues=2, group="g", clients=("a@1", "a@1"))
    try:
        cluster.topics.update({"%DLQ%g": 1, "%RETRY%gone": 1})
        cluster.groups["gone"] = FakeGroup((), offsets={Queue("T", "broker-0", 0): 0})
        service = Service(cluster)
        service.read()
        text = generate_latest(service.metrics.registry).decode()
    finally:
        cluster.close()
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}


def test_the_rules_and_the_page_name_only_series_the_service_writes():
    written = _written_series()
    rules = yaml.safe_load(RULES.read_text())["groups"][0]["rules"]
    for rule in rules:
        named = set(re.findall(r"\b(rmqplan_[a-z_]+)", rule["expr"]))
        assert named and named <= written, (rule["alert"], named - written)
    page = (DOCS / "watch.md").read_text()
    table = {m for m in re.findall(r"^\| `(rmqplan_[a-z_]+)` \|", page, re.M)}
    assert table == {w for w in written if w.startswith("rmqplan_")}
    shown = dict(re.findall(r"^\| (R\w+) \| `([^`]+)` \|", page, re.M))
    assert shown == {r["alert"]: r["expr"] for r in rules}

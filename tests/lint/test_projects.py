"""Several projects under one PATH: each git repository (clone or submodule) and each marked project
(`.rmqlint.toml`, `[tool.rmqlint]` in a pyproject.toml) below the root is linted on its own, with its own
settings and cache, and never linked to another."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema

from rmqlint.cli import main
from rmqlint.engine import LintOptions, lint
from rmqlint.rules._examples import line_of
from tests.lint.test_engine_fixtures import write_project
from tests.lint.test_reporters import sarif_schema

PRODUCER = """\
package com.shop;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class Events {
    public void send(DefaultMQProducer producer, byte[] body) throws Exception {
        producer.send(new Message("ShopTopic", "orderpaid", body));
    }
}
"""

CONSUMER = """\
package com.shop;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Listener {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("shop_consumer");
        consumer.subscribe("ShopTopic", "OrderPaid");
        consumer.start();
    }
}
"""

FIXED_NAME = """\
package com.billing;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Billing {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("billing");
        consumer.setInstanceName("billing-node");
        consumer.subscribe("BillingTopic", "*");
        consumer.start();
    }
}
"""

PRODUCER_PATH = "src/main/java/com/shop/Events.java"
CONSUMER_PATH = "src/main/java/com/shop/Listener.java"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t",
                    "-c", "protocol.file.allow=always", *args], check=True, capture_output=True)


def checkout(root: Path, files: dict[str, str], commit: bool = False) -> Path:
    write_project(root, files, git=True)
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-qm", "init")
    return root


def codes_by_path(result) -> set[tuple[str, str, int]]:
    return {(f.code, f.location.path, f.location.line) for f in result.findings}


def test_checkouts_side_by_side_are_never_linked(tmp_path):
    """A consumer in one clone and a producer in another: no RMQ002 (they are different systems)."""
    folder = tmp_path / "src"
    checkout(folder / "shop-producer", {PRODUCER_PATH: PRODUCER})
    checkout(folder / "shop-consumer", {CONSUMER_PATH: CONSUMER})
    checkout(folder / "billing", {"src/main/java/com/billing/Billing.java": FIXED_NAME})
    result = lint(LintOptions(paths=[folder], use_cache=False))
    assert codes_by_path(result) == {
        ("RMQ001", "billing/src/main/java/com/billing/Billing.java", line_of(FIXED_NAME, "setInstanceName"))}
    assert sorted(result.projects) == ["", "billing", "shop-consumer", "shop-producer"]
    assert result.files_checked == 3

    # The same two files in one repository are one system: the drift is found.
    same = checkout(tmp_path / "mono", {PRODUCER_PATH: PRODUCER, CONSUMER_PATH: CONSUMER})
    (finding,) = lint(LintOptions(paths=[same], use_cache=False)).findings
    assert finding.code == "RMQ002" and finding.related[0].location.path == PRODUCER_PATH


def test_nested_findings_print_with_openable_paths(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "work"
    checkout(folder / "shop", {PRODUCER_PATH: PRODUCER, CONSUMER_PATH: CONSUMER})
    checkout(folder / "billing", {"src/main/java/com/billing/Billing.java": FIXED_NAME})
    monkeypatch.chdir(folder)
    assert main([".", "--format", "json", "--no-cache"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert sorted(data["projects"]) == [".", "billing", "shop"]
    drift = next(f for f in data["findings"] if f["code"] == "RMQ002")
    assert drift["path"] == f"shop/{CONSUMER_PATH}"
    assert drift["related"][0]["path"] == f"shop/{PRODUCER_PATH}"
    assert f"at shop/{PRODUCER_PATH}:{line_of(PRODUCER, 'orderpaid')}" in drift["message"]
    for f in data["findings"]:
        assert (folder / f["path"]).is_file()

    assert main([".", "--format", "sarif", "--no-cache"]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, sarif_schema())
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "RMQ002")
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"] == {"uri": f"shop/{PRODUCER_PATH}",
                                                               "uriBaseId": "%SRCROOT%"}
    assert f"[shop/{PRODUCER_PATH}:{line_of(PRODUCER, 'orderpaid')}](0)" in result["message"]["text"]

    monkeypatch.chdir(folder / "shop")
    assert main(["..", "--no-cache", "--format", "concise"]) == 1
    out = capsys.readouterr().out
    assert f"{CONSUMER_PATH}:{line_of(CONSUMER, 'subscribe')}:" in out.splitlines()[1]
    assert f"at {PRODUCER_PATH}:" in out
    assert out.splitlines()[0].startswith(f"{folder.resolve().as_posix()}/billing/src/")


def test_each_project_has_its_own_settings_and_cache(tmp_path):
    folder = tmp_path / "all"
    checkout(folder / "billing", {"src/main/java/com/billing/Billing.java": FIXED_NAME})
    quiet = checkout(folder / "quiet", {"src/main/java/com/billing/Billing.java": FIXED_NAME})
    (quiet / ".rmqlint.toml").write_text('ignore = ["RMQ001"]\n', encoding="utf-8")

    first = lint(LintOptions(paths=[folder]))
    assert {f.location.path for f in first.findings} == {"billing/src/main/java/com/billing/Billing.java"}
    assert (folder / "billing" / ".rmqlint_cache").is_dir() and (folder / "quiet" / ".rmqlint_cache").is_dir()
    assert not (folder / ".rmqlint_cache" / "facts.json").exists()

    warm = lint(LintOptions(paths=[folder]))
    assert warm.parsed == 0 and codes_by_path(warm) == codes_by_path(first)
    # Linting one project from inside gives the same answer from the same cache.
    inside = lint(LintOptions(paths=[folder / "billing"]))
    assert inside.parsed == 0 and [f.location.path for f in inside.findings] == ["src/main/java/com/billing/Billing.java"]

    (folder / "quiet" / ".rmqlint.toml").write_text('ignore = ["NOPE1"]\n', encoding="utf-8")
    code = main([str(folder)])
    assert code == 2


def test_a_marked_project_inside_a_repository_is_its_own_project(tmp_path):
    repo = checkout(tmp_path / "repo", {
        f"shop/{PRODUCER_PATH}": PRODUCER,
        f"tools/{CONSUMER_PATH}": CONSUMER,
        "tools/pyproject.toml": "[project]\nname = 'tools'\n\n[tool.rmqlint]\nignore = []\n",
    }, commit=True)
    result = lint(LintOptions(paths=[repo], use_cache=False))
    assert result.findings == [] and sorted(result.projects) == ["", "tools"]

    # A pyproject.toml without [tool.rmqlint] (a Python service in a monorepo) does not split the project.
    (repo / "tools" / "pyproject.toml").write_text("[project]\nname = 'tools'\n", encoding="utf-8")
    result = lint(LintOptions(paths=[repo], use_cache=False))
    assert [f.code for f in result.findings] == ["RMQ002"] and result.projects == [""]

    # Nor does a file of the nested project named on the command line join the outer one.
    (repo / "tools" / ".rmqlint.toml").write_text("", encoding="utf-8")
    result = lint(LintOptions(paths=[repo / "shop", repo / "tools" / CONSUMER_PATH], use_cache=False))
    assert result.findings == [] and result.files_checked == 2


def test_submodules_and_untracked_clones_are_their_own_projects(tmp_path):
    library = checkout(tmp_path / "library", {PRODUCER_PATH: PRODUCER}, commit=True)
    app = checkout(tmp_path / "app", {CONSUMER_PATH: CONSUMER}, commit=True)
    git(app, "submodule", "add", "-q", str(library), "vendor/library")
    checkout(app / "scratch" / "clone", {PRODUCER_PATH: PRODUCER})  # an untracked clone inside the work tree
    result = lint(LintOptions(paths=[app], use_cache=False))
    assert result.findings == []
    assert sorted(result.projects) == ["", "scratch/clone", "vendor/library"]
    assert result.files_checked == 3


def test_a_tree_without_git_skips_nothing_but_splits_at_repositories(tmp_path):
    folder = tmp_path / "plain"
    write_project(folder / "a", {PRODUCER_PATH: PRODUCER})  # marked by .rmqlint.toml
    write_project(folder / "b", {CONSUMER_PATH: CONSUMER}, git=True)
    (folder / "c").mkdir()
    (folder / "c" / "Extra.java").write_text(FIXED_NAME, encoding="utf-8")
    result = lint(LintOptions(paths=[folder], use_cache=False))
    assert codes_by_path(result) == {("RMQ001", "c/Extra.java", line_of(FIXED_NAME, "setInstanceName"))}
    assert sorted(result.projects) == ["", "a", "b"]

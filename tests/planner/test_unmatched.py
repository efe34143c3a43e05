"""`rmqplan fleet` and `check` say what they could not match: every workload of --deploy that runs none of the
code's modules, and every module with consumers that no workload runs, each with the mapping that would match it.
A module without a build file is matched like any other, under the name `rmqlint graph` gives it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rmqplan.cli import run

CONSUMER = """\
package com.example.{name};

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class {cls} {{
    public void start() throws Exception {{
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("{name}_cg");
        consumer.subscribe("{topic}", "*");
        consumer.start();
    }}
}}
"""
POM = """\
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client</artifactId>
      <version>4.9.8</version></dependency>
  </dependencies>
</project>
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
      containers:
        - name: {name}
          image: registry.example.org/{image}:1.0
"""


def _consumer(root: Path, module: str, name: str, topic: str) -> None:
    path = root / module / "src/main/java/com/example" / name / f"{name.title()}Consumer.java"
    path.parent.mkdir(parents=True)
    path.write_text(CONSUMER.format(name=name, cls=f"{name.title()}Consumer", topic=topic), encoding="utf-8")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """orders (a Maven module, deployed), billing (no build file, deployed as "billing"), audit (no build file,
    not deployed); the manifests also run redis, which is none of the code."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "services/orders").mkdir(parents=True)
    (root / "services/orders/pom.xml").write_text(POM, encoding="utf-8")
    _consumer(root, "services/orders", "orders", "Orders")
    _consumer(root, "services/billing", "billing", "Invoices")
    _consumer(root, "services/audit", "audit", "Orders")
    deploy = root / "deploy"
    deploy.mkdir()
    for name, replicas, image in (("orders", 3, "orders"), ("billing", 2, "billing"), ("redis", 1, "redis")):
        (deploy / f"{name}.yaml").write_text(DEPLOYMENT.format(name=name, replicas=replicas, image=image),
                                             encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_every_unmatched_workload_and_module_is_listed_with_its_mapping(project):
    code, out, err = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0
    assert err.splitlines() == [
        "rmqplan: deploy/redis.yaml:1: Deployment redis runs none of the code's modules (its names: redis); if it "
        'runs one, map it in pyproject.toml: [tool.rmqplan.services] "redis" = "<module directory>"',
        "rmqplan: services/audit: no workload of deploy runs this module (name audit; consumer group audit_cg): "
        'modelled as one process; if one runs it, map it in pyproject.toml: [tool.rmqplan.services] '
        '"<workload name>" = "services/audit"',
    ]
    # billing has no build file, and its Deployment runs it: 2 replicas, named as rmqlint graph names the module
    assert "services/billing: Deployment billing (deploy/billing.yaml:1, matched by name 'billing')" in out
    assert '"services/billing"' in rmqlint_graph(project)
    code, check_out, check_err = rmqplan("check", ".", "--deploy", "deploy", "--no-cache")
    assert check_err == err
    assert check_out.splitlines()[-1] == "No findings in 6 files."  # 3 Java files and the 3 manifests


def test_the_suggested_mapping_matches(project):
    (project / "deploy" / "audit.yaml").write_text(DEPLOYMENT.format(name="audit-worker", replicas=2, image="aw"),
                                                   encoding="utf-8")
    (project / "pyproject.toml").write_text('[tool.rmqplan.services]\n"audit-worker" = "services/audit"\n',
                                            encoding="utf-8")
    code, out, err = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0 and "services/audit" not in err and "audit-worker" not in err
    assert "services/audit: Deployment audit-worker (deploy/audit.yaml:1, matched by explicit (pyproject.toml:2))" \
        in out


def test_without_deploy_nothing_is_said_about_workloads(project):
    code, _, err = rmqplan("fleet", "--from-code", ".")
    assert code == 0 and err == ""


def rmqlint_graph(root: Path) -> str:
    import subprocess
    import sys

    done = subprocess.run([str(Path(sys.executable).parent / "rmqlint"), "graph", ".", "--format", "json",
                           "--no-cache"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    services = [n["label"] for n in json.loads(done.stdout)["nodes"] if n["kind"] == "service"]
    return json.dumps(services)


@pytest.mark.parametrize("given", ["absolute", "relative", "dot"])
def test_a_module_without_a_build_file_at_the_project_root_is_named_and_mapped_as_its_directory(given, tmp_path,
                                                                                                   monkeypatch):
    """The project given as /abs/path, as a relative path or as `.`: its directory is the module, named by its last
    part (it was `tmp/...` for an absolute path, `(project root)` for `.`), and the mapping suggested is `.`, which
    matches (it was a path that led out of the project)."""
    root = tmp_path / "billing"
    (root / ".git").mkdir(parents=True)
    _consumer(root, "", "billing", "Invoices")
    (root / "deploy").mkdir()
    (root / "deploy" / "worker.yaml").write_text(DEPLOYMENT.format(name="worker", replicas=2, image="w"))
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path if given == "relative" else root if given == "dot" else tmp_path / "elsewhere")
    code = {"absolute": str(root), "relative": "billing", "dot": "."}[given]
    pyproject = {"absolute": f"{root}/pyproject.toml", "relative": "billing/pyproject.toml",
                 "dot": "pyproject.toml"}[given]
    deploy = {"absolute": f"{root}/deploy", "relative": "billing/deploy", "dot": "deploy"}[given]
    status, out, err = rmqplan("fleet", "--from-code", code, "--deploy", deploy)
    assert status == 0, err
    assert err.splitlines()[-1] == (
        f"rmqplan: {code}: no workload of {deploy} runs this module (name billing; consumer group billing_cg): "
        f'modelled as one process; if one runs it, map it in {pyproject}: [tool.rmqplan.services] '
        '"<workload name>" = "."')
    (root / "pyproject.toml").write_text('[tool.rmqplan.services]\n"worker" = "."\n')
    status, out, err = rmqplan("fleet", "--from-code", code, "--deploy", deploy)
    assert status == 0 and err == "", err
    assert "Deployment worker (" in out and "2 replicas" in out, out

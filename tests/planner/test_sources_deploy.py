"""Kubernetes manifests and docker-compose files -> services with replicas and host networking."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sources.deploy import read_deployments, read_manifest_text

DEPLOY = Path(__file__).parent / "fixtures" / "shop" / "deploy"


def _by_name(result):
    return {s.name: s for s in result.services}


def test_kubernetes_and_compose_workloads():
    result = read_deployments(DEPLOY)
    services = _by_name(result)
    assert sorted(services) == ["audit", "billing", "namesrv", "notifier", "orders"]
    orders = services["orders"]
    assert (orders.kind, orders.replicas, orders.host_network, orders.namespace) == ("Deployment", 3, True, "shop")
    assert orders.images == ["registry.example.com/shop/orders-service:1.8.2"]
    assert orders.labels == {"app": "orders"}
    billing = services["billing"]
    assert (billing.kind, billing.replicas, billing.host_network) == ("StatefulSet", 2, False)
    audit = services["audit"]  # inside a kind: List, no spec.replicas
    assert (audit.replicas, audit.replicas_note, audit.host_network) == (1, "Kubernetes default (no spec.replicas)",
                                                                         True)
    notifier = services["notifier"]  # network_mode merged from an anchor
    assert (notifier.kind, notifier.replicas, notifier.host_network) == ("compose", 2, True)
    assert services["namesrv"].replicas == 1 and not services["namesrv"].host_network


def test_values_name_their_lines():
    services = _by_name(read_deployments(DEPLOY))
    orders_text = (DEPLOY / "k8s" / "orders.yaml").read_text().splitlines()
    assert orders_text[services["orders"].replicas_origin.line - 1].strip() == "replicas: 3"
    assert orders_text[services["orders"].host_network_origin.line - 1].strip() == "hostNetwork: true"
    billing_text = (DEPLOY / "k8s" / "billing.yaml").read_text().splitlines()
    assert billing_text[services["billing"].replicas_origin.line - 1].strip() == "replicas: 2"
    compose = (DEPLOY / "compose" / "docker-compose.yml").read_text().splitlines()
    assert compose[services["notifier"].replicas_origin.line - 1].strip() == "replicas: 2"
    # merged from the anchor: the line where the anchor's mapping says it
    assert compose[services["notifier"].host_network_origin.line - 1].strip() == "network_mode: host"


def test_a_helm_template_is_one_problem_with_its_line():
    result = read_deployments(DEPLOY)
    assert len(result.problems) == 1
    problem = result.problems[0]
    assert problem.origin.path.endswith("chart/templates/deployment.yaml") and problem.origin.line == 4
    assert "Helm template" in problem.message


def test_bad_files_each_give_one_line(tmp_path):
    (tmp_path / "a.yaml").write_text("kind: Deployment\nspec: [\n")
    (tmp_path / "b.yml").write_bytes(b"\x00\x01")
    (tmp_path / "c.yaml").write_bytes("x: 1\ny: \xff\n".encode("latin-1"))
    (tmp_path / "d.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n"
                                     "  replicas: many\n")
    (tmp_path / "e.yaml").write_text('a: &a ["x","x","x","x","x","x","x","x","x"]\n'
                                     + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                                               for p, c in zip("abcdefgh", "bcdefghi")))
    result = read_deployments(tmp_path)
    messages = sorted(str(p) for p in result.problems)
    assert len(messages) == 5, messages
    assert "a.yaml:3: not valid YAML" in messages[0]
    assert "b.yml: binary file" in messages[1]
    assert "c.yaml:2: not UTF-8" in messages[2]
    assert "d.yaml:6: `replicas` is 'many'" in messages[3]
    assert "e.yaml:1: not readable as YAML: expands to more than" in messages[4]
    assert [(s.name, s.replicas) for s in result.services] == [("x", None)]


def test_a_missing_directory_is_one_problem(tmp_path):
    result = read_deployments(tmp_path / "missing")
    assert [p.message for p in result.problems] == ["no such file or directory"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_reads_without_a_traceback(text):
    result = read_manifest_text(text, "x.yaml")
    for problem in result.problems:
        assert problem.origin.path == "x.yaml" and problem.origin.line >= 1


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.sampled_from(["Deployment", "StatefulSet", "ReplicaSet"]))
def test_written_replicas_and_host_network_are_read_back(replicas, host, kind):
    text = (f"apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: svc\nspec:\n  replicas: {replicas}\n"
            f"  template:\n    spec:\n      hostNetwork: {'true' if host else 'false'}\n"
            "      containers:\n        - name: c\n          image: i:1\n")
    (service,) = read_manifest_text(text, "m.yaml").services
    assert (service.kind, service.replicas, service.host_network) == (kind, replicas, host)
    assert service.replicas_origin.line == 6

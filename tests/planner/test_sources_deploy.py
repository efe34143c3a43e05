"""Kubernetes manifests and docker-compose files -> services with replicas, host networking and node limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.sources.deploy import read_deployments, read_manifest_text

DEPLOY = Path(__file__).parent / "fixtures" / "shop" / "deploy"


def _by_name(result):
    return {s.name: s for s in result.services}


@pytest.fixture(scope="module")
def shop():
    return read_deployments(DEPLOY)


def _at(origin) -> str:
    return Path(origin.path).read_text().splitlines()[origin.line - 1].strip()


def test_kubernetes_and_compose_workloads(shop):
    services = _by_name(shop)
    assert sorted(services) == ["audit", "billing", "namesrv", "notifier", "orders"]
    orders = services["orders"]
    assert (orders.kind, orders.replicas, orders.host_network, orders.namespace) == ("Deployment", 3, True, "shop")
    assert orders.images == ["registry.example.com/shop/orders-service:1.8.2"]
    assert orders.labels == {"app": "orders"}
    assert (orders.max_per_node, orders.one_per_node) == (None, False)  # no port: all three may share a node
    billing = services["billing"]
    assert (billing.kind, billing.replicas, billing.host_network) == ("StatefulSet", 2, False)
    assert billing.pod_names == ["billing-0", "billing-1"]
    notifier = services["notifier"]  # network_mode merged from an anchor
    assert (notifier.kind, notifier.replicas, notifier.host_network) == ("compose", 2, True)
    assert services["namesrv"].replicas == 1 and not services["namesrv"].host_network
    assert services["namesrv"].replicas_note == "compose default (no deploy.replicas)"


def test_values_name_their_lines(shop):
    services = _by_name(shop)
    assert _at(services["orders"].replicas_origin) == "replicas: 3"
    assert _at(services["orders"].host_network_origin) == "hostNetwork: true"
    assert _at(services["billing"].replicas_origin) == "replicas: 2"
    assert _at(services["notifier"].replicas_origin) == "replicas: 2"
    # merged from the anchor: the line where the anchor's mapping says it
    assert _at(services["notifier"].host_network_origin) == "network_mode: host"
    assert _at(services["orders"].origin) == "apiVersion: apps/v1"


def test_host_ports_on_host_networking_allow_one_replica_per_node(shop):
    audit = _by_name(shop)["audit"]  # inside a kind: List; containerPort 8081 on hostNetwork is a host port
    assert (audit.replicas, audit.max_per_node, audit.one_per_node) == (2, 1, True)
    assert "host port 8081" in audit.max_per_node_why
    assert _at(audit.max_per_node_origin) == "- name: http"


def test_an_autoscaler_gives_the_replica_range(shop):
    billing = _by_name(shop)["billing"]
    assert (billing.autoscale.kind, billing.autoscale.min_replicas, billing.autoscale.max_replicas) == (
        "HorizontalPodAutoscaler", 2, 6)
    assert _at(billing.autoscale.origin) == "maxReplicas: 6"


def test_container_env_keeps_what_kubernetes_fills_in(shop):
    (billing,) = _by_name(shop)["billing"].containers
    assert billing.env["POD_NAME"].value is None and billing.env["POD_NAME"].source == "fieldRef metadata.name"
    # $(POD_NAME) is expanded by Kubernetes from the container's own variables: not a literal
    assert billing.env["JAVA_TOOL_OPTIONS"].value is None
    assert billing.env["JAVA_TOOL_OPTIONS"].source == "-Drocketmq.client.name=$(POD_NAME)"
    (orders,) = _by_name(shop)["orders"].containers
    assert orders.env["ROCKETMQ_NAMESRV"].value == "10.1.0.5:9876"


def test_a_helm_chart_is_one_problem_and_go_templates_in_strings_are_fine(shop):
    # alerts.yaml holds `{{ $labels.group }}` inside a string: valid YAML, read (no workload), no problem
    assert [(Path(p.origin.path).relative_to(DEPLOY).as_posix(), p.origin.line) for p in shop.problems] == [
        ("chart/templates/deployment.yaml", 1)]
    assert "Helm template" in shop.problems[0].message and "helm template" in shop.problems[0].message


def test_templated_values_in_valid_yaml_are_unknown():
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
            "  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n"
            '        - name: orders\n          image: "{{ .Values.image }}"\n')
    result = read_manifest_text(text, "d.yaml")
    (orders,) = result.services
    assert (orders.replicas, orders.replicas_note, orders.images) == (None, "a template expression", [])
    assert [(p.origin.line, p.message.split(":")[0]) for p in result.problems] == [
        (6, "`replicas` is a template expression"), (10, "the image of container orders is a template expression")]


def test_scheduling_constraints(tmp_path):
    base = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: 4\n"
            "  template:\n    metadata:\n      labels:\n        app: {name}\n        tier: mq\n    spec:\n"
            "      hostNetwork: true\n{extra}      containers:\n        - name: c\n          image: i:1\n")
    anti = ("      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
            "            - topologyKey: kubernetes.io/hostname\n              labelSelector:\n"
            "                matchExpressions:\n                  - {{key: app, operator: In, values: [{sel}]}}\n")
    spread = ("      topologySpreadConstraints:\n        - maxSkew: 2\n          topologyKey: kubernetes.io/hostname\n"
              "          whenUnsatisfiable: {when}\n          labelSelector:\n            matchLabels: {{tier: mq}}\n")
    (tmp_path / "a.yaml").write_text("---\n".join([
        base.format(name="anti", extra=anti.format(sel="anti")),
        base.format(name="other", extra=anti.format(sel="someone-else")),  # selects other pods: no limit
        base.format(name="spread", extra=spread.format(when="DoNotSchedule")),
        base.format(name="soft", extra=spread.format(when="ScheduleAnyway")),
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  template:\n    spec:\n"
        "      containers: []\n"]))
    services = _by_name(read_deployments(tmp_path))
    assert (services["anti"].max_per_node, services["anti"].max_per_node_origin.line) == (1, 17)
    assert services["other"].max_per_node is None
    assert (services["spread"].spread_max_skew, services["spread"].max_per_node) == (2, None)
    assert services["soft"].spread_max_skew is None
    agent = services["agent"]
    assert (agent.replicas, agent.one_per_node, agent.replicas_note) == (None, True, "a DaemonSet runs one per node")


def test_compose_details(tmp_path):
    (tmp_path / "compose.yaml").write_text(
        "services:\n"
        "  orders:\n    image: shop/orders:1\n    network_mode: host\n    deploy:\n      replicas: ${ORDERS:-3}\n"
        "    environment:\n      - JAVA_TOOL_OPTIONS=-Drocketmq.client.name=orders\n      - FROM_SHELL\n"
        "  agent:\n    image: shop/agent:1\n    deploy:\n      mode: global\n"
        "  legacy:\n    build: ./legacy\n    scale: 2\n    command: java -jar app.jar\n")
    result = read_deployments(tmp_path)
    services = _by_name(result)
    orders = services["orders"]
    assert (orders.replicas, orders.replicas_note) == (None, "set by the environment (${ORDERS:-3})")
    assert [(p.origin.line, "set by the environment" in p.message) for p in result.problems] == [(6, True)]
    assert orders.containers[0].env["JAVA_TOOL_OPTIONS"].value == "-Drocketmq.client.name=orders"
    assert orders.containers[0].env["FROM_SHELL"].value is None
    assert (services["agent"].replicas, services["agent"].replicas_note) == (None, "global: one per node")
    assert services["legacy"].replicas == 2 and services["legacy"].containers[0].command == ("java", "-jar",
                                                                                             "app.jar")


def test_a_yaml_with_services_that_is_not_compose_is_not_read(tmp_path):
    (tmp_path / "application.yml").write_text("services:\n  payments:\n    url: http://payments\n")
    assert read_deployments(tmp_path).services == []


def test_a_workload_defined_twice_is_kept_and_named(tmp_path):
    manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n  replicas: {n}\n"
    (tmp_path / "base").mkdir()
    (tmp_path / "overlay").mkdir()
    (tmp_path / "base" / "d.yaml").write_text(manifest.format(n=1))
    (tmp_path / "overlay" / "d.yaml").write_text(manifest.format(n=5))
    result = read_deployments(tmp_path)
    assert [s.replicas for s in result.services] == [1, 5]
    (problem,) = result.problems
    assert problem.origin.path.endswith("overlay/d.yaml") and "also defined at" in problem.message


def test_bad_files_each_give_one_line(tmp_path):
    (tmp_path / "a.yaml").write_text("kind: Deployment\nspec: [\n")
    (tmp_path / "b.yml").write_bytes(b"\x00\x01")
    (tmp_path / "c.yaml").write_bytes("x: 1\ny: \xff\n".encode("latin-1"))
    (tmp_path / "d.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n"
                                     "  replicas: many\n")
    (tmp_path / "e.yaml").write_text('a: &a ["x","x","x","x","x","x","x","x","x"]\n'
                                     + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                                               for p, c in zip("abcdefgh", "bcdefghi")))
    (tmp_path / "f.yaml").write_text("apiVersion: v1\nkind: Secret\ndata: !vault |\n  abc\n")
    result = read_deployments(tmp_path)
    messages = sorted(str(p) for p in result.problems)
    assert len(messages) == 6, messages
    assert "a.yaml:3: not valid YAML" in messages[0]
    assert "b.yml: binary file" in messages[1]
    assert "c.yaml:2: not UTF-8" in messages[2]
    assert "d.yaml:6: `replicas` is 'many'" in messages[3]
    assert "e.yaml:1: not readable as YAML: expands to more than" in messages[4]
    assert "f.yaml:3: not valid YAML" in messages[5]
    assert [(s.name, s.replicas) for s in result.services] == [("x", None)]


def test_a_missing_directory_is_one_problem(tmp_path):
    result = read_deployments(tmp_path / "missing")
    assert [p.message for p in result.problems] == ["no such file or directory"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.text(st.characters(codec=None), max_size=50))  # lone surrogates too
def test_any_text_reads_without_a_traceback(text):
    result = read_manifest_text(text, "x.yaml", [])
    for problem in result.problems:
        assert problem.origin.path == "x.yaml" and problem.origin.line >= 1 and "\n" not in str(problem)


yaml_scalars = st.one_of(st.integers(-5, 5), st.booleans(), st.none(), st.text(max_size=8),
                         st.sampled_from(["{{ .Values.x }}", "${R:-2}", "3"]))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["replicas", "hostNetwork", "image", "name", "containerPort", "hostPort",
                                        "maxSkew", "topologyKey", "mode", "scale", "network_mode"]),
                       yaml_scalars, max_size=6),
       st.sampled_from(["Deployment", "StatefulSet", "DaemonSet", "compose", "HorizontalPodAutoscaler"]))
def test_odd_values_in_the_right_places_read_without_a_traceback(values, kind):
    import yaml

    v = values.get
    if kind == "compose":
        doc = {"services": {"s": {"image": v("image"), "scale": v("scale"), "network_mode": v("network_mode"),
                                  "deploy": {"replicas": v("replicas"), "mode": v("mode")}}}}
    elif kind == "HorizontalPodAutoscaler":
        doc = {"apiVersion": "autoscaling/v2", "kind": kind, "metadata": {"name": v("name")},
               "spec": {"scaleTargetRef": {"name": v("name")}, "maxReplicas": v("replicas")}}
    else:
        doc = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": v("name")},
               "spec": {"replicas": v("replicas"), "template": {"spec": {
                   "hostNetwork": v("hostNetwork"),
                   "topologySpreadConstraints": [{"maxSkew": v("maxSkew"), "topologyKey": v("topologyKey")}],
                   "containers": [{"name": v("name"), "image": v("image"),
                                   "ports": [{"containerPort": v("containerPort"), "hostPort": v("hostPort")}]}]}}}}
    result = read_manifest_text(yaml.safe_dump(doc), "x.yaml", [])
    for service in result.services:
        assert service.replicas is None or (isinstance(service.replicas, int) and service.replicas >= 0)
        assert service.max_per_node in (None, 1)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.sampled_from(["Deployment", "StatefulSet", "ReplicaSet",
                                                                "Rollout", "DeploymentConfig"]),
       st.lists(st.integers(1, 65535), max_size=3))
def test_written_replicas_and_host_network_are_read_back(replicas, host, kind, ports):
    listed = "".join(f"            - containerPort: {p}\n" for p in ports)
    text = (f"apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: svc\nspec:\n  replicas: {replicas}\n"
            f"  template:\n    spec:\n      hostNetwork: {'true' if host else 'false'}\n"
            "      containers:\n        - name: c\n          image: i:1\n"
            + ("          ports:\n" + listed if ports else ""))
    (service,) = read_manifest_text(text, "m.yaml").services
    assert (service.kind, service.replicas, service.host_network) == (kind, replicas, host)
    assert service.replicas_origin.line == 6
    assert service.max_per_node == (1 if host and ports else None)

"""Deployed services matched to code modules; which IP each of their processes reports."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from rmqplan.sources.buildfiles import Module, read_build_files
from rmqplan.sources.deploy import Container, DeployedService, read_deployments
from rmqplan.sources.origin import Origin
from rmqplan.sources.services import explicit_services, image_name, match_services, process_layout

SHOP = Path(__file__).parent / "fixtures" / "shop"


def _service(name, replicas=3, host=True, image="", containers=None, kind="Deployment", **limits):
    service = DeployedService(name, kind, replicas, Origin("d.yaml", 9), "", host, None,
                              containers or [Container(name, image)], Origin("d.yaml", 1))
    for key, value in limits.items():
        setattr(service, key, value)
    return service


def _module(directory, name):
    return Module(directory, "pom.xml", name, Origin(directory))


def test_the_shop_services_find_their_modules():
    deployment = read_deployments(SHOP / "deploy")
    modules = read_build_files(SHOP).modules
    matching = match_services(deployment.services, modules, SHOP)
    got = {m.service.name: (Path(m.module.directory).relative_to(SHOP).as_posix(), m.how) for m in matching.matches}
    # orders (Deployment) ~ services/orders (directory); the others by their directories too
    assert got == {"orders": ("services/orders", "name 'orders'"), "billing": ("services/billing", "name 'billing'"),
                   "audit": ("services/audit", "name 'audit'"), "notifier": ("services/notifier", "name 'notifier'")}
    assert [s.name for s in matching.unmatched] == ["namesrv"] and matching.problems == []
    orders = next(m for m in modules if m.name == "orders-service")
    assert [s.name for s in matching.services_of(orders)] == ["orders"]


def test_explicit_mapping_wins_and_a_bad_one_is_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "legacy"\n\n[tool.rmqplan.services]\n'
                                             '"legacy-orders" = "services/orders"\n'
                                             'ghost = "nowhere"\nlegacy = 3\n')
    explicit, problems = explicit_services(tmp_path / "pyproject.toml")
    assert explicit["legacy-orders"][1].line == 5 and explicit["ghost"][1].line == 6
    assert [(p.origin.line, "expected a module directory or name" in p.message) for p in problems] == [(7, True)]
    orders = _module(str(tmp_path / "services/orders"), "orders-service")
    matching = match_services([_service("legacy-orders"), _service("ghost")], [orders], tmp_path, explicit)
    assert [(m.service.name, m.how) for m in matching.matches] == [
        ("legacy-orders", f"explicit ({tmp_path}/pyproject.toml:5)")]
    assert len(matching.problems) == 1 and "ghost = 'nowhere': no module" in matching.problems[0].message



def test_an_unknown_key_of_tool_rmqplan_is_reported_not_ignored(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.rmqplan]\nnode = 3\nservice = {}\nreplicas = 2\n')
    _, problems = explicit_services(tmp_path / "pyproject.toml")
    assert [str(p) for p in problems] == [
        f"{tmp_path}/pyproject.toml: [tool.rmqplan] node: unknown key (did you mean 'nodes'?)",
        f"{tmp_path}/pyproject.toml: [tool.rmqplan] service: unknown key (did you mean 'services'?)",
        f"{tmp_path}/pyproject.toml: [tool.rmqplan] replicas: unknown key (expected one of: nodes, services)"]

def test_ambiguous_names_are_not_guessed_but_an_exact_name_is_not_ambiguous():
    a = _module("/r/a/orders", "orders")
    b = _module("/r/b/orders-app", "x")
    matching = match_services([_service("orders-service")], [a, b], Path("/r"))
    assert matching.matches == [] and "matches several modules" in matching.problems[0].message
    exact = match_services([_service("orders")], [a, b], Path("/r"))
    assert [(m.module.directory, m.how) for m in exact.matches] == [("/r/a/orders", "name 'orders'")]


def test_images_and_labels_name_services():
    assert image_name("registry.example.com:5000/shop/orders-service:1.8.2") == "orders-service"
    assert image_name("orders@sha256:abc") == "orders"
    svc = _service("deploy-x", containers=[Container("main", "reg/shop/billing:2")])
    billing = _module("/r/services/billing", "billing")
    matching = match_services([svc], [billing], Path("/r"))
    assert matching.module_of(svc) is billing and matching.matches[0].how == "name 'billing'"
    labelled = _service("deploy-y", containers=[Container("main", "")])
    labelled.labels = {"app.kubernetes.io/name": "billing-service"}
    assert match_services([labelled], [billing], Path("/r")).matches[0].how == "similar name 'billing'"


def test_host_network_worst_case_and_spread():
    layout = process_layout(_service("orders", 3, host=True))
    assert [(h.host, h.count) for h in layout.hosts] == [("orders-node-1", 3)]
    assert "worst case" in layout.why and layout.worst_case
    spread = process_layout(_service("orders", 5, host=True), nodes=2)
    assert [h.count for h in spread.hosts] == [3, 2] and not spread.worst_case
    pods = process_layout(_service("orders", 2, host=False))
    assert [(h.host, h.count) for h in pods.hosts] == [("orders-pod-1", 1), ("orders-pod-2", 1)]
    assert process_layout(_service("x", None)) is None
    assert process_layout(_service("orders", 3), replicas=6).processes == 6  # an autoscaler's maximum


def test_what_keeps_replicas_apart():
    ports = _service("audit", 3, max_per_node=1, max_per_node_why="host port 8081: at most one per node")
    layout = process_layout(ports)
    assert [(h.host, h.count) for h in layout.hosts] == [("audit-node-1", 1), ("audit-node-2", 1),
                                                         ("audit-node-3", 1)]
    short = process_layout(ports, nodes=2)
    assert (short.processes, short.pending) == (2, 1) and "1 stays Pending" in short.why
    skew = process_layout(_service("s", 4, spread_max_skew=1))
    assert [h.count for h in skew.hosts] == [4] and "maxSkew 1" in skew.why
    daemon = _service("agent", None, kind="DaemonSet")
    assert process_layout(daemon) is None and process_layout(daemon, nodes=3).processes == 3


def test_compose_host_network_is_one_machine_for_certain():
    layout = process_layout(_service("notifier", 2, kind="compose"))
    assert [(h.host, h.count) for h in layout.hosts] == [("notifier-host", 2)] and not layout.worst_case
    statefulset = process_layout(_service("billing", 2, host=False, kind="StatefulSet"))
    assert [h.host for h in statefulset.hosts] == ["billing-0", "billing-1"]


@given(st.integers(1, 200), st.integers(1, 50), st.booleans())
def test_spreading_keeps_every_replica(replicas, nodes, one_per_node):
    service = _service("s", replicas, host=True, max_per_node=1 if one_per_node else None)
    layout = process_layout(service, nodes=nodes)
    counts = [h.count for h in layout.hosts]
    assert sum(counts) + layout.pending == replicas
    assert len({h.host for h in layout.hosts}) == len(counts) <= nodes
    assert max(counts) - min(counts) <= 1
    if one_per_node:
        assert set(counts) == {1} and layout.pending == max(0, replicas - nodes)

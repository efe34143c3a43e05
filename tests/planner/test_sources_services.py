"""Deployed services matched to code modules; where their processes report their IP."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from planner.sources.buildfiles import Module, read_build_files
from planner.sources.deploy import Container, DeployedService, read_deployments
from planner.sources.origin import Origin
from planner.sources.services import explicit_services, image_name, match_services, process_layout

SHOP = Path(__file__).parent / "fixtures" / "shop"


def _service(name, replicas=3, host=True, image="", containers=None):
    return DeployedService(name, "Deployment", replicas, Origin("d.yaml", 9), "", host, None,
                           containers or [Container(name, image)], Origin("d.yaml", 1))


def test_the_shop_services_find_their_modules():
    deployment = read_deployments(SHOP / "deploy")
    modules = read_build_files(SHOP).modules
    matches, problems = match_services(deployment.services, modules, SHOP)
    got = {m.service.name: Path(m.module.directory).relative_to(SHOP).as_posix() for m in matches}
    # orders-service (artifactId) ~ orders (Deployment); billing, audit, notifier by directory
    assert got == {"orders": "services/orders", "billing": "services/billing", "audit": "services/audit",
                   "notifier": "services/notifier"}
    assert problems == []


def test_explicit_mapping_wins_and_a_bad_one_is_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.rmqplan.services]\n"legacy-orders" = "services/orders"\n'
                                             'ghost = "nowhere"\n')
    explicit, problems = explicit_services(tmp_path / "pyproject.toml")
    assert problems == [] and explicit["legacy-orders"][1].line == 2
    orders = Module(str(tmp_path / "services/orders"), "pom.xml", "orders-service", Origin("pom.xml"))
    matches, problems = match_services([_service("legacy-orders"), _service("ghost")], [orders], tmp_path, explicit)
    assert [(m.service.name, m.how) for m in matches] == [("legacy-orders", f"explicit ({tmp_path}/pyproject.toml:2)")]
    assert len(problems) == 1 and "ghost = 'nowhere': no module" in problems[0].message


def test_ambiguous_names_are_not_guessed():
    a = Module("/r/a/orders", "pom.xml", "orders", Origin("a"))
    b = Module("/r/b/orders-app", "pom.xml", "x", Origin("b"))
    matches, problems = match_services([_service("orders")], [a, b], Path("/r"))
    assert matches == [] and "matches several modules" in problems[0].message


def test_images_name_services():
    assert image_name("registry.example.com:5000/shop/orders-service:1.8.2") == "orders-service"
    assert image_name("orders@sha256:abc") == "orders"
    svc = _service("deploy-x", containers=[Container("main", "reg/shop/billing:2")])
    billing = Module("/r/services/billing", "build.gradle", "billing", Origin("b"))
    matches, _ = match_services([svc], [billing], Path("/r"))
    assert matches and matches[0].module is billing


def test_host_network_worst_case_and_spread():
    layout = process_layout(_service("orders", 3, host=True))
    assert [(h.host, h.count) for h in layout.hosts] == [("orders-node-1", 3)]
    assert "worst case" in layout.why
    spread = process_layout(_service("orders", 5, host=True), nodes=2)
    assert [h.count for h in spread.hosts] == [3, 2]
    pods = process_layout(_service("orders", 2, host=False))
    assert [(h.host, h.count) for h in pods.hosts] == [("orders-pod-1", 1), ("orders-pod-2", 1)]
    assert process_layout(_service("x", None)) is None


@given(st.integers(1, 200), st.integers(1, 50))
def test_spreading_keeps_every_replica(replicas, nodes):
    layout = process_layout(_service("s", replicas, host=True), nodes=nodes)
    counts = [h.count for h in layout.hosts]
    assert sum(counts) == replicas and max(counts) - min(counts) <= 1 and len(counts) == min(nodes, replicas)

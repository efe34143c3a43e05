"""Build files -> modules and the RocketMQ client version each builds with."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sources.buildfiles import read_build_files, read_gradle, read_pom, read_requirements

SHOP = Path(__file__).parent / "fixtures" / "shop"


@pytest.fixture(scope="module")
def shop():
    return read_build_files(SHOP)


def _module(index, directory):
    return next(m for m in index.modules if Path(m.directory) == SHOP / directory)


def test_maven_version_from_the_parent_dependency_management_and_properties(shop):
    orders = _module(shop, "services/orders")
    assert orders.name == "orders-service"
    (dep,) = orders.dependencies
    assert (dep.artifact, dep.version, dep.unknown, dep.remoting_client_version) == (
        "rocketmq-client", "4.9.4", "", "4.9.4")
    lines = (SHOP / "services/orders/pom.xml").read_text().splitlines()
    assert lines[dep.origin.line - 1].strip() == "<dependency>"
    assert lines[orders.name_origin.line - 1].strip() == "<artifactId>orders-service</artifactId>"


def test_gradle_kotlin_spring_starter_maps_to_its_client(shop):
    billing = _module(shop, "services/billing")
    (dep,) = billing.dependencies
    assert (dep.artifact, dep.version, dep.remoting_client_version) == ("rocketmq-spring-boot-starter", "2.2.3",
                                                                        "5.0.0")
    assert "rocketmq-spring-boot-starter" in (SHOP / "services/billing/build.gradle.kts").read_text().splitlines()[
        dep.origin.line - 1]


def test_gradle_groovy_ext_variable(shop):
    (dep,) = _module(shop, "services/audit").dependencies
    assert (dep.artifact, dep.version) == ("rocketmq-client", "4.5.1")


def test_python_requirements_pin(shop):
    notifier = _module(shop, "services/notifier")
    (dep,) = notifier.dependencies
    assert (dep.artifact, dep.version, dep.origin.line) == ("rocketmq-client-python", "2.0.0", 2)
    assert dep.remoting_client_version is None


def test_module_of_a_source_file(shop):
    java = SHOP / "services/orders/src/main/java/com/example/shop/orders/OrderConsumer.java"
    assert shop.module_of(str(java)).name == "orders-service"
    assert shop.module_of(str(SHOP / "deploy" / "k8s" / "orders.yaml")).name == "shop-parent"
    assert shop.problems == []


def test_unknown_versions_say_why(tmp_path):
    (tmp_path / "pom.xml").write_text(
        "<project><artifactId>a</artifactId><dependencies>"
        "<dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client</artifactId>"
        "<version>${mq.version}</version></dependency>"
        "<dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client-java</artifactId>"
        "</dependency></dependencies></project>")
    problems = []
    module = read_pom(tmp_path / "pom.xml", problems)
    assert [(d.artifact, d.version) for d in module.dependencies] == [("rocketmq-client", None),
                                                                       ("rocketmq-client-java", None)]
    assert "${mq.version} is not set" in module.dependencies[0].unknown
    assert "dependencyManagement" in module.dependencies[1].unknown
    (tmp_path / "requirements.txt").write_text("rocketmq-python-client>=5.0\n")
    (dep,) = read_requirements(tmp_path / "requirements.txt", problems)
    assert dep.version is None and "pip decides" in dep.unknown
    assert problems == []


def test_gradle_forms(tmp_path):
    (tmp_path / "gradle").mkdir()
    (tmp_path / "gradle" / "libs.versions.toml").write_text(
        '[versions]\nrocketmq = "4.9.7"\n[libraries]\n'
        'rocketmq-client = { module = "org.apache.rocketmq:rocketmq-client", version.ref = "rocketmq" }\n')
    (tmp_path / "gradle.properties").write_text("mqJava=5.0.6\n")
    (tmp_path / "build.gradle.kts").write_text(
        'dependencies {\n'
        '    implementation(libs.rocketmq.client)\n'
        '    implementation("org.apache.rocketmq", "rocketmq-client-java", "${property("x")}")\n'
        '    implementation(group = "org.apache.rocketmq", name = "rocketmq-spring-boot-starter", version = "2.3.1")\n'
        '    implementation("org.apache.rocketmq:rocketmq-client-java:$mqJava")\n'
        '}\n')
    problems = []
    module = read_gradle(tmp_path / "build.gradle.kts", tmp_path, problems)
    got = [(d.artifact, d.version, d.origin.line) for d in module.dependencies]
    assert got == [("rocketmq-client", "4.9.7", 2), ("rocketmq-client-java", None, 3),
                   ("rocketmq-spring-boot-starter", "2.3.1", 4), ("rocketmq-client-java", "5.0.6", 5)]
    assert problems == []


def test_broken_build_files_are_one_line_each(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "pom.xml").write_text("<project><artifactId>x</artifactId>\n<dependencies>\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "pyproject.toml").write_text("[project\nname = 1\n")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "build.gradle").write_bytes(b"\xff\xfe garbage")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "pom.xml").write_text("<project><parent><artifactId>d</artifactId>"
                                            "<relativePath>../d/pom.xml</relativePath></parent>"
                                            "<artifactId>d</artifactId></project>")  # its own parent
    index = read_build_files(tmp_path)
    messages = sorted(str(p) for p in index.problems)
    assert len(messages) == 3, messages
    assert "a/pom.xml:3: not valid XML" in messages[0]
    assert "b/pyproject.toml: invalid TOML" in messages[1]
    assert "c/build.gradle:1: not UTF-8" in messages[2]
    assert [m.name for m in index.modules] == ["d"]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_gradle_text_reads_without_a_traceback(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("g") / "build.gradle"
    path.write_text(text, encoding="utf-8")
    read_gradle(path, path.parent, [])


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_pom_text_reads_without_a_traceback(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("p") / "pom.xml"
    path.write_text(text, encoding="utf-8")
    problems = []
    read_pom(path, problems)
    assert all(p.origin.path == str(path) for p in problems)

"""Build files -> modules and the RocketMQ client version each builds with (resolved or unknown, never guessed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.sources.buildfiles import (
    SPRING_STARTER_CLIENT,
    concrete_version,
    read_build_files,
    read_gradle,
    read_pom,
    read_pyproject,
    read_requirements,
)

SHOP = Path(__file__).parent / "fixtures" / "shop"
CLIENT = "org.apache.rocketmq"


@pytest.fixture(scope="module")
def shop():
    return read_build_files(SHOP)


def _module(index, directory):
    return next(m for m in index.modules if Path(m.directory) == SHOP / directory)


def _deps(module):
    return [(d.artifact, d.version) for d in module.dependencies]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _line(path, origin) -> str:
    return Path(path).read_text().splitlines()[origin.line - 1].strip()


# --- the shop -------------------------------------------------------------------------------------------------------


def test_maven_version_from_the_parent_dependency_management_and_properties(shop):
    orders = _module(shop, "services/orders")
    assert (orders.name, orders.build_system) == ("orders-service", "maven")
    (dep,) = orders.dependencies
    assert (dep.artifact, dep.version, dep.unknown, dep.remoting_client_version) == (
        "rocketmq-client", "4.9.4", "", "4.9.4")
    assert _line(dep.origin.path, dep.origin) == "<dependency>"
    assert _line(dep.version_origin.path, dep.version_origin) == "<rocketmq.version>4.9.4</rocketmq.version>"
    assert dep.via.startswith("dependencyManagement of") and dep.via.endswith("shop/pom.xml")
    assert _line(orders.build_file, orders.name_origin) == "<artifactId>orders-service</artifactId>"


def test_gradle_kotlin_spring_starter_maps_to_its_client(shop):
    billing = _module(shop, "services/billing")
    (dep,) = billing.dependencies
    assert (dep.artifact, dep.version, dep.remoting_client_version) == ("rocketmq-spring-boot-starter", "2.2.3",
                                                                        "5.0.0")
    assert "rocketmq-spring-boot-starter" in _line(dep.origin.path, dep.origin)
    assert _line(dep.version_origin.path, dep.version_origin) == 'val starterVersion = "2.2.3"'


def test_gradle_groovy_ext_variable(shop):
    (dep,) = _module(shop, "services/audit").dependencies
    assert (dep.artifact, dep.version) == ("rocketmq-client", "4.5.1")


def test_python_requirements_pin(shop):
    notifier = _module(shop, "services/notifier")
    (dep,) = notifier.dependencies
    assert (dep.artifact, dep.version, dep.origin.line) == ("rocketmq-client-python", "2.0.0", 2)
    assert dep.remoting_client_version is None and not dep.grpc


def test_module_of_a_source_file(shop):
    java = SHOP / "services/orders/src/main/java/com/example/shop/orders/OrderConsumer.java"
    assert shop.module_of(str(java)).name == "orders-service"
    assert shop.module_of(str(SHOP / "deploy" / "k8s" / "orders.yaml")).name == "shop-parent"
    assert shop.problems == []


# --- Maven ----------------------------------------------------------------------------------------------------------


PARENT = """<project>
  <groupId>com.example</groupId><artifactId>parent</artifactId><version>3.1.0</version>
  <properties>
    <major>4.9</major>
    <rocketmq.version>${major}.4</rocketmq.version>
  </properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client</artifactId>
      <version>${rocketmq.version}</version></dependency>
  </dependencies></dependencyManagement>
  <dependencies>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client-java</artifactId>
      <version>[5.0,6.0)</version></dependency>
  </dependencies>
</project>
"""


def _child_pom(body: str, parent: str = "<parent><groupId>com.example</groupId><artifactId>parent</artifactId>"
                                       "<version>3.1.0</version></parent>") -> str:
    return f"<project>{parent}<artifactId>child</artifactId>{body}</project>"


def test_a_parent_managed_version_takes_the_modules_own_property(tmp_path):
    """Maven interpolates the effective model: the child's `major` wins inside the parent's management."""
    _write(tmp_path, {"pom.xml": PARENT, "child/pom.xml": _child_pom(
        "<properties><major>4.7</major></properties><dependencies><dependency>"
        f"<groupId>{CLIENT}</groupId><artifactId>rocketmq-client</artifactId></dependency></dependencies>")})
    problems = []
    module = read_pom(tmp_path / "child" / "pom.xml", problems)
    client, grpc = module.dependencies
    assert (client.artifact, client.version) == ("rocketmq-client", "4.7.4")
    assert client.version_origin.path.endswith("child/pom.xml")
    # inherited from the parent's <dependencies>, a range: unknown
    assert (grpc.artifact, grpc.version, grpc.via) == ("rocketmq-client-java", None,
                                                       f"inherited from {tmp_path / 'pom.xml'}")
    assert "version range ([5.0,6.0))" in grpc.unknown and grpc.grpc
    assert problems == []


def test_maven_unknowns_say_why(tmp_path):
    deps = "".join(f"<dependency><groupId>{CLIENT}</groupId><artifactId>{a}</artifactId>{v}</dependency>"
                   for a, v in [("rocketmq-client", "<version>${env.MQ}</version>"),
                                ("rocketmq-spring-boot-starter", "<version>LATEST</version>"),
                                ("rocketmq-client-java", "<version>${missing}</version>"),
                                ("rocketmq-v5-client-spring-boot-starter", "")])
    _write(tmp_path, {"a/pom.xml": _child_pom(
        f"<dependencyManagement><dependencies><dependency><groupId>org.springframework.boot</groupId>"
        f"<artifactId>spring-boot-dependencies</artifactId><version>3.2.0</version><type>pom</type>"
        f"<scope>import</scope></dependency></dependencies></dependencyManagement><dependencies>{deps}</dependencies>",
        parent="<parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId>"
               "<version>3.2.0</version><relativePath/></parent>")})
    module = read_pom(tmp_path / "a" / "pom.xml", [])
    why = {d.artifact: d.unknown for d in module.dependencies}
    assert all(d.version is None for d in module.dependencies)
    assert "environment variable" in why["rocketmq-client"]
    assert "dynamic version (LATEST)" in why["rocketmq-spring-boot-starter"]
    assert "${missing} is not set" in why["rocketmq-client-java"]
    assert "spring-boot-starter-parent:3.2.0 comes from a repository" in why["rocketmq-client-java"]
    assert "imported BOM (org.springframework.boot:spring-boot-dependencies)" in why[
        "rocketmq-v5-client-spring-boot-starter"]


def test_test_scope_is_not_production_and_management_pins_what_a_starter_brings(tmp_path):
    _write(tmp_path, {"pom.xml": PARENT.replace("<dependencies>\n    <dependency><groupId>org.apache.rocketmq"
                                                "</groupId><artifactId>rocketmq-client-java", "<dependencies>\n"
                                                "    <dependency><groupId>x</groupId><artifactId>y"),
                      "svc/pom.xml": _child_pom(
        "<dependencies>"
        f"<dependency><groupId>{CLIENT}</groupId><artifactId>rocketmq-spring-boot-starter</artifactId>"
        "<version>2.2.2</version></dependency>"
        f"<dependency><groupId>{CLIENT}</groupId><artifactId>rocketmq-client</artifactId>"
        "<version>3.0.0</version><scope>test</scope></dependency></dependencies>")})
    module = read_pom(tmp_path / "svc" / "pom.xml", [])
    # the starter 2.2.2 brings 4.9.3, but the parent's dependencyManagement pins rocketmq-client to 4.9.4
    assert _deps(module) == [("rocketmq-client", "4.9.4"), ("rocketmq-spring-boot-starter", "2.2.2")]
    assert module.client.version == "4.9.4" and "pins the rocketmq-client" in module.client.via
    assert module.dependencies[1].remoting_client_version == SPRING_STARTER_CLIENT["2.2.2"] == "4.9.3"


def test_a_parent_is_taken_only_when_it_is_the_declared_one(tmp_path):
    _write(tmp_path, {"pom.xml": PARENT.replace("<artifactId>parent</artifactId>", "<artifactId>other</artifactId>"),
                      "child/pom.xml": _child_pom(
        f"<dependencies><dependency><groupId>{CLIENT}</groupId><artifactId>rocketmq-client</artifactId>"
        "</dependency></dependencies>")})
    (dep,) = read_pom(tmp_path / "child" / "pom.xml", []).dependencies
    assert dep.version is None and "no version here or in a parent" in dep.unknown


def test_property_cycles_and_doctypes_are_one_line_not_a_hang(tmp_path):
    _write(tmp_path, {"a/pom.xml": _child_pom(
        "<properties><x>${y}</x><y>${x}</y></properties><dependencies><dependency>"
        f"<groupId>{CLIENT}</groupId><artifactId>rocketmq-client</artifactId><version>${{x}}</version>"
        "</dependency></dependencies>", parent=""),
        "b/pom.xml": '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">]>\n<project/>\n'})
    (dep,) = read_pom(tmp_path / "a" / "pom.xml", []).dependencies
    assert dep.version is None and "refers to itself" in dep.unknown
    problems = []
    assert read_pom(tmp_path / "b" / "pom.xml", problems) is None
    assert [str(p) for p in problems] == [f"{tmp_path / 'b' / 'pom.xml'}:2: not valid XML: a DOCTYPE declaration "
                                          "(not in a pom): line 2"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 99)), min_size=1, max_size=8))
def test_chains_of_properties_resolve_as_maven_does(tmp_path_factory, links):
    """Property i is a literal, or property j < i followed by a literal: the version is what the chain spells."""
    values, xml = [], []
    for i, (refers, n) in enumerate(links):
        if refers and i:
            j = n % i
            values.append(f"{values[j]}.{n}")
            xml.append(f"<p{i}>${{p{j}}}.{n}</p{i}>")
        else:
            values.append(f"{n}")
            xml.append(f"<p{i}>{n}</p{i}>")
    last = len(links) - 1
    root = tmp_path_factory.mktemp("chain")
    _write(root, {"pom.xml": _child_pom(
        f"<properties>{''.join(xml)}</properties><dependencies><dependency><groupId>{CLIENT}</groupId>"
        f"<artifactId>rocketmq-client</artifactId><version>${{p{last}}}</version></dependency></dependencies>",
        parent="")})
    (dep,) = read_pom(root / "pom.xml", []).dependencies
    assert dep.version == values[last]


# --- Gradle ---------------------------------------------------------------------------------------------------------


def test_gradle_forms(tmp_path):
    _write(tmp_path, {
        "gradle/libs.versions.toml": '[versions]\nrocketmq = "4.9.7"\n[libraries]\n'
                                     'rocketmq-client = { module = "org.apache.rocketmq:rocketmq-client", '
                                     'version.ref = "rocketmq" }\n',
        "gradle.properties": "mqJava=5.0.6\n",
        "build.gradle.kts": 'dependencies {\n'
                            '    implementation(libs.rocketmq.client)\n'
                            '    implementation(group = "org.apache.rocketmq", name = "rocketmq-spring-boot-starter",'
                            ' version = "2.3.1")\n'
                            '    implementation("org.apache.rocketmq", "rocketmq-client-java", "$mqJava")\n'
                            '}\n'})
    problems = []
    module = read_gradle(tmp_path / "build.gradle.kts", tmp_path, problems)
    assert [(d.artifact, d.version, d.origin.line) for d in module.dependencies] == [
        ("rocketmq-client", "4.9.7", 2), ("rocketmq-spring-boot-starter", "2.3.1", 3),
        ("rocketmq-client-java", "5.0.6", 4)]
    catalog_line = module.dependencies[0].version_origin
    assert (Path(catalog_line.path).name, catalog_line.line) == ("libs.versions.toml", 2)
    assert (Path(module.dependencies[2].version_origin.path).name, module.dependencies[2].version_origin.line) == (
        "gradle.properties", 1)
    assert problems == []


GROOVY = """plugins { id 'java' }
buildscript { dependencies { classpath 'org.apache.rocketmq:rocketmq-client:1.0.0' } }
ext {
    rocketmqVersion = '4.9.4'
}
ext.starter = "2.2.2"
def local = '4.9'
dependencies {
    implementation "org.apache.rocketmq:rocketmq-client:${rocketmqVersion}"
    implementation 'org.apache.rocketmq:rocketmq-client:' + local + '.4'
    implementation group: 'org.apache.rocketmq', name: 'rocketmq-spring-boot-starter', version: starter
    testImplementation 'org.apache.rocketmq:rocketmq-client-java:5.0.0'
    implementation('org.apache.rocketmq:rocketmq-client:4.9.4') { exclude group: 'io.netty' }
    implementation "org.apache.rocketmq:rocketmq-client:$project.ext.rocketmqVersion"
}
"""


def test_groovy_declarations_variables_and_what_is_not_the_application(tmp_path):
    _write(tmp_path, {"build.gradle": GROOVY})
    module = read_gradle(tmp_path / "build.gradle", tmp_path, [])
    # buildscript's classpath and testImplementation are not the application's
    assert _deps(module) == [("rocketmq-client", "4.9.4"), ("rocketmq-spring-boot-starter", "2.2.2")]
    assert module.dependencies[0].origin.line == 9
    assert module.dependencies[1].version_origin.line == 6


KOTLIN = """val rocketmqVersion = "4.9.4"
val fromProps: String by project
extra["starter"] = "2.2.3"
dependencies {
    implementation("org.apache.rocketmq:rocketmq-client:$rocketmqVersion")
    implementation("org.apache.rocketmq:rocketmq-spring-boot-starter:${property("starter")}")
    implementation("org.apache.rocketmq:rocketmq-client:" + rocketmqVersion)
    constraints { implementation("org.apache.rocketmq:rocketmq-client:$fromProps") }
}
"""


def test_applied_scripts_and_maps_of_versions(tmp_path):
    """The older multi-module style: versions in a map in a script the build applies."""
    _write(tmp_path, {
        "gradle/versions.gradle": "ext.versions = [rocketmq: '4.9.4', 'spring': \"2.2.3\"]\n",
        "build.gradle": 'apply from: "$rootDir/gradle/versions.gradle"\n'
                        "ext {\n    libs = [\n        mq: \"org.apache.rocketmq:rocketmq-client:${versions.rocketmq}\"\n"
                        "    ]\n}\n"
                        "dependencies {\n    implementation libs.mq\n"
                        "    implementation \"org.apache.rocketmq:rocketmq-spring-boot-starter:${versions['spring']}\"\n"
                        "}\n"})
    module = read_gradle(tmp_path / "build.gradle", tmp_path, [])
    client, starter = module.dependencies
    assert (client.version, client.origin.line) == ("4.9.4", 8)  # `implementation libs.mq`
    assert (starter.version, Path(starter.version_origin.path).name, starter.version_origin.line) == (
        "2.2.3", "versions.gradle", 1)


@pytest.mark.parametrize("name, line", [
    ("build.gradle", "implementation 'org.apache.rocketmq:rocketmq-client:' + major + '.4'"),
    ("build.gradle", "implementation('org.apache.rocketmq:rocketmq-client:' + major + '.4')"),
    ("build.gradle.kts", 'implementation("org.apache.rocketmq:rocketmq-client:" + major + ".4")'),
])
def test_concatenated_coordinates(tmp_path, name, line):
    declaration = "val major = \"4.9\"" if name.endswith(".kts") else "def major = '4.9'"
    _write(tmp_path, {name: f"{declaration}\ndependencies {{\n    {line}\n}}\n"})
    (dep,) = read_gradle(tmp_path / name, tmp_path, []).dependencies
    assert (dep.version, dep.version_origin.line) == ("4.9.4", 1)


def test_kotlin_constraints_take_part_and_the_highest_version_wins(tmp_path):
    _write(tmp_path, {"build.gradle.kts": KOTLIN, "gradle.properties": "fromProps = 4.9.8\n"})
    module = read_gradle(tmp_path / "build.gradle.kts", tmp_path, [])
    client, starter = module.dependencies
    assert (client.version, client.origin.line, client.via) == ("4.9.8", 5, "a constraint at "
                                                                f"{tmp_path / 'build.gradle.kts'}:8")
    assert starter.version == "2.2.3" and starter.version_origin.line == 3


@pytest.mark.parametrize("declaration, reason", [
    ('implementation "org.apache.rocketmq:rocketmq-client:4.9.+"', "dynamic version (4.9.+)"),
    ('implementation "org.apache.rocketmq:rocketmq-client:latest.release"', "dynamic version"),
    ("implementation 'org.apache.rocketmq:rocketmq-client:[4.9,5)'", "version range"),
    ('implementation "org.apache.rocketmq:rocketmq-client:$nowhere"', "`nowhere` is not set"),
    ("implementation 'org.apache.rocketmq:rocketmq-client:$v'", "not a version: '$v'"),  # no interpolation in '..'
    ('implementation "org.apache.rocketmq:rocketmq-client"', "platform, BOM or constraint"),
    ('implementation "org.apache.rocketmq:rocketmq-client:${v}"\ndef v = "1"\nv = "2"', "several values"),
    ('implementation("org.apache.rocketmq:rocketmq-client:${findProperty("v") ?: "1"}")', "the fallback applies"),
    ('implementation("org.apache.rocketmq:rocketmq-client:${System.getenv("V")}")', "not evaluated"),
])
def test_gradle_versions_the_build_decides_are_unknown(tmp_path, declaration, reason):
    name = "build.gradle.kts" if declaration.startswith("implementation(") else "build.gradle"
    _write(tmp_path, {name: "dependencies {\n    " + declaration.replace("\n", "\n    ") + "\n}\n"})
    (dep,) = read_gradle(tmp_path / name, tmp_path, []).dependencies
    assert dep.version is None and reason in dep.unknown, dep.unknown


def test_a_multi_project_build_reads_the_root_settings_lock_and_subprojects(tmp_path):
    _write(tmp_path, {
        "settings.gradle": "rootProject.name = 'shop'\ninclude 'services:audit', 'services:billing'\n",
        "build.gradle": "ext {\n    rocketmqVersion = '4.9.4'\n}\nsubprojects {\n    dependencies {\n"
                        '        implementation "org.apache.rocketmq:rocketmq-client:${rootProject.ext.rocketmqVersion}"'
                        "\n    }\n}\n",
        "gradle.properties": "starter.version=2.2.2\n",
        "services/audit/build.gradle": 'dependencies {\n    implementation "org.apache.rocketmq:'
                                       "rocketmq-spring-boot-starter:${project.property('starter.version')}\"\n}\n",
        "services/billing/build.gradle.kts": 'dependencies {\n    implementation("org.apache.rocketmq:'
                                             'rocketmq-spring-boot-starter:2.2.3")\n}\n',
        "services/billing/gradle.lockfile": "# This is a Gradle generated file for dependency locking.\n"
                                            "org.apache.rocketmq:rocketmq-client:4.9.7=compileClasspath,"
                                            "runtimeClasspath\n"
                                            "org.apache.rocketmq:rocketmq-spring-boot-starter:2.2.3=runtimeClasspath\n"
                                            "empty=annotationProcessor\n"})
    index = read_build_files(tmp_path)
    modules = {Path(m.directory).relative_to(tmp_path).as_posix(): m for m in index.modules}
    assert modules["."].name == "shop" and modules["."].dependencies == []
    audit = modules["services/audit"]
    assert _deps(audit) == [("rocketmq-client", "4.9.4"), ("rocketmq-spring-boot-starter", "2.2.2")]
    assert audit.dependencies[0].via == f"subprojects/allprojects of {tmp_path / 'build.gradle'}"
    assert audit.client.version == "4.9.4"
    billing = modules["services/billing"]
    # the lock file also names the rocketmq-client the starter brings (and the subprojects block declares)
    assert _deps(billing) == [("rocketmq-client", "4.9.7"), ("rocketmq-spring-boot-starter", "2.2.3")]
    assert billing.client.version_origin.line == 2 and billing.client.via == "the dependency lock file"
    assert index.problems == []


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300), st.booleans())
def test_any_gradle_text_reads_without_a_traceback(tmp_path_factory, text, kotlin):
    path = tmp_path_factory.mktemp("g") / ("build.gradle.kts" if kotlin else "build.gradle")
    path.write_text(text, encoding="utf-8")
    read_gradle(path, path.parent, [])


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["rocketmq-client", "rocketmq-spring-boot-starter", "rocketmq-client-java"]),
       st.from_regex(r"[1-9]\.[0-9]{1,2}\.[0-9]{1,2}", fullmatch=True), st.booleans(),
       st.sampled_from(["direct", "variable", "map"]))
def test_written_declarations_are_read_back(tmp_path_factory, artifact, version, kotlin, form):
    if form == "direct":
        line = f'implementation("{CLIENT}:{artifact}:{version}")'
    elif form == "variable":
        line = f'implementation("{CLIENT}:{artifact}:$v")'
    else:
        line = (f'implementation(group = "{CLIENT}", name = "{artifact}", version = "{version}")' if kotlin
                else f"implementation group: '{CLIENT}', name: '{artifact}', version: '{version}'")
    prefix = (f'val v = "{version}"\n' if kotlin else f"def v = '{version}'\n")
    path = tmp_path_factory.mktemp("w") / ("build.gradle.kts" if kotlin else "build.gradle")
    path.write_text(f"{prefix}dependencies {{\n    {line}\n}}\n")
    (dep,) = read_gradle(path, path.parent, []).dependencies
    assert (dep.artifact, dep.version, dep.origin.line) == (artifact, version, 3)


# --- Python ---------------------------------------------------------------------------------------------------------


def test_pip_compile_output_includes_and_constraints(tmp_path):
    _write(tmp_path, {
        "requirements.txt": "# via pip-compile\n-c constraints.txt\n-r base.txt\n"
                            "rocketmq-client-python==2.0.0 \\\n    --hash=sha256:abc \\\n    --hash=sha256:def\n"
                            "requests>=2  # http\n",
        "base.txt": "rocketmq-python-client>=5.0\n",
        "constraints.txt": "rocketmq-python-client==5.0.4\n",
        "requirements-dev.txt": "rocketmq-client-python==1.0\n"})
    (module,) = read_build_files(tmp_path).modules
    remoting, grpc = module.dependencies
    assert (remoting.artifact, remoting.version, remoting.origin.line) == ("rocketmq-client-python", "2.0.0", 4)
    assert (grpc.artifact, grpc.version, grpc.via) == ("rocketmq-python-client", "5.0.4",
                                                       f"the constraint at {tmp_path / 'constraints.txt'}:1")
    assert grpc.grpc and grpc.remoting_client_version is None


def test_poetry_lock_gives_the_version_and_dev_groups_are_not_production(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": '[tool.poetry]\nname = "notifier"\n[tool.poetry.dependencies]\npython = "^3.9"\n'
                          'rocketmq-client-python = "^2.0"\n[tool.poetry.group.dev.dependencies]\n'
                          'rocketmq-python-client = "5.0.0"\n',
        "poetry.lock": '[[package]]\nname = "rocketmq-client-python"\nversion = "2.0.1rc1"\n'})
    module = read_pyproject(tmp_path / "pyproject.toml", [])
    (dep,) = module.dependencies
    assert (module.name, dep.version, dep.origin.line, dep.version_origin.line) == ("notifier", "2.0.1rc1", 5, 3)


def test_two_files_that_disagree_are_unknown(tmp_path):
    _write(tmp_path, {"pyproject.toml": '[project]\nname = "n"\ndependencies = ["rocketmq-client-python==2.0.0"]\n',
                      "requirements.txt": "rocketmq-client-python==2.0.1\n"})
    (module,) = read_build_files(tmp_path).modules
    (dep,) = module.dependencies
    assert dep.version is None and "2.0.0 at" in dep.unknown and "but 2.0.1 at" in dep.unknown


@pytest.mark.parametrize("line, version, reason", [
    ("rocketmq-client-python===2.0.0", "2.0.0", ""),
    ("RocketMQ_Client.Python == 2.0.0 ; python_version >= '3'", "2.0.0", ""),
    ("rocketmq-python-client>=5.0", None, "pip decides"),
    ("rocketmq-client-python==2.0.*", None, "pip decides"),
    ("rocketmq-client-python @ https://example.com/r.whl", None, "installed from https://example.com/r.whl"),
    ("rocketmq-client-python==2.0.0,==2.0.1", None, "contradictory pins"),
])
def test_python_pins(tmp_path, line, version, reason):
    (tmp_path / "requirements.txt").write_text(line + "\n")
    (dep,) = read_requirements(tmp_path / "requirements.txt", [])
    assert dep.version == version and reason in dep.unknown


def test_a_missing_include_is_one_line(tmp_path):
    (tmp_path / "requirements.txt").write_text("-r nowhere.txt\nrocketmq-client-python==2.0.0\n")
    problems = []
    assert [d.version for d in read_requirements(tmp_path / "requirements.txt", problems)] == ["2.0.0"]
    assert [str(p) for p in problems] == [f"{tmp_path / 'requirements.txt'}:1: -r nowhere.txt: no such file"]


# --- any input ------------------------------------------------------------------------------------------------------


def test_broken_build_files_are_one_line_each(tmp_path):
    _write(tmp_path, {"a/pom.xml": "<project><artifactId>x</artifactId>\n<dependencies>\n",
                      "b/pyproject.toml": "[project\nname = 1\n",
                      "d/pom.xml": "<project><parent><artifactId>d</artifactId>"
                                   "<relativePath>../d/pom.xml</relativePath></parent>"
                                   "<artifactId>d</artifactId></project>"})  # its own parent
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "build.gradle").write_bytes(b"\xff\xfe garbage")
    index = read_build_files(tmp_path)
    messages = sorted(str(p) for p in index.problems)
    assert len(messages) == 3, messages
    assert "a/pom.xml:3: not valid XML" in messages[0]
    assert "b/pyproject.toml: invalid TOML" in messages[1]
    assert "c/build.gradle:1: not UTF-8" in messages[2]
    assert [m.name for m in index.modules] == ["d"]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_pom_text_reads_without_a_traceback(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("p") / "pom.xml"
    path.write_text(text, encoding="utf-8")
    problems = []
    read_pom(path, problems)
    assert all(p.origin.path == str(path) and "\n" not in str(p) for p in problems)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300), st.sampled_from(["requirements.txt", "pyproject.toml"]))
def test_any_python_build_text_reads_without_a_traceback(tmp_path_factory, text, name):
    path = tmp_path_factory.mktemp("py") / name
    path.write_text(text, encoding="utf-8")
    assert all("\n" not in str(p) for p in read_build_files(path.parent).problems)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_a_version_is_one_release_or_unknown_with_a_reason(text):
    version, why = concrete_version(text)
    assert (version is None) == bool(why)
    if version is not None:
        assert version[0].isdigit() and not any(c in version for c in " ${}[](),+")


def test_the_reader_imports_nothing_of_the_planner_but_origin():
    """The linter may read client versions with it: no fleet model, engines or numpy come with it."""
    code = ("import sys, rmqplan.sources.buildfiles; "
            "print(sorted(m for m in sys.modules if m.startswith('rmqplan') or m in ('numpy', 'pyspark')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(eval(out)) == {"rmqplan", "rmqplan.sources", "rmqplan.sources.origin", "rmqplan.sources.buildfiles",
                              "rmqplan.sources.buildfiles.gomod", "rmqplan.sources.buildfiles.gradle",
                              "rmqplan.sources.buildfiles.maven",
                              "rmqplan.sources.buildfiles.module", "rmqplan.sources.buildfiles.python"}


def test_maven_spring_cloud_alibaba_binder_takes_the_bom_release(tmp_path):
    bom = """<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>shop</artifactId>
  <version>1</version><packaging>pom</packaging>
  <properties><sca.version>2021.0.4.0</sca.version></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>com.alibaba.cloud</groupId><artifactId>spring-cloud-alibaba-dependencies</artifactId>
      <version>${sca.version}</version><type>pom</type><scope>import</scope></dependency>
  </dependencies></dependencyManagement></project>"""
    child = """<project><modelVersion>4.0.0</modelVersion>
  <parent><groupId>a</groupId><artifactId>shop</artifactId><version>1</version></parent>
  <artifactId>orders</artifactId>
  <dependencies>
    <dependency><groupId>com.alibaba.cloud</groupId><artifactId>spring-cloud-starter-stream-rocketmq</artifactId>
    </dependency>
  </dependencies></project>"""
    other = child.replace("<artifactId>orders</artifactId>", "<artifactId>stock</artifactId>").replace(
        "</artifactId>\n    </dependency>", "</artifactId><version>2.2.9.RELEASE</version>\n    </dependency>")
    root = _write(tmp_path, {"pom.xml": bom, "orders/pom.xml": child, "stock/pom.xml": other})
    index = read_build_files(root)
    orders = next(m for m in index.modules if m.name == "orders")
    (binder,) = orders.dependencies
    assert (binder.artifact, binder.version, binder.via) == (
        "spring-cloud-starter-stream-rocketmq", "2021.0.4.0", "the spring-cloud-alibaba-dependencies BOM")
    assert binder.version_origin.line == 3  # the property that gives it
    stock = next(m for m in index.modules if m.name == "stock")
    assert _deps(stock) == [("spring-cloud-starter-stream-rocketmq", "2.2.9.RELEASE")]
    assert orders.client is None  # the binder's rocketmq-client is not pinned: its release stays unknown


def test_a_pyproject_of_settings_only_is_no_module(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.rmqplan.services]\n"orders" = "services/orders"\n')
    (tmp_path / "py").mkdir()
    (tmp_path / "py" / "pyproject.toml").write_text('[project]\nname = "py-consumer"\n')
    index = read_build_files(tmp_path)
    assert [m.name for m in index.modules] == ["py-consumer"]
    assert index.module_of(tmp_path / "services" / "orders" / "A.java") is None

"""`rmqplan fleet` and `rmqplan check` on a repository with services, Kubernetes manifests, docker compose and saved
mqadmin outputs (tests/planner/fixtures/shop): the fleet the code and its deployment make, its simulation, and the
findings at the lines that cause them; the fixed variant is clean."""

from __future__ import annotations

import io
import json
import shutil
import tomllib
from pathlib import Path

import jsonschema
import pytest

from rmqplan.cli import run
from rmqplan.report.findings import find
from rmqplan.sources.fleet_file import load_fleet
from rmqplan.engines.local import simulate
from tests.lint.test_reporters import sarif_schema

SHOP = Path(__file__).parent / "fixtures" / "shop"
CONSUMER = "services/orders/src/main/java/com/example/shop/orders/OrderConsumer.java"


@pytest.fixture
def shop(tmp_path, monkeypatch) -> Path:
    """The shop repository as a user has it: its own project (outside this repository), the current directory."""
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    monkeypatch.chdir(root)
    return root


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def line_of(path: Path, needle: str) -> int:
    (line,) = [n for n, text in enumerate(path.read_text().splitlines(), 1) if needle in text]
    return line


def fix(root: Path) -> None:
    """The fix a reviewer asks for: no fixed instanceName, the notifier's replicas off host networking (the C++
    client under Python 2.x names a process ip@pid#instanceName: pid-1 containers on one IP collide), and
    PaymentEvents readable where it is written."""
    consumer = root / CONSUMER
    consumer.write_text("".join(line for line in consumer.read_text().splitlines(keepends=True)
                                if "setInstanceName" not in line))
    compose = root / "deploy" / "compose" / "docker-compose.yml"
    compose.write_text(compose.read_text().replace("  network_mode: host\n", ""))
    route = root / "cluster" / "topicRoute-PaymentEvents.json"
    route.write_text(route.read_text().replace('"readQueueNums":4', '"readQueueNums":6'))


def test_fleet_writes_what_the_code_and_deployment_make_and_simulate_takes_it(shop):
    code, out, err = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster",
                             "-o", "fleet.toml")
    assert code == 0, err
    assert "wrote fleet.toml: 2 groups" in err
    text = (shop / "fleet.toml").read_text()
    instance = line_of(shop / CONSUMER, "setInstanceName")
    # every value says where it came from
    assert f'instance_name = "orders-node"  # {CONSUMER}:{instance} fixed' in text
    assert f"count = 3  # deploy/k8s/orders.yaml:{line_of(shop / 'deploy/k8s/orders.yaml', 'replicas:')}" in text
    assert 'client_version = "4.9.4"  # pom.xml:' in text
    assert 'client = "cpp"  # services/notifier/consumer.py:9 the Python 2.x client runs the C++ client' in text
    assert "# unknown: 3 replicas on host networking: all on one node, the worst case" in text
    fleet = load_fleet(str(shop / "fleet.toml"))
    assert [g.name for g in fleet.groups] == ["notifier_cg", "orders_cg"]
    findings = {(f.code, f.group, f.topic): f for f in find(simulate(fleet))}
    assert len(findings[("PLAN001", "orders_cg", "OrderEvents")].queues) == 10  # 16 queues, one shared id takes 6
    assert ("PLAN002", "orders_cg", "OrderEvents") in findings
    assert ("PLAN004", None, "PaymentEvents") in findings


def test_fleet_to_stdout_and_nodes_spread_the_replicas(shop):
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster", "--nodes", "3")
    assert code == 0 and "spread over 3 of 3 nodes" in out
    (shop / "fleet.toml").write_text(out)
    findings = find(simulate(load_fleet(str(shop / "fleet.toml"))))
    assert not [f for f in findings if f.group == "orders_cg" and f.code in ("PLAN001", "PLAN002")]


def test_nodes_from_the_projects_configuration(shop):
    (shop / "pyproject.toml").write_text("[tool.rmqplan]\nnodes = 3\n")
    _, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster")
    assert "spread over 3 of 3 nodes" in out


def test_a_bad_configuration_lists_the_problems_of_both_tables_at_once(shop):
    (shop / "pyproject.toml").write_text('[tool.rmqlint]\nfail-on = "bad"\n[tool.rmqplan]\nnodez = 3\n'
                                         '[tool.rmqplan.services]\norders = 1\n')
    expected = ["rmqplan: pyproject.toml: tool.rmqlint.fail-on: expected one of error, warning, info, got 'bad'",
                "rmqplan: pyproject.toml: [tool.rmqplan] nodez: unknown key (did you mean 'nodes'?)",
                "rmqplan: pyproject.toml:6: [tool.rmqplan.services] orders: expected a module directory or name"]
    for command in (("fleet", "--from-code", "."), ("check", ".", "--no-cache")):
        code, out, err = rmqplan(*command, "--deploy", "deploy")
        assert (code, out, err.splitlines()) == (2, "", expected), command


def test_check_reports_the_predicted_problems_at_their_causes(shop):
    code, out, err = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--format", "json",
                             "--no-cache")
    assert code == 1, err
    found = {(f["code"], f["path"], f["line"]) for f in json.loads(out)["findings"]}
    instance = line_of(shop / CONSUMER, "setInstanceName")
    replicas = line_of(shop / "deploy/k8s/orders.yaml", "replicas:")
    notifier = "services/notifier/consumer.py"
    subscribe, created = line_of(shop / notifier, "subscribe("), line_of(shop / notifier, "PushConsumer(\"")
    compose = "deploy/compose/docker-compose.yml"
    compose_replicas = line_of(shop / compose, "replicas:")
    assert found == {
        ("RMQ001", CONSUMER, instance),
        ("PLAN001", CONSUMER, instance), ("PLAN002", CONSUMER, instance),
        ("PLAN001", "deploy/k8s/orders.yaml", replicas), ("PLAN002", "deploy/k8s/orders.yaml", replicas),
        ("PLAN004", notifier, subscribe),
        # two Python 2.x replicas on host networking: pid 1 each, one C++ client id
        ("PLAN001", notifier, created), ("PLAN002", notifier, created),
        ("PLAN001", compose, compose_replicas), ("PLAN002", compose, compose_replicas),
        # rmqlint says it too, at the host networking line: ip@pid#DEFAULT the same in both containers
        ("RMQ001", compose, line_of(shop / compose, "network_mode: host")),
    }


def test_check_speaks_the_reviewers_terms(shop):
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache", "--format",
                           "concise")
    assert code == 1
    (line,) = [x for x in out.splitlines() if x.startswith(f"{CONSUMER}:") and "PLAN001" in x]
    instance = line_of(shop / CONSUMER, "setInstanceName")
    assert (f"group orders_cg (services/orders, Deployment orders, 3 replicas, hostNetwork, fixed instanceName at "
            f"OrderConsumer.java:{instance}): 3 processes share client id orders-node-1@orders-node; queues 6-7 "
            "(broker-a), 0-7 (broker-b) of OrderEvents would be consumed by nobody") in line


def test_the_fixed_variant_is_clean(shop):
    fix(shop)
    code, out, err = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache")
    assert (code, out) == (0, "No findings in 5 files.\n"), err  # 2 of code, 3 manifests running workloads


def test_check_sarif_and_github(shop):
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--format", "sarif",
                           "--no-cache")
    log = json.loads(out)
    jsonschema.validate(log, sarif_schema())
    run_ = log["runs"][0]
    rules = {r["id"] for r in run_["tool"]["driver"]["rules"]}
    assert {"RMQ001", "PLAN001", "PLAN002", "PLAN004"} <= rules
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run_["results"]}
    assert "deploy/k8s/orders.yaml" in uris and CONSUMER in uris
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--format", "github",
                           "--no-cache")
    assert code == 1
    assert any(x.startswith("::error file=deploy/k8s/orders.yaml,line=") for x in out.splitlines())


def test_strategy_and_a_run_time_instance_name_come_from_the_code(shop):
    consumer = shop / CONSUMER
    text = consumer.read_text().replace(
        'consumer.setInstanceName("orders-node");',
        'consumer.setInstanceName(java.util.UUID.randomUUID().toString());\n'
        '        consumer.setAllocateMessageQueueStrategy(new AllocateMessageQueueConsistentHash(NODES));')
    text = text.replace('private static final String GROUP = "orders_cg";',
                        'private static final String GROUP = "orders_cg";\n    static final int NODES = 16;')
    consumer.write_text(text)
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster")
    assert code == 0
    assert 'strategy = "CONSISTENT_HASH"' in out and "virtual_nodes = 16" in out
    assert "sets the instanceName at run time: unique per process" in out
    (shop / "fleet.toml").write_text(out)
    findings = find(simulate(load_fleet(str(shop / "fleet.toml"))))
    assert not [f for f in findings if f.group == "orders_cg" and f.code in ("PLAN001", "PLAN002")]


def test_a_name_from_a_class_name_is_the_same_in_every_replica(shop):
    # getClass().getSimpleName() of a class others may extend: not known here, but the same text in every process,
    # so the 3 replicas on one host-network node share one client id (as RMQ001 says at the setter)
    consumer = shop / CONSUMER
    consumer.write_text(consumer.read_text().replace('consumer.setInstanceName("orders-node");',
                                                     'consumer.setInstanceName(getClass().getSimpleName());'))
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster")
    assert code == 0
    assert "unique per process" not in out and "the same text in every process" in out
    (shop / "fleet.toml").write_text(out)
    findings = find(simulate(load_fleet(str(shop / "fleet.toml"))))
    assert [f for f in findings if f.group == "orders_cg" and f.code == "PLAN002" and f.topic == "OrderEvents"]


def test_a_name_from_the_host_name_is_the_nodes_on_host_networking(shop):
    # The orders Deployment runs 3 replicas on host networking: HOSTNAME there is the node's name, so the replicas
    # on one node share it (and, with the node's IP, the client id); rmqlint says the same at the setter.
    consumer = shop / CONSUMER
    consumer.write_text(consumer.read_text().replace('consumer.setInstanceName("orders-node");',
                                                     'consumer.setInstanceName("orders-" + System.getenv("HOSTNAME"));'))
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster")
    assert code == 0
    setter = line_of(consumer, "setInstanceName")
    assert f'instance_name = "${{HOSTNAME}}"  # {CONSUMER}:{setter} sets the instanceName at run time from the ' \
           "host name" in out
    (shop / "fleet.toml").write_text(out)
    findings = find(simulate(load_fleet(str(shop / "fleet.toml"))))
    (shared,) = [f for f in findings if f.group == "orders_cg" and f.code == "PLAN002" and f.topic == "OrderEvents"]
    assert "fixed" not in shared.message
    assert "(instanceName '${HOSTNAME}' made at run time from the host's name, which on host networking is the " \
           "node's: 'orders-node-1')" in shared.message
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache")
    assert f"{CONSUMER}:{setter}:" in out and "made from the host name" in out  # RMQ001 at the setter
    assert "fixed instanceName" not in out and "share client id orders-node-1@orders-node-1 (instanceName" in out
    # --nodes 3 spreads the replicas one per node: each node's name is its replica's own
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster", "--nodes", "3")
    (shop / "fleet.toml").write_text(out)
    findings = find(simulate(load_fleet(str(shop / "fleet.toml"))))
    assert not [f for f in findings if f.group == "orders_cg" and f.code in ("PLAN001", "PLAN002")]


def test_bad_inputs_are_one_line_each(shop):
    code, _, err = rmqplan("check", ".", "--deploy", "nowhere")
    assert (code, err) == (2, "rmqplan: nowhere: no such directory\n")
    (shop / "deploy" / "k8s" / "broken.yaml").write_text("kind: Deployment\nspec: [unclosed\n")
    code, out, err = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache")
    assert code == 1 and "PLAN001" in out
    (broken,) = [x for x in err.splitlines() if "broken.yaml" in x]
    assert broken.startswith("rmqplan: deploy/k8s/broken.yaml:") and "Traceback" not in err
    code, _, err = rmqplan("fleet", "--from-code", ".", "--nodes", "0")
    assert code == 2 and err.count("\n") == 1


def test_pid_one_containers_on_an_old_client_collide_without_any_instance_name(shop):
    """No instanceName, but a 4.5.1 client names itself by pid: pid-1 containers on one node share an id."""
    consumer = shop / CONSUMER
    consumer.write_text("".join(x for x in consumer.read_text().splitlines(keepends=True) if "setInstanceName" not in x))
    pom = shop / "pom.xml"
    pom.write_text(pom.read_text().replace("<rocketmq.version>4.9.4<", "<rocketmq.version>4.5.1<"))
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--format", "json",
                           "--no-cache")
    findings = json.loads(out)["findings"]
    created = line_of(shop / CONSUMER, "new DefaultMQPushConsumer")
    (orphaned,) = [f for f in findings if f["code"] == "PLAN001" and f["path"] == CONSUMER]
    assert code == 1 and orphaned["line"] == created
    assert "3 processes share client id orders-node-1@1 (pid 1 on client 4.5.1" in orphaned["message"]
    # rmqlint says it at the release that names the consumer by its pid (the property giving the version)
    (release,) = [f for f in findings if f["code"] == "RMQ001" and f["path"] == "pom.xml"]
    assert release["line"] == line_of(pom, "<rocketmq.version>4.5.1<") and "the pid" in release["message"]


def test_a_group_whose_topics_come_from_run_time_is_left_out_with_a_line(shop):
    consumer = shop / CONSUMER
    consumer.write_text(consumer.read_text().replace('consumer.subscribe("OrderEvents", "created || paid");',
                                                     'consumer.subscribe(System.getenv("TOPIC"), "*");'))
    code, out, err = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster")
    assert code == 0 and 'name = "orders_cg"' not in out
    assert f"{CONSUMER}:" in err and "group orders_cg subscribes to no topic known from the code: left out" in err
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache")
    assert code == 1 and "RMQ001" in out
    assert not [x for x in out.splitlines() if " PLAN" in x and "orders_cg" in x]


@pytest.mark.parametrize("strategy, why", [
    ("new AllocateMessageQueueByConfig()", "the queue list given to setMessageQueueList at run time"),
    ("new AllocateMessageQueueByMachineRoom()", "by the consumer rooms given at run time"),
    ("new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver)", "machine room resolver"),
    ("new RoundRobinByZone()", "strategy class 'RoundRobinByZone' is not one rmqplan knows"),
    ("strategies.pick()", "the strategy is a strategy object built elsewhere"),
    ("new AllocateMessageQueueAveragely() {}", "the strategy is an anonymous subclass of AllocateMessageQueueAveragely"),
])
def test_a_group_whose_queues_depend_on_run_time_data_is_left_out_with_a_line(shop, strategy, why):
    """A prediction from a made-up queue list or rooms would report queues as unread that the real list covers:
    the group is left out, said on stderr, and check stays quiet about it."""
    consumer = shop / CONSUMER
    consumer.write_text(consumer.read_text().replace(
        'consumer.setInstanceName("orders-node");',
        f'consumer.setInstanceName("orders-node");\n        consumer.setAllocateMessageQueueStrategy({strategy});'))
    at = line_of(consumer, "setAllocateMessageQueueStrategy")
    code, out, err = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--cluster", "cluster")
    assert code == 0
    (line,) = [x for x in err.splitlines() if "orders_cg" in x]
    assert line.startswith(f"rmqplan: {CONSUMER}:{at}: ") and why in line and line.endswith("left out")
    assert '"orders_cg"' not in out and "wrote" not in err
    code, out, err = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--format", "json",
                             "--no-cache")
    assert not [f for f in json.loads(out)["findings"] if f["code"].startswith("PLAN") and "orders_cg" in f["message"]]
    assert any("orders_cg" in x and x.endswith("left out") for x in err.splitlines())


def test_python_2_replicas_on_host_networking_share_the_cpp_client_id(tmp_path, monkeypatch):
    """The Python 2.x client runs the C++ client, whose id is ip@pid#instanceName: pid-1 containers on one host
    collide with no instanceName at all (the Java rule, pid#nanoTime on a recent client, would miss it)."""
    (tmp_path / "notifier").mkdir()
    (tmp_path / "notifier" / "main.py").write_text(
        "from rocketmq.client import PushConsumer, ConsumeStatus\n\n\n"
        "def callback(msg):\n    return ConsumeStatus.CONSUME_SUCCESS\n\n\n"
        'consumer = PushConsumer("notifier_cg")\nconsumer.set_name_server_address("ns:9876")\n'
        'consumer.subscribe("Notices", callback)\nconsumer.start()\n')
    (tmp_path / "notifier" / "requirements.txt").write_text("rocketmq-client-python==2.0.0\n")
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "docker-compose.yml").write_text(
        "services:\n  notifier:\n    image: example/notifier:1\n    network_mode: host\n"
        "    deploy:\n      replicas: 3\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0 and 'client = "cpp"' in out and "client_version" not in out
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    findings = json.loads(out)["findings"]
    assert code == 1
    assert {(f["code"], f["path"], f["line"]) for f in findings} == {
        ("PLAN001", "notifier/main.py", 8), ("PLAN002", "notifier/main.py", 8),
        ("PLAN001", "deploy/docker-compose.yml", 6), ("PLAN002", "deploy/docker-compose.yml", 6),
        ("RMQ001", "deploy/docker-compose.yml", 4)}  # rmqlint, at `network_mode: host`
    assert all("share client id notifier-host@1#DEFAULT" in f["message"] for f in findings if f["code"] != "RMQ001")
    (tmp_path / "deploy" / "docker-compose.yml").write_text(
        "services:\n  notifier:\n    image: example/notifier:1\n    deploy:\n      replicas: 3\n")
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    assert (code, json.loads(out)["findings"]) == (0, [])


def test_a_java_client_release_no_build_file_names_is_written_as_the_default_marked_unknown(tmp_path, monkeypatch):
    """The release decides how a default instanceName becomes the pid (pid, or pid#nanoTime from 4.9.0 on)."""
    source = tmp_path / "src" / "main" / "java" / "a" / "C.java"
    source.parent.mkdir(parents=True)
    source.write_text('package a;\nimport org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n'
                      'public class C {\n  public static void main(String[] a) throws Exception {\n'
                      '    DefaultMQPushConsumer c = new DefaultMQPushConsumer("cg1");\n'
                      '    c.subscribe("T1", "*");\n    c.start();\n  }\n}\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = rmqplan("fleet", "--from-code", ".")
    assert code == 0
    assert 'client_version = "4.9.8"  # unknown: no RocketMQ client release found in the build files' in out


def test_a_lite_pull_consumer_is_written_as_one(tmp_path, monkeypatch):
    """A DefaultLitePullConsumer ends its client id with @STREAM (from 4.9.4) and rebalances no retry topic."""
    source = tmp_path / "src" / "main" / "java" / "a" / "C.java"
    source.parent.mkdir(parents=True)
    source.write_text('package a;\nimport org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;\n'
                      'public class C {\n  public static void main(String[] a) throws Exception {\n'
                      '    DefaultLitePullConsumer c = new DefaultLitePullConsumer("cg1");\n'
                      '    c.subscribe("T1", "*");\n    c.start();\n  }\n}\n')
    (tmp_path / "pom.xml").write_text(
        '<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>a</artifactId><version>1'
        '</version><dependencies><dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client'
        '</artifactId><version>4.9.8</version></dependency></dependencies></project>\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = rmqplan("fleet", "--from-code", ".", "-o", "fleet.toml")
    assert code == 0 and 'consumer = "lite_pull"  # src/main/java/a/C.java:5' in (tmp_path / "fleet.toml").read_text()
    code, out, _ = rmqplan("simulate", "--fleet", "fleet.toml", "--format", "json", "--assignments")
    [entry] = json.loads(out)["scenarios"][0]["groups"]
    assert entry["topic"] == "T1" and entry["instances"][0]["client_id"].endswith("#1000000000001@STREAM")


# The orders module deployed as 3 replicas on host networking (one node unless --nodes says otherwise)
HOST_NETWORK_ORDERS = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n  replicas: 3\n  template:\n"
    "    spec:\n      hostNetwork: true\n      containers:\n        - name: orders\n          image: a/orders:1\n")


def _starter_project(tmp_path, version: str) -> str:
    """A Spring listener module on rocketmq-spring-boot-starter `version`, deployed as 3 replicas on host
    networking; returns its pom.xml's text."""
    pom = ("<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>orders</artifactId>"
           "<version>1</version><dependencies><dependency><groupId>org.apache.rocketmq</groupId>"
           "<artifactId>rocketmq-spring-boot-starter</artifactId>\n<version>" + version + "</version>"
           "</dependency></dependencies></project>\n")
    (tmp_path / "orders" / "src" / "main" / "java" / "a").mkdir(parents=True)
    (tmp_path / "orders" / "pom.xml").write_text(pom)
    (tmp_path / "orders" / "src" / "main" / "java" / "a" / "OrderListener.java").write_text(
        "package a;\nimport org.apache.rocketmq.spring.annotation.RocketMQMessageListener;\n"
        "import org.apache.rocketmq.spring.core.RocketMQListener;\n"
        '@RocketMQMessageListener(topic = "Orders", consumerGroup = "orders_cg")\n'
        "public class OrderListener implements RocketMQListener<String> {\n    public void onMessage(String m) {}\n}\n")
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "orders.yaml").write_text(HOST_NETWORK_ORDERS)
    return pom


def test_a_spring_starter_release_names_the_consumers_the_same_in_every_container(tmp_path, monkeypatch):
    """rocketmq-spring-boot-starter 2.2.0 names a listener's consumer nameServer@pid, pid 1 in every container: the
    fleet says so, the 3 replicas on one node share a client id, and rmqlint reports the release; 2.2.1 adds the
    time to the name, and the replicas are apart."""
    pom = _starter_project(tmp_path, "2.2.0")
    monkeypatch.chdir(tmp_path)
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0
    assert 'instance_name = "nameServer@1"  # orders/pom.xml:2 rocketmq-spring-boot-starter 2.2.0 names it ' \
           'nameServer@pid, pid 1' in out
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    found = {(f["code"], f["path"]) for f in json.loads(out)["findings"]}
    assert {("PLAN001", "deploy/orders.yaml"), ("PLAN002", "deploy/orders.yaml"), ("RMQ001", "orders/pom.xml")} <= found
    (tmp_path / "orders" / "pom.xml").write_text(pom.replace("2.2.0", "2.2.1"))
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    assert (code, json.loads(out)["findings"]) == (0, [])


def test_starter_2_0_3_names_every_process_alike_whatever_its_pid(tmp_path, monkeypatch):
    """rocketmq-spring-boot-starter 2.0.3 names a listener's consumer by its container bean, with no pid: the fleet
    writes that name for processes of any pid, and check agrees with RMQ001; 2.0.4 leaves the name to the client
    (4.5.1's pid without keys: still pid 1 in every container)."""
    pom = _starter_project(tmp_path, "2.0.3")
    monkeypatch.chdir(tmp_path)
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0
    assert ('instance_name = "org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer_<n>"  # '
            'orders/pom.xml:2 rocketmq-spring-boot-starter 2.0.3 names it so in every process') in out
    # its client, 4.5.1, does not skip bridge interfaces: said beside the hosts, as RMQ001 says it
    assert ("a client before 4.9.0 may report Docker's bridge address 172.17.0.1 instead on a node that runs Docker"
            in out)
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    found = {(f["code"], f["path"]): f["message"] for f in json.loads(out)["findings"]}
    assert {("PLAN001", "deploy/orders.yaml"), ("RMQ001", "orders/pom.xml")} <= set(found)
    assert "share client id orders-node-1@org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer_<n>" \
        in found[("PLAN001", "deploy/orders.yaml")]
    (tmp_path / "orders" / "pom.xml").write_text(pom.replace("2.0.3", "2.0.4"))
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0 and "DefaultRocketMQListenerContainer" not in out and "instance_name" not in out


def test_check_nodes_place_replicas_for_rmq001_as_for_the_fleet(tmp_path, monkeypatch):
    """`check --nodes N` spreads host-networking replicas for rmqlint's RMQ001 as it does for the fleet: a name made
    from the host name collides where the fleet's client ids do (2 nodes: 2 replicas on one), and nowhere on 3
    nodes (a cached run without --nodes still reports the worst case)."""
    source = tmp_path / "orders" / "src" / "main" / "java" / "a" / "C.java"
    source.parent.mkdir(parents=True)
    source.write_text('package a;\nimport org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n'
                      'public class C {\n  public static void main(String[] a) throws Exception {\n'
                      '    DefaultMQPushConsumer c = new DefaultMQPushConsumer("cg1");\n'
                      '    c.setInstanceName("orders-" + System.getenv("HOSTNAME"));\n'
                      '    c.subscribe("T1", "*");\n    c.start();\n  }\n}\n')
    (tmp_path / "orders" / "pom.xml").write_text(
        '<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>orders</artifactId><version>1'
        '</version><dependencies><dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client'
        '</artifactId><version>4.9.7</version></dependency></dependencies></project>\n')
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "orders.yaml").write_text(HOST_NETWORK_ORDERS)
    monkeypatch.chdir(tmp_path)

    def codes(*nodes: str) -> dict[str, list[str]]:
        code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", *nodes)
        found: dict[str, list[str]] = {}
        for f in json.loads(out)["findings"]:
            found.setdefault(f["code"], []).append(f["message"])
        return found

    assert codes("--nodes", "3") == {}
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy", "--nodes", "3")
    assert code == 0 and "orders-node-3" in out and "172.17.0.1" not in out  # 4.9.7 skips bridge interfaces
    two = codes("--nodes", "2")
    assert set(two) == {"RMQ001", "PLAN001", "PLAN002"}
    assert "spread over 2 of 2 nodes, so up to 2 replicas report one IP" in two["RMQ001"][0]
    worst = codes()
    assert "all on one node, the worst case Kubernetes allows, so up to 3 replicas" in worst["RMQ001"][0]
    assert all("3 processes share client id" in m for m in worst["PLAN001"])


BINDER_POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>com.alibaba.cloud</groupId>
        <artifactId>spring-cloud-alibaba-dependencies</artifactId>
        <version>2021.0.4.0</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>com.alibaba.cloud</groupId>
      <artifactId>spring-cloud-starter-stream-rocketmq</artifactId>
    </dependency>
  </dependencies>
</project>
"""

BINDINGS = """\
spring:
  cloud:
    stream:
      bindings:
        orders-in-0:
          destination: OrderTopic
          group: orders_consumer
        audit-in-0:
          destination: AuditTopic
          group: ${AUDIT_GROUP}
        stock-in-0:
          destination: StockTopic
          group: stock_consumer
        orders-out-0:
          destination: ShipTopic
      rocketmq:
        bindings:
          orders-in-0:
            consumer:
              subscription: paid||refunded
          stock-in-0:
            consumer:
              allocateMessageQueueStrategy: stockStrategy
"""


def test_spring_cloud_alibaba_binder_consumers_are_in_the_fleet_named_by_the_binder(tmp_path, monkeypatch):
    """The binder makes a consumer of each input binding with a group: the fleet has the group, its topic and the
    binder's name (2021.0.4.0: group|pid, pid 1 in every container), and check agrees with RMQ001; 2021.0.5.0 adds
    the time. Left out, each with a line: a group only known at run time, a strategy bean; an output binding
    (no group) is no consumer."""
    (tmp_path / "orders" / "src" / "main" / "resources").mkdir(parents=True)
    (tmp_path / "orders" / "pom.xml").write_text(BINDER_POM)
    (tmp_path / "orders" / "src" / "main" / "resources" / "application.yml").write_text(BINDINGS)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "orders.yaml").write_text(HOST_NETWORK_ORDERS)
    monkeypatch.chdir(tmp_path)
    code, out, err = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0
    fleet = tomllib.loads(out)
    assert [g["name"] for g in fleet["groups"]] == ["orders_consumer"]
    [group] = fleet["groups"]
    assert group["model"] == "clustering"
    assert group["subscriptions"] == [{"topic": "OrderTopic", "expression": "paid||refunded"}]
    assert 'instance_name = "group|1"  # orders/pom.xml:11 spring-cloud-starter-stream-rocketmq 2021.0.4.0 names it ' \
           'group|pid, pid 1' in out
    config = "orders/src/main/resources/application.yml"
    assert (f"rmqplan: {config}:10: binding audit-in-0 of spring-cloud-starter-stream-rocketmq: "
            "spring.cloud.stream.bindings.audit-in-0.group is not known from the configuration: left out") in err
    assert f"rmqplan: {config}:23: group stock_consumer's queues cannot be predicted" in err
    assert "ShipTopic" not in out
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    found = {(f["code"], f["path"]) for f in json.loads(out)["findings"]}
    assert {("PLAN001", config), ("PLAN002", config), ("PLAN001", "deploy/orders.yaml"),
            ("RMQ001", "orders/pom.xml")} <= found
    (tmp_path / "orders" / "pom.xml").write_text(BINDER_POM.replace("2021.0.4.0", "2021.0.5.0"))
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0 and "orders_consumer" in out and "instance_name" not in out
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    assert (code, json.loads(out)["findings"]) == (0, [])
    # 2.2.x spells the model `broadcasting: true`, 2021.x `messageModel`
    for model in ("broadcasting: true", "messageModel: BROADCASTING"):
        (tmp_path / "orders" / "src" / "main" / "resources" / "application.yml").write_text(BINDINGS.replace(
            "              subscription: paid||refunded\n", f"              {model}\n"))
        code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
        [group] = tomllib.loads(out)["groups"]
        assert code == 0 and group["model"] == "broadcasting" and group["subscriptions"][0]["expression"] == "*"

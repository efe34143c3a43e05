"""`rmqplan check` as a team adopting it meets it: which findings fail the run (`--fail-on`, `--exit-zero`, the
project's fail-on, as rmqlint), what the report says it assumed when no cluster was given, and a name made from
HOSTNAME told apart from a fixed one."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest

from rmqplan.cli import build_parser, run
from tests.lint.test_reporters import sarif_schema

CONSUMER = "orders/src/main/java/a/C.java"


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def deployment(replicas: int, host_network: bool) -> str:
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
            f"  replicas: {replicas}\n  template:\n    spec:\n"
            + ("      hostNetwork: true\n" if host_network else "")
            + "      containers:\n        - name: orders\n          image: a/orders:1\n")


def orders_project(root: Path, instance_name: str = "", replicas: int = 10, host_network: bool = False,
                   version: str = "4.9.7") -> Path:
    """A Java consumer of Orders in module orders (client `version`), deployed as `replicas` replicas."""
    source = root / CONSUMER
    source.parent.mkdir(parents=True)
    setter = f"    c.setInstanceName({instance_name});\n" if instance_name else ""
    source.write_text('package a;\nimport org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n'
                      'public class C {\n  public static void main(String[] a) throws Exception {\n'
                      '    DefaultMQPushConsumer c = new DefaultMQPushConsumer("orders_cg");\n'
                      f'{setter}    c.subscribe("Orders", "*");\n    c.start();\n  }}\n}}\n')
    (root / "orders" / "pom.xml").write_text(
        '<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>orders</artifactId><version>1'
        '</version><dependencies><dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-client'
        f'</artifactId><version>{version}</version></dependency></dependencies></project>\n')
    (root / "deploy").mkdir()
    (root / "deploy" / "orders.yaml").write_text(deployment(replicas, host_network))
    return root


@pytest.fixture
def idle(tmp_path, monkeypatch) -> Path:
    """10 replicas with a pod IP each over 8 queues: 2 idle processes, a warning (PLAN003) and nothing else."""
    monkeypatch.chdir(orders_project(tmp_path))
    return tmp_path


def test_check_fails_on_warnings_as_rmqlint_does_and_says_so(idle):
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--format", "json", "--no-cache")
    assert code == 1 and [f["code"] for f in json.loads(out)["findings"]] == ["PLAN003"]
    check = build_parser()._subparsers._group_actions[0].choices["check"]
    assert "else warning: errors and warnings fail" in check.description
    assert rmqplan("check", ".", "--deploy", "deploy", "--fail-on", "error", "--no-cache")[0] == 0
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--exit-zero", "--no-cache")
    assert code == 0 and "PLAN003" in out
    (idle / "pyproject.toml").write_text('[tool.rmqlint]\nfail-on = "error"\n')
    assert rmqplan("check", ".", "--deploy", "deploy", "--no-cache")[0] == 0
    assert rmqplan("check", ".", "--deploy", "deploy", "--fail-on", "warning", "--no-cache")[0] == 1


def test_exit_zero_on_simulate(tmp_path):
    fleet = tmp_path / "fleet.toml"
    fleet.write_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 4\n[[groups]]\nname = "g"\n'
                     'subscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\ncount = 2\n'
                     'instance_name = "x"\n')
    assert rmqplan("simulate", "--fleet", str(fleet))[0] == 1
    code, out, _ = rmqplan("simulate", "--fleet", str(fleet), "--exit-zero")
    assert code == 0 and "PLAN001" in out
    assert rmqplan("simulate", "--fleet", str(tmp_path / "none.toml"), "--exit-zero")[0] == 2


ORDERS_ROUTE = ('{"brokerDatas":[{"brokerAddrs":{0:"10.1.0.11:10911"},"brokerName":"broker-a","cluster":"c"}],'
                '"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,'
                '"topicSysFlag":0,"writeQueueNums":4}]}\n')


def test_without_a_cluster_every_output_says_the_layout_is_assumed_and_how_to_give_it(idle):
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--no-cache")
    first = out.splitlines()[0]
    assert first.startswith('note: assumed: one broker "broker-a" with 8 read and 8 write queues per topic')
    assert "since no --cluster or --namesrv was given" in first and "--cluster DIR" in first
    _, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--no-cache", "--format", "json")
    report = json.loads(out)
    (finding,) = report["findings"]
    assert finding["message"].endswith("(an assumed layout: 8 queues on one broker; --cluster or --namesrv gives the "
                                       "real one)")
    assert report["assumptions"] == [first.removeprefix("note: assumed: ")]
    _, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--no-cache", "--format", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, sarif_schema())
    (note,) = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "note" and note["message"]["text"] == report["assumptions"][0]
    _, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--no-cache", "--format", "github")
    assert out.startswith("::notice title=assumed::one broker")
    code, out, err = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0 and f"# Assumed: {report['assumptions'][0]}." in out


def test_a_cluster_that_gives_the_routes_leaves_nothing_assumed(idle):
    (idle / "cluster").mkdir()
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache",
                           "--format", "json")
    (said,) = json.loads(out)["assumptions"]
    assert said.startswith('one broker "broker-a" with 8 read and 8 write queues per topic') and \
        "since the cluster outputs in cluster hold no route and no broker" in said
    (idle / "cluster" / "clusterList.txt").write_text(
        "#Cluster Name  #Broker Name  #BID  #Addr             #Version\n"
        "c              broker-a      0     10.1.0.11:10911   V5_1_4\n")
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache",
                           "--format", "json")
    assert json.loads(out)["assumptions"] == ["8 read and 8 write queues on every broker for topic Orders "
                                              "(mqadmin updateTopic's default), since no topicRoute-<Topic>.json in "
                                              "cluster"]
    (idle / "cluster" / "topicRoute-Orders.json").write_text(ORDERS_ROUTE)
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache",
                           "--format", "json")
    report = json.loads(out)
    assert report["assumptions"] == [] and "assumed" not in report["findings"][0]["message"]
    _, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache")
    assert not out.startswith("note:")
    _, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--cluster", "cluster", "--no-cache", "--format", "sarif")
    assert "invocations" not in json.loads(out)["runs"][0]


def spring_pull_consumer(root: Path, host_network: bool) -> None:
    """The Spring starter's pull consumer named `${HOSTNAME}` in application.properties, 3 replicas."""
    (root / "orders" / "src" / "main" / "resources").mkdir(parents=True)
    (root / "orders" / "src" / "main" / "resources" / "application.properties").write_text(
        "rocketmq.name-server=ns:9876\nrocketmq.pull-consumer.group=orders_cg\nrocketmq.pull-consumer.topic=Orders\n"
        "rocketmq.pull-consumer.instance-name=${HOSTNAME}\n")
    (root / "orders" / "pom.xml").write_text(
        "<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>orders</artifactId><version>1"
        "</version><dependencies><dependency><groupId>org.apache.rocketmq</groupId><artifactId>"
        "rocketmq-spring-boot-starter</artifactId><version>2.2.3</version></dependency></dependencies></project>\n")
    (root / "deploy").mkdir(exist_ok=True)
    (root / "deploy" / "orders.yaml").write_text(deployment(3, host_network))


def test_a_spring_hostname_placeholder_is_a_name_per_host_not_a_fixed_one(tmp_path, monkeypatch):
    """`${HOSTNAME}` is the pod's name on pod networking (one per replica) and the node's on host networking (the
    replicas of one node share it): the fleet writes it as such, and nothing calls it fixed."""
    spring_pull_consumer(tmp_path, host_network=True)
    monkeypatch.chdir(tmp_path)
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0 and 'instance_name = "${HOSTNAME}"  # orders/src/main/resources/application.properties:4 ' \
                         "sets the instanceName at run time from the host name" in out
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--no-cache", "--format", "json")
    plan = [f["message"] for f in json.loads(out)["findings"] if f["code"].startswith("PLAN")]
    assert code == 1 and plan and not [m for m in plan if "fixed" in m]
    assert all("share client id orders-node-1@orders-node-1@STREAM (instanceName '${HOSTNAME}' made at run time "
               "from the host's name" in m for m in plan)
    (tmp_path / "deploy" / "orders.yaml").write_text(deployment(3, host_network=False))
    code, out, _ = rmqplan("check", ".", "--deploy", "deploy", "--no-cache", "--format", "json")
    assert (code, json.loads(out)["findings"]) == (0, [])

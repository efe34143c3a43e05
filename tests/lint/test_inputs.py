"""Inputs real projects have: legacy encodings, build-time tokens in configuration, expressions nested deeper than
the evaluator follows. Each is read (or reported with RMQ900 at its line), never dropped silently."""

from __future__ import annotations

from pathlib import Path

from rmqlint.engine import LintOptions, lint

from tests.lint.spans import span

GBK_PROPERTIES = (
    "# 订单服务的消费者配置\n"
    "rocketmq.name-server=10.0.0.1:9876\n"
    "rocketmq.consumer.group=orders_cg\n"
    "rocketmq.consumer.topic=OrderEvents\n"
    "# 每台机器一个实例名\n"
    "rocketmq.consumer.instance-name=node-1\n"
).encode("gbk")


def _project(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def _findings(root: Path):
    result = lint(LintOptions(paths=[root], use_cache=False))
    return [(f.code, f.location.path, f.location.line, f.message) for f in result.findings]


def test_a_gbk_properties_file_is_read_as_java_reads_it(tmp_path):
    root = _project(tmp_path, {"orders/src/main/resources/application.properties": GBK_PROPERTIES,
                               "orders/pom.xml": "<project/>"})
    findings = _findings(root)
    assert [(code, path, line) for code, path, line, _m in findings] == [
        ("RMQ001", "orders/src/main/resources/application.properties", 6)]
    assert '"node-1"' in findings[0][3]


def test_properties_escapes_are_decoded():
    from rmqlint.frontends.spring import parse_properties

    facts = parse_properties("application.properties", b"rocketmq.consumer.instance-name=n\\u00f6de-1\n")
    (entry,) = facts.config
    assert entry.value.text == "nöde-1" and facts.problems == []


def test_build_tokens_in_yaml_are_unresolved_values_not_a_broken_file(tmp_path):
    yml = ("spring:\n"
           "  application:\n"
           "    name: @project.artifactId@  # filled in by Maven\n"
           "    version: ${project.version}\n"
           "rocketmq:\n"
           "  name-server: 10.0.0.1:9876\n"
           "  consumer:\n"
           "    group: orders_cg\n"
           "    topic: OrderEvents\n"
           "    instance-name: node-1\n")
    root = _project(tmp_path, {"orders/src/main/resources/application.yml": yml})
    assert [(code, line) for code, _p, line, _m in _findings(root)] == [("RMQ001", 10)]


def test_an_instance_name_from_a_build_token_is_not_fixed(tmp_path):
    java = """package shop;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.springframework.beans.factory.annotation.Value;

public class OrderConsumer {
    @Value("${app.node}")
    private String node;

    void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
        consumer.setInstanceName(node);
        consumer.subscribe("OrderEvents", "*");
        consumer.start();
    }
}
"""
    root = _project(tmp_path, {"orders/src/main/java/shop/OrderConsumer.java": java,
                               "orders/src/main/resources/application.yml": "app:\n  node: @node.name@\n"})
    assert _findings(root) == []


def test_a_python_coding_declaration_is_honoured(tmp_path):
    source = ("# -*- coding: gbk -*-\n# 订单消费者\nfrom rocketmq.client import PushConsumer\n\n"
              "consumer = PushConsumer('orders_cg')\nconsumer.set_instance_name('node-1')\n").encode("gbk")
    root = _project(tmp_path, {"consumer.py": source})
    assert [(code, line) for code, _p, line, _m in _findings(root)] == [("RMQ001", 6)]


JAVA_NESTED = """package shop;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class OrderConsumer {
    void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
        consumer.setInstanceName(%s);
        consumer.subscribe("OrderEvents", "*");
        consumer.start();
    }
}
"""


def test_deep_parentheses_are_followed(tmp_path):
    root = _project(tmp_path, {"OrderConsumer.java": JAVA_NESTED % ("(" * 150 + '"node-1"' + ")" * 150)})
    assert [(code, line) for code, _p, line, _m in _findings(root)] == [("RMQ001", 8)]


def test_an_expression_deeper_than_the_evaluator_follows_is_reported_at_its_line(tmp_path):
    expression = '"node-1"'
    for _ in range(150):
        expression = f'"n" + ({expression})'
    source = JAVA_NESTED % expression
    root = _project(tmp_path, {"OrderConsumer.java": source})
    findings = _findings(root)
    assert [(code, line) for code, _p, line, _m in findings] == [("RMQ900", 8)]
    assert "nested more than 100 levels" in findings[0][3]
    assert span(source, "setInstanceName", "OrderConsumer.java").line == 8

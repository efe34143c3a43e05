"""Inputs real projects have: legacy encodings in configuration, build-time tokens, expressions nested deeper than
the evaluator follows, very large files, and a lint of one file in a large project."""

from __future__ import annotations

from pathlib import Path

from rmqlint.engine import LintOptions, lint


def write_project(root: Path, files: dict[str, str | bytes]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def findings_of(root: Path, *paths: str):
    result = lint(LintOptions(paths=[root / p for p in paths] or [root], use_cache=False))
    return [(f.code, f.location.path, f.location.line) for f in result.findings], result


# --- one file of a large project ------------------------------------------------------------------------------


def test_linting_one_file_parses_only_the_files_that_can_hold_facts(tmp_path):
    root = write_project(tmp_path, {
        "app/consumer.py": "from rocketmq.client import PushConsumer\n\nc = PushConsumer('g')\n"
                           "c.set_instance_name('node-1')\nc.subscribe('T', None)\n",
        # Names RocketMQ only in a comment and a string: no fact can come from it.
        "app/notes.py": "# rocketmq settings live elsewhere\nBROKER = 'rocketmq://10.0.0.1'\n",
        "app/Other.java": "class Other { String s = \"rocketmq\"; }\n",
        "app/util.py": "def helper():\n    return 1\n",
    })
    found, result = findings_of(root, "app/consumer.py")
    assert found == [("RMQ001", "app/consumer.py", 4)]
    assert result.parsed == 1


# --- configuration as real projects write it --------------------------------------------------------------------

GBK_PROJECT = Path(__file__).resolve().parent / "fixtures" / "projects" / "gbk-spring-orders"


def copy_project(source: Path, target: Path) -> Path:
    files = {p.relative_to(source).as_posix(): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    return write_project(target, files)


def test_a_gbk_application_properties_is_read_and_its_fixed_instance_name_reported(tmp_path):
    properties = (GBK_PROJECT / "src/main/resources/application.properties").read_bytes()
    try:
        properties.decode("utf-8")
        raise AssertionError("the fixture must hold GBK comments")
    except UnicodeDecodeError:
        pass
    root = copy_project(GBK_PROJECT, tmp_path / "orders")
    found, result = findings_of(root)
    line = next(n for n, text in enumerate(properties.split(b"\n"), 1) if text.startswith(b"rocketmq.consumer.instance"))
    # Nothing else: not the GBK comments, not the build tokens of bootstrap.yml (an unquoted @project.artifactId@).
    assert found == [("RMQ001", "src/main/resources/application.properties", line)]
    assert '"node-1"' in result.findings[0].message and '"orders_puller"' in result.findings[0].message


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
           "    instance-name: node-1\n"
           "  pull-consumer:\n"
           "    group: audit_cg\n"
           "    topic: AuditEvents\n"
           "    instance-name: @instance.name@\n")
    root = write_project(tmp_path, {"orders/src/main/resources/application.yml": yml})
    found, _result = findings_of(root)
    # The fixed name is reported; the one the build fills in is not known, so it is not.
    assert found == [("RMQ001", "orders/src/main/resources/application.yml", 10)]


# --- nesting deeper than the evaluator follows ------------------------------------------------------------------

JAVA_CONSUMER = """\
package shop;

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


def test_parentheses_at_any_depth_are_followed(tmp_path):
    root = write_project(tmp_path, {
        "OrderConsumer.java": JAVA_CONSUMER % ("(" * 150 + '"node-1"' + ")" * 150),
        "consumer.py": "from rocketmq.client import PushConsumer\n\nconsumer = PushConsumer('orders_cg')\n"
                       "consumer.set_instance_name(" + "(" * 150 + "'node-1'" + ")" * 150 + ")\n",
    })
    found, _result = findings_of(root)
    assert found == [("RMQ001", "OrderConsumer.java", 8), ("RMQ001", "consumer.py", 4)]


def test_an_expression_deeper_than_the_evaluator_follows_is_reported_at_its_line(tmp_path):
    expression = '"node-1"'
    for _ in range(150):
        expression = f'(String) ({expression})'
    root = write_project(tmp_path, {"OrderConsumer.java": JAVA_CONSUMER % expression})
    found, result = findings_of(root)
    assert found == [("RMQ900", "OrderConsumer.java", 8)]
    assert "nested more than 100 levels" in result.findings[0].message


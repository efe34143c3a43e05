"""Crashes the fuzzer (`tests/lint/test_fuzz.py`, `make fuzz`) found, each kept as a plain test."""

from __future__ import annotations

import json
import warnings

import pytest

from rmqlint.cli import main
from rmqlint.engine import lint_sources
from rmqlint.values import MAX_PLACEHOLDER_DEPTH
from rmqlint.rules._examples import line_of
from tests.lint.test_engine_fixtures import write_project

CONSUMER_PY = 'from rocketmq.client import PushConsumer\nc = PushConsumer("g")\nc.set_instance_name("{name}")\n' \
              'c.subscribe("T", print)\n'


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_lone_surrogate_in_a_value_is_printed_escaped(tmp_path, capsysbinary, fmt):
    """`"\\ud800"` in a Python literal is a str with a lone surrogate: printing it raised UnicodeEncodeError (an
    "internal error", exit 2) in every format."""
    root = write_project(tmp_path / "p", {"app.py": CONSUMER_PY.format(name="\\ud800node")})
    assert main([str(root), "--format", fmt, "--no-cache"]) == 1
    out, err = capsysbinary.readouterr()
    assert err == b""
    text = out.decode("utf-8")  # strict: the output is valid UTF-8
    assert "\\ud800node" in text
    if fmt in ("json", "sarif"):
        json.loads(text)


def test_invalid_escapes_are_not_errors_even_when_warnings_are(tmp_path):
    """`"\\q"` makes Python warn (a SyntaxWarning on 3.12); under `-W error` the precheck reported a syntax error
    and the file's findings were lost."""
    source = CONSUMER_PY.format(name="node\\q")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        findings = lint_sources({"app.py": source})
    assert [(f.code, f.location.line) for f in findings] == [("RMQ001", line_of(source, "set_instance_name"))]


def _deep(depth: int) -> str:
    return "${a:" * depth + "n" + "}" * depth


@pytest.mark.parametrize("path, template", [
    ("src/main/resources/application.properties",
     "rocketmq.consumer.group=g\nrocketmq.consumer.topic=T\nrocketmq.consumer.instance-name={value}\n"),
    ("src/main/resources/application.yml",
     "rocketmq:\n  consumer:\n    group: g\n    topic: T\n    instance-name: \"{value}\"\n"),
    ("src/main/java/com/acme/Audit.java",
     'import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;\n'
     '@RocketMQMessageListener(topic = "T", consumerGroup = "g",\n    instanceName = "{value}")\n'
     'class Audit implements RocketMQListener<String> {{ public void onMessage(String m) {{}} }}\n'),
])
def test_deeply_nested_placeholders_are_reported_at_their_line(path, template):
    """1,000 nested `${a:...}` defaults recursed until RecursionError ("could not analyse", the whole file lost)
    and took seconds (quadratic); now a value nested too deeply is unknown, with an RMQ900 at its line."""
    shallow = template.format(value=_deep(3))
    assert [f.code for f in lint_sources({path: shallow})] == ["RMQ001"]
    for depth in (MAX_PLACEHOLDER_DEPTH + 1, 1000, 20000):
        source = template.format(value=_deep(depth))
        (finding,) = lint_sources({path: source})
        assert finding.code == "RMQ900" and "nested more than" in finding.message
        assert finding.location.line == line_of(source, "${a:")


def test_a_long_chain_of_configuration_keys_is_unknown_not_a_recursion():
    """`instance-name=${k0}`, `k0=${k1}`, ... 661 keys: the linker recursed once per key until RecursionError,
    which escaped the run (a traceback, exit 2)."""
    for depth in (5, 1000):
        keys = "".join(f"k{i}=${{k{i + 1}}}\n" for i in range(depth)) + f"k{depth}=node\n"
        source = ("rocketmq.consumer.group=g\nrocketmq.consumer.topic=T\nrocketmq.consumer.instance-name=${k0}\n"
                  + keys)
        findings = lint_sources({"src/main/resources/application.properties": source})
        assert [f.code for f in findings] == (["RMQ001"] if depth == 5 else [])


def test_a_long_chain_of_java_constants_is_unknown_not_a_recursion():
    for depth in (5, 3000):
        constants = "".join(f"    static final String C{i} = C{i + 1};\n" for i in range(depth))
        source = ("import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n"
                  "class Chain {\n" + constants + f'    static final String C{depth} = "node";\n'
                  "    void run() throws Exception {\n"
                  '        DefaultMQPushConsumer c = new DefaultMQPushConsumer("g");\n'
                  "        c.setInstanceName(C0);\n"
                  '        c.subscribe("T", "*");\n        c.start();\n    }\n}\n')
        findings = lint_sources({"src/main/java/Chain.java": source})
        # Too long to follow: unknown, and said so (RMQ900) where the consumer uses it, never dropped silently.
        line = source.splitlines().index("        c.setInstanceName(C0);") + 1
        assert [(f.code, f.location.line) for f in findings] == [("RMQ001" if depth == 5 else "RMQ900", line)]

"""Adopting rmqlint on a codebase with findings: baselines whose entries survive moved code, and suppression
comments written in each file's own comment syntax."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rmqlint.cli import main
from rmqlint.engine import LintOptions, lint
from rmqlint.frontends import frontend_for
from tests.lint.test_engine_fixtures import write_project

CONSUMER = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Consumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("consumer_group");
        consumer.setInstanceName("XUJIAN_MACBOOK");
        consumer.subscribe("TopicTest", "*");
        consumer.start();
    }

    public void other() throws Exception {
        DefaultMQPushConsumer second = new DefaultMQPushConsumer("second_group");
        second.setInstanceName("XUJIAN_MACBOOK");
        second.subscribe("TopicTest", "*");
        second.start();
    }
}
"""

CONFIG = "rocketmq:\n  name-server: a:9876 b:9876\n  producer:\n    group: pg\n"

PYTHON = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID")
consumer.set_instance_name("node")
consumer.subscribe("T", on_message, "A,B")
"""

FILES = {"src/main/java/com/app/Consumer.java": CONSUMER, "src/main/resources/application.yml": CONFIG,
         "app/consumer.py": PYTHON}


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def findings(root: Path) -> list[tuple[str, str, int]]:
    return [(f.code, f.location.path, f.location.line)
            for f in lint(LintOptions(paths=[root], use_cache=False)).findings if f.severity != "info"]


# --- baselines --------------------------------------------------------------------------------------------------

def test_baseline_survives_inserted_lines_and_renamed_methods(tmp_path, capsys):
    root = write_project(tmp_path / "p", FILES)
    baseline = tmp_path / "baseline.json"
    code, _out, err = run(capsys, str(root), "--write-baseline", str(baseline))
    assert code == 0 and "wrote 5 findings to the baseline" in err
    document = json.loads(baseline.read_text())
    assert document["rmqlint_baseline"] == 1
    assert {(e["code"], e["path"]) for e in document["findings"]} == {
        ("RMQ001", "src/main/java/com/app/Consumer.java"), ("RMQ008", "src/main/resources/application.yml"),
        ("RMQ001", "app/consumer.py"), ("RMQ010", "app/consumer.py")}
    assert run(capsys, str(root), "--baseline", str(baseline))[0] == 0

    # Code moves: lines above every finding, a method renamed, a comment in the YAML; nothing new is reported.
    java = root / "src/main/java/com/app/Consumer.java"
    java.write_text(CONSUMER.replace("public void start()", "// the main consumer\n    public void begin()")
                    .replace("import org", "import java.util.List;\nimport org"))
    (root / "src/main/resources/application.yml").write_text("# cluster\n" + CONFIG)
    (root / "app/consumer.py").write_text('"""Consumers."""\n\n' + PYTHON)
    code, out, _err = run(capsys, str(root), "--baseline", str(baseline))
    assert code == 0 and out.splitlines()[-1] == "No findings in 3 files; 5 more in the baseline, not shown."

    # A new finding is reported, alone, even where the same code already has one in the baseline.
    java.write_text(java.read_text().replace('second.subscribe("TopicTest", "*");',
                                             'second.subscribe("TopicTest", "*");\n        second.setNamesrvAddr("a,b");'))
    code, out, _err = run(capsys, str(root), "--baseline", str(baseline), "--format", "json")
    assert code == 1
    line = java.read_text().splitlines().index('        second.setNamesrvAddr("a,b");') + 1
    assert [(f["code"], f["line"]) for f in json.loads(out)["findings"]] == [("RMQ008", line)]


def test_a_second_copy_of_a_baselined_finding_is_new(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"app/consumer.py": PYTHON})
    baseline = tmp_path / "b.json"
    run(capsys, str(root), "--write-baseline", str(baseline))
    # Another consumer whose line reads the same: the baseline holds one such finding, not two.
    (root / "app/consumer.py").write_text(PYTHON + 'consumer = PushConsumer("CID2")\nconsumer.set_instance_name("node")\n')
    code, out, _err = run(capsys, str(root), "--baseline", str(baseline))
    assert code == 1 and out.count("RMQ001") == 1


def test_writing_again_drops_fixed_findings_and_keeps_other_paths(tmp_path, capsys):
    root = write_project(tmp_path / "p", FILES)
    baseline = tmp_path / "baseline.json"
    run(capsys, str(root), "--write-baseline", str(baseline))
    run(capsys, str(root / "src"), "--fix")  # RMQ008 in the YAML is fixed
    code, _out, err = run(capsys, str(root / "src"), "--write-baseline", str(baseline))
    assert code == 0 and "kept 2 of files not linted now" in err
    entries = json.loads(baseline.read_text())["findings"]
    assert sorted((e["code"], e["path"]) for e in entries) == [
        ("RMQ001", "app/consumer.py"), ("RMQ001", "src/main/java/com/app/Consumer.java"),
        ("RMQ001", "src/main/java/com/app/Consumer.java"), ("RMQ010", "app/consumer.py")]
    assert run(capsys, str(root), "--baseline", str(baseline))[0] == 0


@pytest.mark.parametrize("content, message", [
    (None, "no such baseline file"),
    ("{not json", "not JSON"),
    ('{"findings": []}', "not a baseline file"),
    ('{"rmqlint_baseline": 1, "findings": [{"code": 1}]}', "findings[0]: expected code, path and fingerprint"),
])
def test_a_bad_baseline_is_one_line_and_exit_2(tmp_path, capsys, content, message):
    root = write_project(tmp_path / "p", FILES)
    path = tmp_path / "b.json"
    if content is not None:
        path.write_text(content)
    code, out, err = run(capsys, str(root), "--baseline", str(path))
    assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


# --- suppression comments ---------------------------------------------------------------------------------------

def test_add_suppressions_in_each_files_comment_syntax(tmp_path, capsys):
    properties = "# GBK: 注释\r\nrocketmq.pull-consumer.group=g\r\nrocketmq.pull-consumer.topic=T\r\n" \
                 "rocketmq.pull-consumer.instance-name=fixed\r\n"
    files = {**FILES, "svc/src/main/resources/application.properties": properties.encode("gbk")}
    root = write_project(tmp_path / "p", files)
    code, _out, err = run(capsys, str(root), "--add-suppressions")
    assert code == 0 and "added suppression comments on 6 lines in 4 files" in err
    java = (root / "src/main/java/com/app/Consumer.java").read_text()
    assert '        // rmqlint: disable=RMQ001\n        consumer.setInstanceName("XUJIAN_MACBOOK");' in java
    assert (root / "src/main/resources/application.yml").read_text() == CONFIG.replace(
        "  name-server", "  # rmqlint: disable=RMQ008\n  name-server")
    assert '# rmqlint: disable=RMQ001\nconsumer.set_instance_name("node")\n# rmqlint: disable=RMQ010\n' \
           'consumer.subscribe' in (root / "app/consumer.py").read_text()
    assert (root / "svc/src/main/resources/application.properties").read_bytes() == properties.replace(
        "rocketmq.pull-consumer.instance-name", "# rmqlint: disable=RMQ001\r\nrocketmq.pull-consumer.instance-name"
    ).encode("gbk")
    assert findings(root) == []
    for rel in files:
        assert not frontend_for(rel).parse(rel, (root / rel).read_bytes()).problems


def test_add_suppressions_extends_a_comment_above_and_skips_baselined(tmp_path, capsys):
    source = PYTHON.replace('consumer.subscribe("T", on_message, "A,B")',
                            '# rmqlint: disable=RMQ002\nconsumer.subscribe("T", on_message, "A,B")')
    root = write_project(tmp_path / "p", {"app/consumer.py": source})
    baseline = tmp_path / "b.json"
    (root / "app/consumer.py").write_text(source.replace('consumer.set_instance_name("node")\n', ""))
    run(capsys, str(root), "--write-baseline", str(baseline))  # RMQ010 is known
    (root / "app/consumer.py").write_text(source)
    code, _out, _err = run(capsys, str(root), "--add-suppressions", "--baseline", str(baseline))
    assert code == 0
    text = (root / "app/consumer.py").read_text()
    assert '# rmqlint: disable=RMQ001\nconsumer.set_instance_name("node")\n# rmqlint: disable=RMQ002\n' in text


def test_add_suppressions_with_diff_changes_nothing(tmp_path, capsys):
    root = write_project(tmp_path / "p", FILES)
    code, out, _err = run(capsys, str(root), "--add-suppressions", "--diff")
    assert code == 1 and "+        // rmqlint: disable=RMQ001" in out
    assert (root / "src/main/java/com/app/Consumer.java").read_text() == CONSUMER


def test_no_comment_line_inside_a_string_or_block_scalar(tmp_path):
    from rmqlint.suppress import _no_comment_lines

    yaml = b"a: |\n  one\n  two\nb: 1\n"
    assert _no_comment_lines("x.yml", yaml, yaml.split(b"\n")) == {2, 3}
    python = b'x = """\nrmqlint\n"""\ny = 1\n'
    assert _no_comment_lines("x.py", python, python.split(b"\n")) == {2, 3}
    java = b'class A {\n  String s = """\n    text\n    """;\n}\n'
    assert _no_comment_lines("A.java", java, java.split(b"\n")) == {3, 4}
    properties = b"k=a,\\\n  b\nc=1\n"
    assert _no_comment_lines("a.properties", properties, properties.split(b"\n")) == {2}


def test_add_suppressions_on_the_repository_examples_leaves_nothing(tmp_path, capsys):
    import shutil

    copy = tmp_path / "examples"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples", copy)
    (copy / ".rmqlint.toml").write_text("", encoding="utf-8")
    code, _out, err = run(capsys, str(copy), "--add-suppressions")
    assert code == 0 and "added suppression comments on 10 lines in 10 files" in err
    assert lint(LintOptions(paths=[copy], use_cache=False)).findings == []
    for path in copy.rglob("*"):
        rel = path.relative_to(copy).as_posix()
        if path.is_file() and frontend_for(rel) is not None:
            assert not frontend_for(rel).parse(rel, path.read_bytes()).problems, rel

"""The engine end to end on small projects: partial file lists, suppressions, bad input (RMQ900), selection."""

from __future__ import annotations

import os

from rmqlint.engine import LintOptions, lint, lint_sources, read_at_most
from rmqlint.frontends import frontend_named
from tests.lint.test_engine_fixtures import (
    CONSUMER_FINDING_LINE,
    CONSUMER_JAVA,
    FROM_HOSTNAME,
    ORDERS_CONSUMER,
    ORDERS_DEPLOYMENT,
    ORDERS_POM,
    OTHER_CONSUMER_JAVA,
    deployed_files,
    java_project,
    write_project,
)

CONSUMER = "src/main/java/com/app/Consumer.java"
OTHER = "src/main/java/com/app/Other.java"


def run(*paths, **kw):
    return lint(LintOptions(paths=list(paths), **kw))


def codes_at(result):
    return sorted((f.code, f.location.path, f.location.line) for f in result.findings)


def test_constant_from_another_file_is_resolved(tmp_path):
    root = java_project(tmp_path)
    (finding,) = run(root).findings
    assert (finding.code, finding.location.path, finding.location.line) == ("RMQ001", CONSUMER, CONSUMER_FINDING_LINE)
    assert '"fixed-worker"' in finding.message


def test_partial_file_list_sees_the_whole_project_and_reports_only_those_files(tmp_path):
    """pre-commit passes the changed files only: the constant lives in a file it did not pass."""
    root = java_project(tmp_path)
    (root / OTHER).write_text(OTHER_CONSUMER_JAVA, encoding="utf-8")
    assert codes_at(run(root)) == [("RMQ001", CONSUMER, 8), ("RMQ001", OTHER, 8)]
    partial = run(root / CONSUMER, root / "src/main/java/com/app/Plain.java")
    assert codes_at(partial) == [("RMQ001", CONSUMER, 8)]
    assert '"fixed-worker"' in partial.findings[0].message and partial.files_checked == 2


def test_a_file_a_finding_cites_reports_it(tmp_path):
    """pre-commit passes the changed files only: a commit of the client release or of the manifest reports the
    collision it causes, wherever the finding is, and cites the manifest; a file the finding does not cite does not."""
    root = write_project(tmp_path / "release", {**deployed_files(version="4.5.1"),
                                                "orders/src/main/java/com/example/orders/Plain.java": "class Plain {}"})
    expected = [("RMQ001", ORDERS_POM, 10)]
    assert codes_at(run(root)) == expected
    for changed in (ORDERS_POM, ORDERS_DEPLOYMENT, ORDERS_CONSUMER):
        result = run(root / changed)
        assert codes_at(result) == expected, changed
        assert f"Deployment orders at {ORDERS_DEPLOYMENT}:13 runs 3 replicas" in result.findings[0].message
    assert codes_at(run(root / "orders/src/main/java/com/example/orders/Plain.java")) == []

    root = write_project(tmp_path / "hostname", deployed_files(name=FROM_HOSTNAME))
    (finding,) = run(root / ORDERS_DEPLOYMENT).findings
    assert (finding.code, finding.location.path, finding.location.line) == ("RMQ001", ORDERS_CONSUMER, 8)
    assert f"Deployment orders at {ORDERS_DEPLOYMENT}:13 runs 3 replicas" in finding.message


def test_suppression_on_the_line_and_the_line_above(tmp_path):
    same_line = CONSUMER_JAVA.replace("Names.INSTANCE);", "Names.INSTANCE); // rmqlint: disable=RMQ001")
    line_above = CONSUMER_JAVA.replace("        consumer.setInstanceName",
                                       "        // rmqlint: disable=RMQ001\n        consumer.setInstanceName")
    other_code = CONSUMER_JAVA.replace("Names.INSTANCE);", "Names.INSTANCE); // rmqlint: disable=RMQ002")
    two_above = CONSUMER_JAVA.replace("        DefaultMQPushConsumer consumer",
                                      "        // rmqlint: disable=RMQ001\n\n        DefaultMQPushConsumer consumer")
    for text, expected in [(same_line, 0), (line_above, 0), (other_code, 1), (two_above, 1)]:
        root = java_project(tmp_path / f"case{len(text)}{expected}")
        (root / CONSUMER).write_text(text, encoding="utf-8")
        assert len(run(root, use_cache=False).findings) == expected, text


def test_bad_files_give_rmq900_and_the_run_goes_on(tmp_path):
    root = java_project(tmp_path)
    broken = "package com.app;\nimport org.apache.rocketmq.client.producer.DefaultMQProducer;\nclass Broken {\n  void f( {\n}\n"
    limit = frontend_named("java").max_bytes
    huge = b"// DefaultMQPushConsumer\n" + b"class Huge {}\n" * (limit // 13)
    write_project(root, {
        "src/main/java/com/app/Broken.java": broken,
        "src/main/java/com/app/Binary.java": b"\x00\x01\x02DefaultMQPushConsumer\xff",
        "src/main/java/com/app/Latin.java": "// DefaultMQPushConsumer \u00fc caf".encode() + "\u00e9\nclass Latin {}\n".encode("latin-1"),
        "src/main/java/com/app/Huge.java": huge,
        "src/main/java/com/app/Unrelated.java": "// caf\u00e9 sans rapport\nclass Unrelated {}\n".encode("latin-1"),
    })
    result = run(root)
    by_path = {f.location.path.rsplit("/", 1)[-1]: f for f in result.findings}
    assert by_path["Consumer.java"].code == "RMQ001"
    assert by_path["Broken.java"].code == "RMQ900" and by_path["Broken.java"].location.line == 4
    assert "binary" in by_path["Binary.java"].message
    latin = by_path["Latin.java"]
    assert "UTF-8" in latin.message and (latin.location.line, latin.location.column) == (1, 31)
    assert by_path["Huge.java"].message.endswith(f"over the {limit // 1024} KB limit for java files: not linted")
    assert "Unrelated.java" not in by_path  # not about RocketMQ: its encoding is no concern
    assert {f.severity for f in result.findings if f.code == "RMQ900"} == {"info"}
    assert not result.failed() or any(f.code == "RMQ001" for f in result.findings)
    # The warm run reports the same problems.
    assert codes_at(run(root)) == codes_at(result)


def test_select_and_ignore(tmp_path):
    root = java_project(tmp_path)
    write_project(root, {"src/main/java/com/app/Bin.java": b"\x00DefaultMQPushConsumer"})
    assert {f.code for f in run(root).findings} == {"RMQ001", "RMQ900"}
    assert {f.code for f in run(root, ignore=["RMQ9"]).findings} == {"RMQ001"}
    assert {f.code for f in run(root, select=["RMQ900"]).findings} == {"RMQ900"}
    assert run(root, select=["RMQ002"]).findings == []


def test_fail_on_decides_failure(tmp_path):
    root = write_project(tmp_path / "p", {"A.java": b"\x00DefaultMQPushConsumer"})
    assert not run(root).failed()  # info only; default fail-on is warning
    assert run(root, fail_on="info").failed()


def test_lint_sources_in_memory():
    findings = lint_sources({
        "src/com/app/Names.java": (tmp_text := CONSUMER_JAVA.replace("Names.INSTANCE", '"x"')),
    })
    assert [(f.code, f.location.line) for f in findings] == [("RMQ001", CONSUMER_FINDING_LINE)], tmp_text


PY_SETTINGS = 'PREFIX = "billing-"\nINSTANCE = PREFIX + "worker"\nTOPIC = "orders"\n'
PY_CONSUMER = """\
from rocketmq.client import ConsumeStatus, PushConsumer

from app.conf.settings import INSTANCE, TOPIC
from .conf import settings


def callback(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("group_py")
consumer.set_instance_name(INSTANCE)
consumer.subscribe(TOPIC, callback)
other = PushConsumer("group_py2")
# rmqlint: disable=RMQ001
other.set_instance_name(settings.INSTANCE)
consumer.start()
"""


def python_project(root):
    return write_project(root, {
        "app/__init__.py": "",
        "app/conf/__init__.py": "",
        "app/conf/settings.py": PY_SETTINGS,
        "app/consumer.py": PY_CONSUMER,
    }, git=True)


def test_python_constants_across_modules_and_suppression(tmp_path):
    root = python_project(tmp_path)
    result = run(root)
    assert codes_at(result) == [("RMQ001", "app/consumer.py", 12)]
    assert '"billing-worker"' in result.findings[0].message
    assert result.parsed == 2  # the consumer, and the settings module it imports from; never the __init__ files


def test_python_syntax_error_is_rmq900_with_position(tmp_path):
    root = python_project(tmp_path)
    write_project(root, {"app/broken.py": "from rocketmq.client import PushConsumer\n\ndef f(:\n    pass\n"})
    broken = [f for f in run(root).findings if f.location.path == "app/broken.py"]
    assert [(f.code, f.location.line) for f in broken] == [("RMQ900", 3)]


def test_deeply_nested_python_does_not_stop_the_run(tmp_path):
    root = python_project(tmp_path)
    deep = "import rocketmq.client\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    write_project(root, {"app/deep.py": deep})
    result = run(root)
    assert ("RMQ001", "app/consumer.py", 12) in codes_at(result)
    assert [f.code for f in result.findings if f.location.path == "app/deep.py"] == ["RMQ900"]


SPRING_FILES = {
    "src/main/resources/application.yml": "shop:\n  topic: orders\n  listener-name: shop-listener\n",
    "src/main/resources/application-prod.properties": "shop.topic=orders\n",
    "src/main/java/com/shop/OrderListener.java": """\
package com.shop;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "${shop.topic}", consumerGroup = "shop_group", selectorExpression = "Paid",
        instanceName = "${shop.listenerName}")
public class OrderListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
    }
}
""",
    "src/main/java/com/shop/Publisher.java": """\
package com.shop;

import org.apache.rocketmq.spring.core.RocketMQTemplate;

public class Publisher {
    private static final String DEST = "orders:paid";
    private RocketMQTemplate template;

    public void publish(String body) {
        template.convertAndSend(DEST, body);
    }
}
""",
}
LISTENER = "src/main/java/com/shop/OrderListener.java"


def test_spring_placeholders_relaxed_binding_and_template_destination(tmp_path):
    root = write_project(tmp_path / "shop", SPRING_FILES, git=True)
    result = run(root)
    assert [(f.code, f.location.path, f.location.line) for f in result.findings] == [
        ("RMQ002", LISTENER, 6), ("RMQ001", LISTENER, 7)]
    assert '"shop-listener"' in result.findings[1].message
    assert "Publisher.java:10" in result.findings[0].message


def test_spring_profiles_that_disagree_are_judged_as_each_profile_sets_the_value(tmp_path):
    """A key application-dev.yml overrides is judged as dev sets it, and as application.yml sets it under prod,
    which does not override it; each finding names the file and the profile."""
    files = dict(SPRING_FILES, **{"src/main/resources/application-dev.yml": "shop:\n  listener_name: other\n"})
    root = write_project(tmp_path / "shop", files, git=True)
    findings = run(root).findings
    assert [f.code for f in findings] == ["RMQ002", "RMQ001", "RMQ001"]
    dev, prod = sorted(findings[1:], key=lambda f: '"other"' not in f.message)
    assert "shop.listener_name is set at src/main/resources/application-dev.yml:2 (profile dev)" in dev.message
    assert dev.message.endswith("(under profile dev)")
    assert "shop.listener-name is set at src/main/resources/application.yml:3 (every profile but dev)" in prod.message
    assert prod.message.endswith("(under profile prod)")
    # Where the only profile sets a name unique per process, nothing is said.
    unique = dict(files, **{"src/main/resources/application-dev.yml": "shop:\n  listener_name: ${random.uuid}\n"})
    del unique["src/main/resources/application-prod.properties"]
    root = write_project(tmp_path / "unique", unique, git=True)
    assert [f.code for f in run(root).findings] == ["RMQ002"]


def test_constants_found_lazily_by_file_name_nested_class_and_byte_search(tmp_path):
    """Constants classes are parsed only on demand: `Outer.java` for `Outer.Inner`, and a package-private class
    declared in a file of another name found by a byte search of its package's directory."""
    consumer = CONSUMER_JAVA.replace("Names.INSTANCE", "Holder.Inner.PREFIX + Hidden.SUFFIX")
    files = {
        "src/main/java/com/app/Consumer.java": consumer,
        "src/main/java/com/app/Holder.java": (
            "package com.app;\n\npublic class Holder {\n    public static class Inner {\n"
            '        public static final String PREFIX = "pre-";\n    }\n}\n'
        ),
        "src/main/java/com/app/Misc.java": (
            'package com.app;\n\npublic class Misc {}\n\nclass Hidden {\n    static final String SUFFIX = "post";\n}\n'
        ),
        "src/main/java/com/app/Unrelated.java": "package com.app;\n\nclass Unrelated {}\n",
    }
    root = write_project(tmp_path / "p", files, git=True)
    result = run(root)
    assert [f.code for f in result.findings] == ["RMQ001"]
    assert '"pre-post"' in result.findings[0].message
    assert result.parsed == 3  # the consumer, Holder.java, Misc.java; never Unrelated.java


def test_special_file_is_reported_not_read(tmp_path):
    import os

    root = java_project(tmp_path)
    fifo = root / "src/main/java/com/app/Pipe.java"
    os.mkfifo(fifo)  # reading it would block forever
    result = run(root, root / "src/main/java/com/app/Pipe.java")
    pipe = [f for f in result.findings if f.location.path.endswith("Pipe.java")]
    assert [(f.code, f.message) for f in pipe] == [("RMQ900", "not a regular file: not linted")]
    assert any(f.code == "RMQ001" for f in result.findings)


def test_garbage_in_every_file_kind_never_stops_the_run(tmp_path):
    """Random bytes, truncated sources and odd encodings, under every name rmqlint reads: each file gives at most
    RMQ900 notes, and the real finding is still reported."""
    import random

    rng = random.Random(20240607)
    marker = b"DefaultMQPushConsumer rocketmq "
    files = {}
    for index in range(12):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
        text = marker + CONSUMER_JAVA.encode()[: rng.randrange(10, len(CONSUMER_JAVA))]
        for name, data in ((f"G{index}.java", blob), (f"T{index}.java", text), (f"g{index}.py", marker + blob),
                           (f"cfg{index}/application.yml", b"rocketmq:\n  " + blob),
                           (f"cfg{index}/application.properties", b"rocketmq.x=" + blob),
                           (f"u{index}.py", "# rocketmq\nx = '\u00e9'\n".encode("utf-16"))):
            files[f"src/main/java/com/app/junk/{name}"] = data
    root = java_project(tmp_path)
    write_project(root, files)
    result = run(root)
    assert ("RMQ001", CONSUMER, CONSUMER_FINDING_LINE) in codes_at(result)
    junk = [f for f in result.findings if "/junk/" in f.location.path]
    assert junk and {f.code for f in junk} <= {"RMQ900", "RMQ001", "RMQ002", "RMQ003"}
    assert all(f.location.line >= 1 and f.location.column >= 1 for f in result.findings)


def test_read_at_most_reads_the_first_bytes_up_to_the_limit_even_of_a_file_that_grew(tmp_path, monkeypatch):
    path = tmp_path / "A.java"
    for size in (0, 1, 9, 10, 11, 100):
        path.write_bytes(bytes(range(size)))
        with open(path, "rb") as fh:
            assert read_at_most(fh, 10) == bytes(range(size))[:10]
    # 5 bytes when its size is asked, 30 by the time it is read: read on, up to the limit.
    path.write_bytes(b"x" * 5 + b"y" * 25)
    real_fstat = os.fstat
    monkeypatch.setattr(os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 5, *real_fstat(fd)[7:])))
    with open(path, "rb") as fh:
        assert os.fstat(fh.fileno()).st_size == 5
        assert read_at_most(fh, 20) == b"x" * 5 + b"y" * 15
        fh.seek(0)
        assert read_at_most(fh, 40) == b"x" * 5 + b"y" * 25

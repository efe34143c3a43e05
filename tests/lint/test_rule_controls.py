"""Every rule through the command line: --select, --ignore and suppression comments act on it in every kind of file
its examples use; and RMQ011 never prints a secret, in any output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rmqlint.cli import main
from rmqlint.rules import ALL_RULES

RULES = [rule for rule in ALL_RULES if rule.CODE != "RMQ900"]
COMMENT = {".java": "//", ".py": "#", ".yml": "#", ".yaml": "#", ".properties": "#"}


def write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def findings(capsys, root: Path, *options: str) -> list[dict]:
    main([str(root), "--format", "json", "--no-cache", *options])
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)["findings"]


def codes(found: list[dict]) -> list[str]:
    return sorted({f["code"] for f in found})


@pytest.mark.parametrize("rule", RULES, ids=[r.CODE for r in RULES])
def test_select_and_ignore(rule, tmp_path, capsys):
    example = rule.INVALID[0]
    root = write(tmp_path / "p", dict(example.files))
    assert rule.CODE in codes(findings(capsys, root))
    selected = findings(capsys, root, "--select", rule.CODE)
    assert codes(selected) == [rule.CODE] and len(selected) == len(example.expect)
    assert rule.CODE not in codes(findings(capsys, root, "--ignore", rule.CODE))


@pytest.mark.parametrize("rule", RULES, ids=[r.CODE for r in RULES])
def test_suppression_comment_on_the_line_above(rule, tmp_path, capsys):
    example = rule.INVALID[0]
    files = dict(example.files)
    for path, line in sorted(set(example.expect), key=lambda item: -item[1]):
        lines = files[path].splitlines(keepends=True)
        comment = COMMENT[Path(path).suffix]
        indent = lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]
        lines.insert(line - 1, f"{indent}{comment} rmqlint: disable={rule.CODE}\n")
        files[path] = "".join(lines)
    root = write(tmp_path / "p", files)
    assert rule.CODE not in codes(findings(capsys, root)), files


# No three characters in a row of these occur in rmqlint's own words.
SECRETS = {"java": "Jq4Zx9Wv6Fb2", "yaml": "Yw8Qj3Zk6Xv1", "py": "Pz5Xq8Jw2Vk7"}
ACCESS = "Aq7Zw3Xj9Kv"
PROJECT = {
    "src/main/java/com/acme/Mq.java": f"""\
package com.acme;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class Mq {{
    DefaultMQProducer producer = new DefaultMQProducer("acme_producer",
        new AclClientRPCHook(new SessionCredentials("{ACCESS}", "{SECRETS['java']}")));
}}
""",
    "src/main/resources/application.yml": f"""\
rocketmq:
  name-server: 127.0.0.1:9876
  consumer:
    access-key: {ACCESS}
    secret-key: {SECRETS['yaml']}
""",
    "tools/mq.py": f"""\
from rocketmq import ClientConfiguration, Credentials

config = ClientConfiguration("127.0.0.1:8081", Credentials("{ACCESS}", "{SECRETS['py']}"))
""",
}


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
@pytest.mark.parametrize("cache", [True, False], ids=["cached", "no-cache"])
def test_secrets_are_never_printed(output, cache, tmp_path, capsys):
    docs = "".join(rule.DOCS for rule in ALL_RULES)  # SARIF carries the rules' docs
    assert not [s[i:i + 3] for s in (*SECRETS.values(), ACCESS) for i in range(len(s) - 2) if s[i:i + 3] in docs]
    root = write(tmp_path / "p", PROJECT)
    for _ in range(2 if cache else 1):  # the second run reads findings back from the cache
        main([str(root), "--format", output, *(() if cache else ("--no-cache",))])
        out, err = capsys.readouterr()
        assert out.count("RMQ011") >= 3 and err == ""
        for secret in (*SECRETS.values(), ACCESS):
            # at most the first two characters: never three of them in a row
            assert not [secret[i:i + 3] for i in range(len(secret) - 2) if secret[i:i + 3] in out], secret
        assert f"({len(SECRETS['java'])} characters)" in out


# --- test sources: `tests = "quiet"` (the default) or "lint" ----------------------------------------------------

MAIN_LISTENER = """\
package com.acme;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "order_consumer")
public class OrderListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
# A test that fakes a consumer of the production group on another topic, with a fixed instance name.
TEST_CONSUMER = """\
package com.acme;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class OrderListenerTest {
    void consumes() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order_consumer");
        consumer.setInstanceName("test-node");
        consumer.subscribe("TestTopic", "*");
        consumer.start();
    }
}
"""
TEST_CONFIG = """\
rocketmq:
  consumer:
    access-key: test-ak
    secret-key: Tq9Zx4Wk2Jv8
"""
TESTS_PROJECT = {
    "src/main/java/com/acme/OrderListener.java": MAIN_LISTENER,
    "src/test/java/com/acme/OrderListenerTest.java": TEST_CONSUMER,
    "src/test/resources/application.yml": TEST_CONFIG,
    "scripts/tests/replay.py": 'from rocketmq.client import PushConsumer\n\nc = PushConsumer("g")\n'
                               'c.subscribe("bad.topic", print)\n',
    "scripts/test_replay.py": 'from rocketmq.client import Message\n\nm = Message("bad.topic")\nm.set_tags("a")\n',
}


@pytest.mark.parametrize("setting, expected", [
    (None, [("RMQ011", "src/test/resources/application.yml")]),
    ('tests = "quiet"\n', [("RMQ011", "src/test/resources/application.yml")]),
    ('tests = "lint"\n', [
        ("RMQ001", "src/test/java/com/acme/OrderListenerTest.java"),
        # the test's registration comes second: reported there, citing the production listener
        ("RMQ004", "src/test/java/com/acme/OrderListenerTest.java"),
        ("RMQ009", "scripts/test_replay.py"),
        ("RMQ009", "scripts/tests/replay.py"),
        ("RMQ011", "src/test/resources/application.yml"),
    ]),
])
def test_test_sources(setting, expected, tmp_path, capsys, monkeypatch):
    files = dict(TESTS_PROJECT)
    if setting is not None:
        files[".rmqlint.toml"] = setting
    root = write(tmp_path / "p", files)
    monkeypatch.chdir(root)
    found = findings(capsys, root)
    assert sorted((f["code"], f["path"]) for f in found) == expected


def test_tests_setting_must_be_quiet_or_lint(tmp_path, capsys, monkeypatch):
    root = write(tmp_path / "p", {".rmqlint.toml": 'tests = "skip"\n'})
    monkeypatch.chdir(root)
    assert main([str(root)]) == 2
    assert capsys.readouterr().err == (
        "rmqlint: .rmqlint.toml: tests: expected one of quiet, lint, got 'skip'\n")

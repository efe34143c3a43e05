"""Names from the linted code and from file names reach the text outputs escaped (`rmqlint.printable`): an escape
sequence cannot drive the terminal and a CR/LF cannot forge a line; JSON keeps the names as they are."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from rmqlint.cli import main
from rmqlint.printable import printable
from tests.lint.test_engine_fixtures import write_project

# What no text line may hold raw: C0 controls (the report's own "\n" aside), DEL, C1, bidi overrides/isolates.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

JAVA = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.message.Message;

public class Consumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("grp\\u001b[2J\\r\\nx");
        consumer.setInstanceName("NAME\\u001b[2J\\r\\nFAKE.java:1:1: RMQ999 forged\\u202e");
        consumer.subscribe("Orders", "Tag\\u001b[31mA");
        consumer.start();
    }
    Message send() { return new Message("Orders", "tag\\u001b[31ma", new byte[0]); }
}
"""

PYTHON = """\
from rocketmq.client import PushConsumer

def on_message(msg):
    return 0

consumer = PushConsumer("pygroup")
consumer.set_instance_name("PYNAME\\x1b[2J\\r\\nforged")
consumer.subscribe("Orders", on_message)
consumer.start()
"""

ESC_FILE = "Esc\x1b[2JName.java"


def test_controls_bidi_and_separators_are_escaped():
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("x\r\ny\tz") == "x\\r\\ny\\tz"
    assert printable("\x00\x7f\x85\x9b") == "\\x00\\x7f\\x85\\x9b"
    assert printable("abc\u202edef\u2066\u2028") == "abc\\u202edef\\u2066\\u2028"
    assert printable("\udcff") == "\\udcff"  # a file name that is not UTF-8
    assert printable("plain name, ünïcödé, 中文, C:\\Temp\\dir") == "plain name, ünïcödé, 中文, C:\\Temp\\dir"


def test_a_backslash_is_doubled_only_where_it_would_read_as_an_escape():
    assert printable("lit\\x1b") == "lit\\\\x1b"  # the four characters, not ESC
    assert printable("\\\x1b") == "\\\\\\x1b"
    assert printable("a\\b") == "a\\b"


def test_two_different_texts_never_print_alike():
    alphabet = ["\\", "x", "u", "n", "1", "\x1b", "\n", "\u202e"]
    seen: dict[str, str] = {}
    for size in range(5):
        for chars in itertools.product(alphabet, repeat=size):
            text = "".join(chars)
            shown = printable(text)
            assert not RAW.search(shown) and "\n" not in shown
            assert seen.setdefault(shown, text) == text, (shown, text, seen[shown])


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    root = write_project(tmp_path / "p", {"Consumer.java": JAVA, ESC_FILE: JAVA, "consumer.py": PYTHON})
    monkeypatch.chdir(root)
    return root


def _lint(capsys, *argv):
    code = main(["--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_text_report_escapes_names_from_code_and_file_names(hostile, capsys, monkeypatch, fmt):
    monkeypatch.setenv("COLUMNS", "1000")  # no message wrapped: each finding's header is one line
    code, out, err = _lint(capsys, "--format", fmt)
    assert code == 1 and err == ""
    assert not RAW.search(out), out
    lines = out.splitlines()
    findings = [line for line in lines if re.match(r"^\S.*:\d+:\d+: RMQ\d{3} ", line)]
    if fmt == "concise":
        assert len(findings) == len(lines) - 2  # every line a finding, then the fixes line and the summary
    assert sum(line.startswith("Esc\\x1b[2JName.java:") for line in findings) == sum(
        line.startswith("Consumer.java:") for line in findings) > 0
    assert 'instanceName is fixed to "NAME\\x1b[2J\\r\\nFAKE.java:1:1: RMQ999 forged\\u202e"' in out
    assert 'instanceName is fixed to "PYNAME\\x1b[2J\\r\\nforged"' in out
    assert 'consumer group "grp\\x1b[2J\\r\\nx"' in out


def test_json_keeps_the_names_as_they_are(hostile, capsys):
    _code, out, _err = _lint(capsys, "--format", "json")
    findings = json.loads(out)["findings"]
    assert any(f["path"] == ESC_FILE for f in findings)
    messages = " ".join(f["message"] for f in findings)
    assert "NAME\x1b[2J\r\nFAKE.java:1:1: RMQ999 forged\u202e" in messages and "PYNAME\x1b[2J\r\nforged" in messages


def test_github_annotations_escape_names(hostile, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    _code, out, _err = _lint(capsys, "--format", "github")
    assert not RAW.search(out), out
    lines = out.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    assert any(line.startswith("::error file=Esc\\x1b[2JName.java,") for line in lines)
    assert 'instanceName is fixed to "PYNAME\\x1b[2J\\r\\nforged"' in out


@pytest.mark.parametrize("fmt", ["mermaid", "dot"])
def test_graph_text_formats_escape_names(hostile, capsys, fmt):
    assert main(["graph", "--no-cache", "--format", fmt]) == 0
    out, _err = capsys.readouterr()
    assert not RAW.search(out), out
    assert "grp\\x1b[2J\\r\\nx" in out.replace("\\\\", "\\")  # DOT doubles the backslash once more


def test_stderr_lines_escape_names_from_the_configuration(tmp_path, capsys, monkeypatch):
    root = write_project(tmp_path / "p", {"A.java": "class A {}\n"})
    (root / ".rmqlint.toml").write_text('"bad\\u001b[2J\\r\\nkey" = 1\nselect = ["RMQ001"]\n', encoding="utf-8")
    monkeypatch.chdir(root)
    code, out, err = _lint(capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and not RAW.search(err), err
    assert "bad\\x1b[2J\\r\\nkey" in err

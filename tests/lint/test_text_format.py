"""The text report in ruff's forms: `text` (a header per finding, the code frame with the span underlined, the places
it cites, the fix's help; wrapped to $COLUMNS), `concise` (one line per finding) and `--statistics`; and the code
frame on its own (tabs, wide and control characters, long lines, spans over several lines)."""

from __future__ import annotations

import pytest

from rmqlint.cli import main
from rmqlint.facts import Location
from rmqlint.reporters.code_frame import code_frame
from tests.lint.test_engine_fixtures import ORDERS_POM, deployed_files, write_project

PRODUCER = """\
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

class Producer {
\tvoid send(DefaultMQProducer producer) throws Exception {
\t\tproducer.send(new Message("Orders", "Paid", new byte[0]));
\t}
}
"""

# Indented with tabs; RMQ002 (a safe fix) on line 6, RMQ001 (an unsafe fix only) on line 7.
CONSUMER = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

class Consumer {
\tvoid start() throws Exception {
\t\tDefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
\t\tconsumer.subscribe("Orders", "paid");
\t\tconsumer.setInstanceName("orders-node");
\t\tconsumer.start();
\t}
}
"""

SUMMARY = ["[*] 1 fixable with --fix; 1 more with --fix --unsafe-fixes (--diff shows them).",
           "Found 2 findings (2 errors) in 2 files."]


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = write_project(tmp_path / "p", {"src/Producer.java": PRODUCER, "src/Consumer.java": CONSUMER})
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "120")
    return root


def lint(capsys, *argv: str) -> list[str]:
    code = main(["--no-cache", *argv])
    out, err = capsys.readouterr()
    assert code == 1 and err == "", err
    return out.splitlines()


def test_full_shows_the_frame_with_the_span_underlined_the_cited_place_and_the_fix(project, capsys):
    lines = lint(capsys)
    assert lines[:10] == [
        'src/Consumer.java:6:3: RMQ002 [*] subscribed tag "paid" on topic "Orders" does not match the produced tag '
        '"Paid" at',
        '    src/Producer.java:6: tags are compared exactly and case-sensitively, so those messages never reach group '
        '"orders_cg"',
        "  |",
        '5 |         DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");',
        '6 |         consumer.subscribe("Orders", "paid");',  # two tabs: eight columns
        "  |         " + "^" * len('consumer.subscribe("Orders", "paid")'),
        '7 |         consumer.setInstanceName("orders-node");',
        "  |",
        ' --> src/Producer.java:6:17: produces tag "Paid" on topic "Orders"',
        '  = help: subscribe to "Paid", the tag the producers send',
    ]
    assert lines[10] == ""
    # an unsafe fix only: no [*]; a note says how to apply it
    assert lines[11].startswith("src/Consumer.java:7:3: RMQ001 instanceName is fixed")
    help_at = lines.index("  = help: make the name unique per process (pid and start time)")
    assert lines[help_at + 1] == "  = note: an unsafe fix, applied with --fix --unsafe-fixes"
    assert lines[-3:] == ["", *SUMMARY]


def test_a_long_message_wraps_at_the_width_and_loses_no_word(project, capsys, monkeypatch):
    concise = lint(capsys, "--format", "concise")
    monkeypatch.setenv("COLUMNS", "60")
    lines = lint(capsys)
    header = lines[:lines.index("  |")]
    assert len(header) > 3 and all(len(line) <= 60 for line in header)
    assert all(line.startswith("    ") for line in header[1:])
    assert " ".join(line.strip() for line in header) == concise[0]
    assert all(len(line) <= 60 for line in lines if line.startswith(("5 |", "6 |", "7 |")))  # cut, with …
    assert "5 |         DefaultMQPushConsumer consumer = new DefaultMQP…" in lines  # 60 columns


def test_the_place_and_the_code_stay_on_one_line_however_narrow(tmp_path, capsys, monkeypatch):
    """`grep RMQ002` still shows where: a header and a cited place wrap after them, never inside, even when they
    are wider than the line."""
    deep = "src/main/java/com/example/orders"
    write_project(tmp_path / "p", {f"{deep}/Producer.java": PRODUCER, f"{deep}/Consumer.java": CONSUMER})
    monkeypatch.chdir(tmp_path / "p")
    monkeypatch.setenv("COLUMNS", "40")
    lines = lint(capsys)
    assert lines[0] == f"{deep}/Consumer.java:6:3: RMQ002 [*]"
    assert lines[1] == "    subscribed tag \"paid\" on topic"
    assert f" --> {deep}/Producer.java:6:17:" in lines


def test_concise_is_one_line_per_finding(project, capsys):
    assert lint(capsys, "--format", "concise") == [
        'src/Consumer.java:6:3: RMQ002 [*] subscribed tag "paid" on topic "Orders" does not match the produced tag '
        '"Paid" at src/Producer.java:6: tags are compared exactly and case-sensitively, so those messages never reach '
        'group "orders_cg"',
        'src/Consumer.java:7:3: RMQ001 instanceName is fixed to "orders-node" on clustering consumer group '
        '"orders_cg": every replica on one host reports the same client id, so replicas consume the same queues and '
        'other queues are consumed by nobody; remove the name, or, to keep several consumers of the group in one '
        'process apart, append what is unique per process: "@" + UtilAll.getPid() + "#" + System.nanoTime() (not the '
        "host name: on host networking it is the node's)",
        *SUMMARY,
    ]


def test_statistics_prints_the_count_per_code_and_the_summary(project, capsys):
    other = CONSUMER.replace("class Consumer", "class Other").replace('"paid"', '"Paid"')
    write_project(project, {"src/Other.java": other.replace("orders_cg", "audit_cg")})  # RMQ001 again
    assert lint(capsys, "--statistics") == [
        "2 RMQ001     fixed-instance-name",
        "1 RMQ002 [*] tag-case-drift",
        "[*] 1 fixable with --fix; 2 more with --fix --unsafe-fixes (--diff shows them).",
        "Found 3 findings (3 errors) in 3 files.",
    ]


def test_statistics_goes_with_the_text_formats(project, capsys):
    assert main(["--no-cache", "--statistics", "--format", "json"]) == 2
    assert capsys.readouterr().err == "rmqlint: --statistics goes with the text formats, not --format json\n"


def test_a_build_file_given_alone_is_a_file_checked(tmp_path, capsys, monkeypatch):
    """`rmqlint pom.xml` (a pre-commit run on a commit of the client release alone) checks that one file."""
    write_project(tmp_path / "p", deployed_files(version="4.5.1", replicas=3))
    monkeypatch.chdir(tmp_path / "p")
    lines = lint(capsys, ORDERS_POM)
    assert lines[0].startswith(f"{ORDERS_POM}:10:7: RMQ001 ")
    assert lines[-1] == "Found 1 finding (1 error) in 1 file."


# --- the code frame -------------------------------------------------------------------------------------------


def frame(text: str, line: int, column: int, end_line: int, end_column: int, width: int = 80) -> list[str]:
    return code_frame(text.split("\n"), Location("a.java", line, column, end_line, end_column), width)


def test_the_underline_counts_wide_and_control_characters_as_the_terminal_shows_them():
    text = 'String s = "中文\x1b"; call(s);'
    column = text.index("call") + 1
    shown = frame(text, 1, column, 1, column + len("call(s)"))
    assert shown[1] == '1 | String s = "中文\\x1b"; call(s);'
    # two wide characters, two columns each; ESC as its four characters
    assert shown[2] == "  | " + " " * (len('String s = "中文\\x1b"; ') + 2) + "^" * len("call(s)")


def test_a_long_line_is_cut_to_a_window_around_the_span():
    text = "x = " + "a + " * 100 + "target;"
    column = text.index("target") + 1
    shown = frame(text, 1, column, 1, column + len("target"), width=60)
    assert shown[1].startswith("1 | …") and len(shown[1]) <= 60
    assert shown[1][shown[2].index("^"):][:len("target")] == "target"


def test_a_span_over_several_lines_underlines_each_and_elides_the_middle():
    text = "\n".join(["before", "call(a,", "  b,", "  c,", "  d,", "  e,", "  f);", "after"])
    shown = frame(text, 2, 1, 7, 6)
    assert shown == ["  |", "1 | before", "2 | call(a,", "  | ^^^^^^^", "3 |   b,", "  |   ^^", "  | ...",
                     "6 |   e,", "  |   ^^", "7 |   f);", "  |   ^^^", "8 | after", "  |"]


def test_no_frame_where_the_file_does_not_hold_the_place():
    assert frame("one line", 3, 1, 3, 2) == []
    assert code_frame(None, Location("gone.java", 1, 1, 1, 2), 80) == []


CREDENTIALED = """\
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

class Consumer {
    void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg",
            new AclClientRPCHook(new SessionCredentials("LTAI5tXq9Wz3Jk7V", "q8Zr2Lx0Vn7Kp3Ws9Yt4")), null);
        consumer.setInstanceName("orders-node");
        consumer.start();
    }
}
"""


def test_no_frame_prints_a_line_that_holds_a_secret(tmp_path, monkeypatch, capsys):
    """RMQ011's own finding has no frame, and another finding's frame hides the credential's line it would show
    as context: the message masks the keys, so the code around it must not print them."""
    root = write_project(tmp_path / "p", {"src/Consumer.java": CREDENTIALED})
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "120")
    out = "\n".join(lint(capsys))
    assert "RMQ011" in out and "RMQ001" in out
    for key in ("LTAI5tXq9Wz3Jk7V", "q8Zr2Lx0Vn7Kp3Ws9Yt4"):
        assert not [key[i:i + 3] for i in range(len(key) - 2) if key[i:i + 3] in out], key
    assert " 8 |             (a line holding a credential: not shown)" in out
    assert ' 9 |         consumer.setInstanceName("orders-node");' in out

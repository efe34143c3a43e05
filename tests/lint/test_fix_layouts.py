"""`rmqlint --fix --unsafe-fixes` on one Python module written in every layout a file comes in (indented with a tab,
2 or 4 spaces; CRLF line ends; a UTF-8 byte-order mark), through the real command line: the fixed module compiles,
runs (against a stand-in `rocketmq` package that records what the client was given) with the values the fixes
meant, and a second run changes no byte and offers no fix."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lint.test_engine_fixtures import write_project

BIN = Path(sys.executable).parent

# The 2.x client's surface the module uses; each setter records its argument.
ROCKETMQ_STUB = '''\
class ConsumeStatus:
    CONSUME_SUCCESS = 0
    RECONSUME_LATER = 1


class PushConsumer:
    def __init__(self, group_id, orderly=False, message_model=1):
        self.group_id = group_id
        self.calls = {}

    def set_instance_name(self, name):
        self.calls["instance_name"] = name

    def set_name_server_address(self, addr):
        self.calls["name_server"] = addr

    def subscribe(self, topic, callback, expression="*"):
        self.calls["expression"] = expression

    def start(self):
        self.calls["started"] = True
'''

# {I} is one level of indentation. The client is made two levels deep and started when the module is imported.
CONSUMER = '''\
"""Orders."""
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
{I}return ConsumeStatus.CONSUME_SUCCESS


class Worker:
{I}def start(self):
{I}{I}consumer = PushConsumer("CID_ORDER")
{I}{I}consumer.set_instance_name("node")  # one name for every replica
{I}{I}consumer.set_name_server_address("10.0.0.1:9876,10.0.0.2:9876")
{I}{I}consumer.subscribe("OrderTopic", on_message, "Created,Paid")
{I}{I}consumer.start()
{I}{I}return consumer


CONSUMER = Worker().start()
'''

LAYOUTS = {
    "tab": ("\t", "\n", b""),
    "2 spaces": ("  ", "\n", b""),
    "4 spaces": ("    ", "\n", b""),
    "CRLF": ("  ", "\r\n", b""),
    "BOM": ("\t", "\n", b"\xef\xbb\xbf"),
}

# What the fixed module gives the client when it runs.
EXPECTED = {"instance_name": re.compile(r"node@[0-9a-f]{32}"), "name_server": "10.0.0.1:9876;10.0.0.2:9876",
            "expression": "Created||Paid", "started": True}


def rmqlint(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "rmqlint"), *args, "--no-cache", "."], cwd=root, capture_output=True,
                          timeout=120)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fix_on_every_layout_runs_and_is_stable(tmp_path, layout):
    indent, newline, bom = LAYOUTS[layout]
    source = bom + CONSUMER.replace("{I}", indent).replace("\n", newline).encode("utf-8")
    root = write_project(tmp_path / "p", {"consumer.py": source})
    stub = write_project(tmp_path / "stub", {"rocketmq/__init__.py": "", "rocketmq/client.py": ROCKETMQ_STUB})

    first = rmqlint(root, "--fix", "--unsafe-fixes")
    assert b"Traceback" not in first.stderr, first.stderr
    assert b"fixed 3 findings in 1 file" in first.stderr, first.stderr
    fixed = (root / "consumer.py").read_bytes()
    assert fixed.startswith(bom) and fixed.count(newline.encode()) == fixed.count(b"\n")  # line ends kept
    line = next(line for line in fixed.decode("utf-8-sig").splitlines() if "set_instance_name" in line)
    assert line == f'{indent * 2}consumer.set_instance_name("node@" + uuid.uuid4().hex)  # one name for every replica'

    ran = subprocess.run([sys.executable, "-c", "import json, consumer; print(json.dumps(consumer.CONSUMER.calls))"],
                         cwd=root, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(stub), "PYTHONDONTWRITEBYTECODE": "1"})
    assert ran.returncode == 0, ran.stderr
    calls = json.loads(ran.stdout)
    assert EXPECTED["instance_name"].fullmatch(calls.pop("instance_name")), calls
    assert calls == {k: v for k, v in EXPECTED.items() if k != "instance_name"}

    second = rmqlint(root, "--fix", "--unsafe-fixes")
    assert (root / "consumer.py").read_bytes() == fixed
    assert b"fixed" not in second.stderr and b"fixable" not in second.stdout, second.stdout + second.stderr
    report = json.loads(rmqlint(root, "--format", "json").stdout)
    assert [f["code"] for f in report["findings"] if f["fix"] is not None] == []

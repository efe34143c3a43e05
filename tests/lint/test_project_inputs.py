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

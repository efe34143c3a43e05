"""The command line: exit codes 0/1/2, formats, options over settings, subcommands, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rmqlint.cli import main
from rmqlint.rules import ALL_RULES
from tests.lint.test_engine_fixtures import PLAIN_JAVA, java_project, write_project

REPO = Path(__file__).resolve().parents[2]


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_exit_1_with_findings_and_text_output(tmp_path, capsys, monkeypatch):
    root = java_project(tmp_path)
    monkeypatch.chdir(root)
    code, out, err = cli(capsys)
    assert code == 1 and err == ""
    assert out.splitlines()[0].startswith("src/main/java/com/app/Consumer.java:8:9: RMQ001 ")
    assert out.splitlines()[-1] == "Found 1 finding (1 error) in 3 files."


def test_exit_0_without_findings(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"A.java": PLAIN_JAVA})
    assert cli(capsys, str(root)) == (0, "No findings in 1 file.\n", "")


def test_json_and_options(tmp_path, capsys):
    root = java_project(tmp_path)
    code, out, _ = cli(capsys, str(root), "--format", "json")
    assert code == 1 and [f["code"] for f in json.loads(out)["findings"]] == ["RMQ001"]
    code, out, _ = cli(capsys, str(root), "--format", "json", "--ignore", "RMQ001,RMQ002")
    assert code == 0 and json.loads(out)["findings"] == []
    assert cli(capsys, str(root), "--select", "RMQ00", "--no-cache", "--fail-on", "error")[0] == 1


def test_fail_on_threshold(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"B.java": b"\x00DefaultMQPushConsumer"})
    assert cli(capsys, str(root))[0] == 0  # RMQ900 is info: reported, not failing by default
    assert cli(capsys, str(root), "--fail-on", "info")[0] == 1


def test_exit_zero_reports_the_findings_and_exits_0(tmp_path, capsys):
    root = java_project(tmp_path)
    code, out, _ = cli(capsys, str(root), "--exit-zero", "--format", "json")
    assert code == 0 and [f["code"] for f in json.loads(out)["findings"]] == ["RMQ001"]
    assert cli(capsys, str(root), "--exit-zero", "--select", "RMQ999")[0] == 2  # a usage error is still 2


def test_settings_file_and_override(tmp_path, capsys):
    root = java_project(tmp_path)
    (root / ".rmqlint.toml").write_text('ignore = ["RMQ001"]\n', encoding="utf-8")
    assert cli(capsys, str(root))[0] == 0
    assert cli(capsys, str(root), "--ignore", "RMQ003")[0] == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--format", "xml"], "rmqlint: argument --format: invalid choice: 'xml'"),
        (["--select", "RMQ7"], "rmqlint: --select: unknown rule code or prefix 'RMQ7'"),
        (["missing-dir"], "rmqlint: missing-dir: no such file or directory"),
        (["--bogus"], "rmqlint: unknown option --bogus (see rmqlint --help)"),
    ],
)
def test_usage_errors_exit_2_with_one_line(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(java_project(tmp_path))
    code, out, err = cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err


def test_configuration_error_exit_2(tmp_path, capsys):
    root = java_project(tmp_path)
    (root / ".rmqlint.toml").write_text('fail_on = "sometimes"\n', encoding="utf-8")
    code, out, err = cli(capsys, str(root))
    assert code == 2 and out == ""
    assert err == f"rmqlint: {root / '.rmqlint.toml'}: fail_on: expected one of error, warning, info, got 'sometimes'\n"


def test_rules_table(capsys):
    code, out, _ = cli(capsys, "rules")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["CODE", "NAME", "SEVERITY", "SUMMARY"]
    for rule, line in zip(ALL_RULES, lines[1:]):
        assert line.split()[:3] == [rule.CODE, rule.NAME, rule.severity_label()] and line.endswith(rule.SUMMARY)
    assert lines[-1].startswith("RMQ900")


def test_explain(capsys):
    rule = ALL_RULES[0]
    code, out, _ = cli(capsys, "explain", rule.CODE.lower())
    assert code == 0 and out.startswith(f"# {rule.CODE} {rule.NAME}") and rule.DOCS.strip() in out
    assert cli(capsys, "explain", "RMQ900")[0] == 0
    code, out, err = cli(capsys, "explain", "RMQ777")
    assert code == 2 and out == "" and "unknown rule 'RMQ777'" in err


def test_explain_takes_the_names_rules_shows(capsys):
    for rule in ALL_RULES:
        by_code = cli(capsys, "explain", rule.CODE)
        assert cli(capsys, "explain", rule.NAME) == by_code and by_code[0] == 0
    assert cli(capsys, "explain", "fixed-instance-name")[1].startswith("# RMQ001 fixed-instance-name (error)\n")


def test_module_entry_point_runs_without_traceback(tmp_path):
    root = java_project(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "rmqlint", str(root), "--format", "github"], capture_output=True,
                          text=True, env=env, cwd=root, timeout=120)
    assert proc.returncode == 1 and proc.stderr == ""
    assert proc.stdout.startswith("::error file=src/main/java/com/app/Consumer.java,line=8,col=9,")
    proc = subprocess.run([sys.executable, "-m", "rmqlint", "nowhere"], capture_output=True, text=True, env=env,
                          cwd=root, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_pre_commit_style_file_list(tmp_path, capsys, monkeypatch):
    """pre-commit runs from the repository root and passes the changed files only."""
    from tests.lint.test_engine_fixtures import OTHER_CONSUMER_JAVA

    root = java_project(tmp_path, git=True)
    (root / "src/main/java/com/app/Other.java").write_text(OTHER_CONSUMER_JAVA, encoding="utf-8")
    monkeypatch.chdir(root)
    code, out, _ = cli(capsys, "src/main/java/com/app/Plain.java", "src/main/java/com/app/Names.java")
    assert code == 0 and out == "No findings in 2 files.\n"  # the consumer using Names.INSTANCE was not passed
    code, out, _ = cli(capsys, "src/main/java/com/app/Other.java", "--format", "json")
    assert code == 1 and [f["path"] for f in json.loads(out)["findings"]] == ["src/main/java/com/app/Other.java"]


def test_exclude_setting(tmp_path, capsys):
    root = java_project(tmp_path)
    (root / ".rmqlint.toml").write_text('exclude = ["src/main/java/com/app/Consumer.java"]\n', encoding="utf-8")
    assert cli(capsys, str(root)) == (0, "No findings in 2 files.\n", "")


def test_pre_commit_hook_definition():
    import re

    import yaml

    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert (hook["id"], hook["entry"], hook["language"]) == ("rmqlint", "rmqlint", "python")
    # The files it takes (every kind rmqlint reads): tests/test_precommit.py
    assert all(re.search(hook["files"], rel) for rel in ("Orders.java", "orders/pom.xml", "deploy/orders.yaml"))
    assert hook["require_serial"] is True

"""`rmqlint --format sarif` end to end: a real run's log validates against the SARIF 2.1.0 schema and says what
the findings say."""

from __future__ import annotations

import json

import jsonschema

from rmqlint.cli import main
from tests.lint.test_engine_fixtures import java_project, write_project
from tests.lint.test_reporters import sarif_schema


def test_real_run_validates_and_matches_json(tmp_path, capsys, monkeypatch):
    root = java_project(tmp_path)
    monkeypatch.chdir(root)
    write_project(root, {"src/main/java/com/app/Bin.java": b"\x00DefaultMQPushConsumer"})
    assert main([str(root), "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, sarif_schema())

    assert main([str(root), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    results = log["runs"][0]["results"]
    assert len(results) == len(findings) == 2
    for result, finding in zip(results, findings):
        region = result["locations"][0]["physicalLocation"]["region"]
        assert result["ruleId"] == finding["code"]
        assert result["message"]["text"] == finding["message"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == finding["path"]
        assert (region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]) == (
            finding["line"], finding["column"], finding["end_line"], finding["end_column"])
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)


def test_clean_run_is_a_valid_empty_log(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"A.java": "class A {}\n"})
    assert main([str(root), "--format", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, sarif_schema())
    assert log["runs"][0]["results"] == []

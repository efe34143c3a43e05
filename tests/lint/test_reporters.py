"""Reporters: text, JSON, GitHub annotations and SARIF (validated against the SARIF 2.1.0 schema)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from rmqlint.config import Settings
from rmqlint.engine import LintResult
from rmqlint.facts import Location
from rmqlint.findings import Finding, Related, message
from rmqlint.reporters import render
from rmqlint.rules import ALL_RULES
from rmqlint.cache import package_version

SCHEMA = Path(__file__).resolve().parents[1] / "golden" / "sarif-schema-2.1.0.json"


def sarif_schema() -> dict:
    """The golden schema keeps the log's root under definitions.Root (its top level constrains nothing), so
    validation starts there."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert "Root" in schema["definitions"]
    return {**schema, "$ref": "#/definitions/Root"}


def result_of(findings, tmp_path, settings=None) -> LintResult:
    settings = settings or Settings()
    rules = [rule() for rule in ALL_RULES if settings.enabled(rule.CODE)]
    return LintResult(tmp_path, settings, findings, files_checked=3, rules=rules)


PRODUCER = Location("src/P.java", 3, 5, 3, 40)
OTHER_PRODUCER = Location("lib/Q.java", 9, 1, 9, 20)
FINDINGS = [
    Finding("RMQ001", "error", "instanceName is fixed", Location("src/A.java", 7, 9, 7, 30)),
    Finding("RMQ003", "warning", "broadcasting, 100%: retries\nnever happen", Location("app/c.py", 12, 1, 14, 2)),
    Finding("RMQ900", "info", "not valid UTF-8", Location("x/B.java", 1, 1, 1, 2)),
]
# A finding citing a place: the producer of a drifting tag, with one more producer only in `related`.
CITING = Finding(
    "RMQ002", "error", message('tag "[a]" drifts from "A" at ', PRODUCER, " (and 1 more)"),
    Location("src/C.java", 4, 2, 4, 9),
    (Related(PRODUCER, 'produces tag "A"'), Related(OTHER_PRODUCER, 'produces tag "A"')),
)


def test_text_lines_and_summary(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = render("text", result_of(FINDINGS, tmp_path))
    lines = out.splitlines()
    assert lines[0] == "src/A.java:7:9: RMQ001 instanceName is fixed"
    assert lines[-1] == "Found 3 findings (1 error, 1 warning, 1 info) in 3 files."


def test_text_paths_are_relative_to_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    out = render("text", result_of(FINDINGS[:1], tmp_path))
    assert out.splitlines()[0].startswith("A.java:7:9: RMQ001")


def test_text_paths_outside_the_current_directory_are_absolute(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path / "docs")
    out = render("text", result_of(FINDINGS[:1], tmp_path))
    assert out.splitlines()[0].startswith(f"{tmp_path.as_posix()}/src/A.java:7:9: RMQ001")


def test_places_cited_in_messages_are_openable_from_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    monkeypatch.setenv("COLUMNS", "1000")  # the message on one line, whatever the temporary directory's length
    for fmt in ("text", "concise", "json", "github"):
        out = render(fmt, result_of([CITING], tmp_path))
        if fmt == "json":
            out = json.loads(out)["findings"][0]["message"]
        assert 'drifts from "A" at P.java:3 (and 1 more)' in out, fmt
        assert "src/P.java" not in out, fmt
    monkeypatch.chdir(tmp_path / "..")
    out = render("text", result_of([CITING], tmp_path))
    assert f"{tmp_path.name}/src/C.java:4:2: RMQ002 " in out and f'at {tmp_path.name}/src/P.java:3 ' in out


def test_text_without_findings(tmp_path):
    assert render("text", result_of([], tmp_path)) == "No findings in 3 files.\n"


def test_json_fields(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = json.loads(render("json", result_of(FINDINGS, tmp_path)))
    assert (data["root"], data["files"], data["version"]) == (".", 3, package_version())
    fingerprint = data["findings"][1].pop("fingerprint")
    assert isinstance(fingerprint, str) and len(fingerprint) == 20
    assert data["findings"][1] == {
        "code": "RMQ003",
        "path": "app/c.py",
        "line": 12,
        "column": 1,
        "end_line": 14,
        "end_column": 2,
        "severity": "warning",
        "message": "broadcasting, 100%: retries\nnever happen",
        "related": [],
        "fix": None,
    }
    assert json.loads(render("json", result_of([], tmp_path)))["findings"] == []


def test_json_related_lists_every_cited_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (finding,) = json.loads(render("json", result_of([CITING], tmp_path)))["findings"]
    assert finding["message"] == 'tag "[a]" drifts from "A" at src/P.java:3 (and 1 more)'
    assert finding["related"] == [
        {"path": "src/P.java", "line": 3, "column": 5, "end_line": 3, "end_column": 40, "message": 'produces tag "A"'},
        {"path": "lib/Q.java", "line": 9, "column": 1, "end_line": 9, "end_column": 20, "message": 'produces tag "A"'},
    ]
    monkeypatch.chdir(tmp_path.parent)
    data = json.loads(render("json", result_of([CITING], tmp_path)))
    assert data["root"] == tmp_path.name and data["findings"][0]["related"][1]["path"] == f"{tmp_path.name}/lib/Q.java"


def test_github_annotations_escape_properties_and_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    lines = render("github", result_of(FINDINGS, tmp_path)).splitlines()
    assert lines[0] == "::error file=src/A.java,line=7,col=9,endLine=7,endColumn=30,title=RMQ001::instanceName is fixed"
    assert lines[1] == ("::warning file=app/c.py,line=12,col=1,endLine=14,endColumn=2,title=RMQ003::"
                        "broadcasting, 100%25: retries\\nnever happen")  # a line break is shown, not made
    assert lines[2].startswith("::notice file=x/B.java,")


def test_sarif_is_valid_and_complete(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    schema = sarif_schema()
    log = json.loads(render("sarif", result_of(FINDINGS, tmp_path)))
    jsonschema.validate(log, schema)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [rule.CODE for rule in ALL_RULES]
    rmq001 = rules[0]
    assert rmq001["name"] == "fixed-instance-name"
    assert rmq001["defaultConfiguration"]["level"] == "error"
    assert rmq001["help"]["text"] == ALL_RULES[0].DOCS
    assert rmq001["fullDescription"]["text"] and "##" not in rmq001["fullDescription"]["text"]
    assert [r["ruleId"] for r in run["results"]] == ["RMQ001", "RMQ003", "RMQ900"]
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note"]
    first = run["results"][0]
    assert first["ruleIndex"] == 0 and first["message"]["text"] == "instanceName is fixed"
    physical = first["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "src/A.java", "uriBaseId": "%SRCROOT%"}
    assert physical["region"] == {"startLine": 7, "startColumn": 9, "endLine": 7, "endColumn": 30}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert run["columnKind"] == "unicodeCodePoints"
    assert "relatedLocations" not in first


def test_sarif_related_locations_and_message_links(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    log = json.loads(render("sarif", result_of([CITING], tmp_path)))
    jsonschema.validate(log, sarif_schema())
    (result,) = log["runs"][0]["results"]
    # Brackets of the text are escaped; the cited place is a link to relatedLocations[0].
    assert result["message"]["text"] == 'tag "\\[a\\]" drifts from "A" at [P.java:3](0) (and 1 more)'
    related = result["relatedLocations"]
    assert [r["id"] for r in related] == [0, 1]
    assert related[0]["physicalLocation"]["artifactLocation"] == {"uri": "P.java", "uriBaseId": "%SRCROOT%"}
    assert related[0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 5, "endLine": 3,
                                                        "endColumn": 40}
    assert related[0]["message"]["text"] == 'produces tag "A"'
    # Outside the current directory: an absolute file URI, no base.
    assert related[1]["physicalLocation"]["artifactLocation"] == {"uri": (tmp_path / "lib" / "Q.java").as_uri()}


def test_sarif_without_findings_and_with_a_selection_is_valid(tmp_path):
    schema = sarif_schema()
    settings = Settings(select=["RMQ002"])
    log = json.loads(render("sarif", result_of([], tmp_path, settings)))
    jsonschema.validate(log, schema)
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == ["RMQ002"]
    assert log["runs"][0]["results"] == []


@pytest.mark.parametrize("breakage", ["no-message", "bad-level", "no-driver-name", "column-zero"])
def test_schema_rejects_a_broken_log(tmp_path, breakage):
    """The schema check has teeth."""
    schema = sarif_schema()
    log = json.loads(render("sarif", result_of(FINDINGS[:1], tmp_path)))
    run = log["runs"][0]
    if breakage == "no-message":
        del run["results"][0]["message"]
    elif breakage == "bad-level":
        run["results"][0]["level"] = "info"
    elif breakage == "no-driver-name":
        del run["tool"]["driver"]["name"]
    else:
        run["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, schema)

"""SARIF 2.1.0: one run, `tool.driver.rules` with every enabled rule (docs as help), one result per finding,
locations relative to the project root (`%SRCROOT%`)."""

from __future__ import annotations

import json
from pathlib import Path

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _version() -> str:
    from rmqlint.cache import package_version

    return package_version()


def _descriptor(code: str, name: str, severity: str, summary: str, docs: str) -> dict:
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": _first_section(docs) or summary},
        "help": {"text": docs, "markdown": docs},
        "defaultConfiguration": {"level": _LEVEL.get(severity, "warning")},
        "properties": {"tags": ["rocketmq"]},
    }


def _first_section(docs: str) -> str:
    """The text of "## What it does", for fullDescription."""
    lines, inside = [], False
    for line in docs.splitlines():
        if line.startswith("## "):
            if inside:
                break
            inside = True
            continue
        if inside:
            lines.append(line)
    return "\n".join(lines).strip()


def render_sarif(result) -> str:
    descriptors = [_descriptor(r.CODE, r.NAME, r.SEVERITY, r.SUMMARY, r.DOCS) for r in result.rules]
    index = {d["id"]: i for i, d in enumerate(descriptors)}

    results = []
    for f in result.findings:
        loc = f.location
        item = {
            "ruleId": f.code,
            "level": _LEVEL.get(f.severity, "warning"),
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": loc.path, "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": loc.line,
                            "startColumn": loc.column,
                            "endLine": max(loc.end_line, loc.line),
                            "endColumn": max(loc.end_column, 1),
                        },
                    }
                }
            ],
        }
        if f.code in index:
            item["ruleIndex"] = index[f.code]
        results.append(item)

    root_uri = Path(result.root).resolve().as_uri() + "/"
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "rmqlint",
                        "version": _version(),
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
                "columnKind": "unicodeCodePoints",  # the frontends count characters, not UTF-16 units
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"

"""SARIF 2.1.0: one run, `tool.driver.rules` with every enabled rule (docs as help), one result per finding.

Artifact URIs are relative to the current directory (`%SRCROOT%`, given as an absolute URI in
`originalUriBaseIds`), or absolute `file:` URIs for files outside it. The other places a finding cites are its
`relatedLocations` (each with its note), and the message links to them (`[path:line](id)`, SARIF's embedded links).
A finding's fingerprint (`rmqlint.baseline`) is its `partialFingerprints` entry `rmqlint/v1`, so code scanning
follows it across commits; a fix is one of its `fixes` (each edit a replacement whose region is given both by
line and column and by byte offset; unsafe fixes say so in their properties). What the results assume because an
input was not given (`rmqplan check` without a cluster) is the run's `invocations[0].toolExecutionNotifications`,
at level `note`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from rmqlint.reporters import display_path, fingerprints

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

    from rmqlint.baseline import SARIF_KEY

    results = []
    for f, fingerprint in zip(result.findings, fingerprints(result)):
        item = {
            "ruleId": f.code,
            "level": _LEVEL.get(f.severity, "warning"),
            "message": {"text": _message_text(f, result.root)},
            "locations": [_physical(f.location, result.root)],
            "partialFingerprints": {SARIF_KEY: fingerprint},
        }
        if f.fix is not None:
            item["fixes"] = [_fix(f.fix, result.root)]
        if f.related:
            item["relatedLocations"] = [
                {**_physical(r.location, result.root), "id": i, "message": {"text": r.message}}
                for i, r in enumerate(f.related)
            ]
        if f.code in index:
            item["ruleIndex"] = index[f.code]
        results.append(item)

    base_uri = Path(os.getcwd()).resolve().as_uri().rstrip("/") + "/"
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
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base_uri}},
                "columnKind": "unicodeCodePoints",  # the frontends count characters, not UTF-16 units
                "results": results,
            }
        ],
    }
    if result.assumptions:  # what the results rest on, as the run's notifications (a viewer lists them)
        log["runs"][0]["invocations"] = [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [{"level": "note", "message": {"text": line},
                                            "descriptor": {"id": "assumed"}} for line in result.assumptions],
        }]
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _artifact(root, rel: str) -> dict:
    shown = display_path(root, rel)
    if shown.startswith("/") or os.path.isabs(shown):
        return {"uri": Path(shown).as_uri()}
    return {"uri": quote(shown), "uriBaseId": "%SRCROOT%"}


def _physical(loc, root) -> dict:
    return {
        "physicalLocation": {
            "artifactLocation": _artifact(root, loc.path),
            "region": {
                "startLine": loc.line,
                "startColumn": loc.column,
                "endLine": max(loc.end_line, loc.line),
                "endColumn": max(loc.end_column, 1),
            },
        }
    }


def _fix(fix, root) -> dict:
    changes: dict[str, list] = {}
    for edit in fix.edits:
        span = edit.span
        changes.setdefault(edit.path, []).append({
            "deletedRegion": {"startLine": span.line, "startColumn": span.column, "endLine": span.end_line,
                              "endColumn": span.end_column, "byteOffset": span.start,
                              "byteLength": span.end - span.start},
            "insertedContent": {"text": edit.replacement},
        })
    return {
        "description": {"text": fix.message},
        "artifactChanges": [{"artifactLocation": _artifact(root, path), "replacements": replacements}
                            for path, replacements in changes.items()],
        "properties": {"applicability": fix.applicability},
    }


def _escape(text: str) -> str:
    """Plain message text: brackets and backslashes are escaped, so none is read as an embedded link."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _message_text(finding, root) -> str:
    ids = {}
    for i, related in enumerate(finding.related):
        ids.setdefault(related.location, i)
    out = []
    for part in finding.parts:
        if isinstance(part, str):
            out.append(_escape(part))
            continue
        shown = _escape(f"{display_path(root, part.path)}:{part.line}")
        out.append(f"[{shown}]({ids[part]})" if part in ids else shown)
    return "".join(out)

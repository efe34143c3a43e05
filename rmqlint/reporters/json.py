"""JSON: `{"findings": [{code, path, line, column, end_line, end_column, severity, message}]}`,
paths relative to the project root and '/'-separated."""

from __future__ import annotations

import json


def finding_to_dict(finding) -> dict:
    loc = finding.location
    return {
        "code": finding.code,
        "path": loc.path,
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
        "severity": finding.severity,
        "message": finding.message,
    }


def render_json(result) -> str:
    return json.dumps({"findings": [finding_to_dict(f) for f in result.findings]}, indent=2, ensure_ascii=False) + "\n"

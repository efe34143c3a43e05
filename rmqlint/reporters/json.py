"""JSON: `{"version", "root", "files", "projects", "findings": [...]}`.

Each finding has `code`, `path`, `line`, `column` (1-based), `end_line`, `end_column`, `severity`, `message`, and
`related`: every other place it cites (each with `path`, `line`, `column`, `end_line`, `end_column`, `message`).
Paths, including the ones inside messages, are '/'-separated and relative to the current directory (absolute
outside it); `root` is the linted tree's root in the same form, `files` the number of files checked and `projects`
the roots of the projects linted (the root, and every git repository or marked project below it, each on its own).
"""

from __future__ import annotations

import json

from rmqlint.reporters import display_message, display_path


def _location(root, loc) -> dict:
    return {
        "path": display_path(root, loc.path),
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
    }


def finding_to_dict(finding, root) -> dict:
    loc = finding.location
    return {
        "code": finding.code,
        "path": display_path(root, loc.path),
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
        "severity": finding.severity,
        "message": display_message(finding, root),
        "related": [{**_location(root, r.location), "message": r.message} for r in finding.related],
    }


def render_json(result) -> str:
    from rmqlint.cache import package_version

    document = {
        "version": package_version(),
        "root": display_path(result.root, ""),
        "files": result.files_checked,
        "projects": [display_path(result.root, project) for project in result.projects],
        "findings": [finding_to_dict(f, result.root) for f in result.findings],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

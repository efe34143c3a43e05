"""JSON: `{"version", "root", "files", "projects", "findings": [...]}`.

Each finding has `code`, `path`, `line`, `column` (1-based), `end_line`, `end_column`, `severity`, `message`,
`related`: every other place it cites (each with `path`, `line`, `column`, `end_line`, `end_column`, `message`),
`fingerprint` (what the finding is about, for baselines: `rmqlint.baseline`), and `fix`: null, or
`{"applicability": "safe"|"unsafe", "message", "edits": [...]}`, each edit with `path`, `line`, `column`,
`end_line`, `end_column` (the text it replaces), `start_byte`, `end_byte` (the same, as byte offsets in the file)
and `content` (the new text).
Paths, including the ones inside messages, are '/'-separated and relative to the current directory (absolute
outside it); `root` is the linted tree's root in the same form, `files` the number of files checked and `projects`
the roots of the projects linted (the root, and every git repository or marked project below it, each on its own).
`rmqplan check` adds `assumptions`: what its findings assume because an input was not given (one sentence each;
without `--cluster` or `--namesrv`, the queue layout), empty when nothing was assumed.
"""

from __future__ import annotations

import json

from rmqlint.reporters import display_message, display_path, fingerprints


def _location(root, loc) -> dict:
    return {
        "path": display_path(root, loc.path),
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
    }


def fix_to_dict(fix, root) -> dict | None:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "edits": [
            {
                "path": display_path(root, edit.path),
                "line": edit.span.line,
                "column": edit.span.column,
                "end_line": edit.span.end_line,
                "end_column": edit.span.end_column,
                "start_byte": edit.span.start,
                "end_byte": edit.span.end,
                "content": edit.replacement,
            }
            for edit in fix.edits
        ],
    }


def finding_to_dict(finding, root, fingerprint: str | None = None) -> dict:
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
        "fingerprint": fingerprint,
        "fix": fix_to_dict(finding.fix, root),
    }


def render_json(result) -> str:
    from rmqlint.cache import package_version

    document = {
        "version": package_version(),
        "root": display_path(result.root, ""),
        "files": result.checked,
        "projects": [display_path(result.root, project) for project in result.projects],
        "findings": [finding_to_dict(f, result.root, p) for f, p in zip(result.findings, fingerprints(result))],
    }
    if result.assumptions is not None:
        document["assumptions"] = list(result.assumptions)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

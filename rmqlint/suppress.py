"""Inline suppressions: `rmqlint: disable=RMQ001` in a comment silences that code on the comment's own line and on
the line below it, in every language. Frontends record the comment lines in `FileFacts.suppressions` (line ->
codes, "*" for all); codes may be prefixes ("RMQ0")."""

from __future__ import annotations

from rmqlint.facts import FileFacts
from rmqlint.findings import Finding


def is_suppressed(finding: Finding, facts: FileFacts | None) -> bool:
    if facts is None or not facts.suppressions:
        return False
    line = finding.location.line
    for comment_line in (line, line - 1):
        for code in facts.suppressions.get(comment_line, ()):
            if code in ("*", "all", "ALL") or finding.code.startswith(code.strip().upper()):
                return True
    return False


def apply_suppressions(findings: list[Finding], files: dict[str, FileFacts]) -> list[Finding]:
    return [f for f in findings if not is_suppressed(f, files.get(f.location.path))]

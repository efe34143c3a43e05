"""Text: `path:line:col: CODE message` per finding, then one summary line. Paths, including the places a message
cites, are relative to the current directory (absolute outside it)."""

from __future__ import annotations

from rmqlint.reporters import display_message, display_path


def render_text(result) -> str:
    lines = [
        f"{display_path(result.root, f.location.path)}:{f.location.line}:{f.location.column}: "
        f"{f.code} {display_message(f, result.root)}"
        for f in result.findings
    ]
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def summary(result) -> str:
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''}"
    if len(result.projects) > 1:
        files += f" of {len(result.projects)} projects"
    if not result.findings:
        return f"No findings in {files}."
    counts = {}
    for finding in result.findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 and s != 'info' else ''}"
             for s in ("error", "warning", "info") if s in counts]
    n = len(result.findings)
    return f"Found {n} finding{'s' if n != 1 else ''} ({', '.join(parts)}) in {files}."

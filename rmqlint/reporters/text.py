"""Text: `note: assumed: ...` for each assumption the findings rest on (`rmqplan check` without a cluster), then
`path:line:col: CODE message` per finding, a line counting the fixes when there are any, then one summary
line. Paths, including the places a message
cites, are relative to the current directory (absolute outside it). Paths and messages hold names from the code
and the file system: `printable` shows their control characters escaped, so each finding stays one line."""

from __future__ import annotations

from rmqlint.printable import printable
from rmqlint.reporters import display_message, display_path


def render_text(result) -> str:
    lines = [f"note: assumed: {printable(line)}" for line in result.assumptions or ()]  # what the numbers rest on
    lines += [
        f"{printable(display_path(result.root, f.location.path))}:{f.location.line}:{f.location.column}: "
        f"{f.code} {printable(display_message(f, result.root))}"
        for f in result.findings
    ]
    fixable = fixes_line(result)
    if fixable:
        lines.append(fixable)
    lines.append(summary(result))  # the summary stays the last line
    return "\n".join(lines) + "\n"


def fixes_line(result) -> str:
    """How many findings --fix (and --unsafe-fixes) would fix, when any (for rmqlint's own runs: rmqplan check
    reports rmqlint's findings too, and has no --fix)."""
    if not getattr(result, "offers_fixes", False):
        return ""
    safe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == "safe")
    unsafe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability != "safe")
    if not safe and not unsafe:
        return ""
    parts = []
    if safe:
        parts.append(f"{safe} fixable with --fix")
    if unsafe:
        parts.append(f"{unsafe} more with --fix --unsafe-fixes" if safe else f"{unsafe} fixable with --fix --unsafe-fixes")
    return "; ".join(parts) + " (--diff shows them)."


def summary(result) -> str:
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''}"
    if len(result.projects) > 1:
        files += f" of {len(result.projects)} projects"
    known = getattr(result, "baselined", 0)
    if known:
        files += f"; {known} more in the baseline, not shown"
    if not result.findings:
        return f"No findings in {files}."
    counts = {}
    for finding in result.findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 and s != 'info' else ''}"
             for s in ("error", "warning", "info") if s in counts]
    n = len(result.findings)
    return f"Found {n} finding{'s' if n != 1 else ''} ({', '.join(parts)}) in {files}."

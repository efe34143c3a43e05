"""Text for a person, in the forms ruff prints (`--output-format full`, `concise`, `--statistics`).

Every form starts with `note: assumed: ...` for each assumption the findings rest on (`rmqplan check` without a
cluster) and ends with a line counting the fixes, when there are any, and the summary, always the last line.

- `text` (the default, ruff's `full`): per finding a header `path:line:col: CODE [*] message`, wrapped to the
  output's width with the lines after it indented, then the code frame (`code_frame`: the lines around the
  finding, numbered, its span underlined), the other places it cites (`--> path:line:col: note`) and what its fix
  does (`= help: ...`); a blank line between findings. `[*]` marks a finding `--fix` fixes (a safe fix); one
  with only an unsafe fix has no mark, a note says `--unsafe-fixes` applies it, and the fixes line counts it.
- `concise`: the header alone, one line per finding, for logs and scripts.
- statistics: one line per code, most frequent first: count, code, `[*]` when `--fix` fixes some of them, name.

The width is $COLUMNS, else the terminal's when standard output is one, else 100. Paths, including the places a
message cites, are relative to the current directory (absolute outside it). Paths, messages and source lines hold
names from the code and the file system: `printable` shows their control characters escaped, so nothing in them
can move the cursor or start a line of its own.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap

from rmqlint.printable import printable
from rmqlint.reporters import display_message, display_path
from rmqlint.reporters.code_frame import SourceFiles, code_frame

DEFAULT_WIDTH = 100
MIN_WIDTH = 40
INDENT = "    "  # the lines a long header wraps onto
RELATED_SHOWN = 5  # places cited by one finding, in text; JSON and SARIF list them all
_QUOTED = re.compile(r'"[^"]*"')


def output_width(stream=None) -> int:
    """The width to wrap text for `stream` (standard output): $COLUMNS when it is a number, else the terminal's
    width when the stream is one, else 100: the same output in a pipe, a file or a test whatever terminal started
    it."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    stream = sys.stdout if stream is None else stream
    try:
        if stream.isatty():
            return max(MIN_WIDTH, os.get_terminal_size(stream.fileno()).columns)
    except (AttributeError, OSError, ValueError):
        pass
    return DEFAULT_WIDTH


def render_text(result, width: int | None = None) -> str:
    width = width or output_width()
    sources = SourceFiles(result.root)
    secret = _secret_lines(result)
    blocks = ["\n".join(_full(f, result, sources, width, secret)) for f in result.findings]
    head = [f"note: assumed: {printable(line)}" for line in result.assumptions or ()]
    return _with_totals(head + ["\n\n".join(blocks)] if blocks else head, result, blank_line=bool(blocks))


def render_concise(result) -> str:
    head = [f"note: assumed: {printable(line)}" for line in result.assumptions or ()]
    return _with_totals(head + [_header(f, result) for f in result.findings], result)


def render_statistics(result) -> str:
    """The count of findings per code, most frequent first (then by code), ruff's `--statistics`."""
    names = {rule.CODE: rule.NAME for rule in result.rules}
    counts: dict[str, int] = {}
    fixable: set[str] = set()
    for f in result.findings:
        counts[f.code] = counts.get(f.code, 0) + 1
        if _fixable(f, result):
            fixable.add(f.code)
    digits = len(str(max(counts.values(), default=0)))
    code_width = max((len(code) for code in counts), default=0)
    marks = any(fixable)
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = ("[*] " if code in fixable else "    ") if marks else ""
        rows.append(f"{count:>{digits}} {code:<{code_width}} {mark}{names.get(code, '')}".rstrip())
    return _with_totals(rows, result)


def _with_totals(lines: list[str], result, blank_line: bool = False) -> str:
    tail = [fixes_line(result), summary(result)]
    lines = [*lines, *([""] if blank_line else []), *(line for line in tail if line)]
    return "\n".join(lines) + "\n"


def _fixable(finding, result) -> bool:
    """Whether `--fix` fixes it: a safe fix, in a report of a command that has --fix."""
    return (getattr(result, "offers_fixes", False) and finding.fix is not None
            and finding.fix.applicability == "safe")


def _header(finding, result) -> str:
    return _place_and_code(finding, result) + " " + printable(display_message(finding, result.root))


def _place_and_code(finding, result) -> str:
    """`path:line:col: CODE [*]`: the start of a finding's line, never wrapped (`grep RMQ001` shows the place)."""
    loc = finding.location
    mark = " [*]" if _fixable(finding, result) else ""
    return f"{printable(display_path(result.root, loc.path))}:{loc.line}:{loc.column}: {finding.code}{mark}"


def _secret_lines(result) -> dict[str, set[int]]:
    """Per file, the lines that findings of rules which must not show their source point at (RMQ011: the keys
    are there), with the places they cite: no frame prints them."""
    quiet = {rule.CODE for rule in result.rules if not getattr(rule, "SHOWS_SOURCE", True)}
    lines: dict[str, set[int]] = {}
    for finding in result.findings:
        if finding.code in quiet:
            for loc in (finding.location, *(r.location for r in finding.related)):
                lines.setdefault(loc.path, set()).update(range(loc.line, max(loc.line, loc.end_line) + 1))
    return lines


def _full(finding, result, sources: SourceFiles, width: int, secret: dict[str, set[int]]) -> list[str]:
    lines = _wrap(_header(finding, result), width, INDENT, whole=len(_place_and_code(finding, result)))
    quiet = any(rule.CODE == finding.code and not getattr(rule, "SHOWS_SOURCE", True) for rule in result.rules)
    path = finding.location.path
    frame = [] if quiet else code_frame(sources.lines(path), finding.location, width,
                                        frozenset(secret.get(path, ())))
    lines += frame
    bar = " " * (len(frame[0]) - 1) if frame else "  "  # `=` under the frame's `|`, `-->` just before it
    for related in finding.related[:RELATED_SHOWN]:
        loc = related.location
        place = f"{printable(display_path(result.root, loc.path))}:{loc.line}:{loc.column}"
        arrow = f"{bar[:-1]}--> {place}:"
        lines += _wrap(f"{arrow} {printable(related.message)}", width, bar + "    ", whole=len(arrow))
    more = len(finding.related) - RELATED_SHOWN
    if more > 0:
        lines.append(f"{bar}= note: {more} more place{'s' if more != 1 else ''} (--format json lists them)")
    if finding.fix is not None:
        lines += _wrap(f"{bar}= help: {printable(finding.fix.message)}", width, bar + "        ")
        if finding.fix.applicability != "safe" and getattr(result, "offers_fixes", False):
            lines.append(f"{bar}= note: an unsafe fix, applied with --fix --unsafe-fixes")
    return lines


def _wrap(text: str, width: int, indent: str, whole: int = 0) -> list[str]:
    """`text` in lines of at most `width` columns (a word longer than that, such as a long path, stays whole), the
    lines after the first indented by `indent`; its first `whole` characters (the place and the code) and a quoted
    name ("OrderCreated ") are never broken, so the place stays on the first line and a name's blanks stay
    visible. Leading blanks stay."""
    text = text[:whole].replace(" ", "\0") + text[whole:]  # printable text holds no NUL
    protected = _QUOTED.sub(lambda m: m.group().replace(" ", "\0"), text)
    lines = textwrap.wrap(protected, width, subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False) or [""]
    return [line.replace("\0", " ") for line in lines]


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
        parts.append(f"[*] {safe} fixable with --fix")
    if unsafe:
        parts.append(f"{unsafe} more with --fix --unsafe-fixes" if safe
                     else f"{unsafe} fixable with --fix --unsafe-fixes")
    return "; ".join(parts) + " (--diff shows them)."


def summary(result) -> str:
    files = f"{result.checked} file{'s' if result.checked != 1 else ''}"
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

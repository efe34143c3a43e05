"""Inline suppressions: `rmqlint: disable=RMQ001` in a comment silences that code on the comment's own line and on
the line below it, in every language. Frontends record the comment lines in `FileFacts.suppressions` (line ->
codes, "*" for all); codes may be prefixes ("RMQ0"). `--add-suppressions` writes such comments for today's findings
(`suppression_edits`)."""

from __future__ import annotations

import os

from rmqlint.facts import FileFacts
from rmqlint.findings import Finding
from rmqlint.fixes import Edit, Fix
from rmqlint.spans import Span
from rmqlint.text import suppression_codes


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


# --- writing them: --add-suppressions -------------------------------------------------------------------------

# The comment each kind of file writes; `rmqlint.text.suppression_codes` reads it back in every one of them.
COMMENT_MARKERS = {".java": "//", ".go": "//", ".py": "#", ".properties": "#", ".yml": "#", ".yaml": "#"}


def suppression_edits(root, findings: list[Finding]) -> tuple[list[Fix], list[str]]:
    """One fix per file: a `rmqlint: disable=CODES` comment on a line of its own above each line with findings,
    in the file's comment syntax and the line's indentation (an own-line suppression comment right above is
    extended instead). Lines where a comment line would change what the file says (inside a text block, a
    multi-line string, a YAML block scalar, after a properties line that continues) are left, one line each in
    the second list."""
    by_file: dict[str, dict[int, list[str]]] = {}
    for finding in findings:
        codes = by_file.setdefault(finding.location.path, {}).setdefault(finding.location.line, [])
        if finding.code not in codes:
            codes.append(finding.code)
    fixes, problems = [], []
    for path in sorted(by_file):
        marker = next((m for suffix, m in COMMENT_MARKERS.items() if path.endswith(suffix)), None)
        try:
            data = open(os.path.join(root, path), "rb").read()
        except OSError as err:
            problems.append(f"{path}: cannot add suppressions: {err.strerror or err}")
            continue
        if marker is None or b"\0" in data or (b"\r" in data and b"\r\n" not in data):
            problems.append(f"{path}: cannot add suppressions to this file")
            continue
        lines = data.split(b"\n")
        blocked = _no_comment_lines(path, data, lines)
        edits = []
        for line, codes in sorted(by_file[path].items()):
            if not 1 <= line <= len(lines) or line in blocked:
                problems.append(f"{path}:{line}: a comment line cannot go above this line; suppression not added")
                continue
            edits.append(_comment_edit(path, data, lines, line, marker, codes))
        if edits:
            fixes.append(Fix("add suppression comments", tuple(edits)))
    return fixes, problems


def _comment_edit(path: str, data: bytes, lines: list[bytes], line: int, marker: str, codes: list[str]) -> Edit:
    start = sum(len(lines[i]) + 1 for i in range(line - 1))
    content = lines[line - 1].rstrip(b"\r")
    indent = content[:len(content) - len(content.lstrip(b" \t"))]
    end_of_line = b"\r\n" if lines[line - 1].endswith(b"\r") else b"\n"
    if line > 1:  # an own-line suppression comment right above: add the codes to it
        above = lines[line - 2].rstrip(b"\r")
        text = above.strip().decode("latin-1")
        existing = suppression_codes(text) if text.startswith(marker) else None
        if existing is not None and text == f"{marker} rmqlint: disable={','.join(existing)}" and "*" not in existing:
            merged = existing + [c for c in codes if c not in existing]
            above_start = start - len(lines[line - 2]) - 1
            above_indent = above[:len(above) - len(above.lstrip(b" \t"))]
            new = above_indent + f"{marker} rmqlint: disable={','.join(merged)}".encode("ascii")
            return Edit(_raw_span(path, data, above_start, above_start + len(above)), new.decode("latin-1"))
    comment = indent + f"{marker} rmqlint: disable={','.join(codes)}".encode("ascii") + end_of_line
    return Edit(_raw_span(path, data, start, start + len(content)), (comment + content).decode("latin-1"))


def _raw_span(path: str, data: bytes, start: int, end: int) -> Span:
    """A span of raw bytes, read as Latin-1 (one character per byte): the comment is ASCII in every codec the
    frontends read, and the rest of the line is written back byte for byte."""
    line = data.count(b"\n", 0, start) + 1
    column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    end_line = data.count(b"\n", 0, end) + 1
    end_column = end - (data.rfind(b"\n", 0, end) + 1) + 1
    return Span(path, start, end, line, column, end_line, end_column, "latin-1", data[start:end].decode("latin-1"))


def _no_comment_lines(path: str, data: bytes, lines: list[bytes]) -> set[int]:
    """1-based lines above which a comment line would become part of a value (a string, a block scalar)."""
    if path.endswith(".java"):
        return _java_string_lines(data)
    if path.endswith(".py"):
        return _python_string_lines(data)
    if path.endswith(".go"):
        return _go_string_lines(data)
    if path.endswith(".properties"):
        # After a line that continues (an odd number of trailing backslashes, not a comment), the next line is
        # part of the value.
        blocked = set()
        for number, raw in enumerate(lines, start=1):
            text = raw.rstrip(b"\r")
            stripped = text.lstrip(b" \t\f")
            if stripped[:1] not in (b"#", b"!") and (len(text) - len(text.rstrip(b"\\"))) % 2 == 1:
                blocked.add(number + 1)
        return blocked
    return _yaml_scalar_lines(data)


def _java_string_lines(data: bytes) -> set[int]:
    import tree_sitter

    from rmqlint.frontends.java.tree import LANGUAGE

    blocked = set()
    stack = [tree_sitter.Parser(LANGUAGE).parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.start_point[0] == node.end_point[0]:
            continue
        if node.type in ("string_literal", "block_comment", "text_block"):
            blocked.update(range(node.start_point[0] + 2, node.end_point[0] + 2))
            continue
        stack.extend(node.children)
    return blocked


def _go_string_lines(data: bytes) -> set[int]:
    """Lines inside a raw string (`...` across lines) or a block comment."""
    import tree_sitter

    from rmqlint.frontends.go.tree import LANGUAGE

    blocked = set()
    stack = [tree_sitter.Parser(LANGUAGE).parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.start_point[0] == node.end_point[0]:
            continue
        if node.type in ("raw_string_literal", "comment"):
            blocked.update(range(node.start_point[0] + 2, node.end_point[0] + 2))
            continue
        stack.extend(node.children)
    return blocked


def _python_string_lines(data: bytes) -> set[int]:
    import io
    import tokenize

    blocked = set()
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                blocked.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        pass
    return blocked


def _yaml_scalar_lines(data: bytes) -> set[int]:
    import yaml

    blocked = set()
    try:
        text = data.decode("utf-8-sig")
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            # A block scalar ends at the start of the line after it (column 0).
            last = token.end_mark.line - (1 if token.end_mark.column == 0 else 0) if isinstance(
                token, yaml.ScalarToken) else -1
            if last > token.start_mark.line:
                blocked.update(range(token.start_mark.line + 2, last + 2))
    except (UnicodeDecodeError, yaml.YAMLError):
        pass
    return blocked

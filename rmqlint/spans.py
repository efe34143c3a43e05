"""Where text is written in a file, exactly: the byte span a fix may replace.

A `Span` is what a frontend knows about a piece of source (a string literal's content, an argument, a
configuration value): the bytes it covers in the file as it is on disk, the same place as line and column (for
people and for SARIF), the codec the file was read with (a fix's text is written back in it, so a GBK properties
file stays GBK), and the text it covers now (a fix checks it is still there before it writes).

`Slot` is a place where one more setting of a client can be written next to one the code already has, and how.
Nothing here imports the rest of rmqlint: values, facts and fixes all build on it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    path: str  # relative to the project root, '/'-separated
    start: int  # byte offsets in the file as read, end exclusive
    end: int
    line: int  # 1-based; columns count characters, end_column exclusive (as `Location`)
    column: int
    end_line: int
    end_column: int
    encoding: str = "utf-8"  # the codec the file was read with
    text: str = ""  # what the span covers now
    # An operand that `+ x` may follow without parentheses (a literal, a name, a call), for spans of expressions.
    operand: bool = False

    def sub(self, first: int, last: int) -> "Span":
        """The span of `self.text[first:last]`, for text written on one line exactly as it reads (no escapes)."""
        if "\n" in self.text or "\r" in self.text:
            raise ValueError("sub-spans are only taken of text on one line")
        before = len(self.text[:first].encode(self.encoding))
        inside = len(self.text[first:last].encode(self.encoding))
        return Span(self.path, self.start + before, self.start + before + inside, self.line, self.column + first,
                    self.line, self.column + last, self.encoding, self.text[first:last])

    def moved(self, prefix: str) -> "Span":
        """The same span in a file under `prefix` (a nested project's findings, rooted at the outer tree)."""
        if not prefix:
            return self
        return Span(f"{prefix}/{self.path}", self.start, self.end, self.line, self.column, self.end_line,
                    self.end_column, self.encoding, self.text, self.operand)


@dataclass(frozen=True)
class Slot:
    """Where another setting of the same client can be written, right after `span` (which stays as it is).

    kind "call": a setter statement; the new one is `{prefix}{name}({value}){suffix}` (prefix: a line end, the
    statement's indentation and its receiver with the dot; suffix: `;`). kind "attribute": an annotation attribute;
    the new one is `{prefix}{name} = {value}{suffix}` (prefix `, `). kind "import": a module's imports; the new one
    is `{prefix}import {name}{suffix}`, after the last import (or before the first statement, then with the line
    end as suffix)."""

    span: Span
    kind: str  # "call" | "attribute" | "import"
    prefix: str
    suffix: str = ""
    before: bool = False  # the new text goes in front of `span` instead of after it

    def moved(self, prefix: str) -> "Slot":
        return Slot(self.span.moved(prefix), self.kind, self.prefix, self.suffix, self.before)

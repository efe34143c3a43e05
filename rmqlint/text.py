"""Text, the same way for every language: decoding, positions, suppression comments, and the two string forms
RocketMQ code shares across languages (`topic:tags` destinations, Spring's relaxed keys).

Every frontend reads its bytes through `decode`, reports positions with `point` / `position_of`, and finds
`rmqlint: disable=...` in its comments with `suppression_codes`; the linker and the frontends split destinations
with `split_destination` and compare configuration keys with `canonical_key`; rules and the topology graph read
subscription expressions with `subscribed_tags`. One definition each.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from rmqlint.facts import Location, Problem
from rmqlint.spans import Span
from rmqlint.values import Concat, Lit, Value, concat

# The line ends Python's tokenizer, tree-sitter and editors count (a lone "\r" too; not "\f" or "\v").
_LINE_END = re.compile(r"\r\n|\r|\n")
_SUPPRESSION = re.compile(r"rmqlint\s*:\s*disable\b(?:\s*=\s*([A-Za-z0-9_*]+(?:\s*,\s*[A-Za-z0-9_*]+)*))?")


@dataclass(frozen=True)
class Decoded:
    """A file's text, or the problem that stopped it being read as text."""

    text: Optional[str]
    problem: Optional[Problem] = None
    replaced: bool = False  # undecodable bytes became U+FFFD (the problem says where the first one was)


def position_of(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a byte offset; the column counts characters, as editors do."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


class TextBytes:
    """Where the characters of a decoded file stand in its bytes, for spans a fix can edit.

    `text` is what `decode` made of the file (a byte-order mark of `bom` bytes dropped). Only a codec that writes
    each character on its own, as a prefix of the bytes (UTF-8, GBK, ISO-8859-1; not UTF-16), maps positions;
    `exact` is False otherwise, and then no span is made. Offsets are counted once per 4,096 characters and
    encoded from there."""

    _STEP = 4096

    def __init__(self, path: str, text: str, encoding: str = "utf-8", bom: int = 0):
        self.path = path
        self.text = text
        self.encoding = encoding
        self.bom = bom
        try:
            self.exact = "\n".encode(encoding) == b"\n" and "ab".encode(encoding) == b"ab"
        except LookupError:
            self.exact = False
        self._ascii = self.exact and text.isascii()
        self._steps: list[int] = [bom]
        self._line_starts: list[int] | None = None

    def offset(self, index: int) -> int:
        """The byte offset of character `index`."""
        if self._ascii:
            return self.bom + index
        step = index // self._STEP
        while len(self._steps) <= step:
            k = len(self._steps) - 1
            chunk = self.text[k * self._STEP:(k + 1) * self._STEP]
            self._steps.append(self._steps[-1] + len(chunk.encode(self.encoding)))
        return self._steps[step] + len(self.text[step * self._STEP:index].encode(self.encoding))

    def index(self, line: int, column: int) -> int:
        """The character index of a 1-based line (ends as `split_lines` counts them) and 1-based column."""
        if self._line_starts is None:
            starts, at = [0], 0
            lines, ends = split_lines(self.text)
            for content, end in zip(lines, ends):
                at += len(content) + len(end)
                starts.append(at)
            self._line_starts = starts
        return self._line_starts[line - 1] + column - 1

    def span(self, first: int, last: int, operand: bool = False) -> Span | None:
        """The span of `text[first:last]` (character indices); None when positions do not map to bytes."""
        if not self.exact or not 0 <= first <= last <= len(self.text):
            return None
        start_line, start_column = self._point(first)
        end_line, end_column = self._point(last)
        return Span(self.path, self.offset(first), self.offset(last), start_line, start_column, end_line,
                    end_column, self.encoding, self.text[first:last], operand)

    def _point(self, index: int) -> tuple[int, int]:
        if self._line_starts is None:
            self.index(1, 1)
        line = bisect.bisect_right(self._line_starts, index)
        return line, index - self._line_starts[line - 1] + 1


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """The lines of `text` without their ends, and the ends ("\n", "\r\n", "\r"; one fewer than the lines)."""
    return _LINE_END.split(text), _LINE_END.findall(text)


def point(path: str, line: int, column: int = 1) -> Location:
    """A one-character location."""
    return Location(path, line, column, line, column + 1)


def decode(path: str, data: bytes, *, what: str, encoding: str = "utf-8", replace: bool = False) -> Decoded:
    """`data` as text in `encoding` (a UTF-8 byte-order mark is dropped). A NUL byte means binary: no text.
    Undecodable bytes are a problem at the first one: no text, or with `replace` the text with U+FFFD in their
    place (the frontend still analyses what it can). `what` names the expected content, for the message."""
    if b"\0" in data:
        line, column = position_of(data, data.index(b"\0"))
        return Decoded(None, Problem(f"binary file (NUL byte), not {what}", point(path, line, column)))
    codec = "utf-8-sig" if encoding.replace("_", "-").lower() in ("utf-8", "utf8") else encoding
    try:
        return Decoded(data.decode(codec))
    except UnicodeDecodeError as err:
        line, column = position_of(data, err.start)
        message = f"not valid {encoding.upper()} (byte 0x{data[err.start]:02x})"
        if not replace:
            return Decoded(None, Problem(f"{message}: not linted", point(path, line, column)))
        return Decoded(data.decode(codec, "replace"),
                       Problem(f"{message}; read with replacement characters", point(path, line, column)), True)


def suppression_codes(comment: str) -> Optional[list[str]]:
    """The codes a comment's `rmqlint: disable=RMQ001,RMQ002` names (`["*"]` for a bare `rmqlint: disable`),
    upper case; None when the comment holds no suppression."""
    match = _SUPPRESSION.search(comment)
    if match is None:
        return None
    return [c.strip().upper() for c in (match.group(1) or "*").split(",") if c.strip()] or ["*"]


def add_suppressions(found: dict[int, list[str]], comment: str, first_line: int) -> None:
    """Record every suppression of a (possibly multi-line) comment that starts on `first_line`."""
    for match in _SUPPRESSION.finditer(comment):
        codes = suppression_codes(match.group(0)) or ["*"]
        line = first_line + comment.count("\n", 0, match.start())
        existing = found.setdefault(line, [])
        existing.extend(code for code in codes if code not in existing)


def canonical_key(key: str) -> str:
    """Spring's relaxed binding: `rocketmq.consumer.instance-name` == `rocketmq.consumer.instanceName`."""
    return key.lower().replace("-", "").replace("_", "")


def split_destination(destination: Value) -> Optional[tuple[Value, Value]]:
    """A `RocketMQTemplate` destination `topic:tags` split on its first ':' (no ':' means no tag), when that ':'
    stands in literal text before any part that is not literal (such a part could itself hold a ':').
    None when that cannot be known yet."""
    parts: Sequence[Value] = destination.parts if isinstance(destination, Concat) else (destination,)
    prefix = ""
    for index, part in enumerate(parts):
        if not isinstance(part, Lit):
            return None
        if ":" in part.text:
            head, tail = part.text.split(":", 1)
            return Lit(prefix + head), concat(([Lit(tail)] if tail else []) + list(parts[index + 1:]))
        prefix += part.text
    return Lit(prefix), Lit("")


def subscribed_tags(expression: str) -> set[str] | None:
    """The tag set a TAG subscription expression selects, as the client builds it (FilterAPI.buildSubscriptionData):
    split on `||`, each part trimmed, empty parts dropped. None means every tag (`*` or an empty expression; a
    lone `*` among other tags is too odd to reason about, so it counts as every tag too)."""
    if expression == "" or expression == "*":
        return None
    tags = {part.strip() for part in expression.split("||")}
    tags.discard("")
    if not tags or "*" in tags:
        return None
    return tags


def module_of(path: str) -> str:
    """A Python file's dotted module: `pkg/settings.py` -> `pkg.settings`; `pkg/__init__.py` -> `pkg`."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)

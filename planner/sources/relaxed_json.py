"""The JSON that `mqadmin` prints: fastjson's, which is not strict JSON.

fastjson writes a `Map<Long, String>` (a broker's addresses, `brokerAddrs`) with bare numeric keys,
`{0:"10.0.0.1:10911"}`, a map keyed by objects (a group's consume stats, keyed by `MessageQueue`) with objects
as keys, `{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}`, and pretty-prints with tabs. This parser takes
strict JSON plus what fastjson adds: object keys that are bare numbers or identifiers, or objects of plain values
(an `ObjectKey`), single-quoted strings, and a trailing comma. Every object remembers the line of each of its keys
(`JsonObject.lines`), so a reader can say where a value came from.

`max_values` bounds what a text may make us hold: a server's answer of empty objects (`[{},{},...]`, three bytes
each) would otherwise cost hundreds of bytes of Python objects per byte read. Objects are kept small for the same
reason: `lines` is made with an object's first key, and a key seen before is the same string object.
"""

from __future__ import annotations

import re

from typing import Any, Optional

MAX_DEPTH = 200  # real route data nests 4 deep; deeper is not an mqadmin output


class RelaxedJsonError(ValueError):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.line = line
        self.column = column
        self.message = message


class TooManyValues(RelaxedJsonError):
    """The text holds more values than the reader would hold (`parse`'s `max_values`)."""


class _NoLines(dict):
    """The lines of an object without keys: one shared empty mapping, which nothing writes."""

    def __setitem__(self, key, value):
        raise TypeError("an object's lines are made with its first key")


_NO_LINES: Any = _NoLines()


class JsonObject(dict):
    """A parsed object; `lines[key]` is the 1-based line its key stands on."""

    __slots__ = ("lines",)

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[str, int] = _NO_LINES


class ObjectKey(tuple):
    """An object used as a key: its (name, value) pairs, sorted by name; values are strings, numbers, booleans or
    null."""

    def fields(self) -> dict:
        return dict(self)


_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_BARE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$-+.")
_BARE_RUN = re.compile(r"[a-zA-Z0-9_$+.-]*")


class _Parser:
    def __init__(self, text: str, max_values: Optional[int] = None) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.values_left = max_values
        self.keys: dict = {}  # each key once: a thousand objects with a `brokerName` share one string

    def fail(self, message: str) -> RelaxedJsonError:
        return RelaxedJsonError(self.line, self.pos - self.line_start + 1, message)

    def skip_space(self) -> None:
        text, n = self.text, len(self.text)
        if self.pos < n and text[self.pos] not in " \t\r\n\ufeff":  # the usual case: no space at all
            return
        while self.pos < n:
            ch = text[self.pos]
            if ch == "\n":
                self.line += 1
                self.line_start = self.pos + 1
            elif ch not in " \t\r\ufeff":
                return
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "the end of the text"
            raise self.fail(f"expected {ch!r}, found {found}")
        self.pos += 1

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} deep")
        if self.values_left is not None:
            self.values_left -= 1
            if self.values_left < 0:
                raise TooManyValues(self.line, self.pos - self.line_start + 1, "more values than a reader holds")
        ch = self.peek()
        if not ch:
            raise self.fail("unexpected end of the text")
        if ch == "{":
            return self.object(depth)
        if ch == "[":
            return self.array(depth)
        if ch in "\"'":
            return self.string()
        word = self.bare()
        if word == "true":
            return True
        if word == "false":
            return False
        if word == "null":
            return None
        return self.number(word)

    def bare(self) -> str:
        start = self.pos
        self.pos = _BARE_RUN.match(self.text, start).end()
        if start == self.pos:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "end of the text"
            raise self.fail(f"unexpected {found}")
        return self.text[start:self.pos]

    def number(self, word: str) -> int | float:
        try:
            return int(word)
        except ValueError:
            pass
        try:
            return float(word)
        except ValueError:
            raise self.fail(f"not a value: {word!r}") from None

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        text, n = self.text, len(self.text)
        end = text.find(quote, self.pos)
        if end != -1:  # the usual string, without an escape or a line break: at once
            chunk = text[self.pos:end]
            if "\\" not in chunk and "\n" not in chunk:
                self.pos = end + 1
                return chunk
        out: list[str] = []
        while True:
            if self.pos >= n:
                raise self.fail("unterminated string")
            ch = text[self.pos]
            if ch == quote:
                self.pos += 1
                return "".join(out)
            if ch == "\n":
                raise self.fail("line break inside a string")
            if ch == "\\":
                self.pos += 1
                esc = text[self.pos] if self.pos < n else ""
                if esc == "u":
                    digits = text[self.pos + 1:self.pos + 5]
                    if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                        raise self.fail("bad \\u escape")
                    code = int(digits, 16)
                    self.pos += 5
                    low = text[self.pos + 2:self.pos + 6] if text.startswith("\\u", self.pos) else ""
                    if 0xD800 <= code < 0xDC00 and len(low) == 4 and all(c in "0123456789abcdefABCDEF" for c in low) \
                            and 0xDC00 <= int(low, 16) < 0xE000:  # a surrogate pair: one character, as JSON says
                        code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                        self.pos += 6
                    out.append(chr(code))
                    continue
                if esc not in _ESCAPES:
                    raise self.fail(f"bad escape \\{esc}")
                out.append(_ESCAPES[esc])
                self.pos += 1
                continue
            out.append(ch)
            self.pos += 1

    def object(self, depth: int) -> JsonObject:
        self.pos += 1
        obj = JsonObject()
        while True:
            ch = self.peek()
            if ch == "}":
                self.pos += 1
                return obj
            if not ch:
                raise self.fail("unexpected end of the text")
            line = self.line
            if ch == "{":
                key = self.object_key(depth)
            else:
                key = self.string() if ch in "\"'" else self.bare()
            key = self.keys.setdefault(key, key)
            self.expect(":")
            obj[key] = self.value(depth + 1)
            if obj.lines is _NO_LINES:
                obj.lines = {}
            obj.lines[key] = line
            ch = self.peek()
            if ch == ",":
                self.pos += 1
            elif ch != "}":
                raise self.fail("expected ',' or '}'")

    def object_key(self, depth: int) -> ObjectKey:
        if depth + 1 > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} deep")
        value = self.object(depth + 1)
        if any(isinstance(v, (dict, list)) for v in value.values()):
            raise self.fail("an object used as a key holds an object or an array")
        return ObjectKey(sorted(value.items()))

    def array(self, depth: int) -> list:
        self.pos += 1
        items: list = []
        while True:
            ch = self.peek()
            if ch == "]":
                self.pos += 1
                return items
            items.append(self.value(depth + 1))
            ch = self.peek()
            if ch == ",":
                self.pos += 1
            elif ch != "]":
                raise self.fail("expected ',' or ']'")


def parse(text: str, max_values: Optional[int] = None) -> Any:
    """The value `text` holds. Raises RelaxedJsonError (with line and column) when it is not one, TooManyValues
    as soon as it holds more than `max_values` values (objects, arrays, strings, numbers, booleans, nulls)."""
    parser = _Parser(text, max_values)
    result = parser.value(0)
    if parser.peek():
        raise parser.fail("text after the value")
    return result

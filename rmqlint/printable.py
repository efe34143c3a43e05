"""Names from outside (topics, groups, client ids, broker remarks, strings in the linted code, file names) as a
line of text output shows them: `printable(name)`, called where a name (or a message holding names) is put into a
line of a text report or a message on stderr. JSON, SARIF, HTML and TOML have escaping of their own and take the
names as they are.

Escaped, so that a name can neither drive the terminal (an escape sequence) nor forge a line (CR, LF):
- the C0 controls, TAB included, DEL and the C1 controls (U+0080-U+009F): `\\n`, `\\r`, `\\t`, else `\\x1b`;
- the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069, "Trojan Source"), the line
  and paragraph separators (U+2028, U+2029) and lone surrogates (a file name that is not UTF-8): `\\u202e`.

A backslash is doubled only where it would read as the start of one of these escapes (before `x`, `u`, `n`, `r`,
`t`, another backslash, or an escaped character), so `\\x1b` in the output is always an escape character and a
name that holds those four characters prints as `\\\\x1b`; every other backslash (`C:\\Temp`) stays as written.
Two different names therefore never print alike.
"""

from __future__ import annotations

import re

_ESCAPED = "\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_PATTERN = re.compile(rf"[{_ESCAPED}]|\\(?=[\\xunrt{_ESCAPED}])")


def _escape(match: re.Match) -> str:
    ch = match.group()
    if ch == "\\":
        return "\\\\"
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with control characters, bidirectional overrides and line separators as backslash escapes."""
    return _PATTERN.sub(_escape, text)

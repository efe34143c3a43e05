"""TOML from a repository or a user, parsed with `tomllib` only when its shape keeps the parser's memory bounded.

What tomllib costs, measured on Python 3.11 (peak RSS of `python -c "import tomllib; tomllib.load(...)"` under
`/usr/bin/time -v`; the interpreter alone is 12 MB):

- A dotted key is quadratic: each of its prefixes is kept as a tuple until the next table header, about 4 * parts**2
  bytes. One key of 5,000 parts (10 KB) takes 112 MB, 10,000 parts (20 KB) 406 MB, 20,000 parts 1.6 GB. Keys of
  at most MAX_KEY_PARTS parts keep that term under 1 KB a key; real files stay far below (pyproject.toml's deepest
  tables, `[tool.poetry.group.dev.dependencies]`, have 5 parts; fleet.toml's 2).
- The rest is linear, but in the names more than in the bytes: 1 MB of a fleet.toml (5,000 groups) takes 23 MB and
  1 MB of `k = 1` lines 25 MB, whereas 1 MB of table headers `[t1.a]`, `[t2.a]`, ... takes 190 MB (each part of a
  header or key may make a dict, and the parser keeps a node of flags per table, about 1 KB a name), and 1 MB of
  inline tables of 16-part keys 170 MB. Without names, 1 MB of arrays nested 300 deep takes 50 MB.

So a file is refused when it is larger than `Limits.max_bytes`, holds a key of more than MAX_KEY_PARTS parts, or
names more than `Limits.max_names` keys and tables (every part of every key and header, counted on the raw text
with one regular expression, before tomllib sees it). A refused file is one `TomlRefused` naming the line of the
offending key when there is one. Nesting too deep for tomllib's recursion (`a = [[[[...]]]]`) is refused too.
tomllib is imported only to parse: reading a file to see whether it is worth parsing costs no import.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

MAX_KEY_PARTS = 16


@dataclass(frozen=True)
class Limits:
    max_bytes: int  # of the UTF-8 text
    max_names: int | None  # the parts of every key and table header; None: any number
    # Distinct tables the text names (table headers, and dotted keys, which make tables too); None: any number. A
    # fleet.toml repeats a few arrays of tables (`[[groups]]`) however big it is, where 1 MB of distinct headers
    # (`[t1.a]`, `[t2.a]`, ...) takes tomllib 190 MB.
    max_tables: int | None = None


# Settings files and version catalogs in a repository (pyproject.toml, .rmqlint.toml, gradle/libs.versions.toml) and
# the packages of a lock file. The densest file measured within both limits (45,000 two-part table headers, then
# 1.6 MB of arrays nested 300 deep) peaks at 181 MB; 99,998 names of headers alone at 111 MB; 2 MB of empty inline
# tables at 67 MB. Real settings files are a few KB and a few hundred names.
REPOSITORY = Limits(max_bytes=2 * 1024 * 1024, max_names=100_000)


class TomlRefused(ValueError):
    """A TOML text not parsed: too large, a key with too many parts or nesting too deep. `reason` says which;
    `line` is the line of the offending key (1-based), 0 for the file as a whole. str() is
    `reason (at line N, column 1)`, as tomllib's errors end."""

    def __init__(self, reason: str, line: int = 0):
        super().__init__(f"{reason} (at line {line}, column 1)" if line else reason)
        self.reason = reason
        self.line = line


_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_DOT = r"[ \t]*\.[ \t]*"
# Where a key can begin: at the start of a line (a key or a table header) or in an inline table.
_KEY_START = r"(?:^[ \t]*\[?\[?|[{,])[ \t]*"
_DEEP_KEY = re.compile(rf"{_KEY_START}{_PART}(?:{_DOT}{_PART}){{{MAX_KEY_PARTS},}}+", re.MULTILINE)
# Every key and table header (with a few items of arrays, `[1, 2]`: an upper bound).
_NAMED = re.compile(rf"{_KEY_START}({_PART}(?:{_DOT}{_PART})*+)[ \t]*[=\]]", re.MULTILINE)
# A table header's path, or a dotted key's (an upper bound: a dotted key's last part is a key, not a table).
_TABLE = re.compile(rf"^[ \t]*\[\[?[ \t]*({_PART}(?:{_DOT}{_PART})*+)|{_KEY_START}({_PART}(?:{_DOT}{_PART})++)[ \t]*=",
                    re.MULTILINE)


def check(text: str, limits: Limits = REPOSITORY) -> None:
    """Raise TomlRefused when parsing `text` could take more memory than the limits allow."""
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise _too_large(size, limits)
    deep = _DEEP_KEY.search(text)
    if deep is not None:
        line = text.count("\n", 0, deep.start()) + 1
        raise TomlRefused(f"a key of more than {MAX_KEY_PARTS} dotted parts: too deep to parse", line)
    if limits.max_tables is not None:
        tables = {re.sub(r"[ \t]", "", header or key) for header, key in _TABLE.findall(text)}
        if len(tables) > limits.max_tables:
            raise TomlRefused(f"more than {limits.max_tables:,} distinct tables ({len(tables):,}): too many to parse")
    # Each counted part takes a character and is followed by one (".", "=" or "]"): a text of fewer than twice the
    # limit's characters cannot name too many, and is not searched.
    if limits.max_names is not None and len(text) > 2 * limits.max_names:
        keys = _NAMED.findall(text)
        names = len(keys) + "".join(keys).count(".")  # a dot in a quoted part counts too: an upper bound
        if names > limits.max_names:
            raise TomlRefused(f"more than {limits.max_names:,} keys and table names ({names:,}): too many to parse")


def loads(text: str, limits: Limits = REPOSITORY) -> dict:
    """tomllib.loads, after `check`. Raises TomlRefused or tomllib.TOMLDecodeError."""
    import tomllib

    check(text, limits)
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise TomlRefused("nested too deeply to parse") from None


def load(path, limits: Limits = REPOSITORY) -> dict:
    """The TOML file at `path`. Raises OSError, UnicodeDecodeError, TomlRefused or tomllib.TOMLDecodeError."""
    return loads(read(path, limits).decode("utf-8"), limits)


def read(path, limits: Limits = REPOSITORY) -> bytes:
    """The bytes of the file at `path`, read only up to the size limit: TomlRefused beyond it. Raises OSError."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(min(size, limits.max_bytes) + 1)  # a buffer of the file's size, not of the limit
        if len(data) > size:  # it grew since: read on, up to the limit
            data += fh.read(limits.max_bytes + 1 - len(data))
    if len(data) > limits.max_bytes:
        raise _too_large(max(size, len(data)), limits)
    return data


def _too_large(size: int, limits: Limits) -> TomlRefused:
    return TomlRefused(f"larger than {limits.max_bytes / (1024 * 1024):g} MB ({size:,} bytes): too large to parse")

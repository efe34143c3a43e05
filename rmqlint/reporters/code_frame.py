"""A code frame: the lines of a file around a finding, numbered, with the finding's span underlined, as ruff and
rustc show a diagnostic:

       |
    15 |         consumer.setConsumerGroup("orders_cg");
    16 |         consumer.setInstanceName("orders-node");
       |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    17 |         consumer.start();
       |

The file is read as it is now and decoded as the frontends decode it (`rmqlint.text.decode`: UTF-8, undecodable
bytes as U+FFFD). A file that cannot be read, is no regular file, is binary, or no longer has the finding's line
gives no frame, and neither does a line longer than MAX_LINE characters (minified or generated: each character
becomes a cell, and a 10 MB line took a gigabyte). A line is shown as a terminal shows it, and the underline is
counted in the same columns: a tab reaches the next multiple of 4, a control character is its escape
(`printable`: `\\x1b`), an East Asian wide character takes two columns, a combining mark none. A line wider than
the frame is cut to a window around the span, with `…` where it was cut.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from dataclasses import dataclass

from rmqlint.printable import printable
from rmqlint.text import decode, split_lines

TAB = 4
CONTEXT = 1  # lines shown above and below the span
SPAN_LINES = 5  # a longer span shows its first and last two lines, with `...` between
MAX_BYTES = 16 * 1024 * 1024  # larger files (generated, minified) are shown without a frame
MAX_LINE = 10_000  # characters of a line shown in a frame


@dataclass(frozen=True)
class Cell:
    """What one character of a line shows (`text`) and how many terminal columns that takes."""

    text: str
    width: int


def cells(line: str) -> list[Cell]:
    """The cells of `line`, one per character (a combining mark joins the cell before it)."""
    out: list[Cell] = []
    column = 0
    for ch in line:
        if ch == "\t":
            cell = Cell(" " * (TAB - column % TAB), TAB - column % TAB)
        elif printable(ch) != ch:
            cell = Cell(printable(ch), len(printable(ch)))
        elif unicodedata.combining(ch) and out:
            out[-1] = Cell(out[-1].text + ch, out[-1].width)
            out.append(Cell("", 0))  # keeps one cell per character, so columns index cells
            continue
        else:
            cell = Cell(ch, 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1)
        out.append(cell)
        column += cell.width
    return out


class SourceFiles:
    """The lines of each file of a project, read once (None: no frame for it)."""

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._read(os.path.normpath(os.path.join(self.root, path)))
        return self._lines[path]

    @staticmethod
    def _read(full: str) -> list[str] | None:
        try:
            if not stat.S_ISREG(os.stat(full).st_mode):  # a FIFO or a device would block or never end
                return None
            with open(full, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except (OSError, ValueError):
            return None
        if len(data) > MAX_BYTES:
            return None
        decoded = decode(full, data, what="text", replace=True)
        return None if decoded.text is None else split_lines(decoded.text)[0]


HIDDEN = "(a line holding a credential: not shown)"


def code_frame(lines: list[str] | None, location, width: int, hidden: frozenset[int] = frozenset()) -> list[str]:
    """The frame of `location` (1-based line and column, end exclusive) in `lines`, at most `width` columns
    wide; [] when the lines do not hold the location. Lines numbered in `hidden` hold a secret: their text is
    replaced by HIDDEN after their indentation. (No code after the underline, as ruff had: the header names it,
    and `grep -c RMQ001` counts findings.)"""
    if not lines or not 1 <= location.line <= len(lines):
        return []
    first = location.line
    last = min(max(location.end_line, first), len(lines))
    if last > first and location.end_column <= 1:  # the span ends where a line starts: that line is not in it
        last -= 1
    spanned = list(range(first, last + 1))
    if len(spanned) > SPAN_LINES:
        spanned = [*spanned[:2], None, *spanned[-2:]]
    shown = [*range(max(1, first - CONTEXT), first), *spanned, *range(last + 1, min(len(lines), last + CONTEXT) + 1)]
    if any(n is not None and len(lines[n - 1]) > MAX_LINE for n in shown):
        return []
    gutter = len(str(max(n for n in shown if n is not None)))
    rows = {n: cells(_hidden(lines[n - 1]) if n in hidden else lines[n - 1]) for n in shown if n is not None}
    marks = {n: _underlined(rows[n], n, first, last, location) for n in spanned if n is not None}
    available = max(20, width - gutter - 3)
    start = _window(marks[first][0], max(sum(c.width for c in row) for row in rows.values()), available)

    out = [f"{'':>{gutter}} |"]
    for n in shown:
        if n is None:
            out.append(f"{'':>{gutter}} | ...")
            continue
        out.append(f"{n:>{gutter}} | {_visible(rows[n], start, available)}".rstrip())
        if n in marks:
            low, high = marks[n]
            low, high = max(low, start) - start, min(high, start + available) - start
            out.append(f"{'':>{gutter}} | {' ' * low}{'^' * max(1, high - low)}")
    out.append(f"{'':>{gutter}} |")
    return out


def _hidden(line: str) -> str:
    return line[: len(line) - len(line.lstrip())] + HIDDEN


def _underlined(row: list[Cell], n: int, first: int, last: int, location) -> tuple[int, int]:
    """The display columns [low, high) of line `n` that the span covers: from its column on the first line (else
    from the line's indentation) to its end column on the last line (else to the end of the line's text)."""
    columns = [0]
    for cell in row:
        columns.append(columns[-1] + cell.width)
    visible = [i for i, cell in enumerate(row) if cell.text.strip()]
    low = location.column - 1 if n == first else (visible[0] if visible else 0)
    if n == last and location.end_line == last:
        high = location.end_column - 1
    else:
        high = visible[-1] + 1 if visible else low
    low = min(max(low, 0), len(row))
    high = min(max(high, low), len(row))
    return columns[low], max(columns[high], columns[low] + 1)


def _window(low: int, longest: int, available: int) -> int:
    """The first display column shown: 0 when every line fits, else one that keeps the span's start in view."""
    if longest <= available:
        return 0
    return max(0, min(low - available // 4, longest - available))


def _visible(row: list[Cell], start: int, available: int) -> str:
    """The cells of `row` within display columns [start, start + available), `…` where the line goes on (a cell
    cut at either edge is shown as blanks of its visible width, so the columns stay where the underline counts)."""
    end = start + available
    shown: list[Cell] = []
    column = 0
    for cell in row:
        low, high = max(column, start), min(column + cell.width, end)
        if column >= start and column + cell.width <= end:
            shown.append(cell)
        elif high > low:
            shown.append(Cell(" " * (high - low), high - low))
        column += cell.width
    if start > 0 and shown:
        shown[0] = Cell("…" + " " * (shown[0].width - 1), shown[0].width)
    if column > end and shown:
        shown[-1] = Cell("…" + " " * (shown[-1].width - 1), shown[-1].width)
    return "".join(cell.text for cell in shown)

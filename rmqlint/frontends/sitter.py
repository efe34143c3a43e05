"""One parsed source file as a tree-sitter tree, whatever its language: the text and location of a node, the spans a
fix may edit, and the nodes enclosing a node. Each tree-sitter frontend's tree (`java.tree.JavaTree`,
`go.tree.GoTree`) builds its scopes on this. Nothing here recurses over the tree's depth.
"""

from __future__ import annotations

import gc
from typing import Callable, Optional, TypeVar

import tree_sitter

from rmqlint.facts import FileFacts, Location, Problem
from rmqlint.spans import Span
from rmqlint.text import decode


class SourceTree:
    def __init__(self, path: str, source: bytes, tree: tree_sitter.Tree) -> None:
        self.path = path
        self.source = source
        self.tree = tree
        self.memo: dict[str, dict] = {}  # per-file memos of the modules working on this file
        # For spans a fix can edit: `source` is the file's bytes after `byte_shift` bytes (a byte-order mark the
        # parse went without); not `exact` when undecodable bytes were replaced, and then no span is made.
        self.byte_shift = 0
        self.exact = True

    # --- text and locations ------------------------------------------------------------------------------

    def text(self, node: tree_sitter.Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def location(self, node: tree_sitter.Node) -> Location:
        (row0, col0), (row1, col1) = node.start_point, node.end_point
        return Location(
            self.path,
            row0 + 1,
            self._char_column(node.start_byte, col0) + 1,
            row1 + 1,
            self._char_column(node.end_byte, col1) + 1,
        )

    def span(self, first: tree_sitter.Node, last: tree_sitter.Node) -> Location:
        """From the start of `first` to the end of `last` (a link of a method chain: `.setX(..)` without the
        receiver in front of it)."""
        start, end = self.location(first), self.location(last)
        return Location(self.path, start.line, start.column, end.end_line, end.end_column)

    def span_of(self, first: tree_sitter.Node, last: tree_sitter.Node | None = None, *, operand: bool = False,
                inner: int = 0) -> Span | None:
        """The bytes from the start of `first` to the end of `last` (default `first`) as a span of the file;
        `inner` characters (ASCII quotes) are left out at both ends. None when the source is not the file's."""
        last = first if last is None else last
        if not self.exact:
            return None
        start, end = first.start_byte + inner, last.end_byte - inner
        if end < start:
            return None
        loc = self.location(first) if last is first else self.span(first, last)
        return Span(self.path, start + self.byte_shift, end + self.byte_shift, loc.line, loc.column + inner,
                    loc.end_line, loc.end_column - inner, "utf-8",
                    self.source[start:end].decode("utf-8", "replace"), operand)

    def byte_span(self, start: int, end: int) -> Span | None:
        """Any byte range of the source as a span of the file (between two nodes)."""
        if not self.exact:
            return None
        source = self.source
        points = []
        for at in (start, end):
            line_start = source.rfind(b"\n", 0, at) + 1
            points.append((source.count(b"\n", 0, at) + 1, len(source[line_start:at].decode("utf-8", "replace")) + 1))
        (line, column), (end_line, end_column) = points
        return Span(self.path, start + self.byte_shift, end + self.byte_shift, line, column, end_line, end_column,
                    "utf-8", source[start:end].decode("utf-8", "replace"))

    def _char_column(self, byte: int, byte_column: int) -> int:
        # tree-sitter columns count bytes; users count characters.
        segment = self.source[byte - byte_column : byte]
        return byte_column if segment.isascii() else len(segment.decode("utf-8", "replace"))

    # --- enclosing nodes ----------------------------------------------------------------------------------

    def ancestors(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The nodes enclosing `node`, outermost first.

        Found by descending from the root towards the node's start byte: `Node.parent` costs O(depth) in
        tree-sitter, so walking up a 10,000-deep tree parent by parent would be quadratic.
        """
        cursor = self.tree.walk()
        path: list[tree_sitter.Node] = []
        target = node.id
        start = node.start_byte
        while True:
            current = cursor.node
            if current is None or current.id == target:
                return path
            path.append(current)
            if cursor.goto_first_child_for_byte(start) is None or cursor.node.start_byte > start:
                break
        # A zero-width node the descent cannot reach: fall back to parent links.
        path = []
        current = node.parent
        while current is not None:
            path.append(current)
            current = current.parent
        path.reverse()
        return path


Tree = TypeVar("Tree", bound=SourceTree)


def parse_guarded(path: str, data: bytes, language: str, parse: Callable[[str, bytes, FileFacts], None]) \
        -> FileFacts:
    """The facts `parse` finds in a file of `language` ("java", "go"), never an exception: a frontend bug becomes
    a problem naming the file, and the run goes on. The cycle collector is paused meanwhile: its passes over the
    tree's nodes and the facts free nothing (they hold no cycles) and grow with the file (a class with 8,000
    clients took 4 times as long as one with 2,000, not 5)."""
    facts = FileFacts(path=path, language=language)
    collecting = gc.isenabled()
    gc.disable()
    try:
        parse(path, data, facts)
    except Exception as error:  # noqa: BLE001 - a frontend bug must not stop the run; say where it happened
        facts.problems.append(internal_error(path, language, error))
    finally:
        if collecting:
            gc.enable()
    return facts


def internal_error(path: str, language: str, error: Exception) -> Problem:
    """The problem a frontend's own bug becomes, at the file's start."""
    name = {"java": "Java", "go": "Go"}.get(language, language)
    return Problem(f"internal error while analysing {name}: {type(error).__name__}: {error}", Location(path, 1, 1, 1, 1))


def parse_tree(make: Callable[[str, bytes, tree_sitter.Tree], Tree], language: tree_sitter.Language, path: str,
               data: bytes, what: str, problems: Optional[list[Problem]] = None) -> Optional[Tree]:
    """`make(path, source, tree)` of the file's bytes; None when they are not text (said in `problems`). Undecodable
    bytes are parsed as U+FFFD (the tree is then not `exact`: no fix edits it), and a UTF-8 byte-order mark is left
    out of the parse (`byte_shift`), so a fix's byte offsets are the file's."""
    decoded = decode(path, data, what=what, replace=True)
    if decoded.problem is not None and problems is not None:
        problems.append(decoded.problem)
    if decoded.text is None:
        return None
    source = decoded.text.encode("utf-8") if decoded.replaced or data.startswith(b"\xef\xbb\xbf") else data
    parsed = make(path, source, tree_sitter.Parser(language).parse(source))
    parsed.exact = not decoded.replaced
    parsed.byte_shift = len(data) - len(source) if parsed.exact else 0
    return parsed


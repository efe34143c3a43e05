"""One parsed Java file as a tree-sitter tree: the grammar, the kinds of node that open a scope, text and locations
of nodes, and the chain of scopes around a node.

The modules that read a Java file build on this: `java.index` (declarations and values) and `java.flow` (which
assignments reach a read). Nothing here recurses over the tree's depth.
"""

from __future__ import annotations

import tree_sitter
import tree_sitter_java

from rmqlint.facts import Location
from rmqlint.spans import Span

LANGUAGE = tree_sitter.Language(tree_sitter_java.language())

CLASS_DECLS = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
     "annotation_type_declaration"}
)
CLASS_BODIES = frozenset({"class_body", "interface_body", "enum_body", "annotation_type_body"})
CALLABLES = frozenset(
    {"method_declaration", "constructor_declaration", "compact_constructor_declaration", "lambda_expression",
     "static_initializer"}
)


class JavaTree:
    def __init__(self, path: str, source: bytes, tree: tree_sitter.Tree) -> None:
        self.path = path
        self.source = source
        self.tree = tree
        self.memo: dict[str, dict] = {}  # per-file memos of the modules working on this file (java.flow)
        self._chain: dict[int, tuple[tree_sitter.Node, ...]] = {}
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

    # --- scopes -------------------------------------------------------------------------------------------

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

    def scopes(self, node: tree_sitter.Node) -> tuple[tree_sitter.Node, ...]:
        """Callables and class bodies enclosing `node`, innermost first."""
        cached = self._chain.get(node.id)
        if cached is not None:
            return cached
        path = self.ancestors(node)
        chain = []
        for index, ancestor in enumerate(path):
            kind = ancestor.type
            if kind in CALLABLES or kind in CLASS_BODIES or (
                kind == "block" and index > 0 and path[index - 1].type == "class_body"  # an initializer
            ):
                chain.append(ancestor)
        chain.reverse()
        result = tuple(chain)
        self._chain[node.id] = result
        return result

    def nearest_scope_id(self, node: tree_sitter.Node) -> int | None:
        chain = self.scopes(node)
        return chain[0].id if chain else None

    def innermost_scope_is(self, node: tree_sitter.Node, scope: tree_sitter.Node) -> bool:
        """Is `scope` (a callable or class body enclosing `node`) the innermost one around it? As
        `nearest_scope_id(node) == scope.id`, descending from `scope` rather than from the root: a method's locals
        ask this of every declaration in its body."""
        cursor = scope.walk()
        target = node.id
        start = node.start_byte
        while cursor.goto_first_child_for_byte(start) is not None and cursor.node.start_byte <= start:
            current = cursor.node
            if current.id == target:
                return True
            # An initializer block sits in a class body, which is on the way down before it.
            if current.type in CALLABLES or current.type in CLASS_BODIES:
                return False
        return self.nearest_scope_id(node) == scope.id  # a zero-width node the descent cannot reach

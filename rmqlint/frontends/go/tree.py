"""One parsed Go file as a tree-sitter tree (`rmqlint.frontends.sitter`: text, locations, spans): the grammar, the
functions enclosing a node, and Go's string literals.

The modules that read a Go file build on this: `go.index` (declarations and values), `go.flow` (which assignments
reach a read), `go.clients`, `go.listeners`. Nothing here recurses over the tree's depth.
"""

from __future__ import annotations

import tree_sitter
import tree_sitter_go

from rmqlint.frontends.sitter import SourceTree

LANGUAGE = tree_sitter.Language(tree_sitter_go.language())

FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal"})
STRINGS = frozenset({"interpreted_string_literal", "raw_string_literal"})
# Blocks whose statements run in order: a block, and (tree-sitter-go 0.25) the statement list inside it.
STATEMENT_LISTS = frozenset({"block", "statement_list"})

_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
                   '"': '"', "'": "'"}


def walk(node: tree_sitter.Node, skip: frozenset = frozenset()):
    """The named nodes under `node` (itself included), in source order, one at a time: a cursor's walk holds only
    the path to the current node, where a stack of children would hold every element of a 100,000-element literal.
    A node whose type is in `skip` is yielded but not entered."""
    cursor = node.walk()
    depth = 0
    while True:
        current = cursor.node
        if current.is_named:
            yield current
        if (current.type not in skip or depth == 0) and cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if depth == 0 or not cursor.goto_parent():
                return
            depth -= 1
            if depth == 0:
                return


def specs(declaration: tree_sitter.Node, kind: str) -> list[tree_sitter.Node]:
    """The specs of a declaration (`const X = 1`, or each of `const ( .. )`), without entering their values."""
    found = []
    for child in declaration.named_children:
        if child.type == kind:
            found.append(child)
        elif child.type.endswith("_spec_list"):
            found += [c for c in child.named_children if c.type == kind]
    return found


class GoTree(SourceTree):
    def __init__(self, path: str, source: bytes, tree: tree_sitter.Tree) -> None:
        super().__init__(path, source, tree)
        self._chain: dict[int, tuple[tree_sitter.Node, ...]] = {}

    def functions(self, node: tree_sitter.Node) -> tuple[tree_sitter.Node, ...]:
        """The functions (declarations, methods, function literals) enclosing `node`, innermost first."""
        cached = self._chain.get(node.id)
        if cached is None:
            cached = tuple(reversed([a for a in self.ancestors(node) if a.type in FUNCTIONS]))
            self._chain[node.id] = cached
        return cached

    def enclosing_function(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        chain = self.functions(node)
        return chain[0] if chain else None

    def string_text(self, node: tree_sitter.Node) -> str | None:
        """The value of a Go string literal; None for a malformed escape."""
        raw = self.text(node)
        if node.type == "raw_string_literal":
            return raw[1:-1].replace("\r", "") if len(raw) >= 2 and raw.endswith("`") else None
        if len(raw) < 2 or not raw.endswith('"'):
            return None
        return unescape(raw[1:-1])

    def exact_string(self, node: tree_sitter.Node) -> bool:
        """The literal reads as written (no escape, one line): a fix may edit its text in place."""
        raw = self.text(node)
        return "\\" not in raw if node.type == "interpreted_string_literal" else "\n" not in raw and "\r" not in raw


def unescape(body: str) -> str | None:
    """A Go interpreted string's content without its escapes (\\n, \\x41, \\u00e9, \\101 ...)."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(body):
            return None
        escape = body[i + 1]
        if escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
            i += 2
            continue
        width = {"x": 2, "u": 4, "U": 8}.get(escape)
        digits, base, start = (body[i + 2:i + 2 + width], 16, i + 2) if width else (body[i + 1:i + 4], 8, i + 1)
        width = width or 3
        try:
            value = int(digits, base) if len(digits) == width else None
        except ValueError:
            value = None
        if value is None or value > 0x10FFFF:
            return None
        out.append(chr(value))
        i = start + width
    return "".join(out)

"""One parsed Java file as a tree-sitter tree (`rmqlint.frontends.sitter`: text, locations, spans): the grammar, the
kinds of node that open a scope, and the chain of scopes around a node.

The modules that read a Java file build on this: `java.index` (declarations and values) and `java.flow` (which
assignments reach a read). Nothing here recurses over the tree's depth.
"""

from __future__ import annotations

import tree_sitter
import tree_sitter_java

from rmqlint.frontends.sitter import SourceTree

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


class JavaTree(SourceTree):
    def __init__(self, path: str, source: bytes, tree: tree_sitter.Tree) -> None:
        super().__init__(path, source, tree)
        self._chain: dict[int, tuple[tree_sitter.Node, ...]] = {}

    # --- scopes -------------------------------------------------------------------------------------------

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

"""The spans a fix needs around a Java setting: the argument of a setter (`written`), where one more setter of the
same client goes (`slot`: after a setter, or after the statement creating the client), an annotation attribute's
value, the text whose deletion removes the attribute (`removal`) and where one more attribute goes.

Every span is taken from the tree-sitter tree, never from a search of the text; a place the tree does not make
certain (a setter that shares its line with other code, an attribute list holding comments) gets no span, and
the fix that needed it is not offered.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.frontends.java.tree import JavaTree
from rmqlint.spans import Slot, Span

# Expressions after which `+ x` needs no parentheses: it binds as `(expression) + x` and means the same.
_OPERANDS = frozenset({
    "string_literal", "identifier", "field_access", "method_invocation", "parenthesized_expression",
    "character_literal", "array_access", "object_creation_expression", "this", "decimal_integer_literal",
    "hex_integer_literal", "octal_integer_literal", "binary_integer_literal",
})
_ADDITIVE = frozenset({"+", "-", "*", "/", "%"})
_COMMENTS = frozenset({"line_comment", "block_comment"})
# Where a statement written after another runs whenever that one does: in a block or a `case X:` group. The body
# of a brace-less `if`/`else`/`for`/`while`/`do` or a label is one statement: one written after it runs always.
_SEQUENCES = frozenset({"block", "constructor_body", "switch_block_statement_group"})


def is_operand(node: tree_sitter.Node) -> bool:
    if node.type in _OPERANDS:
        return True
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    return operator is not None and operator.type in _ADDITIVE


def written(java: JavaTree, node: tree_sitter.Node | None) -> Span | None:
    """The expression `node` as written (a setter's argument, an attribute's value)."""
    return java.span_of(node, operand=is_operand(node)) if node is not None else None


def setter_slot(java: JavaTree, call: tree_sitter.Node) -> Slot | None:
    """After the statement `receiver.setX(..);` (and a comment ending its line), a new line with the same
    indentation for `receiver.setY(..);`. None when the statement shares its lines with other code, or is the
    body of a brace-less `if`, `for`, `while` (the new one would run whatever the condition)."""
    statement = call.parent
    if statement is None or statement.type != "expression_statement":
        return None
    receiver = call.child_by_field_name("object")
    return _after(java, statement, f"{java.text(receiver)}." if receiver is not None else "")


def creation_slot(java: JavaTree, creation: tree_sitter.Node) -> Slot | None:
    """After `Consumer c = new Consumer(..);` or `c = new Consumer(..);` in a method, a new line for `c.setY(..);`
    (not after a field's initializer: no statement can follow it there)."""
    parent = creation.parent
    if parent is not None and parent.type == "variable_declarator" and parent.parent is not None \
            and parent.parent.type == "local_variable_declaration":
        name = parent.child_by_field_name("name")
        return _after(java, parent.parent, f"{java.text(name)}.") if name is not None else None
    if parent is not None and parent.type == "assignment_expression" and parent.parent is not None \
            and parent.parent.type == "expression_statement":
        left = parent.child_by_field_name("left")
        return _after(java, parent.parent, f"{java.text(left)}.") if left is not None else None
    return None


def _after(java: JavaTree, statement: tree_sitter.Node, head: str) -> Slot | None:
    if statement.parent is None or statement.parent.type not in _SEQUENCES:
        return None  # a brace-less body: the new statement would run unconditionally
    source = java.source
    line_start = source.rfind(b"\n", 0, statement.start_byte) + 1
    indent = source[line_start:statement.start_byte]
    if indent.strip(b" \t"):
        return None  # other code before it on its line
    last = statement
    following = statement.next_sibling
    while following is not None and following.start_point[0] == statement.end_point[0]:
        if following.type not in _COMMENTS or following.end_point[0] != following.start_point[0]:
            return None  # other code (or a comment running on) after it on its line
        last, following = following, following.next_sibling
    end = last.end_byte
    while end > statement.end_byte and source[end - 1:end] in (b"\r", b"\n"):
        end -= 1  # a line comment's node may hold the CR of a CRLF line end
    span = java.byte_span(statement.start_byte, end)
    if span is None:
        return None
    after = source[end:end + 2]
    newline = "\r\n" if after.startswith(b"\r\n") else "\r" if after.startswith(b"\r") else "\n"
    return Slot(span, "call", f"{newline}{indent.decode('utf-8', 'replace')}{head}", ";")


def attribute_spans(java: JavaTree, pair: tree_sitter.Node) -> tuple[Span | None, Span | None, Slot | None]:
    """(the value as written, the removal of the whole attribute with its comma, a slot for one more attribute)
    of an annotation's `name = value`."""
    value = pair.child_by_field_name("value")
    pair_span = java.span_of(pair)
    slot = Slot(pair_span, "attribute", ", ") if pair_span is not None else None
    return written(java, value), _removal(java, pair), slot


def _removal(java: JavaTree, pair: tree_sitter.Node) -> Span | None:
    """`, name = value` after the attribute before it, or `name = value, ` before the next one, or the attribute
    alone; None when a comment stands in that text (it would go too)."""
    arguments = pair.parent
    if arguments is None:
        return None
    children = list(arguments.children)
    if any(child.type in _COMMENTS for child in children):
        return None
    pairs = [child for child in arguments.named_children]
    index = next((i for i, child in enumerate(pairs) if child.id == pair.id), None)
    if index is None:
        return None
    if index > 0:
        return java.byte_span(pairs[index - 1].end_byte, pair.end_byte)
    if len(pairs) > 1:
        return java.byte_span(pair.start_byte, pairs[1].start_byte)
    return java.span_of(pair)

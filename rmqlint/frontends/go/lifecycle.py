"""Whether a consumer made in Go code can ever run: its settings matter only once it is started.

A consumer held by a local variable of a function that the function never starts (`c.Start()`, `go c.Start()`, in
a function literal of it too) and never hands on (returns it, stores it in a field, a package variable or a struct,
passes it to a call, or uses it in any other way than calling its methods or assigning it to `_`) is never started:
nothing else can reach it. `Subscribe` alone does not start it. It is left out of the facts, its settings do
nothing; so is the consumer a function returns to a caller that neither starts nor hands on what it gets. A
consumer held by a package-level variable or a field may be started by code rmqlint does not follow, and counts as
running.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.frontends.go.index import GoFile
from rmqlint.frontends.go.tree import walk

_DECLARATIONS = ("short_var_declaration", "assignment_statement")


def handed_on(go: GoFile, function: tree_sitter.Node) -> set[str]:
    """The names a function uses in a way that may start what they hold: a local consumer whose name is not among
    them is never started. One walk per function; a name declared again in an inner block or a function literal
    counts as the same variable (a use that may start it keeps it)."""
    found: set[str] = set()
    body = function.child_by_field_name("body")
    for node in walk(body) if body is not None else ():
        if node.type == "identifier" and not _leaves_idle(node):
            found.add(go.text(node))
    return found


def _leaves_idle(name: tree_sitter.Node) -> bool:
    """Whether the use at `name` neither starts the variable's object nor gives it to code that may start it."""
    parent = name.parent
    if parent is None:
        return False
    if parent.type == "expression_list" and parent.parent is not None and parent.parent.type in _DECLARATIONS:
        left = parent.parent.child_by_field_name("left")
        if left is not None and left.id == parent.id:
            return True  # bound: `c, err := ..`
        # `_ = c`, Go's way to use a variable for nothing
        return left is not None and all(n.type == "identifier" and n.text == b"_" for n in left.named_children)
    if parent.type == "var_spec":
        return any(n.id == name.id for n in parent.children_by_field_name("name"))  # bound: `var c, err = ..`
    if parent.type == "selector_expression":
        operand, field = parent.child_by_field_name("operand"), parent.child_by_field_name("field")
        call = parent.parent
        # a method called on it (Subscribe, Shutdown) other than the start
        return operand is not None and operand.id == name.id and call is not None \
            and call.type == "call_expression" and call.child_by_field_name("function") is not None \
            and call.child_by_field_name("function").id == parent.id \
            and field is not None and field.text != b"Start"
    return False

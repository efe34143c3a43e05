"""Whether a consumer made in Python code can ever run: its settings matter only once it is started.

A consumer held only by local variables of a function, that the function never starts (`consumer.start()` of the
2.x client, `consumer.startup()` of 5.x, in a nested function or lambda of it too) and never hands on (returns or
yields it, stores it in an attribute, a global or a container, passes it to a call, uses it as a context manager,
or uses it in any other way than calling its methods) is never started: nothing else can reach it. It is left out
of the facts, its settings do nothing. A consumer held by a module-level variable or an attribute, or made where
no variable holds it, may be started by code rmqlint does not follow, and counts as running.
"""

from __future__ import annotations

import libcst as cst

from rmqlint.frontends.python.walk import children

STARTS = frozenset({"start", "startup"})  # 2.x `start()`, 5.x `startup()`


def handed_on(function: cst.CSTNode) -> set[str]:
    """The names a function (a def or a lambda) uses in a way that may start what they hold: a local consumer
    whose name is not among them is never started. One walk per function, whatever the number of its consumers; a
    nested function binding the same name counts as using the outer one (a use that may start it keeps it)."""
    found: set[str] = set()
    # (node, parent, grandparent): libcst nodes have no parent links
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None]] = [(function.body, function, None)]
    while stack:
        node, parent, grandparent = stack.pop()
        if isinstance(node, cst.Name):
            if node.value not in found and not _leaves_idle(node, parent, grandparent):
                found.add(node.value)
            continue
        stack.extend((child, node, parent) for child in children(node))
    return found


def _leaves_idle(name: cst.Name, parent: cst.CSTNode | None, grandparent: cst.CSTNode | None) -> bool:
    """Whether the use at `name` neither starts the variable's object nor gives it to code that may start it."""
    if isinstance(parent, cst.AssignTarget) and parent.target is name \
            or isinstance(parent, cst.AnnAssign) and parent.target is name:
        return True  # bound
    if isinstance(parent, cst.Attribute) and parent.attr is name \
            or isinstance(parent, cst.Arg) and parent.keyword is name:
        return True  # `other.consumer`, `f(consumer=..)`: another name
    # a method called on it (a setter, subscribe, shutdown) other than the start
    return isinstance(parent, cst.Attribute) and parent.value is name and isinstance(grandparent, cst.Call) \
        and grandparent.func is parent and parent.attr.value not in STARTS

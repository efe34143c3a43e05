"""The statements of one Java method as `rmqlint.flow` nodes, for one local variable: which of its assignments reach
a read (`String tag; if (refund) tag = "Refunded"; else tag = "Settled";`).

Statements are translated as the compiler runs them: blocks, `if`, the loops, `switch` statements (`case X:` groups
fall through until a `break`; `case X ->` rules do not), `try`/`catch`/`finally`, `return`/`throw`, unlabelled
`break`/`continue`. A labelled jump, or an assignment of the variable inside an expression (`if ((tag = next())
!= null)`), is not modelled: `flow.Unsupported`, and the value stays Dynamic.
"""

from __future__ import annotations

import tree_sitter

from rmqlint import flow
from rmqlint.frontends.java.tree import CLASS_DECLS, LANGUAGE, JavaTree

# The value of an assignment that is not a plain `=` (`tag += "x"`, `i++`): a value, but not one we know.
NOT_PLAIN = object()

_ASSIGNMENTS = tree_sitter.Query(
    LANGUAGE,
    """
    (assignment_expression left: (identifier) @name) @assignment
    (update_expression (identifier) @name) @assignment
    """,
)
_LOOPS = frozenset({"while_statement", "do_statement", "for_statement", "enhanced_for_statement"})
_COMPOUND = _LOOPS | frozenset({"block", "if_statement", "switch_expression", "switch_statement", "try_statement",
                                "try_with_resources_statement", "labeled_statement", "synchronized_statement"})


def _descendants(node: tree_sitter.Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.named_children)


def assignments_in(java: JavaTree, callable_node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """Name -> the assignment (and `++`/`--`) expressions of that name whose nearest scope is `callable_node`
    (a lambda or anonymous class inside it has its own variables)."""
    memo = java.memo.setdefault("assignments", {})
    found = memo.get(callable_node.id)
    if found is None:
        found = {}
        body = callable_node.child_by_field_name("body") or callable_node
        for _pattern, captures in tree_sitter.QueryCursor(_ASSIGNMENTS).matches(body):
            (name,), (assignment,) = captures["name"], captures["assignment"]
            if java.nearest_scope_id(assignment) == callable_node.id:
                found.setdefault(java.text(name), []).append(assignment)
        memo[callable_node.id] = found
    return found


def reaching_values(java: JavaTree, callable_node: tree_sitter.Node, name: str,
                    use: tree_sitter.Node) -> list[object]:
    """The value expressions (or `NOT_PLAIN`) of the assignments of local `name` that may reach `use`, in source
    order. Raises `flow.Unsupported` when the method does something the translation does not model."""
    body = callable_node.child_by_field_name("body")
    if body is None:  # an initializer block, or a static one
        body = callable_node if callable_node.type == "block" else next(
            (c for c in callable_node.named_children if c.type == "block"), None)
    if body is None or body.type not in ("block", "constructor_body"):
        raise flow.Unsupported("not a method body")
    translation = _Translation(java, name, use, assignments_in(java, callable_node).get(name, []))
    at_use, _end = flow.reaching(translation.statement(body))
    if not translation.use_seen:
        raise flow.Unsupported("the read is not in a statement of the method")
    return [assign.value for assign in at_use]


def _contains(outer: tree_sitter.Node, inner: tree_sitter.Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


class _Translation:
    def __init__(self, java: JavaTree, name: str, use: tree_sitter.Node, assigned: list[tree_sitter.Node]):
        self.java = java
        self.name = name
        self.use = use
        self.assigned = assigned
        self.order = 0
        self.use_seen = False

    def _assign(self, value: object) -> flow.Assign:
        self.order += 1
        return flow.Assign(value, self.order)

    def _reads(self, node: tree_sitter.Node | None) -> flow.Node:
        """An expression evaluated for its value: the read when it holds it; no assignment of ours may hide in it."""
        if node is None:
            return flow.Seq()
        if any(_contains(node, a) for a in self.assigned):
            raise flow.Unsupported(f"{self.name} is assigned inside an expression")
        if _contains(node, self.use):
            self.use_seen = True
            return flow.Use()
        return flow.Seq()

    def statement(self, node: tree_sitter.Node | None) -> flow.Node:
        if node is None:
            return flow.Seq()
        kind = node.type
        if kind in _COMPOUND and not _contains(node, self.use) and not any(_contains(node, a) for a in self.assigned) \
                and not self._declares(node):
            return self._inert(node)
        handler = getattr(self, f"_{kind}", None)
        if handler is not None:
            return handler(node)
        if kind in CLASS_DECLS or kind in (";", "line_comment", "block_comment"):
            if _contains(node, self.use):
                raise flow.Unsupported("the read is in a local class")
            return flow.Seq()
        return self._reads(node)  # assert, explicit constructor calls, ...: evaluated, no control flow of ours

    def _declares(self, node: tree_sitter.Node) -> bool:
        name = self.name.encode()
        return name in self.java.source[node.start_byte:node.end_byte] and any(
            d.type == "local_variable_declaration" and any(
                (n := v.child_by_field_name("name")) is not None and self.java.text(n) == self.name
                for v in d.children_by_field_name("declarator"))
            for d in _descendants(node))

    def _inert(self, node: tree_sitter.Node) -> flow.Node:
        """A statement that neither assigns nor reads the variable: the state goes through it unchanged, and out of
        it by the `break`s and `continue`s that leave it (a `return` only ends paths, which changes no state)."""
        labels: set[str] = set()
        escapes: set[str] = set()
        stack: list[tuple[tree_sitter.Node, bool, bool]] = [(node, False, False)]  # node, in a loop, in a switch
        while stack:
            current, in_loop, in_switch = stack.pop()
            kind = current.type
            if kind in ("break_statement", "continue_statement"):
                label = current.named_children[0] if current.named_children else None
                if label is not None:
                    if self.java.text(label) not in labels:
                        raise flow.Unsupported("a labelled jump")
                elif kind == "break_statement" and not (in_loop or in_switch):
                    escapes.add("break")
                elif kind == "continue_statement" and not in_loop:
                    escapes.add("continue")
                continue
            if kind == "labeled_statement" and current.named_children:
                labels.add(self.java.text(current.named_children[0]))
            if kind in ("lambda_expression", "class_body"):
                continue
            nested_loop = in_loop or kind in _LOOPS
            nested_switch = in_switch or kind in ("switch_expression", "switch_statement")
            stack.extend((child, nested_loop, nested_switch) for child in current.named_children)
        if not escapes:
            return flow.Seq()
        return flow.Branch([flow.Seq(), *(flow.Jump(kind) for kind in sorted(escapes))])

    def _statements(self, nodes) -> flow.Seq:
        return flow.Seq([self.statement(child) for child in nodes if child.is_named])

    def _block(self, node: tree_sitter.Node) -> flow.Node:
        return self._statements(node.children)

    _constructor_body = _block

    def _local_variable_declaration(self, node: tree_sitter.Node) -> flow.Node:
        items: list[flow.Node] = []
        for declarator in node.children_by_field_name("declarator"):
            name_node = declarator.child_by_field_name("name")
            value = declarator.child_by_field_name("value")
            items.append(self._reads(value))
            if name_node is not None and self.java.text(name_node) == self.name:
                items.append(self._assign(value))  # `String tag;` (value None): declared, not yet assigned
        return flow.Seq(items)

    def _expression_statement(self, node: tree_sitter.Node) -> flow.Node:
        expression = node.named_children[0] if node.named_children else None
        if expression is not None and any(a.id == expression.id for a in self.assigned):
            if expression.type == "update_expression":
                return flow.Seq([self._reads_outside(expression, expression), self._assign(NOT_PLAIN)])
            operator = expression.child_by_field_name("operator")
            right = expression.child_by_field_name("right")
            plain = operator is not None and operator.type == "="
            return flow.Seq([self._reads_outside(right, expression), self._assign(right if plain else NOT_PLAIN)])
        return self._reads(expression)

    def _reads_outside(self, node: tree_sitter.Node | None, assignment: tree_sitter.Node) -> flow.Node:
        """The reads of an assignment's own statement: its right side, or the variable itself (`tag += x`)."""
        if node is not None and any(_contains(node, a) for a in self.assigned):
            raise flow.Unsupported(f"{self.name} is assigned inside an expression")
        if _contains(assignment, self.use):
            self.use_seen = True
            return flow.Use()
        return flow.Seq()

    def _if_statement(self, node: tree_sitter.Node) -> flow.Node:
        return flow.Seq([self._reads(node.child_by_field_name("condition")),
                         flow.Branch([self.statement(node.child_by_field_name("consequence")),
                                      self.statement(node.child_by_field_name("alternative"))])])

    def _while_statement(self, node: tree_sitter.Node) -> flow.Node:
        return flow.Loop(body=self.statement(node.child_by_field_name("body")),
                         head=self._reads(node.child_by_field_name("condition")))

    def _do_statement(self, node: tree_sitter.Node) -> flow.Node:
        return flow.Loop(body=self.statement(node.child_by_field_name("body")),
                         head=self._reads(node.child_by_field_name("condition")), body_first=True)

    def _for_statement(self, node: tree_sitter.Node) -> flow.Node:
        init = [self.statement(n) if n.type == "local_variable_declaration" else self._expression(n)
                for n in node.children_by_field_name("init")]
        update = flow.Seq([self._expression(n) for n in node.children_by_field_name("update")])
        return flow.Seq([*init, flow.Loop(body=self.statement(node.child_by_field_name("body")),
                                          head=self._reads(node.child_by_field_name("condition")),
                                          update=update)])

    def _expression(self, node: tree_sitter.Node) -> flow.Node:
        """An expression used as a statement (a `for` init or update)."""
        if any(a.id == node.id for a in self.assigned):
            if node.type == "update_expression":
                return flow.Seq([self._reads_outside(node, node), self._assign(NOT_PLAIN)])
            operator = node.child_by_field_name("operator")
            right = node.child_by_field_name("right")
            plain = operator is not None and operator.type == "="
            return flow.Seq([self._reads_outside(right, node), self._assign(right if plain else NOT_PLAIN)])
        return self._reads(node)

    def _enhanced_for_statement(self, node: tree_sitter.Node) -> flow.Node:
        return flow.Seq([self._reads(node.child_by_field_name("value")),
                         flow.Loop(body=self.statement(node.child_by_field_name("body")))])

    def _labeled_statement(self, node: tree_sitter.Node) -> flow.Node:
        inner = [c for c in node.named_children if c.type != "identifier"]
        return self.statement(inner[0]) if inner else flow.Seq()

    def _synchronized_statement(self, node: tree_sitter.Node) -> flow.Node:
        lock = next((c for c in node.named_children if c.type == "parenthesized_expression"), None)
        return flow.Seq([self._reads(lock), self.statement(node.child_by_field_name("body"))])

    def _return_statement(self, node: tree_sitter.Node) -> flow.Node:
        return flow.Seq([self._reads(node.named_children[0] if node.named_children else None), flow.Jump("return")])

    _throw_statement = _return_statement

    def _break_statement(self, node: tree_sitter.Node) -> flow.Node:
        if node.named_children:
            raise flow.Unsupported("a labelled jump")
        return flow.Jump("break")

    def _continue_statement(self, node: tree_sitter.Node) -> flow.Node:
        if node.named_children:
            raise flow.Unsupported("a labelled jump")
        return flow.Jump("continue")

    def _yield_statement(self, node: tree_sitter.Node) -> flow.Node:
        raise flow.Unsupported("yield from a switch expression")

    def _switch_expression(self, node: tree_sitter.Node) -> flow.Node:
        """A `switch` in statement position (tree-sitter names both forms so)."""
        block = node.child_by_field_name("body")
        groups: list[flow.Node] = []
        fallthrough = False
        exhaustive = False
        for child in block.named_children if block is not None else ():
            if child.type not in ("switch_block_statement_group", "switch_rule"):
                continue
            labels = [c for c in child.named_children if c.type == "switch_label"]
            body = [c for c in child.named_children if c.type != "switch_label"]
            exhaustive = exhaustive or any(c.type == "default" for label in labels for c in label.children)
            if child.type == "switch_block_statement_group":
                fallthrough = True
            reads = [self._reads(label) for label in labels]
            groups.append(flow.Seq([*reads, *(self.statement(c) for c in body)]))
        return flow.Seq([self._reads(node.child_by_field_name("condition")),
                         flow.Switch(groups, fallthrough=fallthrough, exhaustive=exhaustive)])

    _switch_statement = _switch_expression

    def _try_statement(self, node: tree_sitter.Node) -> flow.Node:
        resources = node.child_by_field_name("resources")
        handlers = []
        final = None
        for child in node.named_children:
            if child.type == "catch_clause":
                handlers.append(self.statement(child.child_by_field_name("body")))
            elif child.type == "finally_clause":
                final = self._statements(child.children)
        body = self.statement(node.child_by_field_name("body"))
        return flow.Seq([self._reads(resources), flow.Try(body, handlers=handlers, final=final)])

    _try_with_resources_statement = _try_statement

"""The statements of one Go function as `rmqlint.flow` nodes, for one local variable: which of its assignments reach
a read (`name := "orders-a"; if eu { name = "orders-eu" }`).

Statements are translated as Go runs them: blocks, `if` with its initializer, `for` (clauses, conditions, ranges),
`switch` and `select` (no case falls into the next unless it says `fallthrough`, which is not modelled), `return`,
unlabelled `break`/`continue`. A labelled jump, `goto`, `fallthrough`, or an assignment of the variable inside an
expression or in a function literal (a closure), is not modelled: `flow.Unsupported`, and the value stays Dynamic.
"""

from __future__ import annotations

import bisect

import tree_sitter

from rmqlint import flow
from rmqlint.frontends.go.tree import FUNCTIONS, LANGUAGE, STATEMENT_LISTS, GoTree, specs

# The value of an assignment that is not a plain `=` (`name += "x"`, `n++`, one of several results of a call).
NOT_PLAIN = object()
_ASSIGNING = frozenset({"assignment_statement", "inc_statement", "dec_statement", "short_var_declaration",
                        "var_spec", "range_clause"})
_ASSIGNING_QUERY = tree_sitter.Query(LANGUAGE, "[" + " ".join(f"({kind})" for kind in sorted(_ASSIGNING)) + "] @s")
_IDENTIFIERS = tree_sitter.Query(LANGUAGE, "(identifier) @name")
_COMPOUND = frozenset({"block", "statement_list", "if_statement", "for_statement", "expression_switch_statement",
                       "type_switch_statement", "select_statement", "labeled_statement"})


def targets(statement: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The identifiers a statement assigns or declares (`_` included: it is never read)."""
    if statement.type in ("inc_statement", "dec_statement"):
        return [c for c in statement.named_children[:1] if c.type == "identifier"]
    if statement.type == "var_spec":
        return list(statement.children_by_field_name("name"))
    left = statement.child_by_field_name("left")
    if left is None:
        return []
    return [c for c in (left.named_children if left.type == "expression_list" else [left]) if c.type == "identifier"]


def assignments_in(go: GoTree, function: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """Name -> the statements of `function` (nested function literals included) that assign or declare it."""
    memo = go.memo.setdefault("assignments", {})
    found = memo.get(function.id)
    if found is None:
        found = {}
        body = function.child_by_field_name("body")
        for node in tree_sitter.QueryCursor(_ASSIGNING_QUERY).captures(body).get("s", []) if body is not None else ():
            for target in targets(node):
                found.setdefault(go.text(target), []).append(node)
        memo[function.id] = found
    return found


def reaching_values(go: GoTree, function: tree_sitter.Node, name: str, use: tree_sitter.Node) -> list[object]:
    """The value expressions (or `NOT_PLAIN`) of the assignments of local `name` that may reach `use`, in source
    order. Raises `flow.Unsupported` when the function does something the translation does not model.

    Every read of `name` in the function is answered by one translation (memoized per function and name): a function
    reading one variable N times costs one pass, not N."""
    memo = go.memo.setdefault("reaching", {})
    key = (function.id, name)
    if key not in memo:
        try:
            memo[key] = _reaching_all(go, function, name)
        except flow.Unsupported as why:
            memo[key] = why
    answers = memo[key]
    if isinstance(answers, flow.Unsupported):
        raise answers
    if use.id not in answers:
        raise flow.Unsupported("the read is not in a statement of the function")
    return answers[use.id]


def _reaching_all(go: GoTree, function: tree_sitter.Node, name: str) -> dict[int, list[object]]:
    body = function.child_by_field_name("body")
    if body is None:
        raise flow.Unsupported("no function body")
    assigned = assignments_in(go, function).get(name, [])
    for statement in assigned:
        inner = go.enclosing_function(statement)
        if inner is not None and inner.id != function.id:
            raise flow.Unsupported(f"{name} is assigned in a function literal")
    reads = [n for n in tree_sitter.QueryCursor(_IDENTIFIERS).captures(body).get("name", []) if go.text(n) == name] \
        if name.encode() in go.source[body.start_byte:body.end_byte] else []
    translation = _Translation(go, name, reads, assigned)
    each = flow.reaching_each(translation.statement(body))
    return {translation.read_of[id(use)]: [assign.value for assign in assigns] for use, assigns in each.items()}


def _holds_statements(kind: str) -> bool:
    return kind.endswith(("_statement", "_case", "_clause")) or kind in STATEMENT_LISTS


class _Translation:
    def __init__(self, go: GoTree, name: str, reads: list[tree_sitter.Node], assigned: list[tree_sitter.Node]):
        self.go = go
        self.name = name
        self.reads = sorted(reads, key=lambda n: n.start_byte)
        self.read_starts = [n.start_byte for n in self.reads]
        self.assigned = {a.id for a in assigned}
        self.assigned_starts = sorted(a.start_byte for a in assigned)
        self.read_of: dict[int, int] = {}  # id of a flow.Use -> the id of the read it stands for
        self.order = 0

    def _assign(self, value: object) -> flow.Assign:
        self.order += 1
        return flow.Assign(value, self.order)

    @staticmethod
    def _any_in(node: tree_sitter.Node, starts: list[int]) -> bool:
        index = bisect.bisect_left(starts, node.start_byte)
        return index < len(starts) and starts[index] < node.end_byte

    def _reads(self, node: tree_sitter.Node | None) -> flow.Node:
        """The reads of the variable inside an expression or a simple statement, in order (Go assigns only in
        statements: no assignment of ours hides in an expression outside a function literal)."""
        if node is None:
            return flow.Seq()
        index = bisect.bisect_left(self.read_starts, node.start_byte)
        last = bisect.bisect_left(self.read_starts, node.end_byte)
        uses: list[flow.Node] = []
        for position in range(index, last):
            read = self.reads[position]
            use = flow.Use()
            self.read_of[id(use)] = read.id
            uses.append(use)
        return flow.Seq(uses)

    def statement(self, node: tree_sitter.Node | None) -> flow.Node:
        if node is None:
            return flow.Seq()
        kind = node.type
        if node.id in self.assigned:
            return self._assignment(node)
        if kind in _COMPOUND and not self._any_in(node, self.read_starts) and not self._any_in(
                node, self.assigned_starts):
            return self._inert(node)
        if kind in STATEMENT_LISTS:
            return flow.Seq([self.statement(c) for c in node.named_children if c.type != "comment"])
        handler = getattr(self, f"_{kind}", None)
        if handler is not None:
            return handler(node)
        if kind in ("goto_statement", "fallthrough_statement"):
            raise flow.Unsupported(kind.replace("_", " "))
        if kind == "var_declaration":
            return flow.Seq([self.statement(c) for c in specs(node, "var_spec")])
        return self._reads(node)

    def _assignment(self, node: tree_sitter.Node) -> flow.Node:
        assigned = targets(node)
        index = next(i for i, t in enumerate(assigned) if self.go.text(t) == self.name)
        if node.type in ("inc_statement", "dec_statement"):
            return flow.Seq([self._reads_outside(node), self._assign(NOT_PLAIN)])
        if node.type == "range_clause":
            return flow.Seq([self._reads_outside(node), self._assign(NOT_PLAIN)])
        right = node.child_by_field_name("right" if node.type != "var_spec" else "value")
        values = right.named_children if right is not None and right.type == "expression_list" else (
            [right] if right is not None else [])
        operator = next((c.type for c in node.children if not c.is_named and c.type.endswith("=")), "=")
        plain = operator in ("=", ":=")
        if node.type == "var_spec" and right is None:
            return self._assign(None)  # declared, its zero value: not a value the code wrote
        if plain and len(values) == len(assigned):
            value = values[index]
        elif plain and len(values) == 1 and index == 0 and values[0].type == "call_expression":
            value = values[0]  # the first result of a call (`host, _ := os.Hostname()`): the call's value
        else:
            value = NOT_PLAIN
        return flow.Seq([self._reads_outside(node), self._assign(value)])

    def _reads_outside(self, node: tree_sitter.Node) -> flow.Node:
        """The reads of an assignment's own statement (its right side, `name += x`), before it assigns."""
        return self._reads(node)

    def _inert(self, node: tree_sitter.Node) -> flow.Node:
        """A statement that neither assigns nor reads the variable, left by the `break`s and `continue`s in it."""
        escapes: set[str] = set()
        stack: list[tuple[tree_sitter.Node, bool, bool]] = [(node, False, False)]
        while stack:
            current, in_loop, in_switch = stack.pop()
            kind = current.type
            if kind in ("break_statement", "continue_statement"):
                if current.named_children:
                    raise flow.Unsupported("a labelled jump")
                if kind == "break_statement" and not (in_loop or in_switch):
                    escapes.add("break")
                elif kind == "continue_statement" and not in_loop:
                    escapes.add("continue")
                continue
            if kind in ("goto_statement", "fallthrough_statement"):
                raise flow.Unsupported(kind.replace("_", " "))
            if kind in FUNCTIONS or not _holds_statements(kind):
                continue  # a jump is a statement: expressions (a 100,000-element literal) hold none
            loop = in_loop or kind == "for_statement"
            switch = in_switch or kind in ("expression_switch_statement", "type_switch_statement", "select_statement")
            stack.extend((child, loop, switch) for child in current.named_children)
        if not escapes:
            return flow.Seq()
        return flow.Branch([flow.Seq(), *(flow.Jump(kind) for kind in sorted(escapes))])

    def _if_statement(self, node: tree_sitter.Node) -> flow.Node:
        return flow.Seq([self.statement(node.child_by_field_name("initializer")),
                         self._reads(node.child_by_field_name("condition")),
                         flow.Branch([self.statement(node.child_by_field_name("consequence")),
                                      self.statement(node.child_by_field_name("alternative"))])])

    def _for_statement(self, node: tree_sitter.Node) -> flow.Node:
        body = self.statement(node.child_by_field_name("body"))
        clause = next((c for c in node.named_children if c.type in ("for_clause", "range_clause")), None)
        if clause is None:  # `for cond {}` or `for {}`
            condition = next((c for c in node.named_children if c.id != node.child_by_field_name("body").id), None) \
                if node.child_by_field_name("body") is not None else None
            return flow.Loop(body=body, head=self._reads(condition))
        if clause.type == "range_clause":
            if clause.id in self.assigned:
                return flow.Seq([self._reads(clause.child_by_field_name("right")),
                                 flow.Loop(body=flow.Seq([self._assign(NOT_PLAIN), body]))])
            return flow.Seq([self._reads(clause), flow.Loop(body=body)])
        return flow.Seq([self.statement(clause.child_by_field_name("initializer")),
                         flow.Loop(body=body, head=self._reads(clause.child_by_field_name("condition")),
                                   update=self.statement(clause.child_by_field_name("update")))])

    def _switch(self, node: tree_sitter.Node, cases: tuple[str, ...], exhaustive_without_default: bool) -> flow.Node:
        groups: list[flow.Node] = []
        exhaustive = exhaustive_without_default
        heads = []
        for child in node.named_children:
            if child.type in cases or child.type == "default_case":
                exhaustive = exhaustive or child.type == "default_case"
                value = child.child_by_field_name("value") or child.child_by_field_name("communication")
                groups.append(flow.Seq([self._reads(value) if value is not None and value.type not in _ASSIGNING
                                        else self.statement(value),
                                        *(self.statement(c) for c in child.named_children
                                          if value is None or c.id != value.id)]))
            elif child.type != "comment":
                heads.append(self.statement(child) if child.type in _ASSIGNING or child.id in self.assigned
                             else self._reads(child))
        return flow.Seq([*heads, flow.Switch(groups, fallthrough=False, exhaustive=exhaustive)])

    def _expression_switch_statement(self, node: tree_sitter.Node) -> flow.Node:
        return self._switch(node, ("expression_case",), False)

    def _type_switch_statement(self, node: tree_sitter.Node) -> flow.Node:
        return self._switch(node, ("type_case",), False)

    def _select_statement(self, node: tree_sitter.Node) -> flow.Node:
        return self._switch(node, ("communication_case",), True)  # select waits until one case runs

    def _labeled_statement(self, node: tree_sitter.Node) -> flow.Node:
        inner = [c for c in node.named_children if c.type != "label_name"]
        return self.statement(inner[0]) if inner else flow.Seq()

    def _return_statement(self, node: tree_sitter.Node) -> flow.Node:
        return flow.Seq([self._reads(node.named_children[0] if node.named_children else None), flow.Jump("return")])

    def _break_statement(self, node: tree_sitter.Node) -> flow.Node:
        if node.named_children:
            raise flow.Unsupported("a labelled jump")
        return flow.Jump("break")

    def _continue_statement(self, node: tree_sitter.Node) -> flow.Node:
        if node.named_children:
            raise flow.Unsupported("a labelled jump")
        return flow.Jump("continue")

"""The statements of one Python scope (a module, a function or a class body) as `rmqlint.flow` nodes, for one
name: which of its assignments reach a read (`if refund: tag = "Refunded"` / `else: tag = "Settled"`).

Statements are translated as the interpreter runs them: `if`/`elif`/`else`, `for`/`while` (with `else`), `try`
(`except`, `else`, `finally`), `with`, `match`, `return`/`raise`/`break`/`continue`. The name's bindings other
than plain assignments (loop targets, `with ... as`, imports) never get here: the index treats those names as
unknown already. A name a `match` pattern captures raises `flow.Unsupported`.
"""

from __future__ import annotations

import libcst as cst

from rmqlint import flow
from rmqlint.frontends.python.walk import children

# The value of an augmented assignment (`tag += "x"`) or an unpacking: a value, but not one we know.
NOT_PLAIN = object()


def reaching_values(body: cst.CSTNode, name: str, use: cst.CSTNode | None,
                    assignments: int) -> list[object]:
    """The value expressions (or `NOT_PLAIN`) of the assignments of `name` in the scope whose statements are
    `body` that may reach `use` (None: the end of the scope), in source order. `assignments` is how many plain
    assignments the scope's index counted: when the statements hold fewer (a function assigns the name through
    `global`), raises `flow.Unsupported`, as for anything else not modelled."""
    translation = _Translation(name, _ancestors(body, use) if use is not None else set())
    program = translation.block(body)
    if translation.counted != assignments:
        raise flow.Unsupported(f"{name} is also assigned outside these statements")
    at_use, at_end = flow.reaching(program)
    if use is not None and not translation.use_seen:
        raise flow.Unsupported("the read is not in a statement of this scope")
    return [a.value for a in (at_use if use is not None else at_end)]


def _ancestors(root: cst.CSTNode, target: cst.CSTNode) -> set[int]:
    """The ids of the nodes on the path from `root` down to `target` (one walk; libcst keeps no parent links)."""
    stack: list[tuple[cst.CSTNode, int]] = [(root, -1)]
    parents: dict[int, int] = {}
    nodes: dict[int, cst.CSTNode] = {}
    while stack:
        node, parent = stack.pop()
        parents[id(node)] = parent
        nodes[id(node)] = node
        if node is target:
            path = set()
            current = id(node)
            while current != -1:
                path.add(current)
                current = parents[current]
            return path
        stack.extend((child, id(node)) for child in children(node))
    return set()


class _Translation:
    def __init__(self, name: str, path_to_use: set[int]):
        self.name = name
        self.path = path_to_use
        self.order = 0
        self.counted = 0  # plain assignments met
        self.use_seen = False

    def _assign(self, value: object) -> flow.Assign:
        self.order += 1
        return flow.Assign(value, self.order)

    def _reads(self, *nodes: cst.CSTNode | None) -> flow.Node:
        if any(node is not None and id(node) in self.path for node in nodes):
            self.use_seen = True
            return flow.Use()
        return flow.Seq()

    def block(self, node: cst.CSTNode | None) -> flow.Node:
        """A module, an indented block, a one-line suite, or an `else` clause."""
        if node is None:
            return flow.Seq()
        if isinstance(node, (cst.Else, cst.Finally)):
            return self.block(node.body)
        if isinstance(node, (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite)):
            return flow.Seq([self.statement(s) for s in node.body])
        return self.statement(node)

    def statement(self, node: cst.CSTNode) -> flow.Node:
        if isinstance(node, cst.SimpleStatementLine):
            return flow.Seq([self.small(s) for s in node.body])
        if isinstance(node, cst.BaseSmallStatement):
            return self.small(node)
        if isinstance(node, cst.If):
            return flow.Seq([self._reads(node.test),
                             flow.Branch([self.block(node.body), self.block(node.orelse)])])
        if isinstance(node, cst.For):
            return flow.Seq([self._reads(node.iter),
                             flow.Loop(body=self.block(node.body), head=self._reads(node.target),
                                       orelse=self.block(node.orelse))])
        if isinstance(node, cst.While):
            return flow.Loop(body=self.block(node.body), head=self._reads(node.test), orelse=self.block(node.orelse))
        if isinstance(node, (cst.Try, cst.TryStar)):
            handlers = [flow.Seq([self._reads(h.type), self.block(h.body)]) for h in node.handlers]
            return flow.Try(self.block(node.body), handlers=handlers, orelse=self.block(node.orelse),
                            final=self.block(node.finalbody) if node.finalbody is not None else None)
        if isinstance(node, cst.With):
            return flow.Seq([self._reads(*node.items), self.block(node.body)])
        if isinstance(node, cst.Match):
            return self._match(node)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return self._reads(node)  # a read here is in its decorators, defaults or bases: run at definition
        return self._reads(node)

    def small(self, node: cst.BaseSmallStatement) -> flow.Node:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
            if any(isinstance(t, cst.Name) and t.value == self.name for t in targets):
                self.counted += 1
                return flow.Seq([self._reads(node.value, *targets), self._assign(node.value)])
            if any(self._binds(t) for t in targets):
                return flow.Seq([self._reads(node.value), self._assign(NOT_PLAIN)])
            return self._reads(node)
        if isinstance(node, cst.AnnAssign):
            if node.value is not None and isinstance(node.target, cst.Name) and node.target.value == self.name:
                self.counted += 1
                return flow.Seq([self._reads(node.value), self._assign(node.value)])
            return self._reads(node)
        if isinstance(node, cst.AugAssign):
            if isinstance(node.target, cst.Name) and node.target.value == self.name:
                return flow.Seq([self._reads(node), self._assign(NOT_PLAIN)])
            return self._reads(node)
        if isinstance(node, (cst.Return, cst.Raise)):
            return flow.Seq([self._reads(node), flow.Jump("return")])
        if isinstance(node, cst.Break):
            return flow.Jump("break")
        if isinstance(node, cst.Continue):
            return flow.Jump("continue")
        if isinstance(node, cst.Del) and self._binds(node.target):
            return flow.Seq([self._reads(node), self._assign(None)])
        return self._reads(node)

    def _binds(self, target: cst.BaseExpression) -> bool:
        if isinstance(target, cst.Name):
            return target.value == self.name
        if isinstance(target, (cst.Tuple, cst.List)):
            return any(self._binds(e.value) for e in target.elements)
        if isinstance(target, cst.StarredElement):
            return self._binds(target.value)
        return False

    def _match(self, node: cst.Match) -> flow.Node:
        arms = []
        irrefutable = False
        for case in node.cases:
            if self._captures(case.pattern):
                raise flow.Unsupported(f"a match pattern captures {self.name}")
            arms.append(flow.Seq([self._reads(case.pattern, case.guard), self.block(case.body)]))
            if case.guard is None and isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None:
                irrefutable = True  # `case _:` or `case x:`
        if not irrefutable:
            arms.append(flow.Seq())
        return flow.Seq([self._reads(node.subject), flow.Branch(arms)])

    def _captures(self, pattern: cst.CSTNode) -> bool:
        stack = [pattern]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.MatchAs, cst.MatchStar)) and isinstance(current.name, cst.Name) \
                    and current.name.value == self.name:
                return True
            if isinstance(current, cst.MatchMapping) and isinstance(current.rest, cst.Name) \
                    and current.rest.value == self.name:
                return True
            stack.extend(children(current))
        return False

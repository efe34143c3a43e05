"""Positions of the few libcst nodes that facts cite, in one code generation pass.

libcst's `PositionProvider` records a `CodeRange` for every node of the module; on a large module that costs
more than the parse itself (measured 4x a plain code generation). Facts cite a few nodes only, so the index hands
out placeholder locations while it analyses (`PythonIndex.loc`) and resolves them all at the end with one pass of
`TargetedPositions`: the same code generation and the same rules as `PositionProvider` (a node's syntactic range,
hoisted from its first or last child where libcst says so), but ranges are kept only for the wanted nodes and the
statement-level nodes that ranges are hoisted from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

import libcst as cst
from libcst._nodes.internal import CodegenState

# Statements, and the clauses a compound statement's range may end with (libcst hoists a `try`'s end from its last
# handler, `else` or `finally`).
_STATEMENT_LEVEL = (cst.BaseSuite, cst.BaseStatement, cst.BaseSmallStatement, cst.MatchCase, cst.ExceptHandler,
                    cst.ExceptStarHandler, cst.Else, cst.Finally)


def concrete_types(bases: tuple[type, ...]) -> frozenset[type]:
    """The classes `bases` and all their subclasses: an exact-type test that stands for isinstance."""
    found, work = set(), list(bases)
    while work:
        cls = work.pop()
        work.extend(cls.__subclasses__())
        found.add(cls)
    return frozenset(found)


# Compared by exact type: isinstance against libcst's abstract bases costs an ABC check per node.
_STATEMENT_TYPES = concrete_types(_STATEMENT_LEVEL)


@dataclass(frozen=True)
class Span:
    """1-based lines; 0-based columns (as libcst's `CodeRange`)."""

    line: int
    column: int
    end_line: int
    end_column: int


class _Ignore:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False


_IGNORE = _Ignore()


class _Record:
    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: "TargetedPositions", node, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc) -> bool:
        state = self.state
        start = self.start
        end = (state.line, state.column)
        if self.start_node is not None and id(self.start_node) in state.spans:
            hoisted = state.spans[id(self.start_node)]
            start = (hoisted.line, hoisted.column)
        if self.end_node is not None and id(self.end_node) in state.spans:
            hoisted = state.spans[id(self.end_node)]
            end = (hoisted.end_line, hoisted.end_column)
        state.spans[id(self.node)] = Span(start[0], start[1], end[0], end[1])
        return False


@dataclass(frozen=False)
class TargetedPositions(CodegenState):
    wanted: frozenset = frozenset()  # ids of the nodes whose spans are wanted
    spans: dict = field(default_factory=dict)  # node id -> Span
    line: int = 1
    column: int = 0
    stack: list = field(default_factory=list)

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self._advance(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._advance(value)

    def _advance(self, value: str) -> None:
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
            return
        lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.line += len(lines) - 1
        self.column = len(lines[-1])

    def _keeps(self, node: cst.CSTNode) -> bool:
        return type(node) in _STATEMENT_TYPES or id(node) in self.wanted

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self._keeps(node):
            self.stack.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if self._keeps(node):
            line, column = self.stack.pop()
            if id(node) not in self.spans:  # a syntactic range recorded inside takes precedence
                self.spans[id(node)] = Span(line, column, self.line, self.column)

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None):
        if not self._keeps(node):
            return _IGNORE
        return _Record(self, node, start_node, end_node)


def spans_of(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, Span]:
    """node id -> its syntactic span, for every node of `nodes` (all of them nodes of `module`)."""
    wanted = frozenset(id(n) for n in nodes)
    if not wanted:
        return {}
    state = TargetedPositions(default_indent=module.default_indent, default_newline=module.default_newline,
                              wanted=wanted)
    module._codegen(state)
    return {key: span for key, span in state.spans.items() if key in wanted}

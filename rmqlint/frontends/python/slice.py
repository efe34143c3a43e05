"""Which top-level statements of a Python module can hold facts, found with the stdlib parser, so that libcst (slow,
and about 500 bytes of memory per byte of source) parses only those: a 4 MB module with one consumer in it costs
the stdlib parse and a small libcst parse, not a 30-second, 2 GB one.

A statement is kept when
- it imports RocketMQ, or reads a name that a kept statement binds (a client, a helper that makes one, a class
  holding one, a function called with one: they may configure a client);
- it is an import, or binds module names outside a function or class definition with small values (`TOPIC =
  "orders"`, the branches of a top-level `if`; not a table of a thousand lines): the constants other modules may
  refer to;
- it binds a name that a kept statement reads or binds (its value, its callback, its base class: every statement
  binding that name, so that "assigned once" stays true), a `global` declaration in a function counting as one.
The kept statements are parsed together, in their order and with their own lines; `line_map` takes each line of the
slice back to the module's. Everything rmqlint reports about a module comes from these statements, so the facts of
the slice are the facts of the module (a name whose binders are all left out is one no kept statement reads, and
other modules see only the constants of kept statements: the others are big literals or code, Dynamic anyway).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from rmqlint.text import split_lines
# A module-level value bigger than this is data (a table, a generated literal), not a constant worth exporting; a
# container or a lambda never is one (its value is Dynamic to every reader).
_CONSTANT_LINES = 25
_CONSTANT_COLUMNS = 2000
_NOT_CONSTANT = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                 ast.Lambda)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class Slice:
    """The kept statements' lines, nothing between them (comments and blank lines between top-level statements are
    left out too): each top-level statement libcst finds in `text` starts at the line `starts` gives."""

    text: str
    line_map: list[int]  # slice line (1-based; index 0 unused) -> module line
    starts: list[int]  # per top-level statement of the slice (statements sharing a line are one), its first line
    statements: list[ast.stmt]  # the kept statements, for checks before libcst


@dataclass
class _Statement:
    node: ast.stmt
    first: int  # first line (its decorators included)
    last: int
    binds: set[str]
    reads: set[str]
    rocketmq: bool  # imports RocketMQ
    constant: bool  # an import, or module names bound outside definitions, without a data literal


def slice_module(text: str, tree: ast.Module) -> Slice:
    """The statements of `tree` (parsed from `text`) worth analysing, as one text."""
    statements = [_describe(node) for node in tree.body]
    if any(s.rocketmq and "*" in s.binds for s in statements):
        return _join(text, statements)  # `from rocketmq.client import *`: any name may be a client
    binders: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for index, statement in enumerate(statements):
        for name in statement.binds:
            binders.setdefault(name, []).append(index)
        for name in statement.reads:
            readers.setdefault(name, []).append(index)

    # Each name is followed once: a module assigning one name thousands of times is linear, not quadratic.
    relevant = {i for i, s in enumerate(statements) if s.rocketmq}
    work, followed = list(relevant), set()
    while work:  # forward: what reads a name a relevant statement binds may configure a client
        for name in statements[work.pop()].binds - followed:
            followed.add(name)
            for reader in readers.get(name, ()):
                if reader not in relevant:
                    relevant.add(reader)
                    work.append(reader)
    kept = relevant | {i for i, s in enumerate(statements) if s.constant}
    work, followed = list(kept), set()
    while work:  # backward: every binder of every name a kept statement reads or binds
        statement = statements[work.pop()]
        for name in (statement.reads | statement.binds) - followed:
            followed.add(name)
            for binder in binders.get(name, ()):
                if binder not in kept:
                    kept.add(binder)
                    work.append(binder)

    return _join(text, [statements[i] for i in sorted(kept)])


def whole_module(text: str, tree: ast.Module) -> Slice:
    """Every statement of `tree`, as a slice (for a module read whole)."""
    return _join(text, [_describe(node) for node in tree.body])


def _join(text: str, chosen: list["_Statement"]) -> Slice:
    lines, ends = split_lines(text)
    pieces: list[str] = []
    line_map = [0]
    starts: list[int] = []
    last_taken = 0
    for statement in chosen:
        if statement.first > last_taken:
            starts.append(len(line_map))
        first = max(statement.first, last_taken + 1)  # `a = 1; b = 2` share a line: one statement to libcst
        for number in range(first, statement.last + 1):
            pieces.append(lines[number - 1] + (ends[number - 1] if number - 1 < len(ends) else "\n"))
            line_map.append(number)
        last_taken = max(last_taken, statement.last)
    return Slice("".join(pieces), line_map, starts, [s.node for s in chosen])


def _describe(node: ast.stmt) -> _Statement:
    """What a top-level statement binds at module level and reads (anywhere in it: a superset), and whether it
    imports RocketMQ. Names bound inside functions, lambdas, classes and comprehensions are theirs, except through
    `global` (and `:=` in a comprehension, which binds in the enclosing scope)."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    binds: set[str] = set()
    reads: set[str] = set()
    rocketmq = False
    stack: list[tuple[ast.AST, str]] = [(node, "module")]  # node, the scope it runs in: module | comprehension | local
    while stack:
        current, scope = stack.pop()
        kind = type(current)
        if kind is ast.Name:
            if isinstance(current.ctx, ast.Load):
                reads.add(current.id)
            elif scope == "module":
                binds.add(current.id)
            continue
        inner = "local" if scope == "local" else "comprehension"
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            if scope == "module":
                binds.add(current.name)
            outer = [*current.decorator_list]
            if kind is ast.ClassDef:
                outer += [*current.bases, *current.keywords]
            else:
                outer += [*current.args.defaults, *(d for d in current.args.kw_defaults if d is not None)]
                if current.returns is not None:
                    outer.append(current.returns)
            stack.extend((child, scope) for child in outer)
            stack.extend((child, "local") for child in current.body)
            continue
        if kind is ast.Lambda:
            stack.extend((child, scope) for child in (*current.args.defaults,
                                                      *(d for d in current.args.kw_defaults if d is not None)))
            stack.append((current.body, "local"))
            continue
        if kind in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
            stack.extend((child, inner) for child in ast.iter_child_nodes(current))
            continue
        if kind is ast.NamedExpr:
            if scope != "local" and isinstance(current.target, ast.Name):
                binds.add(current.target.id)  # `:=` binds in the enclosing function or module
            stack.append((current.value, scope))
            continue
        if kind is ast.Global:
            binds.update(current.names)  # a function that may assign module names
        elif kind is ast.Import or kind is ast.ImportFrom:
            module = current.module if kind is ast.ImportFrom and current.level == 0 else None
            if kind is ast.Import:
                rocketmq = rocketmq or any(a.name.split(".")[0] == "rocketmq" for a in current.names)
            elif module is not None and module.split(".")[0] == "rocketmq":
                rocketmq = True
            if scope == "module":
                binds.update((a.asname or a.name).split(".")[0] for a in current.names)
        elif scope == "module" and kind is ast.ExceptHandler and current.name:
            binds.add(current.name)
        elif scope == "module" and kind in (ast.MatchAs, ast.MatchStar) and current.name:
            binds.add(current.name)
        elif scope == "module" and kind is ast.MatchMapping and current.rest:
            binds.add(current.rest)
        stack.extend((child, scope) for child in ast.iter_child_nodes(current))
    constant = isinstance(node, (ast.Import, ast.ImportFrom)) or (
        not isinstance(node, _DEFINITIONS) and _binds_without_data(node))
    return _Statement(node, first, node.end_lineno or node.lineno, binds, reads, rocketmq, constant)


def _binds_without_data(node: ast.stmt) -> bool:
    """Module-level code that binds names to small values (`TOPIC = "orders"`, a top-level `if`)."""
    stack: list[ast.AST] = [node]
    binds = False
    while stack:
        current = stack.pop()
        if isinstance(current, (*_DEFINITIONS, ast.expr)):
            continue
        if isinstance(current, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = current.targets if isinstance(current, ast.Assign) else [current.target]
            if any(isinstance(t, ast.Name) for t in targets):
                value = current.value
                if value is not None and (
                        isinstance(value, _NOT_CONSTANT)
                        or (value.end_lineno or value.lineno) - value.lineno >= _CONSTANT_LINES
                        or (value.end_col_offset or 0) - value.col_offset > _CONSTANT_COLUMNS):
                    return False
                binds = True
        stack.extend(ast.iter_child_nodes(current))
    return binds

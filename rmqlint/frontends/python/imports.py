"""A Python module's top-level imports and names, from the stdlib tree: the names imports bind (`FileFacts.imports`),
every name the module binds and whether that is an `import` of the name alone (`FileFacts.module_names`), and the
places one more `import x` can go (`FileFacts.import_slots`): on a line of its own after each top-level import,
and before the first statement after the docstring and `from __future__` imports. A fix that writes `uuid.x` takes
the last place before its own statement, so the name is bound before that code runs, as ruff's importer does."""

from __future__ import annotations

import ast

from rmqlint.spans import Slot
from rmqlint.text import TextBytes, split_lines


def bound(tree: ast.Module) -> dict[str, str]:
    """Name -> what it imports, for `import a.b` (binds `a`), `import a as b`, `from a import b [as c]`."""
    names: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            for alias in statement.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    return names


def module_names(tree: ast.Module, text: TextBytes) -> dict[str, int]:
    """Each name the module binds outside its functions and classes -> the byte offset where the line of the first
    top-level `import name` binding it ends; -1 when anything else binds it too (an assignment, a definition, an
    import under that name of something else, an import in a block, a `global` statement in a function), so that
    what the name is at a given place is not one thing. "*" -> -1 after a star import of a module other than
    RocketMQ's (any name may come from it; the RocketMQ client packages bring their API).

    A walk of the statements, not `symtable`: that parses the module again, and says neither where a name is bound
    nor by what."""
    lines: list[str] = []
    names: dict[str, int] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            end = statement.end_lineno or statement.lineno
            lines = lines or split_lines(text.text)[0]
            for alias in statement.names:
                head = alias.name.split(".")[0]
                if alias.asname in (None, alias.name) and names.get(head, 0) >= 0:
                    names.setdefault(head, text.offset(text.index(end, 1) + len(lines[end - 1])))
                else:
                    names[alias.asname or head] = -1
        else:
            for name in _bound(statement):
                names[name] = -1
    if "global" in text.text:
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                names.update((name, -1) for name in node.names)
    if ":=" in text.text:  # an assignment expression outside a function binds a module name
        for node in _outside_definitions(tree.body):
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                names[node.target.id] = -1
    return names


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _bound(statement: ast.stmt):
    """The names a module-level statement binds (its nested blocks included), other than by a top-level import."""
    work: list[ast.AST] = [statement]
    while work:
        node = work.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    if not (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "rocketmq"):
                        yield "*"
                else:
                    yield alias.asname or alias.name.split(".")[0]
            continue
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name
        elif isinstance(node, ast.match_case):
            targets = [node.pattern]
        for target in targets:
            if type(target) is ast.Name:  # most targets: no walk
                yield target.id
                continue
            for part in ast.walk(target):
                if isinstance(part, ast.Name):
                    yield part.id
                elif isinstance(part, (ast.MatchAs, ast.MatchStar)) and part.name:
                    yield part.name
                elif isinstance(part, ast.MatchMapping) and part.rest:
                    yield part.rest
        for field in _BLOCKS:
            work.extend(getattr(node, field, ()))


def _outside_definitions(body: list[ast.stmt]):
    """Every node of `body` outside function, class and lambda bodies."""
    work: list[ast.AST] = list(body)
    while work:
        node = work.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            work.extend(ast.iter_child_nodes(node))


def slots(tree: ast.Module, text: TextBytes) -> list[Slot]:
    """Where one more `import x` can go, in source order: after each top-level import, and before the first
    statement after the docstring and `from __future__` imports (a place whose lines hold another statement too
    gives none)."""
    body = tree.body
    lines, ends = split_lines(text.text)
    first = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else 0
    while first < len(body) and isinstance(body[first], ast.ImportFrom) and body[first].module == "__future__":
        first += 1
    found: list[Slot] = []
    for at, statement in enumerate(body):
        before = at == first
        if not (before or isinstance(statement, (ast.Import, ast.ImportFrom))):
            continue
        begin, last = statement.lineno, statement.end_lineno or statement.lineno
        if statement.col_offset != 0 or _shares_lines(body, at, begin, last):
            continue  # another statement on its lines: no line of its own for the import
        span = text.span(text.index(begin, 1), text.index(last, 1) + len(lines[last - 1]))
        if span is None:
            continue
        newline = ends[last - 1] if last - 1 < len(ends) else (ends[0] if ends else "\n")
        if before:
            found.append(Slot(span, "import", "", newline, before=True))
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            found.append(Slot(span, "import", newline))
    return found


def _shares_lines(body: list[ast.stmt], at: int, first: int, last: int) -> bool:
    before = body[at - 1] if at > 0 else None
    after = body[at + 1] if at + 1 < len(body) else None
    return (before is not None and (before.end_lineno or before.lineno) >= first) or \
        (after is not None and after.lineno <= last)

"""A Python module's top-level imports, from the stdlib tree: the names they bind (`FileFacts.imports`), and
where one more `import x` goes (`FileFacts.import_slot`): on a line of its own after the last top-level import,
or, in a module without one, before the first statement after the docstring."""

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


def slot(tree: ast.Module, text: TextBytes) -> Slot | None:
    body = tree.body
    if not body:
        return None
    lines, ends = split_lines(text.text)
    imports = [i for i, s in enumerate(body) if isinstance(s, (ast.Import, ast.ImportFrom))]
    if imports:
        at, before = imports[-1], False
    else:
        docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str)
        at, before = (1 if docstring else 0), True
        if at >= len(body):
            return None
    statement = body[at]
    first, last = statement.lineno, statement.end_lineno or statement.lineno
    if statement.col_offset != 0 or _shares_lines(body, at, first, last):
        return None  # another statement on its lines: no line of its own for the import
    span = text.span(text.index(first, 1), text.index(last, 1) + len(lines[last - 1]))
    if span is None:
        return None
    newline = ends[last - 1] if last - 1 < len(ends) else (ends[0] if ends else "\n")
    if before:
        return Slot(span, "import", "", newline, before=True)
    return Slot(span, "import", newline)


def _shares_lines(body: list[ast.stmt], at: int, first: int, last: int) -> bool:
    before = body[at - 1] if at > 0 else None
    after = body[at + 1] if at + 1 < len(body) else None
    return (before is not None and (before.end_lineno or before.lineno) >= first) or \
        (after is not None and after.lineno <= last)

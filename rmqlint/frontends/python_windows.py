"""Large Python modules analysed in windows of top-level statements, so that memory stays bounded.

libcst keeps about 500 bytes per byte of source: a 4 MB module would hold 2 GB. Above `LARGE_MODULE_CHARS` the
module is planned from the stdlib's `ast` (fast and small) and analysed window by window, each window a module of
its own that libcst parses and `python_parse` analyses, with the same results as the whole module would give:

- Units: top-level statements, merged where they share a line (`a = 1; b = 2`).
- Dropped: a unit larger than `SMALL_UNIT_CHARS` that neither mentions RocketMQ nor is linked to what does (a
  generated data table): it binds no name a kept unit uses, uses no name a kept unit binds. Anything such a unit
  binds is a name no fact depends on.
- Windows: kept units in order, cut (once a window holds `WINDOW_CHARS`) only where no module-level name that can
  hold an object (anything but a function, a class, an import or a literal constant) is still live: every object
  a window configures is created in that window, so each call finds its object as it would in the whole module.
- Preamble: the units before a window that define the functions, classes, imports and literal constants the
  window uses (transitively), analysed with it but not reported again.
- Counts: a module-level name assigned N times in the whole module is assigned N times in every window
  (`rebound`), so it is never taken for a constant because a window saw one assignment only.
A module whose names link everything to everything (no safe cut) is one window: exact, just not smaller.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

LARGE_MODULE_CHARS = 512 * 1024
WINDOW_CHARS = 192 * 1024
SMALL_UNIT_CHARS = 4 * 1024


@dataclass
class Unit:
    first: int  # 1-based line, first decorator included
    last: int
    binds: set[str] = field(default_factory=set)
    uses: set[str] = field(default_factory=set)
    object_binds: set[str] = field(default_factory=set)  # names bound to something that may hold an object
    chars: int = 0
    relevant: bool = False
    definitions: set[str] = field(default_factory=set)  # bound by def / class statements


@dataclass
class Window:
    preamble: list[Unit]
    units: list[Unit]

    @property
    def first(self) -> int:
        return self.units[0].first

    @property
    def last(self) -> int:
        return self.units[-1].last


@dataclass
class WindowPlan:
    windows: list[Window]
    rebound: dict[str, int]  # module-level name -> how many times the whole module binds it
    global_names: set[str]  # module names rebound from inside functions (`global`): never cut across
    dropped: set[str] = field(default_factory=set)  # names only dropped units bind (not functions or classes)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def _names(stmt: ast.stmt) -> tuple[set[str], set[str], set[str], set[str]]:
    """(module-level names the statement binds, names it uses anywhere, the bound names that may hold an object,
    module names a function in it rebinds with `global`)."""
    binds: set[str] = set()
    uses: set[str] = set()
    globals_: set[str] = set()
    # Module scope: the statement and the bodies of module-level if/for/while/try/with, not nested scopes.
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds.add(node.name)
            stack.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                stack.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None)
            else:
                stack.extend(node.bases)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            binds.update(a.asname or a.name.split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            binds.add(node.id)
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    for sub in ast.walk(stmt):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            uses.add(sub.id)
        elif isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
            binds.add(sub.target.id)  # may bind in the module even from a comprehension: counted, to be safe
        elif isinstance(sub, ast.Global):
            globals_.update(sub.names)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and _literal(stmt.value):
        object_binds: set[str] = set()
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
        object_binds = set()
    else:
        object_binds = set(binds)  # a call's result, a loop variable, anything bound in a compound statement
    return binds, uses, object_binds, globals_


def _literal(value: ast.AST | None) -> bool:
    """A constant that holds no object: a number or string literal, or `+` of such and names (of constants)."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.JoinedStr):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return all(_literal(v) or isinstance(v, (ast.Name, ast.Attribute)) for v in (value.left, value.right))
    return False


def plan_windows(tree: ast.Module, text: str) -> WindowPlan:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    units: list[Unit] = []
    global_names: set[str] = set()
    for stmt in tree.body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        last = stmt.end_lineno or stmt.lineno
        binds, uses, object_binds, globals_ = _names(stmt)
        global_names |= globals_
        if units and first <= units[-1].last:  # shares a line with the unit before: one unit
            unit = units[-1]
            unit.last = max(unit.last, last)
        else:
            unit = Unit(first, last)
            units.append(unit)
        unit.binds |= binds
        unit.uses |= uses
        unit.object_binds |= object_binds
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            unit.definitions.add(stmt.name)
    rebound: dict[str, int] = {}
    for unit in units:
        unit.chars = starts[min(unit.last, len(lines))] - starts[unit.first - 1]
        unit.relevant = "rocketmq" in text[starts[unit.first - 1]:starts[min(unit.last, len(lines))]]
        for name in unit.binds:
            rebound[name] = rebound.get(name, 0) + 1
    for name in global_names:  # also assigned from inside a function
        rebound[name] = rebound.get(name, 0) + 1

    kept = _keep(units)
    objects = set(global_names)
    for unit in kept:
        objects |= unit.object_binds
    objects |= {name for name, count in rebound.items() if count > 1}
    windows = _cut(kept, objects)
    kept_ids = {id(u) for u in kept}
    kept_names = set().union(*(u.binds for u in kept))
    dropped = set().union(*(u.binds - u.definitions for u in units if id(u) not in kept_ids)) - kept_names
    return WindowPlan(windows, rebound, global_names, dropped)


def _keep(units: list[Unit]) -> list[Unit]:
    """Small units, and large ones linked to what mentions RocketMQ."""
    keep = [u.relevant or u.chars <= SMALL_UNIT_CHARS for u in units]
    changed = True
    while changed:
        changed = False
        bound = set().union(*(u.binds for u, k in zip(units, keep) if k))
        used = set().union(*(u.uses for u, k in zip(units, keep) if k))
        for i, unit in enumerate(units):
            if not keep[i] and (unit.binds & (used | bound) or unit.uses & bound):
                keep[i] = changed = True
    return [u for u, k in zip(units, keep) if k]


def _cut(units: list[Unit], objects: set[str]) -> list[Window]:
    # live[i]: object names used at or after unit i before being bound again (backward liveness)
    live: list[set[str]] = [set() for _ in range(len(units) + 1)]
    for i in range(len(units) - 1, -1, -1):
        unit = units[i]
        live[i] = (live[i + 1] - unit.binds) | (unit.uses & objects)
    windows: list[Window] = []
    start, size = 0, 0
    for i, unit in enumerate(units):
        if size >= WINDOW_CHARS and not live[i]:
            windows.append(Window([], units[start:i]))
            start, size = i, 0
        size += unit.chars
    if start < len(units):
        windows.append(Window([], units[start:]))
    for number, window in enumerate(windows):
        window.preamble = _preamble(units, units.index(window.units[0]), window.units, objects)
    return windows


def _preamble(units: list[Unit], start: int, window: list[Unit], objects: set[str]) -> list[Unit]:
    """Units before `start` that define (transitively) the names `window` uses, other than object names."""
    needed = set().union(*(u.uses for u in window)) - set().union(*(u.binds for u in window))
    chosen: set[int] = set()
    pending = set(needed)
    while pending:
        name = pending.pop()
        for i in range(start):
            if i not in chosen and name in units[i].binds and name not in objects:
                chosen.add(i)
                pending |= units[i].uses - needed
                needed |= units[i].uses
    return [units[i] for i in sorted(chosen)]


def window_text(window: Window, lines: list[str]) -> tuple[str, list[int]]:
    """The window's module text (preamble, then its units) and, for each of its lines (1-based, index 0 unused),
    the line of the file it comes from."""
    parts: list[str] = []
    line_map = [0]
    for unit in [*window.preamble, *window.units]:
        chunk = lines[unit.first - 1:unit.last]
        if chunk and not chunk[-1].endswith(("\n", "\r")):
            chunk = [*chunk[:-1], chunk[-1] + "\n"]
        parts.extend(chunk)
        line_map.extend(range(unit.first, unit.first + len(chunk)))
    return "".join(parts), line_map

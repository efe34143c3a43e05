"""Parsing one Python module into `FileFacts` (the heavy half of `rmqlint.frontends.python`): the input checks,
then libcst, then the index (`python_index`), the clients (`python_clients`) and listeners (`python_listeners`).

libcst's tree walk recurses and its native parser can overflow the C stack on absurdly nested input, so the
stdlib parser (which has nesting limits) checks the text and its depth first.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings

import libcst as cst

from rmqlint.facts import FileFacts, Location, Problem
from rmqlint.frontends.python_clients import ClientCollector
from rmqlint.frontends.python_index import PythonIndex, api_of
from rmqlint.frontends.python_listeners import callbacks
from rmqlint.frontends.python_windows import LARGE_MODULE_CHARS, WindowPlan, plan_windows, window_text
from rmqlint.text import add_suppressions, decode
from rmqlint.values import Dynamic

# Deeper than this (stdlib AST levels, or strings in one implicit concatenation) is not handed to libcst: its
# tree walk recurses (a few Python frames per level) and slows down more than linearly (2,000 levels of `a + b`
# take seconds); its native parser overflows the C stack near 10,000 levels. 500 levels keep long `elif` chains.
MAX_DEPTH = 500
# libcst runs with at least this recursion limit, enough for MAX_DEPTH levels (measured safe up to 4,000).
RECURSION_LIMIT = 10_000


def parse_python(path: str, data: bytes) -> FileFacts:
    facts = FileFacts(path=path, language="python")
    try:
        _parse_into(facts, path, data)
    except RecursionError:
        facts.clients, facts.produced, facts.connections = [], [], []
        facts.problems.append(Problem("code nested too deeply to analyse", _loc(path, 1, 1)))
    except Exception as err:  # never a traceback for a user's file
        facts.clients, facts.produced, facts.connections = [], [], []
        facts.problems.append(Problem(f"could not analyse: {type(err).__name__}: {err}", _loc(path, 1, 1)))
    return facts


def _declared_encoding(data: bytes) -> str:
    """The encoding a `# -*- coding: gbk -*-` line declares (PEP 263), else UTF-8, as the interpreter reads it."""
    lines = iter(data.splitlines(keepends=True)[:2])
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError:  # an unknown encoding, or a BOM that contradicts the declaration
        return "utf-8"
    return "utf-8" if encoding == "utf-8-sig" else encoding


def _parse_into(facts: FileFacts, path: str, data: bytes) -> None:
    decoded = decode(path, data, what="Python source", encoding=_declared_encoding(data))
    if decoded.text is None:
        facts.problems.append(decoded.problem)
        return
    text = decoded.text
    if "rmqlint" in text:
        facts.suppressions = _suppressions(text)
    problem, tree = _precheck(path, text)
    if problem is not None:
        facts.problems.append(problem)
        return
    plan = plan_windows(tree, text) if len(text) > LARGE_MODULE_CHARS else None
    del tree  # the plan keeps line numbers and names only: the stdlib tree goes before libcst's comes
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        if plan is None:
            _analyse(path, cst.parse_module(text), facts)
        else:
            _analyse_windows(path, text, plan, facts)
    except cst.ParserSyntaxError as err:
        facts.problems.append(Problem(f"syntax error: {err.message}", _loc(path, err.raw_line, err.raw_column + 1)))
    finally:
        sys.setrecursionlimit(old_limit)


def _precheck(path: str, text: str) -> tuple[Problem | None, ast.Module | None]:
    """The stdlib parser rejects what libcst would choke on (and reports syntax errors with a position); its tree
    also plans the windows of a large module."""
    try:
        with warnings.catch_warnings():  # invalid escapes warn (an error under -W error): Python runs them
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except SyntaxError as err:
        line = err.lineno or 1
        return Problem(f"syntax error: {err.msg}", _loc(path, line, max(err.offset or 1, 1))), None
    except (RecursionError, MemoryError):
        return Problem("code nested too deeply to analyse", _loc(path, 1, 1)), None
    except ValueError as err:
        return Problem(f"not Python source: {err}", _loc(path, 1, 1)), None
    return _depth_problem(path, text, tree), tree


def _depth_problem(path: str, text: str, tree: ast.Module) -> Problem | None:
    strings = []
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.BoolOp):  # libcst nests `a or b or c` pairwise
            depth += len(node.values)
        if depth > MAX_DEPTH:
            line = getattr(node, "lineno", 1)
            return Problem(f"code nested more than {MAX_DEPTH} levels deep: not analysed", _loc(path, line, 1))
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            strings.append(node)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return _concatenation_problem(path, text, strings)


def _concatenation_problem(path: str, text: str, strings: list) -> Problem | None:
    """libcst nests implicitly concatenated strings pairwise: more than MAX_DEPTH of them in one literal is too
    deep. One literal of the stdlib tree is one concatenation; only those holding that many quotes are tokenized."""
    if text.count('"') + text.count("'") <= 2 * MAX_DEPTH:
        return None
    starts = None
    for node in strings:
        if node.end_lineno is None or (node.end_lineno == node.lineno
                                       and node.end_col_offset - node.col_offset <= 2 * MAX_DEPTH):
            continue
        if starts is None:
            starts = [0]
            for line in text.splitlines(keepends=True):
                starts.append(starts[-1] + len(line))
        segment = text[starts[node.lineno - 1]:starts[min(node.end_lineno, len(starts) - 1)]]
        if segment.count('"') + segment.count("'") <= 2 * MAX_DEPTH:
            continue
        run = 0
        for tok in _tokens(segment):
            if tok.type == tokenize.STRING:
                run += 1
                if run > MAX_DEPTH:
                    return Problem(f"more than {MAX_DEPTH} strings concatenated: not analysed",
                                   _loc(path, node.lineno, 1))
            elif tok.type not in (tokenize.NL, tokenize.COMMENT):
                run = 0
    return None


def _tokens(text: str):
    try:
        yield from tokenize.generate_tokens(io.StringIO(text).readline)
    except (tokenize.TokenError, SyntaxError):
        return


def _suppressions(text: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for tok in _tokens(text):
        if tok.type != tokenize.COMMENT:
            continue
        add_suppressions(found, tok.string, tok.start[0])
    return found


def _loc(path: str, line: int, column: int) -> Location:
    return Location(path, line, column, line, column + 1)


def _analyse(path: str, module: cst.Module, facts: FileFacts, line_map: list[int] | None = None,
             elsewhere: dict[str, int] | None = None) -> None:
    """The facts of one module (or window of one: `line_map` gives the file's lines, `elsewhere` how many more
    times the rest of the file assigns each module-level name)."""
    index = PythonIndex(path, module, line_map)
    for name, count in (elsewhere or {}).items():
        binding = index.root.bindings.get(name)
        if binding is not None and count > 0 and binding.definition is None:
            binding.values.extend([_ELSEWHERE] * count)
    ClientCollector(index).collect(facts)
    for name, binding in index.root.bindings.items():
        if binding.definition is not None:
            continue
        if binding.is_module or (binding.import_target is not None and api_of(binding.import_target)):
            continue
        if binding.values or binding.import_target is not None or binding.other:
            facts.constants[name] = index.lookup(name, index.root)
    callbacks(index, facts)
    index.resolve_locations(facts)
    facts.clients.sort(key=lambda c: (c.location.line, c.location.column))
    facts.produced.sort(key=lambda p: (p.location.line, p.location.column))
    facts.connections.sort(key=lambda c: (c.location.line, c.location.column))


_ELSEWHERE = cst.Name("__assigned_elsewhere_in_this_module__")  # stands for an assignment outside the window


def _analyse_windows(path: str, text: str, plan: WindowPlan, facts: FileFacts) -> None:
    """A large module, window by window (`python_windows`); each window reports what lies in it."""
    lines = text.splitlines(keepends=True)
    for window in plan.windows:
        source, line_map = window_text(window, lines)
        try:
            module = cst.parse_module(source)
        except cst.ParserSyntaxError as err:
            line = line_map[min(max(err.raw_line, 1), len(line_map) - 1)]
            facts.problems.append(Problem(f"syntax error: {err.message}", _loc(path, line, err.raw_column + 1)))
            continue
        binders: dict[str, int] = {}
        for unit in (*window.preamble, *window.units):
            for name in unit.binds:
                binders[name] = binders.get(name, 0) + 1
        elsewhere = {name: plan.rebound[name] - count for name, count in binders.items()}
        part = FileFacts(path=path, language="python")
        _analyse(path, module, part, line_map, elsewhere)
        del module

        def inside(location: Location) -> bool:
            return window.first <= location.line <= window.last

        facts.clients.extend(c for c in part.clients if inside(c.location))
        facts.produced.extend(p for p in part.produced if inside(p.location))
        facts.connections.extend(c for c in part.connections if inside(c.location))
        own = set().union(*(u.binds for u in window.units))
        facts.constants.update({k: v for k, v in part.constants.items() if k in own})
        facts.listener_classes.update({k: v for k, v in part.listener_classes.items() if inside(v.location)})
    for name in plan.dropped:
        facts.constants.setdefault(name, Dynamic("a large statement that does not concern RocketMQ: not analysed"))
    facts.clients.sort(key=lambda c: (c.location.line, c.location.column))
    facts.produced.sort(key=lambda p: (p.location.line, p.location.column))
    facts.connections.sort(key=lambda c: (c.location.line, c.location.column))

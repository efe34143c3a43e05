"""Parsing one Python module into `FileFacts` (the heavy half of `rmqlint.frontends.python`): the input checks and
the stdlib parse, the statements worth analysing (`python.slice`), then libcst on those, the index
(`python.index`), the clients (`python.clients`) and listeners (`python.listeners`).

The stdlib parser is fast and has nesting limits; libcst is slow, memory-hungry, recurses in its tree walk and can
overflow the C stack on absurdly nested input. So the stdlib parser reports syntax errors, picks the statements
that can hold facts and checks their depth, and libcst parses only those.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import gc
import io
import sys
import tokenize
import warnings

import libcst as cst

from rmqlint.facts import FileFacts, Location, Problem
from rmqlint.frontends.python import imports as python_imports
from rmqlint.frontends.python.identity import identity_uses
from rmqlint.frontends.python.index import PythonIndex, api_of
from rmqlint.frontends.python.listeners import callbacks
from rmqlint.frontends.python.slice import Slice, slice_module, whole_module
from rmqlint.frontends.python.templates import extract
from rmqlint.text import TextBytes, add_suppressions, decode, split_lines

# Deeper than this (stdlib AST levels, or strings in one implicit concatenation) is not handed to libcst: its
# tree walk recurses (a few Python frames per level) and slows down more than linearly (2,000 levels of `a + b`
# take seconds); its native parser overflows the C stack near 10,000 levels. 500 levels keep long `elif` chains.
MAX_DEPTH = 500
# libcst runs with at least this recursion limit, enough for MAX_DEPTH levels (measured safe up to 4,000).
RECURSION_LIMIT = 10_000
# libcst's native parser holds about 2.5 KB per syntax node at its peak, whatever the code looks like (peak RSS less
# the interpreter's: argparse.py, 100 KB and 11,600 stdlib AST nodes, 31 MB; 64 KB of `x=1` lines, 65,500 nodes,
# 150 MB), so what it is given is bounded by the nodes of the stdlib tree, not by bytes: 50,000 nodes (a module of
# about 400 KB of ordinary code) stay near 130 MB.
MAX_NODES = 50_000


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
    """The encoding a `# -*- coding: gbk -*-` line declares (PEP 263), else UTF-8: as the interpreter reads it."""
    lines = iter(data.splitlines(keepends=True)[:2])
    try:
        encoding, _lines = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError:  # an unknown encoding, or a byte-order mark that contradicts the declaration
        return "utf-8"
    return "utf-8" if encoding == "utf-8-sig" else encoding


def _parse_into(facts: FileFacts, path: str, data: bytes) -> None:
    decoded = decode(path, data, what="Python source", encoding=_declared_encoding(data[:4096]))
    if decoded.text is None:
        facts.problems.append(decoded.problem)
        return
    text = decoded.text
    tree, problem = _stdlib_parse(path, text)
    if problem is not None:
        facts.problems.append(problem)
        return
    if "rmqlint" in text:
        facts.suppressions = _suppressions(text, tree.body)
    positions = TextBytes(path, text, _declared_encoding(data[:4096]), 3 if data.startswith(codecs.BOM_UTF8) else 0)
    facts.imports = python_imports.bound(tree)
    facts.import_slots = python_imports.slots(tree, positions)
    facts.module_names = python_imports.module_names(tree, positions)
    sliced = slice_module(text, tree)
    del tree  # the kept statements stay referenced by the slice; the rest of the tree goes before libcst runs
    problem = _too_deep(path, sliced)
    sliced.statements = []  # the last references to the stdlib tree: freed before libcst builds its own
    if problem is not None:
        facts.problems.append(problem)
        return
    if not sliced.text.strip():
        return
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    # libcst's nodes hold no reference cycles (no parent links), so the cycle collector's passes over the
    # hundreds of thousands of nodes of a large module free nothing, yet took over a third of the time on a
    # module with 8,000 consumers, and a growing share as modules grow.
    collecting = gc.isenabled()
    gc.disable()
    try:
        module = cst.parse_module(sliced.text)
        _analyse(path, module, facts, sliced, positions)
    except cst.ParserSyntaxError as err:
        line = sliced.line_map[min(err.raw_line, len(sliced.line_map) - 1)]
        facts.problems.append(Problem(f"syntax error: {err.message}", _loc(path, line, err.raw_column + 1)))
    finally:
        if collecting:
            gc.enable()
        sys.setrecursionlimit(old_limit)


def module_index(path: str, data: bytes) -> PythonIndex | None:
    """A whole module's index, for the linker's lookups of calls (None when it is not Python libcst can read)."""
    decoded = decode(path, data, what="Python source", encoding=_declared_encoding(data[:4096]))
    if decoded.text is None:
        return None
    tree, problem = _stdlib_parse(path, decoded.text)
    if problem is not None or _too_deep(path, whole_module(decoded.text, tree)) is not None:
        return None
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        return PythonIndex(path, cst.parse_module(decoded.text), None, None)
    except (cst.ParserSyntaxError, RecursionError):
        return None
    finally:
        sys.setrecursionlimit(old_limit)


def _stdlib_parse(path: str, text: str) -> tuple[ast.Module | None, Problem | None]:
    """The stdlib parser rejects what libcst would choke on, and reports syntax errors with a position."""
    try:
        with warnings.catch_warnings():  # invalid escapes warn (an error under -W error): Python runs them
            warnings.simplefilter("ignore")
            return ast.parse(text), None
    except SyntaxError as err:
        line = err.lineno or 1
        return None, Problem(f"syntax error: {err.msg}", _loc(path, line, max(err.offset or 1, 1)))
    except (RecursionError, MemoryError):
        return None, Problem("code nested too deeply to analyse", _loc(path, 1, 1))
    except ValueError as err:
        return None, Problem(f"not Python source: {err}", _loc(path, 1, 1))


def _too_deep(path: str, sliced: Slice) -> Problem | None:
    """A kept statement nested deeper than libcst is given, a longer run of implicitly concatenated strings, or more
    syntax nodes than libcst is given."""
    stack = [(statement, 0) for statement in sliced.statements]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return Problem(f"too large to analyse: more than {MAX_NODES:,} syntax nodes in the statements that can "
                           "hold facts: not analysed", _loc(path, 1, 1))
        if isinstance(node, ast.BoolOp):  # libcst nests `a or b or c` pairwise
            depth += len(node.values)
        if depth > MAX_DEPTH:
            line = getattr(node, "lineno", 1)
            return Problem(f"code nested more than {MAX_DEPTH} levels deep: not analysed", _loc(path, line, 1))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    # libcst nests implicitly concatenated strings pairwise: a run of more than MAX_DEPTH needs as many quotes, so
    # only a statement holding that many is tokenized.
    lines, _ends = split_lines(sliced.text)
    for first, last in _statement_lines(sliced):
        chunk = "\n".join(lines[first - 1:last])
        if chunk.count('"') + chunk.count("'") <= 2 * MAX_DEPTH:
            continue
        run, run_line = 0, 1
        for tok in _tokens(chunk + "\n"):
            if tok.type == tokenize.STRING:
                run += 1
                if run > MAX_DEPTH:
                    line = sliced.line_map[first + run_line - 1]
                    return Problem(f"more than {MAX_DEPTH} strings concatenated: not analysed", _loc(path, line, 1))
            elif tok.type not in (tokenize.NL, tokenize.COMMENT):
                run, run_line = 0, tok.start[0]
    return None


def _statement_lines(sliced: Slice) -> list[tuple[int, int]]:
    """(first, last) line in the slice of each of its top-level statements."""
    ends = [*sliced.starts[1:], len(sliced.line_map)]
    return [(start, end - 1) for start, end in zip(sliced.starts, ends)]


def _tokens(text: str):
    try:
        yield from tokenize.generate_tokens(io.StringIO(text).readline)
    except (tokenize.TokenError, SyntaxError):
        return


def _suppressions(text: str, statements: list[ast.stmt]) -> dict[int, list[str]]:
    """The `rmqlint: disable` comments: only the lines that mention rmqlint are tokenized, each within the top-level
    statement holding it (a statement tokenizes on its own) or alone between statements (comments only)."""
    found: dict[int, list[str]] = {}
    lines, _ends = split_lines(text)
    spans = [(min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]), s.end_lineno or s.lineno)
             for s in statements]
    firsts = [first for first, _last in spans]
    done: set[int] = set()
    for number, line in enumerate(lines, start=1):
        if "rmqlint" not in line or number in done:
            continue
        at = bisect.bisect_right(firsts, number) - 1
        span = spans[at] if at >= 0 and spans[at][1] >= number else (number, number)
        done.update(range(span[0], span[1] + 1))
        chunk = "\n".join(lines[span[0] - 1:span[1]]) + "\n"
        for tok in _tokens(chunk):
            if tok.type == tokenize.COMMENT:
                add_suppressions(found, tok.string, span[0] + tok.start[0] - 1)
    return found


def _loc(path: str, line: int, column: int) -> Location:
    return Location(path, line, column, line, column + 1)


def _analyse(path: str, module: cst.Module, facts: FileFacts, sliced: Slice, positions: TextBytes) -> None:
    index = PythonIndex(path, module, sliced.line_map, sliced.starts)
    extract(index, facts)
    for name, binding in index.root.bindings.items():
        if binding.definition is not None:
            continue
        if binding.is_module or (binding.import_target is not None and api_of(binding.import_target)):
            continue
        if binding.values or binding.import_target is not None or binding.other:
            facts.constants[name] = index.lookup(name, index.root)
    callbacks(index, facts)
    facts.identity_uses = identity_uses(index, sliced.text)
    index.resolve_locations(facts, positions)
    facts.identity_uses.sort(key=lambda u: (u.location.line, u.location.column))
    facts.clients.sort(key=lambda c: (c.location.line, c.location.column))
    facts.produced.sort(key=lambda p: (p.location.line, p.location.column))
    facts.connections.sort(key=lambda c: (c.location.line, c.location.column))

"""Parsing one Go source file into `FileFacts`, with tree-sitter (the heavy half of `rmqlint.frontends.go`).

`parse_go` never raises: unreadable bytes, binary data and syntax errors become `FileFacts.problems`, and whatever
tree-sitter's error recovery could parse is still analysed. Files that fail the `may_use_clients` prefilter are
only indexed for their constants, which other files of the package may use.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.facts import FileFacts, Problem, Setting
from rmqlint.frontends.go.clients import ClientExtractor
from rmqlint.frontends.go.identity import identity_uses
from rmqlint.frontends.go.index import TOO_DEEP_EXPRESSION, GoFile
from rmqlint.frontends.go.listeners import listener_functions
from rmqlint.frontends.go.prefilter import may_use_clients
from rmqlint.frontends.go.tree import LANGUAGE
from rmqlint.frontends.sitter import internal_error, parse_guarded, parse_tree
from rmqlint.text import add_suppressions
from rmqlint.values import Concat, Dynamic, OneOf

_COMMENTS = tree_sitter.Query(LANGUAGE, "(comment) @comment")


def parse_go(path: str, data: bytes) -> FileFacts:
    return parse_guarded(path, data, "go", _parse)


def go_file(path: str, data: bytes, problems: list[Problem] | None = None) -> GoFile | None:
    """The file's tree and declarations; None when its bytes are not text (said in `problems`)."""
    return parse_tree(GoFile, LANGUAGE, path, data, "Go source", problems)


def _parse(path: str, data: bytes, facts: FileFacts) -> None:
    go = go_file(path, data, facts.problems)
    if go is None:
        return
    if go.tree.root_node.has_error:
        facts.problems.append(_syntax_problem(go))
    facts.package = go.package
    facts.imports = dict(go.imports)
    if b"rmqlint" in go.source:
        for node in tree_sitter.QueryCursor(_COMMENTS).captures(go.tree.root_node).get("comment", []):
            add_suppressions(facts.suppressions, go.text(node), node.start_point[0] + 1)
    facts.constants = go.constants()
    facts.module_names = go.package_names()
    slot = go.import_slot()
    facts.import_slots = [slot] if slot is not None else []
    facts.listener_classes = listener_functions(go)
    if may_use_clients(go.source):
        try:
            extractor = ClientExtractor(go)
            extractor.run()
            uses = identity_uses(go)
        except Exception as error:  # noqa: BLE001 - the file's constants still count
            facts.problems.append(internal_error(path, "go", error))
        else:
            facts.clients = extractor.clients
            facts.templates = extractor.templates
            facts.produced = extractor.produced
            facts.connections = extractor.connections
            facts.identity_uses = uses
            facts.problems.extend(_too_deep(facts))


def _too_deep(facts: FileFacts) -> list[Problem]:
    """A setting, subscription or tag whose expression nests deeper than the evaluator follows: said at its place."""
    places = []
    for client in facts.clients:
        places += [(item.value, item.location) for item in vars(client).values() if isinstance(item, Setting)]
        places += [(s.topic, s.location) for s in client.subscriptions]
        places += [(s.expression, s.location) for s in client.subscriptions]
    places += [(p.tag, p.location) for p in facts.produced] + [(p.topic, p.location) for p in facts.produced]
    return [Problem(f"{TOO_DEEP_EXPRESSION}: its value is not known, so what depends on it was not checked", where)
            for value, where in places if _holds_too_deep(value)]


def _holds_too_deep(value) -> bool:
    parts = value.parts if isinstance(value, Concat) else value.alternatives if isinstance(value, OneOf) else (value,)
    return any(part == Dynamic(TOO_DEEP_EXPRESSION) or (isinstance(part, (Concat, OneOf)) and _holds_too_deep(part))
               for part in parts)


def _syntax_problem(go: GoFile) -> Problem:
    node = go.tree.root_node
    while not (node.is_error or node.is_missing):
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if child is None:
            break
        node = child
    if node.is_missing:
        message = f"syntax error: missing '{node.type}'"
    else:
        snippet = go.text(node)[:20].split("\n")[0]
        message = f"syntax error near '{snippet}'" if snippet else "syntax error"
    return Problem(message + "; the rest of the file was still analysed", go.location(node))

"""Parsing one Java source file into `FileFacts`, with tree-sitter (the heavy half of `rmqlint.frontends.java`).

`parse_java` never raises: unreadable bytes, binary data and syntax errors become `FileFacts.problems`, and
whatever tree-sitter's error recovery could parse is still analysed. Files that fail the `may_use_clients`
prefilter are only indexed for their constants and listener classes, which other files may reference.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.facts import FileFacts, Problem, Setting
from rmqlint.frontends.java.bindings import bound_properties
from rmqlint.frontends.java.prefilter import may_use_clients
from rmqlint.frontends.java.identity import identity_uses
from rmqlint.frontends.java.index import TOO_DEEP_EXPRESSION, JavaFile
from rmqlint.frontends.java.listeners import listener_classes
from rmqlint.frontends.java.templates import extract
from rmqlint.frontends.java.tree import LANGUAGE
from rmqlint.frontends.sitter import internal_error, parse_guarded, parse_tree
from rmqlint.text import add_suppressions
from rmqlint.values import TOO_DEEP, Concat, Dynamic, OneOf
_COMMENT_QUERY = tree_sitter.Query(LANGUAGE, "[(line_comment) (block_comment)] @comment")


def parse_java(path: str, data: bytes) -> FileFacts:
    return parse_guarded(path, data, "java", _parse)


def java_file(path: str, data: bytes, problems: list[Problem] | None = None) -> JavaFile | None:
    """The file's tree and declarations; None when its bytes are not text (said in `problems`)."""
    return parse_tree(JavaFile, LANGUAGE, path, data, "Java source", problems)


def _parse(path: str, data: bytes, facts: FileFacts) -> None:
    java = java_file(path, data, facts.problems)
    if java is None:
        return
    source, tree = java.source, java.tree
    if tree.root_node.has_error:
        facts.problems.append(_syntax_problem(java, tree.root_node))
    facts.package = java.package
    facts.imports = dict(java.imports)
    facts.classes = [info.name for info in java.classes]
    if b"rmqlint" in source:
        facts.suppressions = _suppressions(java)
    facts.constants = java.constants()
    try:
        facts.properties = bound_properties(java)
    except Exception as error:  # noqa: BLE001
        facts.problems.append(internal_error(path, "java", error))
    # Listener classes too, whether or not the file passes the prefilter: a consumer elsewhere may register one.
    try:
        facts.listener_classes = listener_classes(java)
    except Exception as error:  # noqa: BLE001
        facts.problems.append(internal_error(path, "java", error))
    if may_use_clients(source):
        # A bug in client extraction must not cost the file its constants, which other files may need.
        try:
            extractor, templates = extract(java)
            uses = identity_uses(java)
        except Exception as error:  # noqa: BLE001
            facts.problems.append(internal_error(path, "java", error))
        else:
            facts.clients = extractor.clients
            facts.templates = templates
            facts.identity_uses = uses
            facts.produced = extractor.produced
            facts.connections = extractor.connections
            facts.problems.extend(_unfollowed(facts))
    if not any(p.message == _UNFOLLOWED[_EXPRESSION] for p in facts.problems):
        # A constant too deep to follow that no fact of this file uses (another file's may): said once per file,
        # at the first such constant (a chain of 3,000 constants is one thing not followed, not 3,000).
        for info in java.classes:
            name = next((n for n, f in info.fields.items()
                         if _unfollowed_reason(facts.constants.get(f"{info.name}.{n}", _KNOWN)) == _EXPRESSION), None)
            if name is not None:
                facts.problems.append(Problem(f"constant {info.name}.{name}: {_UNFOLLOWED[_EXPRESSION]}",
                                              java.location(info.fields[name].declaration)))
                break


_EXPRESSION = Dynamic(TOO_DEEP_EXPRESSION)
_KNOWN = Dynamic("")
_UNFOLLOWED = {
    Dynamic(TOO_DEEP): f"a value with {TOO_DEEP}, not followed",
    Dynamic(TOO_DEEP_EXPRESSION): f"{TOO_DEEP_EXPRESSION}: its value is not known, so what depends on it was not "
                                  "checked",
}


def _unfollowed(facts: FileFacts) -> list[Problem]:
    """A setting, subscription or tag whose expression (or Spring placeholders) nests deeper than the evaluator
    follows is unknown: said so at its place, never dropped silently."""
    places = []
    for client in facts.clients:
        for item in vars(client).values():
            if isinstance(item, Setting):
                places.append((item.value, item.location))
        places += [(s.topic, s.location) for s in client.subscriptions]
        places += [(s.expression, s.location) for s in client.subscriptions]
    places += [(p.topic, p.location) for p in facts.produced] + [(p.tag, p.location) for p in facts.produced]
    places += [(item.value, item.location) for c in facts.connections for item in vars(c).values()
               if isinstance(item, Setting)]
    problems = []
    for value, location in places:
        reason = _unfollowed_reason(value)
        if reason is not None:
            problems.append(Problem(_UNFOLLOWED[reason], location))
    return problems


def _unfollowed_reason(value) -> Dynamic | None:
    parts = value.parts if isinstance(value, Concat) else value.alternatives if isinstance(value, OneOf) else (value,)
    for part in parts:
        if part in _UNFOLLOWED:
            return part
        if isinstance(part, (Concat, OneOf)):
            found = _unfollowed_reason(part)
            if found is not None:
                return found
    return None


def _syntax_problem(java: JavaFile, root: tree_sitter.Node) -> Problem:
    # Descend to the first error or missing node (iteratively: the tree may be thousands of levels deep).
    node = root
    while True:
        if node.is_error or node.is_missing:
            break
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if child is None:
            break
        node = child
    location = java.location(node)
    if node.is_missing:
        message = f"syntax error: missing '{node.type}'"
    else:
        snippet = java.text(node)[:20].split("\n")[0]
        message = f"syntax error near '{snippet}'" if snippet else "syntax error"
    return Problem(message + "; the rest of the file was still analysed", location)


def _suppressions(java: JavaFile) -> dict[int, list[str]]:
    result: dict[int, list[str]] = {}
    for node in tree_sitter.QueryCursor(_COMMENT_QUERY).captures(java.tree.root_node).get("comment", []):
        add_suppressions(result, java.text(node), node.start_point[0] + 1)
    return result

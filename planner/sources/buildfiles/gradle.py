"""Gradle `build.gradle` (Groovy) and `build.gradle.kts` (Kotlin): the RocketMQ clients a project depends on,
read from the tree-sitter trees of its build script and of the scripts above it.

What is read:
- declarations in `dependencies { }` with a runtime configuration (`implementation`, `api`, `compile`,
  `runtimeOnly`, `runtime`); test and compile-only configurations and `buildscript { }` are not the
  application's. Forms: `"group:name:version"`, `group: .., name: .., version: ..` (Groovy map, Kotlin named
  arguments), Kotlin's `("group", "name", "version")`, version catalog aliases `libs.x.y`;
- values: string literals with `$x` / `${expr}` interpolation, `+` concatenation, Groovy maps (`versions.x`,
  `versions['x']`), variables (`ext { x = .. }`,
  `ext.x =`, `def x =`, `val x =`, `extra["x"] =`, `extra.set("x", ..)`, `val x by extra(..)`, `val x: String by
  project`), property lookups (`property("x")`, `findProperty("x")`, `rootProject.ext.x`, `extra["x"]`),
  `libs.versions.x.get()`; `gradle.properties` of the project and of every project above it up to the build's
  root (the directory with `settings.gradle(.kts)`); extra properties and `subprojects { } / allprojects { }`
  dependencies of the scripts above; the variables of scripts brought in with `apply from:`;
- `constraints { }` versions, which take part in version selection; a dependency lock file (`gradle.lockfile`,
  or `gradle/dependency-locks/runtimeClasspath.lockfile`) wins over everything, transitive clients included.

Gradle picks the highest of several declared versions; a version it would pick at build time (a range, `+`,
`latest.release`) or from something not on disk (`-P`, a platform/BOM) is unknown, with the reason.

Limits of the Groovy grammar (tree-sitter-groovy 0.1): a GString is one fragment, so its `$x` / `${expr}` are
found by scanning the string's text and each `${expr}` is parsed again as an expression (a nested string quote
inside `${}` ends the literal early: that version is unknown); `implementation 'g:a:' + v` is read as a call and
a separate `+ v` statement on the same line, and `implementation libs.mq` as a call with `libs` and an error at
the dot: the reader joins both back. Anything else it does not evaluate
(method calls, conditionals, `apply from:` scripts) makes the version unknown, never guessed.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from packaging.version import InvalidVersion, Version

from rmqlint import bounded_toml
from rmqplan.sources.buildfiles.module import (
    GRPC_CLIENT,
    JAVA_ARTIFACTS,
    REMOTING_CLIENT,
    ROCKETMQ_GROUP,
    SPRING_STARTER,
    SPRING_V5_STARTER,
    ClientDependency,
    Module,
    concrete_version,
    directory_name,
    read_build_text,
)
from rmqplan.sources.origin import Origin, SourceProblem

RUNTIME_CONFIGURATIONS = ("implementation", "api", "compile", "runtimeOnly", "runtime")
SCRIPTS = ("build.gradle.kts", "build.gradle")
SETTINGS = ("settings.gradle.kts", "settings.gradle")
CALLS = ("juxt_function_call", "method_invocation", "call_expression")
ARGUMENT_LISTS = ("argument_list", "value_arguments")
BLOCKS = ("closure", "annotated_lambda", "lambda_literal")
PROPERTY_RECEIVERS = {"project", "rootProject", "ext", "extra", "properties", "extraProperties"}
PROPERTY_CALLS = {"property", "findProperty", "getProperty", "gradleProperty"}
MAX_EVAL_DEPTH = 32
MAX_APPLIED = 64  # scripts brought in by `apply from:` for one project

# (value, why unknown, where the deciding value is written); a value is a string, or a map (`[k: v]` in Groovy)
Value = tuple[Any, str, Optional[Origin]]
Lookup = Callable[[str], Value]


def _language(kotlin: bool):
    import tree_sitter

    if kotlin:
        import tree_sitter_kotlin as grammar
    else:
        import tree_sitter_groovy as grammar
    return tree_sitter.Language(grammar.language())


def _parse(source: bytes, kotlin: bool):
    import tree_sitter

    return tree_sitter.Parser(_language(kotlin)).parse(source)


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _walk(node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _named(node) -> list:
    return [c for c in node.children if c.is_named]


# --- values -----------------------------------------------------------------------------------------------------


@dataclass
class _Evaluator:
    """Evaluates an expression node of one script to a string, with the variables visible there."""

    path: str
    kotlin: bool
    lookup: Lookup
    catalog_versions: dict[str, tuple[str, Origin]] = field(default_factory=dict)

    def unknown(self, node, what: str = "") -> Value:
        return None, what or f"`{_text(node)[:60]}` is not evaluated by the reader", None

    def eval(self, node, depth: int = 0) -> Value:
        if depth > MAX_EVAL_DEPTH:
            return None, "an expression nested too deep", None
        kind = node.type
        if kind == "character_literal":  # Groovy '...': no interpolation
            return _text(node)[1:-1], "", None
        if kind in ("string_literal", "string"):
            text = _text(node)
            quote = 3 if text[:3] in ('"""', "'''") else 1
            body = text[quote:-quote] if len(text) >= 2 * quote else ""
            if text[:1] == "'":
                return body, "", None
            return self.template(body, depth)
        if kind == "identifier":
            return self.lookup(_text(node))
        if kind in ("parenthesized_expression", "value_argument", "expression_statement"):
            inner = _named(node)
            return self.eval(inner[-1], depth + 1) if inner else self.unknown(node)
        if kind == "as_expression":
            return self.eval(_named(node)[0], depth + 1)
        if kind == "binary_expression":
            return self.binary(node, depth)
        if kind == "map_literal":  # Groovy `[rocketmq: '4.9.4', ...]`: a map, read by `versions.rocketmq`
            out = {}
            for item in _named(node):
                key, value = _named_argument(item)
                if key is not None:
                    out[key] = self.eval(value, depth + 1)[0]
            return out, "", Origin(self.path, node.start_point[0] + 1)
        if kind == "unary_expression" and node.children[0].type == "+":  # only from `_split_concatenation`
            return self.eval(node.children[-1], depth + 1)
        if kind in ("field_access", "navigation_expression"):
            return self.property_chain(node)
        if kind in ("index_expression", "array_access"):  # Kotlin `extra["x"]`, Groovy `versions['x']`
            return self.index(node, depth)
        if kind in CALLS:
            return self.call(node, depth)
        return self.unknown(node)

    def binary(self, node, depth: int) -> Value:
        left, op, right = node.children[0], node.children[1], node.children[-1]
        if op.type == "+":
            a, why, origin_a = self.eval(left, depth + 1)
            if not isinstance(a, str):
                return None, why or f"`{_text(left)[:60]}` is not a string", None
            b, why, origin_b = self.eval(right, depth + 1)
            if not isinstance(b, str):
                return None, why or f"`{_text(right)[:60]}` is not a string", None
            return a + b, "", origin_b or origin_a
        if op.type in ("?:", "?:\n"):  # `findProperty("x") ?: "1"`: the default is used only when x is unset
            value = self.eval(left, depth + 1)
            if value[0] is not None:
                return value
            return None, f"`{_text(node)[:60]}`: the fallback applies only if nothing sets it (-P?)", None
        return self.unknown(node)

    def chain(self, node) -> list[str]:
        """`rootProject.ext.x` -> ["rootProject", "ext", "x"]; [] when a link is not a plain name."""
        names = []
        for part in _walk(node):
            if part.type in ("field_access", "navigation_expression", "navigation_suffix", ".", "?."):
                continue
            if part.type == "identifier":
                names.append(_text(part))
            else:
                return []
        return names

    def property_chain(self, node) -> Value:
        names = self.chain(node)
        if len(names) >= 3 and names[0] == "libs" and names[1] == "versions":
            key = ".".join(names[2:])
            if key in self.catalog_versions:
                value, origin = self.catalog_versions[key]
                return value, "", origin
            return None, f"libs.versions.{key} is not in gradle/libs.versions.toml", None
        return self.path_value(names, node)

    def path_value(self, names: list[str], node) -> Value:
        """`rootProject.ext.versions.rocketmq`: the receivers dropped, a variable, then keys of its map."""
        while len(names) > 1 and names[0] in PROPERTY_RECEIVERS:
            names = names[1:]
        if not names:
            return self.unknown(node)
        value, why, origin = self.lookup(names[0])
        for key in names[1:]:
            if not isinstance(value, dict):
                return (None, why, None) if value is None else self.unknown(node)
            if key not in value:
                return None, f"`{_text(node)[:60]}`: no `{key}` in the map", None
            value = value[key]
        return value, why, origin

    def index(self, node, depth: int) -> Value:
        """`extra["x"]`, `rootProject.extra["x"]`, `ext["x"]`, `project.properties["x"]`."""
        target = _named(node)[0]
        names = [_text(target)] if target.type == "identifier" else self.chain(target)
        keys = [c for c in _named(node)[1:]]
        if not names or len(keys) != 1:
            return self.unknown(node)
        key, why, _ = self.eval(keys[0], depth + 1)
        if not isinstance(key, str):
            return None, why or f"`{_text(node)[:60]}` is not evaluated by the reader", None
        if all(n in PROPERTY_RECEIVERS for n in names):
            return self.lookup(key)
        return self.path_value(names + [key], node)  # `versions['rocketmq']`

    def call(self, node, depth: int) -> Value:
        callee, args = _callee(node), _arguments(node)
        names = [_text(callee)] if callee is not None and callee.type == "identifier" else (
            self.chain(callee) if callee is not None else [])
        if names and names[-1] in PROPERTY_CALLS and all(n in PROPERTY_RECEIVERS | {"providers"}
                                                         for n in names[:-1]) and len(args) == 1:
            key, why, _ = self.eval(args[0], depth + 1)
            return self.lookup(key) if key is not None else (None, why, None)
        if names and names[-1] in ("get", "toString") and not args and callee is not None:
            receiver = _named(callee)[0] if callee.type in ("navigation_expression", "field_access") else None
            if receiver is not None:
                return self.eval(receiver, depth + 1)
        return self.unknown(node)

    def template(self, body: str, depth: int) -> Value:
        """A double-quoted string's content with `$name`, `$a.b` and `${expr}` replaced."""
        out, origin, i = [], None, 0
        while i < len(body):
            ch = body[i]
            if ch == "\\" and i + 1 < len(body):
                out.append(body[i + 1] if body[i + 1] in "$\"'\\" else body[i:i + 2])
                i += 2
                continue
            if ch != "$" or i + 1 >= len(body):
                out.append(ch)
                i += 1
                continue
            if body[i + 1] == "{":
                end = _closing_brace(body, i + 2)
                if end < 0:
                    return None, f"an unclosed ${{ in \"{body[:60]}\"", None
                expression = body[i + 2:end]
                i = end + 1
            else:
                j = i + 1
                while j < len(body) and (body[j].isalnum() or body[j] == "_" or
                                         (body[j] == "." and j + 1 < len(body) and body[j + 1].isalpha())):
                    j += 1
                expression = body[i + 1:j]
                if not expression:
                    out.append("$")
                    i += 1
                    continue
                i = j
            value, why, where = self.expression(expression, depth)
            if not isinstance(value, str):
                return None, why or f"`${{{expression[:60]}}}` is not a string", None
            out.append(value)
            origin = where or origin
        return "".join(out), "", origin

    def expression(self, source: str, depth: int) -> Value:
        """An interpolated expression, parsed with the script's own grammar."""
        tree, node = parse_expression(source, self.kotlin)
        if node is None:
            return None, f"`${{{source[:60]}}}` is not evaluated by the reader", None
        return self.eval(node, depth + 1)  # `tree` stays referenced while its node is in use


def parse_expression(source: str, kotlin: bool):
    """(tree, node): `source` parsed as one expression (the value of a declaration); node None when it is not one.
    Keep the tree while the node is used."""
    wrapped = f"val __x = {source}" if kotlin else f"def __x = {source}"
    tree = _parse(wrapped.encode("utf-8"), kotlin)
    if tree.root_node.has_error:
        return tree, None
    for node in _walk(tree.root_node):
        if node.type in ("variable_declarator", "property_declaration"):
            return tree, node.children[-1]
    return tree, None


def _closing_brace(text: str, start: int) -> int:
    depth, quote, i = 1, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


# --- calls --------------------------------------------------------------------------------------------------------


def _callee(node):
    """The node naming what is called: an identifier, a `a.b` chain, or a string (`"implementation"(..)`)."""
    before = []
    for child in node.children:
        if child.type in ARGUMENT_LISTS or child.type in BLOCKS or child.type == "call_suffix":
            break
        if child.is_named:
            before.append(child)
    return before[-1] if before else None  # Groovy `a.b(..)` lists the receiver and the name: the name


def _callee_text(node) -> str:
    """The source of what is called, receiver included: `extra.set`, `project.ext`."""
    callee = _callee(node)
    return node.text[:callee.end_byte - node.start_byte].decode("utf-8", "replace") if callee is not None else ""


def _call_name(node) -> Optional[str]:
    callee = _callee(node)
    if callee is None:
        return None
    if callee.type == "identifier":
        return _text(callee)
    if callee.type in ("string_literal", "character_literal"):
        return _text(callee).strip("\"'")
    if callee.type == "navigation_expression":
        names = [c for c in _named(callee) if c.type == "identifier"]
        return _text(names[-1]) if names else None
    return None


def _arguments(node) -> list:
    for child in node.children:
        if child.type == "call_suffix":
            return _arguments(child)
        if child.type in ARGUMENT_LISTS:
            return [c for c in child.children if c.is_named]
    return []


def _block(node):
    for child in node.children:
        if child.type in BLOCKS:
            return child
        if child.type == "call_suffix":
            return _block(child)
    return None


def _enclosing(node) -> list[str]:
    """Names of the calls whose block holds `node`, innermost first."""
    names = []
    current = node.parent
    while current is not None:
        if current.type in CALLS and _block(current) is not None:
            name = _call_name(current)
            if name:
                names.append(name)
        current = current.parent
    return names


# --- one script ---------------------------------------------------------------------------------------------------


@dataclass
class _Declaration:
    artifact: str
    version: Optional[str]
    why: str
    origin: Origin
    version_origin: Optional[Origin]
    constraint: bool = False
    bom: bool = False  # a version-less declaration
    via: str = ""  # where a declaration for this project is made, when not in its own script


@dataclass
class _Script:
    path: Path
    kotlin: bool
    tree: object
    variables: dict[str, list[tuple[Optional[str], str, Origin]]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, problems: list[SourceProblem]) -> Optional["_Script"]:
        text = read_build_text(path, problems)
        if text is None:
            return None
        kotlin = path.name.endswith(".kts")
        try:
            tree = _parse(text.encode("utf-8"), kotlin)
        except ImportError:
            problems.append(SourceProblem(Origin(str(path)), "the Gradle grammar is not installed: not read"))
            return None
        return cls(path, kotlin, tree)

    def collect_variables(self, evaluator: _Evaluator, seen: Optional[set] = None) -> None:
        """Every variable and extra property the script sets, in order, each value evaluated where it is set;
        `apply from: 'other.gradle'` brings the other script's in where it is applied."""
        seen = seen if seen is not None else {self.path.resolve()}
        for node in _walk(self.tree.root_node):
            applied = self.applied_script(node, evaluator, seen)
            if applied is not None:
                applied.collect_variables(_Evaluator(str(applied.path), applied.kotlin,
                                                     lambda n: _lookup_chain(applied, n, evaluator.lookup),
                                                     evaluator.catalog_versions), seen)
                for name, values in applied.variables.items():
                    self.variables.setdefault(name, []).extend(values)
                continue
            found = _assignment(node, self.kotlin)
            if found is None:
                continue
            name, value_node = found
            origin = Origin(str(self.path), node.start_point[0] + 1)
            if value_node is None:  # `val x: String by project`: a property of the same name
                value, why, where = evaluator.lookup(name)
            else:
                value, why, where = evaluator.eval(value_node)
            self.variables.setdefault(name, []).append((value, why, where or origin))

    def applied_script(self, node, evaluator: _Evaluator, seen: set) -> Optional["_Script"]:
        """The script `apply from: ..` (Groovy) / `apply(from = ..)` (Kotlin) names, when it is a file here."""
        if node.type not in CALLS or _call_name(node) != "apply":
            return None
        target = next((value for key, value in map(_named_argument, _arguments(node)) if key == "from"), None)
        if target is None:
            return None
        where, _, _ = evaluator.eval(target)
        if not isinstance(where, str) or "://" in where:
            return None
        path = Path(where) if os.path.isabs(where) else self.path.parent / where
        if not path.is_file() or path.resolve() in seen or len(seen) > MAX_APPLIED:
            return None
        seen.add(path.resolve())
        return _Script.load(path, [])

    def lookup_own(self, name: str) -> Optional[Value]:
        values = self.variables.get(name)
        if not values:
            return None
        distinct = {repr(v) for v, _, _ in values}
        if len(distinct) > 1:
            shown = ", ".join(sorted(v if v != "None" else "unknown" for v in distinct))
            return None, f"`{name}` is set to several values in {self.path.name} ({shown})", None
        value, why, origin = values[0]
        return value, why, origin

    def declarations(self, evaluator: _Evaluator, catalog: dict, *, inherited: bool) -> list[_Declaration]:
        """The script's RocketMQ client declarations for its own project, or (`inherited`) the ones it makes for
        the projects below it (`subprojects { }`, `allprojects { }`)."""
        out = []
        for node in _walk(self.tree.root_node):
            if node.type not in CALLS or _call_name(node) not in RUNTIME_CONFIGURATIONS:
                continue
            outer = _enclosing(node)
            if "dependencies" not in outer or "buildscript" in outer:
                continue
            for_children = "subprojects" in outer or "allprojects" in outer
            for_self = "subprojects" not in outer and not any(n == "project" for n in outer)
            if (inherited and not for_children) or (not inherited and not for_self):
                continue
            declaration = self.declaration(node, evaluator, catalog)
            if declaration is not None:
                declaration.constraint = "constraints" in outer
                out.append(declaration)
        return out

    def declaration(self, node, evaluator: _Evaluator, catalog: dict) -> Optional[_Declaration]:
        origin = Origin(str(self.path), node.start_point[0] + 1)
        named, positional = {}, []
        for arg in _arguments(node):
            key, value = _named_argument(arg)
            if key is not None:
                named[key] = value
            else:
                positional.append(arg)
        if "group" in named and "name" in named:
            group, _, _ = evaluator.eval(named["group"])
            artifact, _, _ = evaluator.eval(named["name"])
            if group != ROCKETMQ_GROUP or artifact not in JAVA_ARTIFACTS:
                return None
            return self.versioned(artifact, named.get("version"), evaluator, origin)
        if len(positional) == 3:
            group, _, _ = evaluator.eval(positional[0])
            artifact, _, _ = evaluator.eval(positional[1])
            if group == ROCKETMQ_GROUP and artifact in JAVA_ARTIFACTS:
                return self.versioned(artifact, positional[2], evaluator, origin)
            return None
        if len(positional) != 1:
            return None
        first = _unwrap(positional[0])
        broken = _broken_navigation(node, first)
        reparsed = parse_expression(broken, self.kotlin) if broken is not None else (None, None)
        if reparsed[1] is not None:  # Groovy `implementation libs.mq`: the grammar stops at the dot
            first = reparsed[1]
        if first.type in ("field_access", "navigation_expression"):
            names = evaluator.chain(first)
            if names[:1] == ["libs"] and ".".join(names[1:]) in catalog:
                group, artifact, version, why, version_origin = catalog[".".join(names[1:])]
                if group == ROCKETMQ_GROUP and artifact in JAVA_ARTIFACTS:
                    return _Declaration(artifact, version, why, origin, version_origin, bom=version is None)
                return None
        if first.type in CALLS:  # platform(..), enforcedPlatform(..), project(..), files(..)
            return None
        coordinate, why, where = evaluator.eval(first)
        if coordinate is not None and not isinstance(coordinate, str):
            return None
        following = _split_concatenation(node)
        if coordinate is not None and following is not None:  # Groovy `implementation 'g:a:' + v`
            more, why, where = evaluator.eval(following)
            coordinate = coordinate + more if more is not None else None
        if coordinate is None:
            text = _text(first)
            if ROCKETMQ_GROUP in text and any(a in text for a in JAVA_ARTIFACTS):
                artifact = next(a for a in sorted(JAVA_ARTIFACTS, key=len, reverse=True) if a in text)
                return _Declaration(artifact, None, why, origin, None)
            return None
        parts = coordinate.split(":")
        if len(parts) < 2 or parts[0] != ROCKETMQ_GROUP or parts[1] not in JAVA_ARTIFACTS:
            return None
        if len(parts) < 3:
            return _Declaration(parts[1], None, "no version (a platform, BOM or constraint decides it)", origin,
                                None, bom=True)
        if not parts[2]:
            return _Declaration(parts[1], None, f"the version of `{_text(node)[:80]}` is not evaluated by the reader",
                                origin, None)
        version, why = concrete_version(parts[2])
        return _Declaration(parts[1], version, why, origin, where if version else None)

    def versioned(self, artifact: str, node, evaluator: _Evaluator, origin: Origin) -> _Declaration:
        if node is None:
            return _Declaration(artifact, None, "no version (a platform, BOM or constraint decides it)", origin,
                                None, bom=True)
        raw, why, where = evaluator.eval(node)
        if not isinstance(raw, str):
            return _Declaration(artifact, None, why or f"`{_text(node)[:60]}` is not a version", origin, None)
        version, why = concrete_version(raw)
        return _Declaration(artifact, version, why, origin, where if version else None)


def _unwrap(node):
    while node.type in ("value_argument", "parenthesized_expression") and _named(node):
        node = _named(node)[-1]
    return node


def _named_argument(arg) -> tuple[Optional[str], object]:
    """`group: 'x'` (Groovy map item) or `group = "x"` (Kotlin named argument) -> ("group", value node)."""
    if arg.type == "map_item":
        parts = _named(arg)
        if len(parts) >= 2:
            return _text(parts[0]).strip("'\""), parts[-1]
    if arg.type == "value_argument":
        children = arg.children
        if len(children) >= 3 and children[0].type == "identifier" and children[1].type == "=":
            return _text(children[0]), children[-1]
    return None, None


def _broken_navigation(call, first) -> Optional[str]:
    """The Groovy grammar reads `implementation libs.mq` as a call with `libs` and an error node `.mq` after it:
    the source from the argument to the end of the error, to parse again as one expression."""
    if call.type != "juxt_function_call" or first.type != "identifier":
        return None
    sibling = call.next_sibling
    if sibling is None or sibling.type != "ERROR" or sibling.start_point[0] != call.end_point[0] \
            or not _text(sibling).startswith("."):
        return None
    rest = sibling.text
    following = sibling.next_sibling  # at the top level the name after the dot is a statement of its own
    if rest == b"." and following is not None and following.start_point[0] == call.end_point[0]:
        rest += following.text
    return (first.text + rest).decode("utf-8", "replace")


def _split_concatenation(call):
    """The Groovy grammar reads `implementation 'g:a:' + v` as a call followed by a statement `+ v`: the `v`."""
    if call.type != "juxt_function_call":
        return None
    holder = call.parent if call.parent is not None and call.parent.type == "expression_statement" else call
    sibling = holder.next_named_sibling
    if sibling is None or sibling.type != "expression_statement" or sibling.start_point[0] != call.end_point[0]:
        return None
    inner = _named(sibling)
    leftmost = inner[0] if len(inner) == 1 else None
    while leftmost is not None and leftmost.type == "binary_expression":
        leftmost = leftmost.children[0]
    if leftmost is not None and leftmost.type == "unary_expression" and leftmost.children[0].type == "+":
        return inner[0]  # evaluated with the leading `+` read as the concatenation it is
    return None


def _assignment(node, kotlin: bool) -> Optional[tuple[str, object]]:
    """(name, value node) when `node` sets a variable or an extra property; value None for `by project`."""
    kind = node.type
    if kind in ("assignment_expression", "assignment"):
        target, value = node.children[0], node.children[-1]
        if target.type == "identifier":  # Groovy `x = ..` (script or `ext { }`), Kotlin `x = ..` of a `var`
            return _text(target), value
        if target.type in ("field_access", "navigation_expression"):
            names = [_text(n) for n in _walk(target) if n.type == "identifier"]
            if len(names) >= 2 and all(n in PROPERTY_RECEIVERS for n in names[:-1]):
                return names[-1], value
            return None
        if target.type == "index_expression":
            parts = _named(target)
            if len(parts) == 2 and _text(parts[0]).split(".")[-1] in ("extra", "ext") \
                    and parts[1].type in ("string_literal", "character_literal"):
                return _text(parts[1]).strip("\"'"), value
        return None
    if kind == "variable_declarator":  # Groovy `def x = ..` / `String x = ..`
        parts = node.children
        if len(parts) >= 3 and parts[0].type == "identifier" and parts[1].type == "=":
            return _text(parts[0]), parts[-1]
        return None
    if kind == "property_declaration":  # Kotlin `val x = ..`, `val x by extra(..)`, `val x: T by project`
        declaration = next((c for c in node.children if c.type == "variable_declaration"), None)
        if declaration is None or not declaration.children:
            return None
        name = _text(declaration.children[0])
        delegate = next((c for c in node.children if c.type == "property_delegate"), None)
        if delegate is not None:
            target = _named(delegate)[-1] if _named(delegate) else None
            if target is not None and target.type == "identifier" and _text(target) in ("project", "extra"):
                return name, None
            if target is not None and target.type == "call_expression" and _call_name(target) == "extra":
                args = _arguments(target)
                return (name, args[0]) if len(args) == 1 else None
            return None
        if any(c.type == "=" for c in node.children):
            return name, node.children[-1]
        return None
    if kind in CALLS and _call_name(node) == "set":  # `extra.set("x", ..)`, `ext.set('x', ..)`
        receiver = _callee_text(node).rsplit(".", 1)[0]
        args = _arguments(node)
        if receiver.split(".")[-1] in ("extra", "ext") and len(args) == 2:
            key = _unwrap(args[0])
            if key.type in ("string_literal", "character_literal"):
                return _text(key).strip("\"'"), args[1]
    return None


# --- the build around a project -----------------------------------------------------------------------------------


def _properties_file(path: Path) -> dict[str, tuple[str, Origin]]:
    """gradle.properties (Java properties) -> key -> (value, line)."""
    if not path.is_file():
        return {}
    try:
        from jproperties import Properties

        props = Properties()
        with open(path, "rb") as fh:
            props.load(fh, "iso-8859-1")
        text = path.read_text("iso-8859-1").splitlines()
    except Exception:  # a broken gradle.properties gives no variables, not a crash
        return {}
    out = {}
    def written_key(row: str) -> str:
        cut = min((i for i in (row.find("="), row.find(":")) if i >= 0), default=len(row))
        return row[:cut].strip()

    for key, value in props.items():
        line = next((i for i, row in enumerate(text, 1) if written_key(row) == key), 0)
        out[key] = (value.data, Origin(str(path), line))
    return out


def _version_catalog(root: Path) -> tuple[dict, dict[str, tuple[str, Origin]]]:
    """`libs.<alias>` (dots) -> (group, name, version, why, origin) and `libs.versions.<name>` -> (version, origin),
    from gradle/libs.versions.toml of the build's root."""
    path = root / "gradle" / "libs.versions.toml"
    if not path.is_file():
        return {}, {}
    try:
        text = bounded_toml.read(path).decode("utf-8")
        data = bounded_toml.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, bounded_toml.TomlRefused):
        return {}, {}
    rows = text.splitlines()

    def line_of(key: str) -> Origin:
        line = next((i for i, row in enumerate(rows, 1) if row.split("=", 1)[0].strip().strip('"') == key), 0)
        return Origin(str(path), line)

    versions_table = data.get("versions") if isinstance(data.get("versions"), dict) else {}
    versions = {k.replace("-", ".").replace("_", "."): (v, line_of(k))
                for k, v in versions_table.items() if isinstance(v, str)}
    libraries = {}
    for alias, spec in (data.get("libraries") or {}).items():
        key = alias.replace("-", ".").replace("_", ".")
        origin = line_of(alias)
        if isinstance(spec, str):
            parts = spec.split(":")
            if len(parts) >= 2:
                version, why = concrete_version(parts[2]) if len(parts) > 2 else (None, "no version in the catalog")
                libraries[key] = (parts[0], parts[1], version, why, origin)
            continue
        if not isinstance(spec, dict):
            continue
        if "module" in spec:
            group, _, name = str(spec["module"]).partition(":")
        else:
            group, name = str(spec.get("group", "")), str(spec.get("name", ""))
        raw, version_origin = spec.get("version"), origin
        if isinstance(raw, dict):
            if "ref" in raw:
                ref = str(raw["ref"])
                raw = versions_table.get(ref)
                version_origin = line_of(ref)
            else:
                raw = raw.get("strictly") or raw.get("require")
        if isinstance(raw, str):
            version, why = concrete_version(raw)
        else:
            version, why = None, "no version in gradle/libs.versions.toml"
        libraries[key] = (group, name, version, why, version_origin)
    return libraries, versions


def _lock_file(directory: Path) -> dict[str, tuple[str, Origin]]:
    """artifact -> (version, line) of the RocketMQ clients in the project's dependency lock (runtime first)."""
    candidates = [directory / "gradle.lockfile",
                  directory / "gradle" / "dependency-locks" / "runtimeClasspath.lockfile"]
    out: dict[str, tuple[str, Origin]] = {}
    for path in candidates:
        if not path.is_file():
            continue
        try:
            rows = path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for number, row in enumerate(rows, 1):
            coordinate, _, configurations = row.strip().partition("=")
            parts = coordinate.split(":")
            if len(parts) != 3 or parts[0] != ROCKETMQ_GROUP or parts[1] not in JAVA_ARTIFACTS:
                continue
            if configurations and "runtimeClasspath" not in configurations.split(","):
                continue
            out.setdefault(parts[1], (parts[2], Origin(str(path), number)))
        if out:
            break
    return out


def _build_root(directory: Path, stop: Path) -> Path:
    """The nearest directory at or above `directory` (not above `stop`) with a settings script."""
    current = directory
    while True:
        if any((current / s).is_file() for s in SETTINGS):
            return current
        if current == stop or current.parent == current:
            return stop
        current = current.parent


def _project_name(directory: Path, root: Path, problems: list[SourceProblem]) -> tuple[str, Origin]:
    """`rootProject.name` from the settings script for the root project, else the directory's name."""
    if directory == root:
        for settings in SETTINGS:
            path = root / settings
            if not path.is_file():
                continue
            script = _Script.load(path, problems)
            if script is None:
                break
            evaluator = _Evaluator(str(path), script.kotlin, lambda n: (None, "", None))
            for node in _walk(script.tree.root_node):
                if node.type in ("assignment_expression", "assignment") and \
                        _text(node.children[0]).replace(" ", "") == "rootProject.name":
                    value, _, _ = evaluator.eval(node.children[-1])
                    if value:
                        return value, Origin(str(path), node.start_point[0] + 1)
    return directory_name(directory), Origin(str(directory))


def _highest(versions: list[str]) -> Optional[str]:
    try:
        return max(versions, key=Version)
    except InvalidVersion:
        return versions[0] if len(set(versions)) == 1 else None


def read_gradle(path: Path, stop: Path, problems: list[SourceProblem]) -> Optional[Module]:
    """The module of one build script; the scripts and gradle.properties above it are read up to the build's root
    (not above `stop`, the directory being searched)."""
    script = _Script.load(path, problems)
    if script is None:
        return None
    directory = path.parent
    root = _build_root(directory, stop)
    catalog, catalog_versions = _version_catalog(root)
    # The projects above, nearest first, each with its gradle.properties.
    above: list[tuple[Optional[_Script], dict]] = []
    current = directory
    while current != root and current.parent != current and root in current.parents:
        current = current.parent
        parent_script = next((current / s for s in SCRIPTS if (current / s).is_file()), None)
        loaded = _Script.load(parent_script, []) if parent_script is not None else None
        above.append((loaded, _properties_file(current / "gradle.properties")))
    own_properties = _properties_file(directory / "gradle.properties")
    builtins = {"rootDir": str(root), "projectDir": str(directory), "buildscript.sourceFile.parent": str(directory)}

    def lookup_above(name: str, start: int) -> Value:
        for loaded, props in above[start:]:
            if loaded is not None:
                found = loaded.lookup_own(name)
                if found is not None:
                    return found
            if name in props:
                value, origin = props[name]
                return value, "", origin
        if name in builtins:
            return builtins[name], "", None
        return None, f"`{name}` is not set in the build files (-P on the command line?)", None

    # Variables of the scripts above, evaluated with what is above each of them (the root first).
    for index in range(len(above) - 1, -1, -1):
        loaded = above[index][0]
        if loaded is not None:
            loaded.collect_variables(_Evaluator(str(loaded.path), loaded.kotlin,
                                                lambda n, i=index: _lookup_chain(loaded, n, lambda m: lookup_above(
                                                    m, i + 1)), catalog_versions))

    def lookup(name: str) -> Value:
        found = script.lookup_own(name)
        if found is not None:
            return found
        if name in own_properties:
            value, origin = own_properties[name]
            return value, "", origin
        return lookup_above(name, 0)

    evaluator = _Evaluator(str(path), script.kotlin, lookup, catalog_versions)
    script.collect_variables(evaluator)
    declarations = script.declarations(evaluator, catalog, inherited=False)
    for index, (loaded, _) in enumerate(above):
        if loaded is not None:
            inherited_evaluator = _Evaluator(str(loaded.path), loaded.kotlin, lookup, catalog_versions)
            for declaration in loaded.declarations(inherited_evaluator, catalog, inherited=True):
                declaration.via = f"subprojects/allprojects of {loaded.path}"
                declarations.append(declaration)

    name, name_origin = _project_name(directory, root, problems)
    module = Module(str(directory), str(path), name, name_origin, build_system="gradle")
    locked = _lock_file(directory)
    for artifact in JAVA_ARTIFACTS:
        found = [d for d in declarations if d.artifact == artifact]
        if artifact in locked:
            version, origin = locked[artifact]
            declared_at = next((d.origin for d in found if not d.constraint), None)
            starter = next((d.origin for d in declarations if d.artifact in (SPRING_STARTER, SPRING_V5_STARTER)
                            and not d.constraint), None)
            if declared_at is not None or (starter is not None and artifact in (REMOTING_CLIENT, GRPC_CLIENT)):
                module.dependencies.append(ClientDependency(artifact, version, "", declared_at or starter, origin,
                                                            "the dependency lock file"))
            continue
        declared = [d for d in found if not d.constraint]
        if not declared:
            continue
        candidates = [d for d in found if not d.bom]
        unknown = [d for d in candidates if d.version is None]
        if unknown:
            module.dependencies.append(ClientDependency(artifact, None, unknown[0].why, declared[0].origin))
            continue
        if not candidates:
            module.dependencies.append(ClientDependency(artifact, None, declared[0].why, declared[0].origin))
            continue
        chosen = _highest([d.version for d in candidates])
        if chosen is None:
            shown = ", ".join(sorted({d.version for d in candidates}))
            module.dependencies.append(ClientDependency(artifact, None, f"several versions ({shown})",
                                                        declared[0].origin))
            continue
        winner = next(d for d in candidates if d.version == chosen)
        via = winner.via
        if winner.constraint:
            via = f"a constraint at {winner.origin}"
        elif len({d.version for d in candidates}) > 1:
            via = "the highest of several declared versions, as Gradle picks"
        origin = winner.origin if not winner.constraint else declared[0].origin
        module.dependencies.append(ClientDependency(artifact, chosen, "", origin,
                                                    winner.version_origin or winner.origin, via))
    return module


def _lookup_chain(script: _Script, name: str, fallback: Lookup) -> Value:
    found = script.lookup_own(name)
    return found if found is not None else fallback(name)

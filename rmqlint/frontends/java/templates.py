"""Java methods that make a client per call (`rmqlint.calls`), and the calls that bind them.

A method is a template when a client held by one of its local variables takes a value from the method's
parameters (`new DefaultMQPushConsumer(group)` in `start(String group, String topic)`), or when the method returns
that client (a factory). Spring `@Bean` methods are left alone: the container calls them and keeps what they
return. A call binds a template when it names the method with as many arguments (no other method of that name and
arity in the class): unqualified or on `this` inside the class, its nested classes or a subclass; on the class's
name for a static method; on a variable or field declared with the class's type.

An annotation of the project whose elements the code reads into a client (`ann.threadMin()`, `ann` from
`getAnnotation(MqConsumer.class)`) is a template keyed `@com.acme.MqConsumer`: each use of the annotation binds
its elements by name, an element it leaves out its declared default.

A constructor is a template too when a client of its class is made from its parameters, directly or through the
fields it sets from them (`this.min = min;`, `JavaFile.constructor_assigned`): one client per object, bound by
`new Owner(..)`, by another constructor's `this(..)` and by a subclass constructor's `super(..)`.

`extract` runs the file's client extraction, finds its templates and the file's own calls of them, and runs it
again with those calls seeded (a call then makes its client, which the caller configures further), until the calls
and templates no longer change (a template calling another template is bound on the next round). `calls_elsewhere`
finds the calls of a template of another file, for the linker.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable

import tree_sitter

from rmqlint.calls import functions_in, has_params, unbound
from rmqlint.facts import ClientFact, Template
from rmqlint.frontends.java.clients import ClientExtractor, Seed, call_arguments, declared_modifiers
from rmqlint.frontends.java.index import JavaFile, type_name
from rmqlint.frontends.java.tree import CLASS_BODIES, LANGUAGE

CONSTRUCTOR = "<init>"  # a constructor's name in a method key (`com.acme.Pool.<init>/2`)
ANNOTATION = "@"  # an annotation's key is `@com.acme.MqConsumer` (`Param.function` of its elements)
_ANNOTATIONS = tree_sitter.Query(LANGUAGE, "[(annotation) (marker_annotation)] @use")
_CONSTRUCTIONS = tree_sitter.Query(LANGUAGE, "[(object_creation_expression) (explicit_constructor_invocation)] @call")
MAX_ROUNDS = 4  # templates calling templates this deep are bound; deeper ones keep their parameters unknown


@dataclass
class _Template:
    method: tree_sitter.Node | None  # None for a template of another file
    node: tree_sitter.Node | None  # the creation (or seeded call) of the client in the method
    owner: str  # the simple name of the class declaring the method
    key: str  # `com.acme.Outer.Inner.start/2`
    name: str
    arity: int
    client: ClientFact
    returned: bool  # the method returns this client
    started: bool  # the method calls start() on it
    private: bool
    static: bool


def extract(java: JavaFile) -> tuple[ClientExtractor, list[Template]]:
    """The file's clients, with one client per call of a template of this file, and the templates other files may
    bind (methods that are not private). For a file that passes `may_use_clients` (the caller's check)."""
    is_owner = _same_file(java)
    extractor = ClientExtractor(java)
    extractor.run()
    seeds: list[Seed] = []
    for _round in range(MAX_ROUNDS + 1):
        templates = _templates(java, extractor)
        found = _calls(java, templates, is_owner) if templates else []
        bound = [Seed(call, t.client, t.returned, t.key) for call, t in found]
        if _same(bound, seeds) or _round == MAX_ROUNDS:
            break
        seeds = bound
        extractor = ClientExtractor(java, seeds)
        extractor.run()
    called = {t.node.id for _call, t in found}
    by_fact = {id(t.client): t for t in templates}
    kept: list[ClientFact] = []
    exported: list[Template] = []
    for client in extractor.clients:
        template = by_fact.get(id(client))
        if template is None:
            kept.append(client)
            continue
        here = template.node.id in called
        escapes = template.returned and not template.started
        if not template.private:
            exported.append(Template(template.key, client, here, escapes))
        elif not here:
            kept.append(unbound(client, escapes))  # a private method nobody here calls: dead code, or reflection
    extractor.clients = kept
    return extractor, exported


def _same(seeds: list[Seed], others: list[Seed]) -> bool:
    return [(s.call.id, s.function, s.client) for s in seeds] == [(s.call.id, s.function, s.client) for s in others]


def calls_elsewhere(java: JavaFile, template: Template, is_owner: Callable[[str, tree_sitter.Node], bool]) -> list[
        ClientFact]:
    """The clients the calls in `java` (another file than the template's) make, configured by their callers.
    `is_owner(type name as written, where)`: does that name denote the template's class from there."""
    owner, name, arity = _parts(template.method)
    returned = name not in (CONSTRUCTOR, ANNOTATION)  # a `new` gives the object holding the client, not the client
    info = _Template(method=None, node=None, owner=owner, key=template.method, name=name, arity=arity,
                     client=template.client, returned=returned, started=False, private=False, static=True)
    seeds = [Seed(call, template.client, returned, template.method) for call, _t in _calls(java, [info], is_owner)]
    if not seeds:
        return []
    extractor = ClientExtractor(java, seeds)
    extractor.run()
    return extractor.instances


# --- templates -------------------------------------------------------------------------------------------------


def _templates(java: JavaFile, extractor: ClientExtractor) -> list[_Template]:
    found = []
    for node, variable, client in extractor.made():
        method = java.enclosing_callable(node)
        if method is None or method.type not in ("method_declaration", "constructor_declaration") \
                or _is_bean_method(java, method):
            continue
        annotations = sorted(f for f in functions_in(client) if f.startswith(ANNOTATION))
        if annotations:
            # Made from the elements of an annotation the code reads: one client per use of the annotation.
            key = annotations[0]
            found.append(_Template(method, node, key.rpartition(".")[2].lstrip(ANNOTATION), key, ANNOTATION, -1,
                                   client, False, False, False, False))
            continue
        constructor = _constructor_of(java, node, client)
        if constructor is not None:
            # Made from what the object's constructor was given (`this.min = min;`): one client per `new`.
            key = java.method_key(constructor)
            owner, name, arity = _parts(key)
            template = _Template(constructor, node, owner, key, name, arity, client, False, False,
                                 "private" in declared_modifiers(constructor), False)
            if not _overloaded(java, template):  # which constructor a `new` means is not followed
                found.append(template)
            continue
        if variable:
            # A byte search first: walking every method body for its returns costs more than the search.
            text = java.source[method.start_byte:method.end_byte]
            returned = re.search(rb"\breturn\s+" + re.escape(variable.encode()) + rb"\s*;", text) is not None and \
                any(_returns_name(java, ret, variable, method) for ret in _returns(method))
        else:
            returned = _returned_directly(node)
        key = java.method_key(method)
        if key is None or not (returned or has_params(client, key)):
            continue
        modifiers = declared_modifiers(method)
        owner, name, arity = _parts(key)
        found.append(_Template(method, node, owner, key, name, arity, client, returned, _starts(java, method, variable),
                               "private" in modifiers, "static" in modifiers))
    return found


def _constructor_of(java: JavaFile, node: tree_sitter.Node, client: ClientFact) -> tree_sitter.Node | None:
    """The constructor of the class making the client at `node` whose parameters some value of the client is made
    of, if any."""
    info = java.enclosing_class(node)
    if info is None or not info.name:
        return None
    for member in info.body.named_children:
        if member.type == "constructor_declaration":
            key = java.method_key(member)
            if key is not None and has_params(client, key):
                return member
    return None


def _parts(key: str) -> tuple[str, str, int]:
    """(class simple name, method name, arity) of a method key; (annotation simple name, "@", -1) of an
    annotation's."""
    if key.startswith(ANNOTATION):
        return key.rpartition(".")[2].lstrip(ANNOTATION), ANNOTATION, -1
    method, _, arity = key.rpartition("/")
    qualified, _, name = method.rpartition(".")
    return qualified.rpartition(".")[2], name, int(arity)


def _arity(method: tree_sitter.Node) -> int:
    params = method.child_by_field_name("parameters")
    return sum(1 for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")) if params else 0


def _starts(java: JavaFile, method: tree_sitter.Node, variable: str) -> bool:
    """Does the method call `variable.start()`?"""
    stack = [method.child_by_field_name("body")]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.type == "method_invocation":
            name, target = node.child_by_field_name("name"), node.child_by_field_name("object")
            if name is not None and java.text(name) == "start" and target is not None \
                    and target.type == "identifier" and java.text(target) == variable:
                return True
        stack.extend(node.named_children)
    return False


def _returns(node: tree_sitter.Node):
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "return_statement":
            yield current
        stack.extend(current.named_children)


def _returns_name(java: JavaFile, ret: tree_sitter.Node, name: str, callable_node: tree_sitter.Node) -> bool:
    value = ret.named_children[0] if ret.named_children else None
    enclosing = java.enclosing_callable(ret)
    return (value is not None and value.type == "identifier" and java.text(value) == name
            and enclosing is not None and enclosing.id == callable_node.id)


def _returned_directly(node: tree_sitter.Node) -> bool:
    """`return new DefaultMQPushConsumer(group);`"""
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
        parent = parent.parent
    return parent is not None and parent.type == "return_statement"


def _is_bean_method(java: JavaFile, callable_node: tree_sitter.Node) -> bool:
    for child in callable_node.children:
        if child.type == "modifiers":
            for annotation in child.named_children:
                name = annotation.child_by_field_name("name")
                if name is not None and java.text(name).rpartition(".")[2] == "Bean":
                    return True
    return False


# --- calls -----------------------------------------------------------------------------------------------------


def _same_file(java: JavaFile) -> Callable[[str, tree_sitter.Node], bool]:
    """In the template's own file a class name denotes one of the file's classes."""
    names = {info.name for info in java.classes}

    def is_owner(written: str, _at: tree_sitter.Node) -> bool:
        return written.rpartition(".")[2] in names

    return is_owner


def _calls(java: JavaFile, templates: list[_Template],
           is_owner: Callable[[str, tree_sitter.Node], bool]) -> list[tuple[tree_sitter.Node, _Template]]:
    """The calls in `java` of each template's method, in source order."""
    by_name: dict[tuple[str, int], list[_Template]] = {}
    for template in templates:
        if template.name not in (CONSTRUCTOR, ANNOTATION):
            by_name.setdefault((template.name, template.arity), []).append(template)
    found = _constructions(java, [t for t in templates if t.name == CONSTRUCTOR], is_owner)
    found += _annotation_uses(java, [t for t in templates if t.name == ANNOTATION], is_owner)
    if not by_name:
        found.sort(key=lambda item: item[0].start_byte)
        return found
    query = _calls_query(tuple(sorted({name for name, _arity in by_name})))
    for call in tree_sitter.QueryCursor(query).captures(java.tree.root_node).get("call", []):
        candidates = by_name.get((java.text(call.child_by_field_name("name")), len(call_arguments(call))), ())
        owners = {t.owner for t in candidates}
        if len(owners) != 1 or len({t.key for t in candidates}) != 1:
            continue  # no template of that name and arity, or several classes' (which one runs is not known)
        if _overloaded(java, candidates[0]) or not _calls_owner(java, call, candidates[0], is_owner):
            continue
        method = candidates[0].method
        if method is not None and method.start_byte <= call.start_byte < method.end_byte:
            continue  # recursion: the method calling itself binds nothing new
        found.extend((call, template) for template in candidates)
    found.sort(key=lambda item: item[0].start_byte)
    return found


def _constructions(java: JavaFile, templates: list[_Template],
                   is_owner: Callable[[str, tree_sitter.Node], bool]) -> list[tuple[tree_sitter.Node, _Template]]:
    """The calls in `java` of each constructor template: `new Owner(..)`, and in a class of its own `this(..)`
    (another constructor delegating) or `super(..)` (a subclass's constructor)."""
    by_owner: dict[tuple[str, int], list[_Template]] = {}
    for template in templates:
        by_owner.setdefault((template.owner, template.arity), []).append(template)
    if not by_owner:
        return []
    found = []
    for call in tree_sitter.QueryCursor(_CONSTRUCTIONS).captures(java.tree.root_node).get("call", []):
        arity = len(call_arguments(call))
        if call.type == "object_creation_expression":
            written = type_name(java, call.child_by_field_name("type"))
            candidates = by_owner.get((written.rpartition(".")[2], arity), ())
            if not candidates or not is_owner(written, call):
                continue
        else:
            kind = call.child_by_field_name("constructor")
            if kind is None or call.child_by_field_name("object") is not None:
                continue
            info = java.enclosing_class(call)
            if info is None or not info.name:
                continue
            names = [info.name] if kind.type == "this" else info.supertypes[-1:]
            candidates = next((by_owner[(n.rpartition(".")[2], arity)] for n in names
                               if (n.rpartition(".")[2], arity) in by_owner and is_owner(n, call)), ())
        if len({t.key for t in candidates}) != 1 or _overloaded(java, candidates[0]):
            continue
        method = candidates[0].method
        if method is not None and method.start_byte <= call.start_byte < method.end_byte:
            continue  # the constructor making another of its own objects: nothing new is bound
        found.extend((call, template) for template in candidates)
    return found


def _annotation_uses(java: JavaFile, templates: list[_Template],
                     is_owner: Callable[[str, tree_sitter.Node], bool]) -> list[tuple[tree_sitter.Node, _Template]]:
    """The uses in `java` of each annotation template's annotation (`@MqConsumer(..)` on a class or method)."""
    by_owner: dict[str, list[_Template]] = {}
    for template in templates:
        by_owner.setdefault(template.owner, []).append(template)
    if not by_owner:
        return []
    found = []
    for use in tree_sitter.QueryCursor(_ANNOTATIONS).captures(java.tree.root_node).get("use", []):
        name = use.child_by_field_name("name")
        written = java.text(name) if name is not None else ""
        candidates = by_owner.get(written.rpartition(".")[2], ())
        holder = use.parent.parent if use.parent is not None and use.parent.type == "modifiers" else None
        if not candidates or holder is None or holder.type == "annotation_type_declaration" \
                or len({t.key for t in candidates}) != 1 \
                or not (_qualified(java, written) == candidates[0].key[1:] or is_owner(written, use)):
            continue
        found.extend((use, template) for template in candidates)
    return found


def _qualified(java: JavaFile, written: str) -> str:
    """A type name as written, qualified through the file's imports, else in the file's package."""
    head, dot, rest = written.partition(".")
    if head in java.imports:
        return java.imports[head] + dot + rest
    return written if dot or not java.package else f"{java.package}.{written}"


@functools.lru_cache(maxsize=256)
def _calls_query(names: tuple[str, ...]) -> tree_sitter.Query:
    """The query for calls of these method names (compiling one costs more than running it)."""
    quoted = " ".join(f'"{name}"' for name in names)
    return tree_sitter.Query(LANGUAGE, f"(method_invocation name: (identifier) @m (#any-of? @m {quoted})) @call")


def _overloaded(java: JavaFile, template: _Template) -> bool:
    """Another method (constructor) of the class with the same name and arity: which one a call means is not
    followed."""
    if template.method is None:
        return False
    body = template.method.parent
    return any(child.type == template.method.type and child.id != template.method.id
               and child.child_by_field_name("name") is not None
               and java.text(child.child_by_field_name("name")) == java.text(template.method.child_by_field_name(
                   "name")) and _arity(child) == template.arity
               for child in (body.named_children if body is not None else ()))


def _calls_owner(java: JavaFile, call: tree_sitter.Node, template: _Template,
                 is_owner: Callable[[str, tree_sitter.Node], bool]) -> bool:
    """Does the call's receiver denote the template's class (or an instance of it)?"""
    receiver = call.child_by_field_name("object")
    owner = template.owner
    if receiver is None or receiver.type == "this":
        for scope in java.scopes(call):
            if scope.type in CLASS_BODIES:
                info = java.class_of_body(scope)
                if info is not None and info.name and (
                        (info.name == owner and is_owner(info.name, call))
                        or any(is_owner(s, call) and s.rpartition(".")[2] == owner for s in info.supertypes)):
                    return True
        return False
    written = java.text(receiver)
    if receiver.type in ("identifier", "field_access", "scoped_identifier") and template.static \
            and written.rpartition(".")[2] == owner and is_owner(written, call):
        return True
    if receiver.type in ("identifier", "field_access"):
        declared = _declared_type(java, receiver)
        if declared and declared.rpartition(".")[2] == owner and is_owner(declared, call):
            return True
    return False


def _declared_type(java: JavaFile, node: tree_sitter.Node) -> str:
    if node.type == "field_access":
        target, field = node.child_by_field_name("object"), node.child_by_field_name("field")
        if target is None or target.type != "this" or field is None:
            return ""
        owner = java.enclosing_class(node)
        info = owner.fields.get(java.text(field)) if owner is not None else None
        return info.type_text.split("<", 1)[0] if info is not None else ""
    found = java.lookup(java.text(node), node)
    return found[2].type_text.split("<", 1)[0] if found is not None else ""

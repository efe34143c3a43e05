"""Whether a client made in Java code can ever run: its settings matter only if it is created and started.

A client made by instance code (a constructor, an instance method or field) of a class whose constructors are all
private, that no code of its file instantiates (`new C(..)`, `C::new`), and that carries no annotation a framework
could instantiate it by (Spring can call a private constructor of a `@Component`), is never created. A consumer held
by a local variable that its method never starts (`consumer.start()`, in a lambda of the method too) and never
hands on (returns it, stores it, passes it to a call, or uses it in any other way than calling its methods) is
never started: nothing else can reach it. Either is left out of the facts, its settings do nothing. Anything else
counts as running: a field, a returned or passed client, or a `@Bean` may be started by code rmqlint does not
follow.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.frontends.java.index import JavaFile

# Annotations that never make a framework instantiate a class (Lombok's, the compiler's).
_INERT_ANNOTATIONS = frozenset({"Slf4j", "Log4j2", "Log4j", "CommonsLog", "Getter", "Setter", "Data", "ToString",
                                "EqualsAndHashCode", "SuppressWarnings", "Deprecated", "UtilityClass"})
_MEMBERS = ("method_declaration", "constructor_declaration", "field_declaration", "static_initializer", "block")


def never_created(java: JavaFile, creation: tree_sitter.Node) -> bool:
    """Whether the object whose code creates the client at `creation` can never exist."""
    member = next((a for a in java.ancestors(creation) if a.type in _MEMBERS and a.parent is not None
                   and a.parent.type in ("class_body", "enum_body_declarations")), None)
    if member is None or member.type == "static_initializer" or "static" in _modifiers(member):
        return False  # static code runs without an instance
    info = java.enclosing_class(creation)
    declaration = info.declaration if info is not None else None
    if declaration is None or declaration.type != "class_declaration" or not info.name:
        return False
    constructors = [c for c in info.body.named_children if c.type == "constructor_declaration"]
    if not constructors or any("private" not in _modifiers(c) for c in constructors):
        return False
    if any(_annotation_name(java, a) not in _INERT_ANNOTATIONS for a in _annotations(declaration)):
        return False
    return not _instantiated(java, info.name)


def never_started(java: JavaFile, creation: tree_sitter.Node, variable: str) -> bool:
    """Whether the client made at `creation` into the local `variable` is neither started nor handed on by the
    method holding it."""
    method = java.enclosing_callable(creation)
    if method is None:
        return False
    stack = [method]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "identifier" or java.text(node) != variable:
            continue
        parent = node.parent
        if parent is None:
            return False
        if parent.type == "method_invocation":
            target, name = parent.child_by_field_name("object"), parent.child_by_field_name("name")
            if target is not None and target.id == node.id:
                if name is not None and java.text(name) == "start":
                    return False
                continue  # configured: a setter, subscribe, a listener
            if name is not None and name.id == node.id:
                continue  # a method of the same name
            return False  # an argument: handed on
        if parent.type == "variable_declarator" and parent.child_by_field_name("name") is not None \
                and parent.child_by_field_name("name").id == node.id:
            continue
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") is not None \
                and parent.child_by_field_name("left").id == node.id:
            continue
        if parent.type == "field_access" and parent.child_by_field_name("field") is not None \
                and parent.child_by_field_name("field").id == node.id:
            continue  # `this.consumer`, `other.consumer`: another variable of the same name
        return False  # returned, stored, compared, captured by an expression: it may reach code that starts it
    return True


def _instantiated(java: JavaFile, name: str) -> bool:
    """Whether this file creates an object of the class `name` (`new Name(..)`, `Name::new`)."""
    stack = [java.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "object_creation_expression":
            type_node = node.child_by_field_name("type")
            if type_node is not None and java.text(type_node).partition("<")[0].rpartition(".")[2] == name:
                return True
        elif node.type == "method_reference" and java.text(node).replace(" ", "").endswith(f"{name}::new"):
            return True
        stack.extend(node.named_children)
    return False


def _modifiers(declaration: tree_sitter.Node) -> set[str]:
    return {m.type for child in declaration.children if child.type == "modifiers" for m in child.children}


def _annotations(declaration: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [a for child in declaration.children if child.type == "modifiers" for a in child.named_children
            if a.type in ("annotation", "marker_annotation")]


def _annotation_name(java: JavaFile, annotation: tree_sitter.Node) -> str:
    name = annotation.child_by_field_name("name")
    return java.text(name).rpartition(".")[2] if name is not None else ""

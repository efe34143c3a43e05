"""What one parsed Java file declares and how its names resolve to values.

`JavaFile` (a `JavaTree`: text, locations, scope chains) indexes classes, fields and imports (walking only the top
level and class bodies), then answers lazily: the declaration a simple name refers to, and the `Value` of an expression (literal, concatenation, same-file constant, `ConstRef` to another
file, or `Dynamic`).
Nothing here recurses over the tree's depth: walks use explicit stacks and expression evaluation is depth-capped,
so a 10,000-deep file cannot hit Python's recursion limit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import tree_sitter

from rmqlint import flow
from rmqlint.frontends.java import flow as java_flow
from rmqlint.frontends.java.tree import CALLABLES, CLASS_BODIES, CLASS_DECLS, LANGUAGE, JavaTree
from rmqlint.values import (Concat, ConstRef, Dynamic, Lit, OneOf, Param, Placeholder, Property, Value, concat, one_of,
                            parse_spring_string)

# Field types whose `static final` values are exported as constants.
CONSTANT_TYPES = frozenset(
    {"String", "java.lang.String", "int", "Integer", "long", "Long", "short", "byte", "char", "boolean"}
)
STRING_TYPES = frozenset({"String", "java.lang.String", "CharSequence"})
NUMBER_TYPES = frozenset({"int", "Integer", "long", "Long", "short", "Short", "byte", "Byte"})
_INTEGER_LITERALS = frozenset(
    {"decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal"}
)
# Calls whose value is unique per host or process (`Dynamic.per`): (the receiver's last name, "" for any; method).
_CALLS_UNIQUE_PER = {
    ("UtilAll", "getPid"): "pid", ("", "pid"): "pid", ("getRuntimeMXBean()", "getName"): "pid",  # pid@host
    ("System", "nanoTime"): "process", ("System", "currentTimeMillis"): "process", ("UUID", "randomUUID"): "process",
    ("", "randomUUID"): "process",
}
# Getters of a class's name (`Orders.class.getSimpleName()`, `getClass().getName()`).
_CLASS_NAME_GETTERS = frozenset({"getSimpleName", "getName", "getCanonicalName", "getTypeName"})
_ENVIRONMENT_TYPES = frozenset({"Environment", "ConfigurableEnvironment", "StandardEnvironment", "PropertyResolver",
                                "ConfigurablePropertyResolver", "StandardServletEnvironment"})
# Types whose getters are never a bound configuration property (messages, collections, the JDK's own).
_NOT_BEANS = frozenset({"String", "Object", "Integer", "Long", "Boolean", "Map", "List", "Set", "Collection",
                        "Optional", "Class", "Message", "MessageExt", "Thread", "Environment"})
MAX_EVAL_DEPTH = 100  # deeper expressions or constant chains are Dynamic(TOO_DEEP_EXPRESSION), reported by java.parse
TOO_DEEP_EXPRESSION = f"expression nested more than {MAX_EVAL_DEPTH} levels deep"

_LOCALS_QUERY = tree_sitter.Query(
    LANGUAGE,
    "[(local_variable_declaration) (resource) (enhanced_for_statement) (catch_formal_parameter)] @decl",
)
_ASSIGNED_QUERY = tree_sitter.Query(
    LANGUAGE,
    """
    (assignment_expression left: (identifier) @name)
    (assignment_expression left: (field_access field: (identifier) @name))
    (update_expression (identifier) @name)
    """,
)

_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " ", '"': '"', "'": "'", "\\": "\\"}


@dataclass
class FieldInfo:
    name: str
    type_text: str
    static: bool
    final: bool
    value: tree_sitter.Node | None
    declaration: tree_sitter.Node
    annotations: list[tree_sitter.Node]


@dataclass
class ClassInfo:
    """A class body: a named class, interface, enum, record, annotation type, or an anonymous class."""

    name: str  # "" for an anonymous class
    body: tree_sitter.Node
    declaration: tree_sitter.Node | None
    supertypes: list[str]  # implemented / extended interfaces first, then the superclass (lookup order)
    fields: dict[str, FieldInfo] = field(default_factory=dict)


@dataclass
class LocalInfo:
    """A local variable or parameter of one callable (blocks are merged: the nearest earlier declaration wins)."""

    name: str
    type_text: str
    value: tree_sitter.Node | None  # initializer, None for parameters and loop/catch variables
    declaration: tree_sitter.Node
    is_parameter: bool
    annotations: list[tree_sitter.Node] = field(default_factory=list)  # a parameter's, e.g. @Value("${..}")
    position: int | None = None  # a method's formal parameter (not varargs): its index, as callers pass it


class JavaFile(JavaTree):
    """A parsed Java file's declarations and values, on top of its tree and scopes (`JavaTree`)."""

    def __init__(self, path: str, source: bytes, tree: tree_sitter.Tree) -> None:
        super().__init__(path, source, tree)
        self.package = ""
        self.imports: dict[str, str] = {}  # simple name -> qualified name (single-type imports)
        self.static_imports: dict[str, list[str]] = {}  # member name -> classes it is imported from
        self.static_wildcards: list[str] = []  # classes whose static members are all imported
        self.wildcard_imports: list[str] = []
        self.classes: list[ClassInfo] = []  # named classes in source order
        self.classes_by_name: dict[str, ClassInfo] = {}
        self._class_by_body: dict[int, ClassInfo] = {}
        self._locals: dict[int, dict[str, list[LocalInfo]]] = {}
        self._assigned: set[str] | None = None
        self._field_values: dict[int, Value] = {}
        self._in_progress: set[int] = set()
        self._index_declarations()

    # --- declarations -------------------------------------------------------------------------------------

    def _index_declarations(self) -> None:
        # Declarations live at the top level and in class bodies: walk only those, never method bodies, which
        # is much cheaper than a query over the whole tree. (Local classes inside methods are not indexed.)
        found: list[ClassInfo] = []
        stack = [self.tree.root_node]
        while stack:
            parent = stack.pop()
            for child in parent.named_children:
                kind = child.type
                if kind in ("field_declaration", "constant_declaration"):
                    self._index_field(child, parent)
                elif kind in CLASS_DECLS:
                    body = child.child_by_field_name("body")
                    name_node = child.child_by_field_name("name")
                    if body is None or name_node is None:
                        continue
                    info = ClassInfo(self.text(name_node), body, child, self._supertypes(child))
                    self._class_by_body[body.id] = info
                    found.append(info)
                    stack.append(body)
                elif kind in ("enum_body_declarations", "ERROR", "enum_body"):
                    stack.append(child)
                elif kind == "import_declaration":
                    self._index_import(child)
                elif kind == "package_declaration":
                    for part in child.named_children:
                        if part.type in ("scoped_identifier", "identifier"):
                            self.package = _squash(self.text(part))
        found.sort(key=lambda info: info.body.start_byte)
        self.classes = found
        for info in found:
            self.classes_by_name.setdefault(info.name, info)

    def _index_import(self, node: tree_sitter.Node) -> None:
        is_static = wildcard = False
        target = None
        for child in node.children:
            kind = child.type
            if kind == "static":
                is_static = True
            elif kind == "asterisk":
                wildcard = True
            elif kind in ("scoped_identifier", "identifier"):
                target = child
        if target is None:
            return
        name = _squash(self.text(target))
        if is_static and wildcard:
            self.static_wildcards.append(name)
        elif is_static:
            owner, _, member = name.rpartition(".")
            if owner:
                self.static_imports.setdefault(member, []).append(owner)
        elif wildcard:
            self.wildcard_imports.append(name)
        else:
            self.imports[name.rpartition(".")[2]] = name

    def _supertypes(self, node: tree_sitter.Node) -> list[str]:
        interfaces: list[str] = []
        superclass: list[str] = []
        for child in node.named_children:
            if child.type in ("super_interfaces", "extends_interfaces"):
                for type_list in child.named_children:
                    interfaces.extend(type_name(self, t) for t in type_list.named_children)
            elif child.type == "superclass":
                superclass.extend(type_name(self, t) for t in child.named_children)
        return [name for name in interfaces + superclass if name]

    def _index_field(self, node: tree_sitter.Node, parent: tree_sitter.Node) -> None:
        if parent.type == "enum_body_declarations":
            parent = parent.parent
        if parent is None:
            return
        owner = self.class_of_body(parent)
        if owner is None:
            return
        implicit = node.type == "constant_declaration" or parent.type in ("interface_body", "annotation_type_body")
        static = final = implicit
        annotations: list[tree_sitter.Node] = []
        type_node = node.child_by_field_name("type")
        for child in node.children:
            if child.type == "modifiers":
                for modifier in child.children:
                    if modifier.type == "static":
                        static = True
                    elif modifier.type == "final":
                        final = True
                    elif modifier.type in ("annotation", "marker_annotation"):
                        annotations.append(modifier)
        type_text = _squash(self.text(type_node)) if type_node is not None else ""
        for declarator in node.children_by_field_name("declarator"):
            name_node = declarator.child_by_field_name("name")
            if name_node is None:
                continue
            name = self.text(name_node)
            owner.fields[name] = FieldInfo(
                name, type_text, static, final, declarator.child_by_field_name("value"), declarator, annotations
            )

    def class_of_body(self, body: tree_sitter.Node) -> ClassInfo | None:
        """The class a body node belongs to; anonymous class bodies are indexed on first use."""
        info = self._class_by_body.get(body.id)
        if info is not None or body.type not in CLASS_BODIES:
            return info
        creation = body.parent
        supertypes = []
        if creation is not None and creation.type == "object_creation_expression":
            type_node = creation.child_by_field_name("type")
            if type_node is not None:
                supertypes.append(type_name(self, type_node))
        info = ClassInfo("", body, None, supertypes)
        self._class_by_body[body.id] = info
        for child in body.named_children:
            if child.type in ("field_declaration", "constant_declaration"):
                self._index_field(child, body)
        return info

    def constants(self) -> dict[str, Value]:
        """`Class.NAME` -> value for every static final field of a constant type, and every interface field."""
        result: dict[str, Value] = {}
        for info in self.classes:
            for name, info_field in info.fields.items():
                if not (info_field.static and info_field.final) or info_field.value is None:
                    continue
                if info_field.type_text not in CONSTANT_TYPES:
                    continue
                result[f"{info.name}.{name}"] = self.field_value(info_field)
        result.update(self.annotation_defaults())
        return result

    # --- scopes -------------------------------------------------------------------------------------------

    def enclosing_class(self, node: tree_sitter.Node, named: bool = False) -> ClassInfo | None:
        for scope in self.scopes(node):
            if scope.type in CLASS_BODIES:
                info = self.class_of_body(scope)
                if info is not None and (info.name or not named):
                    return info
        return None

    def enclosing_callable(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        for scope in self.scopes(node):
            if scope.type in CLASS_BODIES:
                return None
            return scope
        return None

    def locals_of(self, callable_node: tree_sitter.Node) -> dict[str, list[LocalInfo]]:
        cached = self._locals.get(callable_node.id)
        if cached is not None:
            return cached
        found: dict[str, list[LocalInfo]] = {}

        def add(name_node, type_node, value, declaration, is_parameter):
            if name_node is not None:
                name = self.text(name_node)
                type_text = _squash(self.text(type_node)) if type_node is not None else ""
                found.setdefault(name, []).append(LocalInfo(name, type_text, value, declaration, is_parameter))

        params = callable_node.child_by_field_name("parameters")
        if params is not None and params.type == "identifier":  # x -> ...
            add(params, None, None, params, True)
        elif params is not None:
            formal = [p for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")]
            for param in params.named_children:
                if param.type == "identifier":  # (x, y) -> ...
                    add(param, None, None, param, True)
                elif param.type in ("formal_parameter", "spread_parameter"):
                    name_node = param.child_by_field_name("name")
                    if name_node is None:  # spread_parameter keeps its name in a declarator
                        declarator = next((c for c in param.named_children if c.type == "variable_declarator"), None)
                        name_node = declarator.child_by_field_name("name") if declarator is not None else None
                    add(name_node, param.child_by_field_name("type"), None, param, True)
                    if name_node is not None:
                        info = found[self.text(name_node)][-1]
                        info.annotations = [
                            a for m in param.named_children if m.type == "modifiers"
                            for a in m.named_children if a.type in ("annotation", "marker_annotation")]
                        if callable_node.type in ("method_declaration", "constructor_declaration") \
                                and param.type == "formal_parameter":
                            info.position = [p.id for p in formal].index(param.id)
        body = callable_node.child_by_field_name("body")
        if body is None:  # a static or instance initializer
            body = callable_node if callable_node.type == "block" else next(
                (c for c in callable_node.named_children if c.type == "block"), None)
        if body is not None:
            # The query finds declarations at any depth; keep those whose nearest scope is this callable.
            for node in tree_sitter.QueryCursor(_LOCALS_QUERY).captures(body).get("decl", []):
                if not self.innermost_scope_is(node, callable_node):
                    continue
                kind = node.type
                if kind == "local_variable_declaration":
                    type_node = node.child_by_field_name("type")
                    for declarator in node.children_by_field_name("declarator"):
                        add(declarator.child_by_field_name("name"), type_node,
                            declarator.child_by_field_name("value"), declarator, False)
                elif kind == "resource":
                    add(node.child_by_field_name("name"), node.child_by_field_name("type"),
                        node.child_by_field_name("value"), node, False)
                else:  # enhanced for, catch parameter: values we cannot know
                    add(node.child_by_field_name("name"), node.child_by_field_name("type"), None, node, True)
        for entries in found.values():
            entries.sort(key=lambda entry: entry.declaration.start_byte)
        self._locals[callable_node.id] = found
        return found

    def method_key(self, method: tree_sitter.Node) -> str | None:
        """How calls name a method: `com.acme.Outer.Inner.start/2` (package, classes, name, number of parameters),
        a constructor `com.acme.Pool.<init>/2`; None for a method of an anonymous or local class, or anything
        else."""
        if method.type not in ("method_declaration", "constructor_declaration") \
                or method.child_by_field_name("name") is None:
            return None
        names = []
        for scope in self.scopes(method):
            if scope.type in CLASS_BODIES:
                info = self.class_of_body(scope)
                if info is None or not info.name:
                    return None
                names.append(info.name)
            elif names:
                return None  # a class declared inside a method
        if not names:
            return None
        params = method.child_by_field_name("parameters")
        arity = sum(1 for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")) \
            if params is not None else 0
        qualified = ".".join([*([self.package] if self.package else []), *reversed(names)])
        name = "<init>" if method.type == "constructor_declaration" else self.text(method.child_by_field_name("name"))
        return f"{qualified}.{name}/{arity}"

    def assigned_names(self) -> set[str]:
        """Names assigned anywhere in the file after their declaration (so not constant)."""
        if self._assigned is None:
            captures = tree_sitter.QueryCursor(_ASSIGNED_QUERY).captures(self.tree.root_node)
            self._assigned = {self.text(n) for n in captures.get("name", [])}
        return self._assigned

    def lookup(self, name: str, at: tree_sitter.Node) -> tuple[str, tree_sitter.Node, LocalInfo | FieldInfo] | None:
        """The declaration `name` refers to at `at`: ("local", callable, info) or ("field", class body, info)."""
        for scope in self.scopes(at):
            if scope.type in CLASS_BODIES:
                info = self.class_of_body(scope)
                if info is not None and name in info.fields:
                    return "field", scope, info.fields[name]
                continue
            candidates = self.locals_of(scope).get(name)
            if candidates:
                before = [c for c in candidates if c.declaration.start_byte <= at.start_byte]
                return "local", scope, (before[-1] if before else candidates[0])
        return None

    # --- values -------------------------------------------------------------------------------------------

    def value(self, node: tree_sitter.Node | None, spring: bool = False) -> Value:
        """The value of an expression; `spring=True` also reads `${...}` placeholders in its text."""
        if node is None:
            return Dynamic("no value")
        result = self._eval(node, 0)[0]
        return spring_value(result) if spring else result

    def field_value(self, info: FieldInfo) -> Value:
        key = info.declaration.id
        cached = self._field_values.get(key)
        if cached is not None:
            return cached
        result = self._field_value(info, 0)[0]
        self._field_values[key] = result
        return result

    def spring_injected(self, annotations: list[tree_sitter.Node], what: str) -> Value | None:
        """The value Spring injects through `@Value("${key:default}")`, None without such an annotation."""
        for annotation in annotations:
            name_node = annotation.child_by_field_name("name")
            if name_node is not None and self.text(name_node).rpartition(".")[2] == "Value":
                args = annotation.child_by_field_name("arguments")
                literal = args.named_children[0] if args is not None and args.named_children else None
                if literal is not None and literal.type == "string_literal":
                    text = string_literal_text(self, literal)
                    if text is not None and "#{" not in text:
                        return parse_spring_string(text)
                return Dynamic(f"{what} is injected by Spring")
        return None

    def _field_value(self, info: FieldInfo, depth: int, at: tree_sitter.Node | None = None) -> tuple[Value, str]:
        """A field's value, read at `at` (None: wherever it is read)."""
        kind = _kind_of_type(info.type_text)
        injected = self.spring_injected(info.annotations, f"field {info.name}")
        if injected is not None:
            return injected, kind
        given = self.constructor_assigned(info) if not info.static else None
        if given is not None and (at is None or self._constructed_before(at, given)):
            key = info.declaration.id
            if key in self._in_progress:
                return Dynamic(f"field {info.name} refers to itself"), kind
            self._in_progress.add(key)
            try:
                result, value_kind = self._eval(given.child_by_field_name("right"), depth + 1)
            finally:
                self._in_progress.discard(key)
            return result, (kind if kind != "unknown" else value_kind)
        if info.value is None:
            injected = self.constructor_injected(info) if info.final else None
            if injected is not None:
                return injected, kind
            return Dynamic(f"field {info.name} has no initializer"), kind
        if not info.final and info.name in self.assigned_names():
            return Dynamic(f"field {info.name} is assigned"), kind
        key = info.declaration.id
        if key in self._in_progress:
            return Dynamic(f"constant {info.name} refers to itself"), kind
        self._in_progress.add(key)
        try:
            result, value_kind = self._eval(info.value, depth + 1)
        finally:
            self._in_progress.discard(key)
        return result, (kind if kind != "unknown" else value_kind)

    def constructor_assigned(self, info: FieldInfo) -> tree_sitter.Node | None:
        """The assignment that gives an instance field its value in its class's constructor: the field's only
        assignment in the class, a statement of one constructor's own body (`this.min = min;`), every other
        constructor delegating to another first (`this(..)`), so every object holds what its construction gave it
        (a parameter is a `Param` of the constructor, bound at each `new`). None otherwise (a setter, a method, a
        branch, `+=` may change it)."""
        body = self._class_body_of(info)
        holder = info.declaration.parent
        if body is None or holder is None or not (info.final or "private" in {
                m.type for c in holder.children if c.type == "modifiers" for m in c.children}):
            return None  # other classes may assign a field that is neither private nor final
        writes = self._field_writes(body).get(info.name, [])
        if len(writes) != 1 or writes[0].type != "assignment_expression":
            return None
        assignment = writes[0]
        operator = assignment.child_by_field_name("operator")
        statement = assignment.parent
        constructor_body = statement.parent if statement is not None else None
        constructor = constructor_body.parent if constructor_body is not None else None
        if operator is None or operator.type != "=" or statement.type != "expression_statement" \
                or constructor_body.type != "constructor_body" or constructor is None \
                or constructor.parent is None or constructor.parent.id != body.id:
            return None
        others = [c for c in body.named_children if c.type == "constructor_declaration" and c.id != constructor.id]
        if others and self._spring_constructor(constructor):
            return None  # Spring calls one of the constructors; which one is not followed
        for other in others:
                first = next((c for c in (other.child_by_field_name("body") or other).named_children
                              if c.type not in ("line_comment", "block_comment")), None)
                if first is None or first.type != "explicit_constructor_invocation" \
                        or first.child_by_field_name("constructor") is None \
                        or first.child_by_field_name("constructor").type != "this":
                    return None
        return assignment

    def _spring_constructor(self, constructor: tree_sitter.Node) -> bool:
        """A constructor with a parameter Spring injects (`@Value("${..}")`)."""
        params = constructor.child_by_field_name("parameters")
        return any(a.type == "annotation" and self.text(a.child_by_field_name("name")).rpartition(".")[2] == "Value"
                   for p in (params.named_children if params is not None else ())
                   for m in p.named_children if m.type == "modifiers" for a in m.named_children)

    def _constructed_before(self, at: tree_sitter.Node, assignment: tree_sitter.Node) -> bool:
        """Does a read at `at` run once the constructor's assignment has run: in a method, or in a constructor after
        it (not in a field initializer or an initializer block, which run before any constructor body)?"""
        constructor = assignment.parent.parent.parent
        for scope in self.scopes(at):
            if scope.type in CLASS_BODIES:
                return False
            if scope.id == constructor.id:
                return at.start_byte >= assignment.end_byte
            if scope.type in ("method_declaration", "constructor_declaration"):
                return True
        return False

    def _class_body_of(self, info: FieldInfo) -> tree_sitter.Node | None:
        body = info.declaration.parent
        while body is not None and body.type not in CLASS_BODIES:
            body = body.parent
        return body

    def _field_writes(self, body: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
        """Field name -> the assignments and `++`/`--` of a field of the class `body` declares, found once per
        class: `this.name = ..`, or `name = ..` where the name is that field."""
        memo = self.memo.setdefault("field_writes", {})
        found = memo.get(body.id)
        if found is not None:
            return found
        found = {}
        for name_node in tree_sitter.QueryCursor(_ASSIGNED_QUERY).captures(body).get("name", []):
            write = name_node.parent
            if write.type == "field_access":
                write = write.parent
            target = write.child_by_field_name("left") if write.type == "assignment_expression" else \
                (write.named_children[0] if write.named_children else None)
            name = self.text(name_node)
            info = self.class_of_body(body)
            field_info = info.fields.get(name) if info is not None else None
            if target is not None and field_info is not None and self._writes_field(target, field_info, body):
                found.setdefault(name, []).append(write)
        memo[body.id] = found
        return found

    def _writes_field(self, left: tree_sitter.Node, info: FieldInfo, body: tree_sitter.Node) -> bool:
        if left.type == "field_access":
            target, field_name = left.child_by_field_name("object"), left.child_by_field_name("field")
            if target is None or target.type != "this" or field_name is None or self.text(field_name) != info.name:
                return False
            nearest = next((scope for scope in self.scopes(left) if scope.type in CLASS_BODIES), None)
            return nearest is not None and nearest.id == body.id
        if left.type != "identifier" or self.text(left) != info.name:
            return False
        found = self.lookup(info.name, left)
        return found is not None and found[0] == "field" and found[1].id == body.id

    def constructor_injected(self, info: FieldInfo) -> Value | None:
        """Spring constructor injection: a final field set once, in the one constructor of its class, from a
        parameter annotated `@Value("${..}")` (`this.name = name;`)."""
        body = info.declaration.parent
        while body is not None and body.type not in CLASS_BODIES:
            body = body.parent
        if body is None:
            return None
        constructors = [c for c in body.named_children if c.type == "constructor_declaration"]
        if len(constructors) != 1:
            return None
        assignments = []
        stack = [body]
        while stack:
            node = stack.pop()
            if node.type == "assignment_expression" and self._assigns_field(node, info, body):
                assignments.append(node)
            stack.extend(node.named_children)
        if len(assignments) != 1:
            return None
        right = assignments[0].child_by_field_name("right")
        enclosing = self.enclosing_callable(assignments[0])
        if right is None or right.type != "identifier" or enclosing is None or enclosing.id != constructors[0].id:
            return None
        found = self.lookup(self.text(right), right)
        if found is None or found[0] != "local" or not getattr(found[2], "is_parameter", False):
            return None
        return self.spring_injected(found[2].annotations, f"parameter {found[2].name}")

    def _assigns_field(self, assignment: tree_sitter.Node, info: FieldInfo, body: tree_sitter.Node) -> bool:
        left = assignment.child_by_field_name("left")
        if left is None:
            return False
        if left.type == "field_access":
            target, field_name = left.child_by_field_name("object"), left.child_by_field_name("field")
            if target is None or target.type != "this" or field_name is None or self.text(field_name) != info.name:
                return False
            nearest = next((scope for scope in self.scopes(left) if scope.type in CLASS_BODIES), None)
            return nearest is not None and nearest.id == body.id
        if left.type != "identifier" or self.text(left) != info.name:
            return False
        found = self.lookup(info.name, left)
        return found is not None and found[0] == "field" and found[1].id == body.id

    def _eval(self, node: tree_sitter.Node, depth: int) -> tuple[Value, str]:
        """(value, kind) with kind "str" | "num" | "bool" | "unknown"."""
        while node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]  # parentheses change nothing: followed without using up the depth
        if depth > MAX_EVAL_DEPTH:
            return Dynamic(TOO_DEEP_EXPRESSION), "unknown"
        kind = node.type
        if kind == "string_literal":
            text = string_literal_text(self, node)
            if text is None:
                return Dynamic("malformed string literal"), "str"
            return Lit(text, self._literal_origin(node, text)), "str"
        if kind == "character_literal":
            text = _unescape(self.text(node)[1:-1])
            return (Lit(text) if text is not None else Dynamic("malformed character literal")), "str"
        if kind in _INTEGER_LITERALS:
            number = _integer(self.text(node), kind)
            if number is None:
                return Dynamic("malformed number"), "num"
            written = self.span_of(node) if self.text(node) == str(number) else None  # plain decimal digits
            return Lit(str(number), written), "num"
        if kind in ("true", "false"):
            return Lit(kind), "bool"
        if kind == "null_literal":
            return Dynamic("null"), "unknown"
        if kind == "parenthesized_expression":
            return Dynamic("empty parentheses"), "unknown"
        if kind == "cast_expression":
            value_node = node.child_by_field_name("value")
            type_node = node.child_by_field_name("type")
            if value_node is None:
                return Dynamic("cast"), "unknown"
            result, value_kind = self._eval(value_node, depth + 1)
            cast_kind = _kind_of_type(_squash(self.text(type_node))) if type_node is not None else "unknown"
            if cast_kind == "num" and value_kind != "num":
                return Dynamic("numeric cast"), "num"
            return result, (cast_kind if cast_kind != "unknown" else value_kind)
        if kind == "unary_expression":
            operand = node.child_by_field_name("operand")
            operator = node.child_by_field_name("operator")
            if operand is not None and operator is not None and operator.type in ("-", "+"):
                result, operand_kind = self._eval(operand, depth + 1)
                if isinstance(result, Lit) and operand_kind == "num":
                    return Lit(str(-int(result.text) if operator.type == "-" else int(result.text))), "num"
            return Dynamic("unary expression"), "unknown"
        if kind == "binary_expression":
            return self._eval_binary(node, depth)
        if kind == "ternary_expression":
            return self._eval_choice([node.child_by_field_name("consequence"),
                                      node.child_by_field_name("alternative")], depth)
        if kind == "switch_expression":
            return self._eval_choice(_switch_results(node), depth)
        if kind == "identifier":
            return self._eval_name(self.text(node), node, depth)
        if kind == "field_access":
            return self._eval_field_access(node, depth)
        if kind == "method_invocation":
            return self._eval_call(node, depth)
        if kind == "object_creation_expression":
            return Dynamic("object creation"), "unknown"
        return Dynamic(f"{kind.replace('_', ' ')} is not a constant"), "unknown"

    def _eval_call(self, node: tree_sitter.Node, depth: int) -> tuple[Value, str]:
        """A call's value is not known; what it is unique per is, for the calls that name a host or a process
        (`Dynamic.per`): `System.getenv("HOSTNAME")`, `InetAddress.getLocalHost().getHostName()`, a pid, a random
        or time value, and `String.valueOf(..)` / `.toString()` of one of those."""
        name_node = node.child_by_field_name("name")
        name = self.text(name_node) if name_node is not None else ""
        target = node.child_by_field_name("object")
        written = _squash(self.text(target)) if target is not None else ""
        args = [a for a in node.child_by_field_name("arguments").named_children] \
            if node.child_by_field_name("arguments") is not None else []
        if not args and name in _CLASS_NAME_GETTERS and target is not None:
            named = self._class_name(target, name)
            if named is not None:
                return named, "str"
        if name in ("getProperty", "getRequiredProperty") and 1 <= len(args) <= 3 and self._is_environment(target):
            return self._environment_property(args, depth), "unknown"
        if not args and target is not None:
            element = self._annotation_element(target, name)
            if element is not None:
                return element, "unknown"
        if not args:
            bound = self._bean_property(node)
            if bound is not None:
                return bound, "unknown"
        if name == "getenv" and written.rpartition(".")[2] == "System" and len(args) == 1:
            key, _kind = self._eval(args[0], depth + 1)
            if isinstance(key, Lit):
                return Dynamic(f"environment variable {key.text}", "host" if key.text == "HOSTNAME" else ""), "str"
            return Dynamic("environment variable"), "str"
        if name in ("getHostName", "getHostAddress", "getCanonicalHostName") and "getLocalHost" in written:
            return Dynamic("the host's name or address", "host"), "str"
        per = _CALLS_UNIQUE_PER.get((written.rpartition(".")[2], name)) or _CALLS_UNIQUE_PER.get(("", name))
        if per is None and name in ("valueOf", "toString") and len(args) == 1:
            inner, _kind = self._eval(args[0], depth + 1)
            if isinstance(inner, Dynamic) and inner.per:
                return inner, "str"
        if per is None and name == "toString" and not args and target is not None \
                and target.type == "method_invocation":
            inner, _kind = self._eval(target, depth + 1)
            if isinstance(inner, Dynamic) and inner.per:
                return inner, "str"
        if per is not None:
            return Dynamic(f"call of {name}()", per), "unknown"
        return Dynamic(f"call of {name or 'a method'}()"), "unknown"

    def _class_name(self, target: tree_sitter.Node, method: str) -> Value | None:
        """The name of a class (`getSimpleName()`, `getName()`...): its text for `Orders.class` and for
        `getClass()` in a final class, else text not known here but the same in every process (`Dynamic.per`
        "none"): `handler.getClass()`, a variable of type `Class`. None when `target` is not a class."""
        if target.type == "class_literal":
            written = _squash(self.text(target.named_children[0])) if target.named_children else ""
            text = self._class_text(written, method)
            return Lit(text) if text is not None else Dynamic(f"the name of class {written}", "none")
        if target.type == "method_invocation":
            called = target.child_by_field_name("name")
            owner = target.child_by_field_name("object")
            called_args = target.child_by_field_name("arguments")
            if called is None or self.text(called) != "getClass" or (
                    called_args is not None and called_args.named_children):
                if called is not None and self.text(called) in ("getTargetClass", "getUserClass"):
                    return Dynamic("the name of a bean's class", "none")  # Spring's AopUtils, ClassUtils
                return None
            if owner is None or owner.type == "this":
                info = self.enclosing_class(target)
                if info is not None and info.name and info.declaration is not None and _is_final(self, info):
                    text = self._class_text(info.name, method)
                    if text is not None:
                        return Lit(text)
                return Dynamic("the name of this object's class", "none")
            return Dynamic("the name of an object's class", "none")
        if target.type == "identifier":
            found = self.lookup(self.text(target), target)
            if found is not None and found[2].type_text.partition("<")[0].rpartition(".")[2] == "Class":
                return Dynamic(f"the name of class {self.text(target)}", "none")
        return None

    def _class_text(self, written: str, method: str) -> str | None:
        """What `method` gives for the class written `written` in this file, when that is certain: its simple name,
        or for a top-level class of this file or an imported one, its qualified name."""
        simple = written.rpartition(".")[2]
        if method == "getSimpleName":
            return simple
        if "." in written:
            return None  # a nested or qualified name: `getName()` writes `Outer$Inner`, not followed
        if written in self.imports:
            return self.imports[written]
        info = self.classes_by_name.get(written)
        if info is not None and info.declaration is not None and info.declaration.parent is not None \
                and info.declaration.parent.type == "program":
            return f"{self.package}.{written}" if self.package else written
        return None

    def _annotation_element(self, target: tree_sitter.Node, element: str) -> Param | None:
        """`ann.threadMin()` on an annotation of the project read by its own code (`ann` from
        `getAnnotation(MqConsumer.class)`, or of an annotation type this file declares): what each use of the
        annotation writes there, else the element's declared default (`Param` bound by name at every use of the
        annotation, `rmqlint.calls`). None for anything else."""
        annotation = self._annotation_type(target)
        if annotation is None:
            return None
        qualified = self.imports.get(annotation) or (f"{self.package}.{annotation}" if self.package else annotation)
        if qualified.rpartition(".")[2] == "RocketMQMessageListener":
            return None  # the starter's annotation (or a fork of it): its listeners are facts of their own
        return Param(-1, element, f"@{qualified}", ConstRef("java", (qualified,), f"{element}()"))

    def _annotation_type(self, target: tree_sitter.Node) -> str | None:
        """The simple name of the annotation type `target` is an instance of, when the code says so."""
        if target.type == "method_invocation":
            return _annotation_getter_type(self, target)
        if target.type != "identifier":
            return None
        found = self.lookup(self.text(target), target)
        if found is None:
            return None
        kind, scope, info = found
        written = info.type_text.partition("<")[0]
        if not written or "[" in written:
            return None
        declared = self.local_class(written)
        if declared is not None and declared.declaration is not None \
                and declared.declaration.type == "annotation_type_declaration":
            return declared.name
        if kind == "local" and not info.is_parameter and info.value is not None \
                and info.name not in java_flow.assignments_in(self, scope):
            getter = info.value
            while getter.type in ("parenthesized_expression", "cast_expression"):
                getter = getter.child_by_field_name("value") if getter.type == "cast_expression" else \
                    (getter.named_children[0] if getter.named_children else getter)
            if getter.type == "method_invocation" and _annotation_getter_type(self, getter) == written.rpartition(".")[2]:
                return written.rpartition(".")[2]
        return None

    def annotation_defaults(self) -> dict[str, Value]:
        """`MqConsumer.threadMin()` -> the declared default of each element of this file's annotation types that
        has one (an enum constant as its name, as setters read it), for `Param.default` of elements read
        elsewhere."""
        found: dict[str, Value] = {}
        for info in self.classes:
            if info.declaration is None or info.declaration.type != "annotation_type_declaration":
                continue
            for element in info.body.named_children:
                name, default = element.child_by_field_name("name"), element.child_by_field_name("value")
                if element.type != "annotation_type_element_declaration" or name is None or default is None:
                    continue
                kind = element.child_by_field_name("type")
                value = self.value(default)
                if default.type == "field_access" and kind is not None and \
                        _squash(self.text(kind)) not in CONSTANT_TYPES | STRING_TYPES:
                    value = Lit(self.text(default.child_by_field_name("field")))  # `MessageModel.CLUSTERING`
                found[f"{info.name}.{self.text(name)}()"] = value
        return found

    def _is_environment(self, target: tree_sitter.Node | None) -> bool:
        """Is `target` Spring's `Environment` (a variable of that type, `context.getEnvironment()`)?"""
        if target is None:
            return False
        if target.type == "method_invocation":
            called = target.child_by_field_name("name")
            return called is not None and self.text(called) == "getEnvironment"
        name = self.text(target.child_by_field_name("field")) if target.type == "field_access" and \
            target.child_by_field_name("field") is not None else self.text(target) if target.type == "identifier" \
            else None
        if name is None:
            return False
        found = self.lookup(name, target)
        if found is None:
            return name in ("environment", "env")  # a field of a superclass (EnvironmentAware)
        return found[2].type_text.rpartition(".")[2] in _ENVIRONMENT_TYPES

    def _environment_property(self, args: list, depth: int) -> Value:
        """`environment.getProperty("key")`, `("key", "default")`, `("key", Integer.class, 10)`: the placeholder
        `${key:default}` Spring resolves the same way."""
        key, _kind = self._eval(args[0], depth + 1)
        if not isinstance(key, Lit):
            return Dynamic("a property whose key is not known")
        default = None
        if len(args) == 2 and args[1].type != "class_literal":
            default = self._eval(args[1], depth + 1)[0]
        elif len(args) == 3:
            default = self._eval(args[2], depth + 1)[0]
        return Placeholder(key.text, default)

    def _bean_property(self, node: tree_sitter.Node) -> Property | None:
        """`props.getConsumer().getThreadMin()` (getters, record accessors or fields) read from a field or
        parameter Spring injects (a field without an initializer, a method's parameter): the `Property` its
        class binds there, which the linker looks up. None for anything else."""
        path: list[str] = []
        current = node
        root = None
        while root is None:
            if len(path) > 8:
                return None
            if current.type == "method_invocation":
                args = current.child_by_field_name("arguments")
                name_node = current.child_by_field_name("name")
                target = current.child_by_field_name("object")
                prop = property_name(self.text(name_node)) if name_node is not None else None
                if (args is not None and args.named_children) or prop is None or target is None:
                    return None
                path.append(prop)
                current = target
            elif current.type == "field_access":
                target, field_node = current.child_by_field_name("object"), current.child_by_field_name("field")
                if target is None or field_node is None:
                    return None
                if target.type == "this":
                    owner = self.enclosing_class(current)
                    root = owner.fields.get(self.text(field_node)) if owner is not None else None
                    if root is None:
                        return None
                    break
                path.append(self.text(field_node))
                current = target
            elif current.type == "identifier":
                found = self.lookup(self.text(current), current)
                if found is None:
                    return None
                root = found[2]
                break
            else:
                return None
        if not path:
            return None
        if isinstance(root, FieldInfo):
            if root.static or root.value is not None:
                return None  # not injected: a constant, or an object the class makes itself
        elif not (root.is_parameter and root.declaration.type == "formal_parameter"):
            return None  # a local (an object made here), a loop variable
        written = root.type_text.partition("<")[0]
        simple = written.rpartition(".")[2]
        if not simple or not simple[0].isupper() or "[" in written or simple in _NOT_BEANS:
            return None
        return Property("java", (written,), tuple(reversed(path)))

    def _literal_origin(self, node: tree_sitter.Node, text: str):
        """Where a string literal's text is written exactly as it reads (quotes left out): no escape, one line."""
        origin = self.span_of(node, inner=1)
        if origin is None or origin.text != text or origin.line != origin.end_line:
            return None
        return origin

    def _eval_choice(self, nodes: list, depth: int) -> tuple[Value, str]:
        """One of the values of `nodes` (the branches of `c ? a : b`, the results of a switch expression)."""
        if not nodes or any(n is None for n in nodes):
            return Dynamic("incomplete conditional"), "unknown"
        results = [self._eval(n, depth + 1) for n in nodes]
        kinds = {kind for _value, kind in results}
        kind = kinds.pop() if len(kinds) == 1 else ("str" if "str" in kinds else "unknown")
        return one_of(value for value, _kind in results), kind

    def _eval_binary(self, node: tree_sitter.Node, depth: int) -> tuple[Value, str]:
        operator = node.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        if op != "+":
            return self._eval_arithmetic(node, op, depth)
        # Flatten the left spine of a `+` chain iteratively: "a" + b + c + ... may be thousands long.
        operands: list[tree_sitter.Node] = []
        current = node
        while current.type == "binary_expression":
            current_op = current.child_by_field_name("operator")
            if current_op is None or current_op.type != "+":
                break
            right = current.child_by_field_name("right")
            if right is not None:
                operands.append(right)
            current = current.child_by_field_name("left")
            if current is None:
                return Dynamic("incomplete expression"), "unknown"
        operands.append(current)
        operands.reverse()
        acc, acc_kind = self._eval(operands[0], depth + 1)
        for operand in operands[1:]:
            value, value_kind = self._eval(operand, depth + 1)
            if acc_kind == "str" or value_kind == "str":
                acc, acc_kind = concat([acc, value]), "str"
            elif acc_kind == "num" and value_kind == "num":
                if isinstance(acc, Lit) and isinstance(value, Lit):
                    acc = Lit(str(int(acc.text) + int(value.text)))
                else:
                    acc = Dynamic("arithmetic on unresolved numbers")
            elif acc_kind == "unknown" and value_kind == "unknown":
                # Both sides are references to other files' constants: string concatenation by far the most
                # common case; the linker folds the parts once they are known.
                acc = concat([acc, value])
            else:
                acc, acc_kind = Dynamic("'+' of values of unknown type"), "unknown"
        return acc, acc_kind

    def _eval_arithmetic(self, node: tree_sitter.Node, op: str, depth: int) -> tuple[Value, str]:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op in ("-", "*") and left is not None and right is not None:
            a, a_kind = self._eval(left, depth + 1)
            b, b_kind = self._eval(right, depth + 1)
            if a_kind == b_kind == "num" and isinstance(a, Lit) and isinstance(b, Lit):
                x, y = int(a.text), int(b.text)
                return Lit(str(x - y if op == "-" else x * y)), "num"
        return Dynamic(f"'{op}' expression"), "unknown"

    def _eval_name(self, name: str, at: tree_sitter.Node, depth: int) -> tuple[Value, str]:
        found = self.lookup(name, at)
        if found is not None:
            kind, _scope, info = found
            if kind == "field":
                assert isinstance(info, FieldInfo)
                return self._field_value(info, depth, at)
            assert isinstance(info, LocalInfo)
            type_kind = _kind_of_type(info.type_text)
            injected = self.spring_injected(info.annotations, f"parameter {name}")
            if injected is not None and name not in java_flow.assignments_in(self, _scope):
                return injected, type_kind
            if info.is_parameter:
                method = self.method_key(_scope) if info.position is not None else None
                if method is not None and name not in java_flow.assignments_in(self, _scope):
                    return Param(info.position, name, method), type_kind  # each call of the method binds it
                return Dynamic(f"{name} is a parameter"), type_kind
            if info.value is not None and name not in java_flow.assignments_in(self, _scope):
                result, value_kind = self._eval(info.value, depth + 1)
                return result, (type_kind if type_kind != "unknown" else value_kind)
            result, value_kind = self._eval_local(name, _scope, at, depth)
            return result, (type_kind if type_kind != "unknown" else value_kind)
        inherited = self._inherited_field(name, at)
        if inherited is not None:
            return self._field_value(inherited, depth)
        scopes = self.unqualified_scopes(name, at)
        if not scopes:
            return Dynamic(f"{name} is not declared in this file"), "unknown"
        for scope in scopes:  # a static import of this file's own class (`@ConfigurationProperties(PREFIX)`)
            owner = self.local_class(scope)
            declared = owner.fields.get(name) if owner is not None else None
            if declared is not None and declared.static:
                return self._field_value(declared, depth)
        return ConstRef("java", scopes, name), "unknown"

    def _eval_local(self, name: str, callable_node: tree_sitter.Node, at: tree_sitter.Node,
                    depth: int) -> tuple[Value, str]:
        """A local assigned more than once: one of the values of the assignments that reach `at`."""
        try:
            reaching = java_flow.reaching_values(self, callable_node, name, at)
        except flow.Unsupported as why:
            return Dynamic(f"local {name} is reassigned ({why})"), "unknown"
        if not reaching:
            return Dynamic(f"local {name} has no value here"), "unknown"
        results = []
        for value_node in reaching:
            if value_node is java_flow.NOT_PLAIN:
                results.append((Dynamic(f"local {name} is updated in place"), "unknown"))
            elif value_node.id in self._in_progress:
                results.append((Dynamic(f"local {name} refers to itself"), "unknown"))
            else:
                self._in_progress.add(value_node.id)
                try:
                    results.append(self._eval(value_node, depth + 1))
                finally:
                    self._in_progress.discard(value_node.id)
        kinds = {kind for _value, kind in results}
        return one_of(value for value, _kind in results), (kinds.pop() if len(kinds) == 1 else "unknown")

    def _inherited_field(self, name: str, at: tree_sitter.Node) -> FieldInfo | None:
        """A static field inherited from a supertype declared in this same file."""
        queue: list[str] = []
        for scope in self.scopes(at):
            if scope.type in CLASS_BODIES:
                info = self.class_of_body(scope)
                if info is not None:
                    queue.extend(info.supertypes)
        seen: set[str] = set()
        while queue:
            supertype = queue.pop(0)
            if supertype in seen:
                continue
            seen.add(supertype)
            owner = self.local_class(supertype)
            if owner is None:
                continue
            found = owner.fields.get(name)
            if found is not None and found.static:
                return found
            queue.extend(owner.supertypes)
        return None

    def unqualified_scopes(self, name: str, at: tree_sitter.Node) -> tuple[str, ...]:
        """Candidate classes for a name not declared in the file: static imports, interfaces, superclasses."""
        scopes: list[str] = list(self.static_imports.get(name, []))
        scopes.extend(self.static_wildcards)
        for scope in self.scopes(at):
            if scope.type in CLASS_BODIES:
                info = self.class_of_body(scope)
                if info is not None:
                    scopes.extend(info.supertypes)
        unique: list[str] = []
        for scope in scopes:
            if scope and scope not in unique:
                unique.append(scope)
        return tuple(unique)

    def _eval_field_access(self, node: tree_sitter.Node, depth: int) -> tuple[Value, str]:
        target = node.child_by_field_name("object")
        field_node = node.child_by_field_name("field")
        if target is None or field_node is None:
            return Dynamic("incomplete field access"), "unknown"
        name = self.text(field_node)
        if target.type == "this":
            owner = self.enclosing_class(node)
            if owner is not None and name in owner.fields:
                return self._field_value(owner.fields[name], depth, node)
            return Dynamic(f"this.{name} is not declared in this file"), "unknown"
        if target.type in ("identifier", "field_access", "method_invocation"):
            bound = self._bean_property(node)
            if bound is not None:
                return bound, "unknown"
        if target.type not in ("identifier", "field_access", "scoped_identifier"):
            return Dynamic(f"field {name} of an expression"), "unknown"
        qualifier = _squash(self.text(target))
        owner = self.local_class(qualifier)
        if owner is not None:
            info_field = owner.fields.get(name)
            if info_field is not None and info_field.static:
                return self._field_value(info_field, depth)
            if info_field is not None:
                return Dynamic(f"{qualifier}.{name} is not static"), "unknown"
            return ConstRef("java", (qualifier,), name), "unknown"
        if target.type == "identifier" and self.lookup(qualifier, node) is not None:
            return Dynamic(f"field {name} of variable {qualifier}"), "unknown"
        return ConstRef("java", (qualifier,), name), "unknown"

    def local_class(self, qualifier: str) -> ClassInfo | None:
        """The class of this file a qualifier names (`Topics`, `Outer.Topics`, `com.x.Topics`), if any."""
        if self.package and qualifier.startswith(self.package + "."):
            qualifier = qualifier[len(self.package) + 1 :]
        parts = qualifier.split(".")
        if not all(p in self.classes_by_name for p in parts):
            return None
        return self.classes_by_name[parts[-1]]


# Calls that give an annotation of a class, method or bean: `getAnnotation(MqConsumer.class)`, Spring's
# `AnnotationUtils.findAnnotation(type, MqConsumer.class)`, `context.findAnnotationOnBean(name, MqConsumer.class)`.
_ANNOTATION_GETTERS = frozenset({"getAnnotation", "getDeclaredAnnotation", "findAnnotation", "getMergedAnnotation",
                                 "findMergedAnnotation", "findAnnotationOnBean"})


def _annotation_getter_type(java: JavaFile, call: tree_sitter.Node) -> str | None:
    """The simple name of `T` in a call getting annotation `T.class`, else None."""
    name = call.child_by_field_name("name")
    args = call.child_by_field_name("arguments")
    last = args.named_children[-1] if args is not None and args.named_children else None
    if name is None or java.text(name) not in _ANNOTATION_GETTERS or last is None or last.type != "class_literal" \
            or not last.named_children:
        return None
    return _squash(java.text(last.named_children[0])).rpartition(".")[2]


def property_name(method: str) -> str | None:
    """The property a getter reads, as JavaBeans names it: `getThreadMin` -> `threadMin`, `isOrderly` ->
    `orderly`, `getURL` -> `URL`; a record's accessor (`threadMin()`) is its own name; None for `get()`."""
    for head in ("get", "is"):
        if method.startswith(head) and len(method) > len(head) and method[len(head)].isupper():
            rest = method[len(head):]
            return rest if len(rest) > 1 and rest[1].isupper() else rest[0].lower() + rest[1:]
    if method in ("get", "is", "getClass", "hashCode", "toString"):
        return None
    return method


def _is_final(java: JavaFile, info: ClassInfo) -> bool:
    """A class no other class extends: declared `final`, a record or an enum."""
    declaration = info.declaration
    if declaration is None:
        return False
    if declaration.type in ("record_declaration", "enum_declaration"):
        return True
    return any(m.type == "modifiers" and any(c.type == "final" for c in m.children) for m in declaration.children)


def _switch_results(node: tree_sitter.Node) -> list:
    """The expressions a switch expression may give: each `case X -> value` and each `yield value` (not those of a
    switch nested in it); a rule that throws gives nothing."""
    block = node.child_by_field_name("body")
    results: list = []
    stack = list(reversed(block.named_children)) if block is not None else []
    while stack:
        current = stack.pop()
        if current.type == "switch_rule":
            body = [c for c in current.named_children if c.type != "switch_label"]
            if body and body[0].type == "expression_statement":
                results.append(body[0].named_children[0] if body[0].named_children else None)
            elif body and body[0].type != "throw_statement":
                stack.extend(reversed(body))
        elif current.type == "yield_statement":
            results.append(current.named_children[0] if current.named_children else None)
        elif current.type not in ("switch_expression", "lambda_expression", "class_body"):
            stack.extend(reversed(current.named_children))
    return results


def spring_value(value: Value) -> Value:
    """Read `${...}` placeholders in the literal text of a value (Spring resolves them in annotation strings); a
    constant of another class is marked so that the linker reads its text once it knows it."""
    if isinstance(value, Lit):
        return parse_spring_string(value.text, value.origin)
    if isinstance(value, ConstRef):
        return dataclasses.replace(value, spring=True)
    if isinstance(value, Concat):
        return concat([spring_value(p) if isinstance(p, (Lit, ConstRef)) else p for p in value.parts])
    if isinstance(value, OneOf):
        return one_of(spring_value(a) for a in value.alternatives)
    return value


def type_name(java: JavaFile, node: tree_sitter.Node) -> str:
    """A type as written, without type arguments: `Map<K, V>` -> `Map`, `a.b.C` -> `a.b.C`."""
    if node.type == "generic_type":
        base = next((c for c in node.named_children if c.type != "type_arguments"), None)
        return type_name(java, base) if base is not None else ""
    return _squash(java.text(node))


def simple_type_name(java: JavaFile, node: tree_sitter.Node | None) -> str:
    if node is None:
        return ""
    return type_name(java, node).rpartition(".")[2]


def string_literal_text(java: JavaFile, node: tree_sitter.Node) -> str | None:
    raw = java.text(node)
    if raw.startswith('"""'):
        return _text_block(raw[3:-3] if raw.endswith('"""') and len(raw) >= 6 else raw[3:])
    if len(raw) < 2 or not raw.endswith('"'):
        return None
    return _unescape(raw[1:-1])


def _text_block(content: str) -> str | None:
    # JLS 3.10.6: drop the opening line, strip incidental indentation and trailing spaces, then escapes.
    lines = content.split("\n")
    if len(lines) < 2:
        return None
    lines = lines[1:]
    closing_on_own_line = lines[-1].strip() == ""
    significant = [ln for ln in lines[:-1] if ln.strip()] + ([lines[-1]] if closing_on_own_line else [lines[-1]])
    indent = min((len(ln) - len(ln.lstrip(" \t")) for ln in significant if ln.strip() or ln is lines[-1]), default=0)
    stripped = [ln[indent:].rstrip(" \t") for ln in lines]
    if closing_on_own_line:
        stripped[-1] = ""
    return _unescape("\n".join(stripped), text_block=True)


def _unescape(body: str, text_block: bool = False) -> str | None:
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(body):
            return None
        nxt = body[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "u":
            j = i + 1
            while j < len(body) and body[j] == "u":
                j += 1
            digits = body[j : j + 4]
            if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
                return None
            out.append(chr(int(digits, 16)))
            i = j + 4
        elif nxt in "01234567":
            j = i + 1
            limit = 4 if nxt in "0123" else 3
            while j < len(body) and j < i + limit and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1 : j], 8)))
            i = j
        elif text_block and nxt == "\n":
            i += 2  # line continuation
        else:
            return None
    return "".join(out)


def _integer(text: str, kind: str) -> int | None:
    digits = text.replace("_", "").rstrip("lL")
    try:
        if kind == "hex_integer_literal":
            return int(digits[2:], 16)
        if kind == "binary_integer_literal":
            return int(digits[2:], 2)
        if kind == "octal_integer_literal":
            return int(digits[1:] or "0", 8)
        return int(digits)
    except ValueError:
        return None


def _kind_of_type(type_text: str) -> str:
    if type_text in STRING_TYPES or type_text == "char":
        return "str"
    if type_text in NUMBER_TYPES:
        return "num"
    if type_text == "boolean":
        return "bool"
    return "unknown"


def _squash(text: str) -> str:
    """Drop whitespace from a qualified name or type written across lines (`com . x . Topics`)."""
    return "".join(text.split())

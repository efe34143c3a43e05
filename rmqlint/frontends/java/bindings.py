"""What Spring binds into the objects of one Java file's classes (`FileFacts.properties`), for the `Property`
values other files read through getters (`props.getConsumer().getThreadMin()` on an injected bean):

- a `@ConfigurationProperties(prefix = "mq")` class: property `consumer.threadMin` is
  `${mq.consumer.threadMin:<default>}` (Spring's relaxed binding is the linker's: keys compare in canonical form,
  so `mq.consumer.thread-min` sets it), for its fields, the fields of classes of the same file its fields hold
  (nested configuration), and a record's components. The default is the field's initializer, else a
  `@DefaultValue` of the record component or constructor parameter of that name (constructor binding), else a
  primitive's zero; a field that holds none of those is unknown until a file sets the key;
- a field of any class injected with `@Value("${..}")`, or a final field set from such a constructor parameter.

A nested class held by exactly one field of a bound class is also exported under its own name (a method taking
`MqProps.Consumer props` reads that field's binding). A getter that returns a field (`return threadMin;`, what
Lombok's `@Data` writes) names that field's property, whatever its own name; a getter that computes something else
leaves its property unknown. Nothing is guessed: a property the class does not bind is not exported, and a read
of it stays Dynamic.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.frontends.java.clients import ENUM_CONSTANTS, ENUM_TYPES
from rmqlint.frontends.java.index import ClassInfo, JavaFile, property_name, string_literal_text
from rmqlint.values import Lit, Placeholder, Value

MAX_NESTING = 4  # nested configuration classes followed this deep (`a.b.c.d`); real ones nest one or two
_ZERO = {"int": "0", "long": "0", "short": "0", "byte": "0", "boolean": "false"}
_ANNOTATIONS = ("annotation", "marker_annotation")


def bound_properties(java: JavaFile) -> dict[str, Value]:
    """"Class.path" -> what Spring binds there, for every class of the file that binds something."""
    found: dict[str, Value] = {}
    for info in java.classes:
        if info.declaration is None or not info.name:
            continue
        prefix = configuration_prefix(java, info.declaration)
        props: dict[str, Value] = {}
        held: dict[str, list[str]] = {}  # a nested class of this file -> the paths of the fields holding it
        if prefix is not None:
            _bind(java, info, prefix, "", props, held, 0)
        else:
            for name, field in info.fields.items():
                if field.static:
                    continue
                injected = java.spring_injected(field.annotations, f"field {name}")
                if injected is None and field.final and field.value is None:
                    injected = java.constructor_injected(field)
                if injected is not None:
                    props[name] = injected
        if not props:
            continue
        _getters(java, info, props)
        for path, value in props.items():
            found[f"{info.name}.{path}"] = value
        for nested, paths in held.items():
            if len(paths) == 1:
                head = paths[0] + "."
                for path, value in props.items():
                    if path.startswith(head):
                        found.setdefault(f"{nested}.{path[len(head):]}", value)
    return found


def configuration_prefix(java: JavaFile, declaration: tree_sitter.Node) -> str | None:
    """The prefix of a class's `@ConfigurationProperties("..")` (`prefix =` or `value =`); None without one or when
    the prefix is not literal text."""
    for annotation in _annotations(declaration):
        if _simple_name(java, annotation) != "ConfigurationProperties":
            continue
        args = annotation.child_by_field_name("arguments")
        for arg in args.named_children if args is not None else ():
            value = arg
            if arg.type == "element_value_pair":
                key = arg.child_by_field_name("key")
                if key is None or java.text(key) not in ("prefix", "value"):
                    continue
                value = arg.child_by_field_name("value")
            resolved = java.value(value) if value is not None else None
            return resolved.text.strip(".") if isinstance(resolved, Lit) else None
        return ""  # no prefix: keys bind at the top level
    return None


def _bind(java: JavaFile, info: ClassInfo, prefix: str, path: str, props: dict[str, Value],
          held: dict[str, list[str]], depth: int) -> None:
    defaults = _constructor_defaults(java, info)
    members = [(name, field.type_text, field.value, field.annotations)
               for name, field in info.fields.items() if not field.static]
    members += _record_components(java, info)
    for name, type_text, initializer, annotations in members:
        key = f"{prefix}.{name}" if prefix else name
        simple = type_text.partition("<")[0].rpartition(".")[2]
        nested = java.classes_by_name.get(simple)
        if nested is not None and nested.declaration is not None and nested.declaration.type in (
                "class_declaration", "record_declaration") and nested is not info:
            if depth < MAX_NESTING:
                held.setdefault(simple, []).append(path + name)
                _bind(java, nested, key, f"{path}{name}.", props, held, depth + 1)
            continue
        injected = java.spring_injected(annotations, f"field {name}")
        if injected is not None:
            props[path + name] = injected
            continue
        default = _default(java, initializer, simple) if initializer is not None else defaults.get(name)
        if default is None and type_text in _ZERO:
            default = Lit(_ZERO[type_text])
        props[path + name] = Placeholder(key, default)


def _default(java: JavaFile, initializer: tree_sitter.Node, type_name: str) -> Value:
    """A field's initializer; a RocketMQ enum constant (`MessageModel.CLUSTERING`) as its name, as setters read
    it."""
    if type_name in ENUM_TYPES and initializer.type == "field_access":
        constant = initializer.child_by_field_name("field")
        if constant is not None and java.text(constant) in ENUM_CONSTANTS:
            return Lit(java.text(constant))
    return java.value(initializer)


def _record_components(java: JavaFile, info: ClassInfo) -> list[tuple[str, str, None, list]]:
    """A record's components as (name, type, no initializer, annotations)."""
    if info.declaration is None or info.declaration.type != "record_declaration":
        return []
    params = info.declaration.child_by_field_name("parameters")
    found = []
    for param in params.named_children if params is not None else ():
        name, type_node = param.child_by_field_name("name"), param.child_by_field_name("type")
        if param.type == "formal_parameter" and name is not None and type_node is not None:
            found.append((java.text(name), "".join(java.text(type_node).split()), None, []))
    return found


def _constructor_defaults(java: JavaFile, info: ClassInfo) -> dict[str, Value]:
    """`@DefaultValue("..")` of the constructor parameters (a record's components), by parameter name."""
    lists = []
    if info.declaration is not None and info.declaration.type == "record_declaration":
        params = info.declaration.child_by_field_name("parameters")
        if params is not None:
            lists.append(params)
    for member in info.body.named_children:
        if member.type == "constructor_declaration":
            params = member.child_by_field_name("parameters")
            if params is not None:
                lists.append(params)
    defaults: dict[str, Value] = {}
    for params in lists:
        for param in params.named_children:
            name = param.child_by_field_name("name") if param.type == "formal_parameter" else None
            if name is None:
                continue
            for annotation in _annotations(param):
                if _simple_name(java, annotation) != "DefaultValue":
                    continue
                args = annotation.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children else None
                text = string_literal_text(java, first) if first is not None and first.type == "string_literal" \
                    else None
                if text is not None:
                    defaults[java.text(name)] = Lit(text)
    return defaults


def _getters(java: JavaFile, info: ClassInfo, props: dict[str, Value]) -> None:
    """Getters written by hand: one that returns another field names that field's property; one that computes
    something else leaves its property unknown (removed)."""
    fields = {path.partition(".")[0] for path in props}
    for member in info.body.named_children:
        params = member.child_by_field_name("parameters") if member.type == "method_declaration" else None
        name_node = member.child_by_field_name("name") if member.type == "method_declaration" else None
        if name_node is None or (params is not None and params.named_children):
            continue
        prop = property_name(java.text(name_node))
        if prop not in fields:
            continue
        returned = _returned_field(java, member)
        if returned == prop:
            continue
        copies = {prop + path[len(returned):]: value for path, value in props.items()
                  if returned in fields and (path == returned or path.startswith(returned + "."))}
        for path in [p for p in props if p == prop or p.startswith(prop + ".")]:
            del props[path]
        props.update(copies)


def _returned_field(java: JavaFile, method: tree_sitter.Node) -> str | None:
    """The field a method's body returns as it is (`return x;`, `return this.x;`), else None."""
    body = method.child_by_field_name("body")
    statements = body.named_children if body is not None else []
    statements = [s for s in statements if s.type not in ("line_comment", "block_comment")]
    if len(statements) != 1 or statements[0].type != "return_statement" or not statements[0].named_children:
        return None
    returned = statements[0].named_children[0]
    if returned.type == "identifier":
        return java.text(returned)
    if returned.type == "field_access":
        target, field = returned.child_by_field_name("object"), returned.child_by_field_name("field")
        if target is not None and target.type == "this" and field is not None:
            return java.text(field)
    return None


def _annotations(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [a for m in node.named_children if m.type == "modifiers" for a in m.named_children if a.type in _ANNOTATIONS]


def _simple_name(java: JavaFile, annotation: tree_sitter.Node) -> str:
    name = annotation.child_by_field_name("name")
    return java.text(name).rpartition(".")[2] if name is not None else ""

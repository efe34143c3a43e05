"""Message listeners in Java: find the code a listener expression stands for and what that code does on failure.

A listener can be an anonymous class, a lambda (maybe cast), a method reference, `this`, a variable or field that
holds one of these, or a class of the same file; one picked at run time (from a map or list of handlers, an enum
constant's or a strategy's getter) is of the type the container or method declares (a listener interface's kind,
or a listener class the linker finds). Its body is searched (without entering nested lambdas or classes,
whose returns are not the listener's) for `RECONSUME_LATER`, `throw` statements that escape it, and
`context.setDelayLevelWhenNextConsume(n)`; and (lambdas over the batch included) for `context.setAckIndex(n)` and
reads of `getReconsumeTimes()` that decide to let a message go (`lets_go`).

A listener class of another file (`new CacheRefreshListener()`, or a field, variable or parameter of that type) is
recorded by name (`Listener.class_ref`); every file publishes its own listener classes (`listener_classes`) and the
linker joins the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter

from rmqlint.facts import Listener, Location, Setting
from rmqlint.frontends.java.index import ClassInfo, JavaFile, simple_type_name, type_name
from rmqlint.frontends.java.tree import CALLABLES, CLASS_BODIES, LANGUAGE

LISTENER_INTERFACES = {"MessageListenerConcurrently": "concurrently", "MessageListenerOrderly": "orderly"}
LISTENER_KINDS = {
    "MessageListenerConcurrently": "concurrently",
    "MessageListenerOrderly": "orderly",
    "ConsumeConcurrentlyStatus": "concurrently",
    "ConsumeOrderlyStatus": "orderly",
    "ConsumeConcurrentlyContext": "concurrently",
    "ConsumeOrderlyContext": "orderly",
}


# Types a listener variable may be declared with that are no class of the project: RocketMQ's interfaces.
_NOT_CLASSES = frozenset({*LISTENER_KINDS, "MessageListener", "Object"})


@dataclass(frozen=True)
class ListenerFlavor:
    """Which client API a listener belongs to: its callback method and the status that asks for a retry."""

    method: str
    retry_status: str


V4 = ListenerFlavor("consumeMessage", "RECONSUME_LATER")  # MessageListenerConcurrently / Orderly
V5 = ListenerFlavor("consume", "FAILURE")  # rocketmq-clients: MessageListener.consume -> ConsumeResult
MAX_INDIRECTIONS = 8  # variable -> variable -> ... chains followed before giving up
MAX_DELEGATION = 3  # `return handle(msgs, ctx);` -> handle's body -> ... followed this deep
STATUS_TYPES = frozenset({"ConsumeConcurrentlyStatus", "ConsumeOrderlyStatus", "ConsumeResult"})

_BODY_QUERY = tree_sitter.Query(
    LANGUAGE,
    """
    ((identifier) @retry (#any-of? @retry "RECONSUME_LATER" "FAILURE"))
    (throw_statement) @throw
    (method_invocation name: (identifier) @delay_name (#eq? @delay_name "setDelayLevelWhenNextConsume")) @delay
    (return_statement (method_invocation) @delegate)
    (method_invocation name: (identifier) @ack_name (#eq? @ack_name "setAckIndex")) @ack
    (method_invocation name: (identifier) @count_name (#eq? @count_name "getReconsumeTimes")) @count
    """,
)
_CATCH_ALL = frozenset({"Throwable", "Exception", "RuntimeException", "java.lang.Throwable", "java.lang.Exception",
                        "java.lang.RuntimeException"})


@dataclass
class ListenerCode:
    """What a listener's code does: the Listener fact plus any delay level it sets on the context."""

    listener: Listener
    delay_levels: list[Setting] = field(default_factory=list)


def analyze_listener(java: JavaFile, expression: tree_sitter.Node, flavor: ListenerFlavor = V4) -> ListenerCode:
    """The listener an argument of registerMessageListener/setMessageListener stands for."""
    kind_hint = "unknown"
    declared_type = ""  # the declared type of the last variable followed, when its value cannot be followed
    node: tree_sitter.Node | None = expression
    for _ in range(MAX_INDIRECTIONS):
        if node is None:
            break
        kind = node.type
        if kind == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
            continue
        if kind == "cast_expression":
            kind_hint = LISTENER_KINDS.get(simple_type_name(java, node.child_by_field_name("type")), kind_hint)
            node = node.child_by_field_name("value")
            continue
        if kind == "object_creation_expression":
            return _from_creation(java, node, kind_hint, flavor)
        if kind == "lambda_expression":
            return _from_lambda(java, node, kind_hint, flavor)
        if kind == "method_reference":
            return _from_method_reference(java, node, kind_hint, expression, flavor)
        if kind == "this":
            owner = java.enclosing_class(node)
            if owner is not None:
                return _from_class(java, owner, kind_hint, expression, flavor)
            break
        if kind == "method_invocation":
            # A listener picked at run time: from a map or list of handlers, an enum constant's or a strategy's
            # getter, a method of this class. The declared type says what kind of listener it is.
            declared_type = _returned_type(java, node)
            kind_hint = LISTENER_KINDS.get(declared_type.rpartition(".")[2], kind_hint)
            break
        if kind in ("identifier", "field_access"):
            declared = _declaration(java, node)
            if declared is None:
                break
            declared_type = declared.type_text.partition("<")[0]
            kind_hint = LISTENER_KINDS.get(declared_type.rpartition(".")[2], kind_hint)
            if declared.value is not None:
                node = declared.value
                continue
            owner = java.classes_by_name.get(declared_type.rpartition(".")[2])
            if owner is not None:
                return _from_class(java, owner, kind_hint, expression, flavor)
            break
        break
    # A variable of a class type whose value we cannot see (a field set in a constructor, an injected bean, a
    # parameter, a factory's result): the object is of that class, which the linker may find in another file.
    return ListenerCode(Listener(kind_hint, java.location(expression),
                                 class_ref=_class_ref(java, declared_type, expression)))


def _class_ref(java: JavaFile, written: str, at: tree_sitter.Node) -> str:
    """`written` when it may name a listener class of another file; "" for this file's classes, RocketMQ's own
    listener types, type parameters in scope at `at`, `var`, arrays and primitives."""
    if not written or written == "var" or "[" in written or written.rpartition(".")[2] in _NOT_CLASSES:
        return ""
    if not written[0].isupper() and "." not in written:  # primitives
        return ""
    if java.local_class(written) is not None or written in _type_parameters(java, at):
        return ""
    return written


def _type_parameters(java: JavaFile, node: tree_sitter.Node) -> set[str]:
    """Names of the type parameters of the methods and classes enclosing `node` (`<T extends ..> void f(T l)`)."""
    names = set()
    for ancestor in java.ancestors(node):
        params = ancestor.child_by_field_name("type_parameters") if ancestor.type in (
            "method_declaration", "constructor_declaration", "class_declaration", "interface_declaration",
            "record_declaration") else None
        for param in params.named_children if params is not None else ():
            name = next((c for c in param.named_children if c.type in ("type_identifier", "identifier")), None)
            if name is not None:
                names.add(java.text(name))
    return names


def listener_classes(java: JavaFile) -> dict[str, Listener]:
    """Simple class name -> what the class does as a message listener, for every concrete class of this file that
    implements MessageListenerConcurrently/Orderly, directly or through one superclass of this file (whose
    `consumeMessage` it may inherit). Consumers in other files refer to these by `Listener.class_ref`."""
    found: dict[str, Listener] = {}
    if b"MessageListener" not in java.source:
        return found
    for info in java.classes:
        if info.name in found or info.declaration is None or info.declaration.type not in (
                "class_declaration", "enum_declaration") or _is_abstract(java, info.declaration):
            continue
        kind, parent = _listener_kind(java, info)
        if kind is None:
            continue
        owners = [info] if parent is None else [info, parent]
        method = next((m for owner in owners for m in find_methods(owner, java, V4.method)), None)
        if method is None:
            name_node = info.declaration.child_by_field_name("name")
            found[info.name] = Listener(kind, java.location(name_node or info.declaration))
            continue
        kind = _kind_from_method(java, method, kind)
        body = method.child_by_field_name("body")
        if body is None:
            found[info.name] = Listener(kind, java.location(method))
            continue
        found[info.name] = scan_body(java, body, kind, java.location(method)).listener
    return found


def _listener_kind(java: JavaFile, info: ClassInfo) -> tuple[str | None, ClassInfo | None]:
    """The listener kind a class implements, and the superclass of this file it gets it from (None: itself)."""
    for supertype in info.supertypes:
        kind = LISTENER_INTERFACES.get(supertype.rpartition(".")[2])
        if kind is not None:
            return kind, None
    for supertype in info.supertypes:
        parent = java.local_class(supertype)
        if parent is None or parent is info:
            continue
        for inherited in parent.supertypes:
            kind = LISTENER_INTERFACES.get(inherited.rpartition(".")[2])
            if kind is not None:
                return kind, parent
    return None, None


def _is_abstract(java: JavaFile, declaration: tree_sitter.Node) -> bool:
    # An abstract class is never the listener object itself: a subclass (maybe elsewhere) overrides its code.
    for child in declaration.children:
        if child.type == "modifiers":
            return any(modifier.type == "abstract" for modifier in child.children)
    return False


def scan_body(java: JavaFile, body: tree_sitter.Node, kind: str, where: Location,
              flavor: ListenerFlavor = V4, _seen: tuple[int, ...] = ()) -> ListenerCode:
    """Search a listener body for retries, escaping throws and delay levels, following `return helper(..)` into
    a method of the same class that returns the consume status."""
    listener = Listener(kind, where)
    code = ListenerCode(listener)
    captures = tree_sitter.QueryCursor(_BODY_QUERY).captures(body)
    retries = {}
    for node in captures.get("retry", []):
        if java.text(node) != flavor.retry_status:
            continue
        inner = _inside(java, node, body)
        if inner is not None and _is_produced(node):
            statement = _statement_of(node, inner)
            retries[statement.id] = statement
    listener.reconsume_later = [java.location(n) for n in sorted(retries.values(), key=lambda n: n.start_byte)]
    for node in sorted(captures.get("throw", []), key=lambda n: n.start_byte):
        inner = _inside(java, node, body)
        if inner is not None and _escapes(java, node, inner):
            listener.throws.append(java.location(node))
    # Anywhere in the body, lambdas over the batch included (`msgs.forEach(m -> ...)`).
    listener.ack_index = [java.location(n) for n in sorted(captures.get("ack", []), key=lambda n: n.start_byte)]
    listener.reconsume_times = [java.location(n)
                                for n in sorted(captures.get("count", []), key=lambda n: n.start_byte)
                                if lets_go(java, n, body)]
    for node in sorted(captures.get("delay", []), key=lambda n: n.start_byte):
        args = node.child_by_field_name("arguments")
        if args is not None and len(args.named_children) == 1 and _inside(java, node, body) is not None:
            code.delay_levels.append(Setting(java.value(args.named_children[0]), java.location(node)))
    if len(_seen) < MAX_DELEGATION:
        for call in sorted(captures.get("delegate", []), key=lambda n: n.start_byte):
            inner = _inside(java, call, body)
            helper = _status_helper(java, call) if inner is not None else None
            if helper is None or helper.id in _seen or helper.id == body.id:
                continue
            helper_body = helper.child_by_field_name("body")
            if helper_body is None:
                continue
            found = scan_body(java, helper_body, kind, where, flavor, _seen + (body.id, helper.id))
            listener.reconsume_later.extend(found.listener.reconsume_later)
            listener.ack_index.extend(found.listener.ack_index)
            listener.reconsume_times.extend(found.listener.reconsume_times)
            if not any(n.type in ("try_statement", "try_with_resources_statement") for n in inner):
                listener.throws.extend(found.listener.throws)
            code.delay_levels.extend(found.delay_levels)
    if code.delay_levels:
        listener.delay_level = code.delay_levels[-1]
    return code


# Statuses that let a message go (acknowledged, its offset moves on), whatever the listener did with it.
_LET_GO = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
_EXITS = frozenset({"return_statement", "continue_statement", "break_statement", "throw_statement"})


def lets_go(java: JavaFile, read: tree_sitter.Node, body: tree_sitter.Node) -> bool:
    """Does this read of a message's retry count decide a return that lets the message go? It does when it is in
    the condition of an `if` (or `?:`), directly or through a local assigned from it, whose branches return a
    success status, or whose branch leaves (return, continue, break, throw) before a success return that follows
    it. A count read only to be logged, or a listener that suspends on every path, bounds nothing."""
    conditions = _conditions_reading(java, read, body)
    for statement in conditions:
        branches = [statement.child_by_field_name(f) for f in ("consequence", "alternative")]
        branches = [b for b in branches if b is not None]
        if any(_returns_let_go(java, b) for b in branches):
            return True
        if statement.type == "if_statement" and branches and _leaves(branches[0]) and _returns_let_go(
                java, body, after=statement.end_byte):
            return True
    return False


def _conditions_reading(java: JavaFile, read: tree_sitter.Node, body: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The `if` statements and `?:` expressions whose condition holds `read`, or a local assigned from it."""
    found = []
    names = []
    child, node = read, read.parent
    while node is not None and node.id != body.id:
        if node.type in ("if_statement", "ternary_expression") and node.child_by_field_name("condition") is not None \
                and node.child_by_field_name("condition").id == child.id:
            found.append(node)
        elif node.type == "variable_declarator" and node.child_by_field_name("value") is not None \
                and node.child_by_field_name("value").id == child.id and node.child_by_field_name("name") is not None:
            names.append(java.text(node.child_by_field_name("name")))
        elif node.type == "assignment_expression" and node.child_by_field_name("left") is not None \
                and node.child_by_field_name("left").type == "identifier":
            names.append(java.text(node.child_by_field_name("left")))
        child, node = node, node.parent
    if names:
        stack = [body]
        while stack:
            current = stack.pop()
            if current.type in ("if_statement", "ternary_expression"):
                condition = current.child_by_field_name("condition")
                if condition is not None and current.start_byte > read.start_byte and any(
                        n.type == "identifier" and java.text(n) in names for n in _descendants(condition)):
                    found.append(current)
            stack.extend(current.named_children)
    return found


def _descendants(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.named_children)
    return out


def _returns_let_go(java: JavaFile, node: tree_sitter.Node, after: int = -1) -> bool:
    """Whether `node` holds (after byte `after`) a return of a status that lets the message go, or is such a
    status itself (a branch of `?:`); nested lambdas and classes left out."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("lambda_expression", "class_body"):
            continue
        if current.start_byte > after and (
                (current.type == "return_statement" and current.named_children and
                 java.text(current.named_children[0]).rpartition(".")[2] in _LET_GO) or
                (current.type in ("identifier", "field_access") and current.parent is not None and
                 current.parent.type == "ternary_expression" and java.text(current).rpartition(".")[2] in _LET_GO)):
            return True
        stack.extend(current.named_children)
    return False


def _leaves(branch: tree_sitter.Node) -> bool:
    """A branch that ends by leaving: its last statement returns, continues, breaks or throws."""
    last = branch
    while last.type == "block" and last.named_children:
        last = last.named_children[-1]
    return last.type in _EXITS


def _status_helper(java: JavaFile, call: tree_sitter.Node) -> tree_sitter.Node | None:
    """The method of this file's enclosing classes that `helper(..)` / `this.helper(..)` calls, when it returns
    a consume status (an overload is matched by its number of parameters)."""
    target = call.child_by_field_name("object")
    name = call.child_by_field_name("name")
    if name is None or (target is not None and target.type != "this"):
        return None
    args = call.child_by_field_name("arguments")
    count = len(args.named_children) if args is not None else 0
    for scope in java.scopes(call):
        info = java.class_of_body(scope) if scope.type in CLASS_BODIES else None
        if info is None:
            continue
        for method in find_methods(info, java, java.text(name)):
            params = method.child_by_field_name("parameters")
            arity = len([p for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")]) \
                if params is not None else 0
            if arity == count and simple_type_name(java, method.child_by_field_name("type")) in STATUS_TYPES:
                return method
    return None


def _returned_type(java: JavaFile, call: tree_sitter.Node) -> str:
    """The type a call returns, as declared in this file, "" when not known: `handlers.get(topic)` on a
    `Map<String, OrderHandler>` (the last type argument of a map, list or other container), `pick()` or
    `Strategy.ORDER.listener()` declared in a class of this file."""
    name_node, target = call.child_by_field_name("name"), call.child_by_field_name("object")
    name = java.text(name_node) if name_node is not None else ""
    if target is not None and target.type in ("identifier", "field_access") and name in _CONTAINER_GETTERS:
        declared = _declaration(java, target)
        arguments = _type_arguments(declared.type_text) if declared is not None else []
        if arguments:
            return arguments[-1]
    owners: list[ClassInfo] = []
    if target is None or target.type == "this":
        owner = java.enclosing_class(call, named=True)
        owners = [owner] if owner is not None else []
    elif target.type == "field_access" and target.child_by_field_name("object") is not None:
        owner = java.local_class(java.text(target.child_by_field_name("object")))  # an enum constant
        owners = [owner] if owner is not None else []
    elif target.type == "identifier":
        owner = java.local_class(java.text(target))  # a static method
        declared = _declaration(java, target) if owner is None else None
        if declared is not None:
            owner = java.local_class(declared.type_text.partition("<")[0])  # a strategy object of this file
        owners = [owner] if owner is not None else []
    methods = [m for owner in owners for m in find_methods(owner, java, name)]
    methods += [m for owner in owners for part in owner.body.named_children if part.type == "enum_body_declarations"
                for m in part.named_children if m.type == "method_declaration"
                and m.child_by_field_name("name") is not None and java.text(m.child_by_field_name("name")) == name]
    types = {type_name(java, m.child_by_field_name("type")) for m in methods if m.child_by_field_name("type") is not None}
    return types.pop() if len(types) == 1 else ""


_CONTAINER_GETTERS = frozenset({"get", "getOrDefault", "computeIfAbsent", "remove", "poll", "peek", "next",
                                "orElse", "orElseThrow", "iterator"})


def _type_arguments(type_text: str) -> list[str]:
    """The top-level type arguments of `Map<String, List<X>>`: ["String", "List<X>"], simple names kept as written."""
    if "<" not in type_text or not type_text.endswith(">"):
        return []
    inner = type_text[type_text.index("<") + 1:-1]
    parts, depth, current = [], 0, ""
    for char in inner:
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += char == "<"
        depth -= char == ">"
        current += char
    parts.append(current.strip())
    return [p.partition("<")[0].replace("? extends ", "").strip() for p in parts if p]


def find_methods(info: ClassInfo, java: JavaFile, name: str) -> list[tree_sitter.Node]:
    methods = []
    for child in info.body.named_children:
        if child.type == "method_declaration":
            name_node = child.child_by_field_name("name")
            if name_node is not None and java.text(name_node) == name:
                methods.append(child)
    return methods


def _from_creation(java: JavaFile, node: tree_sitter.Node, kind_hint: str, flavor: ListenerFlavor) -> ListenerCode:
    type_simple = simple_type_name(java, node.child_by_field_name("type"))
    kind = LISTENER_KINDS.get(type_simple, kind_hint)
    body = next((c for c in node.named_children if c.type == "class_body"), None)
    if body is not None:
        info = java.class_of_body(body)
        if info is not None:
            return _from_class(java, info, kind, node, flavor, anonymous=True)
    owner = java.classes_by_name.get(type_simple)
    if owner is not None:
        return _from_class(java, owner, kind, node, flavor)
    type_node = node.child_by_field_name("type")
    written = type_name(java, type_node) if type_node is not None and body is None else ""
    return ListenerCode(Listener(kind, java.location(node), class_ref=_class_ref(java, written, node)))


def _from_class(java: JavaFile, info: ClassInfo, kind_hint: str, expression: tree_sitter.Node,
                flavor: ListenerFlavor, anonymous: bool = False) -> ListenerCode:
    kind = kind_hint
    for supertype in info.supertypes:
        kind = LISTENER_KINDS.get(supertype.rpartition(".")[2], kind)
    methods = find_methods(info, java, flavor.method)
    if not methods:
        return ListenerCode(Listener(kind, java.location(expression)))
    method = methods[0]
    kind = _kind_from_method(java, method, kind)
    body = method.child_by_field_name("body")
    where = java.location(expression if anonymous else method)
    if body is None:
        return ListenerCode(Listener(kind, where))
    return scan_body(java, body, kind, where, flavor)


def _from_lambda(java: JavaFile, node: tree_sitter.Node, kind_hint: str, flavor: ListenerFlavor) -> ListenerCode:
    kind = kind_hint
    params = node.child_by_field_name("parameters")
    if kind == "unknown" and params is not None:
        for param in params.named_children:
            if param.type == "formal_parameter":
                kind = LISTENER_KINDS.get(simple_type_name(java, param.child_by_field_name("type")), kind)
    body = node.child_by_field_name("body")
    if body is None:
        return ListenerCode(Listener(kind, java.location(node)))
    code = scan_body(java, body, kind, java.location(node), flavor)
    if kind == "unknown":
        code.listener.kind = _kind_from_status(java, body)
    return code


def _from_method_reference(java: JavaFile, node: tree_sitter.Node, kind_hint: str,
                           expression: tree_sitter.Node, flavor: ListenerFlavor) -> ListenerCode:
    parts = node.named_children
    if len(parts) < 2 and not (parts and node.children and node.children[0].type == "this"):
        return ListenerCode(Listener(kind_hint, java.location(expression)))
    target = node.children[0]
    method_name = java.text(node.children[-1])
    owner: ClassInfo | None = None
    if target.type == "this":
        owner = java.enclosing_class(node)
    elif target.type in ("identifier", "type_identifier", "scoped_identifier", "field_access"):
        owner = java.local_class(java.text(target).replace(" ", ""))
        if owner is None and target.type == "identifier":
            declared = _declaration(java, target)
            if declared is not None:
                owner = java.classes_by_name.get(declared.type_text.rpartition(".")[2])
    if owner is None:
        return ListenerCode(Listener(kind_hint, java.location(expression)))
    methods = find_methods(owner, java, method_name)
    if not methods:
        return ListenerCode(Listener(kind_hint, java.location(expression)))
    method = methods[0]
    kind = _kind_from_method(java, method, kind_hint)
    body = method.child_by_field_name("body")
    if body is None:
        return ListenerCode(Listener(kind, java.location(method)))
    return scan_body(java, body, kind, java.location(method), flavor)


def _kind_from_method(java: JavaFile, method: tree_sitter.Node, kind: str) -> str:
    returned = LISTENER_KINDS.get(simple_type_name(java, method.child_by_field_name("type")))
    return returned or kind


def _kind_from_status(java: JavaFile, body: tree_sitter.Node) -> str:
    # An implicitly typed lambda: the status enum it returns tells which listener it is.
    text = java.text(body)
    concurrently = "ConsumeConcurrentlyStatus" in text or "ConsumeConcurrentlyContext" in text
    orderly = "ConsumeOrderlyStatus" in text or "ConsumeOrderlyContext" in text
    if concurrently != orderly:
        return "concurrently" if concurrently else "orderly"
    return "unknown"


def _declaration(java: JavaFile, node: tree_sitter.Node):
    """The local or field declaration an identifier / `this.x` refers to, or None."""
    if node.type == "identifier":
        found = java.lookup(java.text(node), node)
        return found[2] if found is not None else None
    target = node.child_by_field_name("object")
    name = node.child_by_field_name("field")
    if target is not None and target.type == "this" and name is not None:
        owner = java.enclosing_class(node)
        if owner is not None:
            return owner.fields.get(java.text(name))
    return None


def _inside(java: JavaFile, node: tree_sitter.Node, body: tree_sitter.Node) -> list[tree_sitter.Node] | None:
    """The nodes between the listener `body` and `node` (outermost first), or None when `node` belongs to a
    nested lambda or class (its returns and throws are not the listener's)."""
    path = java.ancestors(node)
    for index, ancestor in enumerate(path):
        if ancestor.id == body.id:
            inner = path[index + 1 :]
            if any(n.type in CALLABLES or n.type in CLASS_BODIES for n in inner):
                return None
            return inner
    return None


def _is_produced(status: tree_sitter.Node) -> bool:
    """The status is a value the code may hand back (returned, assigned, a branch of `?:`), not one it only
    compares with, logs or passes to a call (`if (s == RECONSUME_LATER)`)."""
    node = status
    parent = node.parent
    while parent is not None and (parent.type == "parenthesized_expression" or (
            parent.type == "field_access" and parent.child_by_field_name("field") == node)):
        node, parent = parent, parent.parent
    if parent is None:
        return True
    if parent.type in ("binary_expression", "argument_list", "switch_label"):
        return False
    return not (parent.type == "method_invocation" and parent.child_by_field_name("object") == node)


def _statement_of(node: tree_sitter.Node, inner: list[tree_sitter.Node]) -> tree_sitter.Node:
    for ancestor in reversed(inner):
        if ancestor.type.endswith("_statement") or ancestor.type == "local_variable_declaration":
            return ancestor
    return node


def _escapes(java: JavaFile, throw: tree_sitter.Node, inner: list[tree_sitter.Node]) -> bool:
    """A throw escapes unless a try around it (inside the body) has a catch that may catch it."""
    thrown = throw.named_children[0] if throw.named_children else None
    thrown_type = None
    if thrown is not None and thrown.type == "object_creation_expression":
        thrown_type = simple_type_name(java, thrown.child_by_field_name("type"))
    chain = inner + [throw]
    for index, ancestor in enumerate(chain[:-1]):
        if ancestor.type in ("try_statement", "try_with_resources_statement"):
            guarded = ancestor.child_by_field_name("body")
            if guarded is not None and guarded.id == chain[index + 1].id:
                for clause in ancestor.named_children:
                    if clause.type == "catch_clause" and _catches(java, clause, thrown_type):
                        return False
    return True


def _catches(java: JavaFile, clause: tree_sitter.Node, thrown_type: str | None) -> bool:
    if thrown_type is None:
        return True  # rethrowing a variable of unknown type: stay quiet
    for param in clause.named_children:
        if param.type != "catch_formal_parameter":
            continue
        for catch_type in param.named_children:
            if catch_type.type != "catch_type":
                continue
            for alternative in catch_type.named_children:
                name = java.text(alternative).replace(" ", "")
                if name in _CATCH_ALL or name.rpartition(".")[2] == thrown_type:
                    return True
    return False

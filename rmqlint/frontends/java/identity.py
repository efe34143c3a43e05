"""Java code that keys messages by an identity that changes on every retry (`rmqlint.identity_uses`).

The reads are `getOffsetMsgId()`, `getCommitLogOffset()` and `getQueueOffset()` on a consumed message (a
`MessageExt` or `MessageClientExt`: a variable, field or parameter declared so, an element of a list declared so,
or any receiver for the first two, which no other class of the client has) in a listener's code, or on a
`SendResult`. A read is a use
when it reaches, directly or through a local variable initialised with it (a string concatenation and
`String.valueOf` pass it on), an argument of a call that deduplicates, stores or looks up by it.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.facts import IdentityUse
from rmqlint.frontends.java.index import FieldInfo, JavaFile, LocalInfo
from rmqlint.frontends.java.tree import CLASS_BODIES, LANGUAGE
from rmqlint.identity_uses import classify

_GETTERS = ("getOffsetMsgId", "getCommitLogOffset", "getQueueOffset")
_DISTINCT = frozenset({"getOffsetMsgId", "getCommitLogOffset"})  # no other client class has these
_MESSAGE_TYPES = frozenset({"MessageExt", "MessageClientExt"})
_RESULT_TYPES = frozenset({"SendResult", "TransactionSendResult"})
_REGISTRATIONS = frozenset({"registerMessageListener", "setMessageListener"})
_LISTENER_TYPES = frozenset({"MessageListenerConcurrently", "MessageListenerOrderly", "MessageListener",
                             "RocketMQListener", "RocketMQReplyListener"})
_QUERY_TEXT = ('(method_invocation name: (identifier) @name (#any-of? @name "getOffsetMsgId" "getCommitLogOffset" '
               '"getQueueOffset")) @read')
_QUERY: list[tree_sitter.Query] = []  # compiled on first use
# A read counts only in listener code or on a send result: files without these names hold no use.
_CONTEXT_MARKERS = (b"MessageListener", b"RocketMQListener", b"RocketMQReplyListener", b"SendResult")


def identity_uses(java: JavaFile) -> list[IdentityUse]:
    if not any(getter.encode() in java.source for getter in _GETTERS) or \
            not any(marker in java.source for marker in _CONTEXT_MARKERS):
        return []
    if not _QUERY:
        _QUERY.append(tree_sitter.Query(LANGUAGE, _QUERY_TEXT))
    found = []
    for read in _reads(java):
        arguments = read.child_by_field_name("arguments")
        receiver = read.child_by_field_name("object")
        if receiver is None or (arguments is not None and arguments.named_children):
            continue
        getter = java.text(read.child_by_field_name("name"))
        side = _side(java, receiver, getter)
        if side is None or (side == "consumed" and not _in_listener(java, read)):
            continue
        for call, method, receiver_type, where in _uses(java, read):
            target = call.child_by_field_name("object")
            use = classify(method, receiver_type, distinct=getter in _DISTINCT,
                           receiver=java.text(target) if target is not None else "")
            if use is not None:
                found.append(IdentityUse(f"{getter}()", use, where, java.location(read), java.location(call), "java",
                                         sent=side == "sent"))
    return sorted(found, key=lambda u: (u.location.line, u.location.column, u.call_location.line))


def _reads(java: JavaFile) -> list[tree_sitter.Node]:
    """The getter calls, found by running the query only around the getters' names (a byte search first)."""
    reads: dict[int, tree_sitter.Node] = {}
    for getter in _GETTERS:
        start = java.source.find(getter.encode())
        while start >= 0:
            cursor = tree_sitter.QueryCursor(_QUERY[0])
            cursor.set_byte_range(start, start + len(getter))
            for node in cursor.captures(java.tree.root_node).get("read", []):
                reads[node.id] = node
            start = java.source.find(getter.encode(), start + len(getter))
    return sorted(reads.values(), key=lambda node: node.start_byte)


def _side(java: JavaFile, receiver: tree_sitter.Node, getter: str) -> str | None:
    """"consumed" or "sent" when the receiver is a consumed message or a send result; None otherwise."""
    declared = _declared_type(java, receiver)
    if declared in _RESULT_TYPES:
        return "sent"
    if declared in _MESSAGE_TYPES:
        return "consumed"
    if receiver.type == "method_invocation":  # msgs.get(0)
        name, target = receiver.child_by_field_name("name"), receiver.child_by_field_name("object")
        if name is not None and java.text(name) == "get" and target is not None and \
                any(t in _full_type(java, target) for t in _MESSAGE_TYPES):
            return "consumed"
    return "consumed" if getter in _DISTINCT and not declared else None


def _in_listener(java: JavaFile, node: tree_sitter.Node) -> bool:
    """Is the read in a consumer's listener code: a lambda registered as the listener, or any method of a class
    implementing a listener interface (its callback and the helpers it calls)? The client's and the broker's own
    code key their internal tables by offsets on purpose."""
    for scope in java.scopes(node):
        if scope.type == "lambda_expression":
            holder = scope.parent
            while holder is not None and holder.type in ("parenthesized_expression", "cast_expression"):
                holder = holder.parent
            if holder is not None and holder.type == "argument_list" and holder.parent is not None \
                    and holder.parent.type == "method_invocation":
                name = holder.parent.child_by_field_name("name")
                if name is not None and java.text(name) in _REGISTRATIONS:
                    return True
        elif scope.type in CLASS_BODIES:
            info = java.class_of_body(scope)
            if info is not None and any(s.split("<", 1)[0].rpartition(".")[2] in _LISTENER_TYPES
                                        for s in info.supertypes):
                return True
    return False


def _declaration(java: JavaFile, node: tree_sitter.Node) -> LocalInfo | FieldInfo | None:
    if node.type == "identifier":
        found = java.lookup(java.text(node), node)
        return found[2] if found is not None else None
    if node.type == "field_access":
        target, field = node.child_by_field_name("object"), node.child_by_field_name("field")
        if target is not None and target.type == "this" and field is not None:
            owner = java.enclosing_class(node)
            return owner.fields.get(java.text(field)) if owner is not None else None
    return None


def _full_type(java: JavaFile, node: tree_sitter.Node) -> str:
    info = _declaration(java, node)
    return info.type_text if info is not None else ""


def _declared_type(java: JavaFile, node: tree_sitter.Node) -> str:
    """The simple name of the declared type (without type arguments), "" when not declared here."""
    return _full_type(java, node).split("<", 1)[0].rpartition(".")[2]


def _uses(java: JavaFile, read: tree_sitter.Node):
    """(call, method name, receiver's declared type, the call as written) for each call the value reaches."""
    node = _passed_on(read)
    parent = node.parent
    if parent is not None and parent.type == "argument_list" and parent.parent is not None \
            and parent.parent.type == "method_invocation":
        yield _call(java, parent.parent)
        return
    if parent is not None and parent.type == "variable_declarator":
        name = parent.child_by_field_name("name")
        callable_node = java.enclosing_callable(parent)
        if name is None or callable_node is None or java.text(name) in java.assigned_names():
            return
        variable = java.text(name)
        stack = [callable_node]
        while stack:
            current = stack.pop()
            if current.type == "identifier" and java.text(current) == variable and current.start_byte > read.end_byte:
                used = _passed_on(current)
                holder = used.parent
                if holder is not None and holder.type == "argument_list" and holder.parent is not None \
                        and holder.parent.type == "method_invocation":
                    yield _call(java, holder.parent)
            stack.extend(current.named_children)


def _passed_on(node: tree_sitter.Node) -> tree_sitter.Node:
    """Up through what keeps the value as a key: parentheses, string concatenation, `String.valueOf(x)`."""
    while True:
        parent = node.parent
        if parent is None:
            return node
        if parent.type == "parenthesized_expression" or (parent.type == "binary_expression"
                                                          and _operator(parent) == "+"):
            node = parent
            continue
        if parent.type == "argument_list" and parent.parent is not None and \
                parent.parent.type == "method_invocation":
            name = parent.parent.child_by_field_name("name")
            if name is not None and name.text in (b"valueOf", b"toString"):
                node = parent.parent
                continue
        return node


def _operator(node: tree_sitter.Node) -> str:
    operator = node.child_by_field_name("operator")
    return operator.type if operator is not None else ""


def _call(java: JavaFile, call: tree_sitter.Node) -> tuple[tree_sitter.Node, str, str, str]:
    name = java.text(call.child_by_field_name("name"))
    target = call.child_by_field_name("object")
    receiver_type = _full_type(java, target) if target is not None else ""
    written = f"{java.text(target)}.{name}" if target is not None and len(java.text(target)) <= 40 else name
    return call, name, receiver_type, written

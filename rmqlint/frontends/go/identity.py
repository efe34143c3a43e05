"""Go code that keys messages by an identity that changes on every retry (`rmqlint.identity_uses`): reads of a
consumed message's `OffsetMsgId`, `CommitLogOffset` or `QueueOffset` in a consume callback, or of a send result's
`OffsetMsgID`, that reach a call deduplicating, storing or looking up by them (directly, through a local variable,
`fmt.Sprint`/`strconv` conversions and `+`), a map indexed by them, or a struct field named as an id."""

from __future__ import annotations

import tree_sitter

from rmqlint.facts import IdentityUse
from rmqlint.frontends.go.index import GoFile
from rmqlint.frontends.go.tree import LANGUAGE, walk
from rmqlint.identity_uses import classify

_CONSUMED = ("OffsetMsgId", "CommitLogOffset", "QueueOffset")
_SENT = ("OffsetMsgID",)
_CONVERSIONS = frozenset({"Sprint", "Sprintf", "Itoa", "FormatInt", "String"})
_READS = tree_sitter.Query(LANGUAGE, f"""(selector_expression field: (field_identifier) @name
    (#any-of? @name {" ".join(f'"{n}"' for n in _CONSUMED + _SENT)})) @read""")


def identity_uses(go: GoFile) -> list[IdentityUse]:
    if not any(name.encode() in go.source for name in _CONSUMED + _SENT):
        return []
    found = []
    for read in tree_sitter.QueryCursor(_READS).captures(go.tree.root_node).get("read", []):
        name = go.text(read.child_by_field_name("field"))
        sent = name in _SENT
        if not sent and not (_in_callback(go, read) and (name != "QueueOffset" or _message_like(go, read))):
            continue
        for use, call, where in _uses(go, read):
            found.append(IdentityUse(name, use, call, go.location(read), where, "go", sent=sent))
    return sorted(found, key=lambda u: (u.location.line, u.location.column, u.call_location.line))


def _in_callback(go: GoFile, node: tree_sitter.Node) -> bool:
    """In a function returning a `ConsumeResult` (a consume callback, or a helper it delegates to)."""
    for function in go.functions(node):
        result = function.child_by_field_name("result")
        if result is not None and "ConsumeResult" in go.text(result):
            return True
    return False


def _message_like(go: GoFile, read: tree_sitter.Node) -> bool:
    """`msg.QueueOffset` on a message of the batch (`msgs[i]`, a range variable), not on a message queue."""
    operand = read.child_by_field_name("operand")
    return operand is not None and (operand.type == "index_expression" or (
        operand.type == "identifier" and "queue" not in go.text(operand).lower() and go.text(operand) != "mq"))


def _uses(go: GoFile, read: tree_sitter.Node):
    """(use, the call as written, where) for each place the value reaches."""
    node = _passed_on(go, read)
    yield from _use_at(go, node)
    parent = node.parent
    holder = parent.parent if parent is not None and parent.type == "expression_list" else None
    if holder is not None and holder.type in ("short_var_declaration", "assignment_statement"):
        left = holder.child_by_field_name("left")
        index = [c.id for c in parent.named_children].index(node.id)
        targets = left.named_children if left is not None else []
        if index < len(targets) and targets[index].type == "identifier":
            variable = go.text(targets[index])
            function = go.enclosing_function(holder)
            for current in walk(function) if function is not None else ():
                if current.type == "identifier" and go.text(current) == variable and \
                        current.start_byte > holder.end_byte:
                    yield from _use_at(go, _passed_on(go, current))


def _use_at(go: GoFile, node: tree_sitter.Node):
    parent = node.parent
    if parent is None:
        return
    if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call_expression":
        call = parent.parent
        function = call.child_by_field_name("function")
        name = go.text(function.child_by_field_name("field")) if function is not None and \
            function.type == "selector_expression" else go.text(function) if function is not None else ""
        use = classify(name[:1].lower() + name[1:])
        if use is not None:
            written = go.text(function) if function is not None and len(go.text(function)) <= 40 else name
            yield use, written, go.location(call)
    elif parent.type == "index_expression" and parent.child_by_field_name("index") is not None and \
            parent.child_by_field_name("index").id == node.id:
        operand = parent.child_by_field_name("operand")
        yield "dedupe", f"{go.text(operand)[:40]}[..]", go.location(parent)
    elif parent.type == "literal_element" and parent.parent is not None and parent.parent.type == "keyed_element":
        key = parent.parent.named_children[0]
        use = classify("", keyword=go.text(key)) if key.id != parent.id else None
        if use is not None:  # a field named as an id (`MsgID:`), not as what the value is (`OffsetMsgId:`)
            yield use, f"{go.text(key)}:", go.location(parent.parent)


def _passed_on(go: GoFile, node: tree_sitter.Node) -> tree_sitter.Node:
    """Up through what keeps the value as a key: parentheses, `+`, `fmt.Sprint(x)`, `strconv.FormatInt(x, 10)`."""
    while True:
        parent = node.parent
        if parent is None:
            return node
        if parent.type == "parenthesized_expression" or (parent.type == "binary_expression" and
                                                          go.text(parent.child_by_field_name("operator")) == "+"):
            node = parent
            continue
        if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call_expression":
            _package, name = go.called(parent.parent)
            if name in _CONVERSIONS:
                node = parent.parent
                continue
        return node


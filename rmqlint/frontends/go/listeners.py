"""Consume callbacks in Go: the function a `Subscribe` hands the consumer, and what its code returns.

rocketmq-client-go calls `func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error)`
and acts on the result alone (the error is only logged): `consumer.ConsumeRetryLater` (any result but
`ConsumeSuccess`) sends a concurrent consumer's batch back to be consumed again (a broadcasting one drops it), and
`consumer.SuspendCurrentQueueAMoment` makes an orderly consumer consume it again in place. The callback can be a
function literal, a function of the file (or a variable holding a literal), or a function of another file of the
package or of another package: then `Listener.class_ref` names it (`dir:<directory>:<name>` or
`<import path>:<name>`) and the linker takes that file's `listener_classes` entry.

A body is searched (without entering function literals, whose returns are not the callback's) for returns of those
results, following `return helper(ctx, msgs...)` into a function of the file; and (function literals included) for
reads of `ReconsumeTimes` and assignments of the context's `DelayLevelWhenNextConsume`.
"""

from __future__ import annotations

import tree_sitter

from rmqlint.facts import Listener, Location, Setting
from rmqlint.frontends.go.index import GoFile, ROCKETMQ_MODULE
from rmqlint.frontends.go.tree import FUNCTIONS, walk

RETRY_RESULTS = frozenset({"ConsumeRetryLater", "SuspendCurrentQueueAMoment"})  # any result but success
# An orderly consumer consumes again in place only for this one (ConsumeRetryLater is neither committed nor retried).
ORDERLY_RETRY = frozenset({"SuspendCurrentQueueAMoment"})
CONSUMER_PACKAGE = f"{ROCKETMQ_MODULE}/consumer"
MAX_DELEGATION = 3
MAX_INDIRECTIONS = 8


def callback(go: GoFile, node: tree_sitter.Node, kind: str) -> Listener:
    """The listener a `Subscribe` argument stands for."""
    for _ in range(MAX_INDIRECTIONS):
        if node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
            continue
        if node.type == "func_literal":
            return scan(go, node, kind, go.location(node))
        if node.type == "identifier":
            name = go.text(node)
            if go.lookup(name, node) is not None:
                held = go.local_value_node(node)
                if held is None:
                    break
                node = held
                continue
            function = go.top.functions.get(name)
            if function is not None:
                return scan(go, function, kind, go.location(function))
            if name in go.top.vars:
                held = go.top.vars[name]
                if held is None or name in go.assigned_names():
                    break
                node = held
                continue
            return Listener(kind, go.location(node), class_ref=f"dir:{go.directory}:{name}")
        if node.type == "selector_expression":
            operand, member = node.child_by_field_name("operand"), node.child_by_field_name("field")
            if operand is None or member is None:
                break
            if operand.type == "identifier" and go.lookup(go.text(operand), node) is None and \
                    go.text(operand) in go.imports:
                return Listener(kind, go.location(node), class_ref=f"{go.imports[go.text(operand)]}:{go.text(member)}")
            methods = go.top.methods.get(go.text(member), [])
            if len(methods) == 1:  # a method value `h.handle`: the file's one method of that name
                return scan(go, methods[0], kind, go.location(methods[0]))
        break
    return Listener(kind, go.location(node))


def listener_functions(go: GoFile) -> dict[str, Listener]:
    """Function name -> what it does as a consume callback, for every function of the file whose results are a
    `ConsumeResult` and an error (consumers in other files refer to these by `Listener.class_ref`)."""
    found: dict[str, Listener] = {}
    if b"ConsumeResult" not in go.source:
        return found
    for name, function in go.top.functions.items():
        result = function.child_by_field_name("result")
        if result is not None and "ConsumeResult" in go.text(result):
            found[name] = scan(go, function, "unknown", go.location(function))
    return found


def scan(go: GoFile, function: tree_sitter.Node, kind: str, where: Location, _seen: tuple[int, ...] = ()) -> Listener:
    listener = Listener(kind, where)
    body = function.child_by_field_name("body")
    if body is None:
        return listener
    delays: list[Setting] = []
    retries = ORDERLY_RETRY if kind == "orderly" else RETRY_RESULTS
    for node in walk(body, skip=FUNCTIONS):  # a function literal's returns are its own
        if node.type == "return_statement" and node.named_children:
            values = node.named_children[0]
            first = values.named_children[0] if values.type == "expression_list" and values.named_children else values
            if _result_name(go, first) in retries:
                listener.reconsume_later.append(go.location(node))
            elif first.type == "call_expression" and len(_seen) < MAX_DELEGATION:
                helper = _helper(go, first)
                if helper is not None and helper.id not in _seen and helper.id != function.id:
                    found = scan(go, helper, kind, where, _seen + (function.id,))
                    listener.reconsume_later += found.reconsume_later
                    listener.reconsume_times += found.reconsume_times
                    if found.delay_level is not None:
                        delays.append(found.delay_level)
    for node in walk(body):  # its reads count, function literals included (`for _, m := range msgs { .. }`)
        kind_of = node.type
        if kind_of == "selector_expression":
            member = node.child_by_field_name("field")
            if member is not None and go.text(member) == "ReconsumeTimes":
                listener.reconsume_times.append(go.location(node))
        elif kind_of == "assignment_statement":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            targets = left.named_children if left is not None else []
            values = right.named_children if right is not None else []
            for index, target in enumerate(targets):
                member = target.child_by_field_name("field") if target.type == "selector_expression" else None
                if member is not None and go.text(member) == "DelayLevelWhenNextConsume" and len(values) == len(targets):
                    delays.append(Setting(go.value(values[index]), go.location(node)))
    listener.reconsume_later.sort(key=lambda loc: (loc.path, loc.line, loc.column))
    listener.reconsume_times.sort(key=lambda loc: (loc.path, loc.line, loc.column))
    if delays:
        listener.delay_level = delays[-1]
    return listener


def _result_name(go: GoFile, node: tree_sitter.Node) -> str:
    """`ConsumeRetryLater` for `consumer.ConsumeRetryLater` (the consumer package, however it is imported)."""
    if node.type != "selector_expression":
        return ""
    operand, member = node.child_by_field_name("operand"), node.child_by_field_name("field")
    if operand is None or member is None or operand.type != "identifier":
        return ""
    return go.text(member) if go.imports.get(go.text(operand)) == CONSUMER_PACKAGE else ""


def _helper(go: GoFile, call: tree_sitter.Node) -> tree_sitter.Node | None:
    """The function of this file `return helper(..)` calls, when it returns a consume result."""
    package, name = go.called(call)
    function = go.top.functions.get(name) if not package else None
    result = function.child_by_field_name("result") if function is not None else None
    return function if result is not None and "ConsumeResult" in go.text(result) else None

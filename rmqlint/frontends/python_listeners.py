"""Listeners in Python code: 2.x callbacks returning `ConsumeStatus`, 5.x `MessageListener` classes whose
`consume` returns `ConsumeResult`, and what their code returns (RECONSUME_LATER / FAILURE) or raises, and whether
it reads a message's retry count (`msg.reconsume_times`).

A callback of this module that a consumer of another module subscribes with is published in
`FileFacts.listener_classes` (the linker joins them); one imported from another module is a `Listener.class_ref`.
"""

from __future__ import annotations

import libcst as cst

from rmqlint.facts import FileFacts, Listener
from rmqlint.frontends.python_index import PythonIndex, ReturnsAndRaises, Scope, api_of


def callbacks(index: PythonIndex, facts: FileFacts) -> None:
    """Module-level functions returning a 2.x `ConsumeStatus`: callbacks that consumers of other modules
    subscribe with (`Listener.class_ref`), published in `listener_classes`."""
    for name, binding in index.root.bindings.items():
        function = binding.definition
        if not isinstance(function, cst.FunctionDef) or binding.values or binding.import_target is not None:
            continue
        collector = ReturnsAndRaises(function.body)
        scope = index.scopes[id(function)]
        if any(isinstance(r.value, cst.Attribute)
               and index.rocketmq(r.value.value, scope) == ("python2", "ConsumeStatus") for r in collector.returns):
            listener = Listener(kind="python", location=index.loc(function))
            scan_returns(index, function, "RECONSUME_LATER", listener)
            facts.listener_classes[name] = listener


def listener_v2(index: PythonIndex, callback: cst.BaseExpression, scope: Scope) -> Listener | None:
    function = index.function(callback, scope)
    if function is None:
        imported = imported_callback(index, callback, scope)
        return Listener(kind="unknown", location=index.loc(callback), class_ref=imported) if imported else None
    listener = Listener(kind="python", location=index.loc(function))
    scan_returns(index, function, "RECONSUME_LATER", listener)
    return listener


def imported_callback(index: PythonIndex, callback: cst.BaseExpression, scope: Scope) -> str:
    """`module.function` for a callback imported from another module (`from m import f`, `m.f`), else ""."""
    callback, scope = index.resolve_node(callback, scope)
    if isinstance(callback, cst.Name):
        found = index.find(callback.value, scope)
        if found is None or found[1].is_module or found[1].values or found[1].import_target is None:
            return ""
        target = found[1].import_target
        return target if "." in target and api_of(target) is None else ""
    if isinstance(callback, cst.Attribute):
        module = index.qualified(callback.value, scope)
        return f"{module}.{callback.attr.value}" if module and api_of(module) is None else ""
    return ""


def listener_v5(index: PythonIndex, node: cst.BaseExpression, scope: Scope) -> Listener | None:
    node, scope = index.resolve_node(node, scope)
    cls = None
    if isinstance(node, cst.Call):
        cls = index.class_of(node.func, scope)
    elif isinstance(node, cst.Name):
        cls = index.class_of(node, scope)  # `self` passed as the listener
    method = index.method(cls, "consume") if cls is not None else None
    if method is None:
        return None
    listener = Listener(kind="python", location=index.loc(method))
    scan_returns(index, method, "FAILURE", listener)
    return listener


def scan_returns(index: PythonIndex, function: cst.CSTNode, status: str, listener: Listener) -> None:
    scope = index.scopes[id(function)]
    if isinstance(function, cst.Lambda):
        for hit in statuses(index, function.body, status, scope):
            listener.reconsume_later.append(index.loc(hit))
        return
    collector = ReturnsAndRaises(function.body)
    for ret in collector.returns:
        if ret.value is None:
            continue
        hits = statuses(index, ret.value, status, scope)
        if hits and isinstance(ret.value, (cst.Attribute, cst.Name)):
            listener.reconsume_later.append(index.loc(ret))  # `return ConsumeStatus.RECONSUME_LATER`
        else:
            listener.reconsume_later.extend(index.loc(h) for h in hits)  # a branch of `a if c else b`
    listener.throws.extend(index.loc(r) for r in collector.raises)
    listener.reconsume_times.extend(index.loc(node) for node in _attribute_reads(function.body, "reconsume_times"))


def _attribute_reads(body: cst.CSTNode, attribute: str) -> list[cst.Attribute]:
    """`<anything>.<attribute>` inside a function body, in source order."""
    found: list[cst.Attribute] = []
    work: list[cst.CSTNode] = [body]
    while work:
        node = work.pop()
        if isinstance(node, cst.Attribute) and node.attr.value == attribute:
            found.append(node)
        work.extend(reversed(node.children))
    return found


def statuses(index: PythonIndex, node: cst.BaseExpression, status: str, scope: Scope,
             depth: int = 0) -> list[cst.CSTNode]:
    """The `<Enum>.<status>` nodes an expression may evaluate to (branches of `x if c else y`, a local)."""
    if depth > 10:
        return []
    if isinstance(node, cst.Attribute) and node.attr.value == status:
        api = index.rocketmq(node.value, scope)
        if api is not None and api[1] in ("ConsumeStatus", "ConsumeResult"):
            return [node]
        return []
    if isinstance(node, cst.IfExp):
        return statuses(index, node.body, status, scope, depth + 1) + \
            statuses(index, node.orelse, status, scope, depth + 1)
    if isinstance(node, cst.BooleanOperation):
        return statuses(index, node.left, status, scope, depth + 1) + \
            statuses(index, node.right, status, scope, depth + 1)
    if isinstance(node, cst.Name):  # a local status variable: every value assigned to it
        found = index.find(node.value, scope)
        if found is not None and not found[1].other:
            owner, binding = found
            return [hit for value in binding.values for hit in statuses(index, value, status, owner, depth + 1)]
    return []

"""Python code that keys messages by an identity that changes on every retry (`rmqlint.identity_uses`).

The reads are a consumed 2.x message's `commit_log_offset` and `queue_offset`, a 2.x send result's `offset`
(`result = producer.send_sync(msg)`), and a 5.x message's `receipt_handle` (new on every delivery), in a module that
imports that client. A read is a use when it reaches (directly, through a name assigned from it, `str(..)`, a
concatenation or an f-string) a call that deduplicates, stores or looks up by it, a keyword argument naming a message
id (`msg_id=`), a membership test (`x in seen`) or a subscript (`seen[x] = True`).
"""

from __future__ import annotations

import libcst as cst

from rmqlint.facts import IdentityUse
from rmqlint.frontends.python.index import PythonIndex, Scope, api_of
from rmqlint.frontends.python.walk import children
from rmqlint.identity_uses import classify

_CONSUMED = {"python2": ("commit_log_offset", "queue_offset"), "python5": ("receipt_handle",)}
_CONTAINERS = {"set": "set", "dict": "dict", "frozenset": "set", "defaultdict": "dict", "OrderedDict": "dict",
               "Counter": "dict"}


def identity_uses(index: PythonIndex, text: str) -> list[IdentityUse]:
    apis = {api for binding in index.root.bindings.values()
            if binding.import_target and (api := _api(binding.import_target)) is not None}
    names = {name: api for api in apis for name in (*_CONSUMED.get(api, ()), *(("offset",) if api == "python2"
                                                                             else ()))}
    if not names or not any(name in text for name in names):
        return []
    parents: dict[int, cst.CSTNode] = {}
    scopes: dict[int, Scope] = {}
    reads: list[tuple[cst.Attribute, str, bool]] = []
    stack: list[tuple[cst.CSTNode, Scope]] = [(index.module, index.root)]
    while stack:
        node, scope = stack.pop()
        scope = index.scopes.get(id(node), scope)
        if isinstance(node, cst.Attribute) and node.attr.value in names:
            sent = node.attr.value == "offset"
            if not sent or _is_send_result(index, node.value, scope):
                reads.append((node, names[node.attr.value], sent))
                scopes[id(node)] = scope
        for child in children(node):
            parents[id(child)] = node
            stack.append((child, scope))
    found = []
    for read, api, sent in reads:
        distinct = not sent and read.attr.value == "commit_log_offset"  # nothing else is named by it
        for use, call, where in _uses(index, read, scopes[id(read)], parents, distinct):
            found.append(IdentityUse(f"{_written(read)}", use, call, index.loc(read), index.loc(where), api, sent))
    return found


def _api(target: str) -> str | None:
    found = api_of(target)
    return found[0] if found is not None else None


def _written(node: cst.Attribute) -> str:
    head = node.value.value if isinstance(node.value, cst.Name) else "..."
    return f"{head}.{node.attr.value}"


def _is_send_result(index: PythonIndex, node: cst.BaseExpression, scope: Scope) -> bool:
    """`producer.send_sync(msg).offset`, or a name assigned once from such a call."""
    node, _scope = index.resolve_node(node, scope)
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
        and node.func.attr.value.startswith("send")


def _passed_on(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> cst.CSTNode:
    """Up through what keeps the value as a key: `str(x)`, `"k:" + x`, f-strings, parentheses."""
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, (cst.FormattedStringExpression, cst.FormattedString)) or (
                isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add)):
            node = parent
            continue
        if isinstance(parent, cst.Arg) and parent.keyword is None:
            call = parents.get(id(parent))
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in ("str", "int"):
                node = call
                continue
        return node


def _uses(index: PythonIndex, read: cst.Attribute, scope: Scope, parents: dict[int, cst.CSTNode],
          distinct: bool = False):
    """(use, the call as written, the node to locate it at) for each place the value reaches."""
    node = _passed_on(read, parents)
    parent = parents.get(id(node))
    if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.Assign) and parent.value is node):
        targets = parent.targets if isinstance(parent, cst.Assign) else []
        if len(targets) == 1 and isinstance(targets[0].target, cst.Name):
            yield from _name_uses(index, targets[0].target.value, parent, scope, parents, distinct)
        return
    yield from _use_at(index, node, scope, parents, distinct)


def _name_uses(index: PythonIndex, name: str, assignment: cst.Assign, scope: Scope,
               parents: dict[int, cst.CSTNode], distinct: bool = False):
    """The uses of a name assigned (once) from the identity, in the same function."""
    found = index.find(name, scope)
    if found is None or found[0] is not scope or len(found[1].values) != 1 or found[1].other:
        return
    body = scope.node
    stack = [body]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value == name and current is not assignment.targets[0].target:
            yield from _use_at(index, _passed_on(current, parents), scope, parents, distinct)
        stack.extend(children(current))


def _use_at(index: PythonIndex, node: cst.CSTNode, scope: Scope, parents: dict[int, cst.CSTNode],
            distinct: bool = False):
    parent = parents.get(id(node))
    if isinstance(parent, cst.Arg):
        call = parents.get(id(parent))
        if not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Attribute, cst.Name)):
            return
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else call.func.value
        keyword = parent.keyword.value if parent.keyword is not None else ""
        receiver = _container(index, call.func.value, scope) if isinstance(call.func, cst.Attribute) else ""
        use = classify(method, receiver, keyword)
        if use is None and not keyword and method == "set" and any(
                a.keyword is not None and a.keyword.value == "nx" for a in call.args):
            use = "dedupe"  # redis `set(key, value, nx=True)`: set only if absent
        if use is None and distinct:
            use = classify(method, receiver, keyword, distinct=True,
                           receiver=_name(call.func.value) if isinstance(call.func, cst.Attribute) else "")
        if use is not None:
            shown = f"{keyword}=" if keyword else (f"{_name(call.func.value)}.{method}"
                                                  if isinstance(call.func, cst.Attribute) else method)
            yield use, shown, call
        return
    if isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)):
        return  # `seen in x`: the identity is the container, not the key
    if isinstance(parent, cst.Comparison) and parent.left is node and any(
            isinstance(t.operator, (cst.In, cst.NotIn)) for t in parent.comparisons):
        yield "dedupe", f"in {_name(parent.comparisons[0].comparator)}", parent
        return
    if isinstance(parent, cst.Index):
        element = parents.get(id(parent))
        subscript = parents.get(id(element))
        if isinstance(subscript, cst.Subscript):
            yield "dedupe", f"{_name(subscript.value)}[...]", subscript


def _container(index: PythonIndex, node: cst.BaseExpression, scope: Scope) -> str:
    """"set" or "dict" when the receiver is one built here (`seen = set()`, `{}`), else ""."""
    target, _scope = index.resolve_node(node, scope)
    if isinstance(target, (cst.Set, cst.SetComp)):
        return "set"
    if isinstance(target, (cst.Dict, cst.DictComp)):
        return "dict"
    if isinstance(target, cst.Call) and isinstance(target.func, (cst.Name, cst.Attribute)):
        name = target.func.value if isinstance(target.func, cst.Name) else target.func.attr.value
        return _CONTAINERS.get(name, "")
    return ""


def _name(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_name(node.value)}.{node.attr.value}"
    return "..."

"""Listeners in Python code: 2.x callbacks returning `ConsumeStatus`, 5.x `MessageListener` classes whose
`consume` returns `ConsumeResult`, and what their code returns (RECONSUME_LATER / FAILURE) or raises, and whether
it reads a message's retry count (`msg.reconsume_times`) to decide to let a message go (`deciding_reads`).

A callback of this module that a consumer of another module subscribes with is published in
`FileFacts.listener_classes` (the linker joins them); one imported from another module is a `Listener.class_ref`.
"""

from __future__ import annotations

import libcst as cst

from rmqlint.facts import FileFacts, Listener
from rmqlint.frontends.python.index import PythonIndex, ReturnsAndRaises, Scope, api_of


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
            scan_non_statuses(index, function, listener)
            facts.listener_classes[name] = listener


def listener_v2(index: PythonIndex, callback: cst.BaseExpression, scope: Scope) -> Listener | None:
    function = index.function(callback, scope)
    if function is None:
        imported = imported_callback(index, callback, scope)
        return Listener(kind="unknown", location=index.loc(callback), class_ref=imported) if imported else None
    listener = Listener(kind="python", location=index.loc(function))
    scan_returns(index, function, "RECONSUME_LATER", listener)
    scan_non_statuses(index, function, listener)
    return listener


def scan_non_statuses(index: PythonIndex, function: cst.CSTNode, listener: Listener) -> None:
    """What a 2.x callback may return that is not a `ConsumeStatus` (`Listener.non_status_returns`), and whether
    it can end without a return (`Listener.ends_without_return`). `ConsumeStatus` is an IntEnum: 0, 1, True and
    False compare equal to its members and pass; a call or a name whose value is not known is not judged."""
    scope = index.scopes[id(function)]
    if isinstance(function, cst.Lambda):
        if _not_a_status(index, function.body, scope):
            listener.non_status_returns.append(index.loc(function.body))
        return
    for ret in ReturnsAndRaises(function.body).returns:
        if ret.value is None or _not_a_status(index, ret.value, scope):
            listener.non_status_returns.append(index.loc(ret))
    completes, last = _completes(function.body.body if isinstance(function.body, cst.IndentedBlock)
                                 else function.body.body)
    if completes and last is not None:
        listener.ends_without_return = index.loc(last)


def _not_a_status(index: PythonIndex, node: cst.BaseExpression, scope: Scope) -> bool:
    """A value known not to equal `ConsumeStatus.CONSUME_SUCCESS` (0) or `RECONSUME_LATER` (1)."""
    if isinstance(node, cst.Name):
        return node.value == "None"
    if isinstance(node, cst.Integer):
        return node.value not in ("0", "1")
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Float, cst.Dict,
                         cst.List, cst.Tuple, cst.Set, cst.DictComp, cst.ListComp, cst.SetComp, cst.GeneratorExp,
                         cst.Lambda)):
        return True
    if isinstance(node, cst.IfExp):
        return _not_a_status(index, node.body, scope) or _not_a_status(index, node.orelse, scope)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "print" \
            and index.find("print", scope) is None:
        return True  # print() returns None
    return False


def _completes(statements) -> tuple[bool, cst.CSTNode | None]:
    """Whether running `statements` can go on past the last of them (no return, raise or endless loop on some
    path), and the last statement."""
    last = None
    for statement in statements:
        last = statement
        if not _statement_completes(statement):
            return False, last
    return True, last


def _statement_completes(node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.Return, cst.Raise)):  # a small statement of `def f(m): return x`
        return False
    if isinstance(node, cst.SimpleStatementLine):
        return not any(isinstance(s, (cst.Return, cst.Raise)) for s in node.body)
    if isinstance(node, cst.If):
        if node.orelse is None:
            return True
        other = node.orelse.body.body if isinstance(node.orelse, cst.Else) else [node.orelse]
        return _block_completes(node.body) or _completes(other)[0]
    if isinstance(node, cst.While):
        endless = isinstance(node.test, cst.Name) and node.test.value == "True" or \
            isinstance(node.test, cst.Integer) and node.test.value != "0"
        if endless:
            return _breaks(node.body)
        return node.orelse is None or _block_completes(node.orelse.body) or _breaks(node.body)
    if isinstance(node, cst.For):
        return node.orelse is None or _block_completes(node.orelse.body) or _breaks(node.body)
    if isinstance(node, cst.With):
        return _block_completes(node.body)
    if isinstance(node, (cst.Try, cst.TryStar)):
        if node.finalbody is not None and not _block_completes(node.finalbody.body):
            return False
        body = _block_completes(node.body)
        if node.orelse is not None and body:
            body = _block_completes(node.orelse.body)
        return body or any(_block_completes(handler.body) for handler in node.handlers)
    if isinstance(node, cst.Match):
        irrefutable = any(isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None and case.guard is None
                          for case in node.cases)
        return not irrefutable or any(_block_completes(case.body) for case in node.cases)
    return True


def _block_completes(block: cst.BaseSuite) -> bool:
    return _completes(block.body)[0]


def _breaks(block: cst.BaseSuite) -> bool:
    """A `break` of this loop (not of a loop nested in it) somewhere in its body."""
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Break):
            return True
        if isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if node is not block:
                continue
        stack.extend(node.children)
    return False


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
    listener.reconsume_times.extend(index.loc(node) for node in deciding_reads(function.body, "reconsume_times"))


_LET_GO = frozenset({"CONSUME_SUCCESS", "SUCCESS"})  # statuses that let a message go
_LEAVES = (cst.Return, cst.Continue, cst.Break, cst.Raise)


def deciding_reads(body: cst.CSTNode, attribute: str) -> list[cst.Attribute]:
    """The reads of `<msg>.<attribute>` (the retry count) that decide to let a message go: in the test of an `if`
    (or `a if c else b`), directly or through a name assigned from them, whose branches return a success status,
    or whose body leaves (return, continue, break, raise) before a success return that follows it. A count only
    logged, in a callback that retries on every path, bounds nothing."""
    nodes: list[cst.CSTNode] = []
    order: dict[int, int] = {}
    last: dict[int, int] = {}  # a node -> the order of its last descendant
    stack: list[tuple[cst.CSTNode, bool]] = [(body, False)]
    while stack:  # pre-order, nested definitions left out; a node's end is set once its subtree is done
        node, done = stack.pop()
        if done:
            last[id(node)] = len(nodes) - 1
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not body:
            continue
        order[id(node)] = len(nodes)
        nodes.append(node)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.children))
    reads = [n for n in nodes if isinstance(n, cst.Attribute) and n.attr.value == attribute]
    if not reads:
        return []
    read_ids = {id(n) for n in reads}

    def within(node: cst.CSTNode) -> list[cst.CSTNode]:
        return nodes[order[id(node)]:last[id(node)] + 1] if id(node) in order else []

    feeding: dict[str, list[cst.Attribute]] = {}  # a name assigned from reads -> those reads
    for node in nodes:
        if isinstance(node, cst.Assign):
            found = [n for n in within(node.value) if id(n) in read_ids]
            for target in node.targets:
                if found and isinstance(target.target, cst.Name):
                    feeding.setdefault(target.target.value, []).extend(found)
    decided: list[cst.Attribute] = []
    for node in nodes:
        if not isinstance(node, (cst.If, cst.IfExp)):
            continue
        test = within(node.test)
        used = [n for n in test if id(n) in read_ids] + [r for n in test if isinstance(n, cst.Name)
                                                   for r in feeding.get(n.value, ())]
        if not used:
            continue
        branches = [b for b in (node.body, node.orelse) if b is not None]
        success_after = [n for n in nodes[last[id(node)] + 1:] if _returns_let_go(n)]
        if any(_returns_let_go(n) or (isinstance(b, cst.Attribute) and b.attr.value in _LET_GO)
               for b in branches for n in within(b)) or (
                isinstance(node, cst.If) and _leaves(node.body) and success_after):
            decided.extend(r for r in used if all(r is not d for d in decided))
    return sorted(decided, key=lambda r: order[id(r)])


def _returns_let_go(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Return) and isinstance(node.value, cst.Attribute) and node.value.attr.value in _LET_GO


def _leaves(block: cst.BaseSuite) -> bool:
    """A block whose last statement returns, continues, breaks or raises."""
    statements = getattr(block, "body", ())
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine) and last.body:
        return isinstance(last.body[-1], _LEAVES)
    return isinstance(last, _LEAVES)


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

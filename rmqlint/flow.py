"""Which assignments of one variable can reach a point of a function: reaching definitions over a small structured
program, written once for every language.

A frontend translates the statements of a function body (or a Python module) into the nodes below, keeping only
what matters for one variable: its assignments (`Assign`), the point asked about (`Use`), and the control flow
around them (branches, loops, `switch` with or without fall-through, `try`, jumps). `reaching` then answers with
the assignments that may have given the variable its value at the `Use`, each at most once, in source order.
A frontend that meets a construct it cannot translate faithfully (a labelled jump, an assignment hidden inside an
expression) raises `Unsupported`, and the value stays Dynamic: nothing is guessed.

The answer is a superset of what can happen at run time only through paths the program never takes (a condition
that is always false); each assignment in it is one a real path delivers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union


class Unsupported(Exception):
    """The code does something this analysis does not model: the variable's value is not known."""


@dataclass(eq=False)
class Assign:
    """The variable gets a value: `value` is the frontend's handle on it (the expression node), None when the
    statement only declares the variable (`String tag;`) or deletes it: nothing reaches past it."""

    value: object = None
    order: int = 0  # source order, for the answer


@dataclass(eq=False)
class Use:
    """The point asked about (the variable's value is read here)."""


@dataclass(eq=False)
class Seq:
    items: list["Node"] = field(default_factory=list)


@dataclass(eq=False)
class Branch:
    """Exactly one arm runs (`if`/`else`: an `if` without `else` has an empty arm)."""

    arms: list["Node"]


@dataclass(eq=False)
class Loop:
    """`head` runs before every iteration and once more when the loop ends (a condition, a `for` target); `body`
    then `update` (Java's `for (;; update)`) run per iteration; `body_first` for `do ... while`. `orelse` runs when
    the loop ends without `break` (Python's `for ... else`)."""

    body: "Node"
    head: "Node" = None  # type: ignore[assignment]
    update: "Node" = None  # type: ignore[assignment]
    orelse: "Node" = None  # type: ignore[assignment]
    body_first: bool = False


@dataclass(eq=False)
class Switch:
    """Groups of a `switch`: one runs, chosen by the value; with `fallthrough` (Java's `case X:`) a group that does
    not `break` runs on into the next. Without `exhaustive` (no `default`) no group may run at all."""

    groups: list["Node"]
    fallthrough: bool
    exhaustive: bool


@dataclass(eq=False)
class Try:
    """`body`, then `orelse` (Python's `try ... else`) when it completes; a handler may start from any state
    the body passed through; `final` runs after all of them."""

    body: "Node"
    handlers: list["Node"] = field(default_factory=list)
    orelse: "Node" = None  # type: ignore[assignment]
    final: "Node" = None  # type: ignore[assignment]


@dataclass(eq=False)
class Jump:
    kind: str  # "break" | "continue" | "return" (also throw / raise)


Node = Union[Assign, Use, Seq, Branch, Loop, Switch, Try, Jump, None]

State = Optional[frozenset]  # the assignments that may hold now; None: this point is never reached


def reaching(program: Node) -> tuple[list[Assign], list[Assign]]:
    """(the assignments that may reach a `Use`, the assignments that may hold when `program` ends), each in source
    order; declarations without a value are left out."""
    walk = _Walk()
    end = walk.run(program, frozenset())
    return _ordered(walk.at_use), _ordered(end or frozenset())


def reaching_each(program: Node) -> dict[Use, list[Assign]]:
    """For a program holding several `Use`s (every read of one variable in a function, answered in one pass): the
    assignments that may reach each, in source order. A `Use` never reached is left out."""
    walk = _Walk()
    walk.run(program, frozenset())
    return {use: _ordered(assigns) for use, assigns in walk.each.items()}


def assignments(node: Node) -> list[Assign]:
    """Every assignment inside `node`."""
    found: list[Assign] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Assign):
            found.append(current)
        elif isinstance(current, Seq):
            stack.extend(current.items)
        elif isinstance(current, Branch):
            stack.extend(current.arms)
        elif isinstance(current, Loop):
            stack.extend((current.head, current.body, current.update, current.orelse))
        elif isinstance(current, Switch):
            stack.extend(current.groups)
        elif isinstance(current, Try):
            stack.extend((current.body, *current.handlers, current.orelse, current.final))
    return found


def _ordered(assigns) -> list[Assign]:
    return sorted((a for a in assigns if a.value is not None), key=lambda a: a.order)


def _union(*states: State) -> State:
    reached = [s for s in states if s is not None]
    if not reached:
        return None
    return frozenset().union(*reached)


class _Walk:
    def __init__(self) -> None:
        self.at_use: set[Assign] = set()
        self.each: dict[Use, set[Assign]] = {}  # per `Use`, for a program that holds several
        self.breaks: list[list[State]] = []  # per enclosing loop or switch: the states of its `break`s
        self.continues: list[list[State]] = []  # per enclosing loop

    def run(self, node: Node, state: State) -> State:
        if node is None or state is None:
            return state
        if isinstance(node, Assign):
            return frozenset((node,))
        if isinstance(node, Use):
            self.at_use.update(state)
            self.each.setdefault(node, set()).update(state)
            return state
        if isinstance(node, Seq):
            for item in node.items:
                state = self.run(item, state)
                if state is None:
                    break  # the rest is unreachable
            return state
        if isinstance(node, Branch):
            return _union(*(self.run(arm, state) for arm in node.arms))
        if isinstance(node, Jump):
            if node.kind == "break":
                if not self.breaks:
                    raise Unsupported("break outside a loop or switch")
                self.breaks[-1].append(state)
            elif node.kind == "continue":
                if not self.continues:
                    raise Unsupported("continue outside a loop")
                self.continues[-1].append(state)
            return None
        if isinstance(node, Loop):
            return self._loop(node, state)
        if isinstance(node, Switch):
            return self._switch(node, state)
        if isinstance(node, Try):
            return self._try(node, state)
        raise TypeError(f"not a flow node: {node!r}")

    def _loop(self, node: Loop, state: State) -> State:
        top = state
        # The states only grow, over a finite set of assignments: a few rounds reach the fixpoint.
        while True:
            self.breaks.append([])
            self.continues.append([])
            try:
                if node.body_first:
                    body_out = self.run(node.body, top)
                    after = self.run(node.update, _union(body_out, *self.continues[-1]))
                    head_out = self.run(node.head, after)
                    again = _union(state, head_out)
                else:
                    head_out = self.run(node.head, top)
                    body_out = self.run(node.body, head_out)
                    after = self.run(node.update, _union(body_out, *self.continues[-1]))
                    again = _union(state, after)
                breaks = self.breaks[-1]
            finally:
                self.breaks.pop()
                self.continues.pop()
            if again == top:
                break
            top = again
        return _union(self.run(node.orelse, head_out), *breaks)

    def _switch(self, node: Switch, state: State) -> State:
        self.breaks.append([])
        try:
            ends: list[State] = []
            previous: State = None
            for group in node.groups:
                entry = _union(state, previous) if node.fallthrough else state
                previous = self.run(group, entry)
                if not node.fallthrough:
                    ends.append(previous)
            if node.fallthrough:
                ends.append(previous)
            breaks = self.breaks[-1]
        finally:
            self.breaks.pop()
        return _union(*ends, *breaks, None if node.exhaustive else state)

    def _try(self, node: Try, state: State) -> State:
        body_out = self.run(node.body, state)
        normal = self.run(node.orelse, body_out)
        # A handler starts from wherever the body stopped: the entry state, or after any assignment in it.
        caught = _union(state, frozenset(assignments(node.body)))
        handled = [self.run(handler, caught) for handler in node.handlers]
        normal = _union(normal, *handled)
        if node.final is None:
            return normal
        # `finally` also runs on the way out of a jump or an exception: its reads may see any of those states.
        self.run(node.final, _union(normal, caught))
        return self.run(node.final, normal) if normal is not None else None

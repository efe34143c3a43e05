"""The fewest moves any balanced assignment could make: one topic of one group through a sequence of states,
solved exactly as a min-cost flow (networkx).

The client allocates each topic on its own, so this does too. In every state (a layer) each subscribing process
holds the floor or the ceiling of its fair share (readable queues / subscribing processes), every queue has one
holder (a state without subscribers holds nothing), and a move is a queue whose set of holders differs from the
state before (the same count as a scenario's `moved` queues): keeping a queue with its one previous holder costs 0,
anything else costs 1, and a queue that leaves the route while held is a move every plan makes.

The network, per layer t: a node per subscribing process split in two (`in` -> `out`, flow between floor and
ceiling: the lower bound becomes node demands), a hub (a queue that changes hands goes through it, cost 1) and, for
a layer without subscribers, a "nobody" node. Layer 1 is fed by the start (the group's current assignment): the
queues whose one holder still subscribes come from that holder (cost 0 to stay), the others from one source. Later
layers take the flow of the layer before: p stays with p at cost 0, or goes through the hub. Queues are
interchangeable within a topic, so counts per process are enough; the queues themselves are handed out afterwards
(staying queues first in RocketMQ order). That is exact while every layer after the first has the first one's
queues: a scenario changes routes only in its first step. When a later layer has other queues, which queue a
process held matters and counts no longer suffice: the sequence is cut there and solved in segments, each exactly
from the plan so far, and the plan says it is not exact.

Balanced by backlog (`fewest_moves_by_backlog`, `--balance backlog`): a state is balanced when no subscribing process
holds more backlog than its fair share plus one queue's worth (`rmqplan.allocation.backlog`: the topic's backlog
over its subscribers, plus the largest backlog of one queue), whatever the number of queues each holds. One state
is solved exactly by a greedy: an overloaded process must give up at least as many of the queues it keeps as it
takes to get under that cap by shedding its largest first (the fewest any plan can move), every queue that cannot
stay moves anyway, and placing the movers, largest first, on the least loaded process never breaks the cap (the
least loaded holds at most the fair share). So the moves are exactly the sum of those two, the least possible.
A sequence of states is solved state by state, each exactly from the one before: the sum is then an upper bound
(the plan says it is not exact), since a cheaper sequence may place queues where the next state needs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import networkx as nx

from rmqplan.model.fleet import Queue


@dataclass(frozen=True)
class Layer:
    """One state of a topic: its readable queues (RocketMQ order) and the processes that subscribe to it
    (labels, declaration order)."""

    queues: tuple[Queue, ...]
    holders: tuple[str, ...]


@dataclass
class Plan:
    """The cheapest balanced sequence: moves per layer (their sum is `moves`) and each layer's assignment.
    `exact` is False when a layer after the first has other queues than the one before it: the sequence was solved
    in segments, each exactly from the plan so far (no scenario of fleet.toml gives that, except a topic that only
    some processes subscribe to while those are down)."""

    moves: int
    per_layer: list[int]
    assignments: list[dict[str, list[Queue]]]  # per layer: holder -> queues (RocketMQ order); every holder listed
    exact: bool = True


def fair_bounds(m: int, n: int) -> tuple[int, int]:
    """(floor, ceiling) of m queues over n processes."""
    low = m // n
    return low, low + (1 if m % n else 0)


def owner_sets(assignment: Mapping[str, Sequence[Queue]]) -> dict[Queue, frozenset[str]]:
    held: dict[Queue, set[str]] = {}
    for holder, queues in assignment.items():
        for q in queues:
            held.setdefault(q, set()).add(holder)
    return {q: frozenset(h) for q, h in held.items()}


def count_moves(before: Mapping[Queue, frozenset], before_queues: Sequence[Queue],
                after: Mapping[Queue, frozenset], after_queues: Sequence[Queue]) -> int:
    """Queues whose holder set differs (`rmqplan.model.scenarios.moved_queues`), from owner maps."""
    empty: frozenset = frozenset()
    now = set(after_queues)
    changed = sum(1 for q in after_queues if after.get(q, empty) != before.get(q, empty))
    return changed + sum(1 for q in before_queues if q not in now and before.get(q, empty))


def fewest_moves(start: Mapping[Queue, frozenset], start_queues: Sequence[Queue], layers: Sequence[Layer]) -> Plan:
    """The cheapest balanced assignments of `layers`, from `start` (queue -> holders, the state before the first
    layer, over `start_queues`)."""
    plan = Plan(0, [], [])
    before, before_queues = dict(start), list(start_queues)
    i = 0
    while i < len(layers):
        j = i + 1
        while j < len(layers) and layers[j].queues == layers[i].queues:
            j += 1
        plan.exact = plan.exact and i == 0
        segment = _solve(before, layers[i:j])
        for layer, assignment in zip(layers[i:j], segment):
            after = owner_sets(assignment)
            plan.per_layer.append(count_moves(before, before_queues, after, layer.queues))
            plan.assignments.append(assignment)
            before, before_queues = after, list(layer.queues)
        i = j
    plan.moves = sum(plan.per_layer)
    return plan


def _solve(start: Mapping[Queue, frozenset], layers: Sequence[Layer]) -> list[dict[str, list[Queue]]]:
    """One segment (every layer has the same queues): the optimal assignment of each layer."""
    queues = list(layers[0].queues)
    m = len(queues)
    if m == 0:
        return [{h: [] for h in layer.holders} for layer in layers]
    g = nx.DiGraph()
    demand: dict = {}

    def add_demand(node, amount: int) -> None:
        demand[node] = demand.get(node, 0) + amount

    # layer 0: where the queues come from
    first = layers[0]
    holders0 = set(first.holders)
    kept: dict[str, list[Queue]] = {}
    unheld, others = [], []
    for q in queues:
        h = start.get(q, frozenset())
        if len(h) == 1 and next(iter(h)) in holders0:
            kept.setdefault(next(iter(h)), []).append(q)
        elif h:
            others.append(q)
        else:
            unheld.append(q)
    for p, qs in kept.items():
        add_demand(("prev", p), -len(qs))
    if others:
        add_demand("held", -len(others))
    if unheld:
        add_demand("unheld", -len(unheld))
    for t, layer in enumerate(layers):
        if layer.holders:
            low, high = fair_bounds(m, len(layer.holders))
            for p in layer.holders:
                g.add_edge(("hub", t), ("in", t, p), weight=0)
                g.add_edge(("in", t, p), ("out", t, p), weight=0, capacity=high - low)
                add_demand(("in", t, p), low)
                add_demand(("out", t, p), -low)
        if t == 0:
            for p in kept:  # (kept is empty when the layer has no subscriber)
                g.add_edge(("prev", p), ("in", 0, p), weight=0)
                g.add_edge(("prev", p), ("hub", 0), weight=1)
            if layer.holders:
                for source in ("held", "unheld"):
                    g.add_edge(source, ("hub", 0), weight=1)
            else:
                g.add_edge("held", ("none", 0), weight=1)
                g.add_edge("unheld", ("none", 0), weight=0)
            continue
        previous = layers[t - 1]
        here = set(layer.holders)
        for p in previous.holders:
            if layer.holders:
                if p in here:
                    g.add_edge(("out", t - 1, p), ("in", t, p), weight=0)
                g.add_edge(("out", t - 1, p), ("hub", t), weight=1)
            else:
                g.add_edge(("out", t - 1, p), ("none", t), weight=1)
        if not previous.holders:
            g.add_edge(("none", t - 1), ("hub", t) if layer.holders else ("none", t), weight=1 if layer.holders else 0)
    last = len(layers) - 1
    for p in layers[last].holders:
        g.add_edge(("out", last, p), "sink", weight=0)
    if not layers[last].holders:
        g.add_edge(("none", last), "sink", weight=0)
    add_demand("sink", m)
    for node, amount in demand.items():
        g.add_node(node, demand=amount)
    _, flow = nx.network_simplex(g)
    return _hand_out(flow, layers, queues, kept, others + unheld)


def _hand_out(flow: dict, layers: Sequence[Layer], queues: list[Queue], kept: dict[str, list[Queue]],
              loose: list[Queue]) -> list[dict[str, list[Queue]]]:
    """Turn the counts of the flow into queues: the queues that stay are the first of each holder's (RocketMQ
    order); the ones that go, pooled in RocketMQ order, fill the arrivals in declaration order."""
    order = {q: i for i, q in enumerate(queues)}
    out = []
    for t, layer in enumerate(layers):
        if t == 0:
            pool = list(loose)
            held: dict[str, list[Queue]] = {p: [] for p in layer.holders}
            for p, qs in kept.items():
                stay = flow.get(("prev", p), {}).get(("in", 0, p), 0) if layer.holders else 0
                held_qs = sorted(qs, key=order.__getitem__)
                if layer.holders:
                    held[p].extend(held_qs[:stay])
                pool.extend(held_qs[stay:])
        else:
            previous = out[-1]
            held = {p: [] for p in layer.holders}
            pool = []
            for p, qs in previous.items():
                stay = flow.get(("out", t - 1, p), {}).get(("in", t, p), 0) if p in held else 0
                if p in held:
                    held[p].extend(qs[:stay])
                pool.extend(qs[stay:])
        pool.sort(key=order.__getitem__)
        for p in layer.holders:
            arriving = flow.get(("hub", t), {}).get(("in", t, p), 0)
            held[p].extend(pool[:arriving])
            del pool[:arriving]
        for p in held:
            held[p].sort(key=order.__getitem__)
        if not layer.holders:
            held = {None: pool}  # nobody holds them; carried to the next layer
        out.append(held)
    return [{p: qs for p, qs in a.items() if p is not None} for a in out]


def balanced(assignment: Mapping[str, Sequence[Queue]], layer: Layer) -> bool:
    """Every queue held once, by a subscriber holding floor or ceiling of the fair share."""
    if not layer.holders:
        return not any(assignment.values())
    low, high = fair_bounds(len(layer.queues), len(layer.holders))
    flat = [q for qs in assignment.values() for q in qs]
    return (sorted(flat) == sorted(layer.queues) and set(assignment) <= set(layer.holders)
            and all(low <= len(assignment.get(p, [])) <= high for p in layer.holders))


def start_of(assignment: Optional[Mapping[str, Sequence[Queue]]]) -> dict[Queue, frozenset]:
    return owner_sets(assignment or {})


def backlog_cap(queues: Sequence[Queue], holders: Sequence[str], weights: Mapping[Queue, int]) -> float:
    ws = [weights.get(q, 0) for q in queues]
    return (sum(ws) / len(holders) + max(ws, default=0)) if holders else 0.0


def balanced_by_backlog(assignment: Mapping[str, Sequence[Queue]], layer: Layer,
                        weights: Mapping[Queue, int]) -> bool:
    """Every queue held once, by a subscriber, none holding more backlog than the fair share plus one queue's worth."""
    if not layer.holders:
        return not any(assignment.values())
    flat = [q for qs in assignment.values() for q in qs]
    cap = backlog_cap(layer.queues, layer.holders, weights)
    return (sorted(flat) == sorted(layer.queues) and set(assignment) <= set(layer.holders)
            and all(sum(weights.get(q, 0) for q in assignment.get(p, [])) <= cap for p in layer.holders))


def fewest_moves_by_backlog(start: Mapping[Queue, frozenset], start_queues: Sequence[Queue], layers: Sequence[Layer],
                            weights: Mapping[Queue, int]) -> Plan:
    """The fewest moves after which, in every layer, no process holds more backlog than its fair share plus one
    queue's worth; exact for one layer, an upper bound (solved layer by layer) for more."""
    plan = Plan(0, [], [], exact=len(layers) <= 1)
    before, before_queues = dict(start), list(start_queues)
    for layer in layers:
        assignment = _by_backlog(before, layer, weights)
        after = owner_sets(assignment)
        plan.per_layer.append(count_moves(before, before_queues, after, layer.queues))
        plan.assignments.append(assignment)
        before, before_queues = after, list(layer.queues)
    plan.moves = sum(plan.per_layer)
    return plan


def _by_backlog(start: Mapping[Queue, frozenset], layer: Layer, weights: Mapping[Queue, int]) -> dict[str, list[Queue]]:
    if not layer.holders:
        return {}
    order = {q: i for i, q in enumerate(layer.queues)}
    here = set(layer.holders)
    cap = backlog_cap(layer.queues, layer.holders, weights)
    held: dict[str, list[Queue]] = {p: [] for p in layer.holders}
    movers: list[Queue] = []
    for q in layer.queues:
        h = start.get(q, frozenset())
        if len(h) == 1 and next(iter(h)) in here:
            held[next(iter(h))].append(q)
        else:
            movers.append(q)  # nobody, several or a process gone held it: it moves in any plan
    load = dict.fromkeys(layer.holders, 0)
    for p, qs in held.items():  # keep the lightest while under the cap: the most queues any plan can keep
        keep = []
        for q in sorted(qs, key=lambda q: (weights.get(q, 0), order[q])):
            if load[p] + weights.get(q, 0) <= cap:
                keep.append(q)
                load[p] += weights.get(q, 0)
            else:
                movers.append(q)
        held[p] = keep
    rank = {p: i for i, p in enumerate(layer.holders)}
    for q in sorted(movers, key=lambda q: (-weights.get(q, 0), order[q])):
        target = min(layer.holders, key=lambda p: (load[p], len(held[p]), rank[p]))
        held[target].append(q)
        load[target] += weights.get(q, 0)
    return {p: sorted(qs, key=order.__getitem__) for p, qs in held.items()}

"""The min-cost-flow minimum against an exhaustive search over every balanced assignment of every layer."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.allocation.min_moves import Layer, balanced, balanced_by_backlog, fewest_moves, fewest_moves_by_backlog
from rmqplan.model.fleet import Queue

QUEUES = [Queue("T", b, i) for b in ("a", "b") for i in range(3)]
PROCESSES = ["p1", "p2", "p3", "p4"]


def holders_of(assignment: dict) -> dict:
    out: dict = {}
    for p, qs in assignment.items():
        for q in qs:
            out.setdefault(q, set()).add(p)
    return {q: frozenset(h) for q, h in out.items()}


def cost(before: dict, before_queues, after: dict, after_queues) -> int:
    """Queues whose set of holders differs, plus held queues that left the route."""
    changed = sum(1 for q in after_queues if after.get(q, frozenset()) != before.get(q, frozenset()))
    return changed + sum(1 for q in before_queues if q not in after_queues and before.get(q))


def every_balanced(layer: Layer):
    """Every assignment of the layer in which each holder has floor or ceiling of the fair share."""
    if not layer.holders:
        yield {}
        return
    m, n = len(layer.queues), len(layer.holders)
    low, high = m // n, -(-m // n)
    for choice in itertools.product(layer.holders, repeat=m):
        counts = [choice.count(p) for p in layer.holders]
        if all(low <= c <= high for c in counts):
            yield {p: [q for q, c in zip(layer.queues, choice) if c == p] for p in layer.holders}


def exhaustive(start: dict, start_queues, layers) -> int:
    best = {(): (0, start, tuple(start_queues))}
    for layer in layers:
        nxt = {}
        for total, before, before_queues in best.values():
            for a in every_balanced(layer):
                after = holders_of(a)
                key = tuple(sorted((q, tuple(sorted(h))) for q, h in after.items()))
                c = total + cost(before, before_queues, after, layer.queues)
                if key not in nxt or c < nxt[key][0]:
                    nxt[key] = (c, after, tuple(layer.queues))
        best = nxt
    return min(c for c, _, _ in best.values())


@st.composite
def cases(draw, later_routes: bool = False):
    """A start (queues held by nobody, one process or several) and layers; the first layer's queues may differ
    from the start's, later ones keep them (as in every scenario) unless `later_routes`."""
    start_queues = draw(st.lists(st.sampled_from(QUEUES), unique=True, max_size=5))
    start = {}
    for q in start_queues:  # held by nobody, one process, or several (duplicated)
        start[q] = frozenset(draw(st.lists(st.sampled_from(PROCESSES[:3]), unique=True, max_size=2)))
    queues = tuple(sorted(draw(st.lists(st.sampled_from(QUEUES), unique=True, max_size=5))))
    layers = []
    for i in range(draw(st.integers(1, 4))):
        if i and later_routes and draw(st.integers(0, 2)) == 0:  # a later layer with other queues
            queues = tuple(sorted(draw(st.lists(st.sampled_from(QUEUES), unique=True, max_size=4))))
        holders = tuple(draw(st.lists(st.sampled_from(PROCESSES[:3] if len(queues) > 3 else PROCESSES), unique=True,
                                      max_size=3)))
        layers.append(Layer(queues, holders))
    return start, start_queues, layers


@settings(max_examples=300, deadline=None)
@given(cases())
def test_the_flow_minimum_is_the_exhaustive_minimum(case):
    start, start_queues, layers = case
    plan = fewest_moves(start, start_queues, layers)
    assert plan.exact and plan.moves == exhaustive(start, start_queues, layers)
    assert_valid(plan, start, start_queues, layers)


@settings(max_examples=100, deadline=None)
@given(cases(later_routes=True))
def test_later_route_changes_are_solved_in_segments_and_say_so(case):
    start, start_queues, layers = case
    plan = fewest_moves(start, start_queues, layers)
    assert plan.moves >= exhaustive(start, start_queues, layers)
    assert plan.exact == all(layer.queues == layers[0].queues for layer in layers)
    assert_valid(plan, start, start_queues, layers)


def test_a_later_route_change_can_cost_more_than_the_minimum():
    # one queue over p1, p2, then a second queue that only p2 reads: the exact minimum gives q0 to p2 at once (1 +
    # 1 moves); segment by segment, the first layer cannot know that (either holder costs 1 there)
    q0, q1 = Queue("T", "a", 0), Queue("T", "a", 1)
    layers = [Layer((q0,), ("p1", "p2")), Layer((q0, q1), ("p2",))]
    plan = fewest_moves({}, [], layers)
    assert not plan.exact and plan.moves >= exhaustive({}, [], layers) == 2
    assert_valid(plan, {}, [], layers)


def assert_valid(plan, start, start_queues, layers):
    """The plan is made of balanced assignments and its moves are what they cost."""
    before, before_queues = start, start_queues
    for layer, assignment, moves in zip(layers, plan.assignments, plan.per_layer):
        assert balanced(assignment, layer)
        after = holders_of(assignment)
        assert moves == cost(before, before_queues, after, layer.queues)
        before, before_queues = after, layer.queues


def test_a_rolling_restart_needs_a_plan_that_looks_ahead():
    # 4 queues, 3 processes: p1 holds 2 (the ceiling), p2 and p3 one each. Restart p1, then p2. down p1: its 2
    # queues move (p2 and p3 hold 2 each). up p1: it takes 1 queue, from p2 or p3 at the same cost; taking it from
    # p2, the next to restart, leaves p2 with 1, so down p2 moves 1 queue instead of 2. up p2: 1. Total 5; a plan
    # that decides step by step (taking from p3) makes 6.
    q = [Queue("T", "a", i) for i in range(4)]
    start = {q[0]: frozenset({"p1"}), q[1]: frozenset({"p1"}), q[2]: frozenset({"p2"}), q[3]: frozenset({"p3"})}
    layers = [Layer(tuple(q), ("p2", "p3")), Layer(tuple(q), ("p1", "p2", "p3")), Layer(tuple(q), ("p1", "p3")),
              Layer(tuple(q), ("p1", "p2", "p3"))]
    plan = fewest_moves(start, q, layers)
    assert plan.per_layer == [2, 1, 1, 1] and plan.moves == exhaustive(start, q, layers) == 5
    assert len(plan.assignments[1]["p2"]) == 1 and len(plan.assignments[1]["p3"]) == 2


def test_a_layer_without_subscribers_holds_nothing_and_the_next_picks_everything_up():
    q = [Queue("T", "a", i) for i in range(3)]
    start = {q[0]: frozenset({"p1"}), q[1]: frozenset({"p1"}), q[2]: frozenset()}
    plan = fewest_moves(start, q, [Layer(tuple(q), ()), Layer(tuple(q), ("p1",))])
    # down: the two held queues pause (2 moves; the orphan stays an orphan); up: p1 takes all three (3 moves)
    assert plan.per_layer == [2, 3] and plan.assignments == [{}, {"p1": q}]


# ------------------------------------------------------------------------------------------- balance by backlog


def every_under_cap(layer: Layer, weights: dict):
    """Every assignment of the layer in which no holder has more backlog than the fair share plus the largest queue."""
    if not layer.holders:
        yield {}
        return
    for choice in itertools.product(layer.holders, repeat=len(layer.queues)):
        a = {p: [q for q, c in zip(layer.queues, choice) if c == p] for p in layer.holders}
        if balanced_by_backlog(a, layer, weights):
            yield a


def exhaustive_by_backlog(start: dict, start_queues, layers, weights) -> int:
    best = {(): (0, start, tuple(start_queues))}
    for layer in layers:
        nxt = {}
        for total, before, before_queues in best.values():
            for a in every_under_cap(layer, weights):
                after = holders_of(a)
                key = tuple(sorted((q, tuple(sorted(h))) for q, h in after.items()))
                c = total + cost(before, before_queues, after, layer.queues)
                if key not in nxt or c < nxt[key][0]:
                    nxt[key] = (c, after, tuple(layer.queues))
        best = nxt
    return min(c for c, _, _ in best.values())


@st.composite
def weighted_cases(draw):
    start, start_queues, layers = draw(cases())
    weights = {q: draw(st.sampled_from([0, 0, 1, 3, 10, 50, 200])) for q in QUEUES}
    return start, start_queues, layers, weights


@settings(max_examples=200, deadline=None)
@given(weighted_cases())
def test_by_backlog_one_state_is_the_exhaustive_minimum_and_more_states_a_bound(case):
    start, start_queues, layers, weights = case
    plan = fewest_moves_by_backlog(start, start_queues, layers, weights)
    best = exhaustive_by_backlog(start, start_queues, layers, weights)
    assert plan.exact == (len(layers) == 1)
    assert plan.moves == best if plan.exact else plan.moves >= best
    before, before_queues = start, start_queues
    for layer, assignment, moves in zip(layers, plan.assignments, plan.per_layer):
        assert balanced_by_backlog(assignment, layer, weights)
        after = holders_of(assignment)
        assert moves == cost(before, before_queues, after, layer.queues)
        before, before_queues = after, layer.queues


def test_by_backlog_the_heavy_queues_are_spread_and_the_light_ones_stay():
    # p1 holds all four queues, 90 of the 100 messages on q0 and q1: p2 takes one heavy queue, nothing else moves
    q = [Queue("T", "a", i) for i in range(4)]
    weights = {q[0]: 45, q[1]: 45, q[2]: 5, q[3]: 5}
    start = {x: frozenset({"p1"}) for x in q}
    plan = fewest_moves_by_backlog(start, q, [Layer(tuple(q), ("p1", "p2"))], weights)
    assert plan.exact and plan.moves == 1
    assert plan.assignments[0] == {"p1": [q[0], q[2], q[3]], "p2": [q[1]]}

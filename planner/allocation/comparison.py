"""`rmqplan simulate --compare-strategies` and the cheapest plan (`--plan`): every scenario of each clustering
group under AVG, AVG_BY_CIRCLE, CONSISTENT_HASH and the group's own strategy, side by side with the fewest moves
any balanced assignment could make.

- A variant of the fleet gives every process of every group one strategy (per-instance overrides dropped); the
  group's own strategy is the fleet as written. Every variant's states (`rmqplan.model.states`: the baseline and each
  step of each scenario) are rebalances of ONE batch, run by the engine's `run_batch` (the local kernel, or one
  Spark job), so a comparison costs one pass whatever the number of strategies and steps.
- Per group and scenario, a strategy's `moves` are the moved queues of the group's steps (each against the state
  before), with the duplicate-risk and pause moves among them, and its problems the worst orphaned, duplicated,
  idle and failed counts of any of the scenario's states (the baseline's for the baseline).
- The minimum (`rmqplan.allocation.min_moves`) starts from the group's current assignment (its own strategy's baseline) and
  goes through the same states, per topic as the client allocates; for the baseline it is what balancing the
  current assignment costs. Its assignments are the plan `--plan DIR` writes (`rmqplan.report.plan_out`).
Broadcasting groups are not compared (every process reads every queue); generated groups neither (the
comparison is for hand-written fleets).

`balance="backlog"` (`--balance backlog`): for a group whose backlog the fleet knows (and is not all zero),
"balanced" means no process holds more backlog than its fair share plus one queue's worth
(`rmqplan.allocation.min_moves.fewest_moves_by_backlog`): the minimum and each strategy's unbalanced states are
judged so; other groups keep the balance by queue count.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from rmqplan.model.fleet import CLUSTERING, Fleet, Queue, StrategySpec
from rmqplan.model.words import count
from rmqplan.model.simulation import DUPLICATE_RISK, PAUSE, GroupTopicResult
from rmqplan.allocation.strategies import describe, strategy_of

COMPARED = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")
BASELINE = "baseline"

# What the comparison counts, and from where: the text report's heading, the HTML page's and the docs' words.
COUNTED = ("the moves of a scenario are the queues whose holders change, summed over its steps (a queue that leaves "
           "the routes counts too); each strategy starts from its own split of the baseline, the minimum from the "
           "group's current split (its own strategy's), so a strategy may move fewer than the minimum; the problems "
           "are the worst of any step")

RunBatch = Callable  # batch -> (rows, tally): `rmqplan.engines.local.run_batch` or `rmqplan.engines.spark.run_batch(spark, ...)`


@dataclass
class StrategyRun:
    """One strategy through one scenario of one group."""

    strategy: str  # how it is named ("AVG", "CONSISTENT_HASH (3 virtual nodes)", "AVG + AVG_BY_CIRCLE" when mixed)
    own: bool  # the group's own strategy (the fleet as written)
    moves: int
    duplicate_risk_moves: int
    pause_moves: int
    orphaned: int
    duplicated: int
    idle: int
    failed: int
    unbalanced: int = 0  # states in which some process holds more than the ceiling or less than the floor

    def problems(self) -> str:
        parts = [f"{name} {n}" for name, n in (("orphaned", self.orphaned), ("duplicated", self.duplicated),
                                                 ("failed", self.failed)) if n]
        if self.unbalanced:
            parts.append(f"unbalanced in {self.unbalanced} state{'s' if self.unbalanced > 1 else ''}")
        return ", ".join(parts)


@dataclass
class PlanStep:
    """One state of the minimum's plan: the assignment of every process of the group (labels in declaration
    order, each process's queues over all its topics) and what it costs."""

    step: int  # 0: the baseline
    name: str
    moves: int
    processes: list  # list[Process], declaration order
    queues: dict  # instance label -> list[Queue]


@dataclass
class Comparison:
    scenario: str
    group: str
    steps: int  # 0 for the baseline
    queues: int  # the group's readable queues (all its topics, retry topics included), the most of any state
    runs: list[StrategyRun]
    minimum: int
    plan: list[PlanStep] = field(default_factory=list)
    exact: bool = True  # False: a topic left the group's routes mid-way, solved step by step (`rmqplan.allocation.min_moves`)
    balance: str = "queues"  # what balanced means for this group: "queues" (count) or "backlog"
    queues_before: int = 0  # the group's readable queues in the baseline
    queues_after: int = 0  # ... and after the scenario's last step

    def per_step(self, moves: int) -> float:
        return moves / self.steps if self.steps > 1 else moves

    def summary(self) -> str:
        """What the user gains, in one line, saying what is counted from where: each strategy's moves from its own
        split of the baseline, the minimum from the group's current split (its own strategy's)."""
        where = f"{self.scenario} ({self.group})"
        balanced = "balanced by backlog" if self.balance == "backlog" else "balanced"
        if self.steps == 0:
            own = next(r for r in self.runs if r.own)
            if not self.minimum:
                return f"{where}: {run_name(own)} is {balanced} already"
            trouble = f" ({own.problems()})" if own.problems() else ""
            article = "an assignment balanced by backlog" if self.balance == "backlog" else "a balanced assignment"
            return (f"{where}: {run_name(own)}{trouble} is {count(self.minimum, 'move')} away from {article} "
                    f"(--plan DIR writes it as CONFIG lists)")
        ranked = sorted(self.runs, key=lambda r: (r.moves, r.orphaned + r.duplicated + r.failed, not r.own))
        unit = " per step" if self.steps > 1 else ""
        best, rest = ranked[0], ranked[1:]
        current = next(r for r in self.runs if r.own).strategy
        text = (f"{where}, {count(self.steps, 'step')}, {self._queues_text()}: {run_name(best)} moves "
                f"{_number(self.per_step(best.moves))}{unit} from its own split"
                + "".join(f", {run_name(r)} {_number(self.per_step(r.moves))}" for r in rest)
                + f"; from the current split ({current}'s), "
                + ("an assignment balanced by backlog moves" if self.balance == "backlog"
                   else "a balanced assignment moves at least")
                + f" {_number(self.per_step(self.minimum))}{unit}"
                + ("" if self.exact else " (or less: a topic leaves the group's routes mid-way, planned step by step)"
                   if self.balance != "backlog" else " (at most: balanced by backlog step by step, each step "
                                                     "exactly)"))
        troubled = [r for r in ranked if r.problems()]
        if troubled:  # the minimum is over balanced assignments: an unbalanced strategy may move fewer
            text += " (" + "; ".join(f"{run_name(r)}: {r.problems()}" for r in troubled) + ")"
        return text


    def _queues_text(self) -> str:
        before, after = self.queues_before, self.queues_after
        if before == after:
            return f"{count(before, 'queue')}"
        return f"{count(before, 'queue')} before and {after} after"


def run_name(run: StrategyRun) -> str:
    return f"{run.strategy} (own)" if run.own else run.strategy


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


# ------------------------------------------------------------------------------------------------ variants


def variant(fleet: Fleet, spec: StrategySpec) -> Fleet:
    """The fleet with every process of every group (and every process a scenario adds) running `spec`."""
    def plain(instances):
        return tuple(replace(i, strategy=None) for i in instances)

    groups = tuple(replace(g, strategy=spec, instances=plain(g.instances)) for g in fleet.groups)
    scenarios = tuple(replace(s, add_instances=plain(s.add_instances)) for s in fleet.scenarios)
    return replace(fleet, groups=groups, scenarios=scenarios)


def compare(fleet: Fleet, run_batch: RunBatch, *, plan: bool = False, generated_processes: int = 0,
            balance: str = "queues") -> list[Comparison]:
    """Every clustering hand-written group in every scenario (baseline first) under each strategy, with the
    minimum (and, with `plan`, the minimum's assignments). `generated_processes`: as `scenario_states` takes it.
    `balance`: "queues", or "backlog" for the groups whose backlog the fleet knows."""
    from rmqplan.allocation.failures import keep_on_failure
    from rmqplan.allocation.rebalances import build_batch, state_rebalances
    from rmqplan.allocation.tally import tally
    from rmqplan.allocation.results import Described, results_of, scenario_results
    from rmqplan.model.states import scenario_states

    fleets = [fleet] + [variant(fleet, strategy_of(name).spec()) for name in COMPARED]
    parts = [state_rebalances(f, [scenario_states(f, s, generated_processes) for s in f.scenarios]) for f in fleets]
    rebalances = [rb for fr in parts for rb in fr.rebalances]
    batch = build_batch(fleet, rebalances, {g.name: i for i, g in enumerate(fleet.groups)})
    rows, counted = run_batch(batch)
    kept = keep_on_failure(batch, rows, parts)
    if kept is not None:
        rows, counted = kept, tally(batch, kept)

    def describe_r(r: int) -> Described:
        rb = rebalances[r]
        return Described(rb.scenario, rb.group.name, rb.topic, rb.queues, rb.processes)

    every = results_of(batch, rows, counted, range(len(rebalances)), describe_r)
    runs = []
    start = 0
    for fr in parts:
        mine = every[start:start + len(fr.rebalances)]
        start += len(fr.rebalances)
        listed, steps, _ = scenario_results(fr, mine)
        runs.append(([r for r in listed if r.scenario == BASELINE], steps))
    out = []
    for g in fleet.groups:
        if g.model != CLUSTERING:
            continue
        names = _strategy_names(fleet, g.name)
        # nothing behind anywhere: every assignment would be balanced by backlog; the queue counts still tell
        weights = g.backlog_of() if balance == "backlog" and any(n for _, n in g.backlog) else None
        for scenario in [BASELINE, *(s.name for s in fleet.scenarios)]:
            compared = [_run(g.name, scenario, base, steps, name, own, weights)
                        for (base, steps), (name, own) in zip(runs, names)]
            if compared[0] is None:  # the scenario does not touch the group
                continue
            own_base, own_steps = runs[0]
            comparison = _minimum(g.name, scenario, own_base, own_steps, plan, weights)
            kept = [r for r, (_, own) in zip(compared, names) if own is not None]
            comparison.runs = kept
            out.append(comparison)
    return out


def _strategy_names(fleet: Fleet, group: str) -> list[tuple[str, Optional[bool]]]:
    """(name, own) for the fleet as written and each compared strategy; own None drops a compared strategy that
    IS the group's own (same spec, no per-instance override): the own run stands for it."""
    g = next(x for x in fleet.groups if x.name == group)
    added = [i for s in fleet.scenarios if s.group == group for i in s.add_instances]
    specs = {g.strategy} | {i.strategy for i in g.instances + tuple(added) if i.strategy is not None}
    own_name = " + ".join(dict.fromkeys(describe(s) for s in [g.strategy, *sorted(
        specs - {g.strategy}, key=lambda s: describe(s))]))
    out: list[tuple[str, Optional[bool]]] = [(own_name, True)]
    for name in COMPARED:
        spec = strategy_of(name).spec()  # its defaults (CONSISTENT_HASH: 10 virtual nodes)
        out.append((name, None if specs == {spec} else False))
    return out


def _run(group: str, scenario: str, base: list[GroupTopicResult], steps: dict, name: str,
         own: Optional[bool], weights: Optional[dict] = None) -> Optional[StrategyRun]:
    mine = [r for r in base if r.group == group]
    current = {r.topic: r for r in mine}
    worst = _counts(current)
    moves = risk = pause = 0
    unbalanced = int(not all(_balanced(r, weights) for r in mine))
    if scenario != BASELINE:
        touched = False
        unbalanced = 0
        for step in steps.get(scenario, []):
            results = [r for r in step.results if r.group == group]
            if not results:
                continue
            touched = True
            current = {r.topic: r for r in results}
            worst = [max(a, b) for a, b in zip(worst, _counts(current))]
            moves += sum(len(r.moved) for r in results)
            risk += sum(1 for r in results for m in r.moves if m.kind == DUPLICATE_RISK)
            pause += sum(1 for r in results for m in r.moves if m.kind == PAUSE)
            unbalanced += int(not all(_balanced(r, weights) for r in results))
        if not touched:
            return None
    return StrategyRun(name, bool(own), moves, risk, pause, *worst, unbalanced)


def _balanced(r: GroupTopicResult, weights: Optional[dict] = None) -> bool:
    """Every subscribing process holds the floor or the ceiling of its fair share of the topic's queues; with
    `weights` (backlog), none holds more backlog than its fair share plus one queue's worth."""
    from rmqplan.allocation.min_moves import backlog_cap, fair_bounds

    subscribers = _subscribers(r)
    if not r.queues or not subscribers:
        return True
    if weights is not None:
        cap = backlog_cap(r.queues, subscribers, weights)
        own = set(r.queues)
        return all(sum(weights.get(q, 0) for q in r.assignment[p] if q in own) <= cap for p in subscribers)
    low, high = fair_bounds(len(r.queues), len(subscribers))
    own = set(r.queues)
    return all(low <= sum(1 for q in r.assignment[p] if q in own) <= high for p in subscribers)


def _counts(results: dict) -> list[int]:
    rs = list(results.values())
    return [sum(len(r.orphaned) for r in rs), sum(len(r.duplicated) for r in rs), sum(len(r.idle) for r in rs),
            sum(len(r.errored) for r in rs)]


def _subscribers(r: GroupTopicResult) -> tuple[str, ...]:
    return tuple(p.instance for p in r.processes if p.instance in r.assignment)


def _minimum(group: str, scenario: str, base: list[GroupTopicResult], steps: dict, plan: bool,
             weights: Optional[dict] = None) -> Comparison:
    from rmqplan.allocation.min_moves import Layer, fewest_moves, fewest_moves_by_backlog

    mine = {r.topic: r for r in base if r.group == group}
    if scenario == BASELINE:
        states = [(0, BASELINE, mine)]
    else:
        states = []
        for step in steps.get(scenario, []):
            results = {r.topic: r for r in step.results if r.group == group}
            if results:
                states.append((step.index, step.name, results))
    topics = list(dict.fromkeys([*mine, *(t for _, _, rs in states for t in rs)]))
    per_step = [0] * len(states)
    exact = True
    assignments: list[dict[str, list[Queue]]] = [{} for _ in states]
    for topic in topics:
        before = mine.get(topic)
        start_queues = list(before.queues) if before is not None else []
        start = _owners(before) if before is not None else {}
        layers = []
        for _, _, rs in states:
            r = rs.get(topic)
            layers.append(Layer(tuple(r.queues), _subscribers(r)) if r is not None else Layer((), ()))
        if weights is not None:
            result = fewest_moves_by_backlog(start, start_queues, layers, weights)
        else:
            result = fewest_moves(start, start_queues, layers)
        exact = exact and result.exact
        for i, (moves, assignment) in enumerate(zip(result.per_layer, result.assignments)):
            per_step[i] += moves
            for p, qs in assignment.items():
                assignments[i].setdefault(p, []).extend(qs)
    before = sum(len(r.queues) for r in mine.values())
    last = {**mine, **(states[-1][2] if states else {})}  # a topic the last step does not list is as it was
    comparison = Comparison(scenario, group, len(states) if scenario != BASELINE else 0,
                            max((sum(len(r.queues) for r in rs.values()) for _, _, rs in states), default=0),
                            [], sum(per_step), exact=exact, balance="backlog" if weights is not None else "queues",
                            queues_before=before, queues_after=sum(len(r.queues) for r in last.values()))
    if plan:
        for (index, name, rs), moves, assignment in zip(states, per_step, assignments):
            processes = next(iter(rs.values())).processes if rs else []
            comparison.plan.append(PlanStep(index, name, moves, list(processes),
                                            {p.instance: assignment.get(p.instance, []) for p in processes}))
    return comparison


def _owners(r: GroupTopicResult) -> dict[Queue, frozenset]:
    """Holders of the topic's own queues (a CONFIG list may name other topics' queues: not this topic's)."""
    own = set(r.queues)
    held: dict[Queue, set] = {}
    for p, qs in r.assignment.items():
        for q in qs:
            if q in own:
                held.setdefault(q, set()).add(p)
    return {q: frozenset(h) for q, h in held.items()}

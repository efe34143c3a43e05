"""What a scenario moves (`[[scenarios]]`; its states come from `rmqplan.model.states`).

- `moved` queues of a group/topic between two states: queues whose set of holders (instance labels) differs. A
  scenario's entry compares its last state with the baseline; each step compares with the group's state before it.
  A scenario's churn is the number of moved queues of its entries.
- `moves` says how each moved queue changes hands (`rmqplan.model.MOVE_KINDS`), from who held it before, who holds
  it after and which processes still run: a process that loses a queue while it still runs keeps consuming it
  until its own next rebalance, so if another process took it both may consume it for up to one rebalance
  interval (duplicate risk); a queue whose holders all stopped is consumed by nobody until the new holder
  rebalances (pause).
- `rollout` totals a scenario's steps: steps, moves, duplicate-risk moves, pause moves, and the worst orphaned and
  duplicated counts of any step over the groups the scenario touches (a group counts with its latest state).
"""

from __future__ import annotations

from typing import Iterable, Optional

from rmqplan.model.fleet import BROADCASTING, Queue
from rmqplan.model.simulation import (
    DROPPED,
    DUPLICATE_RISK,
    GONE,
    JOINED,
    PAUSE,
    PICKUP,
    GroupTopicResult,
    Move,
    Simulation,
    StepResult,
)


def owners(result: GroupTopicResult) -> dict[Queue, frozenset[str]]:
    """queue -> the instance labels holding it (every readable queue is a key)."""
    held: dict[Queue, set[str]] = {q: set() for q in result.queues}
    for instance, share in result.assignment.items():
        for q in share:
            held.setdefault(q, set()).add(instance)
    return {q: frozenset(s) for q, s in held.items()}


def moved_queues(baseline: Optional[GroupTopicResult], result: GroupTopicResult) -> list[Queue]:
    """Queues whose set of owners differs from the baseline's (every held queue when the baseline lacks the topic)."""
    now = owners(result)
    if baseline is None:
        return [q for q in result.queues if now[q]]
    before = owners(baseline)
    changed = [q for q in result.queues if now.get(q, frozenset()) != before.get(q, frozenset())]
    changed += [q for q in baseline.queues if q not in now and before[q]]
    return changed


def moves(before: Optional[GroupTopicResult], after: GroupTopicResult) -> list[Move]:
    """The moved queues of `after` against `before` (same order as `moved_queues`), each with how it changes
    hands. A process runs in `after` when it is one of its processes."""
    now = owners(after)
    then = owners(before) if before is not None else {}
    running = {p.instance for p in after.processes}
    out = []
    for q in after.queues:
        b, a = then.get(q, frozenset()), now[q]
        if a != b:
            out.append(Move(q, tuple(sorted(b)), tuple(sorted(a)), _kind(b, a, running, after.model)))
    if before is not None:
        for q in before.queues:
            if q not in now and then[q]:
                out.append(Move(q, tuple(sorted(then[q])), (), GONE))
    return out


def _kind(before: frozenset, after: frozenset, running: set[str], model: str) -> str:
    gained, lost = after - before, before - after
    still_running = lost & running
    if not gained:  # nobody new: it pauses when its holders stopped and none is left, else a holder just let go
        return PAUSE if not after and not still_running else DROPPED
    if model == BROADCASTING:
        return JOINED
    if not before:
        return PICKUP
    if still_running or not lost:
        return DUPLICATE_RISK
    return PAUSE


STEP_KEYS = ("moves", "duplicate_risk_moves", "pause_moves", "orphaned", "duplicated", "idle", "current_orphaned",
             "current_duplicated")


def step_counts(steps: list[StepResult], baseline: Iterable[GroupTopicResult]) -> list[dict]:
    """Per step: its moves by kind and the orphaned, duplicated and idle counts of the groups it touches, and
    `current_orphaned`/`current_duplicated`: those counts over every group the scenario touches, each as its latest
    state leaves it (the baseline's before its first step)."""
    steps = list(steps)
    touched = {r.group for s in steps for r in s.results}
    current: dict[str, dict[str, tuple[int, int]]] = {}
    for r in baseline:
        if r.group in touched:
            current.setdefault(r.group, {})[r.topic] = (len(r.orphaned), len(r.duplicated))
    out = []
    for s in steps:
        counts = dict.fromkeys(STEP_KEYS, 0)
        fresh: dict[str, dict[str, tuple[int, int]]] = {}
        for r in s.results:
            fresh.setdefault(r.group, {})[r.topic] = (len(r.orphaned), len(r.duplicated))
            counts["moves"] += len(r.moved)
            counts["duplicate_risk_moves"] += sum(1 for m in r.moves if m.kind == DUPLICATE_RISK)
            counts["pause_moves"] += sum(1 for m in r.moves if m.kind == PAUSE)
            counts["orphaned"] += len(r.orphaned)
            counts["duplicated"] += len(r.duplicated)
            counts["idle"] += len(r.idle)
        current.update(fresh)
        counts["current_orphaned"] = sum(o for g in current.values() for o, _ in g.values())
        counts["current_duplicated"] = sum(d for g in current.values() for _, d in g.values())
        out.append(counts)
    return out


def add_counts(a: list[dict], b: Optional[list[dict]]) -> list[dict]:
    """Per-step counts of two parts of a fleet (hand-written and generated groups), step by step."""
    if not b:
        return a
    return [{k: x.get(k, 0) + y.get(k, 0) for k in STEP_KEYS} for x, y in zip(a, b)]


def rollout_of(counts: list[dict]) -> dict:
    """A scenario's totals from its per-step counts: steps, moves, duplicate-risk and pause moves, and the worst
    orphaned and duplicated counts of any step."""
    return {"steps": len(counts), "moves": sum(c["moves"] for c in counts),
            "duplicate_risk_moves": sum(c["duplicate_risk_moves"] for c in counts),
            "pause_moves": sum(c["pause_moves"] for c in counts),
            "worst_orphaned": max((c["current_orphaned"] for c in counts), default=0),
            "worst_duplicated": max((c["current_duplicated"] for c in counts), default=0)}


def rollout(steps: list[StepResult], baseline: Iterable[GroupTopicResult]) -> dict:
    """A scenario's totals over its steps; `baseline` gives the touched groups' counts before their first step."""
    return rollout_of(step_counts(steps, baseline))


def scenario_counts(sim: Simulation, name: str) -> list[dict]:
    """Per step of a scenario, its counts over the whole fleet: as the engine counted them
    (`Simulation.step_counts`, which covers groups it does not list), else from the steps' results."""
    if name in sim.step_counts:
        return sim.step_counts[name]
    base = [r for r in sim.results if r.scenario == sim.scenarios[0]]
    return step_counts(sim.steps.get(name, []), base)


def step_totals(step: StepResult) -> dict:
    """One step's counts over the groups it lists."""
    return {
        "moves": sum(len(r.moved) for r in step.results),
        "duplicate_risk_moves": sum(1 for r in step.results for m in r.moves if m.kind == DUPLICATE_RISK),
        "pause_moves": sum(1 for r in step.results for m in r.moves if m.kind == PAUSE),
        "orphaned": sum(len(r.orphaned) for r in step.results),
        "duplicated": sum(len(r.duplicated) for r in step.results),
        "idle": sum(len(r.idle) for r in step.results),
    }


def churn(sim: Simulation) -> list[dict]:
    """Per scenario (baseline excluded): `{"name", "moved_queues"}` (last state against the baseline, over the
    whole fleet: `Simulation.moved_counts` when the engine counted them) and, from its steps, the `rollout`."""
    moved: dict[str, int] = {name: 0 for name in sim.scenarios[1:]}
    for r in sim.results:
        if r.scenario in moved:
            moved[r.scenario] += len(r.moved)
    out = []
    for name, n in moved.items():
        entry = {"name": name, "moved_queues": sim.moved_counts.get(name, n)}
        if name in sim.steps:
            entry["rollout"] = rollout_of(scenario_counts(sim, name))
        out.append(entry)
    return out

"""What a scenario moves (`[[scenarios]]`; its states come from `planner.states`).

- `moved` queues of a group/topic between two states: queues whose set of holders (instance labels) differs. A
  scenario's entry compares its last state with the baseline; each step compares with the group's state before it.
  A scenario's churn is the number of moved queues of its entries.
- `moves` says how each moved queue changes hands (`planner.model.MOVE_KINDS`), from who held it before, who holds
  it after and which processes still run: a process that loses a queue while it still runs keeps consuming it
  until its own next rebalance, so if another process took it both may consume it for up to one rebalance
  interval (duplicate risk); a queue whose holders all stopped is consumed by nobody until the new holder
  rebalances (pause).
- `rollout` totals a scenario's steps: steps, moves, duplicate-risk moves, pause moves, and the worst orphaned and
  duplicated counts of any step over the groups the scenario touches (a group counts with its latest state).
"""

from __future__ import annotations

from typing import Iterable, Optional

from planner.model import (
    BROADCASTING,
    DROPPED,
    DUPLICATE_RISK,
    GONE,
    JOINED,
    PAUSE,
    PICKUP,
    GroupTopicResult,
    Move,
    Queue,
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


def rollout(steps: list[StepResult], baseline: Iterable[GroupTopicResult]) -> dict:
    """A scenario's totals over its steps; `baseline` gives the touched groups' counts before their first step."""
    steps = list(steps)
    touched = {r.group for s in steps for r in s.results}
    current: dict[str, dict[str, tuple[int, int]]] = {}
    for r in baseline:
        if r.group in touched:
            current.setdefault(r.group, {})[r.topic] = (len(r.orphaned), len(r.duplicated))
    totals = {"steps": len(steps), "moves": 0, "duplicate_risk_moves": 0, "pause_moves": 0, "worst_orphaned": 0,
              "worst_duplicated": 0}
    for s in steps:
        fresh: dict[str, dict[str, tuple[int, int]]] = {}
        for r in s.results:
            fresh.setdefault(r.group, {})[r.topic] = (len(r.orphaned), len(r.duplicated))
            totals["moves"] += len(r.moved)
            totals["duplicate_risk_moves"] += sum(1 for m in r.moves if m.kind == DUPLICATE_RISK)
            totals["pause_moves"] += sum(1 for m in r.moves if m.kind == PAUSE)
        current.update(fresh)
        totals["worst_orphaned"] = max(totals["worst_orphaned"], sum(o for g in current.values() for o, _ in g.values()))
        totals["worst_duplicated"] = max(totals["worst_duplicated"],
                                         sum(d for g in current.values() for _, d in g.values()))
    return totals


def step_totals(step: StepResult) -> dict:
    """One step's counts over the groups it touches."""
    return {
        "moves": sum(len(r.moved) for r in step.results),
        "duplicate_risk_moves": sum(1 for r in step.results for m in r.moves if m.kind == DUPLICATE_RISK),
        "pause_moves": sum(1 for r in step.results for m in r.moves if m.kind == PAUSE),
        "orphaned": sum(len(r.orphaned) for r in step.results),
        "duplicated": sum(len(r.duplicated) for r in step.results),
        "idle": sum(len(r.idle) for r in step.results),
    }


def churn(sim: Simulation) -> list[dict]:
    """Per scenario (baseline excluded): `{"name", "moved_queues"}` (last state against the baseline) and, from
    its steps, the `rollout` totals."""
    moved: dict[str, int] = {name: 0 for name in sim.scenarios[1:]}
    for r in sim.results:
        if r.scenario in moved:
            moved[r.scenario] += len(r.moved)
    base = [r for r in sim.results if r.scenario == sim.scenarios[0]]
    out = []
    for name, n in moved.items():
        entry = {"name": name, "moved_queues": n}
        if name in sim.steps:
            entry["rollout"] = rollout(sim.steps[name], base)
        out.append(entry)
    return out

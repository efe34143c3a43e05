"""PLAN009: the processes of a group compute one strategy with different code (a Go service and a Java service in
one group, or Java releases whose classes differ), and where their codes place a queue on different owners the
shares do not partition the queues: some are consumed by nobody, some twice, with unique client ids.

For a clustering result with orphaned or duplicated queues, the subscribing processes are grouped by the strategy
they are configured with (name and parameters); where one such strategy is run as two or more codes
(`rmqplan.allocation.strategies.for_process`), each code's split of the topic's queues over the group's client ids
is computed, and the queues whose owners differ between the codes are the disagreement. The finding names the
codes with their processes, and lists the orphaned and duplicated queues among those (a queue all codes agree on
is orphaned or doubled for another reason: a shared client id, a process that does not subscribe)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from rmqplan.allocation.strategies import StrategyError, allocate_all, describe, for_process
from rmqplan.model.fleet import CLUSTERING, Fleet, Process, Queue, StrategySpec
from rmqplan.model.simulation import GroupTopicResult
from rmqplan.model.words import count, noun

CODE = "PLAN009"


def code_text(spec: StrategySpec) -> str:
    """How the finding names one code: "CONSISTENT_HASH of rocketmq-client-go (10 virtual nodes)", "MACHINE_ROOM
    of the Java client before 4.8.0"."""
    if spec.client != "java":
        return describe(spec)
    before = f" before {'.'.join(map(str, spec.classes_before))}" if spec.classes_before else ""
    return f"{describe(spec)} of the Java client{before}"


def _owners(spec: StrategySpec, queues: Sequence[Queue], cids: list[str], rooms: dict) -> dict[Queue, frozenset]:
    """Who each queue goes to when every process runs `spec` (a process whose strategy throws holds nothing)."""
    held: dict[Queue, set] = {q: set() for q in queues}
    for cid, share in allocate_all(spec, queues, cids, **rooms).items():
        if not isinstance(share, StrategyError):
            for q in share:
                if q in held:
                    held[q].add(cid)
    return {q: frozenset(ids) for q, ids in held.items()}


@dataclass(frozen=True)
class Disagreement:
    """PLAN009's parts (`rmqplan.report.findings` words the finding from them) and the queues it names."""

    headline: str
    why: str
    effect: str
    queues: list


def disagreement(r: GroupTopicResult, fleet: Fleet,
                 show_queues: Callable[[Sequence[Queue]], str]) -> Optional[Disagreement]:
    """The orphaned and duplicated queues the codes' disagreement leaves, with why, or None. `show_queues` writes
    queues as the findings do."""
    if r.model != CLUSTERING or not (r.orphaned or r.duplicated):
        return None
    subscribers = [p for p in r.processes if p.instance in r.assignment]
    if len({(p.client, p.client_version) for p in subscribers}) < 2:
        return None
    by_strategy: dict[StrategySpec, dict[StrategySpec, list[Process]]] = {}
    for p in subscribers:
        try:
            code = for_process(p.strategy, p.client, p.client_version)
        except ValueError:
            continue
        by_strategy.setdefault(p.strategy, {}).setdefault(code, []).append(p)
    cids = [p.client_id for p in r.processes]
    client_rooms: dict[str, str] = {}
    for p in r.processes:
        if p.room:
            client_rooms.setdefault(p.client_id, p.room)
    rooms = {"broker_rooms": {b.name: b.room for b in fleet.brokers if b.room}, "client_rooms": client_rooms}
    lost = set(r.orphaned) | set(r.duplicated)
    for configured, codes in by_strategy.items():
        if len(codes) < 2:
            continue
        owners = [_owners(code, r.queues, cids, rooms) for code in codes]
        differ = [q for q in r.queues if len({o[q] for o in owners}) > 1]
        affected = [q for q in differ if q in lost]
        if affected:
            return _worded(r, configured, codes, differ, affected, show_queues)
    return None


def _worded(r: GroupTopicResult, configured: StrategySpec, codes: dict, differ: list, affected: list,
            show_queues: Callable[[Sequence[Queue]], str]) -> Disagreement:
    parts = "; ".join(f"{count(len(ps), 'process')} ({_names([p.instance for p in ps])}) with {code_text(code)}"
                      for code, ps in codes.items())
    orphaned = set(r.orphaned)
    lost = sum(1 for q in affected if q in orphaned)
    effects = [f"{lost} {noun(lost, 'is', 'are')} consumed by no process"] if lost else []
    doubled = len(affected) - lost
    if doubled:
        effects.append(f"{doubled} {noun(doubled, 'is', 'are')} held by two or more")
    headline = (f"{len(affected)} of {count(len(r.queues), 'queue')} of {r.topic} "
                f"{noun(len(affected), 'is', 'are')} orphaned or doubled because the processes of group {r.group} "
                f"compute {describe(configured)} with different client code ({show_queues(affected)})")
    why = f"{parts}; their splits place {len(differ)} of the queues on different owners"
    return Disagreement(headline, why, " and ".join(effects), affected)


def _names(items: Sequence[str], limit: int = 6) -> str:
    shown = list(items[:limit])
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")

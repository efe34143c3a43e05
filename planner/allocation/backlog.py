"""Queues weighed by their backlog: how many messages each process of a group has to get through, beside how many
queues it holds.

A group's backlog (`rmqplan.model.fleet.Group.backlog`) is the messages behind on each queue, as the brokers
reported them when the fleet was read from a cluster. A process's share of a topic's backlog is the sum over the
queues it holds; a queue held by two processes counts for both (both read it), one held by nobody for nobody.
The fair share is the topic's backlog divided by its subscribing processes; since a queue is never split, the
most a balanced assignment can promise is that no process holds more than the fair share plus one queue's worth
(the largest backlog of a single queue of the topic): `BacklogShares.cap`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from rmqplan.model.fleet import Queue
from rmqplan.model.simulation import GroupTopicResult


@dataclass(frozen=True)
class ProcessBacklog:
    instance: str
    client_id: str
    queues: int  # queues of the topic it holds
    messages: int  # their backlog


@dataclass(frozen=True)
class BacklogShares:
    """One result (a group's topic in one state) weighed by backlog."""

    total: int  # messages behind on the topic's readable queues
    queues: int  # the topic's readable queues
    orphaned: int  # messages behind on queues nobody holds
    largest: int  # the largest backlog of one queue
    processes: tuple[ProcessBacklog, ...]  # subscribing processes, declaration order

    @property
    def fair(self) -> float:
        return self.total / len(self.processes) if self.processes else 0.0

    @property
    def cap(self) -> float:
        """The most any process should hold: its fair share plus one queue's worth."""
        return self.fair + self.largest

    def share(self, p: ProcessBacklog) -> float:
        return p.messages / self.total if self.total else 0.0

    def heaviest(self) -> Optional[ProcessBacklog]:
        """The process holding the most backlog (the first of equals); None when there is none to hold."""
        if not self.processes or not self.total:
            return None
        return max(self.processes, key=lambda p: p.messages)

    def overloaded(self) -> list[ProcessBacklog]:
        """Processes over the cap and at twice the fair share or more: what balancing would change."""
        return [p for p in self.processes if p.messages > self.cap and p.messages >= 2 * self.fair and p.messages]


def shares(r: GroupTopicResult, backlog: Mapping[Queue, int]) -> Optional[BacklogShares]:
    """The backlog shares of a result; None when the group's backlog says nothing of this topic."""
    readable = set(r.queues)
    weights = {q: backlog[q] for q in r.queues if q in backlog}
    if not weights:
        return None
    held: set[Queue] = set()
    out = []
    for p in r.processes:
        if p.instance not in r.assignment:
            continue  # does not subscribe
        mine = [q for q in r.assignment[p.instance] if q in readable]
        held.update(mine)
        out.append(ProcessBacklog(p.instance, p.client_id, len(mine), sum(weights.get(q, 0) for q in mine)))
    return BacklogShares(sum(weights.values()), len(r.queues),
                         sum(n for q, n in weights.items() if q not in held), max(weights.values()), tuple(out))


def percent(x: float) -> str:
    """A share as the report says it: `71%`, `0.4%`, `<0.1%`."""
    p = 100 * x
    if p == 0 or p >= 10 or float(p).is_integer():
        return f"{p:.0f}%"
    return f"{p:.1f}%" if p >= 0.1 else "<0.1%"


def heaviest_text(s: BacklogShares, scenario: Optional[str] = None) -> Optional[str]:
    """`after deploy-orders, 10.0.0.7#1 holds 2 of 8 queues but 71% of the backlog (850 of 1,204 messages)`, for
    the heaviest process when its share of the backlog is above its share of the queues; None otherwise."""
    p = s.heaviest()
    if p is None or not s.queues or p.messages / s.total <= p.queues / s.queues:
        return None
    after = f"after {scenario}, " if scenario else ""
    return (f"{after}{p.instance} holds {p.queues} of {s.queues} queues but {percent(s.share(p))} of the backlog "
            f"({p.messages:,} of {s.total:,} messages)")


def weights_of(queues: Sequence[Queue], backlog: Mapping[Queue, int]) -> list[int]:
    return [backlog.get(q, 0) for q in queues]

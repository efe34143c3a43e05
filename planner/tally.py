"""The one count of problems every engine makes: orphaned and duplicated queues, idle processes.

For one rebalance (a group's topic in one scenario), from who holds what:
- orphaned: readable queues no process holds (clustering only; broadcasting processes each read everything);
- duplicated: readable queues two or more processes hold (clustering only);
- idle: subscribing processes (those with an entry in `assignment`) that hold nothing. Not computed for retry
  topics, which have one queue per broker and would call most processes idle.
Queues a process holds that are not among the topic's readable queues (a CONFIG list naming another topic's
queue) make it not idle, but are neither orphaned nor duplicated here.
"""

from __future__ import annotations

from planner.model import CLUSTERING, GroupTopicResult, Queue
from planner.routes import is_retry_topic


def tally(result: GroupTopicResult) -> GroupTopicResult:
    """Fill `orphaned`, `duplicated` and `idle` of `result` from its `assignment`; returns it."""
    holders: dict[Queue, int] = {}
    for share in result.assignment.values():
        for q in share:
            holders[q] = holders.get(q, 0) + 1
    if result.model == CLUSTERING:
        result.orphaned = [q for q in result.queues if q not in holders]
        result.duplicated = [q for q in result.queues if holders.get(q, 0) > 1]
    else:
        result.orphaned, result.duplicated = [], []
    if is_retry_topic(result.topic):
        result.idle = []
    else:
        result.idle = [p for p in result.processes if p.instance in result.assignment
                       and not result.assignment[p.instance]]
    return result

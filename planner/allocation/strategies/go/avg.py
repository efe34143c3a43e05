"""AVG in rocketmq-client-go: `AllocateByAveragely`, the Java class's arithmetic over Go's order (see the
package's docstring)."""

from __future__ import annotations

from rmqplan.allocation.strategies import strategy_for
from rmqplan.allocation.strategies.go import GoForm, go_sorted


def go_averagely(current: str, mq_all, cid_all) -> list:
    """`AllocateByAveragely` on lists in Go's order."""
    if current == "" or not mq_all or not cid_all or current not in cid_all:
        return []
    index = cid_all.index(current)
    mq_size, cid_size = len(mq_all), len(cid_all)
    mod = mq_size % cid_size
    bigger = mod > 0 and index < mod
    if mq_size <= cid_size:
        average = 1
    elif bigger:
        average = mq_size // cid_size + 1
    else:
        average = mq_size // cid_size
    start = index * average if bigger else index * average + mod
    num = min(average, mq_size - start)
    return [mq_all[(start + i) % mq_size] for i in range(num)]


class GoAvg(GoForm):
    name = "AVG"
    aliases = ("AllocateByAveragely",)

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        return go_averagely(current, *go_sorted(mq_all, cid_all))

    def vectorised(self, calls):
        return strategy_for("AVG").kernel(calls)  # the same arithmetic

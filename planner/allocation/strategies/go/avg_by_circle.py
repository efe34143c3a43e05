"""AVG_BY_CIRCLE in rocketmq-client-go: `AllocateByAveragelyCircle`, the Java class's dealing over Go's order."""

from __future__ import annotations

from rmqplan.allocation.strategies import strategy_for
from rmqplan.allocation.strategies.go import GoForm, go_sorted


class GoAvgByCircle(GoForm):
    name = "AVG_BY_CIRCLE"
    aliases = ("AllocateByAveragelyCircle",)

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        mq_all, cid_all = go_sorted(mq_all, cid_all)
        if current == "" or not mq_all or not cid_all or current not in cid_all:
            return []
        index = cid_all.index(current)
        return [mq_all[i] for i in range(index, len(mq_all)) if i % len(cid_all) == index]

    def vectorised(self, calls):
        return strategy_for("AVG_BY_CIRCLE").kernel(calls)  # the same arithmetic

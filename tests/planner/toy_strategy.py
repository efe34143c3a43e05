"""A strategy that is not RocketMQ's, written the way the README's "Extending rmqplan" says: one module, one class.

REVERSED: AVG's blocks dealt from the other end (the last client id in Java order takes the first block).
"""

from rmqplan.allocation.strategies.avg import avg_range
from rmqplan.allocation.strategies.base import Strategy


class Reversed(Strategy):
    name = "REVERSED"
    java_class = "AllocateMessageQueueReversed"
    generatable = True

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        index = len(cid_all) - 1 - cid_all.index(current)
        start, count = avg_range(index, len(cid_all), len(mq_all))
        return list(mq_all[start:start + count])

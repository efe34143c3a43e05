"""CONFIG: `AllocateMessageQueueByConfig`, a fixed list (`queues` in fleet.toml), returned as configured
whatever the input: no `check`, no sorting, queues of other topics included."""

from __future__ import annotations

from planner.strategies.base import CONFIG_QUEUES, Strategy, first_index


class Config(Strategy):
    name = "CONFIG"
    java_class = "AllocateMessageQueueByConfig"
    params = (CONFIG_QUEUES,)
    checks_input = False

    def unassigned_reason(self, spec):
        return "the CONFIG strategy's fixed queue list does not name them"

    def allocate_one(self, spec, current, mq_all, cid_all, rooms):
        return list(spec.config_queues)

    def allocate_all(self, spec, mq_all, cid_all, rooms):
        return {cid: list(spec.config_queues) for cid in first_index(cid_all)}

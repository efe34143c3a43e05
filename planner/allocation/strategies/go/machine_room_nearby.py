"""MACHINE_ROOM_NEARBY in rocketmq-client-go: `AllocateByMachineNearby` is `AllocateByAveragely` over every queue
(a TODO in the client): it reads no machine room and never throws for a missing one, and ignores `nearby`."""

from __future__ import annotations

from rmqplan.allocation.strategies.go import LIBRARY
from rmqplan.allocation.strategies.go.avg import GoAvg


class GoMachineRoomNearby(GoAvg):
    name = "MACHINE_ROOM_NEARBY"
    aliases = ("AllocateByMachineNearby",)

    def describe(self, spec):
        return f"MACHINE_ROOM_NEARBY of {LIBRARY} (AVG over every queue: it reads no machine room)"

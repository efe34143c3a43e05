"""CONFIG in rocketmq-client-go: `AllocateByConfig(list)` returns its list whatever it is given, as the Java class
does, so the Java form's transcription and kernel are Go's too."""

from __future__ import annotations

from rmqplan.allocation.strategies.config import Config
from rmqplan.allocation.strategies.go import GO, LIBRARY


class GoConfig(Config):
    client = GO
    aliases = ("AllocateByConfig",)

    def describe(self, spec):
        return f"CONFIG of {LIBRARY}"

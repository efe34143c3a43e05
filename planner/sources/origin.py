"""Where a value came from, and what could not be read: shared by every reader in `rmqplan.sources`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    """A file and a 1-based line (0 when the value stands for the whole file, e.g. a name taken from it)."""

    path: str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class SourceProblem:
    """One thing a reader could not use, said in one line."""

    origin: Origin
    message: str

    def __str__(self) -> str:
        return f"{self.origin}: {self.message}"

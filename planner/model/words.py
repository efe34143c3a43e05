"""Counted nouns for messages: "1 queue", "2 queues", never "1 queues" or "queue(s)"."""

from __future__ import annotations

from typing import Optional

_IRREGULAR = {"process": "processes", "retry queue": "retry queues", "is": "are"}


def noun(n: int, word: str, plural: Optional[str] = None) -> str:
    """`word` as it goes with the number `n`."""
    if n == 1:
        return word
    return plural or _IRREGULAR.get(word) or word + "s"


def count(n: int, word: str, plural: Optional[str] = None, *, separators: bool = False) -> str:
    """`n` and its noun: "1 queue", "3 processes" (with `separators`, "12,000 groups")."""
    number = f"{n:,}" if separators else str(n)
    return f"{number} {noun(n, word, plural)}"

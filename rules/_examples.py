"""Helpers for writing rule examples: the expected line is found from the text, so an edit to an example cannot
leave a stale line number behind."""

from __future__ import annotations


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the `occurrence`-th line containing `needle`; fails loudly when there are fewer."""
    seen = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise ValueError(f"{needle!r} occurs {seen} time(s), wanted occurrence {occurrence}")

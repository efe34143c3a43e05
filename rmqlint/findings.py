"""A finding: one problem at one place, as every reporter prints it."""

from __future__ import annotations

from dataclasses import dataclass

from rmqlint.facts import Location

SEVERITIES = ("info", "warning", "error")  # ascending


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str  # "error" | "warning" | "info"
    message: str
    location: Location

    def sort_key(self):
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)

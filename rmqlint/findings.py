"""A finding: one problem at one place, with the other places it cites, as every reporter prints it.

A finding's message may cite other places ("the produced tag "TagA" at src/Producer.java:12"). Those places are
kept as `Location`s inside the message (`parts`), never as pre-formatted paths, so each reporter prints them the
way its reader opens them (relative to the current directory in text, as SARIF embedded links to
`relatedLocations`). Every cited place is also one of `related`, each with a short note of its own; `related` may
hold more places than the message names ("and 5 more").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

from rmqlint.facts import Location
from rmqlint.fixes import Edit, Fix
from rmqlint.spans import Span

SEVERITIES = ("info", "warning", "error")  # ascending

Part = Union[str, Location]  # message text, or a place the message cites (printed as path:line)


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding (a producer of the drifting tag, the consumer a listener belongs to)."""

    location: Location
    message: str  # short: what is at that place


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str  # "error" | "warning" | "info"
    parts: tuple  # tuple[Part, ...]; a plain str is accepted and kept as a one-part message
    location: Location
    related: tuple = ()  # tuple[Related, ...], in the order the rule gives them
    fix: Optional[Fix] = None  # what would make it go away, when a rule knows (`rmqlint.fixes`)

    def __post_init__(self):
        if isinstance(self.parts, str):
            object.__setattr__(self, "parts", (self.parts,))
        else:
            object.__setattr__(self, "parts", tuple(self.parts))
        object.__setattr__(self, "related", tuple(self.related))

    @property
    def message(self) -> str:
        """The message with cited places as `path:line` relative to the finding's project root."""
        return self.render_message(lambda loc: loc.path)

    def render_message(self, show_path: Callable[[Location], str]) -> str:
        return "".join(part if isinstance(part, str) else f"{show_path(part)}:{part.line}" for part in self.parts)

    def cited(self) -> list[Location]:
        return [part for part in self.parts if isinstance(part, Location)]

    def sort_key(self):
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)

    def moved(self, prefix: str) -> "Finding":
        """The same finding with every path (its own, cited and related) under `prefix`: the findings of a
        project nested in the linted tree, rooted at the tree."""
        if not prefix:
            return self
        return Finding(
            self.code,
            self.severity,
            tuple(part if isinstance(part, str) else _moved(part, prefix) for part in self.parts),
            _moved(self.location, prefix),
            tuple(Related(_moved(r.location, prefix), r.message) for r in self.related),
            self.fix.moved(prefix) if self.fix is not None else None,
        )


def _moved(loc: Location, prefix: str) -> Location:
    return Location(f"{prefix}/{loc.path}", loc.line, loc.column, loc.end_line, loc.end_column)


def message(*parts: Part) -> tuple:
    """Message parts, adjacent texts joined: `message("at ", loc, ", and more")`."""
    joined: list = []
    for part in parts:
        if isinstance(part, str) and joined and isinstance(joined[-1], str):
            joined[-1] += part
        elif part != "":
            joined.append(part)
    return tuple(joined)


# --- the JSON form of a finding, shared by the cache's memo --------------------------------------------------


def location_to_json(loc: Location) -> list:
    return [loc.path, loc.line, loc.column, loc.end_line, loc.end_column]


def location_from_json(data) -> Location:
    """Raises ValueError on anything but what `location_to_json` wrote."""
    if not (isinstance(data, list) and len(data) == 5 and type(data[0]) is str
            and all(type(v) is int for v in data[1:])):
        raise ValueError("not a location")
    return Location(*data)


def finding_to_json(finding: Finding) -> list:
    item = [
        finding.code,
        finding.severity,
        [part if isinstance(part, str) else location_to_json(part) for part in finding.parts],
        location_to_json(finding.location),
        [[*location_to_json(r.location), r.message] for r in finding.related],
    ]
    if finding.fix is not None:
        fix = finding.fix
        item.append([fix.message, fix.applicability, [[*_span_to_json(e.span), e.replacement] for e in fix.edits],
                     [list(pair) for pair in fix.digests]])
    return item


def _span_to_json(span: Span) -> list:
    return [span.path, span.start, span.end, span.line, span.column, span.end_line, span.end_column, span.encoding,
            span.text, span.operand]


def _fix_from_json(data) -> Fix:
    if not (isinstance(data, list) and len(data) == 4 and type(data[0]) is str and type(data[1]) is str
            and isinstance(data[2], list) and isinstance(data[3], list)
            and all(isinstance(p, list) and len(p) == 2 and all(type(v) is str for v in p) for p in data[3])):
        raise ValueError("not a fix")
    edits = []
    for edit in data[2]:
        if not (isinstance(edit, list) and len(edit) == 11 and type(edit[0]) is str
                and all(type(v) is int for v in edit[1:7]) and type(edit[7]) is str and type(edit[8]) is str
                and type(edit[9]) is bool and type(edit[10]) is str):
            raise ValueError("not an edit")
        edits.append(Edit(Span(*edit[:10]), edit[10]))
    return Fix(data[0], tuple(edits), data[1], tuple(tuple(p) for p in data[3]))


def finding_from_json(item) -> Finding:
    """Raises ValueError on anything but what `finding_to_json` wrote."""
    if not (isinstance(item, list) and len(item) in (5, 6) and type(item[0]) is str and item[1] in SEVERITIES
            and isinstance(item[2], list) and isinstance(item[4], list)):
        raise ValueError("not a finding")
    code, severity, parts, location, related = item[:5]
    fix = _fix_from_json(item[5]) if len(item) == 6 else None
    decoded_related = []
    for entry in related:
        if not (isinstance(entry, list) and len(entry) == 6 and type(entry[5]) is str):
            raise ValueError("not a related location")
        decoded_related.append(Related(location_from_json(entry[:5]), entry[5]))
    return Finding(
        code,
        severity,
        tuple(part if type(part) is str else location_from_json(part) for part in parts),
        location_from_json(location),
        tuple(decoded_related),
        fix,
    )

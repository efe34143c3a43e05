"""Write a `fleet.toml` that `rmqplan simulate` takes as it is, with a comment on every value saying where it came
from (`path:line`) or, for a value nothing said, `unknown: <why>` beside the default chosen.

The input is a `PlannedFleet`: the shape of fleet.toml (brokers, topics, groups with their instance sets), where
every value is a `Sourced` (the value and its provenance). Strategy parameters are a table by fleet.toml key
(`virtual_nodes`, `consumer_idcs`, `nearby`, `queues`, or a plug-in strategy's own), so a new strategy needs no
change here.

- `write_fleet(planned)` returns the text; `fleet_document(planned)` the plain values the text holds (what
  `tomllib` reads back from it);
- `save_fleet(planned, path)` checks the text with the fleet parser first (a fleet `simulate` would reject is a
  `FleetError`, and nothing is written), then writes atomically: a temporary file renamed over the target, so a
  failed run never leaves half a file.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Generic, Optional, TypeVar

from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.model.fleet import Fleet

T = TypeVar("T")
# The keys of an instance set the writer fills from `PlannedInstances`, in the order it writes them.
INSTANCE_KEYS = ("name", "hosts", "count", "scale_out", "instance_name", "unit_name", "pid", "started_as",
                 "client_version", "client", "consumer", "room", "strategy")


@dataclass(frozen=True)
class Sourced(Generic[T]):
    """A value and where it came from: `path:line` (an `Origin` or its text), or why nothing said it."""

    value: T
    source: str
    known: bool = True  # False: nothing said it; `source` says why, and `value` is the default chosen

    @classmethod
    def at(cls, value: T, origin: Any, detail: str = "") -> "Sourced[T]":
        """A value read at `origin` (anything whose text is `path:line`), with an optional detail."""
        return cls(value, f"{origin} {detail}".strip() if detail else str(origin))

    @classmethod
    def unknown(cls, value: T, why: str) -> "Sourced[T]":
        return cls(value, why, known=False)

    def comment(self) -> str:
        return comment_text(self.source if self.known else f"unknown: {self.source}")


_NOT_IN_COMMENTS = re.compile("[\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]")  # control characters but tab, surrogates


def comment_text(text: str) -> str:
    """One line that TOML takes in a comment: no line breaks, no control characters, no lone surrogates."""
    return _NOT_IN_COMMENTS.sub("\ufffd", " ".join(text.split()))


@dataclass
class PlannedBroker:
    name: Sourced[str]
    perm: Optional[Sourced[str]] = None
    room: Optional[Sourced[str]] = None


@dataclass
class PlannedTopic:
    name: Sourced[str]
    read_queues: Sourced[Any]  # int, or {broker: int}
    write_queues: Optional[Sourced[Any]] = None
    brokers: Optional[Sourced[list]] = None
    perm: Optional[Sourced[str]] = None


@dataclass
class PlannedSubscription:
    topic: str
    expression: str
    source: Sourced[str]  # value "": the subscription's provenance only


@dataclass
class PlannedInstances:
    hosts: Sourced[list]
    count: Optional[Sourced[int]] = None
    name: Optional[Sourced[str]] = None  # the workload running the set: what a scenario's `replicas` names
    scale_out: Optional[Sourced[str]] = None  # "same_hosts": new replicas report the hosts' IPs (host networking)
    instance_name: Optional[Sourced[str]] = None
    unit_name: Optional[Sourced[str]] = None
    pid: Optional[Sourced[int]] = None
    started_as: Optional[Sourced[str]] = None  # a running process's replaced default name, as connected
    client_version: Optional[Sourced[str]] = None
    client: Optional[Sourced[str]] = None  # "cpp": the C++ client names the process (rmqplan.model.identity)
    consumer: Optional[Sourced[str]] = None  # "lite_pull" / "pull" (absent: push)
    room: Optional[Sourced[str]] = None
    strategy: Optional[Sourced[str]] = None  # an override: a deployment caught half-way
    params: dict[str, Sourced] = field(default_factory=dict)  # strategy parameters of the override
    subscriptions: Optional[list[PlannedSubscription]] = None  # an override
    note: str = ""  # comment lines above the instance set (which service, which deployment)


@dataclass
class PlannedGroup:
    name: Sourced[str]
    model: Sourced[str]
    strategy: Sourced[str]
    subscriptions: list[PlannedSubscription]
    instances: list[PlannedInstances]
    params: dict[str, Sourced] = field(default_factory=dict)  # virtual_nodes, consumer_idcs, nearby, queues, ...
    note: str = ""
    backlog: Optional[Sourced[dict]] = None  # {topic: {broker: [messages behind by queue id]}}


@dataclass
class PlannedFleet:
    brokers: list[PlannedBroker]
    topics: list[PlannedTopic]
    groups: list[PlannedGroup]
    header: list[str] = field(default_factory=list)  # comment lines at the top
    client_version: Optional[Sourced[str]] = None  # [defaults]


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped, everything else as it is."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be written in UTF-8 nor in TOML
            out.append("\\uFFFD")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_string(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _plain(value: Any) -> Any:
    """What tomllib reads back for a written value."""
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain(str(k)): _plain(v) for k, v in value.items()}
    return value


# --- the document ---------------------------------------------------------------------------------------------


def _put(table: dict, key: str, sourced: Optional[Sourced]) -> None:
    if sourced is not None:
        table[key] = _plain(sourced.value)


def _subscriptions(subs: list[PlannedSubscription]) -> list[dict]:
    return [{"topic": _plain(s.topic), "expression": _plain(s.expression)} for s in subs]


def fleet_document(fleet: PlannedFleet) -> dict:
    """The values `write_fleet` writes, as tomllib reads them back (comments aside)."""
    doc: dict = {"version": 1}
    if fleet.client_version is not None:
        doc["defaults"] = {"client_version": _plain(fleet.client_version.value)}
    if fleet.brokers:
        doc["brokers"] = []
    for broker in fleet.brokers:
        table: dict = {}
        _put(table, "name", broker.name)
        _put(table, "perm", broker.perm)
        _put(table, "room", broker.room)
        doc["brokers"].append(table)
    if fleet.topics:
        doc["topics"] = []
    for topic in fleet.topics:
        table = {}
        for key in ("name", "read_queues", "write_queues", "brokers", "perm"):
            _put(table, key, getattr(topic, key))
        doc["topics"].append(table)
    if fleet.groups:
        doc["groups"] = []
    for group in fleet.groups:
        table = {}
        for key in ("name", "model", "strategy"):
            _put(table, key, getattr(group, key))
        for key, sourced in group.params.items():
            _put(table, key, sourced)
        _put(table, "backlog", group.backlog)
        table["subscriptions"] = _subscriptions(group.subscriptions)
        instances = []
        for planned in group.instances:
            inst: dict = {}
            for key in INSTANCE_KEYS:
                _put(inst, key, getattr(planned, key))
            for key, sourced in planned.params.items():
                _put(inst, key, sourced)
            if planned.subscriptions is not None:
                inst["subscriptions"] = _subscriptions(planned.subscriptions)
            instances.append(inst)
        if instances:
            table["instances"] = instances
        doc["groups"].append(table)
    return doc


# --- the text -------------------------------------------------------------------------------------------------


def _line(out: list[str], key: str, sourced: Optional[Sourced]) -> None:
    if sourced is None:
        return
    out.append(f"{toml_string(key) if not key.replace('_', '').isalnum() else key} = "
               f"{toml_value(sourced.value)}  # {sourced.comment()}")


def _comment(out: list[str], text: str) -> None:
    for row in text.splitlines():
        out.append(f"# {comment_text(row)}".rstrip())


def _subscription_lines(out: list[str], subs: list[PlannedSubscription]) -> None:
    out.append("subscriptions = [")
    for sub in subs:
        item = f"{{ topic = {toml_string(sub.topic)}, expression = {toml_string(sub.expression)} }}"
        out.append(f"  {item},  # {sub.source.comment()}")
    out.append("]")


def write_fleet(fleet: PlannedFleet) -> str:
    out: list[str] = []
    for row in fleet.header:
        _comment(out, row)
    if fleet.header:
        out.append("")
    out.append("version = 1")
    if fleet.client_version is not None:
        out += ["", "[defaults]"]
        _line(out, "client_version", fleet.client_version)
    for broker in fleet.brokers:
        out += ["", "[[brokers]]"]
        _line(out, "name", broker.name)
        _line(out, "perm", broker.perm)
        _line(out, "room", broker.room)
    for topic in fleet.topics:
        out += ["", "[[topics]]"]
        for key in ("name", "read_queues", "write_queues", "brokers", "perm"):
            _line(out, key, getattr(topic, key))
    for group in fleet.groups:
        out.append("")
        if group.note:
            _comment(out, group.note)
        out.append("[[groups]]")
        for key in ("name", "model", "strategy"):
            _line(out, key, getattr(group, key))
        for key, sourced in group.params.items():
            _line(out, key, sourced)
        _line(out, "backlog", group.backlog)
        _subscription_lines(out, group.subscriptions)
        for instances in group.instances:
            out.append("")
            if instances.note:
                _comment(out, instances.note)
            out.append("[[groups.instances]]")
            for key in INSTANCE_KEYS:
                _line(out, key, getattr(instances, key))
            for key, sourced in instances.params.items():
                _line(out, key, sourced)
            if instances.subscriptions is not None:
                _subscription_lines(out, instances.subscriptions)
    return "\n".join(out) + "\n"


def save_fleet(fleet: PlannedFleet, path: str | os.PathLike) -> Fleet:
    """Check the fleet as `simulate` would read it, its size aside (FleetError, nothing written, when it would not
    take it), then write atomically: the target is either the old file or the whole new one. Returns the parsed
    fleet."""
    text = write_fleet(fleet)
    parsed = parse_fleet_text(text, os.fspath(path), max_entries=sys.maxsize)
    from rmqlint.output import write_atomically

    write_atomically(path, text)
    return parsed

"""Write a `fleet.toml` that `rmqplan simulate` takes as it is, with a comment on every value saying where it
came from (`path:line`) or, for a value nothing said, `unknown: <why>` and the default chosen.

The input is a `PlannedFleet`: the same shape as fleet.toml, where every value is a `Sourced` (the value and
its provenance). `write_fleet` returns the text; `save_fleet` writes it atomically (a temporary file renamed
over the target, so a failed run never leaves half a file).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Generic, Optional, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Sourced(Generic[T]):
    value: T
    source: str  # "path:line", or what the value was derived from
    known: bool = True  # False: nothing said it; `source` says why this default was chosen

    @classmethod
    def unknown(cls, value: T, why: str) -> "Sourced[T]":
        return cls(value, why, known=False)

    def comment(self) -> str:
        return comment_text(self.source if self.known else f"unknown: {self.source}")


def comment_text(text: str) -> str:
    """One line that TOML takes in a comment: no line breaks, no control characters, no lone surrogates."""
    text = " ".join(text.split())
    return "".join("\ufffd" if (ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F or 0xD800 <= ord(c) <= 0xDFFF
                   else c for c in text)


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
    source: Sourced[str]  # value: "" (the subscription's provenance only)


@dataclass
class PlannedInstances:
    hosts: Sourced[list]
    count: Optional[Sourced[int]] = None
    instance_name: Optional[Sourced[str]] = None
    unit_name: Optional[Sourced[str]] = None
    pid: Optional[Sourced[int]] = None
    client_version: Optional[Sourced[str]] = None
    room: Optional[Sourced[str]] = None
    note: str = ""  # a comment line above the instance set (which service, which deployment)


@dataclass
class PlannedGroup:
    name: Sourced[str]
    model: Sourced[str]
    strategy: Sourced[str]
    subscriptions: list[PlannedSubscription]
    instances: list[PlannedInstances]
    virtual_nodes: Optional[Sourced[int]] = None
    consumer_idcs: Optional[Sourced[list]] = None
    nearby: Optional[Sourced[str]] = None
    note: str = ""


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


def _line(out: list[str], key: str, sourced: Optional[Sourced]) -> None:
    if sourced is None:
        return
    out.append(f"{key} = {toml_value(sourced.value)}  # {sourced.comment()}")


def _comment(out: list[str], text: str) -> None:
    for row in text.splitlines():
        out.append(f"# {comment_text(row)}".rstrip())


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
        _line(out, "name", topic.name)
        _line(out, "read_queues", topic.read_queues)
        _line(out, "write_queues", topic.write_queues)
        _line(out, "brokers", topic.brokers)
        _line(out, "perm", topic.perm)
    for group in fleet.groups:
        out.append("")
        if group.note:
            _comment(out, group.note)
        out.append("[[groups]]")
        _line(out, "name", group.name)
        _line(out, "model", group.model)
        _line(out, "strategy", group.strategy)
        _line(out, "virtual_nodes", group.virtual_nodes)
        _line(out, "consumer_idcs", group.consumer_idcs)
        _line(out, "nearby", group.nearby)
        out.append("subscriptions = [")
        for sub in group.subscriptions:
            item = f"{{ topic = {toml_string(sub.topic)}, expression = {toml_string(sub.expression)} }}"
            out.append(f"  {item},  # {sub.source.comment()}")
        out.append("]")
        for instances in group.instances:
            out.append("")
            if instances.note:
                _comment(out, instances.note)
            out.append("[[groups.instances]]")
            _line(out, "hosts", instances.hosts)
            _line(out, "count", instances.count)
            _line(out, "instance_name", instances.instance_name)
            _line(out, "unit_name", instances.unit_name)
            _line(out, "pid", instances.pid)
            _line(out, "client_version", instances.client_version)
            _line(out, "room", instances.room)
    return "\n".join(out) + "\n"


def save_fleet(fleet: PlannedFleet, path: str) -> None:
    """Write atomically: the target is either the old file or the whole new one."""
    text = write_fleet(fleet)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".fleet-", suffix=".toml", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

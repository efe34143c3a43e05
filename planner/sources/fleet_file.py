"""Parse and validate `fleet.toml` version 1 into a `rmqplan.model.Fleet`.

`load_fleet(path)` reads the file with `tomllib` and checks every key; a broken fleet raises `FleetError`, whose
`errors` are complete one-line messages, `FILE: key.path: what is wrong`, one per problem (all of them, not just
the first). Bad TOML gives `FILE:LINE:COL: invalid TOML: ...` from tomllib's own position.

Decisions that the engines rely on (keep `rmqplan.engines.spark` in step):
- a topic's `read_queues`/`write_queues` are an integer (the same on each of its brokers) or a table per broker;
  `brokers` defaults to the table's keys when `read_queues` is a table, else to every broker, in file order;
- `write_queues` defaults to `read_queues`; a `perm` (brokers, topics, a scenario's `broker_perm`) is a string,
  "rw" (the default), "r", "w" or "", or RocketMQ's permission bits from 0 to 7 (4 read, 2 write);
- a group's `strategy` defaults to "AVG", `model` to "clustering"; `nearby` defaults to "AVG";
  the strategy parameters (`virtual_nodes`, `consumer_idcs`, `nearby`, `queues`) may also be set on an instance
  set, next to its `strategy` override; an override without them inherits the group's parameters;
- `instance_name = "DEFAULT"` is the same as no instance name (the client replaces it the same way);
  `started_as` is what a running process's client made of it ("pid", or "pid#nanoTime" from 4.9.0 on, as
  connected; one host, count 1, no `instance_name` or `pid`): its id until it restarts;
- `[defaults] client_version` is the client version of every Java or C++ instance set that does not say
  otherwise; an instance set's `client` is "java" (default: the Java client and what is built on it), "cpp" (the
  C++ client 2.x under the Python 2.x client) or "go" (rocketmq-client-go v2: its `client_version` a v2 release,
  "2.1.2" by default, "v" in front allowed; push consumers; a strategy it has a form of), which name processes
  differently (`rmqplan.model.identity`) and a Go process computes its share with Go's code; its `consumer`
  is "push" (default), "lite_pull" or "pull": lite pull and pull consumers do not rebalance the retry topic and,
  from client 4.9.4 on, end their client id with "@STREAM";
- a scenario's `remove_hosts` (a failed host: every process of the group there) must name hosts of the group;
  `remove_instances` may not exceed the processes left; `add_instances`, `remove_instances` and `remove_hosts`
  need the scenario's `group`; `rolling_restart` is `true` (the scenario's group; without one, every group of the
  fleet, generated ones included), a group name or a list of names (those groups restart in parallel);
- `remove_brokers` and `broker_perm` name brokers of the fleet (generated ones too); `set_queues` items name a topic and
  give `read_queues` and/or `write_queues` as an integer (every broker of the topic) or a table naming some of the
  topic's brokers; what is not given keeps its count;
- a group's optional `backlog` (what `rmqplan fleet` reads from a cluster's consume stats) is a table by topic
  (a subscribed topic, or the group's `%RETRY%<group>`) of tables by broker (one of the topic's; any of the
  fleet's for the retry topic) of lists of messages behind, by queue id from 0: at most the broker's read queues
  (the retry topic's: one). A queue it does not list is not known and weighs 0.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Optional

from rmqlint import bounded_toml
from rmqlint.output import ERROR_LIMIT, more_errors
from rmqplan.model.identity import (
    CLIENTS,
    CONSUMERS,
    CPP_CLIENT,
    GO_CLIENT,
    GO_UNIT_NAME_SINCE,
    JAVA_CLIENT,
    NANOTIME_SINCE,
    PUSH,
)
from rmqplan.model.scaling import differences
from rmqplan.model.fleet_size import MAX_ENTRIES, fleet_size, too_large_line
from rmqplan.model.fleet import (
    BROADCASTING,
    CLUSTERING,
    DEFAULT_CLIENT_VERSION,
    DEFAULT_GO_CLIENT_VERSION,
    Broker,
    DEFAULT_RETRY_QUEUES,
    Fleet,
    GenerateSpec,
    Group,
    InstanceSpec,
    NEW_HOSTS,
    Queue,
    QueueResize,
    SAME_HOSTS,
    Scaling,
    Scenario,
    StrategySpec,
    SubscriptionSpec,
    Topic,
    parse_client_version,
)
from rmqplan.allocation.strategies import (
    NEARBY_KEY,
    ParamError,
    canonical_name,
    generatable_names,
    has_form,
    names,
    param_keys,
    parse_strategy,
)

MAX_QUEUES_PER_BROKER = 65_536  # sanity bounds for hand-written fleets: a typo must not hang the engine
MAX_PROCESSES_PER_SET = 100_000  # processes per host in one instance set
MAX_FLEET_BYTES = 64 * 1024 * 1024  # a hand-written fleet is small; [generate] builds big ones inside Spark
# Keys of at most bounded_toml.MAX_KEY_PARTS parts (tomllib's memory grows with their square), and a fleet's few
# tables (every group is one more `[[groups]]`, not a table of its own name): 3 MB of distinct headers took 450 MB.
# The names are not counted: a fleet's memory grows with its groups, and a big one is the user's own.
FLEET_TOML = bounded_toml.Limits(max_bytes=MAX_FLEET_BYTES, max_names=None, max_tables=1_000)
PERMS = {"rw": (True, True), "wr": (True, True), "r": (True, False), "w": (False, True), "": (False, False)}

TOP_KEYS = ("version", "defaults", "brokers", "topics", "groups", "scenarios", "generate")
DEFAULTS_KEYS = ("client_version",)
BROKER_KEYS = ("name", "room", "perm")
TOPIC_KEYS = ("name", "read_queues", "write_queues", "brokers", "perm")
STRATEGY_PARAM_KEYS = param_keys()  # virtual_nodes, consumer_idcs, queues, nearby: what the strategies read
GROUP_KEYS = ("name", "model", "strategy", *STRATEGY_PARAM_KEYS, "subscriptions", "instances", "backlog")
MAX_BACKLOG = 2**63 - 1  # a queue offset is a Java long
INSTANCE_KEYS = (
    "name", "hosts", "count", "scale_out", "instance_name", "unit_name", "pid", "started_as", "client_version",
    "client", "consumer", "room", "strategy", *STRATEGY_PARAM_KEYS, "subscriptions",
)
SUBSCRIPTION_KEYS = ("topic", "expression")
SCENARIO_KEYS = ("name", "group", "replicas", "add_instances", "remove_instances", "remove_hosts", "remove_brokers",
                 "broker_perm", "set_queues", "rolling_restart")
SET_QUEUES_KEYS = ("topic", "read_queues", "write_queues")
ROLLING_RESTART_GROUP = "group"  # the older spelling of rolling_restart = true
PERM_READ, PERM_WRITE = 4, 2  # RocketMQ PermName bits; PermName.isValid accepts 0 <= perm < 8
BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_GENERATED_GROUPS = 1_000_000_000  # 61,036 chunks of default groups to list; 10M groups take minutes already
MAX_GENERATED_BROKERS = 1_024  # the most a live cluster's route may name (rmqplan.sources.remoting.limits)
GENERATE_KEYS = ("groups", "seed", "instances", "queues", "brokers", "colliding_client_ids", "strategies")


SPLIT_HELP = ("split the fleet, run fewer scenarios at once, describe it with [generate] (it works in chunks), or "
              "raise --max-entries")


class FleetError(Exception):
    """A fleet that cannot be used; `errors` holds one complete line per problem."""

    def __init__(self, errors: list[str]):
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class StrategySettings:
    """A strategy as written in a group (name and parameter values by key), for its instance sets to inherit."""

    name: str
    params: dict


DEFAULT_STRATEGY = StrategySettings("AVG", {})


STDIN = "-"  # `--fleet -`: the fleet on standard input
STDIN_LABEL = "<stdin>"


def load_fleet(path: str | Path, stdin: Optional[BinaryIO] = None, max_entries: int = MAX_ENTRIES) -> Fleet:
    """Read and validate a fleet file (`-`: standard input, or `stdin`); one that would hold more than
    `max_entries` when simulated is refused (`rmqplan.model.fleet_size`). Raises FleetError (never another
    exception for bad input)."""
    if str(path) == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        try:
            data = stream.read(MAX_FLEET_BYTES + 1)
        except OSError as e:
            raise FleetError([f"{STDIN_LABEL}: cannot read: {e.strerror or e}"]) from None
        if len(data) > MAX_FLEET_BYTES:
            raise FleetError([f"{STDIN_LABEL}: larger than {MAX_FLEET_BYTES} bytes; use [generate]"])
        return parse_fleet_bytes(data, STDIN_LABEL, max_entries)
    label = str(path)
    try:
        p = Path(path)
        if p.is_dir():
            raise FleetError([f"{label}: is a directory, expected a fleet.toml file"])
        size = p.stat().st_size
        if size > MAX_FLEET_BYTES:
            raise FleetError([f"{label}: file is {size} bytes, larger than {MAX_FLEET_BYTES}; use [generate]"])
        data = p.read_bytes()
    except FleetError:
        raise
    except FileNotFoundError:
        raise FleetError([f"{label}: no such file"]) from None
    except OSError as e:
        raise FleetError([f"{label}: cannot read: {e.strerror or e}"]) from None
    return parse_fleet_bytes(data, label, max_entries)


def parse_fleet_bytes(data: bytes, label: str, max_entries: int = MAX_ENTRIES) -> Fleet:
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FleetError([f"{label}: binary file (NUL byte at offset {nul}), expected TOML text"])
    try:
        text = data.decode("utf-8-sig")  # a BOM from a Windows editor is not an error
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise FleetError([f"{label}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x}), TOML must be UTF-8"]) from None
    return parse_fleet_text(text, label, max_entries=max_entries)


def parse_fleet_text(text: str, label: str, too_large_help: str = SPLIT_HELP,
                     max_entries: int = MAX_ENTRIES) -> Fleet:
    try:
        doc = bounded_toml.loads(text, FLEET_TOML)
    except bounded_toml.TomlRefused as e:
        raise FleetError([f"{label}:{e.line}: {e.reason}" if e.line else f"{label}: {e.reason}"]) from None
    except tomllib.TOMLDecodeError as e:
        raise FleetError([_toml_error_line(label, str(e), text)]) from None
    return parse_fleet_document(doc, label, too_large_help, max_entries)


def parse_fleet_document(doc: dict, label: str, too_large_help: str = SPLIT_HELP,
                         max_entries: int = MAX_ENTRIES) -> Fleet:
    """A fleet from its TOML document as `tomllib` reads it. Raises FleetError, also for a fleet too large to
    simulate whole (`rmqplan.model.fleet_size`; `too_large_help` says what to do instead)."""
    checker = _Checker(label)
    fleet = checker.fleet(doc)
    if checker.errors:
        more = checker.error_count - len(checker.errors)
        raise FleetError(checker.errors + ([more_errors(more, label)] if more else []))
    assert fleet is not None
    size = fleet_size(fleet)
    if size.entries > max_entries:
        raise FleetError([too_large_line(label, size, max_entries, too_large_help)])
    return fleet


def _toml_error_line(label: str, message: str, text: str) -> str:
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if m:
        return f"{label}:{m.group(1)}:{m.group(2)}: invalid TOML: {message[: m.start()]}"
    m = re.search(r"\s*\(at end of document\)$", message)
    if m:
        lines = text.splitlines() or [""]
        return f"{label}:{len(lines)}:{len(lines[-1]) + 1}: invalid TOML at the end of the file: {message[: m.start()]}"
    return f"{label}: invalid TOML: {message}"


def _describe(value: Any) -> str:
    """A value as the user wrote it, for 'got ...'."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f'"{shown}"'
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return f"a {type(value).__name__}"


class _Checker:
    """Walks the parsed TOML document, building model objects and collecting every error."""

    def __init__(self, label: str):
        self.label = label
        self.errors: list[str] = []  # the first ERROR_LIMIT, each a line
        self.error_count = 0
        self.default_version = DEFAULT_CLIENT_VERSION
        self.broker_names: list[str] = []
        self.group_strategies: dict[str, StrategySettings] = {}  # group name -> its strategy as written

    # -- reporting and typed getters ------------------------------------------------------------------------

    def error(self, path: str, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < ERROR_LIMIT:  # the others are counted (rmqlint.output.first_errors)
            self.errors.append(f"{self.label}: {path}: {message}" if path else f"{self.label}: {message}")

    def keys(self, table: dict, allowed: tuple[str, ...], path: str) -> None:
        for key in table:
            if key not in allowed:
                if len(self.errors) >= ERROR_LIMIT:  # counted only: no need of the hint's search
                    self.error(path, "")
                    continue
                hint = difflib.get_close_matches(key, allowed, n=1)
                extra = f"; did you mean '{hint[0]}'?" if hint else f" (expected one of: {', '.join(allowed)})"
                self.error(_join(path, key), f"unknown key{extra}")

    def table(self, value: Any, path: str) -> Optional[dict]:
        if isinstance(value, dict):
            return value
        self.error(path, f"expected a table, got {_describe(value)}")
        return None

    def tables(self, value: Any, path: str) -> list[tuple[str, dict]]:
        """An array of tables -> [(item path, table)], reporting items that are not tables."""
        if not isinstance(value, list):
            self.error(path, f"expected an array of tables, got {_describe(value)}")
            return []
        out = []
        for i, item in enumerate(value):
            t = self.table(item, f"{path}[{i}]")
            if t is not None:
                out.append((f"{path}[{i}]", t))
        return out

    def string(self, table: dict, key: str, path: str, *, required: bool = False, default: Any = None,
               nonempty: bool = False) -> Any:
        if key not in table:
            if required:
                self.error(_join(path, key), "missing (expected a string)")
            return default
        value = table[key]
        if not isinstance(value, str):
            self.error(_join(path, key), f"expected a string, got {_describe(value)}")
            return default
        if nonempty and not value.strip():
            self.error(_join(path, key), "expected a non-empty string, got \"\"")
            return default
        return value

    def integer(self, table: dict, key: str, path: str, *, minimum: int, default: Any = None,
                required: bool = False, maximum: Optional[int] = None) -> Any:
        if key not in table:
            if required:
                self.error(_join(path, key), f"missing (expected an integer >= {minimum})")
            return default
        return self.integer_value(table[key], _join(path, key), minimum=minimum, default=default, maximum=maximum)

    def integer_value(self, value: Any, path: str, *, minimum: int, default: Any = None,
                      maximum: Optional[int] = None) -> Any:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.error(path, f"expected an integer >= {minimum}, got {_describe(value)}")
            return default
        if maximum is not None and value > maximum:
            self.error(path, f"expected an integer from {minimum} to {maximum}, got {value}")
            return default
        return value

    def string_list(self, table: dict, key: str, path: str, *, required: bool = False,
                    nonempty: bool = False) -> Optional[list[str]]:
        p = _join(path, key)
        if key not in table:
            if required:
                self.error(p, "missing (expected an array of strings)")
            return None
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error(p, f"expected an array of strings, got {_describe(value)}")
            return None
        if nonempty and not value:
            self.error(p, "expected at least one entry, got an empty array")
            return None
        return value

    def perm(self, table: dict, path: str) -> tuple[bool, bool]:
        """A broker's or topic's `perm`: (readable, writable); "rw" when absent."""
        if "perm" not in table:
            return True, True
        bits = self.perm_bits(table["perm"], _join(path, "perm"))
        return (True, True) if bits is None else (bool(bits & PERM_READ), bool(bits & PERM_WRITE))

    def perm_bits(self, value: Any, path: str) -> Optional[int]:
        """A permission as a string ("rw", "r", "w", "") or RocketMQ's PermName bits (0 to 7: 4 read, 2 write), as
        bits; None (reported) when it is neither."""
        if isinstance(value, str) and value in PERMS:
            readable, writable = PERMS[value]
            return (PERM_READ if readable else 0) | (PERM_WRITE if writable else 0)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 7:
            return value
        self.error(path, f'expected "rw", "r", "w", "" or permission bits from 0 to 7 ({PERM_READ} read, '
                         f'{PERM_WRITE} write, {PERM_READ | PERM_WRITE} both), got {_describe(value)}')
        return None

    def version(self, table: dict, path: str, default: str) -> str:
        value = self.string(table, "client_version", path, default=default)
        if parse_client_version(value) is None:
            self.error(_join(path, "client_version"), f'expected a version like "4.9.8", got {_describe(value)}')
            return default
        return value

    def go_version(self, table: dict, path: str) -> str:
        """A Go instance set's rocketmq-client-go release: "2.1.2" or "v2.1.2" (a pseudo-version too), as "2.1.2"."""
        value = self.string(table, "client_version", path, default=DEFAULT_GO_CLIENT_VERSION)
        if value is None:
            return DEFAULT_GO_CLIENT_VERSION
        text = value[1:] if value.startswith("v") else value
        parsed = parse_client_version(text)
        if parsed is not None and parsed[0] == 1:
            self.error(_join(path, "client_version"), 'rocketmq-client-go 1.x runs the C++ client underneath: '
                                                      'write client = "cpp" for it')
        elif parsed is None or parsed[0] != 2:
            self.error(_join(path, "client_version"),
                       f'expected a rocketmq-client-go v2 release like "{DEFAULT_GO_CLIENT_VERSION}", got '
                       f'{_describe(value)}')
        else:
            return text
        return DEFAULT_GO_CLIENT_VERSION

    def go_instance(self, path: str, version: str, consumer: Optional[str], unit_name: Optional[str],
                    strategy: Optional[StrategySpec], inherited: StrategySettings) -> None:
        """What a Go instance set may not say: another consumer than push, a unit name before v2.1.2, a strategy
        rocketmq-client-go has no form of."""
        if consumer is not None and consumer != PUSH:
            self.error(_join(path, "consumer"), 'rmqplan models rocketmq-client-go\'s push consumer: expected "push"')
        if unit_name and (parse_client_version(version) or (0, 0, 0)) < GO_UNIT_NAME_SINCE:
            self.error(_join(path, "unit_name"), f"rocketmq-client-go {version} has no unit name (WithUnitName came "
                                                 f"in {'.'.join(map(str, GO_UNIT_NAME_SINCE))})")
        name = strategy.name if strategy is not None else canonical_name(inherited.name.partition("-")[0])
        if name is not None and not has_form(GO_CLIENT, name):
            forms = ", ".join(n for n in names() if has_form(GO_CLIENT, n))
            key = "strategy" if strategy is not None else "client"
            self.error(_join(path, key), f"rocketmq-client-go has no strategy {name} (it has {forms})")

    # -- the document ---------------------------------------------------------------------------------------

    def fleet(self, doc: dict) -> Optional[Fleet]:
        self.keys(doc, TOP_KEYS, "")
        if "version" in doc and doc["version"] != 1:
            self.error("version", f"expected 1 (this is fleet.toml version 1), got {_describe(doc['version'])}")
        if "defaults" in doc:
            d = self.table(doc["defaults"], "defaults")
            if d is not None:
                self.keys(d, DEFAULTS_KEYS, "defaults")
                self.default_version = self.version(d, "defaults", DEFAULT_CLIENT_VERSION)

        generate = self.generate(doc["generate"]) if "generate" in doc else None
        has_groups = bool(doc.get("groups"))
        if not has_groups and generate is None and "generate" not in doc:
            self.error("groups", "missing: a fleet needs [[groups]] (or a [generate] section)")

        brokers = self.brokers(doc.get("brokers"), required=has_groups or "topics" in doc)
        broker_names = [b.name for b in brokers]
        self.broker_names = broker_names
        topics = self.topics(doc.get("topics"), broker_names, required=has_groups)
        # Names declared even by a broken entry: a reference to them is not a second error.
        topic_by_name: dict[str, Any] = {name: None for name in _declared_names(doc.get("topics"))}
        topic_by_name.update({t.name: t for t in topics})
        groups = []
        if "groups" in doc:
            for path, g in self.tables(doc["groups"], "groups"):
                group = self.group(g, path, topic_by_name)
                if group is not None:
                    groups.append(group)
        self.unique([g.name for g in groups], [g.path for g in groups], "group")
        scenarios = []
        if "scenarios" in doc:
            group_by_name: dict[str, Any] = {name: None for name in _declared_names(doc.get("groups"))}
            group_by_name.update({g.name: g for g in groups})
            generated_brokers = generate.broker_names() if generate else []
            known_brokers = broker_names + [b for b in generated_brokers if b not in broker_names]
            for path, s in self.tables(doc["scenarios"], "scenarios"):
                scenario = self.scenario(s, path, group_by_name, topic_by_name, known_brokers, generate is not None)
                if scenario is not None:
                    scenarios.append(scenario)
            self.unique([s.name for s in scenarios], [s.path for s in scenarios], "scenario")
        if self.errors:
            return None
        return Fleet(self.label, tuple(brokers), tuple(topics), tuple(groups), tuple(scenarios), generate)

    def unique(self, names: list[str], paths: list[str], what: str) -> None:
        seen: dict[str, str] = {}
        for name, path in zip(names, paths):
            if name in seen:
                self.error(_join(path, "name"), f'duplicate {what} name "{name}" (first at {seen[name]})')
            else:
                seen[name] = path

    def brokers(self, value: Any, *, required: bool) -> list[Broker]:
        if value is None:
            if required:
                self.error("brokers", "missing: a fleet needs at least one [[brokers]] entry")
            return []
        out, paths = [], []
        for path, b in self.tables(value, "brokers"):
            self.keys(b, BROKER_KEYS, path)
            name = self.string(b, "name", path, required=True, nonempty=True)
            room = self.string(b, "room", path)
            readable, writable = self.perm(b, path)
            if name is not None:
                out.append(Broker(name, room or None, readable, writable))
                paths.append(path)
        if required and not out and isinstance(value, list) and not value:
            self.error("brokers", "expected at least one broker, got an empty array")
        self.unique([b.name for b in out], paths, "broker")
        return out

    def queue_counts(self, t: dict, key: str, path: str, brokers: list[str]) -> Optional[dict]:
        """An int (same on every broker) or a table broker -> int; returns {broker: count} or None."""
        p = _join(path, key)
        value = t[key]
        if isinstance(value, dict):
            counts = {}
            for broker, n in value.items():
                count = self.integer_value(n, _key(p, broker), minimum=0, maximum=MAX_QUEUES_PER_BROKER)
                if count is not None:
                    counts[broker] = count
            return counts
        count = self.integer_value(value, p, minimum=0, maximum=MAX_QUEUES_PER_BROKER)
        return None if count is None else {b: count for b in brokers}

    def topics(self, value: Any, broker_names: list[str], *, required: bool) -> list[Topic]:
        if value is None:
            if required:
                self.error("topics", "missing: a fleet needs at least one [[topics]] entry")
            return []
        known = set(broker_names)
        out, paths = [], []
        for path, t in self.tables(value, "topics"):
            self.keys(t, TOPIC_KEYS, path)
            name = self.string(t, "name", path, required=True, nonempty=True)
            if "read_queues" not in t:
                self.error(_join(path, "read_queues"), "missing (expected an integer >= 0 or a table per broker)")
                continue
            listed = self.string_list(t, "brokers", path, nonempty=True)
            if listed is None:
                rq = t["read_queues"]
                listed = list(rq) if isinstance(rq, dict) else list(broker_names)
            ok = True
            for i, b in enumerate(listed):
                if b not in known:
                    self.error(f"{path}.brokers[{i}]" if "brokers" in t else _join(path, "read_queues"),
                               f'unknown broker "{b}" (brokers are: {", ".join(broker_names) or "none"})')
                    ok = False
            read = self.queue_counts(t, "read_queues", path, listed)
            write = self.queue_counts(t, "write_queues", path, listed) if "write_queues" in t else read
            for key, counts in (("read_queues", read), ("write_queues", write if "write_queues" in t else None)):
                if counts is None:
                    continue
                for b in counts:
                    if b not in listed:
                        self.error(_key(_join(path, key), b), f'broker "{b}" is not one of the topic\'s brokers')
                        ok = False
                for b in listed:
                    if b not in counts:
                        self.error(_join(path, key), f'no count for broker "{b}"')
                        ok = False
            readable, writable = self.perm(t, path)
            if name is None or read is None or write is None or not ok:
                continue
            out.append(Topic(name, {b: read[b] for b in listed}, {b: write[b] for b in listed}, tuple(listed),
                             readable, writable))
            paths.append(path)
        self.unique([t.name for t in out], paths, "topic")
        return out

    def strategy(self, table: dict, path: str,
                 inherited: Optional[StrategySettings]) -> tuple[Optional[StrategySpec], Optional[StrategySettings]]:
        """The strategy with its parameters (the registry parses and checks them); parameters missing here come
        from `inherited` (the group's). (None, None) for an instance set that overrides nothing, or on error."""
        raw = self.string(table, "strategy", path)
        given = {k: table[k] for k in STRATEGY_PARAM_KEYS if k in table}
        if raw is None and "strategy" in table:
            return None, None  # not a string: reported
        if raw is None and inherited is not None and not given:
            return None, None  # no override
        base = inherited or DEFAULT_STRATEGY
        name = raw if raw is not None else base.name
        outer, dash, inner = name.partition("-")
        if dash and canonical_name(outer) is not None and NEARBY_KEY not in given:
            # "MACHINE_ROOM_NEARBY-AVG", Java's getName(): the delegate is the nearby parameter
            name, given = outer, {**given, NEARBY_KEY: inner}
        settings = StrategySettings(name, {**base.params, **given})
        try:
            spec = parse_strategy(settings.name, settings.params)
        except ParamError as e:
            key = e.key if e.key in table else "strategy"
            self.error(_join(path, key), e.detail)
            return None, None
        return spec, settings

    def subscriptions(self, table: dict, path: str, topics: dict) -> Optional[tuple[SubscriptionSpec, ...]]:
        if "subscriptions" not in table:
            return None
        out = []
        for p, s in self.tables(table["subscriptions"], _join(path, "subscriptions")):
            self.keys(s, SUBSCRIPTION_KEYS, p)
            topic = self.string(s, "topic", p, required=True, nonempty=True)
            expression = self.string(s, "expression", p, default="*")
            if topic is not None and topic not in topics:
                self.error(_join(p, "topic"), f'unknown topic "{topic}" (topics are: {", ".join(topics) or "none"})')
                continue
            if topic is not None and any(o.topic == topic for o in out):
                self.error(_join(p, "topic"), f'topic "{topic}" is subscribed twice')
                continue
            if topic is not None:
                out.append(SubscriptionSpec(topic, expression))
        return tuple(out)

    def instance(self, t: dict, path: str, topics: dict,
                 group_strategy: StrategySettings) -> Optional[InstanceSpec]:
        self.keys(t, INSTANCE_KEYS, path)
        hosts = self.string_list(t, "hosts", path, required=True, nonempty=True)
        if hosts is not None:
            for i, h in enumerate(hosts):
                if not h.strip():
                    self.error(f"{_join(path, 'hosts')}[{i}]", 'expected an IP address, got ""')
        count = self.integer(t, "count", path, minimum=1, default=1, maximum=MAX_PROCESSES_PER_SET)
        set_name = self.string(t, "name", path, nonempty=True)
        scale_out = self.string(t, "scale_out", path)
        if scale_out is not None and scale_out not in (SAME_HOSTS, NEW_HOSTS):
            self.error(_join(path, "scale_out"), f'expected "{SAME_HOSTS}" or "{NEW_HOSTS}", got {_describe(scale_out)}')
            scale_out = None
        instance_name = self.string(t, "instance_name", path)
        if instance_name is not None and not instance_name.strip():
            self.error(_join(path, "instance_name"), 'expected a non-empty name (omit it for the client default)')
        unit_name = self.string(t, "unit_name", path)
        pid = self.integer(t, "pid", path, minimum=1)
        client = self.string(t, "client", path, default=JAVA_CLIENT)
        if client not in CLIENTS:
            self.error(_join(path, "client"), f'expected "java", "cpp" or "go", got {_describe(client)}')
        version = self.go_version(t, path) if client == GO_CLIENT else self.version(t, path, self.default_version)
        consumer = self.string(t, "consumer", path, default=PUSH)
        if consumer not in CONSUMERS:
            self.error(_join(path, "consumer"), f'expected "push", "lite_pull" or "pull", got {_describe(consumer)}')
        elif consumer != PUSH and client == CPP_CLIENT:
            self.error(_join(path, "consumer"), 'the Python 2.x (C++) client has push consumers only: expected "push"')
        started_as = self.started_as(t, path, version, count, hosts, instance_name, pid, client)
        room = self.string(t, "room", path)
        strategy, _ = self.strategy(t, path, group_strategy)
        if client == GO_CLIENT:
            self.go_instance(path, version, consumer, unit_name, strategy, group_strategy)
        subs = self.subscriptions(t, path, topics)
        if hosts is None:
            return None
        return InstanceSpec(
            path=path, hosts=tuple(hosts), count=count,
            instance_name=None if instance_name == "DEFAULT" else instance_name,
            unit_name=unit_name, pid=pid, client_version=version, room=room or None,
            strategy=strategy, subscriptions=subs, client=client if client in CLIENTS else JAVA_CLIENT,
            consumer=consumer if consumer in CONSUMERS else PUSH, started_as=started_as, name=set_name,
            scale_out=scale_out,
        )

    def started_as(self, t: dict, path: str, version: Optional[str], count: Optional[int], hosts, instance_name,
                   pid, client) -> Optional[str]:
        """`started_as`: one running process's replaced default name, "pid" (< 4.9.0) or "pid#nanoTime"."""
        text = self.string(t, "started_as", path)
        if text is None:
            return None
        key = _join(path, "started_as")
        parsed = parse_client_version(version or "") or (0, 0, 0)
        nano = parsed >= NANOTIME_SINCE
        shape = "pid#nanoTime" if nano else "pid"
        if not re.fullmatch(r"[1-9][0-9]*#[0-9]+" if nano else r"[1-9][0-9]*", text):
            self.error(key, f'expected the {shape} a client {version or ""} makes of the default name '
                            f'("{"12345#1234567890123" if nano else "12345"}"), got {_describe(text)}')
            return None
        clash = [k for k, v in (("instance_name", instance_name), ("pid", pid)) if v is not None]
        if clash or client == CPP_CLIENT:
            self.error(key, "one process's name as connected: not with " + (f"`{clash[0]}`" if clash else
                                                                           'client = "cpp"'))
            return None
        if (count or 1) != 1 or (hosts is not None and len(hosts) != 1):
            self.error(key, "names one process: expected one host and count = 1")
            return None
        return text

    def group(self, g: dict, path: str, topics: dict) -> Optional[Group]:
        self.keys(g, GROUP_KEYS, path)
        name = self.string(g, "name", path, required=True, nonempty=True)
        model = self.string(g, "model", path, default=CLUSTERING)
        if model not in (CLUSTERING, BROADCASTING):
            self.error(_join(path, "model"), f'expected "clustering" or "broadcasting", got {_describe(model)}')
            model = CLUSTERING
        strategy, settings = self.strategy(g, path, None)
        if name is not None and settings is not None:
            self.group_strategies[name] = settings
        subs = self.subscriptions(g, path, topics)
        instances = []
        if "instances" not in g:
            self.error(_join(path, "instances"), "missing: a group needs its processes, at least one "
                                                 "[[groups.instances]] entry (hosts = [...])")
        elif g["instances"] == []:
            self.error(_join(path, "instances"), "expected at least one instance set, got an empty array")
        else:
            for p, t in self.tables(g["instances"], _join(path, "instances")):
                inst = self.instance(t, p, topics, settings or DEFAULT_STRATEGY)
                if inst is not None:
                    instances.append(inst)
        if "subscriptions" in g and g["subscriptions"] == []:
            self.error(_join(path, "subscriptions"), "expected at least one subscription, got none")
        elif subs is None and not (instances and all(i.subscriptions for i in instances)):
            self.error(_join(path, "subscriptions"), "missing (expected [{ topic = \"...\", expression = \"*\" }])")
        backlog = self.backlog(g, path, name, subs or (), instances, topics)
        if name is None or strategy is None:
            return None
        return Group(path, name, model, strategy, subs or (), tuple(instances), backlog)

    def backlog(self, g: dict, path: str, name: Optional[str], subs: tuple, instances: list,
                topics: dict) -> tuple[tuple[Queue, int], ...]:
        if "backlog" not in g:
            return ()
        p = _join(path, "backlog")
        table = self.table(g["backlog"], p)
        if table is None:
            return ()
        subscribed = {s.topic for s in subs} | {s.topic for i in instances for s in i.subscriptions or ()}
        retry = f"%RETRY%{name}" if name is not None else None
        out = []
        for topic_name, per_broker in table.items():
            tp = _key(p, topic_name)
            topic = topics.get(topic_name)
            if topic_name != retry and topic_name not in subscribed:
                self.error(tp, f"not a topic the group subscribes to (nor its retry topic {retry})")
                continue
            brokers = self.table(per_broker, tp)
            if brokers is None:
                continue
            for broker, counts in brokers.items():
                bp = _key(tp, broker)
                if topic_name == retry:
                    limit = DEFAULT_RETRY_QUEUES if broker in self.broker_names else None
                else:
                    limit = topic.read_queues.get(broker) if topic is not None else 0
                if limit is None:
                    self.error(bp, f'unknown broker "{broker}" for {topic_name}')
                    continue
                if not isinstance(counts, list) or len(counts) > limit:
                    got = f"{len(counts)} counts" if isinstance(counts, list) else _describe(counts)
                    self.error(bp, f"expected a list of at most {limit} counts (one per read queue), got {got}")
                    continue
                for i, n in enumerate(counts):
                    count = self.integer_value(n, f"{bp}[{i}]", minimum=0, maximum=MAX_BACKLOG)
                    if count is not None:
                        out.append((Queue(topic_name, broker, i), count))
        return tuple(sorted(out))

    def scenario(self, s: dict, path: str, groups: dict, topics: dict, brokers: list[str],
                 has_generated: bool) -> Optional[Scenario]:
        self.keys(s, SCENARIO_KEYS, path)
        name = self.string(s, "name", path, required=True, nonempty=True)
        if name == "baseline":
            self.error(_join(path, "name"), '"baseline" is the name of the unchanged fleet; choose another')
        process_keys = [k for k in ("add_instances", "remove_instances", "remove_hosts") if k in s]
        if "replicas" in s and process_keys:
            self.error(_join(path, "replicas"), f"not with {', '.join(process_keys)} in one scenario: replicas sets "
                                                "the processes a set runs; give the other changes a scenario of "
                                                "their own")
        group_name = self.string(s, "group", path, nonempty=True)
        if "group" not in s and process_keys:
            self.error(_join(path, "group"), f"missing: {', '.join(process_keys)} change the processes of a group; "
                                             f"name it (group = \"...\")")
        group = groups.get(group_name) if group_name is not None else None
        if group_name is not None and group_name not in groups:
            self.error(_join(path, "group"),
                       f'unknown group "{group_name}" (groups are: {", ".join(groups) or "none"})')
        added = []
        if "add_instances" in s:
            for p, t in self.tables(s["add_instances"], _join(path, "add_instances")):
                inst = self.instance(t, p, topics, self.group_strategies.get(group.name, DEFAULT_STRATEGY)
                                     if group else DEFAULT_STRATEGY)
                if inst is not None:
                    added.append(inst)
        removed = self.integer(s, "remove_instances", path, minimum=0, default=0)
        failed_hosts = self.string_list(s, "remove_hosts", path) or []
        if group is not None:
            per_host: dict[str, int] = {}
            for inst in group.instances:
                for h in inst.hosts:
                    per_host[h] = per_host.get(h, 0) + inst.count
            for i, h in enumerate(failed_hosts):
                if h not in per_host:
                    self.error(f"{_join(path, 'remove_hosts')}[{i}]",
                               f'group "{group.name}" has no process on host "{h}"')
            left = sum(per_host.values()) - sum(per_host.get(h, 0) for h in set(failed_hosts))
            if removed > left:
                what = "processes" if not failed_hosts else "processes left after remove_hosts"
                self.error(_join(path, "remove_instances"),
                           f"expected at most {left} (group \"{group.name}\" has {left} {what}), got {removed}")
        down = self.remove_brokers(s, path, brokers)
        perms = self.broker_perm(s, path, brokers, down)
        resized = self.set_queues(s, path, topics)
        restart, every = self.rolling_restart(s, path, groups, group_name, has_generated)
        scaled = self.replicas(s, path, groups, group_name)
        if name is None or (group_name is not None and group is None):
            return None
        return Scenario(path, name, group.name if group is not None else None, tuple(added), removed,
                        tuple(dict.fromkeys(failed_hosts)), down, perms, resized, restart, every, scaled)

    def replicas(self, s: dict, path: str, groups: dict, group_name: Optional[str]) -> tuple[Scaling, ...]:
        """`replicas = { "orders" = 6 }`: each key an instance set's `name` (every set of that name, in the
        scenario's group or, without one, in any group), else a group's name (all its sets); the sets of one group
        a key names must be alike but for hosts and count."""
        if "replicas" not in s:
            return ()
        p = _join(path, "replicas")
        table = self.table(s["replicas"], p)
        if table is None:
            return ()
        among = {n: g for n, g in groups.items() if group_name is None or n == group_name}
        out = []
        for key, value in table.items():
            kp = _key(p, key)
            n = self.integer_value(value, kp, minimum=0, maximum=MAX_PROCESSES_PER_SET)
            named = {n_: [i for i, spec in enumerate(g.instances) if spec.name == key]
                     for n_, g in among.items() if g is not None}
            named = {n_: sets for n_, sets in named.items() if sets}
            if not named and isinstance(among.get(key), Group):
                named = {key: list(range(len(among[key].instances)))}
            if not named:
                if key in among:
                    continue  # a broken group: its own errors say why
                sets = sorted({spec.name for g in among.values() if g is not None for spec in g.instances
                               if spec.name is not None})
                hint = difflib.get_close_matches(key, sets + list(among), n=1)
                where = f' of group "{group_name}"' if group_name is not None else ""
                self.error(kp, f'no instance set{where} is named "{key}", nor is a group'
                               + (f"; did you mean '{hint[0]}'?" if hint else
                                  f" (instance set names: {', '.join(sets) or 'none'}; groups: {', '.join(among)})"))
                continue
            for g_name, sets in named.items():
                g = among[g_name]
                for i in sets[1:]:
                    differ = differences(g.instances[sets[0]], g.instances[i])
                    if differ:
                        self.error(kp, f"{g.instances[sets[0]].path} and {g.instances[i].path} differ in "
                                       f"{', '.join(differ)}: sets scaled together must be alike but for hosts and "
                                       "count (name them apart to scale one)")
                        break
                else:
                    if n is not None:
                        out.append(Scaling(kp, g_name, tuple(sets), n))
        return tuple(out)

    def rolling_restart(self, s: dict, path: str, groups: dict, group_name: Optional[str],
                        has_generated: bool) -> tuple[tuple[str, ...], bool]:
        """(the hand-written groups that restart, whether every group does): `true` is the scenario's group, or
        every group when it names none; a group name or a list of names; `false` none. "group", the older
        spelling of `true`, is accepted unless a group has that name."""
        if "rolling_restart" not in s:
            return (), False
        p = _join(path, "rolling_restart")
        value = s["rolling_restart"]
        if value == ROLLING_RESTART_GROUP and ROLLING_RESTART_GROUP not in groups:
            value = True
        if value is False:
            return (), False
        if value is True:
            if group_name is not None:
                return (group_name,), False
            if not groups and not has_generated:
                self.error(_join(path, "group"), "missing: the fleet has no group to restart")
            return (), True
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            self.error(p, f"expected true (the scenario's group, or every group when it names none), a group name "
                          f"or a list of group names, got {_describe(value)}")
            return (), False
        for i, n in enumerate(names):
            where = p if isinstance(value, str) else f"{p}[{i}]"
            if n not in groups:
                self.error(where, f'unknown group "{n}" (groups are: {", ".join(groups) or "none"})')
            elif names.index(n) != i:
                self.error(where, f'group "{n}" is listed twice')
        order = [g for g in groups if g in names]  # fleet order: groups restarting together step in parallel
        return tuple(order), False

    def remove_brokers(self, s: dict, path: str, brokers: list[str]) -> tuple[str, ...]:
        listed = self.string_list(s, "remove_brokers", path) or []
        for i, b in enumerate(listed):
            if b not in brokers:
                self.error(f"{_join(path, 'remove_brokers')}[{i}]",
                           f'unknown broker "{b}" (brokers are: {", ".join(brokers) or "none"})')
        return tuple(b for b in dict.fromkeys(listed) if b in brokers)

    def broker_perm(self, s: dict, path: str, brokers: list[str], down: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
        if "broker_perm" not in s:
            return ()
        p = _join(path, "broker_perm")
        table = self.table(s["broker_perm"], p)
        out = []
        for broker, value in (table or {}).items():
            where = _key(p, broker)
            if broker not in brokers:
                self.error(where, f'unknown broker "{broker}" (brokers are: {", ".join(brokers) or "none"})')
                continue
            if broker in down:
                self.error(where, f'broker "{broker}" is also in remove_brokers: a broker that is down has no '
                                  f'permission to change')
                continue
            bits = self.perm_bits(value, where)
            if bits is not None:
                out.append((broker, bits))
        return tuple(out)

    def set_queues(self, s: dict, path: str, topics: dict) -> tuple[QueueResize, ...]:
        if "set_queues" not in s:
            return ()
        out: list[QueueResize] = []
        for p, t in self.tables(s["set_queues"], _join(path, "set_queues")):
            self.keys(t, SET_QUEUES_KEYS, p)
            name = self.string(t, "topic", p, required=True, nonempty=True)
            if name is not None and name not in topics:
                self.error(_join(p, "topic"), f'unknown topic "{name}" (topics are: {", ".join(topics) or "none"})')
                continue
            if name is not None and any(r.topic == name for r in out):
                self.error(_join(p, "topic"), f'topic "{name}" is resized twice in this scenario')
                continue
            if "read_queues" not in t and "write_queues" not in t:
                self.error(p, "expected read_queues, write_queues or both (an integer or a table per broker)")
                continue
            topic = topics.get(name) if name is not None else None
            counts = {}
            for key in ("read_queues", "write_queues"):
                if key not in t:
                    counts[key] = None
                    continue
                if topic is None:  # unknown or broken topic: its brokers are not known
                    counts[key] = None
                    continue
                value = t[key]
                given = self.queue_counts(t, key, p, list(topic.brokers))
                if given is None:
                    continue
                for b in given:
                    if b not in topic.brokers:
                        self.error(_key(_join(p, key), b), f'broker "{b}" does not hold topic {topic.name} (its '
                                                           f'brokers are: {", ".join(topic.brokers)})')
                counts[key] = {b: n for b, n in given.items() if b in topic.brokers} if isinstance(value, dict) \
                    else given
            if name is not None and topic is not None:
                out.append(QueueResize(p, name, counts.get("read_queues"), counts.get("write_queues")))
        return tuple(out)

    def generate(self, value: Any) -> Optional[GenerateSpec]:
        g = self.table(value, "generate")
        if g is None:
            return None
        self.keys(g, GENERATE_KEYS, "generate")
        groups = self.integer(g, "groups", "generate", minimum=1, required=True, maximum=MAX_GENERATED_GROUPS)
        seed = self.integer(g, "seed", "generate", minimum=0, default=0)
        instances = self.int_range(g, "instances", minimum=1, default=(1, 20))
        queues = self.int_range(g, "queues", minimum=1, default=(4, 32))
        brokers = self.integer(g, "brokers", "generate", minimum=1, default=2, maximum=MAX_GENERATED_BROKERS)
        share = g.get("colliding_client_ids", 0.0)
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not (0.0 <= share <= 1.0) \
                or (isinstance(share, float) and math.isnan(share)):
            self.error("generate.colliding_client_ids", f"expected a number from 0 to 1, got {_describe(share)}")
            share = 0.0
        strategies: list[str] = []
        names = self.string_list(g, "strategies", "generate", nonempty=True) or ["AVG"]
        drawable = generatable_names()
        for i, raw in enumerate(names):
            name = canonical_name(raw)
            if name not in drawable:
                self.error(f"generate.strategies[{i}]",
                           f"expected one of {', '.join(drawable)}, got {_describe(raw)}")
            else:
                strategies.append(name)
        if groups is None:
            return None
        return GenerateSpec(groups, seed, instances, queues, brokers, float(share), tuple(strategies) or ("AVG",))

    def int_range(self, g: dict, key: str, *, minimum: int, default: tuple[int, int]) -> tuple[int, int]:
        if key not in g:
            return default
        value = g[key]
        ok = (isinstance(value, list) and len(value) == 2
              and all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value)
              and value[0] <= value[1])
        if not ok:
            self.error(f"generate.{key}", f"expected [low, high] with {minimum} <= low <= high, got "
                                          f"{_describe(value) if not isinstance(value, list) else value}")
            return default
        return (value[0], value[1])


def _declared_names(value: Any) -> list[str]:
    """The string `name`s of an array of tables, whatever else is wrong with the entries."""
    if not isinstance(value, list):
        return []
    return [t["name"] for t in value if isinstance(t, dict) and isinstance(t.get("name"), str)]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _key(path: str, key: str) -> str:
    """A table key in a key path, quoted only where TOML needs quotes: `read_queues.broker-a`, `x."a b"`."""
    return _join(path, key if BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False))




"""The fleet as the planner sees it: plain, validated, immutable facts.

`planner.fleet` parses and validates `fleet.toml` (schema in the README) into a `Fleet`; `planner.identity` expands instance
sets into `Process`es with their client ids; `planner.routes` gives each topic's readable and writable queues.
Both engines (`planner.local`, `planner.spark`) read these and must give the same answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Optional


class Queue(NamedTuple):
    """A message queue. Tuples compare field by field; use `planner.javaorder.queue_key` for RocketMQ's order."""

    topic: str
    broker: str
    queue_id: int


CLUSTERING = "clustering"
BROADCASTING = "broadcasting"
DEFAULT_CLIENT_VERSION = "4.9.8"
# A [generate] fleet larger than this is summarised on Spark: totals for all, the first DETAIL_LIMIT problem groups
FULL_RESULTS_GROUPS = 1_000
DETAIL_LIMIT = 200
DEFAULT_VIRTUAL_NODES = 10
DEFAULT_RETRY_QUEUES = 1
VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)([.-][0-9A-Za-z.-]*)?$")


def parse_client_version(text: str) -> Optional[tuple[int, int, int]]:
    """"4.9.3" (or "4.9.3-SNAPSHOT") -> (4, 9, 3); None when it is not a version."""
    m = VERSION_RE.match(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


@dataclass(frozen=True)
class StrategySpec:
    """A strategy with its parameters, as one process runs it."""

    name: str  # a registered strategy (planner.strategies)
    virtual_nodes: int = DEFAULT_VIRTUAL_NODES  # CONSISTENT_HASH
    consumer_idcs: tuple[str, ...] = ()  # MACHINE_ROOM
    nearby: Optional["StrategySpec"] = None  # MACHINE_ROOM_NEARBY: the delegate used inside a room
    config_queues: tuple[Queue, ...] = ()  # CONFIG


@dataclass(frozen=True)
class Broker:
    name: str
    room: Optional[str] = None
    readable: bool = True
    writable: bool = True


@dataclass(frozen=True)
class Topic:
    name: str
    read_queues: dict  # broker name -> count (only the topic's brokers)
    write_queues: dict  # broker name -> count
    brokers: tuple[str, ...]
    readable: bool = True
    writable: bool = True


@dataclass(frozen=True)
class SubscriptionSpec:
    topic: str
    expression: str = "*"


@dataclass(frozen=True)
class InstanceSpec:
    """A set of alike processes (`[[groups.instances]]` or a scenario's `add_instances` item)."""

    path: str  # key path in fleet.toml, e.g. "groups[0].instances[1]", for messages
    hosts: tuple[str, ...]
    count: int = 1
    instance_name: Optional[str] = None
    unit_name: Optional[str] = None
    pid: Optional[int] = None
    client_version: str = DEFAULT_CLIENT_VERSION
    room: Optional[str] = None
    strategy: Optional[StrategySpec] = None  # per-instance override (a rollout caught half-way)
    client: str = "java"  # the library that names the process: "java" or "cpp" (planner.identity)
    subscriptions: Optional[tuple[SubscriptionSpec, ...]] = None  # per-instance override


@dataclass(frozen=True)
class Group:
    path: str  # "groups[3]"
    name: str
    model: str  # CLUSTERING | BROADCASTING
    strategy: StrategySpec
    subscriptions: tuple[SubscriptionSpec, ...]
    instances: tuple[InstanceSpec, ...]


@dataclass(frozen=True)
class QueueResize:
    """A scenario's `set_queues` item: new read/write queue counts of a topic on some of its brokers (the brokers
    not named keep theirs); None leaves that side as it is."""

    path: str
    topic: str
    read_queues: Optional[dict] = None  # broker name -> count
    write_queues: Optional[dict] = None


ROLLING_RESTART_GROUP = "group"  # rolling_restart = "group": every process of the group, one at a time


@dataclass(frozen=True)
class Scenario:
    """A what-if (`planner.states` turns it into the states it goes through)."""

    path: str
    name: str
    group: Optional[str]  # the group whose processes change; None: fleet-wide changes only (or every group)
    add_instances: tuple[InstanceSpec, ...] = ()
    remove_instances: int = 0  # remove this many processes, last first
    remove_hosts: tuple[str, ...] = ()  # a failed host: every process of the group on these hosts goes (first)
    remove_brokers: tuple[str, ...] = ()  # brokers that go down: their queues leave every route
    broker_perm: tuple[tuple[str, int], ...] = ()  # (broker, RocketMQ perm bits: 4 read, 2 write)
    set_queues: tuple[QueueResize, ...] = ()
    rolling_restart: Optional[str] = None  # ROLLING_RESTART_GROUP: the group (or every group) restarts

    def changes_routes(self) -> bool:
        return bool(self.remove_brokers or self.broker_perm or self.set_queues)

    def changes_processes(self) -> bool:
        return bool(self.add_instances or self.remove_instances or self.remove_hosts)


@dataclass(frozen=True)
class GenerateSpec:
    groups: int
    seed: int = 0
    instances: tuple[int, int] = (1, 20)
    queues: tuple[int, int] = (4, 32)
    brokers: int = 2
    colliding_client_ids: float = 0.0
    strategies: tuple[str, ...] = ("AVG",)  # optional `strategies = [...]`: each group draws one (planner.generate)


@dataclass(frozen=True)
class Fleet:
    path: str
    brokers: tuple[Broker, ...]
    topics: tuple[Topic, ...]
    groups: tuple[Group, ...]
    scenarios: tuple[Scenario, ...] = ()
    generate: Optional[GenerateSpec] = None


@dataclass(frozen=True)
class Process:
    """One consumer process of a group, with the client id it reports and why."""

    group: str
    instance: str  # stable label, "<host>#<n>": the n-th process of this group on that host (1-based)
    host: str
    client_id: str
    id_source: str  # why this id, for messages: "fixed instanceName 'X'", "pid 1 on client 4.5.1", ...
    strategy: StrategySpec
    subscriptions: tuple[SubscriptionSpec, ...]
    room: Optional[str] = None
    spec_path: str = ""  # the InstanceSpec it came from


@dataclass
class GroupTopicResult:
    """The allocation of one topic's queues within one group, in one scenario."""

    scenario: str
    group: str
    topic: str
    model: str
    queues: list  # readable queues, RocketMQ order
    assignment: dict  # instance label -> list[Queue] (empty when the rebalance failed or nothing was given)
    processes: list  # list[Process] of the group in this scenario, declaration order
    errored: dict = field(default_factory=dict)  # instance label -> error (strategy threw)
    orphaned: list = field(default_factory=list)
    duplicated: list = field(default_factory=list)
    idle: list = field(default_factory=list)  # list[Process]
    moved: list = field(default_factory=list)  # scenarios only: queues whose owner set changed vs baseline
    # In a scenario's step (`Simulation.steps`): `moved` is against the group's previous state, and `moves` says
    # how each moved queue changes hands (list[Move]).
    moves: list = field(default_factory=list)


# How a moved queue changes hands between two states (`planner.scenarios.moves`).
DUPLICATE_RISK = "duplicate_risk"  # a process that loses it still runs while another takes it: both may consume
#                                    it until the old holder's next rebalance (or it stays duplicated)
PAUSE = "pause"  # every process that loses it has stopped: nobody consumes it until the new holder rebalances
#                  (or, when none takes it, until a holder is back)
PICKUP = "pickup"  # nobody held it (orphaned, or a new queue): now it is consumed
DROPPED = "dropped"  # fewer processes hold it, none new: a duplicate resolved, or a running process let it go
#                      (then nobody holds it)
GONE = "gone"  # it left the route (broker down or unreadable, fewer read queues) while held
JOINED = "joined"  # broadcasting: another process reads it too (each keeps its own offsets)
MOVE_KINDS = (DUPLICATE_RISK, PAUSE, PICKUP, DROPPED, GONE, JOINED)


@dataclass(frozen=True)
class Move:
    """A queue whose set of holders (instance labels) differs between two states."""

    queue: Queue
    before: tuple[str, ...]
    after: tuple[str, ...]
    kind: str  # one of MOVE_KINDS


@dataclass
class StepResult:
    """One step of a scenario (`planner.states.Step`): the results of the groups it touches, each compared with
    that group's previous state (`moved`, `moves`)."""

    scenario: str
    index: int  # from 1
    name: str
    results: list  # list[GroupTopicResult]


@dataclass
class Simulation:
    """What an engine computed for a fleet: the baseline's results for every group, then, per scenario, the
    results of the scenario's group (`moved` filled). Order: scenario (baseline first), group, topic (subscribed
    topics in order of first appearance, then `%RETRY%<group>` for clustering groups)."""

    fleet: Fleet
    results: list  # list[GroupTopicResult]
    scenarios: list = field(default_factory=lambda: ["baseline"])  # scenario names, baseline first
    # The baseline totals of the WHOLE fleet as the engine counted them (the keys of `planner.report.totals`; an
    # engine may return only some results, e.g. the first problem groups of a [generate]d fleet), and how many
    # results with a problem were left out of `results`.
    totals: Optional[dict] = None
    omitted_results: int = 0
    # How many results of the whole fleet (all scenarios) have each problem of `planner.tally.PROBLEMS`
    # (orphaned, duplicated, idle, errored, imbalanced): the findings' counts per code, even when `results` holds
    # only some of them.
    problem_counts: Optional[dict] = None
    findings_written: Optional[int] = None  # with --out: how many findings the engine wrote to findings.json
    # Per scenario name: its steps (list[StepResult]; one for a plain change, more for a rolling restart) and the
    # fleet view of its last step (routes: for PLAN004/PLAN008).
    steps: dict = field(default_factory=dict)
    views: dict = field(default_factory=dict)
    # Per scenario name, over the whole fleet even where only some results are listed: per-step counts
    # (`planner.scenarios.step_counts`) and the queues its last states move against the baseline.
    step_counts: dict = field(default_factory=dict)
    moved_counts: dict = field(default_factory=dict)
    # Findings of the routes that exist but are not listed (generated topics beyond the listed groups): code -> n
    unlisted_findings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class OutRequest:
    """`--out`: the engine writes its tables (`planner.out_tables`) and every finding, one JSON object a line in
    `findings.json`, into `directory` (a staging directory the report step moves into place). `find` gives the
    findings of a Simulation's results (`planner.findings.find`); the engine calls it on every problem group."""

    directory: str
    find: Callable


@dataclass(frozen=True)
class SimulateOptions:
    """`rmqplan simulate`'s options, as `planner.cli` hands them to an engine (`planner.spark.simulate`)."""

    engine: str = "auto"  # "auto" | "local" | "spark"; the CLI resolves auto (planner.engine_choice)
    format: str = "text"  # "text" | "json"
    assignments: bool = False
    out: Optional[str] = None
    html: Optional[str] = None  # --html FILE: the report as one self-contained page (planner.html_report)
    master: Optional[str] = None
    conf: tuple[str, ...] = ()  # "key=value" items as given to --conf
    compare_strategies: bool = False  # --compare-strategies (planner.compare)
    plan: Optional[str] = None  # --plan DIR: the minimum's CONFIG lists (planner.plan_out)

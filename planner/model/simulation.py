"""What a simulation answers: per group and topic results, the moves of a scenario's steps, and the options a
run is asked with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from rmqplan.model.fleet import Fleet, Queue
from rmqplan.model.fleet_size import MAX_ENTRIES


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


# How a moved queue changes hands between two states (`rmqplan.model.scenarios.moves`).
DUPLICATE_RISK = "duplicate_risk"  # a process that loses it still runs while another takes it: both may consume
#                                    it until the old holder's next rebalance (or it stays duplicated)
PAUSE = "pause"  # every process that loses it has stopped: nobody consumes it until the new holder rebalances
#                  (or, when none takes it, until a holder is back)
PICKUP = "pickup"  # nobody held it (orphaned, or a new queue): now it is consumed
DROPPED = "dropped"  # fewer processes hold it, none new: a duplicate resolved, or a running process let it go
#                      (then nobody holds it)
GONE = "gone"  # it left the route (broker down or unreadable, fewer read queues) while held, and no process keeps
#                it (a CONFIG list that names it, or a failed rebalance, keeps it in the table: not moved)
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
    """One step of a scenario (`rmqplan.model.states.Step`): the results of the groups it touches, each compared with
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
    # The baseline totals of the WHOLE fleet as the engine counted them (the keys of `rmqplan.report.totals`; an
    # engine may return only some results, e.g. the worst problem groups of a [generate]d fleet), and how many
    # results with a problem were left out of `results`.
    totals: Optional[dict] = None
    omitted_results: int = 0
    # How many results of the whole fleet (all scenarios) have each problem of `rmqplan.allocation.tally.PROBLEMS`
    # (orphaned, duplicated, idle, errored, imbalanced): the findings' counts per code, even when `results` holds
    # only some of them.
    problem_counts: Optional[dict] = None
    findings_written: Optional[int] = None  # with --out: how many findings the engine wrote to findings.json
    # Per scenario name: its steps (list[StepResult]; one for a plain change, more for a rolling restart) and the
    # fleet view of its last step (routes: for PLAN004/PLAN008).
    steps: dict = field(default_factory=dict)
    views: dict = field(default_factory=dict)
    # Per scenario name, over the whole fleet even where only some results are listed: per-step counts
    # (`rmqplan.model.scenarios.step_counts`) and the queues its last states move against the baseline.
    step_counts: dict = field(default_factory=dict)
    moved_counts: dict = field(default_factory=dict)
    # Findings of the routes that exist but are not listed (generated topics beyond the listed groups): code -> n
    unlisted_findings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class OutRequest:
    """`--out`: the engine writes its tables (`rmqplan.report.out_tables`) and every finding, one JSON object a line in
    `findings.json`, into `directory` (a staging directory the report step moves into place). `find` gives the
    findings of a Simulation's results (`rmqplan.report.findings.find_by_result`); the engine calls it on every
    problem group."""

    directory: str
    find: Callable


@dataclass(frozen=True)
class SimulateOptions:
    """`rmqplan simulate`'s options, as `rmqplan.cli` hands them to an engine (`rmqplan.engines.spark.simulate`)."""

    engine: str = "auto"  # "auto" | "local" | "spark"; the CLI resolves auto (rmqplan.engines.choice)
    format: str = "text"  # "text" | "json"
    assignments: bool = False  # text: every group's process -> queues map; JSON: each entry's instances
    details: bool = False  # text: each group and topic after the findings
    out: Optional[str] = None
    html: Optional[str] = None  # --html FILE: the report as one self-contained page (rmqplan.report.html)
    master: Optional[str] = None
    conf: tuple[str, ...] = ()  # "key=value" items as given to --conf
    compare_strategies: bool = False  # --compare-strategies (rmqplan.compare)
    plan: Optional[str] = None  # --plan DIR: the minimum's CONFIG lists (rmqplan.report.plan_out)
    max_entries: int = MAX_ENTRIES  # --max-entries: what a hand-written fleet may hold (rmqplan.model.fleet_size)
    balance: str = "queues"  # --balance: what the minimum balances, queue counts or (known) backlog

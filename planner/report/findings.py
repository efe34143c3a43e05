"""Plan findings PLAN001..PLAN008, each with a message that says why.

A finding's `message` (JSON's) is one sentence; its parts are kept apart as well, for the reports that lay them
out: the `headline` (what is wrong, where), `why` (the cause), `effect` (what follows) and `help` (what to do, where
the message says it). The message is `headline: why; effect (help)` for most codes, worded otherwise for the rest
(PLAN005 without a readable queue, PLAN006, PLAN007), as it always was.

Computed from a `Simulation` (either engine's), so both engines report the same findings:

| code    | severity | per                      | finds                                                          |
| PLAN001 | error    | scenario, group, topic   | orphaned queues (clustering)                                   |
| PLAN002 | error    | scenario, group, topic   | duplicated queues (clustering)                                 |
| PLAN003 | warning  | scenario, group, topic   | idle processes (not for retry topics)                          |
| PLAN004 | error    | baseline, topic          | written queues no consumer can read                            |
| PLAN005 | error    | scenario, group, topic   | a strategy throws, so that process's rebalance fails           |
| PLAN006 | warning  | scenario, group, topic   | a process holds >= 2 queues and >= twice its fair share; or,   |
|         |          |                          | with the group's backlog, >= twice its fair share of messages  |
|         |          |                          | and more than that share plus one queue's worth                |
| PLAN007 | warning  | scenario, group          | broadcasting processes on one host share a client id           |
| PLAN008 | info     | scenario, topic          | readable queues no producer writes to: they stay empty         |
| PLAN009 | error    | scenario, group, topic   | processes whose clients compute one strategy differently (Go   |
|         |          |                          | and Java) leave queues orphaned or doubled where they disagree |
|         |          |                          | (`rmqplan.report.disagreement`)                                |

PLAN004 and PLAN008 are facts of the routes: the baseline's, and a scenario's (its last step's fleet view) where
they differ from the baseline's for that topic.

The fair share is the topic's readable queues divided by the processes that subscribe to it (clustering only,
not for retry topics). PLAN006's backlog form (`weight` "backlog" in JSON) weighs the queues by the messages behind
on them (`rmqplan.allocation.backlog`), when the fleet knows the group's backlog.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from rmqplan.model.identity import shared_client_ids
from rmqplan.model.fleet import BROADCASTING, CLUSTERING, Fleet, Process, Queue
from rmqplan.model.simulation import GroupTopicResult, Simulation
from rmqplan.model.routes import (
    is_retry_topic,
    unreadable_written_queues,
    unwritten_readable_queues,
    why_unreadable,
    why_unwritten,
)
from rmqplan.allocation.backlog import percent, shares
from rmqplan.allocation.strategies import describe, for_process, strategy_of

from rmqplan.report.codes import ERROR, INFO, SEVERITY, WARNING  # noqa: F401  (the codes' one table)
from rmqplan.report.disagreement import disagreement
from rmqplan.model.words import count, noun
MAX_LISTED = 6  # processes named in one message before "and N more"


@dataclass
class PlanFinding:
    code: str
    severity: str
    scenario: str
    group: Optional[str]
    topic: Optional[str]
    message: str
    queues: Optional[list[Queue]] = None
    weight: str = "queues"  # PLAN006: what is counted, "queues" or "backlog" (messages behind)
    headline: str = ""  # the message's parts (the module's docstring); not in JSON, which has the message
    why: str = ""
    effect: str = ""
    help: str = ""

    def to_json(self) -> dict:
        out = {"code": self.code, "severity": self.severity, "scenario": self.scenario, "group": self.group,
               "topic": self.topic, "message": self.message}
        if self.queues is not None:
            out["queues"] = [[q.topic, q.broker, q.queue_id] for q in self.queues]
        if self.weight != "queues":
            out["weight"] = self.weight
        return out


def _finding(code: str, scenario: str, group: Optional[str], topic: Optional[str], headline: str, why: str = "",
             effect: str = "", queues: Optional[list[Queue]] = None, *, help: str = "",
             message: Optional[str] = None) -> PlanFinding:
    """A finding from its parts; its message is `headline: why; effect (help)` unless `message` words it."""
    if message is None:
        message = headline + (f": {why}" if why else "") + (f"; {effect}" if effect else "") + \
            (f" ({help})" if help else "")
    return PlanFinding(code, SEVERITY[code], scenario, group, topic, message, queues, headline=headline, why=why,
                       effect=effect, help=help)


def format_queues(queues: Sequence[Queue]) -> str:
    """`broker-a: 2, 3; broker-b: 0` (the topic is the finding's)."""
    by_broker: dict[str, list[int]] = {}
    for q in queues:
        by_broker.setdefault(q.broker, []).append(q.queue_id)
    return "; ".join(f"{b}: {', '.join(map(str, ids))}" for b, ids in by_broker.items())


def id_ranges(ids: Sequence[int]) -> str:
    """`0, 3-7`: queue ids, consecutive ones as ranges."""
    out, ids = [], sorted(ids)
    start = prev = None
    for i in ids + [None]:
        if start is not None and (i is None or i != prev + 1):
            out.append(f"{start}-{prev}" if prev > start else str(start))
            start = None
        if i is not None and start is None:
            start = i
        prev = i
    return ", ".join(out)


def queues_text(queues: Sequence[Queue], name_brokers: bool = False) -> str:
    """`queues 2, 3` (one broker, unless `name_brokers`) or `queues 3 (broker-a), 0, 1 (broker-b)`: how a person
    names them."""
    by_broker: dict[str, list[int]] = {}
    for q in queues:
        by_broker.setdefault(q.broker, []).append(q.queue_id)
    word = f"queue{'s' if len(queues) > 1 else ''}"
    if len(by_broker) == 1 and not name_brokers:
        return f"{word} {id_ranges(next(iter(by_broker.values())))}"
    return f"{word} " + ", ".join(f"{id_ranges(ids)} ({b})" for b, ids in by_broker.items())


def _names(items: Sequence[str]) -> str:
    shown = list(items[:MAX_LISTED])
    more = len(items) - len(shown)
    text = ", ".join(shown)
    return f"{text} and {more} more" if more > 0 else text


def _strategy_text(p: Process) -> str:
    """The strategy as the process computes it: a Go process's is rocketmq-client-go's form."""
    return describe(for_process(p.strategy, p.client, p.client_version))


# ----------------------------------------------------------------------------------------------------- reasons


def shared_id_text(instances: Sequence[str], client_id: str, id_source: str) -> str:
    return f"{_names(instances)} all report client id {client_id} ({id_source}), so each computes the same share"


def too_few_queues_text(topic: str, queues: int, distinct: int) -> str:
    return (f"{topic} has {count(queues, 'readable queue')} for {count(distinct, 'distinct client id')} "
            f"(a queue is never split)")


def _shared_id_reason(processes: Sequence[Process]) -> list[str]:
    return [shared_id_text([p.instance for p in ps], cid, ps[0].id_source)
            for cid, ps in shared_client_ids(processes).items()]


def _one_strategy(processes: Sequence[Process]) -> bool:
    """All run one strategy object (a group without overrides shares its spec): the common case, checked first
    without hashing specs."""
    first = processes[0].strategy if processes else None
    return all(p.strategy is first for p in processes)


def _mixed_strategy_reason(subscribers: Sequence[Process]) -> list[str]:
    if _one_strategy(subscribers):
        return []
    by_strategy: dict[str, list[str]] = {}
    for p in subscribers:
        by_strategy.setdefault(_strategy_text(p), []).append(p.instance)
    if len(by_strategy) < 2:
        return []
    parts = [f"{name} on {_names(instances)}" for name, instances in by_strategy.items()]
    return [f"the processes run different strategies ({'; '.join(parts)}), whose shares do not fit together"]


def _not_subscribed_reason(r: GroupTopicResult) -> list[str]:
    others = [p.instance for p in r.processes if p.instance not in r.assignment]
    if not others:
        return []
    one = len(others) == 1
    return [f"{_names(others)} {'does' if one else 'do'} not subscribe to {r.topic} but still "
            f"{'counts' if one else 'count'} in the split (the broker lists every process of the group), "
            f"so {'its share is' if one else 'their shares are'} never pulled"]


def _errored_reason(r: GroupTopicResult) -> list[str]:
    failed = [i for i in r.errored if not r.assignment.get(i)]  # the others keep what they held
    if not failed:
        return []
    return [f"the strategy throws on {_names(failed)}, so {'it holds' if len(failed) == 1 else 'they hold'} nothing"]


def _strategy_reason(r: GroupTopicResult, subscribers: Sequence[Process]) -> list[str]:
    names = {subscribers[0].strategy} if subscribers and _one_strategy(subscribers) else \
        {p.strategy for p in subscribers}
    if len(names) != 1:
        return []
    spec = next(iter(names))
    reason = strategy_of(spec).unassigned_reason(spec)
    return [reason] if reason else []


def _subscribers(r: GroupTopicResult) -> list[Process]:
    return [p for p in r.processes if p.instance in r.assignment]


def _because(reasons: list[str], fallback: str) -> str:
    return "; ".join(reasons) if reasons else fallback


# ---------------------------------------------------------------------------------------------------- findings


def _orphaned(r: GroupTopicResult) -> Optional[PlanFinding]:
    if r.model != CLUSTERING or not r.orphaned:
        return None
    subs = _subscribers(r)
    reasons = (_shared_id_reason(r.processes) + _errored_reason(r) + _not_subscribed_reason(r)
               + _mixed_strategy_reason(subs) + _strategy_reason(r, subs))
    if not subs:
        reasons = [f"no process of the group subscribes to {r.topic}"] + reasons
    fallback = f"the strategy leaves them to nobody ({_strategy_text(subs[0]) if subs else r.model})"
    return _finding("PLAN001", r.scenario, r.group, r.topic,
                    orphaned_headline(r.group, r.topic, r.orphaned, len(r.queues)), _because(reasons, fallback),
                    "their messages pile up unread", list(r.orphaned))


def orphaned_headline(group: str, topic: str, orphaned: Sequence[Queue], queues: int) -> str:
    what = noun(queues, "retry queue" if is_retry_topic(topic) else "queue")
    return (f"{len(orphaned)} of {queues} {what} of {topic} {noun(len(orphaned), 'is', 'are')} consumed by no process "
            f"of group {group} ({format_queues(orphaned)})")


def _duplicated(r: GroupTopicResult) -> Optional[PlanFinding]:
    if r.model != CLUSTERING or not r.duplicated:
        return None
    subs = _subscribers(r)
    reasons = _shared_id_reason(r.processes) + _mixed_strategy_reason(subs)
    return _finding("PLAN002", r.scenario, r.group, r.topic,
                    duplicated_headline(r.group, r.topic, r.duplicated, len(r.queues)),
                    _because(reasons, "the processes disagree on the split"), "their messages are consumed twice",
                    list(r.duplicated))


def duplicated_headline(group: str, topic: str, duplicated: Sequence[Queue], queues: int) -> str:
    what = noun(queues, "retry queue" if is_retry_topic(topic) else "queue")
    return (f"{len(duplicated)} of {queues} {what} of {topic} {noun(len(duplicated), 'is', 'are')} held by two or "
            f"more processes of group {group} ({format_queues(duplicated)})")


def _idle(r: GroupTopicResult) -> Optional[PlanFinding]:
    if not r.idle or is_retry_topic(r.topic):
        return None
    subs = _subscribers(r)
    distinct = len({p.client_id for p in r.processes})
    reasons = []
    if not r.queues:
        reasons.append(f"{r.topic} has no readable queue")
    elif r.model == CLUSTERING and len(r.queues) < distinct:
        reasons.append(too_few_queues_text(r.topic, len(r.queues), distinct))
    if r.model == CLUSTERING:
        reasons += _errored_reason(r) + _shared_id_reason(r.processes) + _mixed_strategy_reason(subs)
        reasons += _strategy_reason(r, subs)
    idle = [p.instance for p in r.idle]
    fallback = f"{_strategy_text(subs[0])} gives them nothing" if subs else "they hold nothing"
    return _finding("PLAN003", r.scenario, r.group, r.topic, idle_headline(r.group, r.topic, idle, len(subs)),
                    _because(reasons, fallback))


def idle_headline(group: str, topic: str, idle: Sequence[str], subscribers: int) -> str:
    return (f"{len(idle)} of {count(subscribers, 'process')} of group {group} {noun(len(idle), 'holds', 'hold')} "
            f"no queue of {topic} ({_names(idle)})")


def _errored(r: GroupTopicResult) -> Optional[PlanFinding]:
    if not r.errored:
        return None
    by_error: dict[str, list[str]] = {}
    for instance, error in r.errored.items():
        by_error.setdefault(error, []).append(instance)
    proc = {p.instance: p for p in r.processes}
    parts = "; ".join(f"{_strategy_text(proc[instances[0]])} throws {error} on {_names(instances)}"
                      for error, instances in by_error.items())
    fails = f"the rebalance of {r.topic} fails for {count(len(r.errored), 'process')} of group {r.group}"
    if r.queues:
        return _finding("PLAN005", r.scenario, r.group, r.topic, fails, parts,
                        "a failed rebalance keeps what it had, which at start is nothing")
    no_queue = f"{r.topic} has no readable queue"
    return _finding("PLAN005", r.scenario, r.group, r.topic, f"{fails} ({parts})", no_queue, _kept_text(r),
                    message=f"{no_queue}, so {fails} ({parts}): {_kept_text(r)}")


def _kept_text(r: GroupTopicResult) -> str:
    """What the failed processes of a topic without a readable queue hold: what they held before (kept, not
    pulled: no broker serves it for reading), nothing when they have just started."""
    keeping = [i for i in r.errored if r.assignment.get(i)]
    empty = [i for i in r.errored if not r.assignment.get(i)]
    parts = []
    if keeping:
        kept = len({q for i in keeping for q in r.assignment[i]})
        who = "they keep" if not empty and len(keeping) > 1 else \
            f"{_names(keeping)} {noun(len(keeping), 'keeps', 'keep')}"
        what = count(kept, "retry queue" if is_retry_topic(r.topic) else "queue")
        parts.append(f"{who} the {what} {'it' if len(keeping) == 1 else 'they'} held but cannot pull "
                     f"{'it' if kept == 1 else 'them'} until a queue of {r.topic} is readable again")
    if empty:
        who = "they hold" if not keeping and len(empty) > 1 else \
            f"{_names(empty)} {noun(len(empty), 'holds', 'hold')}"
        parts.append(f"{who} nothing")
    return "; ".join(parts)


def _imbalance(r: GroupTopicResult) -> Optional[PlanFinding]:
    if r.model != CLUSTERING or is_retry_topic(r.topic) or not r.queues:
        return None
    subs = _subscribers(r)
    if len(subs) < 2:
        return None
    fair = len(r.queues) / len(subs)
    heavy = [(p, len(r.assignment[p.instance])) for p in subs
             if len(r.assignment[p.instance]) >= 2 and len(r.assignment[p.instance]) >= 2 * fair]
    if not heavy:
        return None
    heavy.sort(key=lambda item: -item[1])
    parts = [f"{p.instance} holds {n} ({n / fair:.1f}x)" for p, n in heavy[:MAX_LISTED]]
    if len(heavy) > MAX_LISTED:
        parts.append(f"and {len(heavy) - MAX_LISTED} more")
    headline = (f"imbalance in group {r.group} on {r.topic}: the fair share is {fair:.2g} "
                f"({len(r.queues)} queues / {len(subs)} processes), but {', '.join(parts)}")
    why = f"strategy {_strategy_text(heavy[0][0])}"
    return _finding("PLAN006", r.scenario, r.group, r.topic, headline, why, message=f"{headline}; {why}")


def _backlog_imbalance(r: GroupTopicResult, backlog: dict) -> Optional[PlanFinding]:
    if r.model != CLUSTERING or is_retry_topic(r.topic) or not backlog:
        return None
    s = shares(r, backlog)
    if s is None or len(s.processes) < 2:
        return None
    heavy = sorted(s.overloaded(), key=lambda p: -p.messages)
    if not heavy:
        return None
    parts = [f"{p.instance} holds {p.queues} of {s.queues} queues but {percent(s.share(p))} of them "
             f"({p.messages:,} messages)" for p in heavy[:MAX_LISTED]]
    if len(heavy) > MAX_LISTED:
        parts.append(f"and {len(heavy) - MAX_LISTED} more")
    proc = {p.instance: p for p in r.processes}
    headline = (f"imbalance by backlog in group {r.group} on {r.topic}: {s.total:,} messages behind, a fair share "
                f"of {percent(1 / len(s.processes))} ({s.fair:,.0f}) per process, but {', '.join(parts)}")
    why = f"strategy {_strategy_text(proc[heavy[0].instance])}"
    out = _finding("PLAN006", r.scenario, r.group, r.topic, headline, why, message=f"{headline}; {why}")
    out.weight = "backlog"
    return out


def _unreadable(fleet: Fleet, scenario: str = "baseline") -> list[PlanFinding]:
    out = []
    for topic in fleet.topics:
        lost = unreadable_written_queues(fleet, topic)
        if not lost:
            continue
        brokers = list(dict.fromkeys(q.broker for q in lost))
        why = "; ".join(why_unreadable(fleet, topic, b) for b in brokers)
        out.append(_finding("PLAN004", scenario, None, topic.name,
                            f"{count(len(lost), 'written queue')} of {topic.name} cannot be read by any consumer "
                            f"({format_queues(lost)})", why, "messages sent there are never consumed", lost))
    return out


def _unwritten(fleet: Fleet, scenario: str = "baseline") -> list[PlanFinding]:
    out = []
    for topic in fleet.topics:
        empty = unwritten_readable_queues(fleet, topic)
        if not empty:
            continue
        brokers = list(dict.fromkeys(q.broker for q in empty))
        why = "; ".join(why_unwritten(fleet, topic, b) for b in brokers)
        out.append(_finding("PLAN008", scenario, None, topic.name,
                            f"{count(len(empty), 'readable queue')} of {topic.name} "
                            f"{noun(len(empty), 'receives', 'receive')} no new message ({format_queues(empty)})", why,
                            "consumers still hold them, and once drained they stay empty, so the processes holding "
                            "them get less than their share of the traffic", empty,
                            help="shrinking a topic: lower write_queues, let those queues drain, then lower "
                                 "read_queues"))
    return out


def _route_findings(sim: Simulation) -> list[PlanFinding]:
    """PLAN004 and PLAN008 of the baseline, then of each scenario's routes where they differ from the baseline's
    for that code and topic."""
    out = _unreadable(sim.fleet) + _unwritten(sim.fleet)
    before = {(f.code, f.topic): f.queues for f in out}
    for name, view in sim.views.items():
        if view is sim.fleet:
            continue
        for f in _unreadable(view, name) + _unwritten(view, name):
            if before.get((f.code, f.topic)) != f.queues:
                out.append(f)
    return out


def offsets_file(p: Process, cid: str, group: str) -> str:
    """Where a broadcasting process keeps its offsets: the Java client's `LocalFileOffsetStore`, or rocketmq-client-go's
    (`$HOME/.rocketmq_client_go/<clientId>/<group>/offset.json`)."""
    if p.client == "go":
        return f"~/.rocketmq_client_go/{cid}/{group}/offset.json"
    return f"~/.rocketmq_offsets/{cid}/{group}/offsets.json"


def _shared_offsets(scenario: str, group: str, processes: Sequence[Process]) -> list[PlanFinding]:
    out = []
    by_host_id: dict[tuple[str, str], list[Process]] = {}
    for p in processes:
        by_host_id.setdefault((p.host, p.client_id), []).append(p)
    for (host, cid), ps in by_host_id.items():
        if len(ps) < 2:
            continue
        processes = f"{len(ps)} broadcasting processes of group {group} on host {host} " \
                    f"({_names([p.instance for p in ps])})"
        file = offsets_file(ps[0], cid, group)
        reports = f"report client id {cid} ({ps[0].id_source})"
        out.append(_finding("PLAN007", scenario, group, None, f"{processes} share one local offsets file {file}",
                            f"they {reports}", "they overwrite each other's progress",
                            message=f"{processes} {reports}, so they share one local offsets file {file} and "
                                    f"overwrite each other's progress"))
    return out


def find(sim: Simulation) -> list[PlanFinding]:
    """Every finding of a simulation, the worst first (`rmqplan.report.ranking`: the baseline, then each scenario;
    errors, then warnings, then notes; the group that loses most queues first)."""
    from rmqplan.report.ranking import ordered_findings

    return ordered_findings(find_by_result(sim), sim)


def find_by_result(sim: Simulation) -> list[PlanFinding]:
    """Every finding in result order, topic findings (PLAN004, PLAN008) first: what `--out` writes to
    findings.json chunk by chunk (in group order, as the tables)."""
    out = _route_findings(sim)
    seen_groups: set[tuple[str, str]] = set()
    backlogs = {g.name: g.backlog_of() for g in sim.fleet.groups if g.backlog}
    for r in sim.results:
        if r.model == BROADCASTING and (r.scenario, r.group) not in seen_groups:
            seen_groups.add((r.scenario, r.group))
            out += _shared_offsets(r.scenario, r.group, r.processes)
        for check in (_errored, _orphaned, _duplicated, _idle, _imbalance):
            f = check(r)
            if f is not None:
                out.append(f)
        disagreed = disagreement(r, sim.fleet, format_queues)
        if disagreed is not None:
            out.append(_finding("PLAN009", r.scenario, r.group, r.topic, disagreed.headline, disagreed.why,
                                disagreed.effect, disagreed.queues))
        if r.group in backlogs:
            f = _backlog_imbalance(r, backlogs[r.group])
            if f is not None:
                out.append(f)
    return out


# The tally's problems (rmqplan.allocation.tally.PROBLEMS) and the finding each gives, once per result that has it.
CODE_OF_PROBLEM = {"orphaned": "PLAN001", "duplicated": "PLAN002", "idle": "PLAN003", "errored": "PLAN005",
                   "imbalanced": "PLAN006"}


def count_by_code(sim: Simulation, shown: Sequence[PlanFinding]) -> dict[str, int]:
    """How many findings of each code the whole fleet has: the engine's problem counts for the per-result codes
    (every result, shown or not), the shown findings for the fleet's topics (PLAN004, PLAN008) and broadcasting
    offsets (PLAN007), which come from hand-written parts that are always shown."""
    counts = dict.fromkeys(SEVERITY, 0)
    for f in shown:
        counts[f.code] += 1
    for code, n in sim.unlisted_findings.items():
        counts[code] += n
    if sim.problem_counts is not None:
        for problem, code in CODE_OF_PROBLEM.items():
            counts[code] = sim.problem_counts.get(problem, 0)
        # the engines count imbalance by queues; the backlog form is the findings' own (hand-written groups,
        # always listed)
        counts["PLAN006"] += sum(1 for f in shown if f.code == "PLAN006" and f.weight == "backlog")
    return counts


def has_errors(findings: Sequence[PlanFinding], counts: Optional[dict] = None) -> bool:
    """Any error-level finding among `findings`, or (with `counts`) anywhere in the fleet."""
    if counts is not None and any(n and SEVERITY[code] == ERROR for code, n in counts.items()):
        return True
    return any(f.severity == ERROR for f in findings)

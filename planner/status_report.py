"""What `rmqplan status` says: per connected group, who holds which queue now and the messages behind on them, the
problems that are live (orphaned and doubly held queues, with their backlog, in the words of the incident), and
where the brokers' view confirms or contradicts the prediction.

The brokers' view of a queue is its consume progress read twice, `interval` seconds apart (`judge`):

| predicted      | the group's offset            | verdict                                                       |
|----------------|-------------------------------|---------------------------------------------------------------|
| nobody holds it| moved                         | contradicts: something consumes it                            |
| nobody holds it| stayed, messages behind       | confirms                                                      |
| held           | moved                         | confirms                                                      |
| held           | stayed, messages behind       | contradicts: a stuck consumer, or another allocation          |
| either         | stayed, nothing behind        | silent: nothing to consume, the brokers cannot tell           |

With `--interval 0` (one read), only a queue nobody holds with messages behind that the group never consumed
confirms. The brokers cannot tell how many processes read a queue: a doubly held queue is judged as a held one.

A group with no consumer connected but consume offsets committed on the brokers (its last consumer died; a group
never consumed, or deleted, has none) has every queue of those topics orphaned (`disconnected`): PLAN001 per
topic, with the messages behind from the group's consume stats, which outlive its connections.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

from rmqplan.model.fleet import Queue
from rmqplan.model.javaorder import queue_key
from rmqplan.model.identity import shared_client_ids
from rmqplan.model.routes import is_retry_topic
from rmqplan.model.simulation import GroupTopicResult, Simulation
from rmqplan.model import words
from rmqplan.report.codes import SEVERITY
from rmqplan.report.findings import PlanFinding, format_queues, queues_text
from rmqplan.sources.cluster import ClusterSnapshot, ConsumeProgress, QueueOffsets
from rmqplan.sources.from_cluster import FleetFromCluster
from rmqlint.printable import printable

CONFIRMS, CONTRADICTS, SILENT = "confirms", "contradicts", "silent"


@dataclass(frozen=True)
class Verdict:
    verdict: str  # CONFIRMS | CONTRADICTS | SILENT
    why: str  # one clause: "its offset stayed at 0 for 6 s with 5 messages behind"


@dataclass
class Disconnected:
    """One topic of a group with no consumer connected and offsets committed on it: every queue orphaned."""

    group: str
    topic: str
    queues: list[Queue]  # the queues its brokers report for the group, in RocketMQ's order
    finding: PlanFinding  # PLAN001


def disconnected(snapshot: ClusterSnapshot, only: Optional[list[str]] = None) -> list[Disconnected]:
    """Per group with no connection and committed offsets (of `only` when given) and topic: its queues, orphaned."""
    out = []
    for group, consumer in sorted(snapshot.consumers.items()):
        progress = snapshot.progress.get(group)
        if consumer.connections or not consumer.committed_topics or progress is None or (only and group not in only):
            continue
        by_topic: dict[str, list[Queue]] = {}
        for q in sorted(progress.queues, key=queue_key):
            by_topic.setdefault(q.topic, []).append(q)
        for topic in sorted(consumer.committed_topics, key=lambda t: (is_retry_topic(t), t)):
            queues = by_topic.get(topic)
            if not queues:
                continue  # no broker of its route reports a readable queue of it
            behind = sum(progress.queues[q].backlog for q in queues)
            what = words.noun(len(queues), "retry queue" if is_retry_topic(topic) else "queue")
            message = (f"{'the' if len(queues) == 1 else f'all {len(queues)}'} {what} of {topic} "
                       f"{words.noun(len(queues), 'is', 'are')} consumed by no process of group {group} "
                       f"({format_queues(queues)}): no consumer of the group is connected, and the brokers keep the "
                       f"offsets it committed; {words.count(behind, 'message', separators=True)} behind pile up "
                       "unread")
            out.append(Disconnected(group, topic, queues, PlanFinding("PLAN001", SEVERITY["PLAN001"], "baseline",
                                                                      group, topic, message, list(queues))))
    return out


@dataclass
class StatusReport:
    snapshot: ClusterSnapshot
    connected: FleetFromCluster
    sim: Optional[Simulation]
    findings: list[PlanFinding]
    counts: dict
    second: Optional[dict[str, ConsumeProgress]]  # the second read, or None (--interval 0)
    interval: float
    disconnected: list[Disconnected] = field(default_factory=list)
    # `rmqplan watch`: an earlier read's progress, `interval` seconds before the snapshot's, which is then the last
    earlier: Optional[dict[str, ConsumeProgress]] = None
    _results: Optional[dict[str, list[GroupTopicResult]]] = field(default=None, repr=False, compare=False)

    def progress(self, group: str) -> tuple[Optional[ConsumeProgress], Optional[ConsumeProgress]]:
        if self.earlier is not None:
            return self.earlier.get(group), self.snapshot.progress.get(group)
        first = self.snapshot.progress.get(group)
        last = self.second.get(group) if self.second is not None else None
        return first, last or first

    @property
    def judged_interval(self) -> float:
        """Seconds between the two reads the verdicts compare; 0 for one read."""
        return self.interval if self.second is not None or self.earlier is not None else 0

    def disconnected_groups(self) -> list[str]:
        return list(dict.fromkeys(d.group for d in self.disconnected))

    def results(self, group: str) -> list[GroupTopicResult]:
        if self.sim is None:
            return []
        if self._results is None:  # by group, once: thousands of groups ask
            self._results = {}
            for r in self.sim.results:
                self._results.setdefault(r.group, []).append(r)
        return self._results.get(group, [])


def _ago(ms: int, now: float) -> str:
    seconds = max(now - ms / 1000, 0)
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if unit == 'day' and n > 1 else ''} ago"
    return f"{int(seconds)} s ago"


def judge(held: bool, first: Optional[QueueOffsets], last: Optional[QueueOffsets], interval: float,
          now: float) -> Verdict:
    """The brokers' view of one queue against the prediction (`held`: some process is predicted to hold it)."""
    if last is None:
        return Verdict(SILENT, "the broker did not report it")
    behind = last.backlog
    consumed = (f"last consumed {_ago(last.last_timestamp, now)}" if last.last_timestamp
                else "never consumed by this group")
    moved = first is not None and interval > 0 and last.consumer_offset > first.consumer_offset
    if moved:
        step = f"the group's offset moved {first.consumer_offset:,} -> {last.consumer_offset:,} in {interval:g} s"
        return Verdict(CONFIRMS, step) if held else Verdict(CONTRADICTS, f"{step}: something consumes it")
    if not behind:
        return Verdict(SILENT, "nothing is behind, so nothing shows who reads it")
    if interval <= 0:
        if not held and not last.last_timestamp:
            return Verdict(CONFIRMS, f"{behind:,} behind, {consumed}")
        return Verdict(SILENT, f"{behind:,} behind, {consumed} (one read: --interval to watch the offsets move)")
    stayed = (f"the group's offset stayed at {last.consumer_offset:,} for {interval:g} s with {behind:,} behind, "
              f"{consumed}")
    return Verdict(CONTRADICTS, f"{stayed}: held but not consumed") if held else Verdict(CONFIRMS, stayed)


@dataclass
class QueueView:
    queue: Queue
    holders: list[str]  # client ids of the processes predicted to hold it (one per process)
    backlog: Optional[int]
    first: Optional[QueueOffsets]
    last: Optional[QueueOffsets]
    verdict: Verdict


def queue_views(report: StatusReport, r: GroupTopicResult) -> list[QueueView]:
    first, last = report.progress(r.group)
    now = last.read_at if last is not None and last.read_at else time.time()
    cid = {p.instance: p.client_id for p in r.processes}
    holders: dict[Queue, list[str]] = {q: [] for q in r.queues}
    for instance, share in r.assignment.items():
        for q in share:
            if q in holders:
                holders[q].append(cid[instance])
    out = []
    for q in r.queues:
        a = first.queues.get(q) if first is not None else None
        b = last.queues.get(q) if last is not None else None
        out.append(QueueView(q, sorted(holders[q]), b.backlog if b is not None else None, a, b,
                             judge(bool(holders[q]), a, b, report.judged_interval, now)))
    return out


def disconnected_views(report: StatusReport, d: Disconnected) -> list[QueueView]:
    first, last = report.progress(d.group)
    now = last.read_at if last is not None and last.read_at else time.time()
    out = []
    for q in d.queues:
        a = first.queues.get(q) if first is not None else None
        b = last.queues.get(q) if last is not None else None
        out.append(QueueView(q, [], b.backlog if b is not None else None, a, b,
                             judge(False, a, b, report.judged_interval, now)))
    return out


def disconnected_problem(report: StatusReport, d: Disconnected) -> "Problem":
    views = disconnected_views(report, d)
    behind = _behind(views)
    what = ("retry " if is_retry_topic(d.topic) else "") + queues_text(d.queues, len({q.broker for q in d.queues}) > 1)
    return Problem(d.finding, views, f"{what} of {d.topic}: {words.count(behind, 'message', separators=True)} behind, "
                                     "consumed by nobody: no consumer of the group is connected")


def _behind(views: list[QueueView]) -> int:
    return sum(v.backlog or 0 for v in views)


def _brokers(r: GroupTopicResult) -> int:
    return len({q.broker for q in r.queues})


def _shared_reason(r: GroupTopicResult) -> str:
    parts = []
    for client_id, ps in shared_client_ids(r.processes).items():
        who = "both processes" if len(ps) == 2 else f"all {len(ps)} processes" if len(ps) == len(r.processes) \
            else f"{len(ps)} processes"
        parts.append(f"{who} report {client_id}")
    return "; ".join(parts)


@dataclass
class Problem:
    """A live problem of one group's topic, in the incident's words, with the brokers' view of its queues."""

    finding: PlanFinding
    views: list[QueueView]
    text: str

    def evidence(self) -> str:
        by: dict[str, list[QueueView]] = {}
        for v in self.views:
            by.setdefault(v.verdict.verdict, []).append(v)
        parts = []
        for verdict in (CONFIRMS, CONTRADICTS, SILENT):
            views = by.get(verdict, [])
            if not views:
                continue
            whys = list(dict.fromkeys(v.verdict.why for v in views))
            where = "" if len(views) == len(self.views) else f" on {format_queues([v.queue for v in views])}"
            said = {CONFIRMS: "the brokers confirm", CONTRADICTS: "the brokers contradict",
                    SILENT: "the brokers cannot tell"}[verdict]
            why = whys[0] if len(whys) == 1 else "; ".join(f"{format_queues([v.queue])}: {v.verdict.why}"
                                                          for v in views)
            parts.append(f"{said}{where}: {why}")
        return "; ".join(parts)

    def verdicts(self) -> dict[str, int]:
        out = {CONFIRMS: 0, CONTRADICTS: 0, SILENT: 0}
        for v in self.views:
            out[v.verdict.verdict] += 1
        return out


def problems(report: StatusReport, r: GroupTopicResult, views: list[QueueView]) -> list[Problem]:
    by_queue = {v.queue: v for v in views}
    out = []
    for f in report.findings:
        if f.group != r.group or f.topic != r.topic or f.code not in ("PLAN001", "PLAN002") or not f.queues:
            continue
        mine = [by_queue[q] for q in f.queues if q in by_queue]
        behind = _behind(mine)
        reason = _shared_reason(r)
        what = ("retry " if is_retry_topic(r.topic) else "") + queues_text(f.queues, _brokers(r) > 1)
        if f.code == "PLAN001":
            text = f"{what} of {r.topic}: {behind:,} message{'s' if behind != 1 else ''} behind, consumed by nobody"
        else:
            holders = max(len(v.holders) for v in mine) if mine else 2
            text = (f"{what} of {r.topic}: consumed {'twice' if holders == 2 else f'{holders} times'}, "
                    f"{behind:,} message{'s' if behind != 1 else ''} behind")
        text += f": {reason}" if reason else f" ({f.message})"
        out.append(Problem(f, mine, text))
    return out


def stalled(r: GroupTopicResult, views: list[QueueView], reported: set) -> list[QueueView]:
    """Held queues whose offset stayed put with messages behind, not already part of a problem."""
    return [v for v in views if v.verdict.verdict == CONTRADICTS and v.holders and v.queue not in reported]


# ------------------------------------------------------------------------------------------------------- text


def _when(t: Optional[float]) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(t)) if t else "unknown"


def _strategy_text(report: StatusReport, group: str) -> str:
    told = report.connected.strategies.get(group)
    if told is not None:
        return f"{told.name}{':' + str(next(iter(told.params.values()))) if told.params else ''} (told)"
    return f"AVG (assumed: the broker does not know a client's strategy; --strategy {group}=NAME to say)"


def _by_client_id(r: GroupTopicResult, views: list[QueueView]) -> list[str]:
    """One line per client id: its processes, the queues each holds and the messages behind on them."""
    behind = {v.queue: v.backlog or 0 for v in views}
    ids: dict[str, list] = {}
    for p in r.processes:
        ids.setdefault(p.client_id, []).append(p)
    labels = {cid: printable(cid) + (f" ({len(ps)} processes)" if len(ps) > 1 else "") for cid, ps in ids.items()}
    width = max(map(len, [*labels.values(), "(nobody)"]))
    lines = []
    for cid, ps in ids.items():
        label = labels[cid]
        share = r.assignment.get(ps[0].instance)
        if share is None:
            held = "(does not subscribe)"
        elif ps[0].instance in r.errored:  # what it keeps (held before the failed rebalance), then why
            why = f"rebalance fails: {r.errored[ps[0].instance]})"
            held = f"{format_queues(share)}  (kept: {why}" if share else f"({why}"
        else:
            held = (format_queues(share) + f"  ({sum(behind.get(q, 0) for q in share):,} behind)") if share else "-"
        lines.append(f"    {label:<{width}}  {printable(held)}")
    if r.orphaned:
        lines.append(f"    {'(nobody)':<{width}}  {printable(format_queues(r.orphaned))}  "
                     f"({sum(behind.get(q, 0) for q in r.orphaned):,} behind)")
    return lines


def render_status_text(report: StatusReport) -> str:
    """The report; names from the cluster (groups, topics, brokers, client ids) are shown by `printable`: each
    stays on its line, without control characters."""
    snap = report.snapshot
    first_read = min((p.read_at for p in snap.progress.values() if p.read_at), default=None)
    groups = list(report.connected.groups)
    gone = report.disconnected_groups()
    if not groups and not gone:
        masters = len({b.name for b in snap.brokers})
        return (f"rmqplan status: {printable(snap.source)}: no consumer group is connected now ({masters} broker"
                f"{'s' if masters != 1 else ''} asked)\n")
    reads = (f"offsets read at {_when(first_read)} and again {report.interval:g} s later" if report.second
             else f"offsets read once at {_when(first_read)}")
    out = [f"rmqplan status: {printable(snap.source)}: {reads}"]
    errors = [f for f in report.findings if f.severity == "error"]
    troubled = sorted({f.group for f in errors if f.group})
    out.append(f"{len(groups)} consumer group{'s' if len(groups) != 1 else ''} connected"
               + (f", {len(gone)} with none connected and offsets committed" if gone else "") + "; "
               + (f"problems now in {len(troubled)}: {', '.join(map(printable, troubled))}" if troubled
                  else "no error-level problem"))
    tally = {CONFIRMS: 0, CONTRADICTS: 0, SILENT: 0}
    for group in gone:  # the worst first: nobody consumes anything of it
        mine = [d for d in report.disconnected if d.group == group]
        last = max((o.last_timestamp for d in mine for v in disconnected_views(report, d) for o in [v.last] if o),
                   default=0)
        out += ["", f"group {printable(group)}: no consumer connected; offsets committed on "
                    f"{words.count(len(mine), 'topic')}, "
                    + (f"last consumed {_ago(last, time.time())}" if last else "never consumed")]
        group_lines = []
        for d in mine:
            p = disconnected_problem(report, d)
            out.append(f"  {printable(d.topic)}: {words.count(len(d.queues), 'queue')}, "
                       f"{words.count(_behind(p.views), 'message', separators=True)} behind")
            out.append(f"    (nobody)  {printable(format_queues(d.queues))}  ({_behind(p.views):,} behind)")
            for k, n in p.verdicts().items():
                tally[k] += n
            group_lines += [f"  {p.finding.severity:<7} {p.finding.code} {printable(p.text)}",
                            f"          {printable(p.evidence())}"]
        out += group_lines
    for group in sorted(groups, key=lambda g: g not in troubled):  # the groups in trouble first
        consumer = report.connected.groups[group]
        results = report.results(group)
        ids = len(set(consumer.client_ids))
        model = (consumer.message_model or "CLUSTERING").lower()
        out += ["", f"group {printable(group)}: {model}, {len(consumer.connections)} connection"
                    f"{'s' if len(consumer.connections) != 1 else ''}"
                    + (f" on {ids} client id{'s' if ids != 1 else ''}" if ids != len(consumer.connections) else "")
                    + (f", strategy {printable(_strategy_text(report, group))}" if model == "clustering" else "")]
        group_lines: list[str] = []
        for r in results:
            views = queue_views(report, r)
            known = any(v.backlog is not None for v in views)
            state = f"{len(r.queues)} queue{'s' if len(r.queues) != 1 else ''}"
            if known:
                state += f", {words.count(_behind(views), 'message', separators=True)} behind"
            out.append(f"  {printable(r.topic)}: {state}")
            out += _by_client_id(r, views)
            found = problems(report, r, views)
            reported = {v.queue for p in found for v in p.views}
            for p in found:
                for k, n in p.verdicts().items():
                    tally[k] += n
                group_lines.append(f"  {p.finding.severity:<7} {p.finding.code} {printable(p.text)}")
                group_lines.append(f"          {printable(p.evidence())}")
            for v in stalled(r, views, reported):
                tally[CONTRADICTS] += 1
                note = (f"{format_queues([v.queue])} of {r.topic} held by {', '.join(v.holders)}: "
                        f"the brokers contradict: {v.verdict.why}")
                group_lines.append(f"  note    {printable(note)}")
        others = [f for f in report.findings if f.group == group and f.code not in ("PLAN001", "PLAN002")]
        group_lines += [f"  {f.severity:<7} {f.code} {printable(f.message)}" for f in others]
        out += group_lines
    routes = [f for f in report.findings if f.group is None]
    if routes:
        out += ["", "topics"] + [f"  {f.severity:<7} {f.code} [{printable(f.topic or '')}] {printable(f.message)}"
                                 for f in routes]
    n_errors = sum(1 for f in report.findings if f.severity == "error")
    codes = sorted({f.code for f in report.findings if f.severity == "error"})
    out += ["", f"problems now: {n_errors} error{'s' if n_errors != 1 else ''}"
                + (f" ({', '.join(codes)})" if codes else "")
                + f"; the brokers confirm {words.count(tally[CONFIRMS], 'queue')}, contradict {tally[CONTRADICTS]}, "
                  f"cannot tell {tally[SILENT]}"]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------------------- JSON


def _q(q: Queue) -> list:
    return [q.topic, q.broker, q.queue_id]


def _view_json(v: QueueView) -> dict:
    return {"queue": _q(v.queue), "holders": v.holders, "backlog": v.backlog,
            "consumer_offsets": [o.consumer_offset if o is not None else None for o in (v.first, v.last)],
            "broker_offset": v.last.broker_offset if v.last is not None else None,
            "last_consumed_ms": v.last.last_timestamp if v.last is not None and v.last.last_timestamp else None,
            "verdict": v.verdict.verdict, "why": v.verdict.why}


def status_json(report: StatusReport) -> dict:
    """`{"cluster", "read_at", "interval_seconds", "groups": [...], "problems": [...], "findings": [...],
    "finding_counts": {...}}`; a group: whether a consumer of it is connected, its model, strategy (and whether it
    was told), client ids (one per connection) and per topic every queue's holders, backlog, offsets and the
    brokers' verdict. A group with none connected and offsets committed has no strategy and every queue orphaned."""
    snap = report.snapshot
    groups, problem_docs = [], []

    def problem_doc(p: Problem, group: str, topic: str) -> dict:
        return {"code": p.finding.code, "severity": p.finding.severity, "group": group, "topic": topic,
                "queues": [_q(v.queue) for v in p.views], "backlog": _behind(p.views), "text": p.text,
                "evidence": p.evidence(), "verdicts": p.verdicts()}

    for group in report.disconnected_groups():
        topics = []
        for d in (d for d in report.disconnected if d.group == group):
            p = disconnected_problem(report, d)
            topics.append({"topic": d.topic, "queues": len(d.queues), "backlog": _behind(p.views), "instances": [],
                           "orphaned": [_q(q) for q in d.queues], "duplicated": [],
                           "queue_states": [_view_json(v) for v in p.views], "stalled": []})
            problem_docs.append(problem_doc(p, group, d.topic))
        groups.append({"group": group, "connected": False, "model": "clustering", "strategy": None,
                       "strategy_told": False, "client_ids": [], "topics": topics})
    for group, consumer in report.connected.groups.items():
        told = report.connected.strategies.get(group)
        topics = []
        for r in report.results(group):
            views = queue_views(report, r)
            found = problems(report, r, views)
            reported = {v.queue for p in found for v in p.views}
            topics.append({"topic": r.topic, "queues": len(r.queues),
                           "backlog": _behind(views) if any(v.backlog is not None for v in views) else None,
                           "instances": [{"instance": p.instance, "client_id": p.client_id,
                                          "queues": [_q(q) for q in r.assignment.get(p.instance, [])]}
                                         for p in r.processes],
                           "orphaned": [_q(q) for q in r.orphaned], "duplicated": [_q(q) for q in r.duplicated],
                           "queue_states": [_view_json(v) for v in views],
                           "stalled": [_q(v.queue) for v in stalled(r, views, reported)]})
            problem_docs += [problem_doc(p, group, r.topic) for p in found]
        groups.append({"group": group, "connected": True, "model": (consumer.message_model or "CLUSTERING").lower(),
                       "strategy": told.name if told else "AVG", "strategy_told": told is not None,
                       "client_ids": consumer.client_ids, "topics": topics})
    first_read = min((p.read_at for p in snap.progress.values() if p.read_at), default=None)
    judged = report.interval if report.second or report.earlier is not None else 0
    return {"cluster": snap.source, "read_at": first_read, "interval_seconds": judged,
            "groups": groups, "problems": problem_docs, "findings": [f.to_json() for f in report.findings],
            "finding_counts": report.counts}


# ------------------------------------------------------------------------------------------------------- HTML


def render_status_html(report: StatusReport, before: str = "") -> str:
    """The simulate report page of the connected fleet (none when no group is connected), with the live problems
    and the brokers' view first; `before` (HTML) above them (`rmqplan watch`: what changed)."""
    from rmqplan.model.fleet import Fleet
    from rmqplan.model.simulation import Simulation
    from rmqplan.report.html import e, render_html
    from rmqplan.report.render import totals

    def row(p: Problem, group: str, topic: str) -> str:
        return (f'<tr class="{p.finding.severity}" data-code="{p.finding.code}" data-group="{e(group)}" '
                f'data-topic="{e(topic)}"><td class="sev">{e(p.finding.severity)}</td>'
                f'<td>{p.finding.code}</td><td>{e(group)}</td><td class="msg">{e(p.text)}</td>'
                f'<td class="msg">{e(p.evidence())}</td></tr>')

    rows = [row(disconnected_problem(report, d), d.group, d.topic) for d in report.disconnected]
    for group in report.connected.groups:
        for r in report.results(group):
            views = queue_views(report, r)
            rows += [row(p, group, r.topic) for p in problems(report, r, views)]
    live = ('<h2>Now <small>the problems of the connected clients, and what the brokers\' offsets say</small></h2>'
            + (f'<table class="findings live"><thead><tr><th>severity</th><th>code</th><th>group</th><th>problem</th>'
               f'<th>the brokers\' view</th></tr></thead><tbody>{"".join(rows)}</tbody></table>' if rows
               else '<p class="none">No orphaned or doubly held queue now.</p>'))
    engine = f"live: {report.snapshot.source}, {words.count(len(report.connected.groups), 'connected group')}"
    gone = report.disconnected_groups()
    if gone:
        engine += f", {words.count(len(gone), 'group')} with none connected"
    sim = report.sim if report.sim is not None else Simulation(Fleet(report.snapshot.source, (), (), ()), [])
    return render_html(sim, report.findings, report.counts, totals(sim), engine, extra=before + live,
                       title=f"status of {report.snapshot.source}")

"""What `rmqplan watch` knows between two reads, and the one place that decides what changed.

Each good read of the cluster (a `rmqplan.status_report.StatusReport`) is boiled down to one `GroupState` per
group: its connections' client ids, per topic the queues held by nobody and by several processes with the
messages behind on them, its findings, its dead letters and retries, and how many queues' offsets contradict the
allocation rmqplan computes. `changes` compares two reads' states: a client joined or left, a client id came to be
shared, queues lost their owner or got a second one (and back), another problem appeared or cleared, new dead
letters; each change is one `Change`, one line on standard output.

`WatchState` holds the last good read's states (for `/metrics`) and its page, rendered when the read is taken (the
report itself is let go: the next read is made beside the page, not beside a second report), whether the last
read succeeded and why not, and the latest changes (a bounded list: the page shows them). It is replaced, not
grown, by each read: what it holds is bounded by the cluster's size, never by how long the service runs.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Iterable, Optional

from rmqplan.model.fleet import Queue
from rmqplan.model.routes import is_retry_topic
from rmqplan.model.words import count, noun
from rmqplan.report.findings import format_queues
from rmqplan.sources.cluster import DLQ_PREFIX, RETRY_PREFIX
from rmqplan.status_report import CONTRADICTS, StatusReport, queue_views
from rmqlint.printable import printable

RECENT_CHANGES = 50  # the changes the page lists
_HEAD = "<!-- rmqplan watch: the state's head -->"  # where each serving of the page puts the changes and staleness


@dataclass(frozen=True)
class TopicState:
    queues: tuple[Queue, ...] = ()  # the readable queues the group reads
    orphaned: tuple[Queue, ...] = ()
    duplicated: tuple[Queue, ...] = ()
    orphaned_backlog: int = 0  # messages behind on them
    duplicated_backlog: int = 0
    holders: tuple[str, ...] = ()  # the client ids of the processes holding a duplicated queue


@dataclass(frozen=True)
class GroupState:
    group: str
    client_ids: tuple[str, ...] = ()  # one per connection, sorted: () for a group with none connected
    topics: dict = field(default_factory=dict)  # topic -> TopicState
    problems: dict = field(default_factory=dict)  # (code, topic or None) -> message, every finding of the group
    dead_letters: int = 0  # messages behind in %DLQ%<group>
    retries: int = 0  # messages behind in %RETRY%<group>
    contradicted: int = 0  # queues whose offsets contradict the allocation computed (with an earlier read)
    disagreeing: int = 0  # queues its processes' clients place apart (PLAN009: Go's and Java's code disagree)

    @property
    def shared_ids(self) -> dict[str, int]:
        """Client ids reported by more than one connection -> how many."""
        return {cid: n for cid, n in Counter(self.client_ids).items() if n > 1}


def _sum_backlog(progress, queues: Iterable[Queue]) -> int:
    if progress is None:
        return 0
    return sum(progress.queues[q].backlog for q in queues if q in progress.queues)


def group_states(report: StatusReport) -> dict[str, GroupState]:
    """One state per group that is connected or has none connected and offsets committed, in name order."""
    snap = report.snapshot
    out: dict[str, GroupState] = {}
    for group, consumer in snap.consumers.items():
        gone = [d for d in report.disconnected if d.group == group]
        if not consumer.connections and not gone:
            continue
        progress = snap.progress.get(group)
        topics: dict[str, TopicState] = {}
        contradicted = 0
        for r in report.results(group):
            cid = {p.instance: p.client_id for p in r.processes}
            doubled = sorted({cid[i] for i, share in r.assignment.items() for q in share if q in set(r.duplicated)})
            topics[r.topic] = TopicState(tuple(r.queues), tuple(r.orphaned), tuple(r.duplicated),
                                         _sum_backlog(progress, r.orphaned), _sum_backlog(progress, r.duplicated),
                                         tuple(doubled))
            if report.earlier is not None:
                contradicted += sum(1 for v in queue_views(report, r) if v.verdict.verdict == CONTRADICTS)
        for d in gone:
            topics[d.topic] = TopicState(tuple(d.queues), tuple(d.queues), (), _sum_backlog(progress, d.queues))
        queues = progress.queues if progress is not None else {}
        problems = {(f.code, f.topic): f.message for f in report.findings if f.group == group}
        out[group] = GroupState(
            group, tuple(sorted(consumer.client_ids)), topics, problems,
            dead_letters=_sum_backlog(progress, [q for q in queues if q.topic == DLQ_PREFIX + group]),
            retries=_sum_backlog(progress, [q for q in queues if q.topic == RETRY_PREFIX + group]),
            contradicted=contradicted,
            disagreeing=sum(len(f.queues or ()) for f in report.findings if f.group == group and f.code == "PLAN009"))
    return dict(sorted(out.items()))


# ---------------------------------------------------------------------------------------------------- changes


@dataclass(frozen=True)
class Change:
    at: float  # seconds since the epoch: when the read that saw it ended
    group: str
    what: str
    client_ids: tuple[str, ...] = ()

    def line(self) -> str:
        """`2026-11-28T10:15:02Z orders: client left: 10.0.0.7@1234#99 (2 connections now)`; names as
        `printable` shows them, each change on its line."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.at))
        ids = f" [client ids: {', '.join(self.client_ids)}]" if self.client_ids else ""
        return printable(f"{stamp} {self.group}: {self.what}{ids}")


_QUEUE_CODES = ("PLAN001", "PLAN002")  # said by the queues' own lines


def _queues(queues: Iterable[Queue], topic: str, singular: str = "", plural: str = "") -> str:
    """`queues broker-a: 2, 3 of T` and the verb that goes with it (`singular` or `plural`)."""
    qs = sorted(queues, key=lambda q: (q.broker, q.queue_id))
    verb = (singular if len(qs) == 1 else plural) if singular else ""
    return (f"{'retry ' if is_retry_topic(topic) else ''}{noun(len(qs), 'queue')} {format_queues(qs)} of {topic}"
            + (f" {verb}" if verb else ""))


def group_changes(before: Optional[GroupState], after: Optional[GroupState], at: float,
                  first: bool = False) -> list[Change]:
    """What changed in one group between two reads (`before` None: not seen, `after` None: gone). On the service's
    `first` read, only the problems are said, not every client that is there."""
    name = (after or before).group  # type: ignore[union-attr]
    old, new = before or GroupState(name), after or GroupState(name)
    out: list[Change] = []

    def say(what: str, ids: Iterable[str] = ()) -> None:
        out.append(Change(at, name, what, tuple(sorted(set(ids)))))

    now = f"{count(len(new.client_ids), 'connection')} now" if new.client_ids else "no consumer connected now"
    if not first:
        joined = Counter(new.client_ids) - Counter(old.client_ids)
        left = Counter(old.client_ids) - Counter(new.client_ids)
        for moved, verb in ((joined, "joined"), (left, "left")):
            n = sum(moved.values())
            if n:
                say(f"{'client' if n == 1 else count(n, 'client')} {verb} ({now})", moved)
    for cid, n in new.shared_ids.items():
        if old.shared_ids.get(cid, 0) < n:
            say(f"one client id is reported by {n} connections (PLAN001/PLAN002: they take the same share)", [cid])
    for cid in old.shared_ids:
        if cid not in new.shared_ids:
            say("a client id is reported by one connection again", [cid])
    shared = list(new.shared_ids)
    for topic in sorted(set(old.topics) | set(new.topics)):
        a, b = old.topics.get(topic, TopicState()), new.topics.get(topic, TopicState())
        if a.queues and b.queues and not first:
            if set(a.queues) - set(b.queues):
                say(f"{_queues(set(a.queues) - set(b.queues), topic, 'left', 'left')} the route (a broker down or "
                    "made unreadable, or fewer read queues)")
            if set(b.queues) - set(a.queues):
                say(f"{_queues(set(b.queues) - set(a.queues), topic, 'joined', 'joined')} the route")
        lost = set(b.orphaned) - set(a.orphaned)
        if lost:
            why = "no consumer of the group is connected" if not new.client_ids else \
                f"no process holds {'it' if len(lost) == 1 else 'them'}"
            ids = shared or (list(old.client_ids) if not new.client_ids else [])
            say(f"PLAN001 {_queues(lost, topic, 'lost its owner', 'lost their owner')} ({why}; "
                f"{b.orphaned_backlog:,} messages behind on the orphaned queues)", ids)
        found = (set(a.orphaned) - set(b.orphaned)) & set(b.queues)  # not those that left the route
        if found:
            say(f"{_queues(found, topic, 'has an owner again', 'have an owner again')}")
        doubled = set(b.duplicated) - set(a.duplicated)
        if doubled:
            say(f"PLAN002 {_queues(doubled, topic, 'got a second owner', 'got a second owner')} "
                f"({b.duplicated_backlog:,} messages behind on the doubly held queues)", b.holders)
        single = (set(a.duplicated) - set(b.duplicated)) & set(b.queues)
        if single:
            say(f"{_queues(single, topic, 'has one owner again', 'have one owner again')}")
    for key in new.problems.keys() - old.problems.keys():
        if key[0] not in _QUEUE_CODES:
            say(f"{key[0]} appeared: {new.problems[key]}")
    for key in old.problems.keys() - new.problems.keys():
        if key[0] not in _QUEUE_CODES:
            say(f"{key[0]} cleared{' on ' + key[1] if key[1] else ''}")
    if new.dead_letters > old.dead_letters and not first:
        fresh = new.dead_letters - old.dead_letters
        say(f"{count(fresh, 'new dead letter', separators=True)} in {DLQ_PREFIX}{name} ({new.dead_letters:,} there)")
    return out


def changes(before: Optional[dict[str, GroupState]], after: dict[str, GroupState], at: float) -> list[Change]:
    """Every change between two reads' states, by group; `before` None for the first read."""
    first = before is None
    old = before or {}
    out: list[Change] = []
    for group in sorted(set(old) | set(after)):
        out += group_changes(old.get(group), after.get(group), at, first)
    return out


# ------------------------------------------------------------------------------------------------------ state


class WatchState:
    """The last good read, the last read's outcome, and the latest changes; read by the HTTP threads while the
    read loop replaces it (under one lock, each read's values swapped in at once)."""

    def __init__(self, source: str, interval: float):
        self.source, self.interval = source, interval
        self._lock = threading.Lock()
        self.groups: Optional[dict[str, GroupState]] = None  # None until the first good read
        self.body: Optional[str] = None  # the last good read's page, `_HEAD` where the changes go
        self.brokers = 0  # master brokers in the last good read
        self.last_good: Optional[float] = None  # when the last good read ended (seconds since the epoch)
        self.last_attempt: Optional[float] = None
        self.fault: Optional[str] = None  # why the last read failed; None when it succeeded
        self.recent: deque[Change] = deque(maxlen=RECENT_CHANGES)
        self.latest: list[Change] = []  # what the last good read changed
        self._page: Optional[tuple[int, str]] = None  # (id of the read it shows, the HTML)
        self._reads = 0

    def succeeded(self, report: StatusReport, at: float) -> list[Change]:
        """A good read: its states replace the last ones; returns what changed."""
        from rmqplan.status_report import render_status_html

        states = group_states(report)
        found = changes(self.groups, states, at)
        body = render_status_html(report, before=_HEAD)
        brokers = len({b.name for b in report.snapshot.brokers if b.broker_id == 0}) or \
            len({b.name for b in report.snapshot.brokers})
        with self._lock:
            self.groups, self.body, self.last_good, self.last_attempt, self.fault = states, body, at, at, None
            self.brokers = brokers
            self.recent.extend(found)
            self.latest = found
            self._reads += 1
        return found

    def failed(self, fault: str, at: float) -> bool:
        """A read that failed: the last good read stays, marked stale. True when this fault is new (a line to
        log), False when the same fault goes on."""
        with self._lock:
            new = fault != self.fault
            self.fault, self.last_attempt = fault, at
            self._reads += 1
        return new

    def view(self):
        """A consistent look at the state for one scrape: (groups, last_good, fault)."""
        with self._lock:
            return self.groups, self.last_good, self.fault

    def page(self) -> str:
        """The report page of the last good read, with the changes on top and, when the last read failed, a line
        saying the data is stale; made once per read and state."""
        from rmqplan.report.html import e

        with self._lock:
            key = (self._reads, self.fault)
            if self._page is not None and self._page[0] == hash(key):
                return self._page[1]
            body, last_good, fault, recent = self.body, self.last_good, self.fault, list(self.recent)
            latest = len(self.latest)
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(last_good)) if last_good else "never"
        head = [f'<p class="engine">rmqplan watch: {e(self.source)}, read every {self.interval:g} s; last good read '
                f'{when}</p>']
        if fault:
            head.append(f'<p class="stale" style="color:#b00;font-weight:bold">Stale: the last read failed: '
                        f'{e(fault)}. Showing the read of {when}.</p>')
        now = [c.line() for c in recent[len(recent) - latest:]] if latest else []
        before = [c.line() for c in reversed(recent[:len(recent) - latest])]
        head.append('<h2>What changed <small>since the previous read</small></h2>'
                    + (f'<pre class="changes">{e(chr(10).join(now))}</pre>' if now
                       else '<p class="none">Nothing.</p>'))
        head.append('<h2>Earlier changes <small>the latest first</small></h2>'
                    + (f'<pre class="changes">{e(chr(10).join(before))}</pre>' if before
                       else '<p class="none">None since the service started.</p>'))
        if body is None:
            from rmqplan.report.html import CSS

            html = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>rmqplan watch</title>'
                    f'<style>{CSS}</style></head><body><header><h1>rmqplan watch <small>{e(self.source)}</small>'
                    f'</h1></header>{"".join(head)}<p class="none">No good read of the cluster yet.</p></body></html>\n')
        else:
            html = body.replace(_HEAD, "".join(head), 1)
        with self._lock:
            self._page = (hash(key), html)
        return html

"""`rmqplan watch`'s `/metrics`: the Prometheus text format, written by the Prometheus client library.

The groups' series come from a custom collector (`WatchCollector`) that reads the state at each scrape, the way
exporters expose what they read from elsewhere: a group or topic that goes away leaves no series behind, and the
series are what the last good read said (`rmqplan_watch_last_read_success` 0 marks them stale). Labels: `group`,
`topic` and `code` (a plan code), which the cluster and the product bound; never a client id or a queue, which
change with every restart. The service's own reads are a histogram and counters of the library, and the process's
memory and CPU come from its process collector (`process_resident_memory_bytes`, ...).

| metric | labels | what |
|---|---|---|
| rmqplan_queues | group, topic | readable queues of the topic the group reads |
| rmqplan_orphaned_queues | group, topic | queues held by no process (PLAN001) |
| rmqplan_duplicated_queues | group, topic | queues held by two or more processes (PLAN002) |
| rmqplan_orphaned_backlog_messages | group, topic | messages behind on the orphaned queues |
| rmqplan_duplicated_backlog_messages | group, topic | messages behind on the doubly held queues |
| rmqplan_group_connections | group | connected clients, one per connection |
| rmqplan_group_shared_client_ids | group | client ids reported by more than one connection |
| rmqplan_group_contradicted_queues | group | queues whose offsets contradict the allocation computed |
| rmqplan_group_dead_letter_messages | group | messages behind in %DLQ%group |
| rmqplan_group_retry_messages | group | messages behind in %RETRY%group |
| rmqplan_group_findings | group, code | the group's findings of each plan code now |
| rmqplan_brokers | | master brokers in the last good read |
| rmqplan_watch_last_read_success | | 1 when the last read succeeded, 0 when it failed (the series are stale) |
| rmqplan_watch_last_good_read_timestamp_seconds | | when the last good read ended |
| rmqplan_watch_last_good_read_age_seconds | | seconds since then, at the scrape |
| rmqplan_watch_read_duration_seconds | | histogram of the time a read takes (good or not) |
| rmqplan_watch_reads_total | outcome | reads, by outcome: ok or failed |
| rmqplan_watch_changes_total | | changes seen (one line each on standard output) |
"""

from __future__ import annotations

import time
from typing import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from rmqplan.watch_state import WatchState

# A read of a few groups takes milliseconds, of thousands of groups seconds; the deadline bounds it (60 s default).
READ_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class WatchCollector(Collector):
    def __init__(self, state: WatchState):
        self.state = state

    def collect(self) -> Iterator[GaugeMetricFamily]:
        groups, last_good, fault = self.state.view()
        yield GaugeMetricFamily("rmqplan_watch_last_read_success",
                                "Whether the last read of the cluster succeeded (1) or failed (0: the other series "
                                "are those of the last good read, stale)", value=0 if fault or groups is None else 1)
        if last_good is not None:
            yield GaugeMetricFamily("rmqplan_watch_last_good_read_timestamp_seconds",
                                    "When the last good read of the cluster ended, in seconds since the epoch",
                                    value=last_good)
            yield GaugeMetricFamily("rmqplan_watch_last_good_read_age_seconds",
                                    "Seconds since the last good read of the cluster ended", value=time.time() - last_good)
        if groups is None:
            return
        yield GaugeMetricFamily("rmqplan_brokers", "Master brokers of the cluster in the last good read",
                                value=self.state.brokers)
        per_topic = {
            "rmqplan_queues": ("Readable queues of the topic that the group reads", lambda t: len(t.queues)),
            "rmqplan_orphaned_queues": ("Queues of the topic held by no process of the group (PLAN001): their "
                                        "messages pile up unread", lambda t: len(t.orphaned)),
            "rmqplan_duplicated_queues": ("Queues of the topic held by two or more processes of the group (PLAN002): "
                                          "their messages are consumed twice", lambda t: len(t.duplicated)),
            "rmqplan_orphaned_backlog_messages": ("Messages behind on the group's orphaned queues of the topic",
                                                  lambda t: t.orphaned_backlog),
            "rmqplan_duplicated_backlog_messages": ("Messages behind on the group's doubly held queues of the topic",
                                                    lambda t: t.duplicated_backlog),
        }
        for name, (doc, value) in per_topic.items():
            family = GaugeMetricFamily(name, doc, labels=("group", "topic"))
            for g in groups.values():
                for topic, t in g.topics.items():
                    family.add_metric((g.group, topic), value(t))
            yield family
        per_group = {
            "rmqplan_group_connections": ("Connected clients of the group, one per connection",
                                          lambda g: len(g.client_ids)),
            "rmqplan_group_shared_client_ids": ("Client ids of the group that more than one connection reports (the "
                                                "processes take the same share of the queues)",
                                                lambda g: len(g.shared_ids)),
            "rmqplan_group_contradicted_queues": ("Queues of the group whose consume offsets contradict the "
                                                  "allocation rmqplan computes with the strategy told or assumed "
                                                  "(the clients run another, or a consumer is stuck), against a "
                                                  "read at least 6 s before", lambda g: g.contradicted),
            "rmqplan_group_disagreeing_queues": ("Queues the group's processes place apart because their clients "
                                                 "compute the strategy differently (PLAN009: Go's and Java's "
                                                 "CONSISTENT_HASH, or MACHINE_ROOM across releases): orphaned or "
                                                 "consumed twice with unique client ids", lambda g: g.disagreeing),
            "rmqplan_group_dead_letter_messages": ("Messages in the group's dead-letter topic %DLQ%group that it has "
                                                   "not consumed: they exhausted their retries, and nothing reads "
                                                   "them unless someone acts", lambda g: g.dead_letters),
            "rmqplan_group_retry_messages": ("Messages behind in the group's retry topic %RETRY%group",
                                             lambda g: g.retries),
        }
        for name, (doc, value) in per_group.items():
            family = GaugeMetricFamily(name, doc, labels=("group",))
            for g in groups.values():
                family.add_metric((g.group,), value(g))
            yield family
        findings = GaugeMetricFamily("rmqplan_group_findings", "Findings of the group now, by plan code "
                                     "(rmqplan explain CODE)", labels=("group", "code"))
        for g in groups.values():
            codes: dict[str, int] = {}
            for code, _topic in g.problems:
                codes[code] = codes.get(code, 0) + 1
            for code, n in sorted(codes.items()):
                findings.add_metric((g.group, code), n)
        yield findings


class WatchMetrics:
    """The registry `/metrics` serves: the collector above, the reads' histogram and counters, the process."""

    def __init__(self, state: WatchState):
        from prometheus_client import GCCollector, PlatformCollector, ProcessCollector, disable_created_metrics

        disable_created_metrics()  # no `_created` series beside the counters: the text format's readers ignore them
        self.registry = CollectorRegistry()
        self.registry.register(WatchCollector(state))
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.read_seconds = Histogram("rmqplan_watch_read_duration_seconds", "Time a read of the cluster takes, "
                                      "good or not", buckets=READ_BUCKETS, registry=self.registry)
        self.reads = Counter("rmqplan_watch_reads", "Reads of the cluster, by outcome", ["outcome"],
                             registry=self.registry)
        self.reads.labels("ok")
        self.reads.labels("failed")
        self.changes = Counter("rmqplan_watch_changes", "Changes seen between reads (one line each on standard "
                               "output)", registry=self.registry)

"""The fleet of what is connected to a cluster now (`rmqplan fleet --namesrv ADDR` or `--cluster DIR` without
code, and `rmqplan status`): every group with connected consumers, each process by the client id it reports.

- A group is modelled from its connections (`rmqplan.sources.cluster.ConsumerConnection`): its message model,
  its subscriptions (the `%RETRY%` subscription every clustering consumer adds is the planner's own retry topic,
  not a subscription), one instance set per client id with as many processes as connections report it.
- The strategy: the broker does not know which one a client runs. The one told (`--strategy GROUP=NAME`, or
  `--strategy NAME` for every group), else AllocateMessageQueueAveragely, the client's default, marked unknown.
  Strategies that allocate from data the client is given at run time (CONFIG, MACHINE_ROOM...) cannot be told.
- Pop consumers (CONSUME_POP, 5.x) are left out with a line: the broker assigns their queues, not a rebalance.
- Brokers and topics: the routes of the groups' topics (`rmqplan.sources.fleet_entries.cluster_entries`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from rmqplan.model import words
from rmqplan.allocation.strategies import ParamError, canonical_name, parse_strategy, strategy_of
from rmqplan.sources.cluster import ClusterSnapshot, ConsumerConnection
from rmqplan.sources.fleet_entries import backlog_entry, cluster_entries, live_instances
from rmqplan.sources.fleet_writer import (
    PlannedBroker,
    PlannedFleet,
    PlannedGroup,
    PlannedSubscription,
    PlannedTopic,
    Sourced,
)

DEFAULT_STRATEGY = "AVG"
ALL_GROUPS = ""  # the key of `--strategy NAME` (no GROUP=): every group not named otherwise
# Strategies whose allocation comes from data the client is given at run time: nothing on the command line can say it.
RUN_TIME_CONFIGURED = ("CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY")
POP = "CONSUME_POP"


class StrategyOptionError(ValueError):
    """A `--strategy` value rmqplan cannot use: one line."""


@dataclass(frozen=True)
class ToldStrategy:
    name: str  # canonical
    params: Mapping[str, int]
    text: str  # as given


def parse_strategy_option(values: list[str]) -> dict[str, ToldStrategy]:
    """`--strategy GROUP=NAME[:N]` (repeatable; `NAME[:N]` alone for every group). N is the strategy's whole-number
    parameter (CONSISTENT_HASH's virtual nodes)."""
    out: dict[str, ToldStrategy] = {}
    for text in values:
        group, sep, spec = text.rpartition("=")
        if sep and not group:
            raise StrategyOptionError(f"--strategy {text!r}: no group before '='")
        name_text, colon, number = spec.partition(":")
        name = canonical_name(name_text.strip())
        if name is None:
            raise StrategyOptionError(f"--strategy {text!r}: unknown strategy {name_text!r} (AVG, AVG_BY_CIRCLE, "
                                      "CONSISTENT_HASH, or a Java class name)")
        if name in RUN_TIME_CONFIGURED:
            raise StrategyOptionError(f"--strategy {text!r}: {name} allocates from what the client is given at run "
                                      "time (a queue list, machine rooms): write the fleet with --namesrv, complete "
                                      "it by hand and simulate it")
        params = {}
        if colon:
            ints = [p for p in strategy_of(name).params if isinstance(p.default, int)]
            if not ints or not number.strip().isdigit():
                raise StrategyOptionError(f"--strategy {text!r}: {name} takes no whole-number parameter"
                                          if not ints else f"--strategy {text!r}: {number!r} is not a whole number")
            params[ints[0].key] = int(number)
            try:
                parse_strategy(name, params)
            except ParamError as e:
                raise StrategyOptionError(f"--strategy {text!r}: {e}") from None
        if group.strip() in out:
            raise StrategyOptionError(f"--strategy: group {group.strip() or '(every group)'} is named twice")
        out[group.strip()] = ToldStrategy(name, params, text)
    return out


@dataclass
class FleetFromCluster:
    planned: PlannedFleet
    groups: dict[str, ConsumerConnection]  # the groups written, with what the cluster said of them
    strategies: dict[str, Optional[ToldStrategy]]  # the strategy told for each group; None: the default, assumed
    problems: list[str] = field(default_factory=list)


def fleet_from_cluster(snapshot: ClusterSnapshot, told: Optional[Mapping[str, ToldStrategy]] = None,
                       only: Optional[list[str]] = None) -> FleetFromCluster:
    """The fleet of the groups connected in `snapshot` (of `only` when given), in name order."""
    told = dict(told or {})
    problems: list[str] = []
    groups: list[PlannedGroup] = []
    written: dict[str, ConsumerConnection] = {}
    strategies: dict[str, Optional[ToldStrategy]] = {}
    topics: list[str] = []
    for name, consumer in sorted(snapshot.consumers.items()):
        if only is not None and name not in only:
            continue
        if not consumer.connections:
            continue
        if consumer.consume_type == POP:
            problems.append(f"{consumer.origin}: group {name} pops messages (CONSUME_POP): the broker assigns its "
                            "queues, not a client rebalance: left out")
            continue
        subs = [s for s in consumer.subscriptions if not s.retry]
        if not subs:
            problems.append(f"{consumer.origin}: group {name} subscribes to no topic: left out")
            continue
        model_text = (consumer.message_model or "CLUSTERING").lower()
        model_origin = consumer.message_model_origin or consumer.origin
        model = Sourced.at(model_text, model_origin, "messageModel") if consumer.message_model else \
            Sourced.unknown("clustering", f"{consumer.origin}: no message model said: the default")
        choice = told.get(name, told.get(ALL_GROUPS))
        strategies[name] = choice
        if choice is None:
            strategy = Sourced.unknown(DEFAULT_STRATEGY, "the broker does not know a client's strategy: "
                                                         "AllocateMessageQueueAveragely, the client's default "
                                                         "(--strategy GROUP=NAME to say)")
        else:
            strategy = Sourced(choice.name, f"--strategy {choice.text}")
        params = {k: Sourced(v, f"--strategy {choice.text}") for k, v in (choice.params if choice else {}).items()}
        planned = PlannedGroup(Sourced(name, f"{consumer.origin}"), model, strategy,
                               [PlannedSubscription(s.topic, s.expression or "*", Sourced.at("", s.origin))
                                for s in subs],
                               live_instances(consumer), params=params,
                               note=f"group {name}: {words.count(len(consumer.connections), 'connection')} now"
                                    + (f", {consumer.consume_type}" if consumer.consume_type else ""))
        backlog = backlog_entry(snapshot.progress.get(name), [s.topic for s in subs])
        if backlog is not None:
            planned.backlog = backlog
        groups.append(planned)
        written[name] = consumer
        topics += [s.topic for s in subs if s.topic not in topics]
    for name in told:
        if name != ALL_GROUPS and name not in written:
            problems.append(f"--strategy {told[name].text}: group {name} is not connected now")
    brokers, planned_topics = cluster_entries(snapshot, topics=topics)
    if not brokers:
        brokers = [PlannedBroker(Sourced.unknown("broker-a", "no broker in the cluster's answers: one"))]
    have = {t.name.value for t in planned_topics}
    for topic in topics:
        if topic not in have:  # the clients get no route either: they read nothing of it
            why = f"{snapshot.missing_topics.get(topic) or snapshot.source}: no route"
            planned_topics.append(PlannedTopic(Sourced(topic, why), Sourced(0, f"{why}: no queue to read")))
            readers = [g.name.value for g in groups if any(s.topic == topic for s in g.subscriptions)]
            problems.append(f"{why} for topic {topic}, which {words.noun(len(readers), 'group')} {', '.join(readers)} "
                            f"{words.noun(len(readers), 'subscribes', 'subscribe')} to: nothing of it is consumed")
    header = [f"Written by rmqplan fleet from what is connected to {snapshot.source} now."]
    fleet = PlannedFleet(brokers, planned_topics, groups, header=header)
    return FleetFromCluster(fleet, written, strategies, problems)

"""The strategy registry: every consumer reads it, and a new strategy is one class that runs everywhere."""

from __future__ import annotations

import io
import json

import pytest

from rmqplan.engines import local
from rmqplan.allocate import run as run_allocate
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.model.fleet import Queue, StrategySpec
from rmqplan.allocation.strategies import (
    ParamError,
    allocate,
    allocate_all,
    canonical_name,
    generatable_names,
    names,
    parse_strategy,
    register,
    strategy_of,
    unregister,
)
from rmqplan.allocation.strategies.base import Strategy
from tests.planner.toy_strategy import Reversed


@pytest.fixture
def reversed_strategy():
    register(Reversed)
    yield strategy_of("REVERSED")
    unregister("REVERSED")


def test_every_module_of_the_package_is_registered_with_its_java_class():
    assert set(names()) == {"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM",
                            "MACHINE_ROOM_NEARBY"}
    assert set(generatable_names()) == {"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"}
    for name in names():
        java = strategy_of(name).java_class
        assert canonical_name(java) == canonical_name(f"org.apache.rocketmq.client.consumer.rebalance.{java}") == name


def test_names_and_parameters_parse_to_one_spec():
    assert parse_strategy("CONSISTENT_HASH") == StrategySpec("CONSISTENT_HASH", virtual_nodes=10)
    assert parse_strategy("AVG", {"virtual_nodes": 3, "queues": [["T", "b", 0]]}) == StrategySpec("AVG")
    assert parse_strategy("MACHINE_ROOM", {"consumer_idcs": ["sh", "hz", "sh"]}).consumer_idcs == ("hz", "sh")
    nearby = parse_strategy("AllocateMachineRoomNearby-AllocateMessageQueueConsistentHash", {"virtual_nodes": 4})
    assert nearby == StrategySpec("MACHINE_ROOM_NEARBY", nearby=StrategySpec("CONSISTENT_HASH", virtual_nodes=4))
    with pytest.raises(ParamError) as e:
        parse_strategy("CONFIG", {"queues": [["T", "b", 0], ["T", "b", -1]]})
    assert (e.value.key, e.value.at("groups[0].queues")) == (
        "queues", "groups[0].queues[1]: expected [topic, broker, queueId >= 0], got ['T', 'b', -1]")


def test_registering_twice_or_a_non_strategy_is_refused(reversed_strategy):
    with pytest.raises(ValueError, match="already registered"):
        register(Reversed)
    with pytest.raises(TypeError):
        register(dict)  # type: ignore[arg-type]

    class Clash(Strategy):
        name = "CLASH"
        java_class = "AllocateMessageQueueAveragely"

    with pytest.raises(ValueError, match="Java class name"):
        register(Clash)


def test_a_registered_strategy_runs_in_allocate(reversed_strategy, tmp_path):
    cids = ["c", "a", "b"]
    queues = [Queue("T", "b", i) for i in range(5)]
    assert allocate(StrategySpec("REVERSED"), queues, cids, "c") == queues[:2]  # last in Java order, first block
    assert allocate_all(StrategySpec("REVERSED"), queues, cids) == {"a": queues[4:], "b": queues[2:4],
                                                                   "c": queues[:2]}
    case = {"id": 1, "strategy": "AllocateMessageQueueReversed", "queues": [list(q) for q in queues],
            "client_ids": cids}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(case) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert run_allocate(str(path), out, err) == 0, err.getvalue()
    assert json.loads(out.getvalue())["allocation"]["c"] == [["T", "b", 0], ["T", "b", 1]]


FLEET = """
[[brokers]]
name = "b"
[[topics]]
name = "T"
read_queues = 5
[[groups]]
name = "g"
strategy = "REVERSED"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
"""


def test_a_registered_strategy_runs_in_the_fleet_and_the_local_engine(reversed_strategy):
    fleet = parse_fleet_text(FLEET, "fleet.toml")
    assert fleet.groups[0].strategy == StrategySpec("REVERSED")
    main = local.simulate(fleet).results[0]
    held = {inst: [q.queue_id for q in share] for inst, share in main.assignment.items()}
    assert held == {"10.0.0.1#1": [4], "10.0.0.2#1": [2, 3], "10.0.0.3#1": [0, 1]}
    assert "REVERSED" in generatable_names()


def test_a_registered_strategy_runs_on_both_engines_and_in_generated_fleets(reversed_strategy, spark, tmp_path):
    from rmqplan.model.simulation import SimulateOptions
    from rmqplan.engines.spark import simulate as spark_simulate

    fleet = parse_fleet_text(FLEET + '[generate]\ngroups = 40\nseed = 2\nstrategies = ["REVERSED", "AVG"]\n',
                             "fleet.toml")
    expected = local.simulate(fleet)
    got = spark_simulate(fleet, SimulateOptions())
    assert [(r.group, r.topic, r.assignment) for r in got.results] == \
           [(r.group, r.topic, r.assignment) for r in expected.results]
    assert got.totals == expected.totals
    drawn = {r.group for r in expected.results for p in r.processes if p.strategy.name == "REVERSED"}
    assert "g" in drawn and len(drawn) > 5  # the hand-written group and generated groups drew it


def test_go_forms_are_registered_apart_and_a_strategy_without_one_is_refused_for_go(reversed_strategy):
    """rocketmq-client-go's forms are not new strategies: the names stay the Java ones, the Go function names are
    aliases, and a Go process of a strategy Go has no form of (a plug-in) is a fleet error at its key path."""
    from rmqplan.allocation.strategies import for_process, has_form
    from rmqplan.sources.fleet_file import FleetError

    assert "REVERSED" in names() and not has_form("go", "REVERSED")
    assert all(has_form("go", n) for n in names() if n != "REVERSED")
    assert canonical_name("AllocateByConsistentHash") == "CONSISTENT_HASH"
    assert canonical_name("consumer.AllocateByMachineRoom") == "MACHINE_ROOM"
    go = for_process(parse_strategy("CONSISTENT_HASH"), "go", "2.1.2")
    assert go.client == "go" and strategy_of(go).client == "go" and strategy_of("CONSISTENT_HASH").client == "java"
    with pytest.raises(ValueError, match="the go client has no strategy REVERSED"):
        for_process(parse_strategy("REVERSED"), "go", "2.1.2")
    with pytest.raises(FleetError) as e:
        parse_fleet_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 4\n[[groups]]\nname = "g"\n'
                         'strategy = "REVERSED"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\n'
                         'hosts = ["h"]\nclient = "go"\n', "fleet.toml")
    assert e.value.errors == ["fleet.toml: groups[0].instances[0].client: rocketmq-client-go has no strategy "
                              "REVERSED (it has AVG, AVG_BY_CIRCLE, CONFIG, CONSISTENT_HASH, MACHINE_ROOM, "
                              "MACHINE_ROOM_NEARBY)"]

"""A topic still routed but with no readable queue (its broker write-only, its read queues 0): the client's
subscribe info is an empty set, so `RebalanceImpl.rebalanceByTopic` calls the strategy with an empty mqAll;
`check()` throws "mqAll is null or mqAll empty" and the rebalance returns before the process queue table changes.
A running process keeps what it held (no move), a starting one holds nothing; CONFIG, which does not check, still
returns its list; MACHINE_ROOM before 4.9.3 (no check) gives nothing; broadcasting holds nothing (the client
updates its table with the empty set). Both engines, and --compare-strategies, say the same."""

from __future__ import annotations

import json

from rmqplan.engines import local
from rmqplan.engines.spark import simulate_hand_written
from rmqplan.model.fleet import Queue
from rmqplan.report.findings import find
from rmqplan.report.render import churn
from rmqplan.sources.fleet_file import parse_fleet_text
from tests.planner.test_engines_agree import _comparable

NO_QUEUE = "IllegalArgumentException: mqAll is null or mqAll empty"

FLEET = """
[[brokers]]
name = "broker-a"
[[brokers]]
name = "broker-b"
[[topics]]
name = "T"
read_queues = 4
brokers = ["broker-a"]
[[topics]]
name = "U"
read_queues = 2
brokers = ["broker-b"]
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1", "10.0.0.2"]
[[groups]]
name = "cfg"
strategy = "CONFIG"
queues = [["T", "broker-a", 3]]
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.1.1"]
[[groups]]
name = "room"
strategy = "MACHINE_ROOM"
consumer_idcs = ["hz"]
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.2.1"]
client_version = "4.5.1"
[[groups]]
name = "all"
model = "broadcasting"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.3.1"]
[[groups]]
name = "other"
subscriptions = [{ topic = "U" }]
[[groups.instances]]
hosts = ["10.0.4.1"]

[[scenarios]]
name = "write-only"
broker_perm = { "broker-a" = "w" }
group = "g"
add_instances = [{ hosts = ["10.0.0.3"] }]

[[scenarios]]
name = "no-read-queues"
set_queues = [{ topic = "T", read_queues = 0, write_queues = 4 }]
"""


def _sim():
    return local.simulate(parse_fleet_text(FLEET, "fleet.toml"))


def _by_key(results):
    return {(r.scenario, r.group, r.topic): r for r in results}


def _ids(queues) -> list[tuple[str, int]]:
    return [(q.broker, q.queue_id) for q in queues]


def test_running_processes_keep_their_queues_and_nothing_moves():
    sim = _sim()
    rs = _by_key(sim.results)
    before = rs[("baseline", "g", "T")]
    assert _ids(before.assignment["10.0.0.1#1"]) == [("broker-a", 0), ("broker-a", 1)]
    for scenario in ("write-only", "no-read-queues"):
        after = rs[(scenario, "g", "T")]
        assert after.queues == [] and after.orphaned == [] and after.moved == [] and after.idle == []
        kept = {i: q for i, q in after.assignment.items() if i != "10.0.0.3#1"}
        assert kept == before.assignment
        assert set(after.errored) == set(after.assignment) and set(after.errored.values()) == {NO_QUEUE}
        assert all(not r.moves for s in sim.steps[scenario] for r in s.results if r.group == "g")
    # the retry topic, on broker-a too, fails the same way when the broker is write-only (not for 0 read queues
    # of T: the retry topic keeps its own queue)
    retry = rs[("write-only", "g", "%RETRY%g")]
    assert set(retry.errored.values()) == {NO_QUEUE}
    assert {i: q for i, q in retry.assignment.items() if i != "10.0.0.3#1"} == rs[("baseline", "g", "%RETRY%g")].assignment
    assert rs[("no-read-queues", "g", "%RETRY%g")].errored == {}
    # the process that starts while the broker is write-only never succeeds: it holds nothing
    assert rs[("write-only", "g", "T")].assignment["10.0.0.3#1"] == []
    # a group whose topic stays readable is not part of it
    assert ("write-only", "other", "U") not in rs
    # what changes owner is the broadcasting process's table only (it empties: 4 queues)
    changes = {c["name"]: c["moved_queues"] for c in churn(sim)}
    assert changes == {"write-only": 4, "no-read-queues": 4}
    assert all(r.moved == [] for r in sim.results if r.scenario != "baseline" and r.group != "all")


def test_strategies_that_do_not_check_and_broadcasting():
    rs = _by_key(_sim().results)
    for scenario in ("write-only", "no-read-queues"):
        # CONFIG returns its list whatever mqAll is: the listed queue stays in the table
        cfg = rs[(scenario, "cfg", "T")]
        assert cfg.errored == {} and cfg.assignment == {"10.0.1.1#1": [Queue("T", "broker-a", 3)]}
        # MACHINE_ROOM of 4.5.1 runs no check: an empty mqAll gives nothing, without a failure
        room = rs[(scenario, "room", "T")]
        assert room.errored == {} and room.assignment == {"10.0.2.1#1": []}
        # broadcasting: the empty set replaces the table
        everyone = rs[(scenario, "all", "T")]
        assert everyone.errored == {} and everyone.assignment == {"10.0.3.1#1": []}
        assert [p.instance for p in everyone.idle] == ["10.0.3.1#1"]


def test_one_finding_per_topic_says_the_queues_are_kept_and_not_pulled():
    findings = [f for f in find(_sim()) if f.scenario == "write-only" and f.group == "g"]
    assert [(f.code, f.topic) for f in findings] == [("PLAN005", "T"), ("PLAN005", "%RETRY%g")]
    t = findings[0].message
    assert t.startswith("T has no readable queue, so the rebalance of T fails for 3 processes of group g")
    assert NO_QUEUE in t and "10.0.0.1#1, 10.0.0.2#1 keep the 4 queues they held but cannot pull them" in t
    assert t.endswith("10.0.0.3#1 holds nothing")


def test_a_topic_unreadable_from_the_start_fails_and_holds_nothing():
    text = FLEET.replace('name = "broker-a"', 'name = "broker-a"\nperm = "w"', 1).split("[[scenarios]]")[0]
    sim = local.simulate(parse_fleet_text(text, "fleet.toml"))
    r = _by_key(sim.results)[("baseline", "g", "T")]
    assert r.assignment == {"10.0.0.1#1": [], "10.0.0.2#1": []} and r.idle == []
    assert set(r.errored.values()) == {NO_QUEUE}
    codes = [(f.code, f.topic) for f in find(sim) if f.group in ("g", None)]
    assert ("PLAN003", "T") not in codes and ("PLAN005", "T") in codes and ("PLAN004", "T") in codes
    message = next(f.message for f in find(sim) if f.code == "PLAN005" and f.topic == "T")
    assert message.endswith(": they hold nothing")


def test_the_spark_engine_agrees(spark):
    fleet = parse_fleet_text(FLEET, "fleet.toml")
    expected = local.simulate(fleet)
    got = simulate_hand_written(spark, fleet)
    assert _comparable(got) == _comparable(expected)


def test_compare_strategies_counts_kept_queues_as_no_move(tmp_path, capsys):
    from rmqplan.cli import run

    path = tmp_path / "fleet.toml"
    path.write_text(FLEET)
    assert run(["simulate", "--fleet", str(path), "--compare-strategies", "--format", "json"], __import__("sys").stdout,
               __import__("sys").stderr) == 1  # PLAN004, PLAN005: errors
    rows = {(c["group"], c["scenario"]): c for c in json.loads(capsys.readouterr().out)["strategies"]}
    for scenario, failed in (("write-only", 6), ("no-read-queues", 2)):  # T, and the retry topic when write-only
        own = next(s for s in rows[("g", scenario)]["strategies"] if s["own"])
        assert (own["strategy"], own["moves"], own["orphaned"], own["failed"]) == ("AVG", 0, 0, failed)


def test_the_text_report_shows_the_kept_queues(tmp_path, capsys):
    from rmqplan.cli import run

    path = tmp_path / "fleet.toml"
    path.write_text(FLEET)
    run(["simulate", "--fleet", str(path), "--details"], __import__("sys").stdout, __import__("sys").stderr)
    out = capsys.readouterr().out
    scenario = out[out.index("scenario write-only"):]
    assert f"broker-a: 0, 1  (kept: rebalance fails: {NO_QUEUE})" in scenario
    assert "idle 0, failed 3, moved 0" in scenario


GENERATED = """
[generate]
groups = {groups}
seed = 5
instances = [1, 4]
queues = [1, 4]
brokers = 2
colliding_client_ids = 0.3
strategies = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]

[[scenarios]]
name = "unreadable"
broker_perm = {{ "broker-00" = "w", "broker-01" = "w" }}

[[scenarios]]
name = "unreadable-restart"
broker_perm = {{ "broker-00" = "w", "broker-01" = "w" }}
rolling_restart = "group"
"""


def test_generated_groups_keep_their_queues_too():
    from rmqplan.model.scenarios import step_counts

    sim = local.simulate(parse_fleet_text(GENERATED.format(groups=40), "fleet.toml"))
    baseline = [r for r in sim.results if r.scenario == "baseline"]
    base = {(r.group, r.topic): r for r in baseline}
    # every generated broker write-only: each process fails and keeps its share; no move
    [change] = sim.steps["unreadable"]
    for r in change.results:
        assert r.queues == [] and r.moves == [] and r.assignment == base[(r.group, r.topic)].assignment
        assert set(r.errored.values()) == {NO_QUEUE}
    assert sim.moved_counts["unreadable"] == 0
    # then a rolling restart: a process that starts again holds nothing, the others keep what they held
    steps = sim.steps["unreadable-restart"]
    for s in steps:
        for r in s.results:
            assert r.moves == [] and all(share in ([], base[(r.group, r.topic)].assignment[label])
                                         for label, share in r.assignment.items())
    up = [r for r in steps[2].results if r.group == "GID_0000000"]  # "up process 1"
    assert steps[2].name.startswith("up") and all(r.assignment[r.processes[0].instance] == [] for r in up)
    # the engine's counts are those of the listed results; in the end nobody holds anything, so every queue held
    # at the baseline is gone
    for name in ("unreadable", "unreadable-restart"):
        assert sim.step_counts[name] == step_counts(sim.steps[name], baseline)
        assert sim.moved_counts[name] == sum(len(r.moved) for r in sim.results if r.scenario == name)
    held = sum(len({q for share in r.assignment.values() for q in share}) for r in baseline)
    assert held > 0 and sim.moved_counts["unreadable-restart"] == held


def test_generated_groups_keep_their_queues_on_the_spark_engine(spark):
    from rmqplan.engines.spark import simulate_generated
    from rmqplan.model.simulation import SimulateOptions
    from tests.planner.test_engines_agree import _whole

    for groups in (40, 1500):  # every group listed; the first problem groups only (chunk tasks)
        fleet = parse_fleet_text(GENERATED.format(groups=groups), "fleet.toml")
        expected = local.simulate(fleet)
        got = simulate_generated(spark, fleet, simulate_hand_written(spark, fleet), SimulateOptions())
        assert _whole(got) == _whole(expected)
        assert _comparable(got) == _comparable(expected)

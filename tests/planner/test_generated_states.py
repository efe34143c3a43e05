"""Scenario states of [generate]d groups: every state against an independent model (each process computes its
share with the transcribed Java class over client ids and routes derived here), and the engine's fleet-wide
counts against the same counts made from the listed results."""

from __future__ import annotations

from collections import Counter

import pytest

from rmqplan.report.findings import count_by_code, find
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.generated.generate import generated_group
from rmqplan.engines.local import simulate
from rmqplan.model.fleet import Queue
from rmqplan.model.scenarios import step_counts
from rmqplan.allocation.strategies import allocate, strategy_of

FLEET = """
[generate]
groups = 60
seed = 11
instances = [1, 5]
queues = [1, 5]
brokers = 2
colliding_client_ids = 0.3
strategies = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]

[[scenarios]]
name = "everyone"
rolling_restart = "group"

[[scenarios]]
name = "b1-down-and-restart"
remove_brokers = ["broker-01"]
rolling_restart = "group"

[[scenarios]]
name = "b0-write-only"
broker_perm = { "broker-00" = 2 }
"""
MODULUS = 2**31 - 1


def restarted(cid: str, colliding: bool, i: int) -> str:
    """A colliding group's pid-1 containers on 4.5.1 report the same id; another process gets the next pid and a
    nanoTime after every generated one (they are below 2^31 - 1), its group's (i + 1)-th restart."""
    if colliding:
        return cid
    host, rest = cid.split("@")
    pid = int(rest.split("#")[0])
    return f"{host}@{pid % 65535 + 1}#{MODULUS + i + 1}"


def expected_states(spec, g: int, readable: list[str], change: bool, restart: bool):
    gg = generated_group(spec, g)
    labels, ids = list(gg.instances), list(gg.client_ids)
    counts = dict(zip(spec.broker_names(), gg.queue_counts))
    queues = {gg.topic: [Queue(gg.topic, b, i) for b in sorted(readable) for i in range(counts[b])],
              f"%RETRY%{gg.group}": [Queue(f"%RETRY%{gg.group}", b, 0) for b in sorted(readable)]}
    states = [dict(zip(labels, ids))] if change else []
    if restart:
        now = list(ids)
        for i in range(len(labels)):
            states.append({label: cid for k, (label, cid) in enumerate(zip(labels, now)) if k != i})
            now[i] = restarted(now[i], gg.colliding, i)
            states.append(dict(zip(labels, now)))
    return gg, queues, states


@pytest.fixture(scope="module")
def sim():
    return simulate(parse_fleet_text(FLEET, "fleet.toml"))


@pytest.mark.parametrize("name, readable, change, restart", [
    ("everyone", ["broker-00", "broker-01"], False, True),
    ("b1-down-and-restart", ["broker-00"], True, True),
    ("b0-write-only", ["broker-01"], True, False),
])
def test_every_state_is_what_each_process_computes(sim, name, readable, change, restart):
    spec = sim.fleet.generate
    steps = sim.steps[name]
    first_restart = 2 if change else 1
    seen = 0
    for g in range(spec.groups):
        gg, queues, states = expected_states(spec, g, readable, change, restart)
        spec_of = strategy_of(gg.strategy).spec()
        at = ([1] if change else []) + [first_restart + k for k in range(len(states) - (1 if change else 0))]
        for step, ids in zip(at, states):
            results = {r.topic: r for r in steps[step - 1].results if r.group == gg.group}
            for topic, mq_all in queues.items():
                r = results[topic]
                assert {p.instance: p.client_id for p in r.processes} == ids
                assert r.queues == mq_all
                want = {label: allocate(spec_of, mq_all, list(ids.values()), cid) if mq_all else []
                        for label, cid in ids.items()}
                assert r.assignment == want, (name, step, gg.group, topic)
                seen += 1
        # a group's steps end with its last process back; then it is listed as the scenario leaves it
        assert sum(1 for s in steps for r in s.results if r.group == gg.group) == 2 * len(states)
    assert seen > 100


def test_the_engine_counts_equal_the_counts_of_the_listed_results(sim):
    base = [r for r in sim.results if r.scenario == "baseline"]
    for name in ("everyone", "b1-down-and-restart", "b0-write-only"):
        assert sim.step_counts[name] == step_counts(sim.steps[name], base)
        assert sim.moved_counts[name] == sum(len(r.moved) for r in sim.results if r.scenario == name)
    assert sim.step_counts["b1-down-and-restart"][0]["moves"] > 0
    findings = find(sim)  # every group is listed (60 <= 1000): counts and listed findings agree
    assert count_by_code(sim, findings) == {**dict.fromkeys(count_by_code(sim, findings), 0),
                                            **Counter(f.code for f in findings)}
    assert sim.omitted_results == 0
    # broker-00 write-only: every generated topic gets its PLAN004 in that scenario (all listed here)
    lost = [f for f in findings if f.code == "PLAN004"]
    assert len(lost) == 60 and {f.scenario for f in lost} == {"b0-write-only"}
    first = next(f for f in lost if f.topic == "TOPIC_0000000")
    assert first.queues == [Queue("TOPIC_0000000", "broker-00", i) for i in range(len(first.queues))]


def test_a_large_generated_fleet_counts_the_route_findings_it_does_not_list():
    sim = simulate(parse_fleet_text(FLEET.replace("groups = 60", "groups = 1500"), "fleet.toml"))
    findings = find(sim)
    counts = count_by_code(sim, findings)
    assert counts["PLAN004"] == 1500 and 0 < sum(1 for f in findings if f.code == "PLAN004") <= 200
    assert sim.omitted_results > 0

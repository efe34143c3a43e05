"""The vectorised kernel against the reference: every process's share recomputed with the transcription of the
Java classes (`rmqplan.allocation.strategies.allocate`, one process at a time), on random fleets with every strategy,
repeated and empty client ids, rooms, CONFIG lists naming foreign queues, and scenarios."""

from __future__ import annotations

import pytest

from rmqplan.engines import local
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.model.fleet import BROADCASTING
from rmqplan.allocation.strategies import StrategyError, allocate, for_process
from tests.planner.test_engines_agree import _random_fleet_toml


def _reference_share(fleet, result, process):
    broker_rooms = {b.name: b.room for b in fleet.brokers if b.room}
    client_rooms: dict[str, str] = {}
    for p in result.processes:
        if p.room:
            client_rooms.setdefault(p.client_id, p.room)
    cids = [p.client_id for p in result.processes]
    try:
        return allocate(for_process(process.strategy, process.client, process.client_version), result.queues, cids,
                        process.client_id, broker_rooms=broker_rooms,
                        client_rooms=client_rooms), None
    except StrategyError as e:
        return [], str(e)


@pytest.mark.parametrize("seed,go", [(seed, 0.0) for seed in range(6)] + [(6, 0.4), (8, 0.4)])
def test_kernel_equals_the_transcription_process_by_process(seed, go):
    """`go`: a share of the instance sets run rocketmq-client-go, each process its own client's form."""
    fleet = parse_fleet_text(_random_fleet_toml(seed, 60, go), "fleet.toml")
    sim = local.simulate(fleet)
    checked = errors = 0
    for r in sim.results:
        for p in r.processes:
            if p.instance not in r.assignment:
                continue
            if r.model == BROADCASTING:
                assert r.assignment[p.instance] == r.queues
                continue
            # no readable queue: check() throws "mqAll is null or mqAll empty" (CONFIG returns its list), as Java
            share, error = _reference_share(fleet, r, p)
            if error is not None and r.scenario != "baseline":  # a failed rebalance keeps the state before's
                assert r.errored.get(p.instance) == error, (r.group, r.topic, p)
                checked += 1
                errors += 1
                continue
            assert (r.assignment[p.instance], r.errored.get(p.instance)) == (share, error), (r.group, r.topic, p)
            checked += 1
            errors += error is not None
        holders = {}
        for share in r.assignment.values():
            for q in share:
                holders[q] = holders.get(q, 0) + 1
        if r.model != BROADCASTING:
            assert r.orphaned == [q for q in r.queues if q not in holders]
            assert r.duplicated == [q for q in r.queues if holders.get(q, 0) > 1]
    assert checked > 100 and errors > 0


def test_a_ring_with_equal_point_hashes_is_built_as_java_builds_it():
    # "10.0.0.179@124929-0" and "10.0.0.94@133844-0" share their first four MD5 bytes: the later put wins, and
    # a repeat of the later id numbers its replicas on from the point it took
    fleet = parse_fleet_text("""
[[brokers]]
name = "b"
[[topics]]
name = "T"
read_queues = 5
[[groups]]
name = "g"
strategy = "CONSISTENT_HASH"
virtual_nodes = 1
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.179"]
instance_name = "124929"
[[groups.instances]]
hosts = ["10.0.0.94"]
instance_name = "133844"
count = 2
[[groups]]
name = "h"
strategy = "CONSISTENT_HASH"
virtual_nodes = 2
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1", "10.0.0.2"]
""", "fleet.toml")
    sim = local.simulate(fleet)
    g = sim.results[0]
    assert g.assignment["10.0.0.179#1"] == []
    for r in sim.results:
        for p in r.processes:
            share, error = _reference_share(fleet, r, p)
            assert (r.assignment[p.instance], error) == (share, None)

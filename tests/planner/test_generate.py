"""`[generate]`: the same synthetic fleet as numpy arrays and in plain Python, deterministic, with the asked shape."""

from __future__ import annotations

import numpy as np
import pytest

from rmqplan.generated.generate import (
    field_hash,
    generated_batch,
    generated_fleet,
    iter_generated_groups,
    seed_state,
)
from rmqplan.model.identity import group_processes
from rmqplan.model.javaorder import sort_client_ids
from rmqplan.model.fleet import GenerateSpec

SPEC = GenerateSpec(groups=400, seed=11, instances=(1, 9), queues=(2, 6), brokers=3, colliding_client_ids=0.1,
                    strategies=("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"))


def _python_rows(spec):
    return [(g.index, g.group, g.topic, g.strategy, g.colliding, g.queue_counts, g.hosts, g.instances, g.client_ids)
            for g in iter_generated_groups(spec)]


@pytest.mark.parametrize("instances", [(1, 9), (250, 600)])  # past 256 processes a host has three fields
def test_the_batch_holds_the_same_groups_as_python(instances):
    spec = GenerateSpec(**{**SPEC.__dict__, "instances": instances, "groups": 60 if instances[0] > 1 else 400})
    batch = generated_batch(spec, 10, spec.groups)
    brokers = spec.broker_names()
    for k, gg in enumerate(iter_generated_groups(spec, 10)):
        main, retry = 2 * k, 2 * k + 1
        assert batch.names.topic(main) == gg.topic and batch.names.topic(retry) == f"%RETRY%{gg.group}"
        assert batch.specs[batch.c_spec[batch.c_off[main]]].name == gg.strategy
        assert [batch.queue(main, i) for i in range(batch.q_off[main], batch.q_off[main + 1])] == gg.queues(brokers)
        assert [(batch.brokers[batch.q_broker[i]], batch.q_id[i]) for i in
                range(batch.q_off[retry], batch.q_off[retry + 1])] == [(b, 0) for b in brokers]
        for r in (main, retry):
            lo, hi = batch.c_off[r], batch.c_off[r + 1]
            cids = batch.names.client_ids(np.arange(lo, hi))
            assert cids == list(gg.client_ids)
            ordered = sort_client_ids(cids)  # Java order, computed from the strings
            assert batch.c_index[lo:hi].tolist() == [ordered.index(c) for c in cids]
            assert [ordered[o] for o in batch.c_order[lo:hi]] == cids


def test_generation_is_deterministic_and_seeded():
    assert _python_rows(SPEC) == _python_rows(SPEC)
    other = GenerateSpec(**{**SPEC.__dict__, "seed": 12})
    assert _python_rows(other) != _python_rows(SPEC)
    assert all(0 <= field_hash(seed_state(s), g, f) < 2**31 - 1 for s in (0, 7, 2**40) for g in (0, 10**6)
               for f in (1, 16))


def test_shape_follows_the_spec():
    groups = list(iter_generated_groups(SPEC))
    assert len(groups) == 400
    assert all(1 <= len(g.client_ids) <= 9 and len(g.queue_counts) == 3 for g in groups)
    assert all(2 <= c <= 6 for g in groups for c in g.queue_counts)
    assert {g.strategy for g in groups} == {"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"}
    colliding = [g for g in groups if g.colliding]
    assert 20 <= len(colliding) <= 60  # about 10% of 400
    assert all(len(set(g.client_ids)) == 1 for g in colliding)  # every process reports one client id
    assert all(len(set(g.client_ids)) == len(g.client_ids) for g in groups if not g.colliding)
    assert all(len(set(g.instances)) == len(g.instances) for g in groups)  # labels are unique in a group


def test_the_generated_fleet_gives_the_same_client_ids_through_identity():
    fleet = generated_fleet(GenerateSpec(groups=50, seed=3, colliding_client_ids=0.2))
    for group, generated in zip(fleet.groups, iter_generated_groups(GenerateSpec(groups=50, seed=3,
                                                                                 colliding_client_ids=0.2))):
        processes = group_processes(group)
        assert tuple(p.client_id for p in processes) == generated.client_ids
        assert tuple(p.instance for p in processes) == generated.instances


def test_batch_processes_are_those_identity_expands_from_the_generated_fleet():
    spec = GenerateSpec(groups=80, seed=3, instances=(1, 300), colliding_client_ids=0.2)
    fleet = generated_fleet(spec)
    batch = generated_batch(spec, 0, spec.groups)
    for k, group in enumerate(fleet.groups):
        assert batch.names.processes(k, group.strategy) == group_processes(group)

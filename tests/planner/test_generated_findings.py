"""The findings of generated chunks written from their arrays (`rmqplan.generated.findings`) are the lines
`rmqplan.report.findings.find` gives on the same rebalances' results, for every generatable strategy and shape."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.engines.chunks import GeneratedDescriber, chunks, run_chunk
from rmqplan.report.findings import find_by_result as find  # what --out writes: result order
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.generated.findings import _fast_shapes, generated_finding_lines
from rmqplan.model.fleet import Fleet
from rmqplan.model.simulation import Simulation
from rmqplan.allocation.results import results_of


def through_find(spec, batch, rows, t) -> list[str]:
    which = np.flatnonzero(t.problem())
    results = results_of(batch, rows, t, which, GeneratedDescriber(spec, batch))
    return [json.dumps(f.to_json()) for f in find(Simulation(Fleet("<generated>", (), (), (), (), None), results))]


def generate(groups, seed, instances, queues, brokers, colliding, strategies):
    names = ", ".join(f'"{s}"' for s in strategies)
    return parse_fleet_text(
        f"version = 1\n[generate]\ngroups = {groups}\nseed = {seed}\ninstances = [{instances[0]}, {instances[1]}]\n"
        f"queues = [{queues[0]}, {queues[1]}]\nbrokers = {brokers}\ncolliding_client_ids = {colliding}\n"
        f"strategies = [{names}]\n", "gen.toml", max_entries=sys.maxsize).generate  # chunk by chunk: not bounded


def compare(spec) -> tuple[int, int]:
    """(lines, rebalances written from the arrays), after checking every chunk."""
    lines = written = 0
    for start, stop in chunks(spec, 700):
        batch, rows, t = run_chunk(spec, start, stop)
        expected = through_find(spec, batch, rows, t)
        assert generated_finding_lines(spec, batch, rows, t, find, GeneratedDescriber(spec, batch)) == expected
        lines += len(expected)
        written += int(_fast_shapes(batch, rows, t, np.flatnonzero(t.problem())).sum())
    return lines, written


@pytest.mark.parametrize("strategies", [("AVG",), ("AVG_BY_CIRCLE",), ("CONSISTENT_HASH",),
                                        ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")])
def test_written_findings_are_finds_on_every_strategy(strategies):
    lines, written = compare(generate(2000, 5, (1, 40), (1, 8), 2, 0.1, strategies))
    assert lines > 100 and written > 50


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), low=st.integers(1, 30), span=st.integers(0, 60),
       queues=st.tuples(st.integers(1, 16), st.integers(0, 16)), brokers=st.integers(1, 4),
       colliding=st.sampled_from([0.0, 0.05, 0.5, 1.0]),
       strategies=st.lists(st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]), min_size=1, max_size=3,
                           unique=True))
def test_written_findings_are_finds_on_any_generated_shape(seed, low, span, queues, brokers, colliding, strategies):
    compare(generate(300, seed, (low, low + span), (queues[0], queues[0] + queues[1]), brokers, colliding,
                     strategies))


def test_another_find_is_called_on_every_problem_rebalance():
    spec = generate(500, 5, (1, 40), (1, 8), 2, 0.2, ("AVG",))
    batch, rows, t = run_chunk(spec, 0, 500)
    seen = []

    def counting(sim):
        seen.extend(sim.results)
        return find(sim)

    assert generated_finding_lines(spec, batch, rows, t, counting, GeneratedDescriber(spec, batch)) == \
        through_find(spec, batch, rows, t)
    assert len(seen) == int(t.problem().sum())

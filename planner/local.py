"""The local engine: the allocation kernel (`planner.kernel`) in this process, on numpy arrays.

A hand-written fleet is one batch (`planner.rebalances`): every scenario's rebalances at once, every result
built. A `[generate]`d fleet is generated, allocated and counted in chunks of groups (`planner.generate`), so
memory stays bounded at any size: the totals and problem counts cover every group, the first `DETAIL_LIMIT`
problem groups are reported in full (every group of a fleet of at most `FULL_RESULTS_GROUPS`), and
`Simulation.write_findings` / `write_tables` go over the chunks again to write every finding and assignment.
"""

from __future__ import annotations

import numpy as np

from planner.kernel import allocate
from planner.model import Fleet, Simulation
from planner.rebalances import BASELINE, fleet_rebalances
from planner.results import Described, results_of, with_moves
from planner.tally import problem_counts, tally, totals


def simulate_hand_written(fleet: Fleet) -> Simulation:
    """Every result of the fleet's hand-written groups and scenarios."""
    fr = fleet_rebalances(fleet)
    rows = allocate(fr.batch)
    counted = tally(fr.batch, rows)

    def describe(r: int) -> Described:
        rb = fr.rebalances[r]
        return Described(rb.scenario, rb.group.name, rb.topic, rb.queues, rb.processes)

    results = with_moves(results_of(fr.batch, rows, counted, range(fr.batch.rebalances), describe), BASELINE)
    whole = {**totals(fr.batch, counted, np.flatnonzero(fr.batch.scenario == 0)), "groups": len(fleet.groups)}
    return Simulation(fleet, results, fr.scenarios, totals=whole,
                      problem_counts=problem_counts(counted, np.arange(fr.batch.rebalances)))


def simulate(fleet: Fleet) -> Simulation:
    """`rmqplan simulate --engine local`."""
    sim = simulate_hand_written(fleet)
    if fleet.generate is not None:
        from planner.local_generated import simulate_generated

        sim = simulate_generated(fleet, sim)
    return sim

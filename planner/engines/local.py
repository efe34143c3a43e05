"""The local engine: the allocation kernel (`rmqplan.allocation.kernel`) on numpy arrays, in this process and, for a large
generated fleet, in helper processes on the other CPUs.

A hand-written fleet is one batch (`rmqplan.allocation.rebalances`): every scenario's rebalances at once, every result
built. A `[generate]`d fleet is generated, allocated and counted chunk by chunk (`rmqplan.engines.chunks`), so memory stays
bounded at any size: the totals and problem counts cover every group, the `DETAIL_LIMIT` worst problem groups are
reported in full (every group of a fleet of at most `FULL_RESULTS_GROUPS`), computed again on their own. This
process and helper processes take the chunks in turn (`rmqplan.engines.chunk_tasks`). With `--out` (an `OutRequest`) the
same pass writes every table row and every finding.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Optional

from rmqplan.engines.chunk_tasks import ChunkJob, helpers_for, run_job
from rmqplan.engines.chunks import Progress, chunks, group_details, listed_groups, out_ids, with_generated
from rmqplan.generated.states import fleet_generated_scenarios, fleet_scenario_states
from rmqplan.allocation.failures import keep_on_failure
from rmqplan.allocation.kernel import allocate
from rmqplan.model.fleet import Fleet
from rmqplan.model.simulation import OutRequest, Simulation
from rmqplan.report.out_tables import FINDINGS_FILE, write_hand_written_out
from rmqplan.allocation.rebalances import fleet_rebalances
from rmqplan.allocation.results import HandWritten, hand_written_simulation
from rmqplan.allocation.strategies import plugin_classes
from rmqplan.allocation.tally import tally

Phase = Optional[Callable[[str], None]]  # what runs now, for the progress line (`rmqplan.report.progress.Progress.phase`)


def _quiet(text: str) -> None:
    return None


def simulate_hand_written(fleet: Fleet) -> Simulation:
    """Every result of the fleet's hand-written groups and scenarios."""
    return run_hand_written(fleet).sim


def run_hand_written(fleet: Fleet, phase: Phase = None) -> HandWritten:
    """`simulate_hand_written`, with what `--out` needs; `phase` is told each step of a fleet with groups."""
    phase = phase if phase is not None and fleet.groups else _quiet
    phase(f"expanding {len(fleet.groups):,} hand-written groups and their scenarios")
    fr = fleet_rebalances(fleet, fleet_scenario_states(fleet))
    phase(f"allocating {fr.batch.rebalances:,} rebalances")
    rows, counted = run_batch(fr.batch)
    kept = keep_on_failure(fr.batch, rows, [fr])
    if kept is not None:
        rows, counted = kept, tally(fr.batch, kept)
    phase(f"describing {fr.batch.rebalances:,} rebalances")
    return HandWritten(fr, rows, counted, hand_written_simulation(fleet, fr, rows, counted))


def run_batch(batch):
    """The kernel and the tally over a batch: (rows, tally)."""
    rows = allocate(batch)
    return rows, tally(batch, rows)


def simulate_generated(fleet: Fleet, sim: Simulation, out: Optional[OutRequest] = None, topics: int = 0,
                       brokers=None, progress: Progress = None, helpers: Optional[int] = None) -> Simulation:
    """Adds the generated groups, run by this process and `helpers` helper processes (`rmqplan.engines.chunk_tasks`; by
    default one per other CPU when there are chunks enough): totals and problem counts for all from each chunk's
    summary, results for the worst problem groups (all groups of a fleet of at most FULL_RESULTS_GROUPS) computed
    again on their own; with `out`, every table row and finding. Scenarios that touch generated groups add their
    states to each chunk (`rmqplan.generated.states`)."""
    spec = fleet.generate
    job = ChunkJob(spec, fleet_generated_scenarios(fleet), out,
                   out_ids(fleet, topics, brokers) if out is not None else None, list(chunks(spec)), plugin_classes())
    helpers = helpers_for(job) if helpers is None else helpers
    if out is None:
        summaries, written = run_job(job, helpers, None, progress)
    else:
        with open(os.path.join(out.directory, FINDINGS_FILE), "a", encoding="utf-8") as findings:
            summaries, written = run_job(job, helpers, findings, progress)
    shown = listed_groups(spec, summaries)
    details = group_details(spec, shown, job.scenarios) if shown else None
    return with_generated(fleet, sim, summaries, details, written if out is not None else None)


def simulate(fleet: Fleet, out: Optional[OutRequest] = None, progress: Progress = None,
             helpers: Optional[int] = None, phase: Phase = None) -> Simulation:
    """`rmqplan simulate --engine local` (`helpers`: see `simulate_generated`); `progress` is told the generated
    groups done, `phase` the steps of the rest."""
    hand = run_hand_written(fleet, phase)
    sim = hand.sim
    topics, brokers = 0, None
    if out is not None:
        from rmqplan.engines.arrow_start import start_arrow_without_pandas
        from rmqplan.report.out_tables import BrokerIds

        start_arrow_without_pandas()
        if fleet.groups and phase is not None:
            phase("writing the hand-written groups' tables and findings")
        brokers = BrokerIds()
        topics, written = write_hand_written_out(out, hand, brokers)
        sim = replace(sim, findings_written=written)
    if fleet.generate is not None:
        if phase is not None:
            phase(f"starting on {fleet.generate.groups:,} generated groups")
        sim = simulate_generated(fleet, sim, out, topics, brokers, progress, helpers)
    if out is not None:
        from rmqplan.report.out_tables import ParquetSink, write_empty_tables

        sink = ParquetSink(out.directory, "part-00000")
        sink("brokers", brokers.table())
        sink.close()
        write_empty_tables(out.directory)
    return sim

"""The local engine: the allocation kernel (`planner.kernel`) in this process, on numpy arrays.

A hand-written fleet is one batch (`planner.rebalances`): every scenario's rebalances at once, every result
built. A `[generate]`d fleet is generated, allocated and counted chunk by chunk (`planner.chunks`), so memory stays
bounded at any size: the totals and problem counts cover every group, the first `DETAIL_LIMIT` problem groups are
reported in full (every group of a fleet of at most `FULL_RESULTS_GROUPS`). With `--out` (an `OutRequest`) the same
pass writes every table row and every finding.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Optional

import numpy as np

from planner.chunks import TOTAL_KEYS, GeneratedDescriber, Progress, chunks, finding_lines, out_ids, run_chunk, \
    run_states, shown_rebalances, shown_state_results, state_finding_lines, summary, write_state_tables, write_tables
from planner.generated_states import fleet_generated_scenarios, merge_steps, merge_summaries, with_generated_states
from planner.kernel import allocate
from planner.model import DETAIL_LIMIT, FULL_RESULTS_GROUPS, Fleet, OutRequest, Simulation
from planner.out_tables import FINDINGS_FILE, write_hand_written_out
from planner.rebalances import fleet_rebalances
from planner.results import HandWritten, hand_written_simulation, results_of
from planner.tally import PROBLEMS, tally


def simulate_hand_written(fleet: Fleet) -> Simulation:
    """Every result of the fleet's hand-written groups and scenarios."""
    return run_hand_written(fleet).sim


def run_hand_written(fleet: Fleet) -> HandWritten:
    """`simulate_hand_written`, with what `--out` needs."""
    fr = fleet_rebalances(fleet)
    rows, counted = run_batch(fr.batch)
    return HandWritten(fr, rows, counted, hand_written_simulation(fleet, fr, rows, counted))


def run_batch(batch):
    """The kernel and the tally over a batch: (rows, tally)."""
    rows = allocate(batch)
    return rows, tally(batch, rows)


def simulate_generated(fleet: Fleet, sim: Simulation, out: Optional[OutRequest] = None, topics: int = 0,
                       brokers=None, progress: Progress = None) -> Simulation:
    """Adds the generated groups: totals and problem counts for all, results for the first problem groups (all
    groups of a fleet of at most FULL_RESULTS_GROUPS); with `out`, every table row and finding. Scenarios that
    touch generated groups add their states to each chunk (`planner.generated_states`)."""
    spec = fleet.generate
    everything = spec.groups <= FULL_RESULTS_GROUPS
    scenarios = fleet_generated_scenarios(fleet)
    gen = dict.fromkeys(TOTAL_KEYS, 0)
    counts = dict.fromkeys(PROBLEMS, 0)
    results, shown_groups, problems, shown_problems, written = [], 0, 0, 0, 0
    listed, steps, state_parts, shown_ids = [], {}, [], []
    sink = findings = None
    if out is not None:
        from planner.out_tables import BackgroundSink, ParquetSink

        sink = BackgroundSink(ParquetSink(out.directory, "part-generated"))
        ids = out_ids(fleet, topics, brokers)
        findings = open(os.path.join(out.directory, FINDINGS_FILE), "a", encoding="utf-8")
    try:
        for start, stop in chunks(spec):
            batch, rows, t = run_chunk(spec, start, stop)
            states = run_states(spec, scenarios, batch, rows, t)
            part = summary(batch, t, DETAIL_LIMIT - shown_groups, states)
            for key in TOTAL_KEYS:
                gen[key] += part[key]
            for key in PROBLEMS:
                counts[key] += part[key]
            problems += part["problems"]
            state_parts.append(part.get("scenarios", {}))
            which = shown_rebalances(batch, t, DETAIL_LIMIT - shown_groups, everything, part)
            if len(which):
                shown = results_of(batch, rows, t, which, GeneratedDescriber(spec, batch))
                scenario_listed, scenario_steps, scenario_problems = shown_state_results(
                    spec, batch, rows, t, which, states, shown)
                results += shown
                listed += scenario_listed
                merge_steps(steps, scenario_steps)
                shown_ids += np.unique(batch.group[which]).tolist()
                shown_groups += len(np.unique(batch.group[which]))
                shown_problems += int(t.problem()[which].sum()) + scenario_problems
            if out is not None:
                write_tables(spec, batch, rows, t, ids, sink)
                write_state_tables(spec, states, ids, sink)
                lines = finding_lines(spec, batch, rows, t, out.find)
                lines += state_finding_lines(spec, batch, states, out.find, scenarios)
                findings.writelines(line + "\n" for line in lines)
                written += len(lines)
            if progress is not None:
                progress(stop, spec.groups)
    finally:
        if out is not None:
            sink.close()
            findings.close()
    hand = sim.totals or dict.fromkeys(TOTAL_KEYS, 0)
    whole = {k: hand.get(k, 0) + gen[k] for k in TOTAL_KEYS}
    whole["groups"] = len(fleet.groups) + spec.groups
    hand_counts = sim.problem_counts or dict.fromkeys(PROBLEMS, 0)
    sim = replace(sim, results=list(sim.results) + results, totals=whole,
                  omitted_results=sim.omitted_results + problems - shown_problems,
                  problem_counts={k: hand_counts.get(k, 0) + counts[k] for k in PROBLEMS},
                  findings_written=(sim.findings_written or 0) + written if out is not None else None)
    return with_generated_states(sim, merge_summaries(state_parts), listed, steps, shown_ids)


def simulate(fleet: Fleet, out: Optional[OutRequest] = None, progress: Progress = None) -> Simulation:
    """`rmqplan simulate --engine local`."""
    hand = run_hand_written(fleet)
    sim = hand.sim
    topics, brokers = 0, None
    if out is not None:
        from planner.out_tables import BrokerIds

        brokers = BrokerIds()
        topics, written = write_hand_written_out(out, hand, brokers)
        sim = replace(sim, findings_written=written)
    if fleet.generate is not None:
        sim = simulate_generated(fleet, sim, out, topics, brokers, progress)
    if out is not None:
        from planner.out_tables import ParquetSink, write_empty_tables

        sink = ParquetSink(out.directory, "part-00000")
        sink("brokers", brokers.table())
        sink.close()
        write_empty_tables(out.directory)
    return sim

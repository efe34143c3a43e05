"""Generated groups chunk by chunk: the work both engines do on each chunk (`chunk_work`: the local engine's
processes, `rmqplan.engines.chunk_tasks`, and the Spark engine's tasks), so that their answers come from the same code.

A chunk of `CHUNK_GROUPS` generated groups (fewer when the spec's groups are larger: `chunk_groups`) is one batch
(`rmqplan.generated.generate.generated_batch`); the kernel and the tally run over it. From a chunk come its summary
(totals, problem counts, its worst problem groups) and for `--out` its rows of every table
(`rmqplan.report.out_tables`) and the findings of its problem groups. The groups the report shows in full are
computed again on their own (`listed_groups`, `group_details`), and `with_generated` adds it all to the Simulation.
The findings are computed by a function the caller passes (`rmqplan.report.findings.find_by_result`): this step does
not know what a finding says."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import numpy as np

from rmqplan.allocation.batch import Batch, Rows, concat_ranges
from rmqplan.generated.generate import generated_batch
from rmqplan.allocation.kernel import allocate
from rmqplan.model.fleet import DETAIL_LIMIT, FULL_RESULTS_GROUPS, Fleet, GenerateSpec, Queue
from rmqplan.model.fleet_size import generated_group_entries
from rmqplan.model.simulation import OutRequest, Simulation
from rmqplan.allocation.results import Described, results_of
from rmqplan.allocation.tally import Tally, problem_counts, problem_weights, tally, totals, worst

CHUNK_GROUPS = 16_384  # ~170k processes, ~620k assignments: the arrays stay in the CPU caches' reach
# what a chunk holds: CHUNK_GROUPS groups of the default spec (1-20 processes, 4-32 queues, 2 brokers) on average
CHUNK_ENTRIES = CHUNK_GROUPS * generated_group_entries(GenerateSpec(groups=1), mean=True)
TOTAL_KEYS = ("groups", "instances", "queues", "assignments", "orphaned_queues", "duplicated_queues",
              "idle_instances")

Find = Callable[[Simulation], list]  # the findings of a Simulation's results (rmqplan.report.findings.find_by_result)
Sink = Callable[[str, object], None]  # (table name, Arrow record batch)


def chunk_groups(spec: GenerateSpec) -> int:
    """Groups per chunk: `CHUNK_GROUPS`, fewer when the spec's groups are larger than the default's on average, so
    that a chunk holds about `CHUNK_ENTRIES` (`rmqplan.model.fleet_size.generated_group_entries`) whatever the spec;
    the bound on the largest group (`fleet_size`) keeps a chunk of one group in reach."""
    return max(1, min(CHUNK_GROUPS, CHUNK_ENTRIES // generated_group_entries(spec, mean=True)))


def chunks(spec: GenerateSpec, chunk: Optional[int] = None) -> Iterator[tuple[int, int]]:
    chunk = chunk or chunk_groups(spec)
    for start in range(0, spec.groups, chunk):
        yield start, min(start + chunk, spec.groups)


def run_chunk(spec: GenerateSpec, start: int, stop: int) -> tuple[Batch, Rows, Tally]:
    batch = generated_batch(spec, start, stop)
    rows = allocate(batch)
    return batch, rows, tally(batch, rows)


STATE_ENTRIES = 300_000  # cidAll entries of one batch of scenario states: cache-sized, like a chunk's baseline


@dataclass
class StateRun:
    """Scenario states of some of a chunk's groups (`rmqplan.generated.states`): their baseline (`base`, its rows
    and tally), the states' batch, rows, tally and moves."""

    base: Batch
    base_rows: Rows
    base_t: Tally
    sb: object  # StateBatch
    rows: Rows
    t: Tally
    moves: object  # StateMoves


def state_parts(spec: GenerateSpec, scenarios: list, batch: Batch) -> list[tuple[Batch, object]]:
    """The chunk's groups cut into runs of about STATE_ENTRIES entries of scenario states (a rolling restart of n
    processes is 2n states of n or n - 1 processes each), each as (its baseline batch, its state batch); the same
    cut on every engine."""
    from rmqplan.generated.states import state_batch

    touching = [s for s in scenarios if s.touches_groups()]
    if not touching or not batch.rebalances:
        return []
    n = np.diff(batch.c_off)[0::2]
    cost = np.zeros(len(n), dtype=np.int64)
    for sc in touching:
        cost += 2 * (n if sc.change else 0) + (2 * (2 * n * n - n) if sc.restart_from else 0)
    ends = np.cumsum(np.maximum(cost, 1))
    cuts = [0]
    while cuts[-1] < len(n):
        already = ends[cuts[-1] - 1] if cuts[-1] else 0
        cuts.append(max(cuts[-1] + 1, int(np.searchsorted(ends, already + STATE_ENTRIES, "right"))))
    groups = batch.group[0::2]
    out = []
    for lo, hi in zip(cuts, cuts[1:]):
        base = generated_batch(spec, 0, 0, groups=groups[lo:hi])
        out.append((base, state_batch(spec, base, touching)))
    return out


def state_rows(base: Batch, base_rows: Rows, sb) -> Rows:
    """The kernel's rows of a run's states (`rmqplan.generated.states.StateBatch`), with what failed processes
    keep from the state before."""
    from rmqplan.generated.states import keep_on_failure

    return keep_on_failure(base, base_rows, sb, allocate(sb.batch))


def run_states(spec: GenerateSpec, scenarios: list, batch: Batch, rows: Rows = None, t: Tally = None) \
        -> list[StateRun]:
    """The scenario states of the chunk's groups, allocated and counted like its baseline, run by run
    (`state_parts`); empty when no scenario touches generated groups."""
    from rmqplan.generated.states import state_moves

    out = []
    for base, sb in state_parts(spec, scenarios, batch):
        base_rows = allocate(base)
        base_t = tally(base, base_rows)
        srows = state_rows(base, base_rows, sb)
        st = tally(sb.batch, srows)
        out.append(StateRun(base, base_rows, base_t, sb, srows, st,
                            state_moves(spec, base, base_rows, base_t, sb, srows, st)))
    return out


def summary(batch: Batch, t: Tally, limit: int, states: Optional[list] = None) -> dict:
    """Totals, problem counts, the number of problem rebalances and the `limit` worst problem groups (a problem
    in the baseline or in a scenario's last state; `rmqplan.allocation.tally.problem_weights` rows, worst first);
    with `states` (`run_states`), per scenario its counts."""
    everyone = np.arange(batch.rebalances)
    problem = t.problem()
    weights = [problem_weights(batch.group, t, np.flatnonzero(problem))]
    out = {**totals(batch, t, everyone), **problem_counts(t, everyone), "problems": int(problem.sum())}
    if states:
        from rmqplan.generated.states import merge_summaries, state_summary

        parts = [state_summary(sr.sb, sr.t, sr.moves, sr.base, sr.base_t) for sr in states]
        weights += [np.asarray(s["problem_weights"], dtype=np.int64).reshape(-1, 4)
                    for part in parts for s in part.values()]
        out["scenarios"] = merge_summaries(parts)
        out["problems"] += sum(s["problem_results"] for s in out["scenarios"].values())
    out["worst_problem_groups"] = worst(np.concatenate(weights), limit).tolist()
    return out


class GeneratedDescriber:
    """Names of generated rebalances (rebalance 2k is group k's topic, 2k + 1 its retry topic)."""

    def __init__(self, spec: GenerateSpec, batch: Batch):
        self.spec, self.batch = spec, batch
        self._processes: dict[int, list] = {}

    def __call__(self, r: int) -> Described:
        batch, k = self.batch, r // 2
        processes = self._processes.get(k)
        if processes is None:
            strategy = batch.specs[int(batch.c_spec[batch.c_off[r]])]
            processes = self._processes[k] = batch.names.processes(k, strategy)
        lo, hi = int(batch.q_off[r]), int(batch.q_off[r + 1])
        name = batch.names.topic(r)
        queues = [Queue(name, batch.brokers[b], i)
                  for b, i in zip(batch.q_broker[lo:hi].tolist(), batch.q_id[lo:hi].tolist())]
        return Described("baseline", processes[0].group, name, queues, processes)


def shown_state_results(spec: GenerateSpec, batch: Batch, rows: Rows, t: Tally, which: np.ndarray,
                        states: Optional[list], baseline_results: list) -> tuple[list, dict, int]:
    """The scenario results of the groups whose baseline rebalances `which` are shown: (each group's last state
    per scenario, {scenario: {step: results}}, how many of those last states' results have a problem), in
    scenario, group, topic order (whatever the runs)."""
    if not states or not len(which):
        return [], {}, 0
    from rmqplan.generated.states import merge_steps, shown_results

    wanted = np.unique(batch.group[which])
    base = {(r.group, r.topic): r for r in baseline_results}
    listed, steps, problems = [], {}, 0
    for sr in states:
        local = np.flatnonzero(np.isin(sr.base.group[0::2], wanted))
        if not len(local):
            continue
        more, more_steps = shown_results(sr.sb, sr.rows, sr.t, local, base, sr.base.names)
        listed += more
        merge_steps(steps, more_steps)
        last = np.flatnonzero(sr.sb.last & np.isin(sr.sb.group, local))
        problems += int(sr.t.problem()[np.concatenate([2 * last, 2 * last + 1])].sum())
    order = {sc.name: i for i, sc in enumerate(states[0].sb.scenarios)}

    def key(r):
        return order[r.scenario], r.group, r.topic.startswith("%RETRY%")

    listed.sort(key=key)
    for by_step in steps.values():
        for results in by_step.values():
            results.sort(key=key)
    return listed, steps, problems


@dataclass(frozen=True)
class OutIds:
    """How generated groups are numbered in the `--out` tables (`rmqplan.report.out_tables`)."""

    group_base: int  # hand-written groups come first
    topic_base: int
    broker_ids: np.ndarray  # per generated broker index


def write_tables(spec: GenerateSpec, batch: Batch, rows: Rows, t: Tally, ids: OutIds, sink: Sink) -> None:
    """The chunk's rows of the assignments, groups and processes tables."""
    from rmqplan.generated.text import generated_group_names, generated_process_names
    from rmqplan.report.out_tables import assignment_rows, group_batch, process_batches, repeated

    group_ids = ids.group_base + batch.group
    topic_ids = ids.topic_base + 2 * batch.group + batch.retry.astype(np.int64)
    sink("assignments", assignment_rows(batch, rows, group_ids, topic_ids, ids.broker_ids))
    groups, topics = generated_group_names(batch.names.groups)
    scenario = repeated(("baseline",), np.zeros(batch.rebalances, dtype=np.int8))
    sink("groups", group_batch(batch, t, group_ids, topic_ids, scenario, groups, topics))
    names = batch.names
    for part in process_batches(generated_process_names(names), np.zeros(len(names.process_i), dtype=np.int32),
                                ids.group_base + names.groups[names.process_group], names.process_i.astype(np.int32)):
        sink("processes", part)


def finding_lines(spec: GenerateSpec, batch: Batch, rows: Rows, t: Tally, find: Find) -> list[str]:
    """Every finding of the chunk's problem rebalances, one JSON line each, in group order
    (`rmqplan.generated.findings`)."""
    from rmqplan.generated.findings import generated_finding_lines

    return generated_finding_lines(spec, batch, rows, t, find, GeneratedDescriber(spec, batch))


def out_ids(fleet: Fleet, hand_topics: int, brokers) -> OutIds:
    return OutIds(len(fleet.groups), hand_topics, brokers.of(fleet.generate.broker_names()))


Progress = Optional[Callable[[int, int], None]]


def write_state_tables(spec: GenerateSpec, states: Optional[list], ids: OutIds, sink: Sink) -> None:
    """The chunk's scenario states' rows of the assignments, groups and processes tables (`scenario_id` is the
    state id, as for hand-written scenarios)."""
    for run in states or []:
        _write_state_run(run, ids, sink)


def _write_state_run(states: StateRun, ids: OutIds, sink: Sink) -> None:
    import pyarrow as pa

    from rmqplan.generated.text import generated_group_names, generated_process_names
    from rmqplan.report.out_tables import StepColumns, assignment_rows, group_batch, process_batches, repeated

    sb, base_names = states.sb, states.sb.batch.names.base
    batch = sb.batch
    g = np.asarray(base_names.groups)[sb.group]  # per state: the generated group index
    group_ids = ids.group_base + np.repeat(g, 2)
    topic_ids = ids.topic_base + 2 * np.repeat(g, 2) + batch.retry.astype(np.int64)
    sink("assignments", assignment_rows(batch, states.rows, group_ids, topic_ids, ids.broker_ids))
    groups, topics = generated_group_names(g)
    names = [sc.name for sc in sb.scenarios]
    scenario = repeated(tuple(names), np.repeat(sb.scenario, 2))
    step_names = np.array([[sc.step_names[i] for i in range(sc.steps)] for sc in sb.scenarios], dtype=object) \
        if len({sc.steps for sc in sb.scenarios}) == 1 else None
    if step_names is not None:
        label = step_names[sb.scenario, sb.step - 1]
    else:
        label = np.array([sb.scenarios[s].step_names[st - 1] for s, st in zip(sb.scenario.tolist(),
                                                                               sb.step.tolist())], dtype=object)
    steps = StepColumns(np.repeat(sb.step, 2).astype(np.int32), pa.array(np.repeat(label, 2), type=pa.string()),
                        states.moves.duplicate_risk.astype(np.int32), states.moves.pause.astype(np.int32))
    sink("groups", group_batch(batch, states.t, group_ids, topic_ids, scenario, groups, topics,
                               states.moves.moved.astype(np.int32), steps))
    topic_r = np.arange(0, batch.rebalances, 2)
    entries, owner = concat_ranges(batch.c_off[topic_r], batch.c_off[topic_r + 1] - batch.c_off[topic_r])
    parts = generated_process_names(base_names, batch.names.entry_k[entries], batch.names.entry_i[entries],
                                    batch.names.entry_restarted[entries])
    for part in process_batches(parts, batch.scenario[topic_r][owner].astype(np.int32), ids.group_base + g[owner],
                                (entries - batch.c_off[topic_r][owner]).astype(np.int32)):
        sink("processes", part)


def state_finding_lines(spec: GenerateSpec, batch: Batch, states: Optional[list], find: Find,
                        scenarios: list) -> list[str]:
    """The findings of the chunk's scenario states: each group's last state with a problem, and the routes'
    (PLAN004, PLAN008) of every generated topic of the chunk in each scenario that changes a generated broker's
    permissions; JSON lines, scenario by scenario."""
    from dataclasses import replace

    from rmqplan.generated.generate import generated_group_fleet
    from rmqplan.generated.states import StateDescriber
    from rmqplan.model.fleet import Broker

    lines = []
    no_topics = Fleet("<generated>", (), (), (), (), None)
    for run in states or []:
        sb = run.sb
        last = np.flatnonzero(sb.last)
        which = np.sort(np.concatenate([2 * last, 2 * last + 1]))
        which = which[run.t.problem()[which]]
        if len(which):
            results = results_of(sb.batch, run.rows, run.t, which, StateDescriber(sb, run.base.names))
            lines += [json.dumps(f.to_json()) for f in find(Simulation(no_topics, results))]
    names = spec.broker_names()
    views = {}
    for sc in scenarios:
        if not any(r != w for r, w in zip(sc.readable, sc.writable)):
            continue
        present = [b for b, r, w in zip(names, sc.readable, sc.writable) if r or w]
        topics = []
        for g in np.asarray(batch.names.groups).tolist():
            _, topic = generated_group_fleet(spec, int(g))
            topics.append(replace(topic, brokers=tuple(present), read_queues={b: topic.read_queues[b] for b in present},
                                  write_queues={b: topic.write_queues[b] for b in present}))
        brokers = tuple(Broker(b, None, r, w) for b, r, w in zip(names, sc.readable, sc.writable) if r or w)
        views[sc.name] = replace(no_topics, brokers=brokers, topics=tuple(topics))
    if views:
        lines += [json.dumps(f.to_json()) for f in find(Simulation(no_topics, [], views=views))]
    return lines


def chunk_work(spec: GenerateSpec, start: int, stop: int, limit: int, scenarios: list,
               out: Optional[OutRequest] = None, ids: Optional[OutIds] = None, sink: Optional[Sink] = None) \
        -> tuple[dict, list[str]]:
    """One chunk as an engine's task does it: its `summary` (with "start"; its first `limit` problem groups) and,
    with `out`, its rows of every table into `sink` and its findings as JSON lines, in group order."""
    batch, rows, t = run_chunk(spec, start, stop)
    states = run_states(spec, scenarios, batch, rows, t)
    lines: list[str] = []
    if out is not None:
        write_tables(spec, batch, rows, t, ids, sink)
        write_state_tables(spec, states, ids, sink)
        lines = finding_lines(spec, batch, rows, t, out.find)
        lines += state_finding_lines(spec, batch, states, out.find, scenarios)
    return {"start": start, **summary(batch, t, limit, states)}, lines


def listed_groups(spec: GenerateSpec, summaries: list[dict]) -> list[int]:
    """The generated groups the report shows in full: all of a small fleet, else the DETAIL_LIMIT worst problem
    groups of the chunks' summaries (in group order; the report puts the worst first)."""
    if spec.groups <= FULL_RESULTS_GROUPS:
        return list(range(spec.groups))
    rows = [np.asarray(s["worst_problem_groups"], dtype=np.int64).reshape(-1, 4) for s in summaries]
    return sorted(worst(np.concatenate(rows) if rows else np.zeros((0, 4)), DETAIL_LIMIT)[:, 0].tolist())


def group_details(spec: GenerateSpec, groups, scenarios: list) -> tuple[Batch, Rows, Tally, list]:
    """Some generated groups as one batch, allocated and counted, with their scenario states (`run_states`)."""
    batch = generated_batch(spec, 0, 0, groups=np.asarray(groups, dtype=np.int64))
    rows = allocate(batch)
    t = tally(batch, rows)
    return batch, rows, t, run_states(spec, scenarios, batch, rows, t)


def with_generated(fleet: Fleet, sim: Simulation, summaries: list[dict], details, written: Optional[int]) \
        -> Simulation:
    """`sim` (the hand-written part) with the generated groups: totals and problem counts of every group from the
    chunks' summaries, the listed groups' results from `details` (`group_details`' tuple, or None when none is
    listed), and with `--out` the findings written (`written`, None without)."""
    from dataclasses import replace

    from rmqplan.generated.states import merge_summaries, with_generated_states
    from rmqplan.allocation.tally import PROBLEMS

    spec = fleet.generate
    gen = {k: sum(s[k] for s in summaries) for k in TOTAL_KEYS}
    counts = {k: sum(s[k] for s in summaries) for k in PROBLEMS}
    problems = sum(s["problems"] for s in summaries)
    results, listed, steps, shown_problems, shown_ids = [], [], {}, 0, []
    if details is not None:
        batch, rows, t, states = details
        everything = np.arange(batch.rebalances)
        results = results_of(batch, rows, t, everything, GeneratedDescriber(spec, batch))
        listed, steps, state_problems = shown_state_results(spec, batch, rows, t, everything, states, results)
        shown_problems = int(t.problem().sum()) + state_problems
        shown_ids = np.unique(batch.group).tolist()
    hand = sim.totals or dict.fromkeys(TOTAL_KEYS, 0)
    whole = {k: hand.get(k, 0) + gen[k] for k in TOTAL_KEYS}
    whole["groups"] = len(fleet.groups) + spec.groups
    hand_counts = sim.problem_counts or dict.fromkeys(PROBLEMS, 0)
    sim = replace(sim, results=list(sim.results) + results, totals=whole,
                  omitted_results=sim.omitted_results + problems - shown_problems,
                  problem_counts={k: hand_counts.get(k, 0) + counts[k] for k in PROBLEMS},
                  findings_written=(sim.findings_written or 0) + written if written is not None else None)
    merged = merge_summaries([s.get("scenarios", {}) for s in summaries])
    return with_generated_states(sim, merged, listed, steps, shown_ids)

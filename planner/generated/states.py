"""Scenario states of `[generate]`d groups: the rules of `rmqplan.model.states`, as arrays, added to each chunk as more
rebalances of the same kind (the same kernel and tally run them; Spark runs them in the same tasks, no job per
state).

Which scenarios touch generated groups: those that restart every group (`rolling_restart = true` in a scenario
that names no group: every generated group rolls, each one at a time in declaration order, all in parallel, as
hand-written groups do) or take a generated broker out of consumers' routes (`remove_brokers`, or `broker_perm` without the read bit: every
generated topic and retry topic is on every generated broker, so every generated group is in the change step).
`set_queues`, `add_instances` and the other group keys name hand-written topics and groups.

A generated process's client id is its host's (unique in its group) or, in a colliding group, one shared id, so
the order of cidAll never depends on what follows the host: a stopped process leaves its place, a restarted one
takes its place back. Restarted ids follow the client: a colliding group's pid-1 containers on a pre-4.9.0 client
report the same id again; any other process reports a new pid (`1 + ((a >> 8) + 1) % 65535`, the next pid) and a
nanoTime later than every generated one (`2^31 - 1 + k` for its group's k-th restart).

Moves are counted exactly, as `rmqplan.model.scenarios.moves` does on results: a queue moves when its set of holders
(process labels) differs from the group's state before; most queues have at most one holder and compare by it,
queues held by several processes (colliding ids) compare by their sorted holder lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, Rows, concat_ranges, offsets, segment_ids
from rmqplan.model.fleet import GenerateSpec, Queue
from rmqplan.allocation.tally import Tally

CHANGE, DOWN, UP = 0, 1, 2
PERM_READ, PERM_WRITE = 4, 2


@dataclass(frozen=True)
class GeneratedScenario:
    """What a scenario does to the generated groups."""

    name: str
    first_state: int  # the batch state id of its step 1 (states are numbered fleet-wide, `rmqplan.allocation.rebalances`)
    step_names: tuple[str, ...]  # every step of the scenario (the whole fleet's)
    change: bool  # generated groups are in its step 1: a generated broker leaves consumers' routes
    readable: tuple[bool, ...]  # per generated broker, in the scenario's view
    writable: tuple[bool, ...]
    restart_from: int  # the step of "down process 1" (0: no restart of generated groups)

    @property
    def steps(self) -> int:
        return len(self.step_names)

    def touches_groups(self) -> bool:
        return self.change or self.restart_from > 0


def generated_scenarios(fleet, sequences) -> list[GeneratedScenario]:
    """The scenarios of `fleet` that touch its generated groups or their routes, with their state numbering from
    `sequences` (`rmqplan.model.states.ScenarioStates`, one per scenario, in order)."""
    if fleet.generate is None:
        return []
    names = fleet.generate.broker_names()
    out = []
    first = 1
    for seq in sequences:
        s = seq.scenario
        step_names = tuple(step.name for step in seq.steps)
        perm = dict(s.broker_perm)
        down = set(s.remove_brokers)
        readable = tuple(b not in down and bool(perm.get(b, PERM_READ | PERM_WRITE) & PERM_READ) for b in names)
        writable = tuple(b not in down and bool(perm.get(b, PERM_READ | PERM_WRITE) & PERM_WRITE) for b in names)
        change = not all(readable)  # a broker down is down for every group, whichever group the scenario names
        restart_from = 0
        if s.restarts_every_group:
            restart_from = 2 if (s.changes_routes() or s.changes_processes()) else 1
        if change or restart_from or (any(b in names for b in down | set(perm))):
            out.append(GeneratedScenario(s.name, first, step_names, change, readable, writable, restart_from))
        first += len(step_names)
    return out


# ------------------------------------------------------------------------------------------- the state batch


@dataclass
class StateBatch:
    """The scenario states of one chunk's generated groups: state s is rebalances 2s (the topic) and 2s + 1 (the
    retry topic) of `batch`. Per state: its scenario (index into the list), batch group, step, kind, restarted
    process `j` and the state before it (-1: the baseline)."""

    batch: Batch
    scenarios: list  # list[GeneratedScenario]
    scenario: np.ndarray
    group: np.ndarray
    step: np.ndarray
    kind: np.ndarray
    j: np.ndarray
    prev: np.ndarray
    last: np.ndarray  # bool: the group's last state in its scenario
    entry_process: np.ndarray  # per entry: the process i (declaration index in its group)
    entry_restarted: np.ndarray  # per entry: its process has restarted
    readable: np.ndarray  # (states, brokers) bool: the brokers of the state's routes

    @property
    def states(self) -> int:
        return len(self.group)


def state_batch(spec: GenerateSpec, base: Batch, scenarios: list[GeneratedScenario]) -> Optional[StateBatch]:
    """The states of every scenario that touches generated groups, for the groups of `base` (a
    `rmqplan.generated.generate.generated_batch`); None when there are none."""
    scenarios = [s for s in scenarios if s.touches_groups()]
    groups = base.rebalances // 2
    if not scenarios or not groups:
        return None
    n = np.diff(base.c_off)[0::2]  # processes per group
    brokers = spec.brokers
    counts = _broker_counts(base, brokers)  # (groups, brokers)
    per: list[tuple] = []
    for si, sc in enumerate(scenarios):
        restarts = 2 * n if sc.restart_from else np.zeros(groups, dtype=np.int64)
        states = restarts + (1 if sc.change else 0)
        t, k = concat_ranges(np.zeros(groups, dtype=np.int64), states)
        rel = t - (1 if sc.change else 0)  # position within the restart steps, -1 for the change step
        kind = np.where(rel < 0, CHANGE, np.where(rel % 2 == 0, DOWN, UP)).astype(np.int8)
        j = np.where(rel < 0, -1, rel // 2)
        step = np.where(rel < 0, 1, sc.restart_from + np.maximum(rel, 0))
        prev = np.where(t == 0, -1, np.arange(len(t)) - 1)
        last = t == states[k] - 1
        per.append((np.full(len(t), si), k, step, kind, j, prev, last))
    offs = np.cumsum([0] + [len(p[1]) for p in per])
    scenario = np.concatenate([p[0] for p in per])
    group = np.concatenate([p[1] for p in per])
    step = np.concatenate([p[2] for p in per]).astype(np.int32)
    kind = np.concatenate([p[3] for p in per])
    j = np.concatenate([p[4] for p in per]).astype(np.int64)
    prev = np.concatenate([np.where(p[5] < 0, -1, p[5] + o) for p, o in zip(per, offs)])
    last = np.concatenate([p[6] for p in per])
    readable = np.array([scenarios[s].readable for s in range(len(scenarios))], dtype=bool)[scenario]
    # rebalances: 2 per state; a state's routes are its scenario's view
    S = len(group)
    retry = np.tile(np.array([False, True]), S)
    r_state = np.repeat(np.arange(S), 2)
    seg_counts = np.where(retry[:, None], readable[r_state].astype(np.int64),
                          counts[group[r_state]] * readable[r_state])  # (R, brokers)
    q_counts = seg_counts.sum(axis=1)
    q_id, seg = concat_ranges(np.zeros(seg_counts.size, dtype=np.int64), seg_counts.reshape(-1))
    q_broker = np.tile(np.arange(brokers, dtype=np.int32), 2 * S)[seg]
    # entries: the state's processes in declaration order (a down state without its process j)
    n_state = n[group] - (kind == DOWN)
    n_r = np.repeat(n[group], 2)
    i, owner_r = concat_ranges(np.zeros(2 * S, dtype=np.int64), n_r)
    keep = ~((kind[r_state][owner_r] == DOWN) & (i == j[r_state][owner_r]))
    i, owner_r = i[keep], owner_r[keep]
    s_of = r_state[owner_r]
    k_of = group[s_of]
    base_entry = base.c_off[2 * k_of] + i
    position = base.c_order[base_entry]
    pj = np.where(kind[s_of] == DOWN, base.c_order[base.c_off[2 * k_of] + np.maximum(j[s_of], 0)], -1)
    position = position - ((kind[s_of] == DOWN) & (position > pj))
    colliding = np.asarray(base.names.colliding)[k_of]
    index = np.where(colliding, 0, position)
    restarted = ((kind[s_of] == UP) & (i <= j[s_of])) | ((kind[s_of] == DOWN) & (i < j[s_of]))
    batch = Batch(
        scenario=np.zeros(2 * S, dtype=np.int32),  # set by the caller when it numbers states
        group=np.repeat(base.group[0::2][group], 2),
        model=np.full(2 * S, CLUSTERING_CODE, dtype=np.int8),
        retry=retry,
        q_off=offsets(q_counts),
        c_off=offsets(np.repeat(n_state, 2)),
        q_broker=q_broker, q_id=q_id.astype(np.int32),
        c_index=index, c_order=position,
        c_asks=np.ones(len(i), dtype=bool),
        c_spec=base.c_spec[base_entry],
        c_room=np.full(len(i), -1, dtype=np.int32),
        specs=base.specs, brokers=base.brokers, broker_room=base.broker_room, rooms=base.rooms,
        names=StateNames(base.names, group, i, k_of, restarted),
    )
    batch.scenario = np.repeat(np.array([scenarios[sc].first_state for sc in scenario], dtype=np.int32)
                               + step - 1, 2)
    return StateBatch(batch, scenarios, scenario, group, step, kind, j, prev, last, i, restarted, readable)


def keep_on_failure(base: Batch, base_rows: Rows, sb: StateBatch, rows: Rows) -> Rows:
    """The state rows with what each failed process keeps (`rmqplan.allocation.failures`, for hand-written
    states). A generated strategy fails only on a topic without a readable queue (every generated broker out of
    the consumers' routes): the process keeps its share of the state before (as `extra` rows: those queues are
    not in the state's routes), unless it starts in this step (then it holds nothing)."""
    if not rows.errors:
        return rows
    b = sb.batch
    entry_r = b.entry_rebalance()
    kept: dict[int, list] = {}  # state entry -> its share (queues), filled state by state
    base_share: dict[int, list] = {}
    for e in sorted(rows.errors):  # states come after the states before them
        r = int(entry_r[e])
        s, retry = r // 2, r % 2
        i = int(sb.entry_process[e])
        if sb.kind[s] == UP and i == sb.j[s]:
            continue  # (re)started in this step: nothing to keep
        p = int(sb.prev[s])
        if p < 0:
            before = int(base.c_off[2 * int(sb.group[s]) + retry]) + i
            if not base_share:
                base_share = _shares_by_entry(base, base_rows)
            share = base_share.get(before, [])
        else:
            rp = 2 * p + retry
            before = int(b.c_off[rp]) + i - int(sb.kind[p] == DOWN and i > sb.j[p])
            share = kept.get(before, [])
        if share:
            kept[e] = share
    if not kept:
        return rows
    extra = list(rows.extra) + [(e, q, k) for e, share in kept.items() for k, q in enumerate(share)]
    return Rows(rows.entry, rows.queue, rows.pos, extra, dict(rows.errors))


def _shares_by_entry(batch: Batch, rows: Rows) -> dict[int, list]:
    """entry -> its share as Queues, in list order (a generated strategy gives queues of its rebalance only)."""
    out: dict[int, list] = {}
    r_of = batch.entry_rebalance()
    pos = rows.pos if rows.pos is not None else rows.queue
    for e, q, _ in sorted(zip(rows.entry.tolist(), rows.queue.tolist(), pos.tolist()), key=lambda x: (x[0], x[2])):
        out.setdefault(e, []).append(batch.queue(int(r_of[e]), q))
    return out


def kept_keys(sb: StateBatch, rows: Rows) -> np.ndarray:
    """The kept queues of the state rows (`keep_on_failure`) as sorted keys (rebalance, broker, queue id)."""
    if not rows.extra:
        return np.zeros(0, dtype=np.int64)
    b = sb.batch
    entry_r = b.entry_rebalance()
    broker = {name: k for k, name in enumerate(b.brokers)}
    return np.unique(np.array([_queue_key(int(entry_r[e]), broker[q.broker], q.queue_id, len(b.brokers))
                               for e, q, _ in rows.extra], dtype=np.int64))


def _queue_key(r, broker, queue_id, brokers):
    return (r * brokers + broker) * (1 << 32) + queue_id


def _broker_counts(base: Batch, brokers: int) -> np.ndarray:
    """Read queues per (group, broker) of a generated batch (its topic rebalances 2k)."""
    groups = base.rebalances // 2
    r = segment_ids(base.q_off)
    topic = ~base.retry[r]
    counts = np.zeros((groups, brokers), dtype=np.int64)
    np.add.at(counts, (r[topic] // 2, base.q_broker[topic]), 1)
    return counts


@dataclass
class StateNames:
    """The strings of a state batch: the generated names of the baseline, a restarted process with its new id."""

    base: object  # rmqplan.generated.generate.GeneratedNames
    state_group: np.ndarray
    entry_i: np.ndarray
    entry_k: np.ndarray
    entry_restarted: np.ndarray

    def topic(self, r: int) -> str:
        k = int(self.state_group[r // 2])
        return self.base.topic(2 * k + (r % 2))

    def client_ids(self, entries) -> list[str]:
        out = []
        for e in np.asarray(entries).tolist():
            k, i = int(self.entry_k[e]), int(self.entry_i[e])
            out.append(_id(self.base, k, i, bool(self.entry_restarted[e])))
        return out


    # The same strings in bulk (`rmqplan.allocation.batch`).

    def client_keys(self, entries):
        k, i = self.entry_k[entries], self.entry_i[entries]
        colliding = np.asarray(self.base.colliding)[k]
        return np.where(colliding, -1 - k, (k << 32) | (i << 1) | self.entry_restarted[entries])

    def client_id_bytes(self, entries):
        from rmqplan.generated.generate import MODULUS, NANOTIME_STEP, PROCESS_STEP, client_id_bytes

        names = self.base
        k, i = self.entry_k[entries], self.entry_i[entries]
        restarted = self.entry_restarted[entries]
        a = (names.a0[k] + i * PROCESS_STEP) % MODULUS
        pid = np.where(restarted, 1 + ((a >> 8) + 1) % 65535, 1 + (a >> 8) % 65535)
        nano = np.where(restarted, MODULUS + i + 1, (names.nano0[k] + i * NANOTIME_STEP) % MODULUS)
        return client_id_bytes(np.asarray(names.colliding)[k], names.shared_host[k], a, i, pid, nano)

    def topic_bytes(self, rebalances):
        return self.base.topic_bytes(2 * self.state_group[rebalances // 2] + rebalances % 2)

    def topic_list(self, rebalances) -> list[str]:
        return self.base.topic_list(2 * self.state_group[rebalances // 2] + rebalances % 2)


def _id(names, k: int, i: int, restarted: bool) -> str:
    """The client id of process i of batch group k (`rmqplan.generated.generate`), or the one it reports after its restart,
    its group's (i + 1)-th."""
    from rmqplan.generated.generate import MODULUS, NANOTIME_STEP, PROCESS_STEP

    if names.colliding[k]:
        return f"10.{int(names.shared_host[k])}.0.1@1"
    a = (int(names.a0[k]) + i * PROCESS_STEP) % MODULUS
    nano = (int(names.nano0[k]) + i * NANOTIME_STEP) % MODULUS
    pid = 1 + (a >> 8) % 65535
    if restarted:
        pid, nano = 1 + ((a >> 8) + 1) % 65535, MODULUS + i + 1
    return f"10.{a % 256}.{i // 256}.{i % 256}@{pid}#{nano}"


# ------------------------------------------------------------------------------------------------- the moves


@dataclass
class StateMoves:
    """Per state rebalance: moved queues against the state before and, of those, the duplicate-risk and pause
    moves; per state rebalance of a group's last state: moved queues against the baseline (the scenario's
    entry)."""

    moved: np.ndarray
    duplicate_risk: np.ndarray
    pause: np.ndarray
    moved_from_baseline: np.ndarray


def _owners(batch: Batch, rows: Rows, t: Tally, process_of_entry: np.ndarray) -> np.ndarray:
    """Per queue: its one holder's process index, -1 when it has none or several."""
    owner = np.full(batch.queue_count, -1, dtype=np.int64)
    owner[rows.queue] = process_of_entry[rows.entry]
    owner[t.holders != 1] = -1
    return owner


def _starts(batch: Batch, brokers: int) -> np.ndarray:
    """(rebalances, brokers): the batch index of each broker's queue 0 in the rebalance's layout, -1 if absent."""
    r = segment_ids(batch.q_off)
    first = np.full((batch.rebalances, brokers), -1, dtype=np.int64)
    is_first = batch.q_id == 0
    first[r[is_first], batch.q_broker[is_first]] = np.flatnonzero(is_first)
    return first


def state_moves(spec: GenerateSpec, base: Batch, base_rows: Rows, base_t: Tally, sb: StateBatch, rows: Rows,
                t: Tally) -> StateMoves:
    """The moves of every state rebalance (exact; see the module docstring)."""
    brokers = spec.brokers
    base_proc = np.asarray(base.names.process_i)[np.asarray(base.names.entry_process)]
    state_proc = sb.entry_process
    R = sb.batch.rebalances
    r_state = np.repeat(np.arange(sb.states), 2)
    is_retry = sb.batch.retry
    stopped = np.where(sb.kind == DOWN, sb.j, -1)[r_state]
    # the rebalance before each state rebalance: in the state batch, or the baseline's (2k + retry)
    prev_state = sb.prev[r_state]
    before_in_base = prev_state < 0
    before_r = np.where(before_in_base, 2 * sb.group[r_state] + is_retry, 2 * np.maximum(prev_state, 0) + is_retry)
    # the last state of each group also against the baseline
    final_r = np.flatnonzero(sb.last[r_state])
    pairs_after = np.concatenate([np.arange(R), final_r])
    pairs_before = np.concatenate([before_r, 2 * sb.group[r_state[final_r]] + is_retry[final_r]])
    pairs_in_base = np.concatenate([before_in_base, np.ones(len(final_r), dtype=bool)])
    pairs_stopped = np.concatenate([stopped, stopped[final_r]])
    counted = _compare(base, base_rows, base_t, base_proc, sb.batch, rows, t, state_proc, pairs_after,
                       pairs_before, pairs_in_base, pairs_stopped, brokers, kept_keys(sb, rows))
    moved, risk, pause = counted
    return StateMoves(moved[:R], risk[:R], pause[:R], _spread(final_r, moved[R:], R))


def _spread(index: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    out[index] = values
    return out


def _compare(base, base_rows, base_t, base_proc, sbatch, rows, t, state_proc, after, before, in_base, stopped,
             brokers, kept) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair (after rebalance in the state batch, before rebalance in the base or state batch): moved,
    duplicate-risk and pause counts."""
    P = len(after)
    own_a = _owners(sbatch, rows, t, state_proc)
    own_b = np.concatenate([_owners(base, base_rows, base_t, base_proc), _owners(sbatch, rows, t, state_proc)])
    held_b = np.concatenate([base_t.holders, t.holders])
    shift = base.queue_count  # before-side queue indices: base first, then the state batch
    starts_b = np.concatenate([_starts(base, brokers), _starts(sbatch, brokers) + np.where(
        _starts(sbatch, brokers) >= 0, shift, 0)])
    before_row = np.where(in_base, before, before + base.rebalances)
    # after queues of each pair, mapped to the before layout by (broker, queue id)
    qa, pair = concat_ranges(sbatch.q_off[after], sbatch.q_off[after + 1] - sbatch.q_off[after])
    qb = starts_b[before_row[pair], sbatch.q_broker[qa]] + sbatch.q_id[qa]
    ha, hb = t.holders[qa], held_b[qb]
    oa, ob = own_a[qa], own_b[qb]
    single = (ha <= 1) & (hb <= 1)
    changed = single & ((ha != hb) | (oa != ob))
    st = stopped[pair]
    # one holder before and it stopped: a pause (whether or not someone took it); it runs on: a duplicate risk
    # when another took it, else it was dropped; no holder before: picked up
    kind_risk = single & changed & (hb == 1) & (ha == 1) & (ob != st)
    kind_pause = single & changed & (hb == 1) & (ob == st)
    moved = np.bincount(pair[changed], minlength=P)
    risk = np.bincount(pair[kind_risk], minlength=P)
    pause = np.bincount(pair[kind_pause], minlength=P)
    multi = ~single
    if multi.any():
        m_moved, m_risk, m_pause = _compare_sets(qa[multi], qb[multi], pair[multi], st[multi], sbatch, rows,
                                                 state_proc, base, base_rows, base_proc, shift, P)
        moved += m_moved
        risk += m_risk
        pause += m_pause
    # before queues that left the route while held (a broker no longer in the after layout), unless kept
    gone = _gone(before_row, after, starts_b, sbatch, held_b, brokers, base, shift, kept)
    return moved + gone, risk, pause


def _gone(before_row, after, starts_b, sbatch, held_b, brokers, base, shift, kept) -> np.ndarray:
    starts_a = _starts(sbatch, brokers)[after]
    present_b = starts_b[before_row] >= 0
    missing = present_b & (starts_a < 0)  # (pairs, brokers)
    if not missing.any():
        return np.zeros(len(after), dtype=np.int64)
    out = np.zeros(len(after), dtype=np.int64)
    p, b = np.nonzero(missing)
    # the before layout's queues on broker b: from its start to the next broker's start (or the rebalance's end)
    q_end_b = np.concatenate([base.q_off[1:], sbatch.q_off[1:] + shift])
    rows_b = before_row[p]
    lo = starts_b[rows_b, b]
    nxt = starts_b[rows_b].copy()
    nxt[nxt <= lo[:, None]] = np.iinfo(np.int64).max
    hi = np.minimum(nxt.min(axis=1), q_end_b[rows_b])
    q, owner = concat_ranges(lo, hi - lo)
    held = held_b[q] > 0
    if len(kept):  # a failed process keeps it (`keep_on_failure`): still held, no move
        q_broker = np.concatenate([base.q_broker, sbatch.q_broker])[q]
        q_id = np.concatenate([base.q_id, sbatch.q_id])[q]
        held &= ~np.isin(_queue_key(after[p[owner]], q_broker.astype(np.int64), q_id.astype(np.int64), brokers),
                         kept)
    np.add.at(out, p[owner[held]], 1)
    return out


def _compare_sets(qa, qb, pair, stopped, sbatch, rows, state_proc, base, base_rows, base_proc, shift, P):
    """Queues held by several processes on either side: compare their sorted holder lists (slot = the pair's
    queue; a queue may be in two pairs: a step's after side, and the baseline of a group's last state)."""
    n = len(qa)
    in_a = np.zeros(sbatch.queue_count, dtype=bool)
    in_a[qa] = True
    a_rows = np.flatnonzero(in_a[rows.queue])
    a_slot, a_row = _slots_by_queue(qa)(rows.queue[a_rows])
    a_row = a_rows[a_row]
    in_b = np.zeros(base.queue_count + sbatch.queue_count, dtype=bool)
    in_b[qb] = True
    b_queue = np.concatenate([base_rows.queue, rows.queue + shift])
    b_proc = np.concatenate([base_proc[base_rows.entry], state_proc[rows.entry]])
    b_rows = np.flatnonzero(in_b[b_queue])
    b_slot, b_row = _slots_by_queue(qb)(b_queue[b_rows])
    b_row = b_rows[b_row]
    slot = np.concatenate([a_slot, b_slot])
    proc = np.concatenate([state_proc[rows.entry[a_row]], b_proc[b_row]])
    side = np.concatenate([np.ones(len(a_slot), dtype=np.int8), np.zeros(len(b_slot), dtype=np.int8)])
    order = np.lexsort((side, proc, slot))
    slot, proc, side = slot[order], proc[order], side[order]
    key_change = np.concatenate(([True], (slot[1:] != slot[:-1]) | (proc[1:] != proc[:-1])))
    start = np.flatnonzero(key_change)
    count = np.diff(np.append(start, len(slot)))
    u_slot, u_proc = slot[start], proc[start]
    u_after = (count == 2) | (side[start] == 1)
    u_before = (count == 2) | (side[start] == 0)
    gained = u_after & ~u_before
    lost = u_before & ~u_after
    lost_running = lost & (u_proc != stopped[u_slot])
    any_gained = np.bincount(u_slot[gained], minlength=n) > 0
    any_lost = np.bincount(u_slot[lost], minlength=n) > 0
    any_lost_running = np.bincount(u_slot[lost_running], minlength=n) > 0
    before_count = np.bincount(u_slot[u_before], minlength=n)
    after_count = np.bincount(u_slot[u_after], minlength=n)
    changed = any_gained | any_lost
    paused = changed & ~any_gained & (after_count == 0) & ~any_lost_running
    risk = changed & any_gained & (before_count > 0) & (any_lost_running | ~any_lost)
    pause = paused | (changed & any_gained & (before_count > 0) & any_lost & ~any_lost_running)
    return (np.bincount(pair[changed], minlength=P), np.bincount(pair[risk], minlength=P),
            np.bincount(pair[pause], minlength=P))


def _slots_by_queue(queues: np.ndarray):
    """A lookup: for given queue indices, every (slot, position) where `queues[slot]` is that queue."""
    order = np.argsort(queues, kind="stable")
    sorted_q = queues[order]

    def lookup(wanted: np.ndarray):
        lo = np.searchsorted(sorted_q, wanted, "left")
        hi = np.searchsorted(sorted_q, wanted, "right")
        slots, owner = concat_ranges(lo, hi - lo)
        return order[slots], owner

    return lookup


# ----------------------------------------------------------------------------------------- what is reported


def state_processes(names, sb: StateBatch, s: int, strategy) -> list:
    """The processes of state s (`rmqplan.model.Process`), declaration order: the group's, without the stopped
    one, restarted ones with their new client ids."""
    from dataclasses import replace

    k, kind, j = int(sb.group[s]), int(sb.kind[s]), int(sb.j[s])
    out = []
    for i, p in enumerate(names.processes(k, strategy)):
        if kind == DOWN and i == j:
            continue
        if (kind == UP and i <= j) or (kind == DOWN and i < j):
            again = _id(names, k, i, True)
            why = "restarted" if again == p.client_id else "restarted with a new pid and a later nanoTime"
            p = replace(p, client_id=again, id_source=f"{p.id_source}, {why}")
        out.append(p)
    return out


class StateDescriber:
    """Names of a state batch's rebalances (rebalance 2s is state s's topic, 2s + 1 its retry topic)."""

    def __init__(self, sb: StateBatch, base_names):
        self.sb, self.names = sb, base_names
        self._processes: dict[int, list] = {}

    def __call__(self, r: int):
        from rmqplan.allocation.results import Described

        sb, batch, s = self.sb, self.sb.batch, r // 2
        processes = self._processes.get(s)
        if processes is None:
            strategy = batch.specs[int(batch.c_spec[batch.c_off[r]])] if batch.c_off[r + 1] > batch.c_off[r] else \
                batch.specs[0]
            processes = self._processes[s] = state_processes(self.names, sb, s, strategy)
        lo, hi = int(batch.q_off[r]), int(batch.q_off[r + 1])
        topic = batch.names.topic(r)
        queues = [Queue(topic, batch.brokers[b], i)
                  for b, i in zip(batch.q_broker[lo:hi].tolist(), batch.q_id[lo:hi].tolist())]
        from rmqplan.generated.generate import group_name

        name = sb.scenarios[int(sb.scenario[s])].name
        return Described(name, group_name(int(self.names.groups[int(sb.group[s])])), topic, queues, processes)


def _per_state(values: np.ndarray) -> np.ndarray:
    return values[0::2] + values[1::2]


def state_summary(sb: StateBatch, t: Tally, moves: StateMoves, base: Batch, base_t: Tally) -> dict:
    """Per scenario: per-step counts (`rmqplan.model.scenarios.STEP_KEYS`), the queues the groups' last states move
    against the baseline, the problems of those last states (`rmqplan.allocation.tally.PROBLEMS`) and how many of their
    rebalances have one, and the generated group ids with one, with their weights."""
    from rmqplan.allocation.tally import PROBLEMS, problem_weights

    out = {}
    for si, sc in enumerate(sb.scenarios):
        mine = np.flatnonzero(sb.scenario == si)
        steps = sc.steps
        at = sb.step[mine] - 1

        def by_step(values) -> list[int]:
            return np.bincount(at, weights=values, minlength=steps).astype(np.int64).tolist()

        counts = {"moves": by_step(_per_state(moves.moved)[mine]),
                  "duplicate_risk_moves": by_step(_per_state(moves.duplicate_risk)[mine]),
                  "pause_moves": by_step(_per_state(moves.pause)[mine])}
        for key in ("orphaned", "duplicated", "idle"):
            counts[key] = by_step(_per_state(getattr(t, key))[mine])
        groups = np.unique(sb.group[mine])
        for key in ("orphaned", "duplicated"):
            value = _per_state(getattr(t, key))[mine]
            base_value = _per_state(getattr(base_t, key))
            before = np.where(sb.prev[mine] >= 0, _per_state(getattr(t, key))[np.maximum(sb.prev[mine], 0)],
                              base_value[sb.group[mine]])
            delta = np.bincount(at, weights=value - before, minlength=steps)
            counts[f"current_{key}"] = (int(base_value[groups].sum()) + np.cumsum(delta)).astype(np.int64).tolist()
        last = mine[sb.last[mine]]
        last_r = np.sort(np.concatenate([2 * last, 2 * last + 1]))
        problem = t.problem()[last_r]
        group_of = np.repeat(base.group[0::2][sb.group], 2)  # per state rebalance: its generated group
        weights = problem_weights(group_of, t, last_r[problem])
        out[sc.name] = {
            "steps": counts,
            "moved_queues": int(_per_state(moves.moved_from_baseline)[last].sum()),
            "problems": {name: int((getattr(t, name)[last_r] > 0).sum()) for name in PROBLEMS},
            "problem_results": int(problem.sum()),
            "problem_groups": weights[:, 0].tolist(),
            "problem_weights": weights.tolist(),  # [group, error, lost, processes], for the worst groups
        }
    return out


def merge_summaries(parts: list[dict]) -> dict:
    """The chunks' `state_summary`s added up (lists element by element)."""
    out: dict = {}
    for part in parts:
        for name, s in part.items():
            mine = out.setdefault(name, {"steps": {k: [0] * len(v) for k, v in s["steps"].items()},
                                         "moved_queues": 0, "problems": dict.fromkeys(s["problems"], 0),
                                         "problem_results": 0, "problem_groups": []})
            for k, v in s["steps"].items():
                mine["steps"][k] = [a + b for a, b in zip(mine["steps"][k], v)]
            mine["moved_queues"] += s["moved_queues"]
            for k, v in s["problems"].items():
                mine["problems"][k] += v
            mine["problem_results"] += s["problem_results"]
            mine["problem_groups"] += s["problem_groups"]
    return out


def shown_results(sb: StateBatch, rows: Rows, t: Tally, groups: np.ndarray, base_results: dict, base_names):
    """The results of batch groups `groups` in every state: (the scenario entries: each group's last state against
    the baseline; {scenario: {step: results}}: each state against the group's state before). `base_results`:
    (group, topic) -> the baseline's result."""
    import copy

    from rmqplan.allocation.results import results_of
    from rmqplan.model.scenarios import moved_queues, moves

    states = np.flatnonzero(np.isin(sb.group, groups))
    if not len(states):
        return [], {}
    which = np.sort(np.concatenate([2 * states, 2 * states + 1]))
    results = results_of(sb.batch, rows, t, which, StateDescriber(sb, base_names))
    by_r = dict(zip(which.tolist(), results))
    listed, steps = [], {}
    for s in states.tolist():
        name = sb.scenarios[int(sb.scenario[s])].name
        for retry in (0, 1):
            res = by_r[2 * s + retry]
            p = int(sb.prev[s])
            before = by_r[2 * p + retry] if p >= 0 else base_results.get((res.group, res.topic))
            step = copy.copy(res)
            step.moves = moves(before, step)
            step.moved = [m.queue for m in step.moves]
            steps.setdefault(name, {}).setdefault(int(sb.step[s]), []).append(step)
            if sb.last[s]:
                res.moved = moved_queues(base_results.get((res.group, res.topic)), res)
                listed.append(res)
    return listed, steps


# ------------------------------------------------------------------------------------ into the Simulation


def restart_processes(fleet) -> int:
    """The most processes any generated group has when a scenario restarts every group (the down/up pairs it takes
    for them), else 0."""
    from rmqplan.generated.generate import largest_group

    if fleet.generate is None or not any(s.restarts_every_group for s in fleet.scenarios):
        return 0
    return largest_group(fleet.generate)


def fleet_scenario_states(fleet) -> list:
    """Every scenario's states (`rmqplan.model.states.scenario_states`), generated groups' restarts counted."""
    from rmqplan.model.states import scenario_states

    most = restart_processes(fleet)
    return [scenario_states(fleet, s, most) for s in fleet.scenarios]


def fleet_generated_scenarios(fleet) -> list[GeneratedScenario]:
    """`generated_scenarios` of a fleet, from its scenarios' states (numbered as the engines number them)."""
    if fleet.generate is None or not fleet.scenarios:
        return []
    return generated_scenarios(fleet, fleet_scenario_states(fleet))


def merge_steps(into: dict, more: dict) -> None:
    """{scenario: {step: results}} of another chunk added to `into`."""
    for name, by_step in more.items():
        mine = into.setdefault(name, {})
        for step, results in by_step.items():
            mine.setdefault(step, []).extend(results)


def with_generated_states(sim, merged: dict, listed: list, steps: dict, shown_groups=()):
    """The Simulation with the generated groups' scenario states: counts of every group (`merge_summaries` of the
    chunks), the listed groups' last states and steps, and the generated topics' routes in each scenario's view
    (PLAN004, PLAN008: the listed groups' topics in the view, the others counted)."""
    from dataclasses import replace

    from rmqplan.model.simulation import StepResult
    from rmqplan.model.scenarios import STEP_KEYS, add_counts, scenario_counts

    sim = with_generated_routes(sim, list(shown_groups))
    if not merged and not listed:
        return sim
    step_counts, moved = dict(sim.step_counts), dict(sim.moved_counts)
    problem_counts = dict(sim.problem_counts or {})
    for name, s in merged.items():
        per_step = [{k: s["steps"][k][i] for k in STEP_KEYS} for i in range(len(s["steps"]["moves"]))]
        step_counts[name] = add_counts(scenario_counts(sim, name), per_step)
        moved[name] = sim.moved_counts.get(name, sum(len(r.moved) for r in sim.results if r.scenario == name)) \
            + s["moved_queues"]
        for k, v in s["problems"].items():
            problem_counts[k] = problem_counts.get(k, 0) + v
    new_steps = {name: [StepResult(st.scenario, st.index, st.name,
                                   list(st.results) + steps.get(name, {}).get(st.index, []))
                        for st in sim_steps] for name, sim_steps in sim.steps.items()}
    return replace(sim, results=list(sim.results) + listed, steps=new_steps, step_counts=step_counts,
                   moved_counts=moved, problem_counts=problem_counts)


def with_generated_routes(sim, shown_groups: list[int]):
    """Each scenario that changes a generated broker's permissions gets the listed generated groups' topics (and
    the generated brokers) in its view, and counts the same findings of the other generated topics: every
    generated topic is on every generated broker, so a write-only broker gives each a PLAN004 and a read-only one
    a PLAN008."""
    from dataclasses import replace

    from rmqplan.generated.generate import generated_group_fleet
    from rmqplan.model.fleet import Broker

    fleet, spec = sim.fleet, sim.fleet.generate
    if spec is None:
        return sim
    views, unlisted = dict(sim.views), dict(sim.unlisted_findings)
    names = spec.broker_names()
    hidden = spec.groups - len(shown_groups)
    for sc in fleet_generated_scenarios(fleet):
        lost = any(w and not r for r, w in zip(sc.readable, sc.writable))
        empty = any(r and not w for r, w in zip(sc.readable, sc.writable))
        if not (lost or empty):
            continue
        view = views.get(sc.name, fleet)
        present = [b for b, r, w in zip(names, sc.readable, sc.writable) if r or w]
        brokers = tuple(b for b in view.brokers if b.name not in names) + tuple(
            Broker(b, None, r, w) for b, r, w in zip(names, sc.readable, sc.writable) if r or w)
        topics = []
        for g in shown_groups:
            _, topic = generated_group_fleet(spec, int(g))
            topics.append(replace(topic, brokers=tuple(present), read_queues={b: topic.read_queues[b] for b in present},
                                  write_queues={b: topic.write_queues[b] for b in present}))
        views[sc.name] = replace(view, brokers=brokers, topics=tuple(view.topics) + tuple(topics), scenarios=())
        if lost:
            unlisted["PLAN004"] = unlisted.get("PLAN004", 0) + hidden
        if empty:
            unlisted["PLAN008"] = unlisted.get("PLAN008", 0) + hidden
    return replace(sim, views=views, unlisted_findings=unlisted)

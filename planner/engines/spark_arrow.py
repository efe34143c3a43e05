"""The Spark boundary of the kernel: batches and their results as Arrow record batches.

A hand-written batch travels as one row per rebalance, its queues and cidAll entries as list columns (the list
offsets are the batch's offsets); the tables every row refers to (strategy specs, broker names, rooms) travel
with the task. A result comes back as one row per rebalance: who holds what (indices local to the rebalance), the
errors, the per-queue holders and per-entry share sizes, and the tally's counts.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pyarrow as pa

from rmqplan.allocation.batch import Batch, Rows, offsets, segment_ids
from rmqplan.allocation.tally import Tally

BATCH_COLUMNS = [
    ("r", pa.int64()), ("scenario", pa.int32()), ("group", pa.int64()), ("model", pa.int8()),
    ("retry", pa.bool_()), ("topic", pa.string()),
    ("q_broker", pa.list_(pa.int32())), ("q_id", pa.list_(pa.int32())),
    ("c_index", pa.list_(pa.int64())), ("c_order", pa.list_(pa.int64())), ("c_asks", pa.list_(pa.bool_())),
    ("c_spec", pa.list_(pa.int32())), ("c_room", pa.list_(pa.int32())), ("c_cid", pa.list_(pa.string())),
]
BATCH_SCHEMA = pa.schema(BATCH_COLUMNS)

COUNT_COLUMNS = ("subscribers", "assignments", "orphaned", "duplicated", "idle", "errored", "imbalanced")
RESULT_COLUMNS = [
    ("r", pa.int64()),
    ("s_entry", pa.list_(pa.int32())), ("s_queue", pa.list_(pa.int32())), ("s_pos", pa.list_(pa.int64())),
    ("x_entry", pa.list_(pa.int32())), ("x_topic", pa.list_(pa.string())), ("x_broker", pa.list_(pa.string())),
    ("x_id", pa.list_(pa.int32())), ("x_pos", pa.list_(pa.int64())),
    ("err_entry", pa.list_(pa.int32())), ("err", pa.list_(pa.string())),
    ("holders", pa.list_(pa.int32())), ("held", pa.list_(pa.int32())),
    *((name, pa.int64()) for name in COUNT_COLUMNS),
]
RESULT_SCHEMA = pa.schema(RESULT_COLUMNS)


def spark_ddl(schema: pa.Schema) -> str:
    """The Spark DDL of an Arrow schema of the types used here."""
    names = {pa.int8(): "tinyint", pa.int32(): "int", pa.int64(): "bigint", pa.bool_(): "boolean",
             pa.string(): "string"}

    def ddl(t) -> str:
        if pa.types.is_list(t):
            return f"array<{ddl(t.value_type)}>"
        return names[t]

    return ", ".join(f"`{f.name}` {ddl(f.type)}" for f in schema)


def _lists(off: np.ndarray, values: np.ndarray, typ) -> pa.ListArray:
    return pa.ListArray.from_arrays(pa.array(off.astype(np.int32)), pa.array(values, type=typ))


# --------------------------------------------------------------------------------------------------- batches


def batch_table(batch: Batch) -> pa.Table:
    """A (hand-written) batch as one row per rebalance."""
    rs = np.arange(batch.rebalances, dtype=np.int64)
    cids = batch.names.client_ids(np.arange(batch.entries))
    columns = [
        rs, batch.scenario, batch.group, batch.model, batch.retry, [batch.names.topic(r) for r in rs.tolist()],
        _lists(batch.q_off, batch.q_broker, pa.int32()), _lists(batch.q_off, batch.q_id, pa.int32()),
        _lists(batch.c_off, batch.c_index, pa.int64()), _lists(batch.c_off, batch.c_order, pa.int64()),
        _lists(batch.c_off, batch.c_asks, pa.bool_()), _lists(batch.c_off, batch.c_spec, pa.int32()),
        _lists(batch.c_off, batch.c_room, pa.int32()), _lists(batch.c_off, np.array(cids, dtype=object), pa.string()),
    ]
    return pa.Table.from_arrays([pa.array(c, type=t) if not isinstance(c, pa.Array) else c
                                 for c, (_, t) in zip(columns, BATCH_COLUMNS)], schema=BATCH_SCHEMA)


class _TableNames:
    def __init__(self, topics: list[str], client_ids: list[str]):
        self._topics, self._client_ids = topics, client_ids

    def topic(self, r: int) -> str:
        return self._topics[r]

    def client_ids(self, entries: np.ndarray) -> list[str]:
        return [self._client_ids[e] for e in entries.tolist()]


def _flat(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets from 0, flat values) of a list column."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    off = column.offsets.to_numpy().astype(np.int64)
    return off - off[0], column.flatten().to_numpy(zero_copy_only=False)


def table_batch(table: pa.Table | pa.RecordBatch, tables: dict) -> tuple[np.ndarray, Batch]:
    """(the rebalances' ids, the Batch) of rows made by `batch_table`; `tables`: specs, brokers, broker_room,
    rooms of the original batch."""
    col = {name: table.column(name) for name in table.schema.names}
    q_off, q_broker = _flat(col["q_broker"])
    _, q_id = _flat(col["q_id"])
    c_off, c_index = _flat(col["c_index"])
    flat = {name: _flat(col[name])[1] for name in ("c_order", "c_asks", "c_spec", "c_room", "c_cid")}
    cids = list(flat["c_cid"])
    batch = Batch(
        scenario=col["scenario"].to_numpy(), group=col["group"].to_numpy(),
        model=col["model"].to_numpy(), retry=col["retry"].to_numpy(zero_copy_only=False),
        q_off=q_off, c_off=c_off, q_broker=q_broker.astype(np.int32), q_id=q_id.astype(np.int32),
        c_index=c_index.astype(np.int64), c_order=flat["c_order"].astype(np.int64),
        c_asks=flat["c_asks"].astype(bool), c_spec=flat["c_spec"].astype(np.int32),
        c_room=flat["c_room"].astype(np.int32),
        specs=tables["specs"], brokers=tables["brokers"], broker_room=tables["broker_room"], rooms=tables["rooms"],
        names=_TableNames(col["topic"].to_pylist(), cids),
        c_empty_id=np.array([c == "" for c in cids], dtype=bool) if "" in cids else None,
    )
    return col["r"].to_numpy(), batch


def batch_tables(batch: Batch) -> dict:
    return {"specs": batch.specs, "brokers": batch.brokers, "broker_room": batch.broker_room, "rooms": batch.rooms}


# --------------------------------------------------------------------------------------------------- results


def result_batch(ids: np.ndarray, batch: Batch, rows: Rows, t: Tally, which: np.ndarray | None = None) \
        -> pa.RecordBatch:
    """The results of the rebalances `which` (default all) as rows of RESULT_SCHEMA; `ids[r]` is the id the
    caller knows rebalance r by."""
    which = np.arange(batch.rebalances) if which is None else np.asarray(which, dtype=np.int64)
    entry_r = batch.entry_rebalance()
    # shares, by rebalance
    keep = np.isin(entry_r[rows.entry], which)
    entry, queue = rows.entry[keep], rows.queue[keep]
    pos = rows.pos[keep] if rows.pos is not None else queue
    r_of = entry_r[entry]
    order = np.argsort(r_of, kind="stable")
    entry, queue, pos, r_of = entry[order], queue[order], pos[order], r_of[order]
    slot = np.full(batch.rebalances, -1, dtype=np.int64)
    slot[which] = np.arange(len(which))
    s_off = offsets(np.bincount(slot[r_of], minlength=len(which)))
    extra = [x for x in rows.extra if slot[entry_r[x[0]]] >= 0]
    extra.sort(key=lambda x: slot[entry_r[x[0]]])
    x_slot = np.array([slot[entry_r[e]] for e, _, _ in extra], dtype=np.int64)
    x_off = offsets(np.bincount(x_slot, minlength=len(which)))
    errors = sorted(((slot[entry_r[e]], e, msg) for e, msg in rows.errors.items() if slot[entry_r[e]] >= 0))
    err_off = offsets(np.bincount(np.array([s for s, _, _ in errors], dtype=np.int64), minlength=len(which)))
    q_counts, c_counts = np.diff(batch.q_off)[which], np.diff(batch.c_off)[which]
    q_sel = np.concatenate([np.arange(batch.q_off[r], batch.q_off[r + 1]) for r in which]) if len(which) \
        else np.zeros(0, dtype=np.int64)
    c_sel = np.concatenate([np.arange(batch.c_off[r], batch.c_off[r + 1]) for r in which]) if len(which) \
        else np.zeros(0, dtype=np.int64)
    arrays = [
        pa.array(ids[which], type=pa.int64()),
        _lists(s_off, (entry - batch.c_off[r_of]).astype(np.int32), pa.int32()),
        _lists(s_off, (queue - batch.q_off[r_of]).astype(np.int32), pa.int32()),
        _lists(s_off, pos.astype(np.int64), pa.int64()),
        _lists(x_off, np.array([e - batch.c_off[entry_r[e]] for e, _, _ in extra], dtype=np.int32), pa.int32()),
        _lists(x_off, np.array([q.topic for _, q, _ in extra], dtype=object), pa.string()),
        _lists(x_off, np.array([q.broker for _, q, _ in extra], dtype=object), pa.string()),
        _lists(x_off, np.array([q.queue_id for _, q, _ in extra], dtype=np.int32), pa.int32()),
        _lists(x_off, np.array([p for _, _, p in extra], dtype=np.int64), pa.int64()),
        _lists(err_off, np.array([e - batch.c_off[entry_r[e]] for _, e, _ in errors], dtype=np.int32), pa.int32()),
        _lists(err_off, np.array([msg for _, _, msg in errors], dtype=object), pa.string()),
        _lists(offsets(q_counts), t.holders[q_sel].astype(np.int32), pa.int32()),
        _lists(offsets(c_counts), t.held[c_sel].astype(np.int32), pa.int32()),
        *(pa.array(getattr(t, name)[which].astype(np.int64), type=pa.int64()) for name in COUNT_COLUMNS),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=RESULT_SCHEMA)


def rows_and_tally(batch: Batch, results: pa.Table) -> tuple[Rows, Tally]:
    """Rebuild the kernel's rows and the tally of `batch` from the result rows Spark sent back (one per
    rebalance, `r` = the rebalance's index in `batch`)."""
    from rmqplan.model.fleet import Queue

    results = results.sort_by("r")
    r = results.column("r").to_numpy()
    if not np.array_equal(r, np.arange(batch.rebalances)):
        raise RuntimeError(f"the Spark engine returned {len(r)} of {batch.rebalances} rebalances")
    s_off, s_entry = _flat(results.column("s_entry"))
    _, s_queue = _flat(results.column("s_queue"))
    _, s_pos = _flat(results.column("s_pos"))
    s_r = segment_ids(s_off)
    rows = Rows(s_entry.astype(np.int64) + batch.c_off[s_r], s_queue.astype(np.int64) + batch.q_off[s_r],
                s_pos.astype(np.int64))
    x_off, x_entry = _flat(results.column("x_entry"))
    x_r = segment_ids(x_off)
    x_cols = [_flat(results.column(name))[1] for name in ("x_topic", "x_broker", "x_id", "x_pos")]
    rows.extra = [(int(e + batch.c_off[rr]), Queue(tp, b, int(i)), int(p))
                  for e, rr, tp, b, i, p in zip(x_entry.tolist(), x_r.tolist(), *(c.tolist() for c in x_cols))]
    e_off, e_entry = _flat(results.column("err_entry"))
    e_r = segment_ids(e_off)
    _, messages = _flat(results.column("err"))
    rows.errors = {int(e + batch.c_off[rr]): msg for e, rr, msg in zip(e_entry.tolist(), e_r.tolist(), messages)}
    holders = _flat(results.column("holders"))[1].astype(np.int64)
    held = _flat(results.column("held"))[1].astype(np.int64)
    errored_entry = np.zeros(batch.entries, dtype=bool)
    errored_entry[np.fromiter(rows.errors, dtype=np.int64, count=len(rows.errors))] = True
    counts = {name: results.column(name).to_numpy() for name in COUNT_COLUMNS}
    t = Tally(holders=holders, held=held, errored_entry=errored_entry, queues=batch.queue_counts(),
              processes=batch.entry_counts(), **counts)
    return rows, t


def concat_batches(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_batches(list(batches), schema=schema)

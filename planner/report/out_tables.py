"""The `--out DIR` tables as Arrow record batches: numeric assignment rows and small dimension tables.

- `assignments`: one row per (scenario, group, topic, process, queue): ASSIGNMENT_FIELDS, numbers only;
- `groups`: one row per (scenario state, group, topic), the ids with their names and the tally's counts, the step
  and its moves: GROUP_FIELDS. A scenario's states are its steps (`rmqplan.model.states`): `scenario_id` numbers the
  states (the baseline 0, then each scenario's steps in order), `step` counts them within the scenario;
- `processes`: one row per process of a group in a scenario, its label, client id and host: PROCESS_FIELDS;
- `brokers`: broker id -> name: BROKER_FIELDS.
`process` is the process's position in its group's declaration order in that scenario; a topic id names the
rebalanced topic (a CONFIG list naming another topic's queue is listed under the rebalanced topic). Hand-written
groups and topics are numbered in file order first, then generated group g is `groups + g`, its topic
`topics + 2g` and its retry topic `topics + 2g + 1`.

pyarrow is imported when a table is built: the local engine needs it only for `--out`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from rmqplan.allocation.batch import CLUSTERING_CODE, Batch, Rows
from rmqplan.allocation.tally import Tally

ASSIGNMENT_FIELDS = (("scenario_id", "int32"), ("group_id", "int64"), ("topic_id", "int64"), ("process", "int32"),
                     ("broker_id", "int32"), ("queue_id", "int32"))
GROUP_FIELDS = (("scenario_id", "int32"), ("group_id", "int64"), ("topic_id", "int64"), ("scenario", "string"),
                ("group", "string"), ("topic", "string"), ("model", "string"), ("queues", "int32"),
                ("instances", "int32"), ("assignments", "int32"), ("orphaned", "int32"), ("duplicated", "int32"),
                ("idle", "int32"), ("moved", "int32"), ("errored", "int32"), ("step", "int32"),
                ("step_name", "string"), ("duplicate_risk", "int32"), ("pause", "int32"))
PROCESS_FIELDS = (("scenario_id", "int32"), ("group_id", "int64"), ("process", "int32"), ("instance", "string"),
                  ("client_id", "string"), ("host", "string"))
BROKER_FIELDS = (("broker_id", "int32"), ("broker", "string"))
TABLES = {"assignments": ASSIGNMENT_FIELDS, "groups": GROUP_FIELDS, "processes": PROCESS_FIELDS,
          "brokers": BROKER_FIELDS}
# Every table is written by pyarrow's Parquet writer, with encodings and codecs per column, measured per 1M
# generated groups (38M assignments, 10.5M processes):
# - an id that comes in runs (an assignment's scenario, group and topic; a process's scenario and group) is written
#   PLAIN and LZ4-compressed: LZ4 folds a run into a few bytes at half the cost of a delta or dictionary encoder;
# - small ids that change every row (an assignment's process, broker and queue; a process's position) are
#   DELTA_BINARY_PACKED and not compressed: LZ4 or Snappy on PLAIN values cost as much and shrink them less;
# - a process's host and label repeat (a host runs several processes) and get a dictionary; its client id is
#   unique and carries a pid and a nanoTime, so it is PLAIN: LZ4 takes 28% off it for 8 times its writing time.
# Statistics where a reader filters (scenario, group, topic, process), nowhere else: the other columns have no
# order, so min/max would skip nothing. LZ4 is Parquet's LZ4_RAW codec (pyarrow, Spark and DuckDB read it).
_DELTA = "DELTA_BINARY_PACKED"
WRITE_BATCH = 1 << 16  # values the pyarrow encoders take at a time (1,024 by default: 8-10% more of their time)
ASSIGNMENT_RUNS = ("scenario_id", "group_id", "topic_id")  # a rebalance's rows share them
WRITER_OPTIONS = {
    "assignments": {"use_dictionary": False,
                    "column_encoding": {"scenario_id": "PLAIN", "group_id": "PLAIN", "topic_id": "PLAIN",
                                        "process": _DELTA, "broker_id": _DELTA, "queue_id": _DELTA},
                    "compression": {"scenario_id": "lz4", "group_id": "lz4", "topic_id": "lz4", "process": "none",
                                    "broker_id": "none", "queue_id": "none"},
                    "write_statistics": list(ASSIGNMENT_RUNS)},
    "groups": {"use_dictionary": ["scenario_id", "scenario", "model", "step_name"],
               "column_encoding": {"group_id": _DELTA, "topic_id": _DELTA},
               "write_statistics": ["scenario_id", "group_id", "topic_id"]},  # min/max of names: 30% of its time
    "processes": {"use_dictionary": ["instance", "host"],
                  "column_encoding": {"scenario_id": "PLAIN", "group_id": "PLAIN", "process": _DELTA},
                  "compression": {"scenario_id": "lz4", "group_id": "lz4", "process": "none", "instance": "none",
                                  "client_id": "none", "host": "none"},
                  "write_statistics": ["scenario_id", "group_id", "process"]},
}


def schema(fields, dictionaries=()):
    """The Arrow schema of a table: no column is ever null, so Parquet stores them REQUIRED (no definition levels to
    write: a tenth of the assignments' encoding time). The string columns named in `dictionaries` are given as
    dictionary arrays (their Parquet column is a string column all the same)."""
    import pyarrow as pa

    def kind_of(name, kind):
        if kind != "string":
            return getattr(pa, kind)()
        return pa.dictionary(pa.int32(), pa.string()) if name in dictionaries else pa.string()

    return pa.schema([pa.field(name, kind_of(name, kind), nullable=False) for name, kind in fields])


def spark_ddl(fields) -> str:
    kinds = {"int32": "int", "int64": "bigint", "string": "string"}
    return ", ".join(f"`{name}` {kinds[kind]}" for name, kind in fields)


@dataclass
class BrokerIds:
    """Broker name -> id, in the order first met (the fleet's brokers, then generated ones)."""

    ids: dict = field(default_factory=dict)

    def id(self, name: str) -> int:
        return self.ids.setdefault(name, len(self.ids))

    def of(self, names) -> np.ndarray:
        return np.array([self.id(n) for n in names], dtype=np.int32)

    def table(self):
        import pyarrow as pa

        names = list(self.ids)
        return pa.RecordBatch.from_arrays([pa.array(range(len(names)), type=pa.int32()), pa.array(names)],
                                          schema=schema(BROKER_FIELDS))


@dataclass
class AssignmentRows:
    """A batch's rows of the assignments table by column: the scenario, group and topic ids as runs (the rows of
    one rebalance share them: a value per run, `lengths` rows each), the process, broker and queue per row."""

    lengths: np.ndarray  # rows per run
    scenario_id: np.ndarray  # per run
    group_id: np.ndarray
    topic_id: np.ndarray
    process: np.ndarray  # per row
    broker_id: np.ndarray
    queue_id: np.ndarray

    @property
    def num_rows(self) -> int:
        return len(self.process)

    def runs(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The ASSIGNMENT_RUNS columns as (value, length) per run."""
        return [(self.scenario_id, self.lengths), (self.group_id, self.lengths), (self.topic_id, self.lengths)]

    def per_row(self) -> list[np.ndarray]:
        return [self.process, self.broker_id, self.queue_id]

    def columns(self) -> list[np.ndarray]:
        """Every column, one value per row (ASSIGNMENT_FIELDS' order)."""
        return [np.repeat(v, n) for v, n in self.runs()] + self.per_row()

    def record_batch(self):
        import pyarrow as pa

        return pa.RecordBatch.from_arrays([pa.array(c) for c in self.columns()], schema=schema(ASSIGNMENT_FIELDS))


def assignment_rows(batch: Batch, rows: Rows, group_ids: np.ndarray, topic_ids: np.ndarray,
                    broker_ids: np.ndarray, brokers: BrokerIds | None = None) -> AssignmentRows:
    """Every row of `rows` (and its `extra` queues, named in `brokers`) as assignment rows; `group_ids` and
    `topic_ids` per rebalance, `broker_ids` per batch broker."""
    entry = rows.entry
    scenario = batch.scenario.astype(np.int32)
    if len(entry) < 2 or bool(np.all(entry[1:] >= entry[:-1])):  # the kernel's order: a run per rebalance
        lengths = np.diff(np.searchsorted(entry, batch.c_off))
        process = entry.astype(np.int32) - np.repeat(batch.c_off[:-1].astype(np.int32), lengths)
        run = np.arange(batch.rebalances)
    else:  # a run wherever the rebalance changes from one row to the next
        entry_r = batch.entry_rebalance()[entry]
        process = (entry - batch.c_off[entry_r]).astype(np.int32)
        starts = np.flatnonzero(np.concatenate(([True], entry_r[1:] != entry_r[:-1])))
        lengths = np.diff(np.append(starts, len(entry)))
        run = entry_r[starts]
    out = AssignmentRows(lengths, scenario[run], group_ids[run], topic_ids[run], process,
                         broker_ids[batch.q_broker[rows.queue]].astype(np.int32), batch.q_id[rows.queue].astype(np.int32))
    if not rows.extra:
        return out
    e = np.array([x[0] for x in rows.extra], dtype=np.int64)
    r = np.searchsorted(batch.c_off, e, "right") - 1
    extra = AssignmentRows(np.ones(len(e), dtype=lengths.dtype), scenario[r], group_ids[r], topic_ids[r],  # a run each
                           (e - batch.c_off[r]).astype(np.int32),
                           np.array([brokers.id(q.broker) for _, q, _ in rows.extra], dtype=np.int32),
                           np.array([q.queue_id for _, q, _ in rows.extra], dtype=np.int32))
    return AssignmentRows(*(np.concatenate([getattr(out, f.name), getattr(extra, f.name)])
                            for f in dataclasses.fields(AssignmentRows)))


def group_batch(batch: Batch, t: Tally, group_ids, topic_ids, scenarios, groups, topics, moved=None, steps=None):
    """One row per rebalance; `scenarios`, `groups`, `topics` are names (Arrow arrays or lists), `moved` the moved
    queue count of each against its group's state before (0 without scenarios), `steps` a `StepColumns` (None: the
    baseline's)."""
    count = batch.rebalances
    model = repeated(("broadcasting", "clustering"), (batch.model == CLUSTERING_CODE).astype(np.int8))
    zeros = np.zeros(count, dtype=np.int32)
    steps = steps or StepColumns(zeros, repeated(("baseline",), np.zeros(count, dtype=np.int8)), zeros, zeros)
    columns = [batch.scenario.astype(np.int32), group_ids, topic_ids, scenarios, groups, topics, model,
               t.queues, t.subscribers, t.assignments, t.orphaned, t.duplicated, t.idle,
               zeros if moved is None else moved, t.errored, steps.step, steps.name, steps.duplicate_risk,
               steps.pause]
    return record_batch(columns, GROUP_FIELDS, GROUP_DICTIONARIES)


@dataclass
class StepColumns:
    """Per rebalance: its step in its scenario (0: the baseline), the step's name and its moves by kind."""

    step: object
    name: object
    duplicate_risk: object
    pause: object


# The string columns with few values (a scenario's name, a model, a process's host and label) are written with a
# dictionary; given as dictionary arrays (codes into a table of every value: `repeated`, the generated hosts) the
# writer takes the dictionary as it is instead of hashing every value (40% less time for such a column).
GROUP_DICTIONARIES = ("scenario", "model", "step_name")
PROCESS_DICTIONARIES = ("instance", "host")


def process_batch(scenario_ids, group_ids, process, instance, client_id, host):
    return record_batch([scenario_ids, group_ids, process, instance, client_id, host], PROCESS_FIELDS,
                        PROCESS_DICTIONARIES)


def record_batch(columns: list, fields, dictionaries):
    """A table's record batch of `columns` (Arrow arrays, or numpy arrays and lists of values); the columns named
    in `dictionaries` become dictionary arrays (encoded here unless they are already)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    types = schema(fields, dictionaries)
    arrays = []
    for c, f in zip(columns, types):
        dictionary = pa.types.is_dictionary(f.type)
        if not isinstance(c, pa.Array):
            c = pa.array(c, type=f.type.value_type if dictionary else f.type)
        if dictionary and not pa.types.is_dictionary(c.type):
            c = pc.dictionary_encode(c).cast(f.type)
        arrays.append(c)
    return pa.RecordBatch.from_arrays(arrays, schema=types)


def repeated(values: tuple, codes: np.ndarray):
    """The string column whose row i is values[codes[i]], as a dictionary array."""
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), pa.array(values, type=pa.string()))


def process_batches(parts: list[tuple], scenario_ids, group_ids, process):
    """Record batches of the processes table: `parts` from `rmqplan.generated.text.generated_process_names`, the
    numeric columns (arrays over every process) taken at each part's rows."""
    return [process_batch(scenario_ids[rows], group_ids[rows], process[rows], instance, client_id, host)
            for rows, instance, client_id, host in parts]


# ------------------------------------------------------------------------------------------------ the writing


class ParquetSink:
    """Writes each table's rows (Arrow record batches; the assignments' `AssignmentRows`) into
    `<directory>/<table>/<part>.parquet` (one file per table and sink), first under a hidden name that `close`
    renames: a task that fails or runs again leaves no half file."""

    def __init__(self, directory: str, part: str):
        self.directory, self.part = directory, part
        self.writers: dict = {}

    def __call__(self, table: str, batch) -> None:
        import os

        writer = self.writers.get(table)
        if writer is None:
            folder = os.path.join(self.directory, table)
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f".{self.part}.parquet.tmp")
            first = batch.record_batch() if isinstance(batch, AssignmentRows) else batch
            writer = self.writers[table] = (_writer(table, path, first), path)
        writer[0].write_batch(batch.record_batch() if isinstance(batch, AssignmentRows) else batch)

    def close(self) -> None:
        import os

        for writer, path in self.writers.values():
            writer.close()
            folder, name = os.path.split(path)
            os.replace(path, os.path.join(folder, name[1:-len(".tmp")]))
        self.writers.clear()


def _writer(table: str, path: str, first):
    import pyarrow.parquet as pq

    # no Arrow schema in the file: its Parquet schema says it all, and a column given as a dictionary array then
    # reads back as the strings it holds, in every part file alike
    return pq.ParquetWriter(path, first.schema, store_schema=False, write_batch_size=WRITE_BATCH,
                            **WRITER_OPTIONS.get(table, {}))


def write_empty_tables(directory: str) -> None:
    """Every table that nothing wrote gets an empty file, so that readers find its columns."""
    import os

    for name, fields in TABLES.items():
        folder = os.path.join(directory, name)
        if not os.path.isdir(folder) or not any(f.endswith(".parquet") for f in os.listdir(folder)):
            sink = ParquetSink(directory, "part-empty")
            import pyarrow as pa

            sink(name, pa.RecordBatch.from_pylist([], schema=schema(fields)))
            sink.close()


def write_hand_written(directory: str, batch: Batch, rows: Rows, t: Tally, rebalances, results, brokers: BrokerIds,
                       states=None):
    """The hand-written groups' rows of every table (the driver has them all): `results` one per rebalance (each
    against its group's state before), `states` the batch's `StateRef`s by rebalance. Returns the number of topic
    ids used (generated topics are numbered after them)."""
    from rmqplan.allocation.rebalances import BASELINE, StateRef

    states = states or [StateRef(BASELINE, 0, BASELINE)] * len(rebalances)
    import pyarrow as pa

    topic_ids: dict = {}
    for rb in rebalances:
        topic_ids.setdefault(rb.topic, len(topic_ids))
    if not batch.rebalances:
        return len(topic_ids)
    sink = ParquetSink(directory, "part-hand-written")
    broker_ids = brokers.of(batch.brokers)
    group_ids, topic_of = batch.group, np.array([topic_ids[rb.topic] for rb in rebalances], dtype=np.int64)
    sink("assignments", assignment_rows(batch, rows, group_ids, topic_of, broker_ids, brokers))
    from rmqplan.model.simulation import DUPLICATE_RISK, PAUSE

    def kind_count(kind):
        return np.array([sum(1 for m in r.moves if m.kind == kind) for r in results], dtype=np.int32)

    steps = StepColumns(np.array([state.step for state in states], dtype=np.int32),
                        pa.array([state.name for state in states], type=pa.string()),
                        kind_count(DUPLICATE_RISK), kind_count(PAUSE))
    sink("groups", group_batch(batch, t, group_ids, topic_of, pa.array([r.scenario for r in results]),
                               pa.array([r.group for r in results]), pa.array([r.topic for r in results]),
                               np.array([len(r.moved) for r in results], dtype=np.int32), steps))
    scenario_ids, group_col, process, instance, client_id, host = [], [], [], [], [], []
    seen = set()
    for r, rb in enumerate(rebalances):
        key = (int(batch.scenario[r]), int(batch.group[r]))
        if key in seen:
            continue
        seen.add(key)
        for i, p in enumerate(rb.processes):
            scenario_ids.append(key[0])
            group_col.append(key[1])
            process.append(i)
            instance.append(p.instance)
            client_id.append(p.client_id)
            host.append(p.host)
    sink("processes", process_batch(np.array(scenario_ids, dtype=np.int32), np.array(group_col, dtype=np.int64),
                                    np.array(process, dtype=np.int32), instance, client_id, host))
    sink.close()
    return len(topic_ids)


FINDINGS_FILE = "findings.json"


def write_hand_written_out(out, hand, brokers: BrokerIds) -> tuple[int, int]:
    """Tables and findings (a new findings.json) of the hand-written part of a run (`rmqplan.allocation.results.HandWritten`)
    into `out.directory`; returns (topic ids used, findings written)."""
    import json
    import os

    from rmqplan.allocation.results import per_rebalance_results

    fr = hand.rebalances
    topics = write_hand_written(out.directory, fr.batch, hand.rows, hand.tally, fr.rebalances,
                                per_rebalance_results(hand.sim), brokers, [fr.states[rb.state] for rb in fr.rebalances])
    findings = out.find(hand.sim)
    with open(os.path.join(out.directory, FINDINGS_FILE), "w", encoding="utf-8") as f:
        f.writelines(json.dumps(x.to_json()) + "\n" for x in findings)
    return topics, len(findings)

"""`rmqplan.report.parquet_ints`: integer tables encoded with numpy read back, value for value, in pyarrow (Spark reads
the `--out` assignments in `test_cli_out`)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.report.parquet_ints import IntTableWriter, bit_packed, rle_runs, varint

pq = pytest.importorskip("pyarrow.parquet")

NAMES = ("scenario_id", "group_id", "process", "queue_id")
TYPES = ("int32", "int64", "int32", "int32")
RUNS = ("scenario_id", "group_id")


def _read(path):
    return pq.read_table(path).to_pydict()


@st.composite
def row_groups(draw):
    """Row groups of the four columns: two given as runs (any values, lengths >= 0), two given per row (small
    values, or any)."""
    groups = []
    for _ in range(draw(st.integers(0, 3))):
        n_runs = draw(st.integers(0, 30))
        lengths = np.array(draw(st.lists(st.integers(0, 20), min_size=n_runs, max_size=n_runs)), dtype=np.int64)
        runs = [np.array(draw(st.lists(st.integers(0, 3) | (st.integers(-2**31, 2**31 - 1) if kind == "int32" else
                                                         st.integers(-2**62, 2**62)),
                                       min_size=n_runs, max_size=n_runs)), dtype=kind)
                for kind in TYPES[:2]]  # small values repeat: runs of one value side by side, or apart
        rows = int(lengths.sum())
        top = draw(st.sampled_from([1, 2, 7, 255, 256, 70_000, 2**31 - 1]))
        low = draw(st.sampled_from([0, 0, -5]))
        per_row = [np.array(draw(st.lists(st.integers(low, top), min_size=rows, max_size=rows)), dtype=np.int32)
                   for _ in range(2)]
        groups.append((lengths, runs, per_row))
    return groups


@settings(max_examples=150, deadline=None)
@given(row_groups())
def test_every_value_reads_back_in_pyarrow(tmp_path_factory, groups):
    path = tmp_path_factory.mktemp("ints") / "t.parquet"
    writer = IntTableWriter(str(path), NAMES, TYPES, runs=RUNS, statistics=("group_id",))
    expected = {name: [] for name in NAMES}
    written_group_ids = []  # per row group written (one without rows is not)
    for lengths, runs, per_row in groups:
        writer.write_runs(int(lengths.sum()), [(v, lengths) for v in runs], per_row)
        for name, v in zip(RUNS, runs):
            expected[name] += np.repeat(v, lengths).tolist()
        for name, v in zip(NAMES[2:], per_row):
            expected[name] += v.tolist()
        if lengths.sum():
            written_group_ids.append(np.repeat(runs[1], lengths))
    writer.close()
    assert _read(path) == expected
    table = pq.ParquetFile(path)
    assert [str(t) for t in table.schema_arrow.types] == list(TYPES)
    assert table.metadata.num_row_groups == len(written_group_ids)
    for i, values in enumerate(written_group_ids):  # min and max where asked, over the row group's rows
        stats = table.metadata.row_group(i).column(1).statistics
        assert (stats.min, stats.max, stats.null_count) == (values.min(), values.max(), 0)


def test_an_arrow_batch_and_no_rows_at_all(tmp_path):
    import pyarrow as pa

    batch = pa.RecordBatch.from_pydict({"scenario_id": pa.array([0, 0, 1], pa.int32()),
                                        "group_id": pa.array([5, 5, 5], pa.int64()),
                                        "process": pa.array([2, 0, 1], pa.int32()),
                                        "queue_id": pa.array([7, 7, 9], pa.int32())})
    for batches, expected in (([batch], batch.to_pydict()), ([], {n: [] for n in NAMES})):
        path = str(tmp_path / f"{len(batches)}.parquet")
        writer = IntTableWriter(path, NAMES, TYPES, runs=RUNS)
        for b in batches:
            writer.write_batch(b)
        writer.close()
        assert _read(path) == expected


def test_the_hybrid_encodings_byte_for_byte():
    """The RLE/bit-packing hybrid of the Parquet format's own examples."""
    assert varint(1) == b"\x01" and varint(300) == b"\xac\x02"
    # values 0..7 with 3 bits: one group, header (1 << 1) | 1, then 0b10001000 0b11000110 0b11111010
    assert bit_packed(np.arange(8), 3) == bytes([3, 0b10001000, 0b11000110, 0b11111010])
    assert bit_packed(np.arange(8), 9)[1:] == np.packbits(
        ((np.arange(8)[:, None] >> np.arange(9)) & 1).astype(np.uint8).ravel(), bitorder="little").tobytes()
    # a run of 5 of the value 3 with 2-bit values (one byte), then 300 of the value 1
    assert rle_runs(np.array([3, 1]), np.array([5, 300]), 2) == bytes([10, 3]) + varint(600) + bytes([1])


def test_spark_reads_runs_that_repeat_a_value_apart(spark, tmp_path):
    """A run value met again after another (a hand-written batch's rows in no order) is in the dictionary twice;
    parquet-mr reads it as written, as do wide bit-packed indices."""
    path = tmp_path / "t.parquet"
    writer = IntTableWriter(str(path), NAMES, TYPES, runs=RUNS, statistics=RUNS)
    lengths = np.array([2, 3, 1, 2])
    writer.write_runs(8, [(np.array([0, 1, 0, 1], dtype=np.int32), lengths),
                          (np.array([5, 7, 5, 2**40], dtype=np.int64), lengths)],
                      [np.array([3, 0, 1, 2, 0, 1, 9, 4], dtype=np.int32),
                       np.array([1, 70_000, 2, 3, 4, 5, 6, 7], dtype=np.int32)])
    writer.close()
    rows = sorted(tuple(r) for r in spark.read.parquet(str(path)).collect())
    assert rows == sorted(zip([0, 0, 1, 1, 1, 0, 1, 1], [5, 5, 7, 7, 7, 5, 2**40, 2**40], [3, 0, 1, 2, 0, 1, 9, 4],
                              [1, 70_000, 2, 3, 4, 5, 6, 7]))

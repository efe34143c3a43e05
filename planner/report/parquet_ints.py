"""A Parquet writer for tables of integer columns without nulls (the `--out` assignments), encoded with numpy.

Every column chunk is dictionary-encoded (RLE_DICTIONARY, uncompressed: one dictionary page, one data page),
the form every Parquet reader knows:
- a column given as runs (an assignment's scenario, group and topic: a rebalance's rows share them) has the values
  of its runs as its dictionary and one RLE run per run, so the encoding is a few numpy passes over the runs,
  never over the rows;
- any other column (a process's position, a broker, a queue id: small values that change from row to row) has
  every value from 0 to its maximum as its dictionary and its values themselves as the indices, bit-packed 8 at a
  time (other values: their distinct values, and an index into them).
pyarrow's encoders cost 4-5 ns a value whatever the encoding; on the 38M assignments of 1M generated groups
these take a fraction of that, for files of the same size (BENCHMARKS.md, "Latest (2026-11-25, 06:40-07:10
UTC)"). Statistics (min, max, no nulls) are written for the columns named, where a reader filters.

The file, its pages and its footer follow the Parquet format (footer and page headers in Thrift's compact
protocol); tests read the files back with pyarrow (random tables, Hypothesis) and with Spark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAGIC = b"PAR1"
# Parquet's enums (parquet.thrift)
TYPE_INT32, TYPE_INT64 = 1, 2
REQUIRED = 0
ENCODING_PLAIN, ENCODING_RLE, ENCODING_RLE_DICTIONARY = 0, 3, 8
UNCOMPRESSED = 0
PAGE_DATA, PAGE_DICTIONARY = 0, 2
# Thrift compact protocol types
_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12
IDENTITY_LIMIT = 1 << 16  # a column of values below this is indexed by the values themselves
CREATED_BY = "rmqplan (rmqplan.report.parquet_ints)"


# ------------------------------------------------------------------------------------ Thrift compact protocol


def varint(n: int) -> bytes:
    """ULEB128: 7 bits a byte, least significant first, the high bit set on all but the last."""
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


class _Thrift:
    """Writes Thrift compact-protocol structs: `begin`/`end` nest, each field names its id."""

    def __init__(self):
        self.out = bytearray()
        self._last = [0]

    def _varint(self, n: int) -> None:
        self.out += varint(n)

    def _field(self, fid: int, kind: int) -> None:
        delta = fid - self._last[-1]
        if 0 < delta <= 15:
            self.out.append((delta << 4) | kind)
        else:
            self.out.append(kind)
            self._varint((fid << 1) ^ (fid >> 15))
        self._last[-1] = fid

    def i32(self, fid: int, value: int) -> None:
        self._field(fid, _I32)
        self._varint((value << 1) ^ (value >> 31))

    def i64(self, fid: int, value: int) -> None:
        self._field(fid, _I64)
        self._varint((value << 1) ^ (value >> 63))

    def binary(self, fid: int, value: bytes) -> None:
        self._field(fid, _BINARY)
        self._varint(len(value))
        self.out += value

    def _list(self, fid: int, kind: int, size: int) -> None:
        self._field(fid, _LIST)
        if size < 15:
            self.out.append((size << 4) | kind)
        else:
            self.out.append(0xF0 | kind)
            self._varint(size)

    def i32_list(self, fid: int, values) -> None:
        self._list(fid, _I32, len(values))
        for v in values:
            self._varint((v << 1) ^ (v >> 31))

    def binary_list(self, fid: int, values) -> None:
        self._list(fid, _BINARY, len(values))
        for v in values:
            self._varint(len(v))
            self.out += v

    def struct_list(self, fid: int, size: int) -> None:
        """A list of `size` structs follows, each written between `begin_element` and `end`."""
        self._list(fid, _STRUCT, size)

    def begin(self, fid: int) -> None:
        self._field(fid, _STRUCT)
        self._last.append(0)

    def begin_element(self) -> None:
        self._last.append(0)

    def end(self) -> None:
        self.out.append(0)
        self._last.pop()


# ------------------------------------------------------------------------------------ encodings, with numpy


def _varints(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ULEB128 varints of non-negative values below 2^35: (bytes of each, one row per value, and their counts)."""
    v = values.astype(np.uint64)
    count = np.ones(len(v), dtype=np.int64)
    for k in range(1, 5):
        count += v >= (1 << (7 * k))
    digits = np.zeros((len(v), 5), dtype=np.uint8)
    for k in range(5):
        more = count > k + 1
        digits[:, k] = ((v >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8) | (more.astype(np.uint8) << 7)
    return digits, count


def rle_runs(run_values: np.ndarray, run_lengths: np.ndarray, width: int) -> bytes:
    """The RLE/bit-packing hybrid of runs: per run, the varint (length << 1) and the value in ceil(width / 8)
    little-endian bytes."""
    if not len(run_values):
        return b""
    value_bytes = (width + 7) // 8
    digits, count = _varints(run_lengths.astype(np.int64) << 1)
    size = count + value_bytes
    ends = np.cumsum(size)
    starts = ends - size
    out = np.zeros(int(ends[-1]), dtype=np.uint8)
    for k in range(5):
        at = np.flatnonzero(count > k)
        out[starts[at] + k] = digits[at, k]
    values = run_values.astype(np.uint64)
    for b in range(value_bytes):
        out[starts + count + b] = ((values >> np.uint64(8 * b)) & np.uint64(0xFF)).astype(np.uint8)
    return out.tobytes()


def bit_packed(values: np.ndarray, width: int) -> bytes:
    """The RLE/bit-packing hybrid of `values` as one bit-packed run: groups of 8 values, `width` bits each, least
    significant bit first (the last group padded with zeros)."""
    n = len(values)
    if not n:
        return b""
    groups = -(-n // 8)
    if width <= 8:  # 8 values of a byte each are one 64-bit word: shift each value's bits down into place
        padded = np.zeros(groups * 8, dtype=np.uint8)
        padded[:n] = values
        if width == 8:
            packed = padded
        else:
            lanes = padded.view("<u8")
            word = lanes & np.uint64(0xFF)
            for j in range(1, 8):
                word |= ((lanes >> np.uint64(8 * j)) & np.uint64(0xFF)) << np.uint64(width * j)
            packed = word.view(np.uint8).reshape(groups, 8)[:, :width]
    else:
        padded = np.zeros(groups * 8, dtype=np.uint64)
        padded[:n] = values
        bits = ((padded.reshape(groups, 8)[:, :, None] >> np.arange(width, dtype=np.uint64)) & np.uint64(1))
        packed = np.packbits(bits.astype(np.uint8).reshape(groups, 8 * width), axis=1, bitorder="little")
    return varint((groups << 1) | 1) + np.ascontiguousarray(packed).tobytes()


def bit_width(max_value: int) -> int:
    return max(int(max_value).bit_length(), 1)


@dataclass(frozen=True)
class DictionaryColumn:
    """A column chunk's dictionary (its values, PLAIN) and its indices, RLE/bit-packed, with their bit width."""

    dictionary: np.ndarray
    width: int
    indices: bytes


def encode_runs(values: np.ndarray, lengths: np.ndarray) -> DictionaryColumn:
    """A column given as runs (a value and a length > 0 each): the dictionary is the values of its runs, adjacent
    equal ones merged, and each run is one RLE run of its dictionary index."""
    if not len(values):
        return DictionaryColumn(values[:0], 1, b"")
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    merged = np.add.reduceat(lengths, starts)
    width = bit_width(len(starts) - 1)
    return DictionaryColumn(values[starts], width, rle_runs(np.arange(len(starts)), merged, width))


def encode_small(values: np.ndarray) -> DictionaryColumn:
    """A column of small non-negative values: the dictionary is 0..max, the indices the values themselves (any
    values: larger ones are looked up in their distinct values)."""
    if not len(values):
        return DictionaryColumn(values[:0], 1, b"")
    top = int(values.max())
    if top < IDENTITY_LIMIT and int(values.min()) >= 0:
        width = bit_width(top)
        return DictionaryColumn(np.arange(top + 1, dtype=values.dtype), width, bit_packed(values, width))
    dictionary, indices = np.unique(values, return_inverse=True)
    width = bit_width(len(dictionary) - 1)
    return DictionaryColumn(dictionary, width, bit_packed(indices, width))


# ------------------------------------------------------------------------------------ the file


@dataclass
class _Chunk:
    """What the footer says of a written column chunk."""

    offset: int  # of its dictionary page
    data_offset: int
    size: int
    rows: int
    low: object = None
    high: object = None


class IntTableWriter:
    """Writes row groups of integer columns (int32/int64, no nulls) into one Parquet file at `path`; `runs` names
    the columns given as runs (`write_runs`), `statistics` those given min/max. `close` writes the footer."""

    def __init__(self, path: str, names: tuple, types: tuple, runs: tuple = (), statistics: tuple = ()):
        self.path, self.names, self.types = path, names, types  # types: "int32" | "int64" per column
        self.runs, self.statistics = runs, statistics
        self._groups: list[tuple[int, list[_Chunk]]] = []
        self._file = open(path, "wb")
        self._file.write(MAGIC)
        self._at = len(MAGIC)

    def write_batch(self, batch) -> None:
        """An Arrow record batch of the table's columns (read as numpy arrays, without a copy)."""
        self.write([c.to_numpy() for c in batch.columns])

    def write(self, columns: list[np.ndarray]) -> None:
        """A row group of whole columns (a run column's runs are found here)."""
        rows = len(columns[0]) if columns else 0
        ones = np.ones(rows, dtype=np.int64)
        self.write_runs(rows, [(c, ones) for n, c in zip(self.names, columns) if n in self.runs],
                        [c for n, c in zip(self.names, columns) if n not in self.runs])

    def write_runs(self, rows: int, run_columns: list[tuple[np.ndarray, np.ndarray]],
                   row_columns: list[np.ndarray]) -> None:
        """A row group of `rows` rows: the run columns (in `names` order) as (value, length) per run, the others a
        value per row."""
        if not rows:
            return
        chunks, runs, per_row = [], iter(run_columns), iter(row_columns)
        for name, kind in zip(self.names, self.types):
            dtype = np.dtype(kind)
            if name in self.runs:
                values, lengths = next(runs)
                keep = lengths > 0
                values, lengths = values[keep].astype(dtype, copy=False), lengths[keep]
                encoded = encode_runs(values, lengths)
                low, high = (values.min(), values.max()) if name in self.statistics else (None, None)
            else:
                values = np.asarray(next(per_row), dtype=dtype)
                encoded = encode_small(values)
                low, high = (values.min(), values.max()) if name in self.statistics else (None, None)
            chunk = self._write_chunk(encoded, rows)
            chunk.low, chunk.high = low, high
            chunks.append(chunk)
        self._groups.append((rows, chunks))

    def _write_chunk(self, encoded: DictionaryColumn, rows: int) -> _Chunk:
        dictionary = np.ascontiguousarray(encoded.dictionary, dtype=encoded.dictionary.dtype.newbyteorder("<"))
        dict_bytes = dictionary.tobytes()
        data = bytes((encoded.width,)) + encoded.indices
        dict_header = _page_header(PAGE_DICTIONARY, len(dict_bytes), len(dictionary))
        data_header = _page_header(PAGE_DATA, len(data), rows)
        start = self._at
        for part in (dict_header, dict_bytes, data_header, data):
            self._file.write(part)
        self._at += len(dict_header) + len(dict_bytes) + len(data_header) + len(data)
        return _Chunk(start, start + len(dict_header) + len(dict_bytes), self._at - start, rows)

    def close(self) -> None:
        footer = self._footer()
        self._file.write(footer)
        self._file.write(len(footer).to_bytes(4, "little"))
        self._file.write(MAGIC)
        self._file.close()

    def _footer(self) -> bytes:
        t = _Thrift()
        t.i32(1, 1)  # version
        t.struct_list(2, len(self.names) + 1)  # the schema: its root, then one leaf per column
        t.begin_element()
        t.binary(4, b"schema")
        t.i32(5, len(self.names))
        t.end()
        for name, kind in zip(self.names, self.types):
            t.begin_element()
            t.i32(1, TYPE_INT32 if kind == "int32" else TYPE_INT64)
            t.i32(3, REQUIRED)
            t.binary(4, name.encode())
            t.end()
        t.i64(3, sum(rows for rows, _ in self._groups))
        t.struct_list(4, len(self._groups))
        for rows, chunks in self._groups:
            t.begin_element()
            t.struct_list(1, len(chunks))
            for name, kind, chunk in zip(self.names, self.types, chunks):
                t.begin_element()
                t.i64(2, chunk.offset)  # file_offset
                t.begin(3)  # ColumnMetaData
                t.i32(1, TYPE_INT32 if kind == "int32" else TYPE_INT64)
                t.i32_list(2, [ENCODING_PLAIN, ENCODING_RLE, ENCODING_RLE_DICTIONARY])
                t.binary_list(3, [name.encode()])
                t.i32(4, UNCOMPRESSED)
                t.i64(5, rows)
                t.i64(6, chunk.size)
                t.i64(7, chunk.size)
                t.i64(9, chunk.data_offset)
                t.i64(11, chunk.offset)
                if chunk.low is not None:  # both forms: readers that know no column order read min and max
                    width = 4 if kind == "int32" else 8
                    high = int(chunk.high).to_bytes(width, "little", signed=True)
                    low = int(chunk.low).to_bytes(width, "little", signed=True)
                    t.begin(12)  # Statistics
                    t.binary(1, high)
                    t.binary(2, low)
                    t.i64(3, 0)  # null_count
                    t.binary(5, high)
                    t.binary(6, low)
                    t.end()
                t.end()
                t.end()
            t.i64(2, sum(c.size for c in chunks))  # total_byte_size
            t.i64(3, rows)
            t.end()
        t.binary(6, CREATED_BY.encode())
        t.struct_list(7, len(self.names))  # column_orders: each column's type-defined (signed) order
        for _ in self.names:
            t.begin_element()
            t.begin(1)  # TYPE_ORDER: TypeDefinedOrder, an empty struct
            t.end()
            t.end()
        t.out.append(0)
        return bytes(t.out)


def _page_header(kind: int, size: int, values: int) -> bytes:
    t = _Thrift()
    t.i32(1, kind)
    t.i32(2, size)
    t.i32(3, size)
    if kind == PAGE_DICTIONARY:
        t.begin(7)  # DictionaryPageHeader
        t.i32(1, values)
        t.i32(2, ENCODING_PLAIN)
        t.end()
    else:
        t.begin(5)  # DataPageHeader
        t.i32(1, values)
        t.i32(2, ENCODING_RLE_DICTIONARY)
        t.i32(3, ENCODING_RLE)
        t.i32(4, ENCODING_RLE)
        t.end()
    t.out.append(0)
    return bytes(t.out)

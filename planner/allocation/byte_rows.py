"""Many short byte strings as two numpy arrays, built and joined without a Python call per string: the keys that
CONSISTENT_HASH hashes (`rmqplan.allocation.md5`), made from a batch's names in bulk."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

_POWERS = 10 ** np.arange(19, dtype=np.int64)  # 10**0 .. 10**18: every int64 >= 0 has at most 19 digits


@dataclass(frozen=True)
class ByteRows:
    """String k is `data[off[k]:off[k + 1]]`."""

    data: np.ndarray  # uint8
    off: np.ndarray  # int64[N + 1], off[0] == 0

    def __len__(self) -> int:
        return len(self.off) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.off)

    @staticmethod
    def from_bytes(values: Sequence[bytes]) -> "ByteRows":
        off = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum([len(v) for v in values], out=off[1:])
        return ByteRows(np.frombuffer(b"".join(values), dtype=np.uint8), off)

    @staticmethod
    def decimal(values: np.ndarray, min_digits: int = 1) -> "ByteRows":
        """Each number (>= 0) in decimal, as Java's `String.valueOf` and Python's `str` write it (`min_digits`:
        zeros in front up to that many digits, as `f"{v:07d}"`)."""
        values = np.asarray(values, dtype=np.int64)
        if min_digits == 1 and (not len(values) or (values.min() >= 0 and values.max() < 10)):  # one digit each
            return ByteRows((values + 48).astype(np.uint8), np.arange(len(values) + 1, dtype=np.int64))
        digits = np.maximum(1 + np.searchsorted(_POWERS[1:], values, "right"), min_digits)
        width = int(digits.max()) if len(values) else 1
        # each number right-aligned in a row of `width` digits, written from the right; the last `digits` are kept
        matrix = np.empty((len(values), width), dtype=np.uint8)
        rest = values.copy()
        for k in range(width - 1, -1, -1):
            quotient = rest // 10
            matrix[:, k] = rest - quotient * 10 + 48
            rest = quotient
        off = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(digits, out=off[1:])
        return ByteRows(matrix[np.arange(width) >= (width - digits)[:, None]], off)

    @staticmethod
    def stack(parts: Sequence["ByteRows"]) -> "ByteRows":
        """The strings of every part, one part after the other."""
        ends = np.cumsum([len(p.data) for p in parts])
        off = np.concatenate([[0]] + [p.off[1:] + (end - len(p.data)) for p, end in zip(parts, ends)])
        return ByteRows(np.concatenate([p.data for p in parts]), off.astype(np.int64))

    def take(self, index: np.ndarray) -> "ByteRows":
        """The strings at `index`, in that order."""
        index = np.asarray(index, dtype=np.int64)
        lengths = self.lengths[index]
        off = np.zeros(len(index) + 1, dtype=np.int64)
        np.cumsum(lengths, out=off[1:])
        source = np.arange(int(off[-1]), dtype=np.int64)
        source += np.repeat(self.off[:-1][index] - off[:-1], lengths)
        return ByteRows(self.data[source], off)

    @staticmethod
    def join(parts: Sequence[Union["ByteRows", bytes]], width: Optional[int] = None):
        """Row by row, the concatenation of the parts: ByteRows (as many strings each) or a constant (bytes). With
        `width`, the result as PaddedRows that wide (no longer string)."""
        rows = [p for p in parts if isinstance(p, ByteRows)]
        count = len(rows[0])
        if width is not None:
            lengths = np.zeros(count, dtype=np.int64)
            matrix = np.zeros((count, width), dtype=np.uint8)
            flat = matrix.reshape(-1)
            at = np.arange(count, dtype=np.int64) * width  # where each row's next part starts
            for p in parts:
                if isinstance(p, ByteRows):
                    flat[np.arange(len(p.data), dtype=np.int64) + np.repeat(at - p.off[:-1], p.lengths)] = p.data
                    at += p.lengths
                    lengths += p.lengths
                elif p:
                    flat[at[:, None] + np.arange(len(p))] = np.frombuffer(p, dtype=np.uint8)
                    at += len(p)
                    lengths += len(p)
            return PaddedRows(matrix, lengths)
        if count and all(p.lengths.min() == p.lengths.max() for p in rows):  # fixed widths: side by side
            columns = [p.data.reshape(count, -1) if isinstance(p, ByteRows)
                       else np.broadcast_to(np.frombuffer(p, dtype=np.uint8), (count, len(p))) for p in parts]
            matrix = np.concatenate(columns, axis=1)
            return ByteRows(matrix.reshape(-1), np.arange(count + 1, dtype=np.int64) * matrix.shape[1])
        lengths = np.zeros(count, dtype=np.int64)
        for p in parts:
            lengths += p.lengths if isinstance(p, ByteRows) else len(p)
        off = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=off[1:])
        data = np.empty(int(off[-1]), dtype=np.uint8)
        at = off[:-1].copy()  # where each row's next part starts
        for p in parts:
            if isinstance(p, ByteRows):
                data[np.arange(len(p.data), dtype=np.int64) + np.repeat(at - p.off[:-1], p.lengths)] = p.data
                at += p.lengths
            elif p:
                data[at[:, None] + np.arange(len(p))] = np.frombuffer(p, dtype=np.uint8)
                at += len(p)
        return ByteRows(data, off)

    def padded(self, width: int) -> "PaddedRows":
        """The strings as rows `width` wide (each at most that long)."""
        return ByteRows.join([self], width)  # type: ignore[return-value]

    def fixed(self) -> Optional[np.ndarray]:
        """The strings as a numpy bytes array ("S" dtype, for np.strings), or None when one ends with a zero byte
        (that dtype cannot tell it from padding)."""
        ends = self.off[1:][self.lengths > 0] - 1
        if len(ends) and not self.data[ends].all():
            return None
        width = max(1, int(self.lengths.max(initial=0)))
        return self.padded(width).matrix.view(f"S{width}").reshape(-1)

    def tolist(self) -> list[bytes]:
        raw = self.data.tobytes()
        return [raw[a:b] for a, b in zip(self.off[:-1].tolist(), self.off[1:].tolist())]


@dataclass(frozen=True)
class PaddedRows:
    """Byte strings as the rows of a uint8 matrix, zeros after each string's `lengths[k]` bytes."""

    matrix: np.ndarray  # uint8 (N, width)
    lengths: np.ndarray  # int64[N]

    def __len__(self) -> int:
        return len(self.lengths)

    @staticmethod
    def from_fixed(values: np.ndarray, width: int) -> "PaddedRows":
        """A numpy bytes array ("S" dtype: each string up to its last non-zero byte) as rows `width` wide."""
        matrix = np.zeros((len(values), width), dtype=np.uint8)
        size = values.dtype.itemsize
        matrix[:, :size] = values.view(np.uint8).reshape(len(values), size)
        return PaddedRows(matrix, np.strings.str_len(values).astype(np.int64))

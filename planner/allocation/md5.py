"""MD5 of many short keys at once: the 64 steps of each 64-byte block (RFC 1321) as numpy operations on uint32
lanes, one lane per key, so a million keys cost a few hundred array operations instead of a million calls.

CONSISTENT_HASH needs only the first four digest bytes of each key (`md5_head`). Keys that start with the same
long prefix (a queue key's "MessageQueue [topic=..., brokerName=..., queueId=" is 65+ bytes, the same for every
queue of a topic on a broker) share the prefix's full blocks: hashed once per prefix, the rest once per key.
Exact: tested equal to `hashlib.md5` on random keys of every length around the block boundaries.
"""

from __future__ import annotations

import math
import sys
from typing import Optional, Union

import numpy as np

from rmqplan.allocation.byte_rows import ByteRows, PaddedRows

_K = [int(abs(math.sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)]  # the RFC's table, exact in doubles
_S = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
_G = [i if i < 16 else (5 * i + 1) % 16 if i < 32 else (3 * i + 5) % 16 if i < 48 else 7 * i % 16
      for i in range(64)]
_INIT = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)
# Where byte k (0 = least significant) of a uint32 word sits in memory.
_LITTLE = sys.byteorder == "little"
_BYTE = np.arange(4) if _LITTLE else np.arange(3, -1, -1)
LANES = 32_768  # keys per pass: the 22 working arrays stay near the CPU (measured: 8k-64k alike)


def md5_head(data: ByteRows, prefixes: Union[ByteRows, PaddedRows, None] = None,
             which: Optional[np.ndarray] = None) -> np.ndarray:
    """For each key k, `prefixes[which[k]] + data[k]` (or `data[k]` alone): the first four bytes of its MD5 digest
    as a big-endian unsigned number (uint32), as ConsistentHashRouter's MD5Hash reads them.

    A prefix's full blocks are hashed once, and its last bytes laid out once as words; each key's last block(s)
    start as a copy of its prefix's words, and `data[k]` (short: a replica number, a queue id) is added a byte
    position at a time. Prefixes built for the purpose are best given as PaddedRows (`ByteRows.join(parts,
    width)`, a multiple of 64 wide): their blocks are then read in place."""
    if prefixes is None:
        prefixes = PaddedRows(np.zeros((1, 64), dtype=np.uint8), np.zeros(1, dtype=np.int64))
        which = np.zeros(len(data), dtype=np.int64)
    elif isinstance(prefixes, ByteRows):
        prefixes = prefixes.padded(64 * (int(prefixes.lengths.max(initial=0)) // 64 + 1))
    which = np.asarray(which, dtype=np.int64)
    out = np.empty(len(data), dtype=np.uint32)
    if not len(data):
        return out
    plen = prefixes.lengths
    full = plen // 64
    state, rest_words = _prefix_blocks(prefixes, full)  # state None: every key starts from _INIT
    rest = plen - 64 * full  # each prefix's bytes after its full blocks
    dlen = data.lengths
    head = rest[which]  # where data[k] starts in its key's last block(s)
    # One suffix length (a replica digit; a queue id and "]"): the 0x80 and the bit length go in per prefix
    uniform = int(dlen[0]) if dlen.min() == dlen.max() else None
    if uniform is not None:
        prefix_blocks = (rest + uniform + 8) // 64 + 1
        blocks = prefix_blocks[which]
    else:
        total = plen[which] + dlen
        blocks = (head + dlen + 8) // 64 + 1  # the tail, 0x80, zeros, the 8-byte bit length
    for count in range(int(blocks.min()), int(blocks.max()) + 1):
        rows = np.arange(len(data)) if blocks.min() == blocks.max() else np.flatnonzero(blocks == count)
        if not len(rows):
            continue
        base = np.zeros((16 * count, len(prefixes)), dtype=np.uint32)
        base[:16] = rest_words
        if uniform is not None:  # the prefixes whose keys have `count` blocks
            these = np.flatnonzero(prefix_blocks == count)
            ends = np.zeros((16 * count, len(these)), dtype=np.uint32)
            _append(ends, None, None, rest[these] + uniform, np.zeros(len(these), dtype=np.int64))  # the 0x80
            _bit_length(ends, plen[these] + uniform)
            if len(these) == len(prefixes):
                base |= ends
            else:
                base[:, these] |= ends
        written = np.flatnonzero(base.any(axis=1))  # the words some prefix's bytes reach
        for lo in range(0, len(rows), LANES):
            idx = rows[lo:lo + LANES]
            mine = which[idx]
            words = np.zeros((16 * count, len(idx)), dtype=np.uint32)  # (16 words per block, lanes)
            for w in written.tolist():
                words[w] = base[w].take(mine)
            if uniform is not None:
                _append(words, data, idx, head[idx], dlen[idx], end_mark=False)
            else:
                _append(words, data, idx, head[idx], dlen[idx])
                _bit_length(words, total[idx])
            if state is None:
                lanes = tuple(np.full(len(idx), v, dtype=np.uint32) for v in _INIT)
            else:
                lanes = tuple(state[i].take(mine) for i in range(4))
            for b in range(count - 1):
                lanes = _block(lanes, words[16 * b:16 * b + 16])
            out[idx] = _block(lanes, words[16 * (count - 1):], first_only=True)
    return out.byteswap()


def _prefix_blocks(prefixes: PaddedRows, full: np.ndarray) -> tuple[Optional[np.ndarray], np.ndarray]:
    """(the MD5 state (4, prefixes) after each prefix's full 64-byte blocks, or None when none has one; each
    prefix's bytes after them as the 16 words of a block, (16, prefixes))."""
    matrix = prefixes.matrix
    if matrix.shape[1] < 64 * (int(full.max()) + 1):  # room for the last bytes' block
        matrix = np.pad(matrix, ((0, 0), (0, 64 * (int(full.max()) + 1) - matrix.shape[1])))
    state = None
    if full.max() > 0:
        state = np.array(_INIT, dtype=np.uint32)[:, None].repeat(len(prefixes), axis=1)
        for b in range(int(full.max())):
            rows = np.arange(len(prefixes)) if full.min() > b else np.flatnonzero(full > b)
            for lo in range(0, len(rows), LANES):
                # every prefix has this block: a slice, not a gather
                idx = slice(lo, min(lo + LANES, len(rows))) if full.min() > b else rows[lo:lo + LANES]
                new = _block(tuple(state[i, idx] for i in range(4)), _words(matrix[idx, 64 * b:64 * b + 64]))
                for i in range(4):
                    state[i, idx] = new[i]
    if full.min() == full.max():
        return state, _words(matrix[:, 64 * int(full[0]):64 * int(full[0]) + 64])
    rest_words = np.zeros((16, len(prefixes)), dtype=np.uint32)
    for f in np.unique(full).tolist():
        rows = np.flatnonzero(full == f)
        rest_words[:, rows] = _words(matrix[rows, 64 * f:64 * f + 64])
    return state, rest_words


def _words(blocks: np.ndarray) -> np.ndarray:
    """(N, 64) bytes -> their 16 little-endian words, one row per word: (16, N)."""
    return np.ascontiguousarray(np.ascontiguousarray(blocks).view("<u4").astype(np.uint32, copy=False).T)


def _bit_length(words: np.ndarray, total: np.ndarray) -> None:
    """The key's length in bits, MD5's last 8 bytes: the last two words of each lane."""
    bits = total.astype(np.uint64) * np.uint64(8)
    words[-2] = (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    words[-1] = (bits >> np.uint64(32)).astype(np.uint32)


def _append(words: np.ndarray, data: Optional[ByteRows], idx: Optional[np.ndarray], head: np.ndarray,
            dlen: np.ndarray, end_mark: bool = True) -> None:
    """Write `data[idx[j]]` then (with `end_mark`) 0x80 into lane j of `words` (rows of uint32 words, one lane
    per key, zero there), from byte position `head[j]`: one byte position per pass, each byte stored in place."""
    row = 4 * words.shape[1]  # bytes per row of words
    flat = words.view(np.uint8).reshape(-1)
    start = data.off[idx] if data is not None else None
    if len(dlen) and dlen.min() == dlen.max():  # one length (a replica digit, a queue id and "]"): no masks
        lane = 4 * np.arange(len(dlen))
        for j in range(int(dlen[0]) + end_mark):
            pos = head + j
            at = (pos >> 2) * (row - 4) + lane  # word (pos >> 2) of the lane, then its byte (pos & 3)
            at += pos if _LITTLE else (pos & ~3) + _BYTE[pos & 3]
            flat[at] = data.data[start + j] if j < dlen[0] else 0x80
        return
    live = np.arange(len(dlen))
    j = 0
    while len(live):
        longer = dlen[live] > j
        value = np.full(len(live), 0x80, dtype=np.uint8)
        value[longer] = data.data[start[live[longer]] + j]
        pos = head[live] + j
        flat[(pos >> 2) * row + 4 * live + _BYTE[pos & 3]] = value
        live = live[longer]
        j += 1


def _block(state, words, first_only: bool = False):
    """One 64-byte block for every lane: `state` the 4 uint32 arrays before it, `words` its 16 words (one row
    each). Returns the 4 arrays after it or, with `first_only` (the last block, of which only the first digest
    word is read), that word alone: it is fixed after 61 of the 64 steps."""
    a0, b0, c0, d0 = state
    n = len(a0)
    a, b, c, d = a0.copy(), b0.copy(), c0.copy(), d0.copy()
    f = np.empty(n, dtype=np.uint32)
    t = np.empty(n, dtype=np.uint32)
    zero = [not w.any() for w in words]  # padding words: add the constant alone
    for i in range(61 if first_only else 64):
        if i < 16:
            np.bitwise_xor(c, d, out=f)
            f &= b
            f ^= d
        elif i < 32:
            np.bitwise_xor(b, c, out=f)
            f &= d
            f ^= c
        elif i < 48:
            np.bitwise_xor(b, c, out=f)
            f ^= d
        else:
            np.invert(d, out=f)
            f |= b
            f ^= c
        f += a
        if zero[_G[i]]:
            f += np.uint32(_K[i])
        else:
            np.add(words[_G[i]], np.uint32(_K[i]), out=t)
            f += t
        s = _S[i]
        np.left_shift(f, s, out=t)
        f >>= 32 - s
        f |= t
        f += b
        a, b, c, d, f = d, f, b, c, a  # the next step's registers; the old `a` array is the next scratch
    if first_only:  # after step 61 (0-based 60), `b` holds what steps 62-64 rotate into `a`
        b += a0
        return b
    a += a0
    b += b0
    c += c0
    d += d0
    return a, b, c, d

"""Java's ordering of strings and message queues, as the RocketMQ client sorts them before a rebalance.

Java compares strings by UTF-16 code units; Python compares by code points. The two disagree only when a
character outside the BMP (U+10000 and up, a surrogate pair in Java) meets one in U+E000..U+FFFF: Java puts
'\\U0001F600' (0xD83D 0xDE00) before '\\uffff', Python after. Big-endian UTF-16 bytes compare exactly like the
code units, so they are the sort key. `surrogatepass` keeps lone surrogates (possible in JSON input) sortable.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Iterable

from rmqplan.model.fleet import Queue


def java_string_key(s: str) -> bytes:
    """A key that orders strings as `String.compareTo` does."""
    return s.encode("utf-16-be", "surrogatepass")


def queue_key(q: Queue) -> tuple[bytes, bytes, int]:
    """`MessageQueue.compareTo`: topic, then brokerName, then queueId."""
    return (java_string_key(q[0]), java_string_key(q[1]), q[2])


def _all_ascii(strings: Iterable[str]) -> bool:
    return "".join(strings).isascii()  # one C-level pass: this runs once per group on the engines' hot path


def sort_client_ids(client_ids: Iterable[str]) -> list[str]:
    """`Collections.sort(cidAll)`: Java string order, duplicates kept."""
    ids = list(client_ids)
    if _all_ascii(ids):  # the common case: code points and code units agree, so skip the encoding
        ids.sort()
    else:
        ids.sort(key=java_string_key)
    return ids


def sort_strings(strings: Iterable[str]) -> list[str]:
    """Java string order (e.g. the keys of a `TreeMap<String, ...>`)."""
    return sort_client_ids(strings)


def sort_queues(queues: Iterable[Queue]) -> list[Queue]:
    """`Collections.sort(mqAll)` in Java order."""
    qs = list(queues)
    if _all_ascii(map(itemgetter(0), qs)) and _all_ascii(map(itemgetter(1), qs)):
        qs.sort()  # (topic, broker, queue_id) tuples: ASCII strings and ints already compare as Java does
    else:
        qs.sort(key=queue_key)
    return qs

"""Generated fleets' names as Arrow string arrays, for a whole chunk at once: the formulas of
`rmqplan.generated.generate.generated_group` (group and topic names, hosts, labels, client ids) as Arrow's string kernels,
for the `--out` tables (`rmqplan.report.out_tables`) and the generated findings (`rmqplan.generated.findings`).

pyarrow is imported when a name is built: the local engine needs it only for `--out`.
"""

from __future__ import annotations

import numpy as np


def number_text(values):
    """Decimal strings of integers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.cast(pa.array(np.asarray(values, dtype=np.int64)), pa.string())


def join(*parts):
    """Row by row, the concatenation of `parts` (string arrays of one length, or scalars)."""
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(*parts, "")


def generated_group_names(groups: np.ndarray):
    """(group names, topic names) of rebalances 2k (main) and 2k + 1 (retry) of the generated groups `groups`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(groups)
    padded = pc.utf8_lpad(number_text(groups), 7, "0")
    group = pc.binary_join_element_wise(pa.scalar("GID_"), padded, "")
    main = pc.binary_join_element_wise(pa.scalar("TOPIC_"), padded, "")
    retry = pc.binary_join_element_wise(pa.scalar("%RETRY%"), group, "")
    both = np.arange(n, dtype=np.int64).repeat(2)
    return pc.take(group, both), pc.take(pa.concat_arrays([main, retry]), both + np.tile([0, n], n))


_TABLES: dict = {}
HOST_TABLE_LIMIT = 1 << 17  # hosts in one table of every generated host (256 x processes per group, rounded up)


def _table(key, make):
    """A string array made once per process (`make()` its values)."""
    import pyarrow as pa

    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = pa.array(make(), type=pa.string())
    return table


def shared_hosts():
    """The shared host "10.x.0.1" of a colliding generated group, for each x (`rmqplan.generated.generate`)."""
    return _table("shared", lambda: [f"10.{x}.0.1" for x in range(256)])


def generated_labels(a: np.ndarray, i: np.ndarray):
    """The labels "10.{a % 256}.{i // 256}.{i % 256}#1" of generated processes with a host of their own (process
    i of its group, `a` its address hash: `rmqplan.generated.generate.generated_group`), taken from tables made once."""
    import pyarrow as pa
    import pyarrow.compute as pc

    high = 1 << max(int(i.max()) if len(i) else 0, 1).bit_length()
    lead = _table("lead", lambda: [f"10.{x}." for x in range(256)])
    tail = _table(("label tail", high), lambda: [f"{y // 256}.{y % 256}#1" for y in range(high)])
    return join(pc.take(lead, pa.array(a % 256)), pc.take(tail, pa.array(i)))


def generated_process_names(names, k=None, i=None, restarted=None) -> list[tuple]:
    """(rows, instance, client_id, host) of every process of a generated batch (`rmqplan.generated.generate.GeneratedNames`),
    the formulas of `rmqplan.generated.generate.generated_group` as Arrow string kernels, in two parts: the processes of
    groups with their own hosts, then those of colliding groups (one shared host each); `rows` are their positions
    (an index array); hosts and labels are dictionary arrays over tables of every generated host and label
    (up to HOST_TABLE_LIMIT), made once, as are the pieces of client ids ("@pid#"). `k`, `i` (default every
    process of the batch) name other processes by batch group and index; `restarted` marks those reporting the id
    of a restart (`rmqplan.generated.states`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rmqplan.generated.generate import MODULUS, NANOTIME_STEP, PROCESS_STEP

    if k is None:
        k, i = names.process_group, names.process_i
    colliding = np.asarray(names.colliding)[k]
    parts = []
    own = np.flatnonzero(~colliding)
    if len(own):
        ko, io = k[own], i[own]
        a = (np.asarray(names.a0)[ko] + io * PROCESS_STEP) % MODULUS
        nano = (np.asarray(names.nano0)[ko] + io * NANOTIME_STEP) % MODULUS
        pid = 1 + (a >> 8) % 65535
        if restarted is not None and np.any(restarted[own]):  # the next pid, a nanoTime after every generated one
            again = restarted[own]
            pid = np.where(again, 1 + ((a >> 8) + 1) % 65535, pid)
            nano = np.where(again, MODULUS + io + 1, nano)
        high = 1 << max(int(io.max()), 1).bit_length()  # a table per power of two, not per size
        if high <= HOST_TABLE_LIMIT // 256:  # every host and label of up to `high` processes per group, made once
            at = pa.array(((a % 256) * high + io).astype(np.int32))
            hosts = _table(("host", high), lambda: [f"10.{x}.{y // 256}.{y % 256}" for x in range(256)
                                                   for y in range(high)])
            host = pa.DictionaryArray.from_arrays(at, hosts)
            instance = pa.DictionaryArray.from_arrays(at, _table(("label", high), lambda: [
                f"10.{x}.{y // 256}.{y % 256}#1" for x in range(256) for y in range(high)]))
            host_text = pc.take(hosts, at)
        else:
            lead = _table("lead", lambda: [f"10.{x}." for x in range(256)])
            tail = _table(("tail", high), lambda: [f"{x // 256}.{x % 256}" for x in range(high)])
            host = host_text = pc.binary_join_element_wise(pc.take(lead, pa.array(a % 256)),
                                                           pc.take(tail, pa.array(io)), "")
            instance = pc.binary_join_element_wise(host, pa.scalar("#1"), "")
        pids = _table("pid", lambda: [f"@{p}#" for p in range(65536)])
        parts.append((own, instance, pc.binary_join_element_wise(host_text, pc.take(pids, pa.array(pid)),
                                                                 number_text(nano), ""), host))
    shared = np.flatnonzero(colliding)
    if len(shared):  # one host per group, 10.x.0.1: instance host#(i + 1), client id host@1
        at = pa.array(np.asarray(names.shared_host)[k[shared]].astype(np.int32))
        hosts = shared_hosts()
        parts.append((shared, pc.binary_join_element_wise(pc.take(hosts, at), number_text(i[shared] + 1), "#"),
                      pc.take(_table("shared_id", lambda: [f"10.{x}.0.1@1" for x in range(256)]), at),
                      pa.DictionaryArray.from_arrays(at, hosts)))
    return parts

"""What a scenario's `replicas` does to a group: the instance sets it names run N processes, all else of them kept.

A scaled set keeps its instance name, pid, client release, unit name, strategy and subscriptions: "orders at 6
replicas" is six processes of the code and deployment that run now, not new processes with the defaults. Only how
many run, and on which hosts, changes; where processes beyond the written ones go is the set's `scale_out`:

- `same_hosts`: the hosts are machines the processes share (host networking reports the node's IP; several JVMs
  on one machine): the N processes are spread evenly over the sets' hosts, in order, the first hosts taking one
  more when N does not divide.
- `new_hosts`: each host is one replica's own (a pod IP): the hosts hold as many processes each as the sets do
  (`count`), in order, and hosts beyond the written ones are new, numbered on from the last
  (`10.0.0.7` after `10.0.0.6`, `orders-pod-4` after `orders-pod-3`; a name that ends in no number gets `-2`, `-3`).
- not given: `same_hosts` when a host of the sets holds more than one of their processes, else `new_hosts`.

Fewer processes than written leave from the end: the last hosts (`new_hosts`), or each host down to its even share
(`same_hosts`), the last processes of a host first. `rmqplan.model.states` keeps the labels of the processes that
stay and numbers the new ones on, as it does for `add_instances`, so a scenario at N gives the processes a fleet
written with N would have.
"""

from __future__ import annotations

import re

from rmqplan.model.fleet import NEW_HOSTS, SAME_HOSTS, Group, InstanceSpec, Scaling

_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def layout(group: Group, scaling: Scaling) -> list[tuple[str, int]]:
    """(host, processes) of the scaled sets in the scenario, hosts in order (a host with none left out)."""
    sets = [group.instances[i] for i in scaling.sets]
    written: dict[str, int] = {}
    for spec in sets:
        for host in spec.hosts:
            written[host] = written.get(host, 0) + spec.count
    hosts, n = list(written), scaling.replicas
    mode = next((s.scale_out for s in sets if s.scale_out is not None), None)
    if mode is None:
        mode = SAME_HOSTS if any(c > 1 for c in written.values()) else NEW_HOSTS
    if mode == SAME_HOSTS:
        shares = [n // len(hosts) + (1 if i < n % len(hosts) else 0) for i in range(len(hosts))]
        return [(h, c) for h, c in zip(hosts, shares) if c]
    per_host = max(written.values())
    needed = -(-n // per_host)
    hosts = hosts[:needed] + new_hosts(group, hosts[-1], needed - len(hosts))
    return [(h, min(per_host, n - i * per_host)) for i, h in enumerate(hosts)]


def new_hosts(group: Group, last: str, k: int) -> list[str]:
    """`k` host names no process of the group has, numbered on from `last`."""
    used = {h for spec in group.instances for h in spec.hosts}
    m = _NUMBERED.match(last)
    prefix, number = (m.group(1), int(m.group(2))) if m else (f"{last}-", 1)
    out: list[str] = []
    while len(out) < k:
        number += 1
        name = f"{prefix}{number}"
        if name not in used:
            out.append(name)
    return out


def template(group: Group, scaling: Scaling) -> InstanceSpec:
    """What every process of the scaled sets is, hosts and count aside (the sets are alike: the parser checks)."""
    return group.instances[scaling.sets[0]]


def differences(a: InstanceSpec, b: InstanceSpec) -> list[str]:
    """The keys in which two instance sets differ, hosts, count and where they are written aside: sets that one
    `replicas` item scales together must not differ in any."""
    from dataclasses import fields

    skip = {"path", "hosts", "count"}
    return [f.name for f in fields(InstanceSpec) if f.name not in skip and getattr(a, f.name) != getattr(b, f.name)]

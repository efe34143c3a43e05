"""A hand-written fleet.toml the size of a company's, for the report's layout tests and `benchmarks.report_bench`:
`python -m harness.real_fleet GROUPS [SEED] > fleet.toml`.

Not a `[generate]` fleet (one topic per group, one strategy, names from a formula): what `rmqplan fleet` writes
for a real one, and what the reports must stay readable on. Four brokers in two rooms; topics on two or four
brokers with 4, 8 or 16 queues each, some shared by several groups, a few with more write than read queues
(PLAN004) or the reverse (PLAN008); groups of 1 to 12 processes subscribing to 1 to 3 topics, mostly AVG on pods
of their own, with every other strategy too, some broadcasting, and the shapes that go wrong in production:
containers on host networking (pid 1) on an old client, a fixed instanceName shared by every process, more
processes than queues, a deployment caught half-way between two strategies. Four scenarios: a scale-out, a
broker down, a rolling restart, a node lost. The same GROUPS and SEED give the same file.
"""

from __future__ import annotations

import json
import random
import sys

BROKERS = (("hz@broker-a", "hz"), ("hz@broker-b", "hz"), ("sh@broker-c", "sh"), ("sh@broker-d", "sh"))
DOMAINS = ("Order", "Payment", "Inventory", "Shipping", "User", "Coupon", "Refund", "Invoice", "Cart", "Review",
           "Search", "Risk", "Ledger", "Notify", "Pricing", "Catalog")
EVENTS = ("Created", "Paid", "Cancelled", "Updated", "Settled", "Shipped", "Reserved", "Expired", "Audited",
          "Synced")
SERVICES = ("api", "worker", "sync", "audit", "billing", "report", "stream", "index", "mailer", "batch")
# (strategy, weight): most groups keep the default
STRATEGIES = (("AVG", 62), ("AVG_BY_CIRCLE", 12), ("CONSISTENT_HASH", 9), ("MACHINE_ROOM_NEARBY", 8),
              ("MACHINE_ROOM", 5), ("CONFIG", 2))
# (how the processes run, weight)
SHAPES = (("pods", 60), ("vms", 14), ("host_network_new", 8), ("host_network_old", 7), ("fixed_name", 5),
          ("half_way", 3), ("crowded", 3))


def _pick(rng: random.Random, table) -> str:
    return rng.choices([name for name, _ in table], [weight for _, weight in table])[0]


def _processes(rng: random.Random) -> int:
    return rng.choices(range(1, 13), [6, 14, 16, 12, 10, 8, 6, 6, 4, 3, 3, 2])[0]


def _value(value) -> str:
    """A TOML value: strings (plain ASCII here) as JSON writes them, lists, inline tables, integers, booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }"
    return str(value)


def _table(header: str, items: dict) -> list[str]:
    return [header] + [f"{key} = {_value(value)}" for key, value in items.items()] + [""]


def fleet_toml(groups: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    out = [f"# a hand-written fleet of {groups} groups (harness/real_fleet.py, seed {seed})", ""]
    for name, room in BROKERS:
        out += _table("[[brokers]]", {"name": name, "room": room})
    topics = []  # (name, brokers, queues per broker)
    for i in range(max(4, groups * 2 // 3)):
        name = f"{DOMAINS[i % len(DOMAINS)]}{EVENTS[(i // len(DOMAINS)) % len(EVENTS)]}"
        name += f"_{i // (len(DOMAINS) * len(EVENTS))}" if i >= len(DOMAINS) * len(EVENTS) else ""
        names = [b for b, _ in BROKERS]
        brokers = names if rng.random() < 0.4 else names[:2] if rng.random() < 0.6 else names[2:]  # or one room's
        queues = rng.choices((4, 8, 16), (3, 6, 2))[0]
        topic = {"name": name, "read_queues": queues, "brokers": brokers}
        odd = rng.random()
        if odd < 0.02:  # more write queues than read queues: messages nobody reads
            topic["write_queues"] = queues * 2
        elif odd < 0.04:  # a topic being shrunk: read queues that receive nothing
            topic["write_queues"] = queues // 2
        out += _table("[[topics]]", topic)
        topics.append((name, brokers, queues))
    node = 0
    named = []  # (group, shape, its first set's hosts, processes, broadcasting, strategy): for the scenarios
    for g in range(groups):
        domain = DOMAINS[g % len(DOMAINS)]
        group = f"GID_{domain.lower()}_{SERVICES[(g // len(DOMAINS)) % len(SERVICES)]}_{g:04d}"
        broadcasting = rng.random() < 0.05
        strategy = "AVG" if broadcasting else _pick(rng, STRATEGIES)
        shape = _pick(rng, SHAPES)
        n = _processes(rng)
        subscribed = rng.sample(topics, rng.choices((1, 2, 3), (6, 3, 1))[0])
        if shape == "crowded":  # more processes than queues
            small = [t for t in topics if t[2] * len(t[1]) < 12] or topics
            subscribed, n = [rng.choice(small)], 12
        entry: dict = {"name": group}
        if broadcasting:
            entry["model"] = "broadcasting"
        elif strategy != "AVG":
            entry["strategy"] = strategy
        if strategy == "CONSISTENT_HASH":
            entry["virtual_nodes"] = rng.choice((3, 10, 16))
        elif strategy == "MACHINE_ROOM":
            entry["consumer_idcs"] = ["hz"] if rng.random() < 0.7 else ["hz", "sh"]
        elif strategy == "MACHINE_ROOM_NEARBY":
            entry["nearby"] = rng.choice(("AVG", "AVG_BY_CIRCLE"))
        elif strategy == "CONFIG":
            every = [[t, b, q] for t, brokers, queues in subscribed for b in brokers for q in range(queues)]
            entry["queues"] = every if rng.random() < 0.7 else every[:rng.randint(1, 4)]  # or a stale list
            n = 1  # one process that reads the fixed list
        entry["subscriptions"] = [{"topic": t, "expression": "*"} for t, _, _ in subscribed]
        out += _table("[[groups]]", entry)
        sets: list[dict] = []
        if shape in ("host_network_old", "host_network_new"):  # containers on one or two nodes: pid 1
            nodes = 1 if n <= 4 else 2
            node += nodes
            sets.append({"hosts": [f"10.8.{node // 250}.{node % 250 + i}" for i in range(nodes)],
                         "count": max(1, n // nodes), "pid": 1,
                         "client_version": "4.5.1" if shape == "host_network_old" else "4.9.3"})
        elif shape == "fixed_name":  # every process sets one instanceName
            sets.append({"hosts": [_pod(rng) for _ in range(n)],
                         "instance_name": f"{group.split('_')[1]}-consumer"})
        elif shape == "vms":
            per = rng.choice((1, 2))
            sets.append({"hosts": [f"192.168.{g % 250}.{10 + i}" for i in range(max(1, n // per))], "count": per})
        elif shape == "half_way" and not broadcasting and strategy in ("AVG", "AVG_BY_CIRCLE") and n >= 2:
            half = n // 2
            sets.append({"hosts": [_pod(rng) for _ in range(n - half)]})
            sets.append({"hosts": [_pod(rng) for _ in range(half)],
                         "strategy": "AVG_BY_CIRCLE" if strategy == "AVG" else "AVG"})
        else:
            sets.append({"hosts": [_pod(rng) for _ in range(n)]})
        if strategy == "MACHINE_ROOM_NEARBY" and not broadcasting:  # a room each, spread over both
            hosts = sets[0]["hosts"]
            cut = max(1, len(hosts) // 2)
            rest = {k: v for k, v in sets[0].items() if k != "hosts"}
            sets = [{"hosts": hosts[:cut], **rest, "room": "hz"}]
            if hosts[cut:]:
                sets.append({"hosts": hosts[cut:], **rest, "room": "sh"})
        for s in sets:
            out += _table("[[groups.instances]]", s)
        named.append((group, shape, sets[0]["hosts"], n, broadcasting, strategy))
    out += _scenarios(named)
    return "\n".join(out)


def _pod(rng: random.Random) -> str:
    return f"10.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"


def _scenarios(named) -> list[str]:
    """A scale-out of a plain AVG group, the second broker of the second room down, a rolling restart of a
    group and a node lost under host-networked containers."""
    plain = [g for g, shape, _, n, b, s in named if shape == "pods" and not b and s == "AVG" and n >= 3]
    host = [(g, hosts) for g, shape, hosts, _, b, _ in named if shape.startswith("host_network") and not b]
    out = []
    if plain:
        out += _table("[[scenarios]]", {"name": "scale-out", "group": plain[0],
                                        "add_instances": [{"hosts": ["10.30.0.2", "10.30.0.3"]}]})
        out += _table("[[scenarios]]", {"name": "restart", "group": plain[-1], "rolling_restart": True})
    out += _table("[[scenarios]]", {"name": "broker-d-down", "remove_brokers": ["sh@broker-d"]})
    if host:
        group, hosts = host[0]
        out += _table("[[scenarios]]", {"name": "node-lost", "group": group, "remove_hosts": hosts[:1]})
    return out


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2 or not all(a.isdigit() for a in argv):
        print("usage: python -m harness.real_fleet GROUPS [SEED]", file=sys.stderr)
        return 2
    sys.stdout.write(fleet_toml(int(argv[0]), *(int(a) for a in argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

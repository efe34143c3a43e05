"""Scenario states against an independent model: for random small fleets with broker changes, topic resizes,
added processes and rolling restarts, every step's assignment equals what each process computes with the
transcribed Java strategy (`rmqplan.allocation.strategies.allocate`) over client ids and queue lists derived here from the
client's rules, written out again without the planner's state code."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.engines.local import simulate
from rmqplan.model.fleet import Queue
from rmqplan.allocation.strategies import allocate, parse_strategy

BROKERS = ["broker-a", "broker-b", "broker-c"]
STRATEGIES = ['"AVG"', '"AVG_BY_CIRCLE"', '"CONSISTENT_HASH"\nvirtual_nodes = 3']


@st.composite
def fleets(draw):
    brokers = BROKERS[: draw(st.integers(1, 3))]
    read = {b: draw(st.integers(0, 5)) for b in brokers}
    sets = draw(st.lists(st.tuples(st.sampled_from(["h1", "h2"]), st.integers(1, 2), st.sampled_from([None, 1]),
                                   st.sampled_from(["4.5.1", "4.9.8"]), st.sampled_from([None, None, "n"])),
                         min_size=1, max_size=3))
    added = draw(st.lists(st.tuples(st.sampled_from(["h1", "h3"]), st.integers(1, 2), st.sampled_from([None, 1]),
                                    st.sampled_from(["4.5.1", "4.9.8"]), st.just(None)), max_size=1))
    down = draw(st.lists(st.sampled_from(brokers), unique=True, max_size=len(brokers) - 1))
    perm = {b: draw(st.sampled_from([0, 2, 4, 6])) for b in draw(st.lists(
        st.sampled_from([b for b in brokers if b not in down] or brokers[:1]), unique=True, max_size=2))
        if b not in down}
    resize = {b: draw(st.integers(0, 6)) for b in brokers if draw(st.booleans())}
    strategy = draw(st.sampled_from(STRATEGIES))
    restart = draw(st.booleans())
    return dict(brokers=brokers, read=read, sets=sets, added=added, down=down, perm=perm, resize=resize,
                strategy=strategy, restart=restart)


def _instance_lines(host, count, pid, version, name) -> str:
    lines = [f'hosts = ["{host}"]', f"count = {count}", f'client_version = "{version}"']
    if pid is not None:
        lines.append(f"pid = {pid}")
    if name is not None:
        lines.append(f'instance_name = "{name}"')
    return "\n".join(lines)


def toml(f) -> str:
    out = [f'[[brokers]]\nname = "{b}"' for b in f["brokers"]]
    counts = ", ".join(f'"{b}" = {n}' for b, n in f["read"].items())
    out.append(f'[[topics]]\nname = "T"\nread_queues = {{ {counts} }}')
    out.append(f'[[groups]]\nname = "g"\nstrategy = {f["strategy"]}\nsubscriptions = [{{ topic = "T" }}]')
    out += ["[[groups.instances]]\n" + _instance_lines(*s) for s in f["sets"]]
    scenario = ['[[scenarios]]', 'name = "s"', 'group = "g"']
    if f["down"]:
        scenario.append(f"remove_brokers = {f['down']!r}".replace("'", '"'))
    if f["perm"]:
        scenario.append("broker_perm = { " + ", ".join(f'"{b}" = {p}' for b, p in f["perm"].items()) + " }")
    if f["resize"]:
        sizes = ", ".join(f'"{b}" = {n}' for b, n in f["resize"].items())
        scenario.append(f'set_queues = [{{ topic = "T", read_queues = {{ {sizes} }} }}]')
    for host, count, pid, version, _ in f["added"]:
        extra = f", pid = {pid}" if pid is not None else ""
        scenario.append(f'add_instances = [{{ hosts = ["{host}"], count = {count}, client_version = "{version}"'
                        f'{extra} }}]')
    if f["restart"]:
        scenario.append('rolling_restart = "group"')
    return "\n".join(out + ["\n".join(scenario)]) + "\n"


def client_id(host, pid, version, name, start) -> str:
    """ClientConfig: ip@instanceName; a CLUSTERING consumer replaces DEFAULT by the pid (< 4.9.0) or
    pid#nanoTime; the synthetic pid is 10000 + start and nanoTime 1000000000000 + start."""
    if name is not None:
        return f"{host}@{name}"
    pid = pid if pid is not None else 10000 + start
    if version == "4.5.1":
        return f"{host}@{pid}"
    return f"{host}@{pid}#{1_000_000_000_000 + start}"


def _queues(read: dict, readable: list) -> dict:
    return {"T": [Queue("T", b, i) for b in sorted(readable) for i in range(read[b])],
            "%RETRY%g": [Queue("%RETRY%g", b, 0) for b in sorted(readable)]}


def expected_states(f) -> tuple[tuple, list[tuple[dict, dict, set]]]:
    """The baseline's (queue lists per topic, {label: client id}), and for every step of the scenario the same
    and the labels of the processes that (re)start in that step."""
    numbers: dict[str, int] = {}
    processes = []  # [label, host, pid, version, name]
    for host, count, pid, version, name in f["sets"] + f["added"]:
        for _ in range(count):
            numbers[host] = numbers.get(host, 0) + 1
            processes.append([f"{host}#{numbers[host]}", host, pid, version, name, numbers[host]])
    counter = max(numbers.values())
    read = {b: n for b, n in {**f["read"], **f["resize"]}.items()}
    readable = [b for b in f["brokers"] if b not in f["down"] and f["perm"].get(b, 6) & 4]
    queues = _queues(read, readable)

    def ids(ps):
        return {p[0]: client_id(p[1], p[2], p[3], p[4], p[5]) for p in ps}

    baseline = (_queues(f["read"], f["brokers"]), ids(processes[:sum(count for _, count, *_ in f["sets"])]))
    added = {p[0] for p in processes if p[0] not in baseline[1]}
    states = [(queues, ids(processes), added)]
    if f["restart"]:
        states = [] if not (f["down"] or f["perm"] or f["resize"] or f["added"]) else states
        for j in range(len(processes)):
            states.append((queues, ids(processes[:j] + processes[j + 1:]), set()))
            counter += 1
            processes[j][5] = counter
            states.append((queues, ids(processes), {processes[j][0]}))
    return baseline, states


def shares(spec, mq_all: list, ids: dict, held: dict, started: set) -> dict:
    """Each process's share; with no readable queue `check()` throws and a process keeps what it held (`held`),
    unless it (re)starts now."""
    if not mq_all:
        return {label: [] if label in started else held.get(label, []) for label in ids}
    return {label: allocate(spec, mq_all, list(ids.values()), cid) for label, cid in ids.items()}


@settings(max_examples=80, deadline=None)
@given(fleets())
def test_every_step_is_what_each_process_computes(f):
    sim = simulate(parse_fleet_text(toml(f), "fleet.toml"))
    spec = parse_strategy(f["strategy"].split("\n")[0].strip('"'), {"virtual_nodes": 3})
    steps = sim.steps["s"]
    (base_queues, base_ids), states = expected_states(f)
    held = {topic: shares(spec, mq_all, base_ids, {}, set(base_ids)) for topic, mq_all in base_queues.items()}
    assert len(steps) == len(states)
    for step, (queues, ids, started) in zip(steps, states):
        results = {r.topic: r for r in step.results}
        for topic, mq_all in queues.items():
            r = results.get(topic)
            if r is None:  # a step that does not touch the group: the routes did not change for it
                assert step.index == 1 and not f["added"]
                continue
            assert {p.instance: p.client_id for p in r.processes} == ids
            assert r.queues == mq_all
            want = held[topic] = shares(spec, mq_all, ids, held[topic], started)
            assert r.assignment == want

"""--compare-strategies and --plan on the local engine: moves per strategy against the transcribed Java classes,
the minimum against hand counts and an exhaustive search, and CONFIG lists that reproduce the planned
assignment."""

from __future__ import annotations

import io
import re
import json
from pathlib import Path

import pytest

from rmqplan.cli import run
from rmqplan.allocation.comparison import compare
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.engines.local import run_batch, simulate
from rmqplan.model.fleet import Queue
from rmqplan.allocation.strategies import allocate, parse_strategy
from tests.planner.test_min_moves import exhaustive

ORDERS = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "OrderEvents"
read_queues = 8
[[groups]]
name = "orders"
subscriptions = [{ topic = "OrderEvents" }]
[[groups.instances]]
hosts = ["10.0.0.6"]
count = 3
pid = 1
client_version = "4.9.3"
[[groups]]
name = "audit"
model = "broadcasting"
subscriptions = [{ topic = "OrderEvents" }]
[[groups.instances]]
hosts = ["10.0.0.9"]
[[scenarios]]
name = "scale-out"
group = "orders"
add_instances = [{ hosts = ["10.0.0.6"], pid = 1, client_version = "4.9.3" }]
"""


def by(comparisons) -> dict:
    return {(c.group, c.scenario): c for c in comparisons}


def moves_of(c) -> dict:
    return {r.strategy: r.moves for r in c.runs}


def reference_moves(strategy: str, before: list[str], after: list[str], queues: list[Queue]) -> int:
    """Queues whose holder changes when every process computes its share with the transcribed Java class
    (client ids are unique here, so each queue has one holder)."""
    spec = parse_strategy(strategy)

    def holders(cids):
        return {q: cid for cid in cids for q in allocate(spec, queues, cids, cid)}

    b, a = holders(before), holders(after)
    return sum(1 for q in queues if b.get(q) != a.get(q))


def test_scale_out_moves_per_strategy_and_the_minimum():
    fleet = parse_fleet_text(ORDERS, "fleet.toml")
    c = by(compare(fleet, run_batch))
    assert ("audit", "baseline") not in c, "broadcasting groups are not compared"
    scale = c[("orders", "scale-out")]
    # the labels 10.0.0.6#1..#4 report 10.0.0.6@1#1000000000001..4; the retry queue stays with #1 in all three
    before = [f"10.0.0.6@1#100000000000{i}" for i in (1, 2, 3)]
    after = before + ["10.0.0.6@1#1000000000004"]
    queues = [Queue("OrderEvents", "broker-a", i) for i in range(8)]
    expected = {name: reference_moves(name, before, after, queues)
                for name in ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")}
    assert expected["AVG"] == 5 and expected["AVG_BY_CIRCLE"] == 5  # by hand: see test_local, and 3,4,5,6,7 move
    assert moves_of(scale) == {"AVG": 5, "AVG_BY_CIRCLE": 5, "CONSISTENT_HASH": expected["CONSISTENT_HASH"]}
    assert [r.own for r in scale.runs] == [True, False, False]  # AVG is the group's own: listed once
    # the minimum: 3,3,2 -> 2,2,2,2: the new process takes one queue from each of the two that hold 3
    assert scale.minimum == 2 and scale.steps == 1 and scale.queues == 9
    assert c[("orders", "baseline")].minimum == 0 and c[("orders", "baseline")].steps == 0
    # CONSISTENT_HASH's 4 processes do not split 8 queues 2 each: it is no candidate for the balanced minimum
    assert scale.summary() == (f"scale-out (orders), 1 step, 9 queues: CONSISTENT_HASH moves "
                               f"{expected['CONSISTENT_HASH']} from its own split, AVG (own) 5, AVG_BY_CIRCLE 5; from "
                               f"the current split (AVG's), a balanced assignment moves at least 2 (CONSISTENT_HASH: "
                               f"unbalanced in 1 state)")


SMALL_ROLL = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = 3
[[groups]]
name = "g"
strategy = "CONSISTENT_HASH"
virtual_nodes = 3
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["h"]
count = 3
[[scenarios]]
name = "rolling"
group = "g"
rolling_restart = "group"
"""


def test_rolling_restart_minimum_is_the_exhaustive_minimum_and_the_own_strategy_is_named():
    fleet = parse_fleet_text(SMALL_ROLL, "fleet.toml")
    c = by(compare(fleet, run_batch, plan=True))[("g", "rolling")]
    assert [(r.strategy, r.own) for r in c.runs] == [("CONSISTENT_HASH (3 virtual nodes)", True), ("AVG", False),
                                                   ("AVG_BY_CIRCLE", False), ("CONSISTENT_HASH", False)]
    sim = simulate(fleet)
    own_moves = sum(len(r.moved) for s in sim.steps["rolling"] for r in s.results)
    assert c.runs[0].moves == own_moves and c.steps == 6
    # the minimum, topic by topic, from the own strategy's baseline through the six states
    from rmqplan.allocation.min_moves import Layer

    total = 0
    for topic in ("T", "%RETRY%g"):
        base = next(r for r in sim.results if r.scenario == "baseline" and r.topic == topic)
        start = {q: frozenset(p for p, qs in base.assignment.items() if q in qs) for q in base.queues}
        start = {q: h for q, h in start.items() if h}
        layers = [Layer(tuple(r.queues), tuple(r.assignment)) for s in sim.steps["rolling"] for r in s.results
                  if r.topic == topic]
        total += exhaustive(start, base.queues, layers)
    assert c.minimum == total
    assert [p.moves for p in c.plan] and sum(p.moves for p in c.plan) == total
    # no balanced strategy beats the minimum; CONSISTENT_HASH does here only by leaving a process two queues
    assert all(r.moves >= c.minimum for r in c.runs if not r.unbalanced)
    ch = c.runs[3]
    assert ch.moves < c.minimum and ch.unbalanced and "CONSISTENT_HASH: unbalanced in" in c.summary()


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def fleet_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "fleet.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_cli_json_and_text(tmp_path):
    path = fleet_file(tmp_path, ORDERS + '[[scenarios]]\nname = "rolling"\ngroup = "orders"\nrolling_restart = "group"\n')
    code, out, err = rmqplan("simulate", "--fleet", path, "--engine", "local", "--format", "json",
                             "--compare-strategies")
    doc = json.loads(out)
    assert code == 0 and err == ""
    rolling = next(s for s in doc["strategies"] if s["scenario"] == "rolling")
    assert rolling["group"] == "orders" and rolling["steps"] == 6 and rolling["queues"] == 9
    assert [s["strategy"] for s in rolling["strategies"]] == ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"]
    assert rolling["strategies"][0]["moves"] == next(s for s in doc["scenarios"]
                                                     if s["name"] == "rolling")["rollout"]["moves"]
    assert rolling["minimum_moves"] <= min(s["moves"] for s in rolling["strategies"])
    assert rolling["summary"].startswith("rolling (orders), 6 steps, 9 queues: ") and "per step" in rolling["summary"]
    assert (rolling["queues_before"], rolling["queues_after"]) == (9, 9)
    code, out, _ = rmqplan("simulate", "--fleet", path, "--engine", "local", "--compare-strategies")
    lines = out.splitlines()
    from rmqplan.compare import COUNTED

    assert f"strategies: {COUNTED}" in " ".join(line.strip() for line in lines)  # wrapped to 100 columns
    assert any(line.split()[:2] == ["scenario", "steps"] and line.split()[-1] == "minimum" for line in lines)
    summary = lines.index(next(line for line in lines if line.startswith("  rolling (orders), 6 steps, 9 queues: ")))
    assert all(line.startswith("    ") for line in lines[summary + 1:]) and max(map(len, lines[summary:])) <= 100


def planned(plan_dir: Path, scenario: str, group: str) -> list[dict]:
    index = json.loads((plan_dir / "plan.json").read_text())
    entry = next(p for p in index["plans"] if p["scenario"] == scenario and p["group"] == group)
    return entry["states"]


def config_fleet(text: str, group: str, processes: list[dict], plan_dir: Path) -> str:
    """The fleet's brokers and topics with the group's processes of one planned state, each running CONFIG with
    its planned list (loaded from its file, as a user would)."""
    head = text.split("[[groups]]")[0]
    subscriptions = next(g for g in text.split("[[groups]]")[1:] if f'name = "{group}"' in g)
    subscriptions = next(line for line in subscriptions.splitlines() if line.startswith("subscriptions"))
    out = [head, f'[[groups]]\nname = "{group}"\nstrategy = "CONFIG"\n{subscriptions}']
    for i, p in enumerate(processes):
        items = json.loads((plan_dir / p["file"]).read_text())
        queues = ", ".join(f'["{q["topic"]}", "{q["brokerName"]}", {q["queueId"]}]' for q in items)
        out.append(f'[[groups.instances]]\nhosts = ["{p["host"]}"]\ninstance_name = "p{i}"\nqueues = [{queues}]')
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("scenario", ["baseline", "scale-out", "rolling"])
def test_plan_lists_allocated_with_config_reproduce_the_plan(tmp_path, scenario):
    text = ORDERS + '[[scenarios]]\nname = "rolling"\ngroup = "orders"\nrolling_restart = "group"\n'
    plan_dir = tmp_path / "plan"
    code, out, err = rmqplan("simulate", "--fleet", fleet_file(tmp_path, text), "--engine", "local", "--plan",
                             str(plan_dir))
    assert code == 0 and err == "" and f"files in {plan_dir}" in out
    states = planned(plan_dir, scenario, "orders")
    assert len(states) == (6 if scenario == "rolling" else 1)
    for state in states:
        want = [[Queue(q["topic"], q["brokerName"], q["queueId"]) for q in json.loads((plan_dir / p["file"])
                                                                                       .read_text())]
                for p in state["processes"]]
        sim = simulate(parse_fleet_text(config_fleet(text, "orders", state["processes"], plan_dir), "f.toml"))
        for r in (r for r in sim.results if r.group == "orders"):
            got = [[q for q in r.assignment[p.instance] if q.topic == r.topic] for p in r.processes]
            assert got == [[q for q in qs if q.topic == r.topic] for qs in want]
            assert r.orphaned == [] and r.duplicated == [], "the plan holds every queue once"
        counts = sorted(len([q for q in qs if q.topic == "OrderEvents"]) for qs in want)
        assert counts[-1] - counts[0] <= 1, "balanced"


def test_plan_directory_is_all_or_nothing_and_never_someone_elses(tmp_path):
    path = fleet_file(tmp_path, ORDERS)
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    code, out, err = rmqplan("simulate", "--fleet", path, "--engine", "local", "--plan", str(foreign))
    assert code == 2 and out == "" and err.startswith(f"rmqplan: --plan {foreign}: directory is not empty")
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    plan_dir = tmp_path / "plan"
    assert rmqplan("simulate", "--fleet", path, "--engine", "local", "--plan", str(plan_dir))[0] == 0
    assert rmqplan("simulate", "--fleet", path, "--engine", "local", "--plan", str(plan_dir))[0] == 0  # replaced
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".plan")]


CONFIGMAP_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def test_plan_names_are_configmap_keys_and_an_index_says_whose_file_is_which(tmp_path):
    """Labels such as 10.0.0.5#1 (and group names with % or |) hold characters a ConfigMap key may not: every name
    is made of [-._a-zA-Z0-9], names that become equal (case aside too) are told apart in the processes' order, and
    each folder's index.json maps client id and host to the file."""
    text = ('[[brokers]]\nname = "broker-a"\n[[topics]]\nname = "T"\nread_queues = 8\n'
            '[[groups]]\nname = "orders|eu"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\n'
            'hosts = ["10.0.0.5", "a_1", "a@1", "A@1"]\n'
            '[[groups]]\nname = "orders%eu"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n')
    plan_dir = tmp_path / "plan"
    for run_dir in (plan_dir, tmp_path / "again"):
        code, _, err = rmqplan("simulate", "--fleet", fleet_file(tmp_path, text), "--engine", "local", "--plan",
                               str(run_dir))
        assert code == 0, err
    names = sorted(p.relative_to(plan_dir).as_posix() for p in plan_dir.rglob("*"))
    assert names == sorted(p.relative_to(tmp_path / "again").as_posix() for p in (tmp_path / "again").rglob("*"))
    assert all(CONFIGMAP_KEY.fullmatch(part) for name in names for part in name.split("/")), names
    (state,) = planned(plan_dir, "baseline", "orders|eu")
    assert [(p["instance"], Path(p["file"]).name) for p in state["processes"]] == [
        ("10.0.0.5#1", "10.0.0.5_1.json"), ("a_1#1", "a_1_1.json"), ("a@1#1", "a_1_1-2.json"),
        ("A@1#1", "A_1_1-3.json")]
    index = json.loads((plan_dir / state["index"]).read_text())
    assert index == {"processes": [{"instance": p["instance"], "client_id": p["client_id"], "host": p["host"],
                                    "file": Path(p["file"]).name} for p in state["processes"]]}
    assert all((plan_dir / state["directory"] / p["file"]).is_file() for p in index["processes"])
    (other,) = planned(plan_dir, "baseline", "orders%eu")
    assert {Path(state["directory"]).name, Path(other["directory"]).name} == {"orders_eu", "orders_eu-2"}

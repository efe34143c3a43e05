"""The Spark engine and the local engine give the same answers: hand-written fleets with every strategy, and
generated fleets of every generated strategy (totals, problem groups, every assignment)."""

from __future__ import annotations

import random

from rmqplan.engines import local
from rmqplan.sources.fleet_file import load_fleet
from rmqplan.generated.generate import generated_fleet
from rmqplan.model.fleet import Fleet, GenerateSpec
from rmqplan.model.simulation import SimulateOptions, Simulation
from rmqplan.report.render import totals
from rmqplan.engines.spark import chunk_frame, simulate_generated, simulate_hand_written

BROKERS = [("hz@broker-a", "hz"), ("hz@broker-b", "hz"), ("sh@broker-c", "sh"), ("bj@broker-d", "bj"),
           ("broker-e", None), ("\uffff@broker-f", "\uffff"), ("\U0001F600@broker-g", "\U0001F600")]
STRATEGY_LINES = [
    'strategy = "AVG"', 'strategy = "AVG_BY_CIRCLE"', 'strategy = "CONSISTENT_HASH"\nvirtual_nodes = 3',
    'strategy = "CONSISTENT_HASH"\nvirtual_nodes = 0', 'strategy = "MACHINE_ROOM"\nconsumer_idcs = ["hz", "sh"]',
    'strategy = "MACHINE_ROOM_NEARBY"\nnearby = "AVG"', 'strategy = "MACHINE_ROOM_NEARBY"\nnearby = "AVG_BY_CIRCLE"',
    'strategy = "MACHINE_ROOM_NEARBY"\nnearby = "CONSISTENT_HASH"',
    'strategy = "CONFIG"\nqueues = [["T{g}", "hz@broker-a", 0], ["T{g}", "sh@broker-c", 1], ["Other", "x", 0]]',
]
ROOMS = ["hz", "sh", "bj", "\uffff", "\U0001F600"]


def _random_fleet_toml(seed: int, groups: int, go: float = 0.0) -> str:
    """A random fleet; `go`: the share of instance sets that run rocketmq-client-go (drawn apart, so the rest of the
    fleet is the same whatever it is)."""
    rnd = random.Random(seed)
    go_rnd = random.Random(seed + 1)
    out = []
    averaging = []  # clustering AVG groups: the scenarios change those (a move is certain there)
    for name, room in BROKERS:
        out.append(f'[[brokers]]\nname = "{name}"' + (f'\nroom = "{room}"' if room else "")
                   + ('\nperm = "w"' if name == "broker-e" and seed % 2 else "") + "\n")
    for g in range(groups):
        brokers = rnd.sample([b for b, _ in BROKERS], rnd.randint(1, 4))
        numbers = [rnd.randint(0, 6) for _ in brokers]
        counts = ", ".join(f'"{b}" = {c}' for b, c in zip(brokers, numbers))
        out.append(f'[[topics]]\nname = "T{g}"\nread_queues = {{ {counts} }}\nbrokers = {brokers!r}\n'.replace("'", '"'))
        model = "broadcasting" if rnd.random() < 0.1 else "clustering"
        strategy = rnd.choice(STRATEGY_LINES).format(g=g)
        if model == "clustering" and strategy == 'strategy = "AVG"' and sum(numbers) >= 4 \
                and "broker-e" not in brokers:
            averaging.append(f"g{g}")
        out.append(f'[[groups]]\nname = "g{g}"\nmodel = "{model}"\n{strategy}\n'
                   f'subscriptions = [{{ topic = "T{g}", expression = "*" }}]\n')
        for i in range(rnd.randint(1, 4)):
            lines = [f'hosts = ["10.0.{g}.{rnd.randint(1, 3)}"]', f"count = {rnd.randint(1, 3)}"]
            kind = rnd.random()
            if kind < 0.3:
                lines.append(f'instance_name = "{rnd.choice(["n1", "n2", "x"])}"')
            elif kind < 0.5:
                lines += ["pid = 1", 'client_version = "4.5.1"']
            if rnd.random() < 0.8:
                lines.append(f'room = "{rnd.choice(ROOMS)}"')
            if rnd.random() < 0.15:
                lines.append(rnd.choice(STRATEGY_LINES[:3]))  # a rollout caught half-way
            if go_rnd.random() < go:  # a Go service in the group: its own code, its own client ids
                lines = [line for line in lines if not line.startswith("client_version")] + ['client = "go"']
            out.append("[[groups.instances]]\n" + "\n".join(lines) + "\n")
    out.append(f'[[scenarios]]\nname = "add-one"\ngroup = "{averaging[0]}"\nadd_instances = [{{ hosts = ["10.9.9.9"] }}]\n')
    out.append(f'[[scenarios]]\nname = "lose-one"\ngroup = "{averaging[1]}"\nremove_instances = 1\n')
    out.append(f'[[scenarios]]\nname = "restart"\ngroup = "{averaging[-1]}"\nrolling_restart = "group"\n')
    out.append('[[scenarios]]\nname = "sh-down"\nremove_brokers = ["sh@broker-c"]\n'
               'broker_perm = { "hz@broker-b" = 2 }\n')
    out.append('[[scenarios]]\nname = "everyone"\nrolling_restart = "group"\n'
               'set_queues = [{ topic = "T0", read_queues = 3 }]\n')
    return "\n".join(out)


def _comparable(sim: Simulation) -> list:
    def row(r):
        return (r.scenario, r.group, r.topic, r.model, r.queues, r.assignment, r.errored, r.orphaned, r.duplicated,
                [p.instance for p in r.idle], r.moved, r.moves, [p.client_id for p in r.processes])

    steps = [(name, s.index, s.name, [row(r) for r in s.results]) for name, ss in sim.steps.items() for s in ss]
    return [row(r) for r in sim.results] + steps


def test_hand_written_fleet_with_every_strategy_agrees(spark, tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text(_random_fleet_toml(5, 36), encoding="utf-8")
    fleet = load_fleet(str(path))
    expected = local.simulate(fleet)
    got = simulate_hand_written(spark, fleet)
    assert got.scenarios == expected.scenarios
    assert _comparable(got) == _comparable(expected)
    # the fleet exercises what it should: failures, orphans, duplicates and moves all occur
    assert any(r.errored for r in expected.results) and any(r.orphaned for r in expected.results)
    assert any(r.duplicated for r in expected.results) and any(r.moved for r in expected.results)
    assert len(expected.steps["everyone"]) > 2 and any(r.moves for s in expected.steps["sh-down"] for r in s.results)


def test_fleet_of_go_and_java_processes_agrees(spark, tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text(_random_fleet_toml(8, 30, go=0.4), encoding="utf-8")
    fleet = load_fleet(str(path))
    expected = local.simulate(fleet)
    assert _comparable(simulate_hand_written(spark, fleet)) == _comparable(expected)
    go_groups = {g.name for g in fleet.groups if any(i.client == "go" for i in g.instances)}
    assert any(r.group in go_groups and (r.orphaned or r.duplicated) for r in expected.results)


GENERATED = GenerateSpec(groups=240, seed=7, instances=(1, 12), queues=(1, 8), brokers=2, colliding_client_ids=0.1,
                         strategies=("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"))


def test_generated_fleet_agrees_totals_problems_and_every_result(spark):
    fleet = Fleet("<generated>", (), (), (), (), GENERATED)
    got = simulate_generated(spark, fleet, Simulation(fleet, []), SimulateOptions())
    expected = local.simulate(generated_fleet(GENERATED))
    assert got.totals == totals(expected)
    assert got.results, "the generated fleet is reported whole"
    assert _comparable(got) == _comparable(expected)
    assert got.problem_counts == expected.problem_counts


def test_large_generated_fleet_shows_the_worst_problem_groups_and_counts_the_rest(spark):
    spec = GenerateSpec(groups=3000, seed=11, instances=(1, 12), queues=(1, 6), brokers=3, colliding_client_ids=0.2,
                        strategies=("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"))
    fleet = Fleet("<generated>", (), (), (), (), spec)
    got = simulate_generated(spark, fleet, Simulation(fleet, []), SimulateOptions())
    whole = local.simulate(generated_fleet(spec))  # the same groups written out by hand: every result
    assert got.totals == totals(whole) and got.problem_counts == whole.problem_counts
    troubled = [r for r in whole.results if r.orphaned or r.duplicated or r.idle or r.errored]
    weight: dict[str, list] = {}  # group -> [error, lost, processes, any problem]
    for r in whole.results:
        w = weight.setdefault(r.group, [False, 0, 0, False])
        w[0] |= bool(r.orphaned or r.duplicated or r.errored)
        w[1] += len(r.orphaned) + len(r.duplicated)
        w[2] += len(r.idle) + len(r.errored)
        w[3] |= bool(r.orphaned or r.duplicated or r.idle or r.errored or not r.topic.startswith("%RETRY%") and any(
            len(s) >= 2 and len(s) * len(r.assignment) >= 2 * len(r.queues) for s in r.assignment.values()))
    # the 200 worst: errors, then the most queues lost, then the most idle and failed processes, then group order
    worst = sorted((g for g, w in weight.items() if w[3]), key=lambda g: (not weight[g][0], -weight[g][1],
                                                                          -weight[g][2], g))
    assert troubled and [r.group for r in got.results][::2] == sorted(worst[:200])
    shown = {(r.group, r.topic) for r in got.results}
    by_key = {(r.group, r.topic): r for r in whole.results}
    assert _comparable(got) == _comparable(Simulation(fleet, [by_key[k] for k in
                                                              [(r.group, r.topic) for r in got.results]]))
    problems = sum(1 for r in whole.results if (r.group, r.topic) not in shown and
                   (r.orphaned or r.duplicated or r.idle or r.errored or
                    (not r.topic.startswith("%RETRY%") and len(r.assignment) >= 2 and any(
                        len(s) >= 2 and len(s) * len(r.assignment) >= 2 * len(r.queues)
                        for s in r.assignment.values()))))
    assert got.omitted_results == problems


def test_the_generated_job_shuffles_nothing(spark):
    """Chunks come from spark.range: the generated fleet never crosses the driver or a shuffle."""
    plan = chunk_frame(spark, GENERATED)._jdf.queryExecution().executedPlan().toString()
    assert "Range" in plan and "Exchange" not in plan


GENERATED_SCENARIOS = """
[[scenarios]]
name = "everyone"
rolling_restart = "group"

[[scenarios]]
name = "b1-down"
remove_brokers = ["broker-01"]
rolling_restart = "group"

[[scenarios]]
name = "b0-read-only"
broker_perm = { "broker-00" = 4 }
"""


def _whole(sim: Simulation) -> tuple:
    return (sim.totals, sim.problem_counts, sim.omitted_results, sim.step_counts, sim.moved_counts,
            sim.unlisted_findings, sim.scenarios)


def test_generated_scenarios_agree_on_both_engines_small_and_large(spark):
    from rmqplan.sources.fleet_file import parse_fleet_text

    for groups in (120, 2500):  # every group listed (one details job); the first problem groups (chunk tasks)
        text = (f"[generate]\ngroups = {groups}\nseed = 4\ninstances = [1, 6]\nqueues = [1, 6]\nbrokers = 2\n"
                f"colliding_client_ids = 0.1\nstrategies = [\"AVG\", \"AVG_BY_CIRCLE\", \"CONSISTENT_HASH\"]\n"
                + GENERATED_SCENARIOS)
        fleet = parse_fleet_text(text, "fleet.toml")
        expected = local.simulate(fleet)
        got = simulate_generated(spark, fleet, simulate_hand_written(spark, fleet), SimulateOptions())
        assert _whole(got) == _whole(expected)
        assert _comparable(got) == _comparable(expected)
        assert expected.step_counts["everyone"][0]["pause_moves"] > 0 and len(expected.steps["b1-down"]) == 13

"""A scenario's `replicas`: an instance set (or a group's sets) scaled to N processes keeps everything else of the
set, so "orders at 6 replicas" predicts what six processes written by hand predict; where new processes go
(`scale_out`); the key paths of its mistakes; and `rmqplan fleet`'s sets named by their workload."""

from __future__ import annotations

import pytest

from rmqplan.engines.local import simulate
from rmqplan.model.fleet import Queue
from rmqplan.sources.fleet_file import FleetError, parse_fleet_text

# Three containers on host networking, one node (10.0.0.5), every JVM pid 1, client 4.5.1: one client id, 10.0.0.5@1
LEGACY = """
[[brokers]]
name = "broker-a"
[[brokers]]
name = "broker-b"
[[topics]]
name = "Orders"
read_queues = 8
[[groups]]
name = "orders_cg"
subscriptions = [{{ topic = "Orders" }}]
[[groups.instances]]
name = "orders"
hosts = ["10.0.0.5"]
count = {count}
pid = 1
client_version = "4.5.1"
"""


def orders(result_set, scenario: str):
    (r,) = [r for r in result_set if r.scenario == scenario and r.topic == "Orders"]
    return r


def comparable(r) -> tuple:
    return (sorted(r.orphaned), sorted(r.duplicated), {i: sorted(q) for i, q in r.assignment.items()},
            sorted(p.client_id for p in r.processes))


@pytest.mark.parametrize("key", ["orders", "orders_cg"])  # the set's name, or its group's
def test_scaling_a_set_to_six_predicts_what_six_processes_written_by_hand_predict(key):
    """The reporter's case: 16 queues, 6 processes that all report 10.0.0.5@1 hold one AVG share (3 queues) and
    leave 13 to nobody. add_instances with a count (what the docs used to suggest) gave the new processes the
    defaults, distinct pids on 4.9.8, and predicted 6 orphaned instead."""
    scaled = simulate(parse_fleet_text(LEGACY.format(count=3) + f'[[scenarios]]\nname = "six"\nreplicas = '
                                                                f'{{ "{key}" = 6 }}\n', "fleet.toml"))
    by_hand = simulate(parse_fleet_text(LEGACY.format(count=6), "fleet.toml"))
    six, written = orders(scaled.results, "six"), orders(by_hand.results, "baseline")
    assert len(six.orphaned) == 13 and comparable(six) == comparable(written)
    assert {p.client_id for p in six.processes} == {"10.0.0.5@1"}
    # the three that ran keep their labels; the three new ones are numbered on
    assert [p.instance for p in six.processes] == [f"10.0.0.5#{n}" for n in range(1, 7)]


def test_the_spark_engine_scales_as_the_local_one(spark):
    from rmqplan.engines.spark import simulate_hand_written

    fleet = parse_fleet_text(LEGACY.format(count=3) + '[[scenarios]]\nname = "six"\nreplicas = { "orders" = 6 }\n',
                             "fleet.toml")
    got, expected = simulate_hand_written(spark, fleet), simulate(fleet)
    assert comparable(orders(got.results, "six")) == comparable(orders(expected.results, "six"))
    assert len(orders(got.results, "six").orphaned) == 13


PODS = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = 12
[[groups]]
name = "g"
subscriptions = [{{ topic = "T" }}]
[[groups.instances]]
name = "app"
hosts = {hosts}
{extra}
[[scenarios]]
name = "s"
replicas = {{ "app" = {n} }}
"""


def hosts_of(text: str) -> list[tuple[str, int]]:
    sim = simulate(parse_fleet_text(text, "fleet.toml"))
    r = [r for r in sim.results if r.scenario == "s"][0]
    counts: dict[str, int] = {}
    for p in r.processes:
        counts[p.host] = counts.get(p.host, 0) + 1
    return list(counts.items())


@pytest.mark.parametrize("hosts, extra, n, expected", [
    # a pod IP each: new pods get IPs of their own, numbered on
    ('["10.0.0.6", "10.0.0.7"]', "", 4, [("10.0.0.6", 1), ("10.0.0.7", 1), ("10.0.0.8", 1), ("10.0.0.9", 1)]),
    ('["orders-pod-1"]', "", 3, [("orders-pod-1", 1), ("orders-pod-2", 1), ("orders-pod-3", 1)]),
    ('["web"]', "", 2, [("web", 1), ("web-2", 1)]),
    # fewer: the last ones go
    ('["a1", "a2", "a3"]', "", 1, [("a1", 1)]),
    # machines the processes share (count > 1): spread evenly over them
    ('["n1", "n2"]', "count = 2", 5, [("n1", 3), ("n2", 2)]),
    ('["n1", "n2"]', "count = 2", 2, [("n1", 1), ("n2", 1)]),
    # host networking, one replica per node written: scale_out says the nodes stay
    ('["node-1", "node-2", "node-3"]', 'scale_out = "same_hosts"', 6, [("node-1", 2), ("node-2", 2), ("node-3", 2)]),
    ('["node-1"]', 'count = 2\nscale_out = "new_hosts"', 5, [("node-1", 2), ("node-2", 2), ("node-3", 1)]),
])
def test_where_new_processes_go(hosts, extra, n, expected):
    assert hosts_of(PODS.format(hosts=hosts, extra=extra, n=n)) == expected


def test_one_workload_spread_over_two_sets_is_scaled_as_one():
    """`rmqplan fleet --nodes 3` writes 5 replicas as two sets (2 on two nodes, 1 on the third): to 6 is 2 each."""
    text = PODS.format(hosts='["n1", "n2"]', extra="count = 2", n=6).replace(
        "[[scenarios]]", '[[groups.instances]]\nname = "app"\nhosts = ["n3"]\n[[scenarios]]')
    assert hosts_of(text) == [("n1", 2), ("n2", 2), ("n3", 2)]


def test_a_deployment_running_two_groups_scales_both():
    text = PODS.format(hosts='["p1"]', extra="", n=2) + (
        '[[groups]]\nname = "g2"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nname = "app"\n'
        'hosts = ["p1"]\n')
    sim = simulate(parse_fleet_text(text, "fleet.toml"))
    assert {r.group: len(r.processes) for r in sim.results if r.scenario == "s" and r.topic == "T"} == \
        {"g": 2, "g2": 2}
    assert Queue("T", "broker-a", 6) in [q for r in sim.results if r.scenario == "s" and r.group == "g"
                                         for q in r.assignment["p2#1"]]


@pytest.mark.parametrize("scenario, path, expected", [
    ('replicas = { "ap" = 2 }', 'scenarios[0].replicas.ap', "no instance set is named \"ap\", nor is a group; did "
                                                            "you mean 'app'?"),
    ('group = "g2"\nreplicas = { "app" = 2 }', "scenarios[0].replicas.app", 'no instance set of group "g2" is named'),
    ('replicas = { "app" = -1 }', "scenarios[0].replicas.app", "expected an integer >= 0, got -1"),
    ('replicas = { "app" = 2 }\ngroup = "g"\nremove_instances = 1', "scenarios[0].replicas",
     "not with remove_instances in one scenario"),
    ('replicas = 3', "scenarios[0].replicas", "expected a table, got 3"),
])
def test_each_replicas_mistake_names_its_key_path(scenario, path, expected):
    text = ('[[brokers]]\nname = "broker-a"\n[[topics]]\nname = "T"\nread_queues = 4\n'
            '[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nname = "app"\n'
            'hosts = ["h"]\n[[groups]]\nname = "g2"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\n'
            f'hosts = ["k"]\n[[scenarios]]\nname = "s"\n{scenario}\n')
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "fleet.toml")
    assert any(line.startswith(f"fleet.toml: {path}: ") and expected in line for line in e.value.errors), \
        e.value.errors


def test_sets_scaled_together_must_be_alike():
    text = PODS.format(hosts='["p1"]', extra="pid = 1", n=3).replace(
        "[[scenarios]]", '[[groups.instances]]\nname = "app"\nhosts = ["p2"]\n[[scenarios]]')
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "fleet.toml")
    assert e.value.errors == ["fleet.toml: scenarios[0].replicas.app: groups[0].instances[0] and "
                              "groups[0].instances[1] differ in pid: sets scaled together must be alike but for hosts and count (name them "
                              "apart to scale one)"]


def test_the_fleet_of_a_deployment_names_its_sets_and_scales_as_the_deployment_would(tmp_path, monkeypatch):
    """`rmqplan fleet` names a deployed set after its workload and says that host networking keeps new replicas on
    the nodes: the written fleet scaled to 6 is the fleet of the manifest at 6 replicas."""
    from tests.planner.test_check_adoption import orders_project, rmqplan

    monkeypatch.chdir(orders_project(tmp_path, replicas=3, host_network=True, version="4.5.1"))
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    assert code == 0 and 'name = "orders"  # deploy/orders.yaml:1 Deployment orders' in out
    assert 'scale_out = "same_hosts"  # deploy/orders.yaml:' in out
    scaled = simulate(parse_fleet_text(out + '[[scenarios]]\nname = "six"\nreplicas = { "orders" = 6 }\n', "f"))
    (tmp_path / "deploy" / "orders.yaml").write_text((tmp_path / "deploy" / "orders.yaml").read_text().replace(
        "replicas: 3", "replicas: 6"))
    code, out, _ = rmqplan("fleet", "--from-code", ".", "--deploy", "deploy")
    at_six = simulate(parse_fleet_text(out, "f"))
    assert comparable(orders(scaled.results, "six")) == comparable(orders(at_six.results, "baseline"))
    assert len(orders(at_six.results, "baseline").processes) == 6

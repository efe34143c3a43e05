"""Queues weighed by their backlog: the fleet's `backlog` key (written by `rmqplan fleet` from consume stats or a
saved consumerProgress), each process's share of it in the reports, PLAN006's backlog form, `--balance backlog`,
and the verdicts `rmqplan status` gives from two reads of the offsets."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from rmqplan import cli
from rmqplan.model.fleet import Queue
from rmqplan.sources.cluster import QueueOffsets
from rmqplan.sources.fleet_file import FleetError, parse_fleet_text
from rmqplan.sources.from_cluster import StrategyOptionError, parse_strategy_option
from rmqplan.sources.mqadmin import parse_consumer_progress, read_cluster_dir
from rmqplan.sources.origin import Origin
from rmqplan.status_report import CONFIRMS, CONTRADICTS, SILENT, judge

RECORDED = Path(__file__).parents[1] / "cluster" / "recorded" / "baseline" / "cluster"
FLEET = """version = 1
[[brokers]]
name = "broker-a"
[[topics]]
name = "Orders"
read_queues = 8
[[groups]]
name = "orders"
subscriptions = [{ topic = "Orders" }]
backlog = { Orders = { broker-a = [500, 350, 10, 10, 10, 10, 10, 10] }, "%RETRY%orders" = { broker-a = [4] } }
[[groups.instances]]
hosts = ["10.0.0.5", "10.0.0.6", "10.0.0.7", "10.0.0.8"]
[[scenarios]]
name = "deploy-orders"
group = "orders"
remove_instances = 2
"""


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.run([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def fleet_file(tmp_path) -> Path:
    path = tmp_path / "fleet.toml"
    path.write_text(FLEET)
    return path


def test_the_backlog_key_is_read_by_queue(fleet_file):
    group = parse_fleet_text(FLEET, "f").groups[0]
    behind = group.backlog_of()
    assert behind[Queue("Orders", "broker-a", 0)] == 500 and behind[Queue("%RETRY%orders", "broker-a", 0)] == 4
    assert sum(behind.values()) == 914


@pytest.mark.parametrize("backlog, error", [
    ('{ Other = { broker-a = [1] } }', 'groups[0].backlog.Other: not a topic the group subscribes to'),
    ('{ Orders = { broker-b = [1] } }', 'groups[0].backlog.Orders.broker-b: unknown broker "broker-b"'),
    ('{ Orders = { broker-a = [1, 2, 3, 4, 5, 6, 7, 8, 9] } }', "at most 8 counts (one per read queue), got 9"),
    ('{ Orders = { broker-a = [1, -2] } }', "groups[0].backlog.Orders.broker-a[1]: expected an integer >= 0"),
    ('{ "%RETRY%orders" = { broker-a = [1, 2] } }', "at most 1 counts"),
    ('[1, 2]', "groups[0].backlog: expected a table"),
])
def test_a_wrong_backlog_names_its_key_path(backlog, error):
    text = FLEET.replace(FLEET.splitlines()[9], f"backlog = {backlog}")
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "f")
    assert any(error in line for line in e.value.errors), e.value.errors


def test_each_process_share_of_the_backlog_beside_its_queues_in_the_baseline_and_after_each_scenario(fleet_file):
    code, text, _ = run("simulate", "--fleet", fleet_file, "--details")
    assert "backlog 910 messages; 10.0.0.5#1 holds 2 of 8 queues but 93% of the backlog (850 of 910 messages)" in text
    assert ("after deploy-orders, 10.0.0.5#1 holds 4 of 8 queues but 96% of the backlog (870 of 910 messages)"
            in text)
    assert "10.0.0.5#1  10.0.0.5@10001#1000000000001  broker-a: 0, 1  (850 behind)" in text
    code, out, _ = run("simulate", "--fleet", fleet_file, "--format", "json")
    doc = json.loads(out)
    base = next(g for g in doc["scenarios"][0]["groups"] if g["topic"] == "Orders")
    assert base["backlog"]["messages"] == 910 and base["backlog"]["orphaned_messages"] == 0
    assert [(i["instance"], i["queues"], i["messages"]) for i in base["backlog"]["instances"]] == [
        ("10.0.0.5#1", 2, 850), ("10.0.0.6#1", 2, 20), ("10.0.0.7#1", 2, 20), ("10.0.0.8#1", 2, 20)]
    imbalance = [f for f in doc["findings"] if f["code"] == "PLAN006"]
    # after deploy-orders 10.0.0.5#1 holds 870 of 910: more than twice the fair share (455), but no more than that
    # share plus one queue's worth (the 500 of queue 0): a queue is never split, so that is not flagged
    assert [(f["scenario"], f.get("weight")) for f in imbalance] == [("baseline", "backlog")]
    assert "10.0.0.5#1 holds 2 of 8 queues but 93% of them (850 messages)" in imbalance[0]["message"]
    assert doc["finding_counts"]["PLAN006"] == 1


def test_balance_by_backlog_moves_the_fewest_queues_that_spread_the_messages(fleet_file, tmp_path):
    code, out, err = run("simulate", "--fleet", fleet_file, "--format", "json", "--compare-strategies",
                         "--balance", "backlog", "--plan", tmp_path / "plan")
    strategies = {s["scenario"]: s for s in json.loads(out)["strategies"]}
    base = strategies["baseline"]
    # cap: 910 / 4 + 500 = 727.5: 10.0.0.5 keeps queue 0 (500) and gives queue 1 (350) away; nothing else moves
    assert (base["balance"], base["minimum_moves"], base["minimum_exact"]) == ("backlog", 1, True)
    assert "is 1 move away from an assignment balanced by backlog" in base["summary"]
    lists = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert lists
    code, out, _ = run("simulate", "--fleet", fleet_file, "--format", "json", "--compare-strategies")
    by_queues = next(s for s in json.loads(out)["strategies"] if s["scenario"] == "baseline")
    assert (by_queues["balance"], by_queues["minimum_moves"]) == ("queues", 0)  # AVG's 2 each is balanced


def test_saved_consumer_progress_is_the_backlog_of_fleet_from_the_cluster_alone(tmp_path):
    cluster = tmp_path / "cluster"
    shutil.copytree(RECORDED, cluster)
    (cluster / "consumerProgress-live_fixed.txt").write_text(
        "RocketMQLog:WARN No appenders could be found\n"
        "#Topic            #Broker Name   #QID  #Broker Offset  #Consumer Offset  #Client IP  #Diff  #LastTime\n"
        "%RETRY%live_fixed broker-a       0     0               0                 N/A         0      N/A\n"
        "LiveOrders        broker-a       0     25              25                127.0.0.1   0      2025-01-01 10:00:00\n"
        "LiveOrders        broker-b       3     40              12                N/A         28     N/A\n"
        "\nConsume TPS: 0.00\nDiff Total: 28\n")
    snapshot = read_cluster_dir(cluster)
    assert snapshot.problems == []
    assert {(q.broker, q.queue_id): o.backlog for q, o in snapshot.progress["live_fixed"].queues.items()
            if q.topic == "LiveOrders"} == {("broker-a", 0): 0, ("broker-b", 3): 28}
    code, out, err = run("fleet", "--cluster", cluster, "--strategy", "live_hash=CONSISTENT_HASH:16")
    assert code == 0, err
    fleet = parse_fleet_text(out, "written")
    groups = {g.name: g for g in fleet.groups}
    assert groups["live_fixed"].backlog_of()[Queue("LiveOrders", "broker-b", 3)] == 28
    assert groups["live_hash"].strategy.virtual_nodes == 16 and groups["live_avg"].strategy.name == "AVG"
    assert "broadcasting" == groups["live_broadcast"].model


def test_consumer_progress_that_is_not_one_is_a_problem():
    progress, problems = parse_consumer_progress("CODE: 17 DESC: No topic route info\n", "g", "p.txt")
    assert progress is None and "mqadmin failed: CODE: 17" in problems[0].message
    progress, problems = parse_consumer_progress("#Topic #Broker\nT b x y z\n", "g", "p.txt")
    assert progress.queues == {} and problems[0].message == "not a consumerProgress row"


def test_strategy_options():
    told = parse_strategy_option(["g1=AVG_BY_CIRCLE", "AllocateMessageQueueConsistentHash:7"])
    assert (told["g1"].name, told[""].name, told[""].params) == ("AVG_BY_CIRCLE", "CONSISTENT_HASH",
                                                                {"virtual_nodes": 7})
    for bad, why in (["g=NOPE"], "unknown strategy"), (["g=MACHINE_ROOM"], "run time"), (["g=AVG:3"], "no whole"), \
            (["g=AVG", "g=AVG_BY_CIRCLE"], "named twice"), (["=AVG"], "no group"):
        with pytest.raises(StrategyOptionError, match=why):
            parse_strategy_option(bad)


def _offsets(consumer: int, broker: int = 10, last: int = 0) -> QueueOffsets:
    q = Queue("T", "b", 0)
    return QueueOffsets(q, broker, consumer, last, Origin("x"))


@pytest.mark.parametrize("held, first, last, interval, verdict, says", [
    (False, 0, 0, 6, CONFIRMS, "stayed at 0 for 6 s with 10 behind, never consumed"),
    (False, 2, 5, 6, CONTRADICTS, "moved 2 -> 5 in 6 s: something consumes it"),
    (True, 2, 5, 6, CONFIRMS, "moved 2 -> 5"),
    (True, 4, 4, 6, CONTRADICTS, "held but not consumed"),
    (True, 10, 10, 6, SILENT, "nothing is behind"),
    (False, 10, 10, 6, SILENT, "nothing is behind"),
    (False, 0, 0, 0, CONFIRMS, "10 behind, never consumed"),
    (True, 4, 4, 0, SILENT, "one read"),
])
def test_the_brokers_view_of_a_queue(held, first, last, interval, verdict, says):
    got = judge(held, _offsets(first), _offsets(last), interval, now=0)
    assert got.verdict == verdict and says in got.why
    assert judge(held, None, None, interval, now=0).verdict == SILENT

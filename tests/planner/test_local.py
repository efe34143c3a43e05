"""The local engine on small fleets whose answers are worked out by hand in the comments."""

import hashlib

from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.engines.local import simulate
from rmqplan.model.fleet import Queue


def fleet(text: str):
    return parse_fleet_text(text, "fleet.toml")


def results(text: str) -> dict:
    """(scenario, group, topic) -> GroupTopicResult."""
    return {(r.scenario, r.group, r.topic): r for r in simulate(fleet(text)).results}


def ids(queues) -> list[int]:
    return [q.queue_id for q in queues]


def by_instance(r) -> dict:
    return {instance: ids(qs) for instance, qs in r.assignment.items()}


ONE_BROKER = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = {queues}
"""


def one_group(queues: int, body: str, group_keys: str = "", scenarios: str = "") -> dict:
    return results(ONE_BROKER.format(queues=queues) + f"""
[[groups]]
name = "g"
subscriptions = [{{ topic = "T" }}]
{group_keys}
{body}
{scenarios}""")


def test_seed_004_laptop_both_take_queues_0_and_1_and_2_3_are_orphaned():
    rs = one_group(4, '[[groups.instances]]\nhosts = ["192.168.1.10"]\ncount = 2\ninstance_name = "XUJIAN_MACBOOK"')
    r = rs[("baseline", "g", "T")]
    assert by_instance(r) == {"192.168.1.10#1": [0, 1], "192.168.1.10#2": [0, 1]}
    assert ids(r.orphaned) == [2, 3] and ids(r.duplicated) == [0, 1] and r.idle == [] and not r.errored
    retry = rs[("baseline", "g", "%RETRY%g")]  # the retry queue is held twice as well
    assert retry.queues == [Queue("%RETRY%g", "broker-a", 0)] and ids(retry.duplicated) == [0]


def test_pid_1_containers_old_client_collide_new_client_split():
    old = one_group(8, '[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 3\npid = 1\nclient_version = "4.5.1"')
    r = old[("baseline", "g", "T")]
    # cidAll = [10.0.0.5@1] x 3: indexOf gives 0 to all; 8 % 3 = 2, so index 0 takes 3 queues from 0.
    assert set(map(tuple, by_instance(r).values())) == {(0, 1, 2)}
    assert ids(r.orphaned) == [3, 4, 5, 6, 7] and ids(r.duplicated) == [0, 1, 2]
    new = one_group(8, '[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 3\npid = 1\nclient_version = "4.9.3"')
    r = new[("baseline", "g", "T")]
    assert sorted(map(len, by_instance(r).values())) == [2, 3, 3] and r.orphaned == [] and r.duplicated == []


def test_half_rolled_strategy_change_duplicates_and_orphans():
    # ids h@a < h@b < h@c; 6 queues. AVG: a 0,1 | b 2,3 | c 4,5. AVG_BY_CIRCLE: a 0,3 | b 1,4 | c 2,5.
    # a and b still run AVG, c already runs AVG_BY_CIRCLE: queue 2 is held twice, queue 4 by nobody.
    rs = one_group(6, '[[groups.instances]]\nhosts = ["h"]\ninstance_name = "a"\n'
                      '[[groups.instances]]\nhosts = ["h"]\ninstance_name = "b"\n'
                      '[[groups.instances]]\nhosts = ["h"]\ninstance_name = "c"\nstrategy = "AVG_BY_CIRCLE"')
    r = rs[("baseline", "g", "T")]
    assert by_instance(r) == {"h#1": [0, 1], "h#2": [2, 3], "h#3": [2, 5]}
    assert ids(r.duplicated) == [2] and ids(r.orphaned) == [4]


def test_broadcasting_every_process_takes_every_queue_and_has_no_retry_topic():
    rs = one_group(3, '[[groups.instances]]\nhosts = ["10.0.0.1", "10.0.0.2"]', group_keys='model = "broadcasting"')
    assert list(rs) == [("baseline", "g", "T")]
    r = rs[("baseline", "g", "T")]
    assert by_instance(r) == {"10.0.0.1#1": [0, 1, 2], "10.0.0.2#1": [0, 1, 2]}
    assert r.orphaned == [] and r.duplicated == [] and r.idle == []


def _ring_hash(key: str) -> int:
    return int.from_bytes(hashlib.md5(key.encode()).digest()[:4], "big")


def test_consistent_hash_matches_a_ring_worked_out_with_md5():
    rs = one_group(6, '[[groups.instances]]\nhosts = ["10.0.0.1"]\ninstance_name = "x"\n'
                      '[[groups.instances]]\nhosts = ["10.0.0.2"]\ninstance_name = "y"',
                   group_keys='strategy = "CONSISTENT_HASH"\nvirtual_nodes = 2')
    ring = sorted((_ring_hash(f"{cid}-{i}"), cid) for cid in ("10.0.0.1@x", "10.0.0.2@y") for i in range(2))
    want: dict[str, list[int]] = {"10.0.0.1#1": [], "10.0.0.2#1": []}
    for q in range(6):
        h = _ring_hash(f"MessageQueue [topic=T, brokerName=broker-a, queueId={q}]")
        owner = next((cid for point, cid in ring if point >= h), ring[0][1])
        want["10.0.0.1#1" if owner == "10.0.0.1@x" else "10.0.0.2#1"].append(q)
    r = rs[("baseline", "g", "T")]
    assert by_instance(r) == want and r.orphaned == [] and r.duplicated == []


def test_consistent_hash_scale_out_only_moves_queues_to_the_new_process():
    rs = one_group(16, '[[groups.instances]]\nhosts = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]\ninstance_name = "n"',
                   group_keys='strategy = "CONSISTENT_HASH"',
                   scenarios='[[scenarios]]\nname = "add"\ngroup = "g"\n'
                             'add_instances = [{ hosts = ["10.0.0.4"], instance_name = "n" }]')
    after = rs[("add", "g", "T")]
    new_share = set(after.assignment["10.0.0.4#1"])
    assert new_share and set(after.moved) == new_share  # every moved queue went to the new process


def test_too_many_processes_leave_some_idle():
    rs = one_group(2, '[[groups.instances]]\nhosts = ["h"]\ncount = 4\ninstance_name = "DEFAULT"\npid = 1\n'
                      'client_version = "4.9.8"')
    r = rs[("baseline", "g", "T")]
    # 4 distinct ids h@1#..01..04 sorted by n; 2 queues: the first two ids take one each.
    assert by_instance(r) == {"h#1": [0], "h#2": [1], "h#3": [], "h#4": []}
    assert [p.instance for p in r.idle] == ["h#3", "h#4"]
    assert rs[("baseline", "g", "%RETRY%g")].idle == []  # retry topics never count a process idle


ROOMS = """
[[brokers]]
name = "hz@broker-a"
room = "hz"
[[brokers]]
name = "sh@broker-b"
room = "sh"
[[topics]]
name = "T"
read_queues = 2
"""


def test_machine_room_nearby_keeps_each_room_local():
    rs = results(ROOMS + """
[[groups]]
name = "g"
strategy = "MACHINE_ROOM_NEARBY"
nearby = "AVG"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1", "10.0.0.2"]
instance_name = "n"
room = "hz"
[[groups.instances]]
hosts = ["10.0.1.1"]
instance_name = "n"
room = "sh"
""")
    r = rs[("baseline", "g", "T")]
    got = {i: [(q.broker, q.queue_id) for q in qs] for i, qs in r.assignment.items()}
    assert got == {"10.0.0.1#1": [("hz@broker-a", 0)], "10.0.0.2#1": [("hz@broker-a", 1)],
                   "10.0.1.1#1": [("sh@broker-b", 0), ("sh@broker-b", 1)]}
    assert r.orphaned == [] and r.duplicated == []


def test_machine_room_nearby_without_a_client_room_fails_every_rebalance():
    rs = results(ROOMS + """
[[groups]]
name = "g"
strategy = "MACHINE_ROOM_NEARBY"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1"]
instance_name = "n"
room = "hz"
[[groups.instances]]
hosts = ["10.0.0.2"]
instance_name = "n"
""")
    r = rs[("baseline", "g", "T")]
    assert set(r.errored) == {"10.0.0.1#1", "10.0.0.2#1"}
    assert all(share == [] for share in r.assignment.values()) and len(r.orphaned) == 4


def test_machine_room_takes_only_queues_of_listed_rooms():
    rs = results(ROOMS + """
[[groups]]
name = "g"
strategy = "MACHINE_ROOM"
consumer_idcs = ["hz"]
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1"]
instance_name = "n"
""")
    r = rs[("baseline", "g", "T")]
    assert [(q.broker, q.queue_id) for q in r.assignment["10.0.0.1#1"]] == [("hz@broker-a", 0), ("hz@broker-a", 1)]
    assert [(q.broker, q.queue_id) for q in r.orphaned] == [("sh@broker-b", 0), ("sh@broker-b", 1)]


def test_scale_out_moves_exactly_the_queues_whose_owner_changed():
    # AVG, 8 queues. 3 processes: 0,1,2 | 3,4,5 | 6,7. 4 processes: 0,1 | 2,3 | 4,5 | 6,7.
    # Owner changes: 2 (#1 -> #2), 4 and 5 (#2 -> #3), 6 and 7 (#3 -> #4): 5 moved; 0, 1, 3 stay.
    rs = one_group(8, '[[groups.instances]]\nhosts = ["h"]\ncount = 3\nclient_version = "4.5.1"',
                   scenarios='[[scenarios]]\nname = "scale-out"\ngroup = "g"\n'
                             'add_instances = [{ hosts = ["h"], client_version = "4.5.1" }]\n'
                             '[[scenarios]]\nname = "lose-one"\ngroup = "g"\nremove_instances = 1\n')
    assert ids(rs[("baseline", "g", "T")].moved) == []
    out = rs[("scale-out", "g", "T")]
    assert by_instance(out) == {"h#1": [0, 1], "h#2": [2, 3], "h#3": [4, 5], "h#4": [6, 7]}
    assert ids(out.moved) == [2, 4, 5, 6, 7]
    # Removing h#3: 0..3 | 4..7, so 3 (#2 -> #1), 6 and 7 (#3 -> #2) move; 4 and 5 stay with #2.
    lost = rs[("lose-one", "g", "T")]
    assert by_instance(lost) == {"h#1": [0, 1, 2, 3], "h#2": [4, 5, 6, 7]} and ids(lost.moved) == [3, 6, 7]
    assert ("scale-out", "g", "%RETRY%g") in rs and ("scale-out", "other", "T") not in rs


def test_a_process_that_does_not_subscribe_still_counts_in_the_split():
    # The broker lists every process of the group: cidAll = [h@a, h@b] for U too, but only b rebalances U.
    rs = results(ONE_BROKER.format(queues=2) + """
[[topics]]
name = "U"
read_queues = 4
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["h"]
instance_name = "a"
[[groups.instances]]
hosts = ["h"]
instance_name = "b"
subscriptions = [{ topic = "T" }, { topic = "U" }]
""")
    u = rs[("baseline", "g", "U")]
    assert by_instance(u) == {"h#2": [2, 3]} and ids(u.orphaned) == [0, 1]
    assert [p.instance for p in u.processes] == ["h#1", "h#2"]


def test_an_unreadable_topic_fails_every_checking_strategy_and_nobody_is_idle():
    rs = results("""
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = 2
perm = "w"
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["h"]
""")
    # the client's mqAll is an empty set: check() throws, and a process that has just started holds nothing
    r = rs[("baseline", "g", "T")]
    assert r.queues == [] and r.assignment == {"h#1": []} and r.idle == []
    assert r.errored == {"h#1": "IllegalArgumentException: mqAll is null or mqAll empty"}


def test_a_failed_host_hands_its_queues_to_the_others():
    # AVG, 6 queues, ids h1@n < h2@n < h3@n: 0,1 | 2,3 | 4,5. h2 fails: h1 takes 0,1,2 and h3 takes 3,4,5,
    # so only h2's queues 2 and 3 move.
    rs = one_group(6, '[[groups.instances]]\nhosts = ["h1", "h2", "h3"]\ninstance_name = "n"',
                   scenarios='[[scenarios]]\nname = "h2-down"\ngroup = "g"\nremove_hosts = ["h2"]\n')
    down = rs[("h2-down", "g", "T")]
    assert by_instance(down) == {"h1#1": [0, 1, 2], "h3#1": [3, 4, 5]} and ids(down.moved) == [2, 3]


def test_the_local_engine_needs_neither_spark_nor_arrow(tmp_path):
    """numpy is the local engine's only heavy dependency (pyarrow is for --out, pyspark for the Spark engine)."""
    import subprocess
    import sys
    from pathlib import Path

    fleet = tmp_path / "gen.toml"
    fleet.write_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 4\n[[groups]]\nname = "g"\n'
                     'subscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
                     '[generate]\ngroups = 2000\nstrategies = ["AVG", "CONSISTENT_HASH"]\n')
    script = ("import io, sys\nfrom rmqplan.cli import run\n"
              f"code = run(['simulate', '--fleet', {str(fleet)!r}, '--engine', 'local'], io.StringIO(), sys.stderr)\n"
              "print(code, sorted(m for m in ('pyarrow', 'pyspark', 'pandas') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    code, modules = done.stdout.split(None, 1)
    assert code in ("0", "1") and modules == "[]\n", done.stderr


def test_lite_pull_processes_take_a_place_in_the_retry_split_but_do_not_rebalance_it():
    # %RETRY%g has 1 queue; cidAll = [h@a@STREAM (lite pull), h@b (push)]: AVG gives it to index 0, the lite pull
    # consumer, which never subscribes to the retry topic: nobody holds it. T: a takes 0, b takes 1.
    rs = one_group(2, '[[groups.instances]]\nhosts = ["h"]\ninstance_name = "b"\n'
                      '[[groups.instances]]\nhosts = ["h"]\ninstance_name = "a"\nconsumer = "lite_pull"\n')
    retry = rs[("baseline", "g", "%RETRY%g")]
    assert by_instance(retry) == {"h#1": []} and ids(retry.orphaned) == [0]
    assert [p.client_id for p in retry.processes] == ["h@b", "h@a@STREAM"]
    assert by_instance(rs[("baseline", "g", "T")]) == {"h#1": [1], "h#2": [0]}
    # a group of lite pull consumers only has no retry rebalance at all (lite pull never sends a message back)
    lite = one_group(2, '[[groups.instances]]\nhosts = ["h"]\ncount = 2\nconsumer = "lite_pull"\n')
    assert sorted(topic for _, _, topic in lite) == ["T"]


def test_a_failed_rebalance_keeps_what_the_process_held_before():
    # hz takes hz@broker-a:0,1 (10.0.0.1: 0, 10.0.0.2: 1), sh takes sh@broker-b:0,1. A process without a room
    # joins: every strategy call throws ("Machine room is null for consumer id"), so every rebalance of the
    # group returns before its table changes: the three running processes keep their queues, the new one holds
    # nothing, and no queue is orphaned. The retry topic (one queue per broker) fails the same way and is kept.
    sim = simulate(fleet(ROOMS + """
[[groups]]
name = "g"
strategy = "MACHINE_ROOM_NEARBY"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1", "10.0.0.2"]
instance_name = "n"
room = "hz"
[[groups.instances]]
hosts = ["10.0.1.1"]
instance_name = "n"
room = "sh"
[[scenarios]]
name = "roomless"
group = "g"
add_instances = [{ hosts = ["10.0.2.1"], instance_name = "n" }]
[[scenarios]]
name = "roomless-restart"
group = "g"
add_instances = [{ hosts = ["10.0.2.1"], instance_name = "n" }]
rolling_restart = "group"
"""))
    rs = {(r.scenario, r.group, r.topic): r for r in sim.results}
    before = rs[("baseline", "g", "T")]
    after = rs[("roomless", "g", "T")]
    assert set(after.errored) == {"10.0.0.1#1", "10.0.0.2#1", "10.0.1.1#1", "10.0.2.1#1"}
    assert after.assignment == {**before.assignment, "10.0.2.1#1": []}
    assert after.orphaned == [] and after.moved == [] and [p.instance for p in after.idle] == ["10.0.2.1#1"]
    retry = rs[("roomless", "g", "%RETRY%g")]
    assert retry.assignment == rs[("baseline", "g", "%RETRY%g")].assignment | {"10.0.2.1#1": []}
    # a rolling restart then: a restarted process starts with nothing and keeps failing, so its queues are orphaned
    steps = [s for s in sim.steps["roomless-restart"]]
    up1 = {r.topic: r for r in steps[2].results}["T"]
    assert steps[2].name == "up 10.0.0.1#1" and up1.assignment["10.0.0.1#1"] == []
    assert [q.queue_id for q in up1.orphaned] == [0] and up1.assignment["10.0.0.2#1"] == before.assignment["10.0.0.2#1"]

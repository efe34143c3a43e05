"""PLAN001..PLAN007: which findings a fleet gets, and that each message says why."""

from rmqplan.report.findings import find, has_errors
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.engines.local import simulate
from rmqplan.model.fleet import Queue


def findings_of(text: str):
    return find(simulate(parse_fleet_text(text, "fleet.toml")))


def codes(findings) -> list[tuple]:
    return [(f.code, f.scenario, f.group, f.topic) for f in findings]


HEAD = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = {queues}
"""


def group_fleet(queues: int, body: str, keys: str = "", extra: str = "") -> str:
    group = '[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n'
    return HEAD.format(queues=queues) + f"{group}{keys}\n{body}\n{extra}"


def test_seed_004_orphaned_and_duplicated_name_the_shared_client_id():
    fs = findings_of(group_fleet(4, '[[groups.instances]]\nhosts = ["192.168.1.10"]\ncount = 2\n'
                                    'instance_name = "XUJIAN_MACBOOK"'))
    assert codes(fs) == [("PLAN001", "baseline", "g", "T"), ("PLAN002", "baseline", "g", "T"),
                         ("PLAN002", "baseline", "g", "%RETRY%g")]
    orphaned, duplicated = fs[0], fs[1]
    assert orphaned.severity == "error" and has_errors(fs)
    assert orphaned.queues == [Queue("T", "broker-a", 2), Queue("T", "broker-a", 3)]
    assert duplicated.queues == [Queue("T", "broker-a", 0), Queue("T", "broker-a", 1)]
    for f in (orphaned, duplicated):
        assert "192.168.1.10#1, 192.168.1.10#2" in f.message
        assert "192.168.1.10@XUJIAN_MACBOOK" in f.message and "fixed instanceName 'XUJIAN_MACBOOK'" in f.message
    assert orphaned.to_json() == {
        "code": "PLAN001", "severity": "error", "scenario": "baseline", "group": "g", "topic": "T",
        "message": orphaned.message, "queues": [["T", "broker-a", 2], ["T", "broker-a", 3]],
    }


def test_pid_1_on_an_old_client_is_explained():
    fs = findings_of(group_fleet(8, '[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 3\npid = 1\n'
                                    'client_version = "4.5.1"'))
    assert "pid 1 on client 4.5.1 (< 4.9.0 uses the pid alone)" in fs[0].message
    fine = findings_of(group_fleet(8, '[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 3\npid = 1\n'
                                      'client_version = "4.9.3"'))
    assert fine == [] and not has_errors(fine)


def test_half_rolled_strategy_change_names_the_processes_and_strategies():
    fs = findings_of(group_fleet(6, '[[groups.instances]]\nhosts = ["h"]\ncount = 2\nclient_version = "4.5.1"\n'
                                    '[[groups.instances]]\nhosts = ["h"]\nclient_version = "4.5.1"\n'
                                    'strategy = "AVG_BY_CIRCLE"'))
    (orphaned,) = [f for f in fs if f.code == "PLAN001"]
    (duplicated,) = [f for f in fs if f.code == "PLAN002" and f.topic == "T"]
    for f in (orphaned, duplicated):
        assert "different strategies (AVG on h#1, h#2; AVG_BY_CIRCLE on h#3)" in f.message


def test_unreadable_written_queues_are_plan004_with_the_reason():
    fs = findings_of(HEAD.format(queues=2) + 'write_queues = 4\n[[groups]]\nname = "g"\n'
                     'subscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n')
    (f,) = fs
    assert (f.code, f.severity, f.group, f.topic) == ("PLAN004", "error", None, "T")
    assert f.queues == [Queue("T", "broker-a", 2), Queue("T", "broker-a", 3)]
    assert "write_queues 4 > read_queues 2 on broker-a" in f.message


def test_strategy_errors_are_plan005():
    fs = findings_of("""
[[brokers]]
name = "hz@broker-a"
room = "hz"
[[topics]]
name = "T"
read_queues = 2
[[groups]]
name = "g"
strategy = "MACHINE_ROOM_NEARBY"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1"]
instance_name = "n"
""")
    errored = [f for f in fs if f.code == "PLAN005"]
    assert [f.topic for f in errored] == ["T", "%RETRY%g"]  # the retry topic's rebalance fails too
    assert errored[0].severity == "error"
    assert "10.0.0.1#1" in errored[0].message and "MACHINE_ROOM_NEARBY-AVG throws" in errored[0].message
    orphaned = [f for f in fs if f.code == "PLAN001"][0]
    assert "the strategy throws on 10.0.0.1#1, so it holds nothing" in orphaned.message


def test_too_many_processes_are_idle_warnings():
    fs = findings_of(group_fleet(2, '[[groups.instances]]\nhosts = ["h"]\ncount = 3'))
    (f,) = fs
    assert (f.code, f.severity, f.topic) == ("PLAN003", "warning", "T")
    assert "1 of 3 processes" in f.message and "h#3" in f.message
    assert "2 readable queues for 3 distinct client ids" in f.message
    assert not has_errors(fs)


def test_imbalance_at_twice_the_fair_share():
    # CONFIG gives every process the same fixed list; use consistent hashing with 1 virtual node instead:
    # compute the shares, then check the rule against them.
    text = group_fleet(12, '[[groups.instances]]\nhosts = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]\n'
                           'instance_name = "n"', keys='strategy = "CONSISTENT_HASH"\nvirtual_nodes = 1')
    sim = simulate(parse_fleet_text(text, "fleet.toml"))
    r = sim.results[0]
    heavy = [i for i, qs in r.assignment.items() if len(qs) >= 2 and len(qs) >= 2 * 12 / 3]
    fs = [f for f in find(sim) if f.code == "PLAN006"]
    assert heavy == ["10.0.0.2#1"] and len(fs) == 1  # md5 puts 9 of the 12 queues on 10.0.0.2@n's one point
    assert fs[0].severity == "warning" and "fair share is 4 (12 queues / 3 processes)" in fs[0].message
    for instance in heavy:
        assert f"{instance} holds {len(r.assignment[instance])}" in fs[0].message


def test_avg_split_is_never_imbalanced():
    fs = findings_of(group_fleet(5, '[[groups.instances]]\nhosts = ["h"]\ncount = 4'))
    assert fs == []


def test_broadcasting_on_one_host_shares_an_offsets_file():
    fs = findings_of(group_fleet(2, '[[groups.instances]]\nhosts = ["10.0.0.1"]\ncount = 2\n'
                                    '[[groups.instances]]\nhosts = ["10.0.0.2"]', keys='model = "broadcasting"'))
    (f,) = fs
    assert (f.code, f.severity, f.group, f.topic) == ("PLAN007", "warning", "g", None)
    assert "10.0.0.1@DEFAULT" in f.message and "~/.rocketmq_offsets/10.0.0.1@DEFAULT/g/offsets.json" in f.message
    assert "broadcasting keeps 'DEFAULT'" in f.message and "10.0.0.2" not in f.message


def test_findings_are_reported_per_scenario():
    # Baseline: 2 distinct ids, 4 queues, 2 each. Scenario: + two h@fixed (sorted last): AVG over 4 ids gives
    # queue 2 to both h@fixed processes and queue 3 to nobody.
    fs = findings_of(group_fleet(4, '[[groups.instances]]\nhosts = ["h"]\ncount = 2',
                                 extra='[[scenarios]]\nname = "more"\ngroup = "g"\n'
                                       'add_instances = [{ hosts = ["h"], instance_name = "fixed" }, '
                                       '{ hosts = ["h"], instance_name = "fixed" }]'))
    assert [(f.code, f.topic, f.queues) for f in fs if f.topic == "T"] == [
        ("PLAN001", "T", [Queue("T", "broker-a", 3)]), ("PLAN002", "T", [Queue("T", "broker-a", 2)])]
    assert all(f.scenario == "more" for f in fs)  # the baseline is fine


def test_inconsistent_subscriptions_orphan_the_non_subscribers_share():
    fs = findings_of(HEAD.format(queues=2) + """
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
    (f,) = fs
    assert (f.code, f.topic) == ("PLAN001", "U") and [q.queue_id for q in f.queues] == [0, 1]
    assert "h#1 does not subscribe to U but still counts in the split" in f.message

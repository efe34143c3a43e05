"""Client ids: fixed names, pid replacement by client version, broadcasting, labels, scenarios."""

import pytest

from rmqplan.sources.fleet_file import FleetError, parse_fleet_text
from rmqplan.model.identity import build_client_id, group_processes, java_is_blank, shared_client_ids
from rmqplan.model.states import scenario_processes, scenario_states

BASE = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "TopicTest"
read_queues = 4
"""


def group(instances: str, model: str = "clustering", scenarios: str = ""):
    fleet = parse_fleet_text(BASE + f"""
[[groups]]
name = "g"
model = "{model}"
subscriptions = [{{ topic = "TopicTest" }}]
{instances}
{scenarios}""", "fleet.toml")
    return fleet.groups[0], fleet.scenarios


def test_build_client_id_appends_a_non_blank_unit_name():
    assert build_client_id("10.0.0.1", "X") == "10.0.0.1@X"
    assert build_client_id("10.0.0.1", "X", "u1") == "10.0.0.1@X@u1"
    assert build_client_id("10.0.0.1", "X", "  ") == "10.0.0.1@X"  # UtilAll.isBlank
    assert build_client_id("10.0.0.1", "X", "\t\u3000\u2028\u001f") == "10.0.0.1@X"  # all Java whitespace


def test_a_unit_name_of_characters_java_does_not_call_whitespace_stays_in_the_id():
    """Character.isWhitespace leaves out the no-break spaces and NEL, which Python's str.isspace accepts
    (tests/cluster/test_client_classes.py runs ClientConfig.buildMQClientId of every client release on these)."""
    for unit in ("\u00a0", "\u2007", "\u202f", "\u0085", " \u00a0 "):
        assert build_client_id("10.0.0.1", "X", unit) == f"10.0.0.1@X@{unit}", repr(unit)
        g, _ = group(f'[[groups.instances]]\nhosts = ["h"]\ninstance_name = "n"\nunit_name = "{unit}"\n')
        assert group_processes(g)[0].client_id == f"h@n@{unit}"
    assert not java_is_blank("\u180e")  # a format character since Unicode 6.3 (Java 9+)


def test_lite_pull_and_pull_consumers_add_stream_from_4_9_4():
    def ids(consumer: str, version: str, extra: str = "") -> list[str]:
        g, _ = group(f'[[groups.instances]]\nhosts = ["h"]\ninstance_name = "n"\nconsumer = "{consumer}"\n'
                     f'client_version = "{version}"\n{extra}')
        return [p.client_id for p in group_processes(g)]

    assert ids("lite_pull", "4.9.4") == ["h@n@STREAM"] and ids("pull", "5.3.3") == ["h@n@STREAM"]
    assert ids("lite_pull", "4.9.3") == ["h@n"] and ids("push", "4.9.8") == ["h@n"]
    assert ids("lite_pull", "4.9.8", 'unit_name = "u"\n') == ["h@n@u@STREAM"]
    g, _ = group('[[groups.instances]]\nhosts = ["h"]\nconsumer = "lite_pull"\nclient_version = "4.9.8"\n')
    [p] = group_processes(g)
    assert p.client_id == "h@10001#1000000000001@STREAM" and "@STREAM" in p.id_source and p.consumer == "lite_pull"


def test_seed_004_fixed_instance_name_on_one_laptop():
    g, _ = group('[[groups.instances]]\nhosts = ["192.168.1.10"]\ncount = 2\ninstance_name = "XUJIAN_MACBOOK"\n')
    ps = group_processes(g)
    assert [p.instance for p in ps] == ["192.168.1.10#1", "192.168.1.10#2"]
    assert [p.client_id for p in ps] == ["192.168.1.10@XUJIAN_MACBOOK"] * 2
    assert ps[0].id_source == "fixed instanceName 'XUJIAN_MACBOOK'"
    assert list(shared_client_ids(ps)) == ["192.168.1.10@XUJIAN_MACBOOK"]


def test_pid_1_containers_collide_on_old_clients_only():
    old, _ = group('[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 3\npid = 1\nclient_version = "4.5.1"\n')
    ps = group_processes(old)
    assert {p.client_id for p in ps} == {"10.0.0.5@1"}
    assert ps[0].id_source == "pid 1 on client 4.5.1 (< 4.9.0 uses the pid alone)"
    new, _ = group('[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 3\npid = 1\nclient_version = "4.9.3"\n')
    ids = [p.client_id for p in group_processes(new)]
    assert len(set(ids)) == 3 and all(cid.startswith("10.0.0.5@1#") for cid in ids)  # pid#nanoTime
    boundary, _ = group('[[groups.instances]]\nhosts = ["h"]\ncount = 2\npid = 1\nclient_version = "4.9.0"\n')
    assert len({p.client_id for p in group_processes(boundary)}) == 2  # 4.9.0 already appends nanoTime


def test_absent_pid_gives_distinct_deterministic_pids_per_host():
    g, _ = group('[[groups.instances]]\nhosts = ["10.0.0.1", "10.0.0.2"]\ncount = 2\nclient_version = "4.5.1"\n')
    ps = group_processes(g)
    assert [p.client_id for p in ps] == ["10.0.0.1@10001", "10.0.0.1@10002", "10.0.0.2@10001", "10.0.0.2@10002"]
    assert [p.client_id for p in group_processes(g)] == [p.client_id for p in ps]  # deterministic
    assert "synthetic" in ps[0].id_source


def test_explicit_default_instance_name_is_replaced_like_the_default():
    g, _ = group('[[groups.instances]]\nhosts = ["h"]\ncount = 2\ninstance_name = "DEFAULT"\npid = 7\n'
                 'client_version = "4.5.1"\n')
    assert [p.client_id for p in group_processes(g)] == ["h@7", "h@7"]


def test_broadcasting_keeps_default_even_with_a_pid():
    g, _ = group('[[groups.instances]]\nhosts = ["10.0.0.1"]\ncount = 2\npid = 4\n', model="broadcasting")
    ps = group_processes(g)
    assert [p.client_id for p in ps] == ["10.0.0.1@DEFAULT"] * 2
    assert ps[0].id_source == "broadcasting keeps 'DEFAULT'"


def test_labels_count_per_host_across_instance_sets_and_unit_names_show():
    g, _ = group('[[groups.instances]]\nhosts = ["a", "b"]\ninstance_name = "x"\n'
                 '[[groups.instances]]\nhosts = ["a"]\ninstance_name = "y"\nunit_name = "u"\nroom = "hz"\n')
    ps = group_processes(g)
    assert [(p.instance, p.client_id) for p in ps] == [("a#1", "a@x"), ("b#1", "b@x"), ("a#2", "a@y@u")]
    assert ps[2].room == "hz" and ps[2].spec_path == "groups[0].instances[1]" and "unitName 'u'" in ps[2].id_source


def test_scenario_removes_last_first_and_new_processes_get_new_labels():
    g, (s,) = group('[[groups.instances]]\nhosts = ["a"]\ncount = 3\ninstance_name = "n"\n',
                    scenarios='[[scenarios]]\nname = "s"\ngroup = "g"\nremove_instances = 1\n'
                              'add_instances = [{ hosts = ["a", "b"], strategy = "AVG_BY_CIRCLE" }]\n')
    ps = scenario_processes(g, s)
    assert [p.instance for p in ps] == ["a#1", "a#2", "a#4", "b#1"]
    assert ps[2].strategy.name == "AVG_BY_CIRCLE" and ps[0].strategy.name == "AVG"
    assert ps[2].client_id == "a@10004#1000000000004"  # no instance name on a 4.9.8 client: pid#nanoTime


def test_the_cpp_client_names_a_process_by_ip_pid_and_instance_name():
    """rocketmq-client-cpp 2.x (under the Python 2.x client) reports ip@pid#instanceName and keeps "DEFAULT": a
    fixed instanceName does not make processes with their own pids collide, pid-1 containers on one IP always do."""
    g, _ = group('[[groups.instances]]\nhosts = ["10.0.0.1"]\ncount = 2\ninstance_name = "notifier"\n'
                 'client = "cpp"\n'
                 '[[groups.instances]]\nhosts = ["10.0.0.2"]\ncount = 2\npid = 1\nclient = "cpp"\n')
    ps = group_processes(g)
    assert [p.client_id for p in ps] == ["10.0.0.1@10001#notifier", "10.0.0.1@10002#notifier",
                                         "10.0.0.2@1#DEFAULT", "10.0.0.2@1#DEFAULT"]
    assert list(shared_client_ids(ps)) == ["10.0.0.2@1#DEFAULT"]
    assert ps[2].id_source == "pid 1 and instanceName 'DEFAULT': the C++ client reports ip@pid#instanceName"
    java, _ = group('[[groups.instances]]\nhosts = ["10.0.0.1"]\ncount = 2\ninstance_name = "notifier"\n')
    assert list(shared_client_ids(group_processes(java))) == ["10.0.0.1@notifier"]


def test_a_process_started_as_connected_keeps_that_id_until_it_restarts():
    g, scenarios = group('[[groups.instances]]\nhosts = ["h"]\nstarted_as = "1696#2059858770195"\n'
                         '[[groups.instances]]\nhosts = ["h"]\nstarted_as = "1691#2060159726938"\n'
                         '[[groups.instances]]\nhosts = ["h"]\nstarted_as = "1#2060000000000"\n',
                         scenarios='[[scenarios]]\nname = "r"\ngroup = "g"\nrolling_restart = "group"\n')
    ps = group_processes(g)
    assert [p.client_id for p in ps] == ["h@1696#2059858770195", "h@1691#2060159726938", "h@1#2060000000000"]
    assert "started as '1696#2059858770195' (as connected)" in ps[0].id_source
    steps = scenario_states(parse_fleet_text(BASE + '[[groups]]\nname = "g"\nsubscriptions = [{ topic = "TopicTest" }]\n'
                                   '[[groups.instances]]\nhosts = ["h"]\nstarted_as = "1696#2059858770195"\n'
                                   '[[groups.instances]]\nhosts = ["h"]\nstarted_as = "1691#2060159726938"\n'
                                   '[[groups.instances]]\nhosts = ["h"]\nstarted_as = "1#2060000000000"\n'
                                   '[[scenarios]]\nname = "r"\ngroup = "g"\nrolling_restart = "group"\n',
                                   "fleet.toml"), scenarios[0]).steps
    ups = [[p.client_id for p in s.groups[0].processes] for s in steps if s.name.startswith("up")]
    # each restart: a pid after the group's largest (1696), a nanoTime after the largest; pid 1 stays 1
    assert ups[0][0] == "h@1697#2060159726939"
    assert ups[1][1] == "h@1698#2060159726940"
    assert ups[2][2] == "h@1#2060159726941"


def test_started_as_must_be_what_the_release_makes_of_one_process():
    for body, message in [
        ('started_as = "1691"\n', 'expected the pid#nanoTime a client 4.9.8 makes'),
        ('started_as = "1691#1"\nclient_version = "4.5.1"\n', 'expected the pid a client 4.5.1 makes'),
        ('started_as = "7#1"\ncount = 2\n', "names one process: expected one host and count = 1"),
        ('started_as = "7#1"\ninstance_name = "n"\n', "not with `instance_name`"),
    ]:
        with pytest.raises(FleetError) as e:
            group('[[groups.instances]]\nhosts = ["h"]\n' + body)
        assert message in str(e.value), (body, str(e.value))


def test_the_go_client_names_a_process_ip_at_pid_in_every_release_and_model():
    """rocketmq-client-go's ClientID(): the pid while the instance name is "DEFAULT" (no nanoTime, clustering or
    broadcasting), the name WithInstance gives, then "@" + the unit name trimmed as Go's strings.TrimSpace."""
    for model in ("clustering", "broadcasting"):
        g, _ = group('[[groups.instances]]\nhosts = ["10.0.0.5"]\ncount = 2\nclient = "go"\npid = 1\n'
                     'client_version = "2.0.0"\n'
                     '[[groups.instances]]\nhosts = ["10.0.0.6"]\nclient = "go"\n'
                     '[[groups.instances]]\nhosts = ["10.0.0.7"]\nclient = "go"\ninstance_name = "orders"\n'
                     '[[groups.instances]]\nhosts = ["10.0.0.8"]\nclient = "go"\nunit_name = "\\u00a0u1 \\u2028"\n'
                     '[[groups.instances]]\nhosts = ["10.0.0.9"]\nclient = "go"\ninstance_name = "DEFAULT"\n'
                     'unit_name = " \\u3000"\n', model)
        ids = [p.client_id for p in group_processes(g)]
        assert ids == ["10.0.0.5@1", "10.0.0.5@1", "10.0.0.6@10001", "10.0.0.7@orders", "10.0.0.8@10001@u1",
                       "10.0.0.9@10001"], model
        assert all(p.client == "go" for p in group_processes(g))
    # two Go processes in pid-1 containers on one address share an id (the docker0 incident), and say why
    shared = shared_client_ids(group_processes(g))
    assert list(shared) == ["10.0.0.5@1"]
    assert "pid 1 on rocketmq-client-go 2.0.0, which names a process ip@pid without WithInstance" in \
        shared["10.0.0.5@1"][0].id_source


def test_a_restarted_go_process_takes_a_new_pid_and_pid_1_stays_1():
    fleet = parse_fleet_text(BASE + """
[[groups]]
name = "g"
subscriptions = [{ topic = "TopicTest" }]
[[groups.instances]]
hosts = ["10.0.0.5"]
count = 2
client = "go"
[[groups.instances]]
hosts = ["10.0.0.6"]
client = "go"
pid = 1
[[scenarios]]
name = "r"
group = "g"
rolling_restart = true
""", "fleet.toml")
    steps = scenario_states(fleet, fleet.scenarios[0]).steps
    assert [p.client_id for p in group_processes(fleet.groups[0])] == ["10.0.0.5@10001", "10.0.0.5@10002",
                                                                       "10.0.0.6@1"]
    last = [p.client_id for p in steps[-1].groups[0].processes]
    assert last[2] == "10.0.0.6@1"
    assert all(cid.startswith("10.0.0.5@") and "#" not in cid for cid in last[:2])
    assert set(last[:2]).isdisjoint({"10.0.0.5@10001", "10.0.0.5@10002"})

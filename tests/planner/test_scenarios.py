"""Scenarios as sequences of states on the local engine: rolling restarts, brokers down or read/write-only, topic
resizes, and combinations. Expected values are worked out by hand in the comments."""

from __future__ import annotations

import json

import pytest

from rmqplan.cli import run
from rmqplan.report.findings import find
from rmqplan.sources.fleet_file import FleetError, parse_fleet_text
from rmqplan.engines.local import simulate
from rmqplan.model.fleet import Queue
from rmqplan.model.scenarios import rollout


def sim_of(text: str):
    return simulate(parse_fleet_text(text, "fleet.toml"))


def shares(r) -> dict:
    return {instance: [f"{q.broker[-1]}{q.queue_id}" for q in qs] for instance, qs in r.assignment.items()}


def moves(r) -> list[tuple]:
    return [(f"{m.queue.broker[-1]}{m.queue.queue_id}", m.before, m.after, m.kind) for m in r.moves]


def step_results(sim, scenario: str) -> list[dict]:
    """Per step: (group, topic) -> result."""
    return [{(r.group, r.topic): r for r in s.results} for s in sim.steps[scenario]]


def baseline(sim) -> list:
    return [r for r in sim.results if r.scenario == "baseline"]


ONE_TOPIC = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = 6
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["h"]
count = 3
"""
ROLLING = '[[scenarios]]\nname = "rolling"\ngroup = "g"\nrolling_restart = "group"\n'


def test_rolling_restart_of_an_avg_group_step_by_step():
    # Client 4.9.8, synthetic pids: h@10001#1000000000001 < ...2 < ...3. AVG over 6 queues: 0,1 | 2,3 | 4,5.
    # The group's start counter is 3, so restart k gets pid 10003 + k and nanoTime 1000000000003 + k.
    sim = sim_of(ONE_TOPIC + ROLLING)
    steps = step_results(sim, "rolling")
    assert [s.name for s in sim.steps["rolling"]] == ["down h#1", "up h#1", "down h#2", "up h#2", "down h#3",
                                                        "up h#3"]
    t = [s[("g", "T")] for s in steps]
    # down h#1: cidAll [h@10002.., h@10003..] -> #2 0,1,2 | #3 3,4,5. 0 and 1 leave a stopped process (pause),
    # 3 leaves #2, which still runs (duplicate risk).
    assert shares(t[0]) == {"h#2": ["a0", "a1", "a2"], "h#3": ["a3", "a4", "a5"]}
    assert moves(t[0]) == [("a0", ("h#1",), ("h#2",), "pause"), ("a1", ("h#1",), ("h#2",), "pause"),
                           ("a3", ("h#2",), ("h#3",), "duplicate_risk")]
    # up h#1 as h@10004#1000000000004: it sorts last now: #2 0,1 | #3 2,3 | #1 4,5.
    assert [p.client_id for p in t[1].processes] == ["h@10004#1000000000004", "h@10002#1000000000002",
                                                      "h@10003#1000000000003"]
    assert shares(t[1]) == {"h#1": ["a4", "a5"], "h#2": ["a0", "a1"], "h#3": ["a2", "a3"]}
    assert [m[3] for m in moves(t[1])] == ["duplicate_risk"] * 3 and [m[0] for m in moves(t[1])] == ["a2", "a4", "a5"]
    # down h#2: #3 (10003) 0,1,2 | #1 (10004) 3,4,5
    assert shares(t[2]) == {"h#1": ["a3", "a4", "a5"], "h#3": ["a0", "a1", "a2"]}
    # up h#3 at the end: pids 10004 < 10005 < 10006 in label order again: the baseline's split
    assert shares(t[5]) == {"h#1": ["a0", "a1"], "h#2": ["a2", "a3"], "h#3": ["a4", "a5"]}
    # the retry queue: #1 -> (down #1) #2 -> (down #2) #3 -> (down #3) #1, each a pause; ups move nothing
    retry = [s[("g", "%RETRY%g")] for s in steps]
    assert [[m[3] for m in moves(r)] for r in retry] == [["pause"], [], ["pause"], [], ["pause"], []]
    assert rollout(sim.steps["rolling"], baseline(sim)) == {
        "steps": 6, "moves": 21, "duplicate_risk_moves": 12, "pause_moves": 9, "worst_orphaned": 0,
        "worst_duplicated": 0}
    # the scenario's entry: the last step against the baseline (nothing moved, new client ids)
    last = {r.topic: r for r in sim.results if r.scenario == "rolling"}
    assert last["T"].moved == [] and [p.client_id for p in last["T"].processes][0] == "h@10004#1000000000004"


def test_restarted_client_ids_follow_the_client_rules():
    fleet = """
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
read_queues = 8
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["h"]
count = 2
pid = 1
client_version = "4.5.1"
[[groups.instances]]
hosts = ["h"]
pid = 1
[[groups.instances]]
hosts = ["h"]
client_version = "4.5.1"
[[groups.instances]]
hosts = ["i"]
instance_name = "fixed"
""" + ROLLING
    sim = sim_of(fleet)
    ups = [s for s in sim.steps["rolling"] if s.name.startswith("up")]
    ids = [[p.client_id for p in s.results[0].processes] for s in ups]
    # labels h#1..h#4, i#1: the largest n is 4, so restart k is start 4 + k
    assert ids[0][0] == "h@1"  # declared pid on an old client: the same id again
    assert ids[2][2] == "h@1#1000000000007"  # declared pid on 4.9.8: a later nanoTime (restart 3)
    assert ids[3][3] == "h@10008"  # synthetic pid on an old client: a new pid (restart 4)
    assert ids[4][4] == "i@fixed"  # a fixed instanceName never changes
    assert sim.steps["rolling"][1].results[0].processes[0].id_source.endswith("restarted")


def test_colliding_containers_restart_without_fixing_anything():
    # Three pid-1 containers on 4.5.1: all report h@1, all take 0,1,2 of 8; 3..7 are orphaned.
    # down #1: two left, both h@1: 8 / 2 -> both take 0..3. 0,1,2 keep holders (#2, #3), so lose one: dropped;
    # 3 was orphaned: picked up. up #1: back to 0,1,2 for all three; 3 is dropped by its running holders.
    sim = sim_of(ONE_TOPIC.replace("read_queues = 6", "read_queues = 8").replace(
        "count = 3", 'count = 3\npid = 1\nclient_version = "4.5.1"') + ROLLING)
    t = [s[("g", "T")] for s in step_results(sim, "rolling")]
    assert [m[3] for m in moves(t[0])] == ["dropped"] * 3 + ["pickup"]
    assert [m[3] for m in moves(t[1])] == ["duplicate_risk"] * 3 + ["dropped"]
    assert [len(r.orphaned) for r in t] == [4, 5] * 3 and [len(r.duplicated) for r in t] == [4, 3] * 3
    # worst step: 5 orphaned (T), duplicated 4 on T plus the retry queue, which every step holds twice or more
    r = rollout(sim.steps["rolling"], baseline(sim))
    assert r["worst_orphaned"] == 5 and r["worst_duplicated"] == 5 and r["pause_moves"] == 0


TWO_BROKERS = """
[[brokers]]
name = "broker-a"
[[brokers]]
name = "broker-b"
[[topics]]
name = "T"
read_queues = 4
[[topics]]
name = "V"
read_queues = 2
brokers = ["broker-b"]
[[topics]]
name = "U"
read_queues = 2
brokers = ["broker-a"]
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["h"]
count = 2
[[groups]]
name = "k"
subscriptions = [{ topic = "V" }]
[[groups.instances]]
hosts = ["k1"]
[[groups]]
name = "u"
subscriptions = [{ topic = "U" }]
[[groups.instances]]
hosts = ["u1"]
"""


def test_a_broker_down_leaves_every_route_and_touches_only_the_groups_on_it():
    # T on a and b: a0..a3 b0..b3; #1 takes a0..a3, #2 b0..b3; %RETRY%g on a and b: #1 a0, #2 b0.
    # broker-b down: T is a0..a3: #1 a0,a1 | #2 a2,a3. b's queues leave while held (gone); a2, a3 leave #1,
    # which runs (duplicate risk). Group k reads V on b only: no queue left, so k1's rebalances change nothing
    # and it keeps V's queues and its retry queue (the name server drops V's route, the client keeps its last
    # one; rmqplan: a strategy failing on an empty mqAll keeps what it held); no move. u (on a) is untouched.
    sim = sim_of(TWO_BROKERS + '[[scenarios]]\nname = "b-down"\nremove_brokers = ["broker-b"]\n')
    (step,) = step_results(sim, "b-down")
    assert sorted(step) == [("g", "%RETRY%g"), ("g", "T"), ("k", "%RETRY%k"), ("k", "V")]
    t = step[("g", "T")]
    assert shares(t) == {"h#1": ["a0", "a1"], "h#2": ["a2", "a3"]}
    assert [(m[0], m[3]) for m in moves(t)] == [("a2", "duplicate_risk"), ("a3", "duplicate_risk"),
                                                ("b0", "gone"), ("b1", "gone"), ("b2", "gone"), ("b3", "gone")]
    assert step[("g", "%RETRY%g")].queues == [Queue("%RETRY%g", "broker-a", 0)]
    v = step[("k", "V")]
    assert v.queues == [] and v.idle == [] and shares(v) == {"k1#1": ["b0", "b1"]} and moves(v) == []
    listed = [(r.scenario, r.group, r.topic) for r in sim.results if r.scenario == "b-down"]
    assert listed == [("b-down", "g", "T"), ("b-down", "g", "%RETRY%g"), ("b-down", "k", "V"),
                      ("b-down", "k", "%RETRY%k")]
    codes = [(f.code, f.scenario, f.group, f.topic) for f in find(sim)]
    assert ("PLAN005", "b-down", "k", "V") in codes and ("PLAN003", "b-down", "k", "V") not in codes
    assert rollout(sim.steps["b-down"], baseline(sim))["moves"] == 6 + 1


def test_broker_permissions_write_only_loses_messages_read_only_drains():
    sim = sim_of(TWO_BROKERS + '[[scenarios]]\nname = "b-write-only"\nbroker_perm = { "broker-b" = 2 }\n'
                               '[[scenarios]]\nname = "b-read-only"\nbroker_perm = { "broker-b" = 4 }\n')
    found = {(f.code, f.scenario, f.topic): f for f in find(sim)}
    # write-only: consumers lose b's queues as if it were down, producers still write there: PLAN004
    lost = found[("PLAN004", "b-write-only", "T")]
    assert lost.severity == "error" and lost.queues == [Queue("T", "broker-b", i) for i in range(4)]
    assert "broker broker-b is not readable (perm)" in lost.message
    assert ("PLAN004", "b-write-only", "V") in found
    assert shares(step_results(sim, "b-write-only")[0][("g", "T")]) == {"h#1": ["a0", "a1"], "h#2": ["a2", "a3"]}
    # read-only: consumers keep every queue (no group is touched); b's queues get no new message: PLAN008 (info)
    assert step_results(sim, "b-read-only") == [{}]
    empty = found[("PLAN008", "b-read-only", "T")]
    assert empty.severity == "info" and empty.queues == [Queue("T", "broker-b", i) for i in range(4)]
    assert "broker broker-b is not writable (perm)" in empty.message
    assert not any(f.scenario == "baseline" for f in found.values())


def test_topic_resize_reads_more_or_writes_more():
    sim = sim_of(TWO_BROKERS + """
[[scenarios]]
name = "read-8"
set_queues = [{ topic = "T", read_queues = 8 }]
[[scenarios]]
name = "write-6-on-a"
set_queues = [{ topic = "T", write_queues = { "broker-a" = 6 } }]
""")
    # read 8, write 4 on both brokers: a0..a7 b0..b7: #1 a0..a7 | #2 b0..b7: 8 new queues picked up, a4..a7 and
    # b4..b7 receive nothing (PLAN008, info); nothing else moves.
    t = step_results(sim, "read-8")[0][("g", "T")]
    assert shares(t)["h#1"] == [f"a{i}" for i in range(8)]
    assert [(m[0], m[3]) for m in moves(t)] == [(f"{b}{i}", "pickup") for b in "ab" for i in range(4, 8)]
    found = {(f.code, f.scenario, f.topic): f for f in find(sim)}
    assert found[("PLAN008", "read-8", "T")].queues == [Queue("T", b, i) for b in ("broker-a", "broker-b")
                                                        for i in range(4, 8)]
    assert "read_queues 8 > write_queues 4 on broker-a" in found[("PLAN008", "read-8", "T")].message
    # write 6 on a: a4, a5 are written and never read (PLAN004); consumers see no change
    assert found[("PLAN004", "write-6-on-a", "T")].queues == [Queue("T", "broker-a", 4), Queue("T", "broker-a", 5)]
    assert step_results(sim, "write-6-on-a") == [{}]
    code, out, _ = cli_json(TWO_BROKERS + '[[scenarios]]\nname = "read-8"\n'
                                          'set_queues = [{ topic = "T", read_queues = 8 }]\n')
    assert code == 0, "an info finding does not fail the run"


def test_a_broker_down_during_a_scale_out():
    # g gets a third process while broker-b is down: T is a0..a3 over 3 ids: #1 a0,a1 | #2 a2 | #3 a3
    sim = sim_of(TWO_BROKERS + '[[scenarios]]\nname = "both"\ngroup = "g"\nremove_brokers = ["broker-b"]\n'
                               'add_instances = [{ hosts = ["h"] }]\n')
    (step,) = step_results(sim, "both")
    t = step[("g", "T")]
    assert shares(t) == {"h#1": ["a0", "a1"], "h#2": ["a2"], "h#3": ["a3"]}
    assert [(m[0], m[1], m[2], m[3]) for m in moves(t)][:2] == [("a2", ("h#1",), ("h#2",), "duplicate_risk"),
                                                                 ("a3", ("h#1",), ("h#3",), "duplicate_risk")]
    assert ("k", "V") in step  # the broker's other groups are part of the scenario too


def test_rolling_restart_of_every_group_steps_them_in_parallel():
    # g has 2 processes, k and u one each: down/up process 1 touch all three, down/up process 2 only g.
    # g: #1 a0..a3, #2 b0..b3. down 1: #2 holds all (4 + retry a0 pause). up 1 as h@10003..: it sorts after
    # h@10002..: #2 a0..a3, #1 b0..b3 (4 + retry b0 duplicate risk). k1 and u1 alone: their queues pause while
    # down (nobody holds them: 2 + 1 each) and are picked up again.
    sim = sim_of(TWO_BROKERS + '[[scenarios]]\nname = "everyone"\nrolling_restart = "group"\n')
    steps = sim.steps["everyone"]
    assert [s.name for s in steps] == ["down process 1", "up process 1", "down process 2", "up process 2"]
    assert [sorted({r.group for r in s.results}) for s in steps] == [["g", "k", "u"], ["g", "k", "u"], ["g"], ["g"]]
    up1 = step_results(sim, "everyone")[1]
    assert shares(up1[("g", "T")]) == {"h#1": ["b0", "b1", "b2", "b3"], "h#2": ["a0", "a1", "a2", "a3"]}
    assert [m[3] for m in moves(up1[("k", "V")])] == ["pickup", "pickup"]
    assert rollout(steps, baseline(sim)) == {"steps": 4, "moves": 32, "duplicate_risk_moves": 10,
                                             "pause_moves": 16, "worst_orphaned": 6, "worst_duplicated": 0}



@pytest.mark.parametrize("restart, groups, names", [
    # true: the scenario's group; without one, every group; "group" is the older spelling of true
    ('group = "g"\nrolling_restart = true', ["g"], ["down h#1", "up h#1", "down h#2", "up h#2"]),
    ('group = "g"\nrolling_restart = "group"', ["g"], ["down h#1", "up h#1", "down h#2", "up h#2"]),
    ("rolling_restart = true", ["g", "k", "u"], ["down process 1", "up process 1", "down process 2", "up process 2"]),
    # a group's own name, and a list of names: those groups, in parallel, in fleet order
    ('rolling_restart = "k"', ["k"], ["down k1#1", "up k1#1"]),
    ('rolling_restart = ["u", "k"]', ["k", "u"], ["down process 1", "up process 1"]),
    # a list beside a group whose processes change: the change first, then the listed groups restart
    ('group = "g"\nremove_instances = 1\nrolling_restart = ["k"]', ["g", "k"], ["change", "down k1#1", "up k1#1"]),
    ("rolling_restart = false", [], []),
])
def test_rolling_restart_takes_true_a_group_name_or_a_list(restart, groups, names):
    sim = sim_of(TWO_BROKERS + f'[[scenarios]]\nname = "r"\n{restart}\n'
                 + ('' if names else 'remove_brokers = ["broker-b"]\n'))
    steps = sim.steps.get("r", [])
    if not names:
        assert [s.name for s in steps] == ["change"]  # no restart: the broker change alone
        return
    assert [s.name for s in steps] == names
    assert sorted({r.group for s in steps for r in s.results}) == groups

def cli_json(text: str, *args: str, tmp=None):
    import io
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(dir=tmp))
    (folder / "fleet.toml").write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run(["simulate", "--fleet", str(folder / "fleet.toml"), "--engine", "local", "--format", "json", *args],
               out, err)
    return code, json.loads(out.getvalue()) if out.getvalue() else None, err.getvalue()


def test_json_keeps_the_contract_and_adds_steps_and_rollout():
    code, doc, _ = cli_json(ONE_TOPIC + ROLLING, "--assignments")
    assert set(doc) == {"scenarios", "findings", "totals", "finding_counts"}
    base, rolling = doc["scenarios"]
    assert base["name"] == "baseline" and set(base) == {"name", "groups"}
    entry = rolling["groups"][0]
    assert set(entry) == {"group", "topic", "orphaned_queues", "duplicated_queues", "idle_instances", "moved_queues",
                          "instances"}
    assert [s["name"] for s in rolling["steps"]][:2] == ["down h#1", "up h#1"]
    first = rolling["steps"][0]
    assert first["step"] == 1 and first["totals"] == {"moves": 4, "duplicate_risk_moves": 1, "pause_moves": 3,
                                                      "orphaned": 0, "duplicated": 0, "idle": 0}
    t = first["groups"][0]
    assert t["moved_queues"] == [["T", "broker-a", 0], ["T", "broker-a", 1], ["T", "broker-a", 3]]
    assert t["moves"][0] == {"queue": ["T", "broker-a", 0], "from": ["h#1"], "to": ["h#2"], "kind": "pause"}
    assert [i["instance"] for i in t["instances"]] == ["h#2", "h#3"]
    assert rolling["rollout"]["moves"] == 21


def test_text_lists_the_steps_and_the_rollout():
    import io
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    (folder / "fleet.toml").write_text(ONE_TOPIC + ROLLING, encoding="utf-8")
    out = io.StringIO()
    assert run(["simulate", "--fleet", str(folder / "fleet.toml"), "--engine", "local", "--details"], out,
               io.StringIO()) == 0
    lines = out.getvalue().splitlines()
    assert "  step 1  down h#1  moved 4 (1 duplicate risk, 3 pause)" in lines
    assert lines[2] == ("scenario rolling: 6 steps, 21 moves (12 duplicate risk, 9 pause), worst step 0 orphaned "
                        "and 0 duplicated; after the last step 0 queues differ from the baseline")


def test_out_tables_have_a_row_per_step(tmp_path):
    import pyarrow.parquet as pq

    code, _, err = cli_json(ONE_TOPIC + ROLLING, "--out", str(tmp_path / "out"), tmp=tmp_path)
    assert code == 0 and err == ""
    groups = pq.read_table(tmp_path / "out" / "groups").to_pylist()
    t = sorted((r["scenario_id"], r["step"], r["step_name"], r["moved"], r["duplicate_risk"], r["pause"])
               for r in groups if r["topic"] == "T")
    assert t == [(0, 0, "baseline", 0, 0, 0), (1, 1, "down h#1", 3, 1, 2), (2, 2, "up h#1", 3, 3, 0),
                 (3, 3, "down h#2", 3, 1, 2), (4, 4, "up h#2", 3, 3, 0), (5, 5, "down h#3", 3, 1, 2),
                 (6, 6, "up h#3", 3, 3, 0)]
    processes = pq.read_table(tmp_path / "out" / "processes").to_pylist()
    assert sorted(r["client_id"] for r in processes if r["scenario_id"] == 2)[0] == "h@10002#1000000000002"


@pytest.mark.parametrize("scenario, path, expected", [
    ('remove_brokers = ["broker-x"]', "scenarios[0].remove_brokers[0]", 'unknown broker "broker-x"'),
    ('broker_perm = { "broker-x" = 4 }', "scenarios[0].broker_perm.broker-x", 'unknown broker "broker-x"'),
    ('broker_perm = { "broker-a" = 9 }', "scenarios[0].broker_perm.broker-a",
     'expected "rw", "r", "w", "" or permission bits from 0 to 7 (4 read, 2 write, 6 both), got 9'),
    ('broker_perm = { "broker a" = "r" }', 'scenarios[0].broker_perm."broker a"', 'unknown broker "broker a"'),
    ('remove_brokers = ["broker-a"]\nbroker_perm = { "broker-a" = 4 }', "scenarios[0].broker_perm.broker-a",
     "also in remove_brokers"),
    ('set_queues = [{ topic = "X", read_queues = 2 }]', "scenarios[0].set_queues[0].topic", 'unknown topic "X"'),
    ('set_queues = [{ topic = "T" }]', "scenarios[0].set_queues[0]", "expected read_queues, write_queues or both"),
    ('set_queues = [{ topic = "T", read_queues = -1 }]', "scenarios[0].set_queues[0].read_queues",
     "expected an integer >= 0, got -1"),
    ('set_queues = [{ topic = "T", write_queues = { "broker-b" = 2 } }]',
     "scenarios[0].set_queues[0].write_queues.broker-b", 'broker "broker-b" does not hold topic T'),
    ('set_queues = [{ topic = "T", read_queues = 2 }, { topic = "T", read_queues = 3 }]',
     "scenarios[0].set_queues[1].topic", 'topic "T" is resized twice'),
    ('set_queues = [{ topic = "T", reads = 2 }]', "scenarios[0].set_queues[0].reads", "did you mean 'read_queues'?"),
    ('rolling_restart = 1', "scenarios[0].rolling_restart",
     "expected true (the scenario's group, or every group when it names none), a group name or a list of group "
     "names, got 1"),
    ('rolling_restart = "h"', "scenarios[0].rolling_restart", 'unknown group "h" (groups are: g)'),
    ('rolling_restart = ["g", "h"]', "scenarios[0].rolling_restart[1]", 'unknown group "h"'),
    ('rolling_restart = ["g", "g"]', "scenarios[0].rolling_restart[1]", 'group "g" is listed twice'),
    ('rolling_restart = []', "scenarios[0].rolling_restart", "a list of group names, got an array"),
    ('remove_instances = 1', "scenarios[0].group", "missing: remove_instances change the processes of a group"),
])
def test_each_scenario_mistake_names_its_key_path(scenario, path, expected):
    text = ('[[brokers]]\nname = "broker-a"\n[[brokers]]\nname = "broker-b"\n[[topics]]\nname = "T"\n'
            'read_queues = 4\nbrokers = ["broker-a"]\n[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n'
            '[[groups.instances]]\nhosts = ["h"]\n'
            f'[[scenarios]]\nname = "s"\n{scenario}\n')
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "fleet.toml")
    assert any(line.startswith(f"fleet.toml: {path}: ") and expected in line for line in e.value.errors), \
        e.value.errors


def test_every_scenario_error_at_once():
    text = ('[[brokers]]\nname = "broker-a"\n[[topics]]\nname = "T"\nread_queues = 4\n[[groups]]\nname = "g"\n'
            'subscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
            '[[scenarios]]\nname = "s"\nremove_brokers = ["x"]\n'
            'broker_perm = { "broker-a" = 8 }\nset_queues = [{ topic = "T", read_queues = "8" }]\n'
            'rolling_restart = "host"\n')
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "fleet.toml")
    assert [line.split(": ")[1] for line in e.value.errors] == [
        "scenarios[0].remove_brokers[0]", "scenarios[0].broker_perm.broker-a", "scenarios[0].set_queues[0].read_queues",
        "scenarios[0].rolling_restart"]

"""fleet.toml v1: what a valid fleet becomes, and one clear line per mistake in a broken one."""

from pathlib import Path

import pytest

from rmqplan.sources.fleet_file import FleetError, load_fleet, parse_fleet_text
from rmqplan.model.fleet import BROADCASTING, CLUSTERING, Queue, StrategySpec

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[2]

BASE = """
[[brokers]]
name = "broker-a"
[[brokers]]
name = "broker-b"
room = "hz"
perm = "r"
[[topics]]
name = "T"
read_queues = 4
"""


def parse(extra: str, base: str = BASE):
    return parse_fleet_text(base + extra, "fleet.toml")


def errors_of(text: str) -> list[str]:
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "fleet.toml")
    return e.value.errors


def test_defaults_fill_in_as_designed():
    fleet = parse("""
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1", "10.0.0.2"]
""")
    (topic,) = fleet.topics
    assert topic.brokers == ("broker-a", "broker-b")  # every broker by default
    assert topic.read_queues == {"broker-a": 4, "broker-b": 4}
    assert topic.write_queues == topic.read_queues  # write defaults to read
    assert fleet.brokers[1].room == "hz" and fleet.brokers[1].readable and not fleet.brokers[1].writable
    (group,) = fleet.groups
    assert group.model == CLUSTERING and group.strategy == StrategySpec("AVG")
    assert group.subscriptions[0].expression == "*"
    (inst,) = group.instances
    assert inst.count == 1 and inst.client_version == "4.9.8" and inst.pid is None and inst.strategy is None
    assert inst.path == "groups[0].instances[0]"


def test_per_broker_tables_java_class_names_and_overrides():
    fleet = parse("""
[defaults]
client_version = "4.5.1"
[[topics]]
name = "U"
read_queues = { "broker-b" = 8 }
write_queues = { "broker-b" = 16 }
perm = "w"
[[groups]]
name = "g"
model = "broadcasting"
strategy = "AllocateMessageQueueConsistentHash"
virtual_nodes = 3
subscriptions = [{ topic = "U", expression = "TagA || TagB" }]
[[groups.instances]]
hosts = ["10.0.0.1"]
instance_name = "DEFAULT"
strategy = "AVG_BY_CIRCLE"
[[groups.instances]]
hosts = ["10.0.0.2"]
client_version = "4.9.3"
pid = 1
[[groups.instances]]
hosts = ["10.0.0.3"]
strategy = "AllocateMessageQueueConsistentHash"
[[groups]]
name = "cfg"
strategy = "CONFIG"
queues = [["T", "broker-a", 0]]
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.4"]
""")
    u = fleet.topics[1]
    assert u.brokers == ("broker-b",) and u.read_queues == {"broker-b": 8} and u.write_queues == {"broker-b": 16}
    assert u.writable and not u.readable
    g = fleet.groups[0]
    assert g.model == BROADCASTING and g.strategy.name == "CONSISTENT_HASH" and g.strategy.virtual_nodes == 3
    first, second, third = g.instances
    assert first.instance_name is None  # "DEFAULT" written out is the client default
    assert first.client_version == "4.5.1"  # from [defaults]
    assert first.strategy == StrategySpec("AVG_BY_CIRCLE")  # only the parameters a strategy reads are kept
    assert third.strategy == StrategySpec("CONSISTENT_HASH", virtual_nodes=3)  # inherits the group's parameters
    assert second.strategy is None and second.pid == 1 and second.client_version == "4.9.3"
    assert fleet.groups[1].strategy.config_queues == (Queue("T", "broker-a", 0),)


def test_machine_room_nearby_accepts_java_getname_form():
    fleet = parse("""
[[groups]]
name = "g"
strategy = "MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1"]
[[groups]]
name = "h"
strategy = "AllocateMachineRoomNearby"
subscriptions = [{ topic = "T" }]
[[groups.instances]]
hosts = ["10.0.0.1"]
""")
    assert fleet.groups[0].strategy.nearby.name == "AVG_BY_CIRCLE"
    assert fleet.groups[1].strategy.nearby.name == "AVG"  # the default delegate


def test_every_error_is_reported_one_per_line_with_its_key_path():
    with pytest.raises(FleetError) as e:
        load_fleet(FIXTURES / "bad_many.toml")
    lines = e.value.errors
    label = str(FIXTURES / "bad_many.toml")
    assert all(line.startswith(label + ": ") and "\n" not in line for line in lines)
    text = "\n".join(lines)
    assert f"{label}: groups[0].instances[0].count: expected an integer >= 1, got -3" in lines
    assert 'brokers[0].perm: expected "rw", "r", "w", "" or permission bits from 0 to 7 (4 read, 2 write, 6 both), ' \
           'got "rx"' in text
    assert 'topics[0].brokers[1]: unknown broker "broker-z"' in text
    assert 'groups[0].strategy: unknown strategy "AVERAGE"' in text
    assert 'groups[0].subscriptions[0].topic: unknown topic "NoSuchTopic" (topics are: TopicTest)' in text
    assert "groups[0].instances[0].hostz: unknown key; did you mean 'hosts'?" in text
    assert 'scenarios[0].group: unknown group "nope" (groups are: g1)' in text
    assert len(lines) == 7  # and no cascade (the broken topic and group are still known by name)


@pytest.mark.parametrize("extra, path, expected", [
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = "10.0.0.1"\n',
     "groups[0].instances[0].hosts", "expected an array of strings, got \"10.0.0.1\""),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\npid = "1"\n',
     "groups[0].instances[0].pid", 'expected an integer >= 1, got "1"'),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     'client_version = "new"\n', "groups[0].instances[0].client_version", 'expected a version like "4.9.8"'),
    ('[[groups]]\nname = "g"\nmodel = "cluster"\nsubscriptions = [{ topic = "T" }]\n',
     "groups[0].model", 'expected "clustering" or "broadcasting", got "cluster"'),
    ('[[groups]]\nname = "g"\nstrategy = "CONSISTENT_HASH"\nvirtual_nodes = -1\nsubscriptions = [{ topic = "T" }]\n',
     "groups[0].virtual_nodes", "expected an integer >= 0, got -1"),
    ('[[groups]]\nname = "g"\n', "groups[0].subscriptions", "missing"),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[scenarios]]\nname = "s"\ngroup = "g"\n'
     'remove_instances = -1\n', "scenarios[0].remove_instances", "expected an integer >= 0, got -1"),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     '[[scenarios]]\nname = "s"\ngroup = "g"\nremove_instances = 2\n',
     "scenarios[0].remove_instances", 'expected at most 1 (group "g" has 1 processes), got 2'),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups]]\nname = "g"\n'
     'subscriptions = [{ topic = "T" }]\n', "groups[1].name", 'duplicate group name "g" (first at groups[0])'),
    ('[[topics]]\nname = "U"\nread_queues = { "broker-a" = 2 }\nbrokers = ["broker-a", "broker-b"]\n'
     '[[groups]]\nname = "g"\nsubscriptions = [{ topic = "U" }]\n', "topics[1].read_queues",
     'no count for broker "broker-b"'),
    ('[[topics]]\nname = "U"\nread_queues = 4\nbrokers = ["broker-x"]\n[[groups]]\nname = "g"\n'
     'subscriptions = [{ topic = "U" }]\n', "topics[1].brokers[0]", 'unknown broker "broker-x"'),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h", "i"]\n'
     '[[scenarios]]\nname = "s"\ngroup = "g"\nremove_hosts = ["x"]\nremove_instances = 2\n',
     "scenarios[0].remove_hosts[0]", 'group "g" has no process on host "x"'),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h", "i"]\n'
     '[[scenarios]]\nname = "s"\ngroup = "g"\nremove_hosts = ["h"]\nremove_instances = 2\n',
     "scenarios[0].remove_instances", "expected at most 1 (group \"g\" has 1 processes left after remove_hosts)"),
    ('[[brokers]]\nname = 7\n[[brokers]]\nname = "broker-a"\n', "brokers[3].name",
     'duplicate broker name "broker-a" (first at brokers[0])'),
    ('[generate]\ngroups = 0\n', "generate.groups", "expected an integer >= 1, got 0"),
    ('[[topics]]\nname = "U"\nread_queues = 99999999999\n', "topics[1].read_queues",
     "expected an integer from 0 to 65536, got 99999999999"),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     'count = 1000000000\n', "groups[0].instances[0].count", "expected an integer from 1 to 100000"),
    ('[generate]\ngroups = 5\ninstances = [9, 2]\n', "generate.instances", "expected [low, high]"),
    ('[[groups]]\nname = "g"\nstrategy = "MACHINE_ROOM_NEARBY"\nnearby = "MACHINE_ROOM_NEARBY"\n'
     'subscriptions = [{ topic = "T" }]\n', "groups[0].nearby", "expected a strategy other than"),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     'client = "rust"\n', "groups[0].instances[0].client", 'expected "java", "cpp" or "go", got "rust"'),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     'client = "go"\nclient_version = "1.2.4"\n', "groups[0].instances[0].client_version",
     'rocketmq-client-go 1.x runs the C++ client underneath: write client = "cpp"'),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     'client = "go"\nclient_version = "4.9.8"\n', "groups[0].instances[0].client_version",
     'expected a rocketmq-client-go v2 release like "2.1.2", got "4.9.8"'),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     'client = "go"\nconsumer = "lite_pull"\n', "groups[0].instances[0].consumer",
     "rmqplan models rocketmq-client-go's push consumer"),
    ('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
     'client = "go"\nclient_version = "v2.1.1"\nunit_name = "u"\n', "groups[0].instances[0].unit_name",
     "rocketmq-client-go 2.1.1 has no unit name (WithUnitName came in 2.1.2)"),
])
def test_each_mistake_names_the_key_and_what_was_expected(extra, path, expected):
    lines = errors_of(BASE + extra)
    assert any(line.startswith(f"fleet.toml: {path}: ") and expected in line for line in lines), lines


def test_missing_brokers_topics_and_groups():
    assert errors_of("") == ["fleet.toml: groups: missing: a fleet needs [[groups]] (or a [generate] section)"]
    lines = errors_of('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n')
    assert any(line.startswith("fleet.toml: brokers: missing") for line in lines)
    assert any(line.startswith("fleet.toml: topics: missing") for line in lines)


def test_generate_only_fleet_needs_no_brokers():
    fleet = parse_fleet_text("[generate]\ngroups = 1000000\nseed = 7\ncolliding_client_ids = 0.01\n", "f")
    assert fleet.groups == () and fleet.generate.groups == 1_000_000 and fleet.generate.seed == 7
    assert fleet.generate.colliding_client_ids == 0.01


def test_generate_beside_hand_written_groups_is_kept():
    fleet = parse('[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n[[groups.instances]]\nhosts = ["h"]\n'
                  '[generate]\ngroups = 3\n')
    assert len(fleet.groups) == 1 and fleet.generate.groups == 3


def test_bad_toml_gives_tomllib_line_and_column():
    with pytest.raises(FleetError) as e:
        parse_fleet_text('[[brokers]]\nname = "a"\nperm = rw\n', "fleet.toml")
    assert e.value.errors == ["fleet.toml:3:8: invalid TOML: Invalid value"]
    with pytest.raises(FleetError) as e:
        load_fleet(FIXTURES / "bad_syntax.toml")
    (line,) = e.value.errors
    assert line.startswith(f"{FIXTURES / 'bad_syntax.toml'}:6:") and "Unclosed array" in line


@pytest.mark.parametrize("name, expected", [
    ("binary.toml", "binary file (NUL byte at offset 4)"),
    ("bad_encoding.toml", ":2: not UTF-8 text (byte 0xe9)"),
    ("no_brokers.toml", "brokers: missing"),
    ("does_not_exist.toml", ": no such file"),
])
def test_unusable_files_give_one_line(name, expected):
    with pytest.raises(FleetError) as e:
        load_fleet(FIXTURES / name)
    (line,) = e.value.errors
    assert expected in line and line.startswith(str(FIXTURES / name))


def test_deeply_nested_toml_is_one_line():
    text = "a = " + "[" * 100000 + "]" * 100000 + "\n"
    with pytest.raises(FleetError) as e:
        parse_fleet_text(text, "deep.toml")
    assert len(e.value.errors) == 1 and e.value.errors[0].startswith("deep.toml")


def test_example_fleet_and_golden_fleet_are_valid():
    example = load_fleet(ROOT / "examples" / "fleet.toml")
    assert [g.name for g in example.groups] == ["consumer_group", "orders_legacy", "orders"]
    assert [s.name for s in example.scenarios] == ["scale-out"]
    golden = load_fleet(ROOT / "tests" / "golden" / "fleet-cases.toml")
    assert len(golden.groups) == 120 and len(golden.brokers) == 4


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (BASE + '[[groups]]\nname = "g"\nsubscriptions = [{ topic = "T" }]\n'
                                        '[[groups.instances]]\nhosts = ["h"]\n').encode())
    assert load_fleet(path).groups[0].name == "g"


@pytest.mark.parametrize("written, readable, writable", [
    ('"rw"', True, True), ('"r"', True, False), ('"w"', False, True), ('""', False, False),
    ("6", True, True), ("4", True, False), ("2", False, True), ("0", False, False), ("7", True, True),
])
def test_a_permission_is_a_string_or_bits_wherever_it_is_written(written, readable, writable):
    fleet = parse_fleet_text(f"""
[[brokers]]
name = "a"
perm = {written}
[[topics]]
name = "T"
read_queues = 4
perm = {written}
[[groups]]
name = "g"
subscriptions = [{{ topic = "T" }}]
[[groups.instances]]
hosts = ["h"]
[[scenarios]]
name = "s"
broker_perm = {{ "a" = {written} }}
""", "fleet.toml")
    assert (fleet.brokers[0].readable, fleet.brokers[0].writable) == (readable, writable)
    assert (fleet.topics[0].readable, fleet.topics[0].writable) == (readable, writable)
    (_, bits), = fleet.scenarios[0].broker_perm
    assert (bool(bits & 4), bool(bits & 2)) == (readable, writable)


def test_a_permission_that_is_neither_lists_what_is_allowed():
    with pytest.raises(FleetError) as e:
        parse_fleet_text('[[brokers]]\nname = "a"\nperm = 8\n[[topics]]\nname = "T"\nread_queues = 1\nperm = true\n'
                         '[generate]\ngroups = 1\n', "fleet.toml")
    allowed = 'expected "rw", "r", "w", "" or permission bits from 0 to 7 (4 read, 2 write, 6 both)'
    assert e.value.errors == [f"fleet.toml: brokers[0].perm: {allowed}, got 8",
                              f"fleet.toml: topics[0].perm: {allowed}, got true"]

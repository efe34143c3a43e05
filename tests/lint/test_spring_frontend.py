"""The Spring configuration frontend: every key with its value and position, and the clients rocketmq.* creates."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rmqlint.facts import ClientFact, FileFacts, facts_from_json, facts_to_json
from rmqlint.frontends.spring import is_spring_config, parse_properties, parse_yaml
from rmqlint.text import canonical_key
from rmqlint.values import Concat, Dynamic, Lit, Placeholder
from tests.lint.spans import span

FIXTURES = Path(__file__).parent / "fixtures" / "spring"


def load(name: str) -> tuple[FileFacts, str, str]:
    data = (FIXTURES / name).read_bytes()
    path = f"src/main/resources/{name}"
    parse = parse_properties if name.endswith(".properties") else parse_yaml
    return parse(path, data), data.decode("utf-8"), path


def client(facts: FileFacts, role: str) -> ClientFact:
    (found,) = [c for c in facts.clients if c.role == role]
    return found


def entries(facts: FileFacts) -> dict:
    return {e.key: e.value for e in facts.config}


# --- .properties -----------------------------------------------------------------------------------------------


def test_properties_entries_keep_keys_as_written_and_split_placeholders():
    facts, _source, _path = load("application.properties")
    assert facts.problems == [] and facts.language == "properties"
    assert entries(facts) == {
        "rocketmq.name-server": Lit("127.0.0.1:9876"),
        "rocketmq.pull-consumer.group": Lit("pull_group"),
        "rocketmq.pull-consumer.topic": Placeholder("app.topic", Lit("orders")),
        "rocketmq.pull-consumer.selectorExpression": Lit("TagA || TagB"),
        "rocketmq.pull-consumer.instance_name": Concat((Lit("puller-"), Placeholder("app.node"))),
        "rocketmq.producer.group": Lit("producer_group"),
        "rocketmq.producer.instanceName": Lit("fixed-producer"),
        "app.topic": Lit("orders"),
        "app.escaped": Lit("caf\u00e9 #1"),
        "empty.value": Lit(""),
    }


def test_properties_values_are_located_across_separators_and_continuations():
    facts, source, path = load("application.properties")
    where = {e.key: e.location for e in facts.config}
    assert where["rocketmq.pull-consumer.group"] == span(source, "pull_group", path)
    assert where["rocketmq.pull-consumer.topic"] == span(source, "${app.topic:orders}", path)
    assert where["rocketmq.pull-consumer.selectorExpression"] == span(source, "TagA \\\n    || TagB", path)
    assert where["rocketmq.producer.instanceName"] == span(source, "fixed-producer", path)


def test_properties_clients_with_relaxed_binding():
    facts, source, path = load("application.properties")
    pull = client(facts, "lite_pull_consumer")
    assert (pull.api, pull.name) == ("spring-config", "rocketmq.pull-consumer")
    assert pull.group.value == Lit("pull_group")
    assert pull.location == pull.group.location == span(source, "pull_group", path)
    assert pull.instance_name.value == Concat((Lit("puller-"), Placeholder("app.node")))  # instance_name
    assert pull.instance_name.location == span(source, "puller-${app.node}", path)
    assert pull.message_model is None
    (subscription,) = pull.subscriptions
    assert subscription.topic == Placeholder("app.topic", Lit("orders"))
    assert (subscription.expression, subscription.selector) == (Lit("TagA || TagB"), "TAG")  # selectorExpression
    assert subscription.location == span(source, "${app.topic:orders}", path)
    producer = client(facts, "producer")
    assert producer.group.value == Lit("producer_group")
    assert producer.instance_name.value == Lit("fixed-producer")  # instanceName
    assert producer.instance_name.location == span(source, "fixed-producer", path)


def test_properties_suppression_comments():
    facts, _source, _path = load("application.properties")
    assert facts.suppressions == {8: ["RMQ001"]}


def test_properties_without_group_or_topic_create_no_client():
    facts = parse_properties("application.properties", b"rocketmq.consumer.instance-name=x\nrocketmq.name-server=a\n")
    assert facts.clients == []
    assert [e.key for e in facts.config] == ["rocketmq.consumer.instance-name", "rocketmq.name-server"]


def test_properties_bad_escape_is_one_problem_and_the_rest_is_read():
    facts = parse_properties("application.properties", b"a=1\nb=\\uZZZZ\nc=3\n")
    assert entries(facts) == {"a": Lit("1"), "c": Lit("3")}
    (problem,) = facts.problems
    assert problem.location.line == 2
    assert problem.message == "properties error: invalid literal for int() with base 16: 'ZZZZ'"


# --- YAML ------------------------------------------------------------------------------------------------------


def test_yaml_entries_are_flattened_with_lists_and_documents():
    facts, _source, _path = load("application-prod.yml")
    assert facts.problems == [] and facts.language == "yaml"
    got = entries(facts)
    assert got["rocketmq.name-server"] == Placeholder("NAMESRV", Lit("localhost:9876"))
    assert got["app.servers[0].host"] == Lit("a")
    assert got["app.servers[1].host"] == Lit("b # rmqlint: disable=RMQ002")
    assert got["spring.config.activate.on-profile"] == Lit("blue")  # the second document is kept
    assert got["rocketmq.producer.instance-name"] == Placeholder("HOSTNAME")
    assert len(facts.config) == len(got) == 15


def test_yaml_clients_from_the_old_consumer_prefix_simple_consumer_and_a_profile_document():
    facts, source, path = load("application-prod.yml")
    legacy = client(facts, "lite_pull_consumer")
    assert legacy.name == "rocketmq.consumer"
    assert legacy.group.value == Lit("legacy_pull")
    assert legacy.group.location == span(source, "legacy_pull", path)
    assert legacy.message_model.value == Lit("BROADCASTING")
    assert legacy.instance_name.value == Lit("legacy-puller")
    assert legacy.instance_name.location == span(source, "legacy-puller", path)
    (subscription,) = legacy.subscriptions
    assert (subscription.topic, subscription.expression, subscription.selector) == (
        Lit("legacy-topic"), Lit("a > 1"), "SQL92")
    assert subscription.location == span(source, "legacy-topic", path)
    simple = client(facts, "simple_consumer")
    assert simple.group.value == Lit("v5_group")
    (subscription,) = simple.subscriptions
    assert (subscription.topic, subscription.expression, subscription.selector) == (
        Lit("v5-topic"), Lit("TagA || TagB"), "TAG")
    producer = client(facts, "producer")
    assert producer.group.value == Lit("blue_producer")
    assert producer.instance_name.value == Placeholder("HOSTNAME")


def test_yaml_suppressions_are_real_comments_only():
    facts, _source, _path = load("application-prod.yml")
    assert facts.suppressions == {9: ["RMQ001"]}  # not the '#' inside the quoted host


def test_yaml_anchors_merge_keys_and_complex_keys():
    text = (b"base: &base\n  group: g\n  topic: t\n"
            b"rocketmq:\n  consumer:\n    <<: *base\n    instance-name: x\n  ? [complex]\n  : ignored\n  after: 1\n")
    facts = parse_yaml("application.yml", text)
    assert entries(facts) == {
        "base.group": Lit("g"), "base.topic": Lit("t"),
        "rocketmq.consumer.group": Lit("g"), "rocketmq.consumer.topic": Lit("t"),
        "rocketmq.consumer.instance-name": Lit("x"), "rocketmq.after": Lit("1"),
    }
    (pull,) = facts.clients
    assert pull.group.location.line == 2  # where the merged value is written


def test_yaml_null_and_empty_values_are_empty_strings():
    facts = parse_yaml("application.yml", b"a:\nb: ~\nc: 'null'\nd: 3000\ne: true\n")
    assert entries(facts) == {"a": Lit(""), "b": Lit(""), "c": Lit("null"), "d": Lit("3000"), "e": Lit("true")}


def test_a_later_document_without_profile_overrides():
    text = b"rocketmq:\n  producer:\n    group: g\n    instance-name: a\n---\nrocketmq.producer.instance-name: b\n"
    (producer,) = parse_yaml("application.yml", text).clients
    assert producer.instance_name.value == Lit("b")
    assert producer.instance_name.location.line == 6


def test_a_profile_document_with_another_value_makes_the_setting_dynamic():
    text = (b"rocketmq:\n  producer:\n    group: g\n    instance-name: a\n---\n"
            b"spring.config.activate.on-profile: prod\nrocketmq.producer.instance-name: b\n"
            b"---\nspring:\n  profiles: dev\nrocketmq.producer.group: g\n")
    (producer,) = parse_yaml("application.yml", text).clients
    assert producer.instance_name.value == Dynamic("rocketmq.producer.instance-name differs under profile prod")
    assert producer.instance_name.location.line == 7
    assert producer.group.value == Lit("g")  # the dev document agrees


def test_a_properties_key_written_twice_takes_the_last_value():
    facts = parse_properties("application.properties", b"rocketmq.producer.group=a\nrocketmq.producer.group=b\n")
    (producer,) = facts.clients
    assert producer.group.value == Lit("b") and producer.group.location.line == 2


def test_broken_yaml_is_one_problem_with_its_line():
    facts, _source, path = load("bootstrap.yaml")
    assert facts.config == [] and facts.clients == []
    (problem,) = facts.problems
    assert problem.message.startswith("YAML error: expected ',' or ']'")
    assert (problem.location.path, problem.location.line, problem.location.column) == (path, 5, 5)


# --- bad input -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("parse", [parse_yaml, parse_properties], ids=["yaml", "properties"])
def test_binary_bytes(parse):
    (problem,) = parse("application.yml", b"a: 1\n\x00\x01\x02").problems
    assert "binary" in problem.message and problem.location.line == 2


def test_yaml_must_be_utf8():
    facts = parse_yaml("application.yml", "a: 1\nb: caf\xe9\n".encode("latin-1"))
    (problem,) = facts.problems
    assert "UTF-8" in problem.message and (problem.location.line, problem.location.column) == (2, 7)
    assert facts.config == []


def test_properties_that_are_not_utf8_are_read_as_iso_8859_1_with_escapes():
    facts = parse_properties("application.properties", "a=1\nb=caf\xe9\nc=n\\u00f6de\n".encode("latin-1"))
    assert facts.problems == []
    assert [(e.key, e.value.text) for e in facts.config] == [("a", "1"), ("b", "caf\xe9"), ("c", "n\xf6de")]


@pytest.mark.parametrize("text", [
    b"a: " + b"[" * 10000 + b"]" * 10000 + b"\n",
    b"a: " + b"{b: " * 10000 + b"1" + b"}" * 10000 + b"\n",
    b"".join(b" " * i + b"k:\n" for i in range(2000)),
    b"a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    b"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",
], ids=["flow-sequences", "flow-maps", "block-maps", "alias-bomb"])
def test_pathological_yaml_is_one_problem_quickly(text):
    started = time.perf_counter()
    facts = parse_yaml("application.yml", text)
    assert time.perf_counter() - started < 5
    (problem,) = facts.problems
    assert "not analysed" in problem.message
    assert facts.config == [] and facts.clients == []


def test_facts_survive_the_json_cache():
    for name in ("application.properties", "application-prod.yml"):
        facts, _source, _path = load(name)
        assert facts_from_json(facts_to_json(facts)) == facts


# --- file names and keys ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path,expected", [
    ("src/main/resources/application.properties", True),
    ("application-prod.yml", True),
    ("config/application.yaml", True),
    ("bootstrap.yml", True),
    ("bootstrap-dev.properties", True),
    ("application.json", False),
    ("my-application.yml", False),
    ("docker-compose.yml", False),
    ("application/notes.yml", False),
])
def test_is_spring_config(path, expected):
    assert is_spring_config(path) is expected


def test_canonical_key_relaxed_binding():
    forms = ["rocketmq.consumer.instance-name", "rocketmq.consumer.instanceName", "rocketmq.consumer.instance_name",
             "ROCKETMQ.CONSUMER.INSTANCE-NAME"]
    assert {canonical_key(k) for k in forms} == {"rocketmq.consumer.instancename"}


def test_properties_documents_and_profiles():
    text = (b"rocketmq.pull-consumer.group=g\r\nrocketmq.pull-consumer.instance-name=a\r\n#---\r\n"
            b"spring.config.activate.on-profile=prod\r\nrocketmq.pull-consumer.instance-name=b\r\n")
    facts = parse_properties("application.properties", text)
    (pull,) = facts.clients
    assert pull.instance_name.value == Dynamic("rocketmq.pull-consumer.instance-name differs under profile prod")
    assert pull.instance_name.location.line == 5  # CRLF counts as one line break
    assert len(facts.config) == 4


def test_yaml_block_scalars_hide_hash_signs_and_crlf_lines_count_once():
    text = (b"a: |\r\n  # rmqlint: disable=RMQ001\r\n  text\r\nb: 1  # rmqlint: disable=RMQ002\r\n"
            b"# rmqlint: disable\r\nc: '#x'\r\n")
    facts = parse_yaml("application.yml", text)
    assert facts.suppressions == {4: ["RMQ002"], 5: ["*"]}
    assert entries(facts)["a"] == Lit("# rmqlint: disable=RMQ001\ntext\n")
    assert [e.location.line for e in facts.config] == [1, 4, 6]

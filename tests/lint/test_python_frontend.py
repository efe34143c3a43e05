"""The Python frontend on fixtures: exact facts (roles, values, locations) for each construct it understands."""

from __future__ import annotations

from pathlib import Path

import pytest

from rmqlint.facts import ClientFact, FileFacts, facts_from_json, facts_to_json
from rmqlint.frontends.python import imports_rocketmq
from rmqlint.frontends.python.parse import parse_python
from rmqlint.text import module_of as module_name
from rmqlint.values import Concat, ConstRef, Dynamic, Lit, Param
from tests.lint.spans import span

FIXTURES = Path(__file__).parent / "fixtures" / "python"


def load(name: str) -> tuple[FileFacts, str, str]:
    data = (FIXTURES / name).read_bytes()
    path = f"app/{name}"
    return parse_python(path, data), data.decode("utf-8"), path


def client_named(facts: FileFacts, name: str) -> ClientFact:
    (client,) = [c for c in facts.clients if c.name == name]
    return client


# --- the three incidents ------------------------------------------------------------------------------------


def test_fixed_instance_name_fixed_instance_name_on_a_module_level_consumer():
    facts, source, path = load("fixed_instance_name.py")
    assert facts.problems == []
    (consumer,) = facts.clients
    assert (consumer.role, consumer.api, consumer.name) == ("push_consumer", "python2", "consumer")
    assert consumer.location == span(source, 'PushConsumer("consumer_group")', path)
    assert consumer.group.value == Lit("consumer_group")
    assert consumer.group.location == span(source, '"consumer_group"', path)
    assert consumer.instance_name.value == Lit("XUJIAN_MACBOOK")
    assert consumer.instance_name.location == span(source, 'consumer.set_instance_name("XUJIAN_MACBOOK")', path)
    assert consumer.message_model is None and consumer.consume_mode is None  # client defaults
    (subscription,) = consumer.subscriptions
    assert (subscription.topic, subscription.expression, subscription.selector) == (Lit("TopicTest"), Lit("*"), "TAG")
    assert subscription.location == span(source, 'consumer.subscribe("TopicTest", on_message)', path)
    (listener,) = consumer.listeners
    assert listener.kind == "python"
    assert listener.location.line == span(source, "def on_message", path).line
    assert listener.reconsume_later == [] and listener.throws == []


def test_tag_case_drift_producer_tag_and_consumer_expression_differ_in_case():
    facts, source, path = load("tag_case_drift.py")
    assert facts.problems == []
    producer = client_named(facts, "producer")
    assert (producer.role, producer.group.value) == ("producer", Lit("producer_group"))
    (produced,) = facts.produced
    assert (produced.topic, produced.tag) == (Lit("TopicTest"), Lit("aaaaa"))
    assert produced.location == span(source, 'msg.set_tags("aaaaa")', path)
    consumer = client_named(facts, "consumer")
    (subscription,) = consumer.subscriptions
    assert (subscription.topic, subscription.expression) == (Lit("TopicTest"), Lit("Aaaaa"))
    (listener,) = consumer.listeners
    assert listener.location == span(source, "lambda msg: ConsumeStatus.CONSUME_SUCCESS", path)
    assert listener.reconsume_later == []
    assert facts.constants == {"TOPIC": Lit("TopicTest")}


def test_broadcasting_retry_broadcasting_consumer_returning_reconsume_later():
    facts, source, path = load("broadcast_retry.py")
    (consumer,) = facts.clients
    assert consumer.message_model.value == Lit("BROADCASTING")
    assert consumer.message_model.location == span(source, "MessageModel.BROADCASTING", path)
    (listener,) = consumer.listeners
    assert listener.reconsume_later == [span(source, "return ConsumeStatus.RECONSUME_LATER", path)]
    assert listener.throws == [span(source, 'raise ValueError("empty")', path)]


# --- receivers, listeners, settings -------------------------------------------------------------------------------


def test_self_attribute_is_one_client_across_methods_defined_in_any_order():
    facts, source, path = load("receivers.py")
    assert facts.problems == []
    refresher = client_named(facts, "self.consumer")
    assert refresher.location == span(source, "mq.PushConsumer(self.GROUP, True)", path)
    assert refresher.group.value == Lit("refresher_group")  # a class attribute through self
    assert refresher.consume_mode.value == Lit("ORDERLY")
    assert refresher.message_model.value == Lit("BROADCASTING")
    assert refresher.message_model.location == span(
        source, "self.consumer.set_message_model(MessageModel.BROADCASTING)", path)
    (subscription,) = refresher.subscriptions
    assert (subscription.topic, subscription.expression) == (Lit("RefreshTopic"), Lit("TagA || TagB"))
    (listener,) = refresher.listeners
    assert listener.location.line == span(source, "def handle", path).line
    # `return status if ... else ...`: the branch holding RECONSUME_LATER through a local assigned once
    assert listener.reconsume_later == [span(source, "ConsumeStatus.RECONSUME_LATER", path, occurrence=1)]


def test_keyword_arguments_class_constant_and_lambda_variable():
    facts, source, path = load("receivers.py")
    other = client_named_group(facts, "other_group")
    assert other.group.value == Lit("other_group")
    assert other.consume_mode.value == Lit("CONCURRENTLY")
    assert other.instance_name.value == Lit("refresher_group")
    (subscription,) = other.subscriptions
    assert subscription.topic == Lit("OtherTopic")
    (listener,) = other.listeners
    assert listener.location == span(
        source, "lambda m: ConsumeStatus.RECONSUME_LATER if m else ConsumeStatus.CONSUME_SUCCESS", path)
    assert listener.reconsume_later == [span(source, "ConsumeStatus.RECONSUME_LATER", path, occurrence=2)]


# --- values -------------------------------------------------------------------------------------------------------


def test_module_constants_fold_or_stay_dynamic():
    facts, _source, _path = load("values.py")
    assert facts.problems == []
    c = facts.constants
    assert c["PREFIX"] == Lit("app")
    assert c["NAME"] == Lit("app-worker")
    assert c["FOLDED"] == Lit("app_app-worker")
    assert c["SPLIT"] == Lit("implicit-concat")
    assert c["ANNOTATED"] == Lit("annotated")
    assert c["COUNT"] == Lit("3")
    assert isinstance(c["REASSIGNED"], Dynamic)
    assert c["FROM_ENV"] == Dynamic("environment variable INSTANCE")
    assert c["FROM_GETENV"] == Dynamic("environment variable INSTANCE")
    # What a value is unique per, where its source says: the host's name (the node's on host networking), a pid.
    assert c["HOST"] == Dynamic("hostname", "host")
    assert c["PID_NAME"] == Dynamic("process id", "pid")
    assert c["SUM"] == Dynamic("arithmetic")
    assert isinstance(c["FORMATTED"], Dynamic)
    assert c["WITH_HOST"] == Dynamic("hostname", "host")
    assert "os" not in c and "socket" not in c and "PushConsumer" not in c and "configure" not in c


def test_locals_parameters_and_calls_in_settings():
    facts, source, path = load("values.py")
    consumer = client_named(facts, "consumer")
    assert consumer.group.value == Lit("local-app")  # a local assigned once
    assert consumer.instance_name.value == Lit("app-worker")
    # A parameter: the client is made once per call of the function (a template, which other modules may call).
    (template,) = facts.templates
    producer = template.client
    assert (template.method, producer.name) == ("app.values.configure", "producer")
    assert producer.group.value == Param(0, "name_from_caller", "app.values.configure")
    assert producer.instance_name.value == Dynamic("hostname", "host")
    assert producer.instance_name.location == span(source, 'producer.set_instance_name(f"p-{socket.gethostname()}")',
                                                   path)


def test_imports_become_constant_references_resolved_against_the_package():
    data = (FIXTURES / "shop/orders/consumer.py").read_bytes()
    facts = parse_python("shop/orders/consumer.py", data)
    assert facts.problems == []
    (consumer,) = facts.clients
    assert consumer.group.value == ConstRef("python", ("shop.settings",), "GROUP")
    topics = [s.topic for s in consumer.subscriptions]
    assert topics == [ConstRef("python", ("shop.settings",), "ORDER_TOPIC")] * 3
    assert consumer.subscriptions[0].expression == ConstRef("python", ("shop.orders.tags",), "PAID")
    assert [listener.kind for listener in consumer.listeners] == ["unknown"] * 3  # the builtin print
    assert facts.constants == {
        "G": ConstRef("python", ("shop.settings",), "GROUP"),
        "ORDER_TOPIC": ConstRef("python", ("shop.settings",), "ORDER_TOPIC"),
        "ALIAS": ConstRef("python", ("shop.settings",), "ORDER_TOPIC"),
        "tags": ConstRef("python", ("shop.orders",), "tags"),
    }


def test_a_settings_module_without_rocketmq_still_exports_its_constants():
    data = (FIXTURES / "shop/settings.py").read_bytes()
    assert not imports_rocketmq(data)
    facts = parse_python("shop/settings.py", data)
    assert facts.clients == [] and facts.problems == []
    assert facts.constants == {"ORDER_TOPIC": Lit("shop-orders"), "GROUP": Lit("shop_orders")}


def test_module_names_from_paths():
    assert module_name("shop/orders/consumer.py") == "shop.orders.consumer"
    assert module_name("shop/__init__.py") == "shop"


def test_relative_import_in_a_package_init():
    facts = parse_python("shop/orders/__init__.py", b"from .tags import PAID\nfrom .. import settings\nX = settings.GROUP\n")
    assert facts.constants["PAID"] == ConstRef("python", ("shop.orders.tags",), "PAID")
    assert facts.constants["X"] == ConstRef("python", ("shop.settings",), "GROUP")


def test_f_string_with_an_imported_part_stays_symbolic():
    facts = parse_python("a.py", b"from conf import BASE\nNAME = f'{BASE}-x'\nBAD = f'{BASE!r}'\n")
    assert facts.constants["NAME"] == Concat((ConstRef("python", ("conf",), "BASE"), Lit("-x")))
    assert isinstance(facts.constants["BAD"], Dynamic)


# --- 5.x ----------------------------------------------------------------------------------------------------------


def test_v5_push_consumer_subscriptions_listener_and_filters():
    facts, source, path = load("v5_clients.py")
    assert facts.problems == []
    push = client_named(facts, "push")
    assert (push.role, push.api, push.group.value) == ("push_consumer", "python5", Lit("order_group"))
    assert push.message_model is None and push.instance_name is None
    subs = [(s.topic, s.expression, s.selector) for s in push.subscriptions]
    assert subs == [(Lit("orders"), Lit("TagA || TagB"), "TAG"), (Lit("audit"), Lit("*"), "TAG"),
                    (Lit("late"), Lit("amount > 10"), "SQL92")]
    assert push.subscriptions[0].location == span(source, 'TOPIC: FilterExpression("TagA || TagB")', path)
    assert push.subscriptions[2].location == span(
        source, 'push.subscribe("late", FilterExpression("amount > 10", FilterType.SQL))', path)
    (listener,) = push.listeners
    assert listener.location.line == span(source, "def consume", path).line
    assert listener.reconsume_later == [span(source, "return ConsumeResult.FAILURE", path)]


def test_v5_simple_consumer_producer_and_message_fields():
    facts, source, path = load("v5_clients.py")
    simple = client_named(facts, "simple")
    assert (simple.role, simple.group.value) == ("simple_consumer", Lit("simple_group"))
    assert [(s.topic, s.expression, s.selector) for s in simple.subscriptions] == [
        (Lit("orders"), Lit("a > 1"), "SQL92"), (Lit("orders"), Lit("*"), "TAG")]
    producer = client_named(facts, "producer")
    assert (producer.role, producer.api, producer.group) == ("producer", "python5", None)
    (produced,) = facts.produced
    assert (produced.topic, produced.tag) == (Lit("orders"), Lit("TagA "))
    assert produced.location == span(source, "msg.tag", path)


# --- suppressions, prefilter, cache round trip --------------------------------------------------------------------


def test_suppression_comments_come_from_the_tokenizer():
    facts, _source, _path = load("suppressed.py")
    assert facts.suppressions == {4: ["RMQ001"], 6: ["RMQ001", "RMQ003"], 8: ["*"], 9: ["RMQ001"]}


def test_prefilter():
    assert imports_rocketmq(b"from rocketmq.client import PushConsumer")
    assert not imports_rocketmq(b"import kafka")


def test_facts_survive_the_json_cache():
    for name in ("broadcast_retry.py", "v5_clients.py", "values.py"):
        facts, _source, _path = load(name)
        assert facts_from_json(facts_to_json(facts)) == facts


def test_unrelated_objects_are_not_clients():
    facts = parse_python("a.py", b"import rocketmq\nclass PushConsumer: pass\nc = PushConsumer()\nc.set_instance_name('x')\n")
    assert facts.clients == []
    facts = parse_python("b.py", b"from rocketmq.client import PushConsumer\ndef f(c):\n    c.set_instance_name('x')\n")
    assert facts.clients == []


@pytest.mark.parametrize("module", ["rocketmq.client", "rocketmq"])
def test_star_import(module):
    facts = parse_python("a.py", f"from {module} import *\nc = PushConsumer('g')\n".encode())
    (client,) = facts.clients
    assert client.api == ("python2" if module == "rocketmq.client" else "python5")


# --- bad input: one clear problem, never an exception ----------------------------------------------------------


def only_problem(facts: FileFacts) -> tuple[str, int, int]:
    assert facts.clients == [] and facts.produced == []
    (problem,) = facts.problems
    assert problem.location.path == facts.path
    return problem.message, problem.location.line, problem.location.column


def test_syntax_error_has_its_position():
    message, line, column = only_problem(parse_python("bad.py", b"import rocketmq\n\ndef f(:\n    pass\n"))
    assert message.startswith("syntax error") and (line, column) == (3, 7)


def test_latin1_bytes_are_not_utf8():
    message, line, column = only_problem(parse_python("l.py", 'import rocketmq\nx = "caf\xe9"\n'.encode("latin-1")))
    assert "UTF-8" in message and (line, column) == (2, 9)


def test_binary_file():
    message, line, _column = only_problem(parse_python("b.py", b"rocketmq\n\x89PNG\r\n\x1a\n\x00\x00"))
    assert "binary" in message and line == 4


@pytest.mark.parametrize("source", [
    b"x = " + b"(" * 10000 + b"1" + b")" * 10000 + b"\n",
    b"x = " + b"[" * 10000 + b"]" * 10000 + b"\n",
    b"x = " + b"+".join([b"a"] * 10000) + b"\n",
    b"x = " + b"-" * 10000 + b"1\n",
    b"x = " + b" or ".join([b"a"] * 10000) + b"\n",
    b"x = a" + b".b" * 10000 + b"\n",
    b"x = " + b"'a' " * 10000 + b"\n",
    b"".join(b" " * i + b"if x:\n" for i in range(300)),
], ids=["parens", "lists", "plus", "minus", "or", "attributes", "strings", "indentation"])
def test_ten_thousand_levels_give_one_problem_quickly(source):
    import time

    started = time.perf_counter()
    # The client reads x: the deep statement is one rmqlint must analyse.
    message, _line, _column = only_problem(parse_python(
        "deep.py", b"import rocketmq\n" + source + b"rocketmq.client.PushConsumer(x)\n"))
    assert time.perf_counter() - started < 5
    assert "nested" in message or "concatenated" in message or "indentation" in message


def test_a_deep_statement_that_cannot_hold_facts_does_not_cost_the_file():
    source = b"from rocketmq.client import PushConsumer\nx = " + b" or ".join([b"a"] * 10000) + \
        b"\nc = PushConsumer('g')\nc.set_instance_name('n')\n"
    facts = parse_python("deep.py", source)
    assert facts.problems == [] and facts.clients[0].instance_name.value == Lit("n")


def test_nesting_libcst_cannot_walk_is_a_problem_not_a_crash(monkeypatch):
    # Within the guard's limits but deeper than libcst's recursive walk can go (here: a low recursion limit
    # stands in for a deeper file): RecursionError becomes a Problem, not a crash.
    import sys

    from rmqlint.frontends.python import parse as python

    source = b"from rocketmq.client import PushConsumer\nc = PushConsumer(" + b"f(" * 60 + b"'g'" + b")" * 60 + b")\n"
    assert len(parse_python("calls.py", source).clients) == 1
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    monkeypatch.setattr(python, "RECURSION_LIMIT", 0)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 120)
    try:
        facts = parse_python("calls.py", source)
    finally:
        sys.setrecursionlimit(old)
    message, line, column = only_problem(facts)
    assert message == "code nested too deeply to analyse" and (line, column) == (1, 1)
    assert sys.getrecursionlimit() == old


def test_long_elif_chains_are_analysed():
    branches = b"".join(b"    elif x == %d:\n        return %d\n" % (i, i) for i in range(1, 400))
    source = (b"from rocketmq.client import PushConsumer\nc = PushConsumer('g')\n"
              b"def f(x):\n    if x == 0:\n        return 0\n" + branches)
    facts = parse_python("elif.py", source)
    assert facts.problems == [] and facts.clients[0].group.value == Lit("g")


def test_empty_and_bom_files():
    assert parse_python("e.py", b"") == FileFacts(path="e.py", language="python")
    facts = parse_python("bom.py", b"\xef\xbb\xbffrom rocketmq.client import Producer\np = Producer('g')\n")
    assert facts.problems == [] and facts.clients[0].group.value == Lit("g")


def test_status_variable_assigned_in_branches():
    facts, source, path = load("receivers.py")
    (listener,) = client_named_group(facts, "branch_group").listeners
    assert listener.location.line == span(source, "def branches", path).line
    assert listener.reconsume_later == [span(source, "return status", path, occurrence=2)]


def client_named_group(facts: FileFacts, group: str) -> ClientFact:
    (client,) = [c for c in facts.clients if c.group is not None and c.group.value == Lit(group)]
    return client


def test_imported_constants_resolve_through_the_linker():
    from rmqlint.linker import Linker

    files = {}
    for rel in ("shop/__init__.py", "shop/settings.py", "shop/orders/__init__.py", "shop/orders/tags.py",
                "shop/orders/consumer.py"):
        files[rel] = parse_python(rel, (FIXTURES / rel).read_bytes())
    project = Linker(files).link()
    ((_facts, consumer),) = list(project.clients())
    assert consumer.group.value == Lit("shop_orders")
    assert [(s.topic, s.expression) for s in consumer.subscriptions] == [
        (Lit("shop-orders"), Lit("OrderPaid")), (Lit("shop-orders"), Lit("*")), (Lit("shop-orders"), Lit("*"))]


def test_v5_lite_push_consumer_signature():
    source = (b"from rocketmq import LitePushConsumer, MessageListener, ConsumeResult\n"
              b"class L(MessageListener):\n    def consume(self, m):\n        return ConsumeResult.FAILURE\n"
              b"c = LitePushConsumer(cfg, 'lite_group', 'bind-topic', L())\n")
    (client,) = parse_python("lite.py", source).clients
    assert (client.role, client.group.value, client.subscriptions) == ("push_consumer", Lit("lite_group"), [])
    (listener,) = client.listeners
    assert [loc.line for loc in listener.reconsume_later] == [4]


def test_v2_message_model_as_the_enum_number():
    source = b"from rocketmq.client import PushConsumer\nc = PushConsumer('g', False, 0)\nd = PushConsumer('h')\nd.set_message_model(1)\n"
    c, d = parse_python("m.py", source).clients
    assert (c.message_model.value, d.message_model.value) == (Lit("BROADCASTING"), Lit("CLUSTERING"))
    assert d.message_model.location.line == 4


def test_class_attribute_clients_and_aliases_share_their_settings():
    facts, _source, _path = load("receivers.py")
    assert client_named_group(facts, "class_attribute_group").instance_name.value == Lit("shared-name")
    assert client_named_group(facts, "aliased_group").instance_name.value == Lit("aliased-name")


def test_v5_listener_method_inherited_from_a_local_base_class():
    source = (b"from rocketmq import PushConsumer, MessageListener, ConsumeResult\n"
              b"class Base(MessageListener):\n    def consume(self, m):\n        return ConsumeResult.FAILURE\n"
              b"class Orders(Base):\n    pass\n"
              b"c = PushConsumer(cfg, 'g', Orders(), {})\n")
    (client,) = parse_python("inherit.py", source).clients
    (listener,) = client.listeners
    assert listener.location.line == 3 and [loc.line for loc in listener.reconsume_later] == [4]


def test_v2_pull_consumer_and_transaction_producer():
    source = (b"from rocketmq.client import PullConsumer, TransactionMQProducer\n"
              b"pc = PullConsumer('pull_group')\n"
              b"for msg in pc.pull('PullTopic', expression='TagA'):\n    print(msg)\n"
              b"tp = TransactionMQProducer('tx_group', check)\n"
              b"tp.set_instance_name('tx-node')\n")
    pull, producer = parse_python("pull.py", source).clients
    assert (pull.role, pull.group.value) == ("pull_consumer", Lit("pull_group"))
    (subscription,) = pull.subscriptions
    assert (subscription.topic, subscription.expression, subscription.location.line) == (
        Lit("PullTopic"), Lit("TagA"), 3)
    assert (producer.role, producer.group.value, producer.instance_name.value) == (
        "producer", Lit("tx_group"), Lit("tx-node"))


def test_clients_returned_by_factories_and_configured_by_helpers():
    facts, source, path = load("receivers.py")
    client = client_named_group(facts, "factory_group")
    assert client.message_model.value == Lit("BROADCASTING")
    # The helper's parameter: not the maker's, so nothing that makes the client binds it.
    assert client.instance_name.value == Param(1, "name", "app.receivers.configure")
    assert client.instance_name.location == span(source, "target.set_instance_name(name)", path)
    (subscription,) = client.subscriptions
    assert subscription.topic == Lit("HelperTopic")
    assert [listener.reconsume_later for listener in client.listeners] == [
        [span(source, "return status", path, occurrence=2)]]


def test_a_helper_configures_every_client_passed_to_it():
    facts, source, path = load("receivers.py")
    for group in ("first_group", "second_group"):
        client = client_named_group(facts, group)
        assert client.instance_name.location == span(source, "target.set_instance_name(name)", path)
        assert [s.topic for s in client.subscriptions] == [Lit("HelperTopic")]


def test_nonlocal_receivers_and_chained_calls():
    source = (b"from rocketmq.client import PushConsumer, Message\n"
              b"def outer():\n    c = PushConsumer('outer_group')\n"
              b"    def inner():\n        nonlocal c\n        c.set_instance_name('inner-name')\n    inner()\n"
              b"PushConsumer('chained_group').subscribe('ChainTopic', print, 'TagC')\n"
              b"Message('MsgTopic').set_tags('TagM')\n")
    facts = parse_python("chain.py", source)
    assert client_named_group(facts, "outer_group").instance_name.value == Lit("inner-name")
    chained = client_named_group(facts, "chained_group")
    assert [(s.topic, s.expression) for s in chained.subscriptions] == [(Lit("ChainTopic"), Lit("TagC"))]
    (produced,) = facts.produced
    assert (produced.topic, produced.tag, produced.location.line) == (Lit("MsgTopic"), Lit("TagM"), 9)


@pytest.mark.parametrize("source, expected", [
    ("import uuid\n", {"uuid": len("import uuid")}),
    ("import uuid.x, os as o\n", {"uuid": len("import uuid.x, os as o"), "o": -1}),
    ("import uuid\nuuid = 1\n", {"uuid": -1}),
    ("try:\n    import uuid\nexcept ImportError:\n    pass\n", {"uuid": -1}),
    ("from m import uuid\n", {"uuid": -1}),
    ("def f():\n    global uuid\n    uuid = 1\n", {"f": -1, "uuid": -1}),
    ("if (uuid := 1):\n    pass\n", {"uuid": -1}),
    ("for uuid, (a, *b) in x:\n    pass\n", {"uuid": -1, "a": -1, "b": -1}),
    ("class uuid:\n    inner = 1\n", {"uuid": -1}),
    ("from os import *\n", {"*": -1}),
    ("from rocketmq.client import *\n", {}),
])
def test_module_names_say_where_a_plain_import_binds_a_name(source, expected):
    # What a fix may write as `uuid.x`: a name bound only by `import uuid`, from where that import ends.
    facts = parse_python("m.py", ("from rocketmq.client import PushConsumer\n" + source).encode())
    names = {k: v - len("from rocketmq.client import PushConsumer\n") if v >= 0 else v
             for k, v in facts.module_names.items() if k != "PushConsumer"}
    assert names == expected

"""The Java frontend on fixtures: exact facts (values, roles, locations) for each construct it understands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rmqlint.facts import ClientFact, FileFacts, facts_from_json, facts_to_json
from rmqlint.frontends.java import clients as java_clients
from rmqlint.frontends.java.prefilter import may_use_clients as mentions_rocketmq
from rmqlint.frontends.java.parse import parse_java
from rmqlint.values import Concat, ConstRef, Dynamic, Lit, Param, Placeholder
from tests.lint.spans import span

FIXTURES = Path(__file__).parent / "fixtures" / "java"


def load(name: str) -> tuple[FileFacts, str]:
    data = (FIXTURES / name).read_bytes()
    return parse_java(f"src/{name}", data), data.decode("utf-8")


def client_named(facts: FileFacts, name: str) -> ClientFact:
    (client,) = [c for c in facts.clients if c.name == name]
    return client


# --- the three incidents ------------------------------------------------------------------------------------


def test_fixed_instance_name_push_consumer_with_fixed_instance_name():
    facts, source = load("FixedNameConsumer.java")
    path = "src/FixedNameConsumer.java"
    assert facts.problems == []
    assert facts.package == "org.example.instancename"
    assert facts.classes == ["Consumer"]
    (consumer,) = facts.clients
    assert (consumer.role, consumer.api, consumer.name) == ("push_consumer", "java", "consumer")
    assert consumer.location == span(source, 'new DefaultMQPushConsumer("consumer_group")', path)
    assert consumer.group.value == Lit("consumer_group")
    assert consumer.group.location == span(source, '"consumer_group"', path)
    assert consumer.instance_name.value == Lit("XUJIAN_MACBOOK")
    assert consumer.instance_name.location == span(source, 'consumer.setInstanceName("XUJIAN_MACBOOK")', path)
    assert consumer.message_model is None  # clustering by default
    (subscription,) = consumer.subscriptions
    assert (subscription.topic, subscription.expression, subscription.selector) == (Lit("TopicTest"), Lit("*"), "TAG")
    assert subscription.location == span(source, 'consumer.subscribe("TopicTest", "*")', path)
    (listener,) = consumer.listeners
    assert listener.kind == "concurrently"
    assert listener.reconsume_later == [] and listener.throws == []
    assert listener.location.line == source[: source.index("new MessageListenerConcurrently")].count("\n") + 1


def test_tag_case_drift_producer_tag_and_consumer_subscription_differ_in_case():
    producer_facts, producer_source = load("TagCaseProducer.java")
    consumer_facts, _ = load("TagCaseConsumer.java")
    (tag,) = producer_facts.produced
    assert (tag.topic, tag.tag, tag.destination) == (Lit("TopicTest"), Lit("aaaaa"), None)
    assert tag.location == span(producer_source, 'new Message("TopicTest", "aaaaa", "hello".getBytes())',
                                "src/TagCaseProducer.java")
    (producer,) = producer_facts.clients
    assert (producer.role, producer.group.value) == ("producer", Lit("tagcase_producer"))
    (consumer,) = consumer_facts.clients
    assert [(s.topic, s.expression) for s in consumer.subscriptions] == [(Lit("TopicTest"), Lit("Aaaaa"))]
    assert [l.kind for l in consumer.listeners] == ["concurrently"]  # a lambda cast to the listener type


def test_broadcasting_retry_broadcasting_consumer_returning_reconsume_later_in_catch():
    facts, source = load("BroadcastRetryConsumer.java")
    path = "src/BroadcastRetryConsumer.java"
    (consumer,) = facts.clients
    assert consumer.message_model.value == Lit("BROADCASTING")
    assert consumer.message_model.location == span(source, "consumer.setMessageModel(MessageModel.BROADCASTING)", path)
    assert consumer.max_reconsume_times.value == Lit("3")
    assert consumer.delay_level.value == Lit("2")
    assert consumer.delay_level.location == span(source, "context.setDelayLevelWhenNextConsume(2)", path)
    (listener,) = consumer.listeners
    assert listener.kind == "concurrently"
    # Only the listener's own return: the RECONSUME_LATER inside the nested Runnable is not the listener's.
    assert listener.reconsume_later == [span(source, "return ConsumeConcurrentlyStatus.RECONSUME_LATER;", path)]


# --- clients across methods, constructors, receivers --------------------------------------------------------


def test_field_consumer_configured_across_methods_is_one_client():
    facts, source = load("FieldsAcrossMethods.java")
    path = "src/FieldsAcrossMethods.java"
    assert [c.name for c in facts.clients] == ["other", "consumer"]
    consumer = client_named(facts, "consumer")
    assert consumer.location == span(source, "new DefaultMQPushConsumer(GROUP)", path)
    assert consumer.group.value == Lit("orders_group")  # a constant of the same class
    assert consumer.instance_name.value == ConstRef("java", ("Names",), "INSTANCE")
    assert consumer.instance_name.location == span(source, "this.consumer.setInstanceName(Names.INSTANCE)", path)
    assert consumer.message_model.value == Lit("BROADCASTING")  # a static import of the enum constant
    assert [(s.topic, s.expression, s.selector) for s in consumer.subscriptions] == [
        (Lit("orders"), Lit("a > 5"), "SQL92"),
        (Lit("refunds"), Lit("TagA || TagB"), "TAG"),
        (Lit("all"), Lit("*"), "TAG"),
    ]
    # The consumer handed to tune(c) is not followed: its "guessed" instance name is nobody's.
    assert consumer.instance_name.value != Lit("guessed")
    other = client_named(facts, "other")
    assert other.group.value == Lit("other_group")
    assert isinstance(other.unit_name.value, Dynamic)  # "unit-" + System.getenv(..)


def test_same_variable_names_and_reassigned_clients_are_kept_apart():
    facts, _ = load("SameNames.java")
    summary = [(c.name, c.group.value.text, c.instance_name.value.text if c.instance_name else None,
                [s.topic.text for s in c.subscriptions]) for c in facts.clients]
    assert summary == [
        ("consumer", "first_group", "first", []),  # setters apply to the latest creation before them
        ("consumer", "second_group", "second", []),
        ("consumer", "other_group", None, ["other_topic"]),  # another method's local of the same name
        ("shared", "a_group", None, []),  # a field created in two methods and set in a third: not guessed
        ("shared", "b_group", None, []),
    ]


def test_constructor_forms_pick_the_group_argument():
    facts, source = load("Constructors.java")
    path = "src/Constructors.java"
    roles = {c.name: (c.role, c.group.value if c.group else None) for c in facts.clients}
    assert roles == {
        "withNamespace": ("push_consumer", Lit("push_group")),
        "withHook": ("push_consumer", Lit("hook_group")),
        "noGroup": ("push_consumer", None),
        "lite": ("lite_pull_consumer", Lit("lite_group")),
        "pull": ("pull_consumer", Lit("pull_group")),
        "traced": ("producer", Lit("traced_group")),
        "tx": ("producer", Lit("tx_group")),
        "later": ("producer", Lit("late_group")),
        "unclear": ("producer", Dynamic("cannot tell which constructor argument is the group")),
        "local": ("push_consumer", Lit("enum_local")),
        "elsewhere": ("push_consumer", Lit("enum_elsewhere")),
    }
    # An enum constant through a same-file constant; another class's constant is not taken for an enum name.
    assert client_named(facts, "local").message_model.value == Lit("BROADCASTING")
    assert client_named(facts, "elsewhere").message_model.value == ConstRef("java", ("Config",), "MODEL")
    assert client_named(facts, "later").group.location == span(source, 'later.setProducerGroup("late_group")', path)
    assert client_named(facts, "tx").instance_name.value == Lit("tx-instance")
    (lite_subscription,) = client_named(facts, "lite").subscriptions
    assert (lite_subscription.topic, lite_subscription.expression) == (Lit("lite_topic"), Lit("*"))


# --- listeners ------------------------------------------------------------------------------------------------


def test_listener_forms_lambda_method_reference_this_field_and_class():
    facts, source = load("ListenerForms.java")
    path = "src/ListenerForms.java"
    by_name = {c.name: c for c in facts.clients}

    (ref,) = by_name["byReference"].listeners
    assert ref.kind == "concurrently"
    assert ref.reconsume_later == [span(source, "return msgs.isEmpty() ? ConsumeConcurrentlyStatus.RECONSUME_LATER "
                                                ": ConsumeConcurrentlyStatus.CONSUME_SUCCESS;", path)]

    (this,) = by_name["byThis"].listeners
    assert (this.kind, this.reconsume_later) == ("orderly", [])

    (held,) = by_name["byField"].listeners
    assert held.kind == "concurrently"
    assert held.reconsume_later == [span(source, "return ConsumeConcurrentlyStatus.RECONSUME_LATER;", path)]

    (named,) = by_name["byClass"].listeners
    assert named.kind == "concurrently"
    assert named.reconsume_later == [span(source, "return RECONSUME_LATER;", path, occurrence=2)]
    assert named.throws == [span(source, 'throw new IllegalStateException("batch");', path)]
    assert by_name["byClass"].delay_level.value == Lit("3")

    (typed,) = by_name["byTypedLambda"].listeners
    assert typed.kind == "concurrently"
    assert typed.reconsume_later == [span(source, "return RECONSUME_LATER;", path)]  # via the static import


def test_listener_returning_a_helper_status_is_followed_into_the_helper():
    facts, source = load("DelegatingListener.java")
    path = "src/DelegatingListener.java"
    (listener,) = facts.clients[0].listeners
    # return handle(msgs) -> handle's throw and return retryAll(msgs) -> retryAll's RECONSUME_LATER; the
    # two-parameter overload of handle is not the one called.
    assert listener.reconsume_later == [span(source, "return ConsumeConcurrentlyStatus.RECONSUME_LATER;", path)]
    assert listener.throws == [span(source, 'throw new IllegalArgumentException("empty");', path)]


# --- constants --------------------------------------------------------------------------------------------------


def test_constants_resolved_within_the_file_and_referenced_elsewhere():
    facts, _ = load("Constants.java")
    c = facts.constants
    assert c["Constants.PREFIX"] == Lit("shop")
    assert c["Constants.ORDERS"] == Lit("shop_orders")
    assert c["Constants.TAGS"] == Lit("TagA || TagB")
    assert c["Constants.ESCAPED"] == Lit('tab\there "q" A')
    assert c["Constants.RETRIES"] == Lit("11")
    assert c["Constants.BIG"] == Lit("16")
    assert c["Constants.OTHER_FILE"] == ConstRef("java", ("Topics",), "PAYMENTS")
    assert c["Constants.QUALIFIED"] == ConstRef("java", ("com.acme.Topics",), "REFUNDS")
    assert c["Constants.IMPORTED"] == ConstRef(
        "java", ("com.acme.shared.Groups", "com.acme.shared.Prefixes", "TopicNames", "BaseConfig"), "SHARED_GROUP")
    assert c["Constants.INHERITED"] == ConstRef(
        "java", ("com.acme.shared.Prefixes", "TopicNames", "BaseConfig"), "FROM_SOMEWHERE")
    assert c["Constants.MIXED"] == Concat((Lit("shop_orders-"), ConstRef("java", ("Topics",), "SUFFIX")))
    assert c["Constants.NESTED_REF"] == Lit("shop_orders.inner")
    assert c["Inner.DEEP"] == Lit("shop_orders.inner")
    assert c["Kind.LABEL"] == Lit("kind")
    assert c["TopicNames.AUDIT"] == Lit("audit") and c["TopicNames.COUNT"] == Lit("7")
    for dynamic in ("Constants.HOST", "Constants.PID", "Constants.SELF", "Constants.SELF_LOOP"):
        assert isinstance(c[dynamic], Dynamic), dynamic
    for absent in ("Constants.NOT_A_CONSTANT_TYPE", "Constants.notFinal", "Constants.instanceField"):
        assert absent not in c
    assert facts.classes == ["Constants", "Inner", "Kind", "TopicNames"]


def test_constants_of_a_file_that_does_not_mention_rocketmq():
    data = b'package p;\npublic interface Topics { String ORDERS = "orders"; String ALL = ORDERS + "," + "x"; }\n'
    assert not mentions_rocketmq(data)
    facts = parse_java("p/Topics.java", data)
    assert facts.constants == {"Topics.ORDERS": Lit("orders"), "Topics.ALL": Lit("orders,x")}
    assert facts.clients == [] and facts.problems == []


def test_mentions_rocketmq_prefilter():
    # True wherever parsing could find a client, a Spring listener, a template send or a message...
    assert mentions_rocketmq(b"import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;")
    assert mentions_rocketmq(b"@RocketMQMessageListener(topic = \"t\")")
    assert mentions_rocketmq(b"private RocketMQTemplate template;")
    assert mentions_rocketmq(b"Message m = new  org.apache.rocketmq.common.message.Message(t, g, b);")
    assert mentions_rocketmq(b"provider.newSimpleConsumerBuilder()")
    # ...and False for files that only import RocketMQ packages (most of the RocketMQ source itself): their
    # constants are parsed on demand, and a listener class alone yields no facts.
    assert not mentions_rocketmq(b"package org.apache.rocketmq.broker; import org.apache.rocketmq.common.MixAll;")
    assert not mentions_rocketmq(b"class A implements MessageListenerOrderly { String s = getMessage(); }")
    assert not mentions_rocketmq(b"class A { String s = \"kafka\"; }")


# --- Spring -------------------------------------------------------------------------------------------------------


def test_spring_listener_attributes_placeholders_and_escaping_throws():
    facts, source = load("SpringListeners.java")
    path = "src/SpringListeners.java"
    order = client_named(facts, "OrderListener")
    assert (order.role, order.api) == ("push_consumer", "spring-listener")
    assert order.location.line == 11 and order.location.column == 1
    # Another class's constant in an annotation: Spring reads placeholders in its text (`spring=True`).
    assert order.group.value == ConstRef("java", ("Groups",), "ORDERS", spring=True)
    assert order.group.location == span(source, "consumerGroup = Groups.ORDERS", path)
    assert order.message_model.value == Lit("BROADCASTING")
    assert order.message_model.location == span(source, "messageModel = MessageModel.BROADCASTING", path)
    assert order.consume_mode.value == Lit("ORDERLY")
    assert order.max_reconsume_times.value == Lit("5")
    assert order.delay_level.value == Lit("2")
    assert order.instance_name.value == Lit("fixed-node")
    assert order.instance_name.location == span(source, 'instanceName = "fixed-" + LocalNames.SUFFIX', path)
    (subscription,) = order.subscriptions
    assert subscription.topic == Placeholder("demo.rocketmq.topic", Lit("orders"))
    assert (subscription.expression, subscription.selector) == (Lit("amount > 10"), "SQL92")
    assert subscription.location == span(source, 'selectorExpression = "amount > 10"', path)
    (listener,) = order.listeners
    assert listener.kind == "spring"
    # The caught throw and the one inside the lambda do not escape onMessage.
    assert listener.throws == [span(source, 'throw new RuntimeException("retry me");', path)]

    plain = client_named(facts, "PlainListener")
    # Attributes not written are not set: the client defaults apply.
    assert (plain.message_model, plain.max_reconsume_times, plain.delay_level, plain.instance_name) == (
        None, None, None, None)
    (plain_subscription,) = plain.subscriptions
    assert plain_subscription.topic == Placeholder("plain.topic", None)  # a same-file constant holding ${...}
    assert (plain_subscription.expression, plain_subscription.selector) == (Lit("*"), "TAG")
    assert [l.throws for l in plain.listeners] == [[]]


def test_spring_prepare_start_value_fields_and_locals():
    facts, source = load("SpringConfigured.java")
    path = "src/SpringConfigured.java"
    listener, bean, injected = facts.clients
    assert injected.group.value == Placeholder("mq.group", Lit("fallback"))  # an @Value parameter
    assert (listener.api, bean.api) == ("spring-listener", "java")
    # prepareStart(consumer) runs after the annotation is applied: its setters configure the listener's consumer.
    assert listener.instance_name.value == Placeholder("app.instance", Lit("node-a"))  # an @Value field
    assert listener.instance_name.location == span(source, "consumer.setInstanceName(instance)", path)
    assert listener.max_reconsume_times.value == Lit("4")
    assert bean.instance_name is None and bean.max_reconsume_times is None
    assert bean.group.value == Dynamic("field spel is injected by Spring")  # SpEL is not a placeholder
    (subscription,) = bean.subscriptions
    assert subscription.topic == Lit("bean_topic")  # an effectively final local
    assert subscription.expression == Lit("A || B")  # reassigned: the assignment that reaches the read


def test_spring_v5_listener_annotation():
    facts, source = load("SpringV5Listener.java")
    path = "src/SpringV5Listener.java"
    written, configured = facts.clients
    # the gRPC client's starter: its consumers get messages from a proxy, not by rebalancing
    assert (written.api, configured.api) == ("spring5-listener", "spring5-listener")
    (subscription,) = written.subscriptions
    assert (subscription.topic, subscription.expression, subscription.selector) == (
        Lit("normalTopic"), Lit("TagA || tagB"), "TAG")
    assert subscription.location == span(source, 'tag = "TagA || tagB"', path)
    (listener,) = written.listeners
    assert listener.reconsume_later == [span(source, "return ConsumeResult.FAILURE;", path)]
    # Not written: topic and tag come from the v5 starter's configuration keys.
    (from_config,) = configured.subscriptions
    assert from_config.topic == Placeholder("rocketmq.push-consumer.topic", Lit(""))
    assert from_config.expression == Placeholder("rocketmq.push-consumer.tag", Lit(""))
    assert from_config.selector == "SQL92"
    assert configured.group.value == Placeholder("v5.group", None)


def test_rocketmq_template_destinations():
    facts, source = load("TemplateSends.java")
    path = "src/TemplateSends.java"
    produced = [(p.topic, p.tag, p.destination, p.location.line) for p in facts.produced]
    split = Dynamic("destination is split by the linker")
    line = {text: span(source, text, path).line for text in ('"orders:tagA"', "convertAndSend(DEST", "Tags.CREATED",
                                                             "Destinations.REFUNDS", "Topics.ORDERS",
                                                             '"delayed:later"', '"tx:commit"')}
    assert produced == [
        (Lit("orders"), Lit("tagA"), None, line['"orders:tagA"']),
        (Lit("orders"), Lit("TagA"), None, line["convertAndSend(DEST"]),
        (Lit("orders"), ConstRef("java", ("Tags",), "CREATED"), None, line["Tags.CREATED"]),
        (split, split, ConstRef("java", ("Destinations",), "REFUNDS"), line["Destinations.REFUNDS"]),
        (split, split, Concat((ConstRef("java", ("Topics",), "ORDERS"), Lit(":TagB"))), line["Topics.ORDERS"]),
        (Lit("delayed"), Lit("later"), None, line['"delayed:later"']),
        (Lit("tx"), Lit("commit"), None, line['"tx:commit"']),
    ]  # "orders" without ':' has no tag; kafka.send(..) is not a RocketMQTemplate
    assert facts.produced[0].location == span(source, 'rocketMQTemplate.syncSend("orders:tagA", payload)', path)


def test_message_constructors_set_tags_and_v5_builder():
    facts, source = load("MessageSetters.java")
    path = "src/MessageSetters.java"
    produced = [(p.topic, p.tag) for p in facts.produced]
    assert produced == [
        (Lit("events"), Lit("Created ")),  # setTopic + setTags on a message built empty; not trimmed
        (Lit("events"), Lit("Updated")),
        (Lit("events"), Lit("Deleted")),
        (Lit("events"), Param(1, "dynamicTag", "org.example.messages.MessageSetters.produce/3")),  # each call of the method binds it; the linker, if none does
        (Lit("v5topic"), Lit("v5tag")),
    ]
    assert facts.produced[0].location == span(source, 'built.setTags("Created ")', path)


def test_rocketmq5_consumer_builder_chains():
    facts, source = load("V5Consumers.java")
    path = "src/V5Consumers.java"
    push, simple = facts.clients
    assert (push.role, push.api, push.name) == ("push_consumer", "java5", "pushConsumer")
    assert push.location == span(source, "provider.newPushConsumerBuilder()", path)
    assert push.group.value == Lit("v5_group")
    assert push.group.location == span(source, 'setConsumerGroup("v5_group")', path)
    assert [(s.topic, s.expression, s.selector) for s in push.subscriptions] == [
        (Lit("v5_orders"), Lit("TagA"), "TAG")]
    (listener,) = push.listeners
    assert listener.reconsume_later == [span(source, "return ConsumeResult.FAILURE;", path)]
    assert simple.role == "simple_consumer" and simple.listeners == []
    assert [(s.topic, s.expression, s.selector) for s in simple.subscriptions] == [
        (Lit("a"), Lit("x > 1"), "SQL92"), (Lit("b"), Lit("*"), "TAG")]


def test_suppression_comments():
    facts, _ = load("Suppressed.java")
    assert facts.suppressions == {8: ["RMQ001", "RMQ003"], 10: ["*"], 12: ["RMQ002"]}


def test_facts_round_trip_through_json():
    for name in ("SpringListeners.java", "TemplateSends.java", "ListenerForms.java", "Constants.java"):
        facts, _ = load(name)
        assert facts_from_json(facts_to_json(facts)) == facts


# --- bad input ------------------------------------------------------------------------------------------------------


def test_binary_data_is_a_problem_not_an_exception():
    facts = parse_java("bin/Blob.java", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR rocketmq")
    (problem,) = facts.problems
    assert "binary" in problem.message
    assert (problem.location.path, problem.location.line, problem.location.column) == ("bin/Blob.java", 3, 1)
    assert facts.clients == [] and facts.constants == {}


def test_latin1_bytes_are_decoded_with_replacement_and_still_analysed():
    source = ('// Gr\xfc\xdfe\nclass L { static final String T = "caf\xe9";\n'
              ' void m() { org.apache.rocketmq.client.consumer.DefaultMQPushConsumer c ='
              ' new org.apache.rocketmq.client.consumer.DefaultMQPushConsumer("g\xe9"); c.start(); } }\n')
    facts = parse_java("enc/L.java", source.encode("latin-1"))
    (problem,) = facts.problems
    assert "UTF-8" in problem.message and problem.location.line == 1 and problem.location.column == 6
    assert facts.constants == {"L.T": Lit("caf\ufffd")}
    (client,) = facts.clients
    assert client.group.value == Lit("g\ufffd")


def test_syntax_error_keeps_partial_facts():
    source = (
        "import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n"
        "class Broken {\n"
        "  static final String T = \"topic\";\n"
        "  void a() { DefaultMQPushConsumer c = new DefaultMQPushConsumer(\"g\"); c.setInstanceName(\"i\"); c.start(); }\n"
        "  void b() { int x = ; ) }\n"
        "}\n"
    )
    facts = parse_java("err/Broken.java", source.encode())
    assert len(facts.problems) == 1 and facts.problems[0].message.startswith("syntax error")
    assert facts.problems[0].location.line == 5
    assert facts.constants == {"Broken.T": Lit("topic")}
    (client,) = facts.clients
    assert client.instance_name.value == Lit("i")


def test_ten_thousand_deep_nesting_does_not_hit_the_recursion_limit():
    depth = 10_000
    blocks = ("import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n"
              "class D { void m() { DefaultMQPushConsumer c = new DefaultMQPushConsumer(\"g\");"
              + "{" * depth + 'c.setInstanceName("deep");' + "}" * depth + "c.start(); } }")
    facts = parse_java("deep/D.java", blocks.encode())
    assert facts.problems == []
    assert facts.clients[0].instance_name.value == Lit("deep")

    parens = "class P { static final String X = " + "(" * depth + '"a"' + ")" * depth + "; }"
    assert parse_java("deep/P.java", parens.encode()).constants["P.X"] == Lit("a")  # parentheses change nothing

    casts = "class R { static final String X = " + "(String) (" * depth + '"a"' + ")" * depth + "; }"
    facts = parse_java("deep/R.java", casts.encode())
    assert facts.constants["R.X"] == Dynamic("expression nested more than 100 levels deep")  # reported where used

    chain = "class Q { static final String X = " + " + ".join(['"a"'] * depth) + "; }"
    assert parse_java("deep/Q.java", chain.encode()).constants["Q.X"] == Lit("a" * depth)

    classes = "".join(f'class C{i} {{ static final String X = "v{i}"; ' for i in range(depth)) + "}" * depth
    constants = parse_java("deep/C.java", classes.encode()).constants
    assert len(constants) == depth and constants["C9999.X"] == Lit("v9999")


def test_five_megabyte_file():
    filler = "x" * 1_000
    member = '    static final String K{0} = "{0}-' + filler + '";\n    void m{0}() {{ System.out.println(K{0}); }}\n'
    body = "".join(member.format(i) for i in range(5_000))
    source = ("import org.apache.rocketmq.common.message.Message;\nclass Big {\n" + body
              + '    void send() { Message m = new Message("big", "tag", null); }\n}\n').encode()
    assert len(source) > 5_000_000
    facts = parse_java("big/Big.java", source)
    assert facts.problems == []
    assert len(facts.constants) == 5_000 and facts.constants["Big.K4999"] == Lit("4999-" + filler)
    assert [(p.topic, p.tag) for p in facts.produced] == [(Lit("big"), Lit("tag"))]
    assert facts.produced[0].location.line == 2 + 2 * 5_000 + 1


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b"}}}}{{{{", b"class", "ß".encode() * 3, b"\xff" * 10])
def test_odd_inputs_never_raise(data):
    facts = parse_java("odd/X.java", data)
    assert facts.language == "java"
    assert all(p.location.path == "odd/X.java" for p in facts.problems)


_NAMES = sorted(java_clients._TYPE_NAMES | java_clients._METHOD_NAMES | {java_clients.SPRING_LISTENER})
_FLAT_NAMES = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in _NAMES) + rb")\b")


@given(st.lists(st.one_of(st.sampled_from(_NAMES), st.sampled_from(["", " ", ".", "_", "x", "1", "(", "\n", "é"]),
                          st.text(alphabet="sendMQaglT_1 .", max_size=6)), max_size=30).map("".join))
def test_usage_names_search_finds_what_the_flat_list_of_names_finds(text):
    # The byte search that picks where the usage query runs is a prefix tree of the names: the same occurrences
    # as the alternation of the names, including prefixes of one another (send, sendAndReceive, setTag, setTags).
    data = text.encode()
    assert [m.span() for m in java_clients._USAGE_NAMES.finditer(data)] == \
        [m.span() for m in _FLAT_NAMES.finditer(data)]

"""Values that are one of several (`OneOf`): built by both frontends from conditionals and from locals assigned in
branches, carried through the linker and the cache, and read by the rules alternative by alternative."""

from __future__ import annotations

import pytest

from rmqlint.engine import lint_sources
from rmqlint.facts import facts_from_json, facts_to_json
from rmqlint.frontends.java.parse import parse_java
from rmqlint.frontends.python.parse import parse_python
from rmqlint.values import (MAX_ALTERNATIVES, ConstRef, Dynamic, Lit, OneOf, Param, concat, from_json, known_texts,
                            literal_texts, one_of, to_json)

# --- the value type --------------------------------------------------------------------------------------------


def test_one_of_flattens_deduplicates_and_keeps_source_order():
    assert one_of([Lit("a"), OneOf((Lit("b"), Lit("a"))), Lit("c")]) == OneOf((Lit("a"), Lit("b"), Lit("c")))
    assert one_of([Lit("a"), Lit("a")]) == Lit("a")
    assert one_of([Dynamic("x"), Lit("a"), Dynamic("y")]) == OneOf((Dynamic("x"), Lit("a")))
    assert one_of(Lit(str(i)) for i in range(MAX_ALTERNATIVES + 1)) == Dynamic(
        f"one of more than {MAX_ALTERNATIVES} values")


def test_concatenation_distributes_over_alternatives():
    assert concat([Lit("order-"), OneOf((Lit("a"), Lit("b")))]) == OneOf((Lit("order-a"), Lit("order-b")))
    assert concat([OneOf((Lit("a"), Dynamic("env"))), Lit("-x")]) == OneOf((Lit("a-x"), Dynamic("env")))
    assert concat([OneOf((Lit("a"), Lit("b"))), Dynamic("env")]) == Dynamic("env")
    ref = ConstRef("java", ("T",), "X")
    assert concat([OneOf((Lit("a"), ref)), Lit("!")]).alternatives[0] == Lit("a!")


def test_texts_of_a_value():
    assert literal_texts(OneOf((Lit("a"), Lit("b")))) == ["a", "b"]
    assert literal_texts(OneOf((Lit("a"), Dynamic("env")))) is None
    assert known_texts(OneOf((Lit("a"), Dynamic("env")))) == ["a"]
    assert literal_texts(Lit("a")) == ["a"] and known_texts(Dynamic("x")) == []


def test_json_round_trip_and_malformed_input():
    value = OneOf((Lit("a"), Dynamic("env"), ConstRef("python", ("m",), "X"), ConstRef("java", ("T",), "Y", True)))
    assert from_json(to_json(value)) == value
    with pytest.raises(TypeError):
        from_json({"k": "ConstRef", "language": "java", "scopes": ["T"], "name": "Y", "spring": "yes"})
    for bad in ({"k": "OneOf", "alternatives": [{"k": "Lit", "text": "a"}]},
                {"k": "OneOf", "alternatives": [to_json(value), {"k": "Lit", "text": "a"}]}):
        with pytest.raises(ValueError):
            from_json(bad)


# --- Java ------------------------------------------------------------------------------------------------------

JAVA = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.message.Message;

class Orders {
    static final String PREFIX = "order-";

    void run(boolean refund, int kind, String input) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(refund ? "refunds" : "orders");
        String tag;
        if (refund) {
            tag = "Refunded";
        } else if (kind > 2) {
            tag = PREFIX + "big";
        } else {
            tag = "Settled";
        }
        new Message("T1", tag, new byte[0]);
        String fallthrough = "unused";
        switch (kind) {
            case 1:
                fallthrough = "one";
            case 2:
                fallthrough = "two";
                break;
            default:
                fallthrough = "other";
        }
        new Message("T2", fallthrough, new byte[0]);
        String arrow = switch (kind) { case 1 -> "p"; case 2 -> { yield "q"; } default -> throw new IllegalStateException(); };
        new Message("T3", arrow, new byte[0]);
        String partly = "known";
        if (input != null) {
            partly = input;
        }
        new Message("T4", partly, new byte[0]);
        String returned = "kept";
        if (refund) {
            returned = "gone";
            return;
        }
        new Message("T5", returned, new byte[0]);
        String looped = "start";
        for (int i = 0; i < kind; i++) {
            new Message("T6", looped, new byte[0]);
            looped = "again";
        }
        String caught = "before";
        try {
            caught = "inside";
            consumer.start();
        } catch (Exception e) {
            new Message("T7", caught, new byte[0]);
        }
        String labelled = "x";
        outer:
        while (refund) {
            labelled = "y";
            break outer;
        }
        new Message("T8", labelled, new byte[0]);
    }
}
"""


def _tags(facts) -> dict[str, object]:
    return {p.topic.text: p.tag for p in facts.produced}


def test_java_conditionals_and_locals_assigned_in_branches():
    facts = parse_java("Orders.java", JAVA.encode())
    assert facts.problems == []
    assert facts.clients[0].group.value == OneOf((Lit("refunds"), Lit("orders")))
    tags = _tags(facts)
    assert tags["T1"] == OneOf((Lit("Refunded"), Lit("order-big"), Lit("Settled")))
    assert tags["T2"] == OneOf((Lit("two"), Lit("other")))  # "one" falls through into "two"
    assert tags["T3"] == OneOf((Lit("p"), Lit("q")))  # a switch expression; the throwing rule gives nothing
    assert tags["T4"] == OneOf((Lit("known"), Param(2, "input", "Orders.run/3")))  # partly the callers', never guessed
    assert tags["T5"] == Lit("kept")  # the branch that assigns "gone" returns
    assert tags["T6"] == OneOf((Lit("start"), Lit("again")))  # the next iteration sees the later assignment
    assert tags["T7"] == OneOf((Lit("before"), Lit("inside")))  # a handler may start before or after it
    assert isinstance(tags["T8"], Dynamic)  # a labelled jump is not modelled


def test_java_facts_with_alternatives_survive_the_cache_codec():
    facts = parse_java("Orders.java", JAVA.encode())
    assert facts_from_json(facts_to_json(facts)) == facts


# --- Python ----------------------------------------------------------------------------------------------------

PYTHON = """\
import os
from rocketmq.client import Message, PushConsumer

if os.getenv("ENV") == "prod":
    GROUP = "orders_prod"
else:
    GROUP = "orders_dev"

NAME = "first"
NAME = "second"


def send(refund, kind, items):
    tag = "Default"
    if refund:
        tag = "Refunded"
    elif kind:
        tag = "Big"
    else:
        tag = "Settled"
    Message("P1").set_tags(tag)
    chosen = "none"
    match kind:
        case 1:
            chosen = "one"
        case _:
            chosen = "other"
    Message("P2").set_tags(chosen)
    found = "missing"
    for item in items:
        if item:
            found = os.getenv("FOUND")
            break
    else:
        found = "empty"
    Message("P3").set_tags(found)
    Message("P4").set_tags("vip" if refund else "normal")
    Message("P5").set_tags(NAME)


consumer = PushConsumer(GROUP)
consumer.set_instance_name(NAME)
"""


def test_python_conditionals_and_names_assigned_in_branches():
    facts = parse_python("orders.py", PYTHON.encode())
    assert facts.problems == []
    tags = _tags(facts)
    assert tags["P1"] == OneOf((Lit("Refunded"), Lit("Big"), Lit("Settled")))  # "Default" never reaches
    assert tags["P2"] == OneOf((Lit("one"), Lit("other")))
    assert tags["P3"] == OneOf((Dynamic("environment variable FOUND"), Lit("empty")))  # the loop's else is not run on break
    assert tags["P4"] == OneOf((Lit("vip"), Lit("normal")))
    # Read from a function, a module name is known only when every assignment may be the one left at the end.
    assert isinstance(tags["P5"], Dynamic)
    (consumer,) = facts.clients
    assert consumer.group.value == OneOf((Lit("orders_prod"), Lit("orders_dev")))
    assert consumer.instance_name.value == Lit("second")  # read at module level, after both assignments
    assert facts.constants["GROUP"] == OneOf((Lit("orders_prod"), Lit("orders_dev")))


def test_a_module_constant_of_several_values_resolves_in_another_module():
    findings = lint_sources({
        "settings.py": 'import os\nif os.getenv("EU"):\n    NAME = "eu-node"\nelse:\n    NAME = "us-node"\n',
        "worker.py": "from rocketmq.client import PushConsumer\nfrom settings import NAME\n\n"
                     "consumer = PushConsumer('g')\nconsumer.set_instance_name(NAME)\n"})
    assert [(f.code, f.location.path, f.location.line) for f in findings] == [("RMQ001", "worker.py", 5)]
    assert '"eu-node" or "us-node"' in findings[0].message


def test_a_destination_of_several_values_keeps_each_topic_with_its_tag():
    java = """\
import org.apache.rocketmq.spring.core.RocketMQTemplate;

class Sender {
    private RocketMQTemplate template;

    void send(boolean refund, String body) {
        template.convertAndSend(refund ? "Pay:Refunded" : "Ship:settled", body);
    }
}
"""
    consumer = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

class Ledger {
    void start() throws Exception {
        DefaultMQPushConsumer pay = new DefaultMQPushConsumer("pay_ledger");
        pay.subscribe("Pay", "refunded || Settled");
        DefaultMQPushConsumer ship = new DefaultMQPushConsumer("ship_ledger");
        ship.subscribe("Ship", "Settled");
        pay.start();
        ship.start();
    }
}
"""
    findings = lint_sources({"Sender.java": java, "Ledger.java": consumer})
    # "Refunded" drifts on Pay and "settled" on Ship; "Settled" on Pay is not a drift of anything sent to Pay.
    assert [(f.location.line, f.message.split(" does not")[0]) for f in findings if f.code == "RMQ002"] == [
        (6, 'subscribed tag "refunded" on topic "Pay"'), (8, 'subscribed tag "Settled" on topic "Ship"')]


def test_what_an_unknown_value_is_unique_per():
    host, pid, run = Dynamic("hostname", "host"), Dynamic("process id", "pid"), Dynamic("random", "process")
    assert concat([Lit("orders-"), host]) == host
    assert concat([Lit("orders-"), host, Lit("-"), pid]) == Dynamic("hostname", "pid")
    assert concat([host, Lit("#"), run]) == Dynamic("hostname", "process")
    # An unknown part may be as distinctive as anything: the whole is not known to be per host.
    assert concat([host, Dynamic("environment variable APP")]) == Dynamic("hostname")
    for value in (host, pid, run, Dynamic("x")):
        assert from_json(to_json(value)) == value
    with pytest.raises(ValueError):
        from_json({"k": "Dynamic", "reason": "x", "per": "galaxy"})

"""RMQ012: a tag produced that no consumer group of the project selects, or a subscribed tag no producer of the
project sends, on a topic whose producers and consumers are both in the project."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from rmqlint.facts import Location
from rmqlint.findings import Finding, Related, message
from rmqlint.project import Project
from rmqlint.text import subscribed_tags as subscription_tags
from rmqlint.values import literal_texts
from rmqlint.rules._consumers import describe_group, is_consumer
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules.base import Example, Rule

_JAVA_PRODUCER = """\
package com.example.orders;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class OrderEvents {
    private final DefaultMQProducer producer = new DefaultMQProducer("orders_producer");

    void created(byte[] body) throws Exception {
        producer.send(new Message("OrderEvents", "Created", body));
    }

    void refunded(byte[] body) throws Exception {
        producer.send(new Message("OrderEvents", "Refunded", body));
    }
}
"""

_JAVA_CONSUMER = """\
package com.example.billing;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class BillingConsumer {
    void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("billing_cg");
        consumer.subscribe("OrderEvents", "Created || Cancelled");
        consumer.start();
    }
}
"""

_JAVA_CONSUMER_ALL = _JAVA_CONSUMER.replace('"Created || Cancelled"', '"Created || Refunded"')

_PY_PRODUCER = """\
from rocketmq.client import Message, Producer

producer = Producer("stock_producer")


def reserve(sku):
    msg = Message("StockEvents")
    msg.set_tags("Reserved")
    producer.send_sync(msg)
"""

_PY_CONSUMER = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_stock(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("warehouse_cg")
consumer.subscribe("StockEvents", on_stock, "Released")
consumer.start()
"""



_GO = go_file("""\
func main() {
	p, _ := rocketmq.NewProducer(producer.WithGroupName("order_producer"))
	msg := primitive.NewMessage("OrderTopic", []byte("{}"))
	msg.WithTag("Shipped")
	_, _ = p.SendSync(context.Background(), msg)

	c, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("notify_consumer"))
	_ = c.Subscribe("OrderTopic", consumer.MessageSelector{Expression: "Paid"},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}
""")
_GO_OK = _GO.replace('Expression: "Paid"', 'Expression: "Shipped"')


class UnmatchedTag(Rule):
    CODE = "RMQ012"
    NAME = "unmatched-tag"
    SEVERITY = "info"
    SUMMARY = "A tag is produced that no consumer group of the project selects, or subscribed but never produced"
    DOCS = """\
## What it does
On a topic that has both producers and consumers in the project, reports a tag that producers send but no
consumer group's subscription selects (a group subscribing `*` selects every tag), and a subscribed tag that no
producer sends. Only when every tag involved is known: a tag that comes from configuration at run time, or from
another repository, keeps the rule quiet. A tag that differs only in case or spaces is RMQ002's, not this rule's.

## Why is this bad?
RocketMQ filters by tag on the broker and again in the client. A message whose tag no group selects is stored and
never consumed by this project; a subscription to a tag nobody sends waits forever. Either can be intended (another
system consumes the tag, a producer is still to come), which is why this is a note, not an error; but it is often
a renamed tag on one side only, or a subscription left behind by a refactoring.

## Example
```java
producer.send(new Message("OrderEvents", "Refunded", body));   // no group selects Refunded
consumer.subscribe("OrderEvents", "Created || Cancelled");     // no producer sends Cancelled
```

## Fix
Subscribe to the tags the producers send (or stop sending a tag nobody needs), and remove subscriptions to tags
that no longer exist. `rmqlint graph` shows who sends and selects what.
"""
    INVALID = [
        Example({"orders/src/main/java/com/example/orders/OrderEvents.java": _JAVA_PRODUCER,
                 "billing/src/main/java/com/example/billing/BillingConsumer.java": _JAVA_CONSUMER},
                expect=(("orders/src/main/java/com/example/orders/OrderEvents.java",
                         line_of(_JAVA_PRODUCER, '"Refunded"')),
                        ("billing/src/main/java/com/example/billing/BillingConsumer.java",
                         line_of(_JAVA_CONSUMER, "consumer.subscribe"))),
                note="Refunded is sent but not selected; Cancelled is selected but never sent"),
        Example({"stock/producer.py": _PY_PRODUCER, "warehouse/consumer.py": _PY_CONSUMER},
                expect=(("stock/producer.py", line_of(_PY_PRODUCER, "set_tags")),
                        ("warehouse/consumer.py", line_of(_PY_CONSUMER, "consumer.subscribe"))),
                note="Reserved is sent but not selected; Released is selected but never sent"),
        Example(
            {"orders/main.go": _GO},
            expect=(("orders/main.go", line_of(_GO, 'msg.WithTag("Shipped")')),
                    ("orders/main.go", line_of(_GO, "c.Subscribe"))),
            note="Go: the tag sent and the tag subscribed differ",
        ),
    ]
    VALID = [
        Example({"orders/src/main/java/com/example/orders/OrderEvents.java": _JAVA_PRODUCER,
                 "billing/src/main/java/com/example/billing/BillingConsumer.java": _JAVA_CONSUMER_ALL},
                note="every tag sent is selected, every tag selected is sent"),
        Example({"stock/producer.py": _PY_PRODUCER,
                 "warehouse/consumer.py": _PY_CONSUMER.replace('"Released"', '"*"')},
                note="a group subscribing every tag"),
        Example({"warehouse/consumer.py": _PY_CONSUMER,
                 "stock/producer.py": _PY_PRODUCER.replace('msg.set_tags("Reserved")',
                                                           'msg.set_tags(sku.tag)')},
                note="a tag only known at run time: quiet"),
        Example({"orders/main.go": _GO_OK}, note="Go: the tag sent is the one subscribed"),
    ]

    def looks_at(self, project: Project) -> bool:
        return any(c.subscriptions for _f, c in project.clients() if is_consumer(c)) \
            and any(True for _ in project.produced())

    def check(self, project: Project) -> Iterable[Finding]:
        sent: dict[str, dict[str, list[Location]]] = defaultdict(lambda: defaultdict(list))
        unknown_sent: set[str] = set()
        # A value that is one of several literals (`refund ? "Refunded" : "Settled"`) may be any of them; one with
        # an alternative not known leaves its topic unknown.
        for _facts, item in project.produced():
            topics = literal_texts(item.topic)
            if topics is None:
                continue
            tags = literal_texts(item.tag)
            for topic in topics:
                if tags is None:
                    unknown_sent.add(topic)
                for tag in tags or ():
                    sent[topic][tag].append(item.location)

        selected: dict[str, list[tuple[object, set[str] | None, Location]]] = defaultdict(list)
        unknown_selected: set[str] = set()
        for _facts, client in project.clients():
            if not is_consumer(client):
                continue
            for sub in client.subscriptions:
                topics = literal_texts(sub.topic)
                expressions = literal_texts(sub.expression) if sub.selector == "TAG" else None
                for topic in topics or ():
                    if expressions is None:
                        unknown_selected.add(topic)
                    for expression in expressions or ():
                        selected[topic].append((client, subscription_tags(expression), sub.location))

        for topic in sorted(set(sent) & set(selected)):
            if topic in unknown_sent or topic in unknown_selected:
                continue  # a tag not known here could be the one that matches
            subscriptions = selected[topic]
            if any(tags is None for _c, tags, _l in subscriptions):
                selected_tags = None
            else:
                selected_tags = set().union(*(tags for _c, tags, _l in subscriptions))
            sent_tags = {tag for tag in sent[topic] if tag.strip()}
            if selected_tags is not None:
                for tag in sorted(sent_tags - selected_tags):
                    if _drift(tag, selected_tags):
                        continue
                    related = [Related(loc, f'subscribes to topic "{topic}"') for _c, _t, loc in subscriptions]
                    for location in sorted(sent[topic][tag], key=lambda loc: (loc.path, loc.line, loc.column)):
                        yield self.finding(message(f'tag "{tag}" is sent on topic "{topic}" but no consumer '
                                                   "group of this project selects it: those messages are stored "
                                                   "and never consumed here"), location, related)
            senders: list[Related] = []  # the same for every subscription of the topic: built once
            for client, tags, location in subscriptions:
                for tag in sorted((tags or set()) - sent_tags):
                    if _drift(tag, sent_tags):
                        continue
                    if not senders:
                        senders = [Related(loc, f'sends tag "{t}" on topic "{topic}"')
                                   for t in sorted(sent_tags) for loc in sent[topic][t]]
                    related = senders
                    yield self.finding(message(f'{describe_group(client)} subscribes to tag "{tag}" on topic '
                                               f'"{topic}", but no producer of this project sends it'),
                                       location, related)


def _drift(tag: str, others: set[str]) -> bool:
    """Equal to one of `others` but for case and surrounding space: RMQ002 reports it."""
    key = tag.strip().lower()
    return any(other.strip().lower() == key for other in others)

"""RMQ004: one consumer group registered in two places with different subscriptions."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from rmqlint.facts import ClientFact, Location
from rmqlint.findings import Finding, Related, message
from rmqlint.project import Project
from rmqlint.topology import subscription_tags
from rmqlint.rules._consumers import BROADCASTING, CLUSTERING, GRPC_APIS, message_model
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._known import fully_known
from rmqlint.rules.base import Example, Rule

# Consumers whose subscriptions the broker keeps per group from their heartbeats, and whose queues the client
# splits among the group's members: remoting push and lite pull consumers. A plain pull consumer picks its own
# queues; the gRPC clients get messages from a proxy that filters each request by its own expression.
SUBSCRIBING_ROLES = frozenset({"push_consumer", "lite_pull_consumer"})
# Spring Boot's configured lite pull consumer exists only on some starter releases (`rocketmq.consumer.*` up to
# 2.2.2, `rocketmq.pull-consumer.*` from 2.2.3) and only with `rocketmq.name-server` set: not compared.
_UNCERTAIN_APIS = GRPC_APIS | {"spring-config"}


@dataclass(frozen=True)
class Selection:
    """What one subscription selects on its topic, compared as the broker filters: a TAG expression by its set of
    tags (order, spaces and empty parts do not matter), `*` as everything, SQL92 by its text."""

    selector: str
    tags: frozenset | None  # TAG: the tags, None for every tag
    sql: str = ""

    def describe(self) -> str:
        if self.selector == "SQL92":
            return f'SQL92 "{self.sql}"'
        return '"*"' if self.tags is None else '"' + " || ".join(sorted(self.tags)) + '"'


@dataclass
class Registration:
    client: ClientFact
    group: str
    selections: dict[str, Selection]  # topic -> what is selected on it
    where: dict[str, Location]  # topic -> the subscription's place

    @property
    def location(self) -> Location:
        return self.client.location


def registration(client: ClientFact) -> Registration | None:
    """The client's group and complete subscription, when every part of them is known exactly."""
    if client.role not in SUBSCRIBING_ROLES or client.api in _UNCERTAIN_APIS or client.group is None:
        return None
    groups = fully_known(client.group.value)
    if groups is None or len(groups) != 1 or not groups[0].strip() or not client.subscriptions:
        return None
    selections: dict[str, Selection] = {}
    where: dict[str, Location] = {}
    for subscription in client.subscriptions:
        topics = fully_known(subscription.topic)
        expressions = fully_known(subscription.expression)
        if topics is None or expressions is None or len(topics) != 1 or len(expressions) != 1:
            return None  # one unknown part: the whole subscription is unknown
        expression = expressions[0]
        if subscription.selector == "SQL92":
            selection = Selection("SQL92", None, " ".join(expression.split()))
        else:
            tags = subscription_tags(expression)
            selection = Selection("TAG", frozenset(tags) if tags is not None else None)
        # A later subscribe() to the same topic replaces the earlier one in the client.
        selections[topics[0]] = selection
        where[topics[0]] = subscription.location
    return Registration(client, groups[0], selections, where)


def _topics(topics) -> str:
    names = sorted(topics)
    shown = ", ".join(f'"{t}"' for t in names)
    return ("topic " if len(names) == 1 else "topics ") + shown


_SPRING_ORDER_LISTENER = """\
package com.example.shop;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "shop_consumer")
public class OrderListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_STOCK_LISTENER = """\
package com.example.shop;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "StockTopic", consumerGroup = "shop_consumer")
public class StockListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_JAVA_CONSTANTS = """\
package com.example.billing;

public interface Mq {
    String GROUP = "billing_consumer";
    String TOPIC = "PayTopic";
}
"""

_JAVA_PAID = """\
package com.example.billing;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class PaidConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(Mq.GROUP);
        consumer.subscribe(Mq.TOPIC, "Paid || Refunded");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_PYTHON_BILLING = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_paid(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("billing_consumer")
consumer.subscribe("PayTopic", on_paid, "Paid")
consumer.start()
"""

_JAVA_REPORT_CONSUMER = """\
package com.example.report;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class ReportArchiver {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("report_consumer");
        consumer.subscribe("ReportTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_REPORT_LISTENER = """\
package com.example.report;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "ReportTopic", consumerGroup = "report_consumer", selectorExpression = "Daily")
public class DailyReportListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

# --- near misses that must stay quiet ---

_JAVA_SAME = """\
package com.example.billing;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class BillingWorkers {
    public void start() throws Exception {
        DefaultMQPushConsumer first = new DefaultMQPushConsumer("billing_consumer");
        first.subscribe("PayTopic", "Paid || Refunded");
        first.subscribe("AuditTopic", MessageSelector.bySql("amount > 100"));
        first.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        first.start();

        DefaultMQPushConsumer second = new DefaultMQPushConsumer("billing_consumer");
        second.subscribe("AuditTopic", MessageSelector.bySql("amount  >  100"));
        second.subscribe("PayTopic", "Refunded||Paid||");
        second.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        second.start();

        DefaultMQProducer producer = new DefaultMQProducer("billing_consumer");
        producer.start();

        DefaultMQPushConsumer dynamic = new DefaultMQPushConsumer("billing_consumer");
        dynamic.subscribe(System.getenv("EXTRA_TOPIC"), "*");
        dynamic.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        dynamic.start();
    }
}
"""

_SPRING_OTHER_GROUP = _SPRING_STOCK_LISTENER.replace('"shop_consumer"', '"stock_consumer"')

_PYTHON_SAME = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_paid(msg):
    return ConsumeStatus.CONSUME_SUCCESS


first = PushConsumer("billing_consumer")
first.subscribe("PayTopic", on_paid, "Paid || Refunded")
first.start()

second = PushConsumer("billing_consumer")
second.subscribe("PayTopic", on_paid, "Refunded || Paid")
second.start()
"""



_GO_SHOP = go_file("""\
func main() {
	c, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("shop_consumer"))
	_ = c.Subscribe("OrderTopic", consumer.MessageSelector{Expression: "Paid"},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}
""")
_GO_SHOP_SAME = _GO_SHOP.replace('"OrderTopic", consumer.MessageSelector{Expression: "Paid"}',
                                 '"StockTopic", consumer.MessageSelector{}')


_JAVA_MIXED_MODELS = """\
package com.example.shop;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class ShopConsumers {
    public void start() throws Exception {
        DefaultMQPushConsumer workers = new DefaultMQPushConsumer("shop_consumer");
        workers.subscribe("OrderTopic", "Paid");
        workers.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        workers.start();

        DefaultMQPushConsumer cache = new DefaultMQPushConsumer("shop_consumer");
        cache.setMessageModel(MessageModel.BROADCASTING);
        cache.subscribe("OrderTopic", "*");
        cache.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        cache.start();
    }
}
"""

_PYTHON_MIXED_MODELS = """\
from rocketmq.client import ConsumeStatus, MessageModel, PushConsumer


def on_order(msg):
    return ConsumeStatus.CONSUME_SUCCESS


workers = PushConsumer("order_consumer")
workers.subscribe("OrderTopic", on_order, "Paid")
workers.start()

cache = PushConsumer("order_consumer")
cache.set_message_model(MessageModel.BROADCASTING)
cache.subscribe("OrderTopic", on_order, "*")
cache.start()
"""


class GroupSubscriptionMismatch(Rule):
    CODE = "RMQ004"
    NAME = "group-subscription-mismatch"
    SEVERITY = "error"
    SUMMARY = "One consumer group is registered in two places with different subscriptions"
    DOCS = """\
## What it does
Collects every consumer that registers a subscription with the broker (push and lite pull consumers in Java,
Spring `@RocketMQMessageListener`s, Python 2.x `PushConsumer`s) across the
whole project, whatever file, module or language, and groups them by consumer group. Where two of them subscribe
to a different set of topics, or to one topic with a different expression, it reports each later registration
and cites the first. Two `@RocketMQMessageListener`s sharing one `consumerGroup` with different topics are the
usual case.

Expressions are compared as the broker filters: `"A || B"` and `"B||A"` select the same tags. Producer groups are
another namespace and are never compared with consumer groups. Consumers whose group or subscriptions are not
known exactly are left out, as are the gRPC (5.x) clients, which get messages from a proxy that filters each
request by its own expression, and Spring Boot's configured pull consumer (`rocketmq.consumer.*` or
`rocketmq.pull-consumer.*`, depending on the starter's release).
Members of one group registered with different message models (clustering and broadcasting) are RMQ015's, whatever
their subscriptions: in such a group a member is compared only with the members of its own model.

## Why is this bad?
The broker keeps one subscription per consumer group and topic: each member's heartbeat replaces it, so it flips
between the members' versions, and the broker filters every member's pulls by whichever version came last. The
queues of each subscribed topic are split among all members of the group, whether they subscribe to it or not.
So with two subscriptions in one group:
- different topics: the queues assigned to a member that does not subscribe to the topic are consumed by nobody,
  and pulls fail while the broker holds the other member's subscription;
- different tags on one topic: messages one member wants are filtered away by the other member's expression, and
  their offsets still move on, so they are lost for the group.
RocketMQ's own documentation requires consumers of one group to have exactly the same subscriptions.

## Example
```java
@RocketMQMessageListener(topic = "OrderTopic", consumerGroup = "shop_consumer")
public class OrderListener implements RocketMQListener<String> { ... }

@RocketMQMessageListener(topic = "StockTopic", consumerGroup = "shop_consumer")   // same group, other topic
public class StockListener implements RocketMQListener<String> { ... }
```

## Fix
Give each distinct subscription its own consumer group (`shop_order_consumer`, `shop_stock_consumer`), or make
every member of the group subscribe to the same topics with the same expressions.
"""

    INVALID = [
        Example(
            {
                "src/main/java/com/example/shop/OrderListener.java": _SPRING_ORDER_LISTENER,
                "src/main/java/com/example/shop/StockListener.java": _SPRING_STOCK_LISTENER,
            },
            expect=(
                ("src/main/java/com/example/shop/StockListener.java",
                 line_of(_SPRING_STOCK_LISTENER, "@RocketMQMessageListener")),
            ),
            note="two Spring listeners of one group on different topics",
        ),
        Example(
            {
                "billing-java/src/main/java/com/example/billing/Mq.java": _JAVA_CONSTANTS,
                "billing-java/src/main/java/com/example/billing/PaidConsumer.java": _JAVA_PAID,
                "billing-py/consumer.py": _PYTHON_BILLING,
            },
            expect=(("billing-py/consumer.py", line_of(_PYTHON_BILLING, "subscribe(")),),
            note="a Java consumer (constants) and a Python one of the same group with different tags",
        ),
        Example(
            {
                "src/main/java/com/example/report/ReportArchiver.java": _JAVA_REPORT_CONSUMER,
                "src/main/java/com/example/report/DailyReportListener.java": _SPRING_REPORT_LISTENER,
            },
            expect=(
                ("src/main/java/com/example/report/ReportArchiver.java",
                 line_of(_JAVA_REPORT_CONSUMER, "subscribe(")),
            ),
            note="a Spring listener and a plain consumer of one group: 'Daily' against '*'",
        ),
        Example(
            {"src/main/java/com/example/shop/StockListener.java": _SPRING_STOCK_LISTENER, "shop-go/main.go": _GO_SHOP},
            expect=(("src/main/java/com/example/shop/StockListener.java",
                     line_of(_SPRING_STOCK_LISTENER, "@RocketMQMessageListener")),),
            note="one group in a Go service and a Spring listener, subscribed to different topics",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/billing/BillingWorkers.java": _JAVA_SAME},
            note="the same subscriptions written differently; a producer group of the same name; an unknown topic",
        ),
        Example(
            {
                "src/main/java/com/example/shop/OrderListener.java": _SPRING_ORDER_LISTENER,
                "src/main/java/com/example/shop/StockListener.java": _SPRING_OTHER_GROUP,
            },
            note="Spring: one group per subscription",
        ),
        Example({"consumer.py": _PYTHON_SAME}, note="Python: the same tags in another order"),
        Example({"src/main/java/com/example/shop/ShopConsumers.java": _JAVA_MIXED_MODELS},
                note="a clustering and a broadcasting member of one group: RMQ015's, whatever they subscribe to"),
        Example({"consumer.py": _PYTHON_MIXED_MODELS}, note="Python: a group of both models is RMQ015's"),
        Example({"src/main/java/com/example/shop/StockListener.java": _SPRING_STOCK_LISTENER,
                 "shop-go/main.go": _GO_SHOP_SAME},
                note="Go and Spring: one group, the same subscription"),
    ]

    def looks_at(self, project: Project) -> bool:
        """Two consumers of one group, or one consumer with a subscription."""
        return any(c.subscriptions for _f, c in project.clients() if c.role in SUBSCRIBING_ROLES)

    def check(self, project: Project) -> Iterable[Finding]:
        groups: dict[str, list[Registration]] = defaultdict(list)
        for _facts, client in project.clients():
            found = registration(client)
            if found is not None:
                groups[found.group].append(found)
        for group, registrations in sorted(groups.items()):
            registrations.sort(key=lambda r: (r.location.path, r.location.line, r.location.column))
            models = [message_model(r.client) for r in registrations]
            if {CLUSTERING, BROADCASTING} <= set(models):
                # A group of clustering and broadcasting members is RMQ015's: each member is compared only with
                # the members of its own model.
                firsts: dict[str, Registration] = {}
                for later, model in zip(registrations, models):
                    first = firsts.setdefault(model, later) if model is not None else later
                    if first is not later:
                        yield from self._compare(group, first, later)
                continue
            first = registrations[0]
            for later in registrations[1:]:
                yield from self._compare(group, first, later)

    def _compare(self, group: str, first: Registration, later: Registration) -> Iterable[Finding]:
        if set(first.selections) != set(later.selections):
            cited, here = first.location, later.location
            if cited == here:
                # Two consumers one call makes (a helper called with the group, which calls another helper per
                # topic): told apart by where each subscribes.
                cited = first.where[min(set(first.selections) - set(later.selections) or first.selections)]
                here = later.where[min(set(later.selections) - set(first.selections) or later.selections)]
            yield self.finding(
                message(f'consumer group "{group}" subscribes to {_topics(later.selections)} here but to '
                        f"{_topics(first.selections)} at ", cited,
                        ": the broker keeps one subscription per group (the last heartbeat wins) and splits each "
                        "topic's queues among all members, so queues given to a member that does not subscribe to "
                        "the topic are consumed by nobody"),
                here,
                [Related(cited, f'registers consumer group "{group}" with {_topics(first.selections)}')],
            )
            return
        for topic in sorted(later.selections):
            here, there = later.selections[topic], first.selections[topic]
            if here == there:
                continue
            cited = first.where[topic]
            yield self.finding(
                message(f'consumer group "{group}" subscribes to topic "{topic}" with {here.describe()} here but '
                        f"with {there.describe()} at ", cited,
                        ": the broker keeps one subscription per group (the last heartbeat wins) and filters every "
                        "member's messages by it, so messages one expression selects are filtered away for the "
                        "members of the other, and lost to the group"),
                later.where[topic],
                [Related(cited, f'subscribes consumer group "{group}" to "{topic}" with {there.describe()}')],
            )

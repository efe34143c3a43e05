"""RMQ002: a subscribed tag that matches a produced tag only when case or surrounding space is ignored ."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from rmqlint.facts import Location
from rmqlint.findings import Finding, Related, message
from rmqlint.fixes import SAFE, UNSAFE, Fix, replace_parts
from rmqlint.project import Project
from rmqlint.text import subscribed_tags
from rmqlint.values import Lit, alternatives, known_texts
from rmqlint.rules._consumers import describe_group, is_consumer
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._fixing import READ_ELSEWHERE, applicability_at, written_literal
from rmqlint.rules._known import fully_known
from rmqlint.rules.base import Example, Rule



def drift_key(tag: str) -> str:
    """Two tags that differ only here are the same tag to a human and different tags to RocketMQ."""
    return tag.strip().lower()


_JAVA_PRODUCER = """\
package com.example.demo;

import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class Producer {
    public static void main(String[] args) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("producer_group");
        producer.setNamesrvAddr("127.0.0.1:9876");
        producer.start();
        Message msg = new Message("TopicTest", "aaaaa", "Hello RocketMQ".getBytes(StandardCharsets.UTF_8));
        producer.send(msg);
        producer.shutdown();
    }
}
"""

_JAVA_CONSUMER = """\
package com.example.demo;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class Consumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("consumer_group");
        consumer.setNamesrvAddr("127.0.0.1:9876");
        consumer.subscribe("TopicTest", "Aaaaa");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_JAVA_TAG_CONSTANTS = """\
package com.example.shop;

public final class Tags {
    public static final String TOPIC = "ShopTopic";
    public static final String CREATED = "OrderCreated ";
    public static final String PAID = "OrderPaid";

    private Tags() {
    }
}
"""

_JAVA_SHOP_PRODUCER = """\
package com.example.shop;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class ShopEvents {
    private final DefaultMQProducer producer = new DefaultMQProducer("shop_producer");

    public void created(byte[] body) throws Exception {
        Message msg = new Message(Tags.TOPIC, body);
        msg.setTags(Tags.CREATED);
        producer.send(msg);
    }

    public void paid(byte[] body) throws Exception {
        producer.send(new Message(Tags.TOPIC, Tags.PAID, body));
    }
}
"""

_JAVA_SHOP_CONSUMER = """\
package com.example.shop;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class ShopConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("shop_consumer");
        consumer.subscribe("ShopTopic", "OrderCreated || orderpaid");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_SENDER = """\
package com.example.pay;

import org.apache.rocketmq.spring.core.RocketMQTemplate;
import org.springframework.stereotype.Service;

@Service
public class RefundSender {
    private final RocketMQTemplate rocketMQTemplate;

    public RefundSender(RocketMQTemplate rocketMQTemplate) {
        this.rocketMQTemplate = rocketMQTemplate;
    }

    public void refund(String orderId) {
        rocketMQTemplate.convertAndSend("PayTopic:Refund", orderId);
    }
}
"""

_SPRING_RECEIVER = """\
package com.example.pay;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "PayTopic", consumerGroup = "refund_consumer", selectorExpression = "refund")
public class RefundListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String orderId) {
        System.out.println(orderId);
    }
}
"""

_PYTHON5_PRODUCER = """\
from rocketmq import ClientConfiguration, Credentials, Message, Producer

config = ClientConfiguration("127.0.0.1:8081", Credentials())
producer = Producer(config, ("TradeTopic",))
producer.startup()

msg = Message()
msg.topic = "TradeTopic"
msg.tag = "TradeClosed"
msg.body = b"trade 42 closed"
producer.send(msg)
"""

_JAVA_TRADE_CONSUMER = """\
package com.example.trade;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class TradeConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("trade_consumer");
        consumer.subscribe("TradeTopic", "tradeClosed");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_PYTHON2_BOTH = """\
from rocketmq.client import ConsumeStatus, Message, Producer, PushConsumer

TOPIC = "InventoryTopic"

producer = Producer("PID_INVENTORY")
producer.start()
msg = Message(TOPIC)
msg.set_tags("stock_low")
msg.set_body("sku-1")
producer.send_sync(msg)


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_INVENTORY")
consumer.subscribe(TOPIC, on_message, "STOCK_LOW")
consumer.start()
"""

_JAVA_LEDGER_PRODUCER = """\
package com.example.ledger;

import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class LedgerPublisher {
    private final DefaultMQProducer producer = new DefaultMQProducer("ledger_producer");

    public void posted(String entry) throws Exception {
        producer.send(new Message("LedgerTopic", "EntryPosted", entry.getBytes(StandardCharsets.UTF_8)));
    }
}
"""

_PYTHON5_CONSUMER = """\
from rocketmq import ClientConfiguration, Credentials, FilterExpression, SimpleConsumer

config = ClientConfiguration("127.0.0.1:8081", Credentials())
consumer = SimpleConsumer(config, "ledger_audit", {"LedgerTopic": FilterExpression("entryPosted")})
consumer.startup()
for message in consumer.receive(16, 30):
    print(message.body)
    consumer.ack(message)
"""

_SPRING_REPORT_SENDER = """\
package com.example.report;

import org.apache.rocketmq.spring.core.RocketMQTemplate;
import org.springframework.stereotype.Service;

@Service
public class ReportSender {
    private final RocketMQTemplate rocketMQTemplate;

    public ReportSender(RocketMQTemplate rocketMQTemplate) {
        this.rocketMQTemplate = rocketMQTemplate;
    }

    public void daily(String report) {
        rocketMQTemplate.syncSend("ReportTopic:DailyReport", report);
    }
}
"""

_SPRING_REPORT_CONFIG = """\
spring:
  application:
    name: report-service

rocketmq:
  name-server: 127.0.0.1:9876
  # the lite pull consumer behind RocketMQTemplate#receive
  consumer:
    group: report_puller
    topic: ReportTopic
    selector-expression: dailyReport || WeeklyReport
"""

_JAVA_REFUND_PRODUCER = """\
package com.example.pay;

import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class RefundPublisher {
    private final DefaultMQProducer producer = new DefaultMQProducer("refund_producer");

    public void settle(String order, boolean refund) throws Exception {
        Message msg = new Message("PayTopic", order.getBytes(StandardCharsets.UTF_8));
        msg.setTags(refund ? "Refunded" : "settled");
        producer.send(msg);
    }
}
"""

_JAVA_REFUND_CONSUMER = """\
package com.example.pay;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class LedgerConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger_consumer");
        consumer.subscribe("PayTopic", "Refunded || Settled");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_PYTHON2_BRANCH_TAGS = """\
from rocketmq.client import ConsumeStatus, Message, Producer, PushConsumer

producer = Producer("PID_SHIPPING")
producer.start()


def shipped(order, express):
    msg = Message("ShippingTopic")
    if express:
        tag = "ExpressShipped"
    else:
        tag = "standardShipped"
    msg.set_tags(tag)
    msg.set_body(order)
    producer.send_sync(msg)


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_SHIPPING")
consumer.subscribe("ShippingTopic", on_message, "ExpressShipped || StandardShipped")
consumer.start()
"""

# --- near misses that must stay quiet ---

_JAVA_REFUND_CONSUMER_EXACT = _JAVA_REFUND_CONSUMER.replace('"Refunded || Settled"', '"Refunded || settled"')

_PYTHON2_BRANCH_TAGS_EXACT = _PYTHON2_BRANCH_TAGS.replace(
    '"ExpressShipped || StandardShipped"', '"ExpressShipped || standardShipped"').replace(
    'tag = "ExpressShipped"', 'tag = os.getenv("EXPRESS_TAG")').replace(
    "from rocketmq.client", "import os\n\nfrom rocketmq.client")

_PYTHON5_CONSUMER_EXACT = _PYTHON5_CONSUMER.replace(
    'FilterExpression("entryPosted")',
    'FilterExpression("EntryPosted || EntryReversed")',
)

_JAVA_EXACT_CONSUMER = _JAVA_CONSUMER.replace('"Aaaaa"', '"aaaaa || bbbbb"')

_JAVA_SQL_AND_ALL = """\
package com.example.demo;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class Auditors {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer sql = new DefaultMQPushConsumer("sql_auditor");
        sql.subscribe("TopicTest", MessageSelector.bySql("TAGS = 'Aaaaa'"));
        sql.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        sql.start();

        DefaultMQPushConsumer all = new DefaultMQPushConsumer("all_auditor");
        all.subscribe("TopicTest", "*");
        all.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        all.start();

        DefaultMQPushConsumer other = new DefaultMQPushConsumer("other_topic");
        other.subscribe("OtherTopic", "Aaaaa");
        other.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        other.start();

        DefaultMQPushConsumer both = new DefaultMQPushConsumer("both_spellings");
        both.subscribe("TopicTest", "Aaaaa || aaaaa");
        both.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        both.start();
    }
}
"""

_JAVA_DYNAMIC_TAG_PRODUCER = """\
package com.example.demo;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class Producer {
    public static void send(DefaultMQProducer producer, String kind, byte[] body) throws Exception {
        producer.send(new Message("TopicTest", kind.toLowerCase(), body));
        producer.send(new Message(System.getenv("TOPIC"), "aaaaa", body));
    }
}
"""

_PYTHON2_EXACT = _PYTHON2_BOTH.replace('"STOCK_LOW"', '" stock_low "')



_GO_PRODUCER = go_file("""\
func publish(p rocketmq.Producer) error {
	msg := primitive.NewMessage("OrderTopic", []byte("{}"))
	msg.WithTag("OrderPaid")
	_, err := p.SendSync(context.Background(), msg)
	return err
}
""", package="orders")
_GO_CONSUMER = go_file("""\
func main() {
	c, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("billing_consumer"))
	_ = c.Subscribe("OrderTopic", consumer.MessageSelector{Type: consumer.TAG, Expression: "orderpaid"},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}
""")
_GO_CONSUMER_OK = _GO_CONSUMER.replace('"orderpaid"', '"OrderPaid"')


class TagCaseDrift(Rule):
    CODE = "RMQ002"
    NAME = "tag-case-drift"
    SEVERITY = "error"
    SUMMARY = "A subscribed tag equals a tag produced on the same topic only when case or surrounding space is ignored"
    DOCS = """\
## What it does
Collects every tag produced on each topic across the whole project (Java `new Message(topic, tags, body)` and
`setTags`, Spring `RocketMQTemplate` destinations `"topic:tags"`, Python `set_tags` / `tag =`, Go
`primitive.NewMessage(topic, body).WithTag(tag)`) and every TAG subscription (`subscribe(topic, "a || b")`, Spring
`selectorExpression`, Python `subscribe`, 5.x `FilterExpression`, Go `consumer.MessageSelector{Expression: ..}`), in
every language, and reports a subscribed tag that equals a produced tag only when case or
surrounding whitespace is ignored, for example `Aaaaa` against `aaaaa`, or `TagA` against `"TagA "`. A tag or an
expression that is one of several (`refund ? "Refunded" : "settled"`, a variable set in the branches of an `if`) is
checked alternative by alternative; a branch whose value is not known is skipped, never guessed.

## Why is this bad?
RocketMQ compares tags exactly and case-sensitively: the broker filters by the tag's hash code and the client
filters again with `tagsSet.contains(msg.getTags())`. The client trims each tag of a subscription expression, but
a producer's tag is stored as written. A tag that is the same to a human but not to RocketMQ therefore drops every
such message for the consumer group, with no error anywhere: in a reported case the producer sent `aaaaa`, the
consumer subscribed `Aaaaa`, and nothing was ever consumed. Only messages of the drifting producer are lost; a producer
that spells the tag exactly still gets through, which makes the loss easy to miss.

SQL92 selectors, `*` and empty expressions, and topics or tags that cannot be resolved statically are not checked.

## Example
```java
// producer
Message msg = new Message("TopicTest", "aaaaa", body);
// consumer
consumer.subscribe("TopicTest", "Aaaaa");
```

## Fix
Use one spelling on both sides, ideally one shared constant:
```java
public static final String TAG_ORDER_CREATED = "aaaaa";
consumer.subscribe("TopicTest", TAG_ORDER_CREATED);
```
`rmqlint --fix` changes the subscription to the producers' spelling (a safe fix) when that is unambiguous: every
producer that may send on the topic (its topic is this one or not known) sends known tags, and all of them send the
one spelling, which differs only in case (a subscribed tag is trimmed, so a produced tag with blanks around it cannot
be subscribed to: that producer needs fixing). Otherwise no fix is offered. Where the expression is a constant (as
above), a variable or a configuration key of the application's, other code may read it too, so the fix is unsafe
(`--unsafe-fixes`).
"""

    INVALID = [
        Example(
            {
                "src/main/java/com/example/pay/RefundPublisher.java": _JAVA_REFUND_PRODUCER,
                "src/main/java/com/example/pay/LedgerConsumer.java": _JAVA_REFUND_CONSUMER,
            },
            expect=(("src/main/java/com/example/pay/LedgerConsumer.java",
                     line_of(_JAVA_REFUND_CONSUMER, "subscribe(")),),
            note="one branch of `refund ? \"Refunded\" : \"settled\"` drifts",
        ),
        Example(
            {"shipping.py": _PYTHON2_BRANCH_TAGS},
            expect=(("shipping.py", line_of(_PYTHON2_BRANCH_TAGS, "consumer.subscribe(")),),
            note="Python: a tag assigned in the branches of an if, one of them drifting",
        ),
        Example(
            {
                "producer/src/main/java/com/example/demo/Producer.java": _JAVA_PRODUCER,
                "consumer/src/main/java/com/example/demo/Consumer.java": _JAVA_CONSUMER,
            },
            expect=(("consumer/src/main/java/com/example/demo/Consumer.java", line_of(_JAVA_CONSUMER, "subscribe(")),),
            note="the producer sends aaaaa, the consumer subscribes Aaaaa",
        ),
        Example(
            {
                "src/main/java/com/example/shop/Tags.java": _JAVA_TAG_CONSTANTS,
                "src/main/java/com/example/shop/ShopEvents.java": _JAVA_SHOP_PRODUCER,
                "src/main/java/com/example/shop/ShopConsumer.java": _JAVA_SHOP_CONSUMER,
            },
            # "OrderCreated " (trailing space, produced) vs OrderCreated; OrderPaid vs orderpaid: two findings
            expect=(
                ("src/main/java/com/example/shop/ShopConsumer.java", line_of(_JAVA_SHOP_CONSUMER, "subscribe(")),
                ("src/main/java/com/example/shop/ShopConsumer.java", line_of(_JAVA_SHOP_CONSUMER, "subscribe(")),
            ),
            note="constants, a trailing space in a produced tag, and a || expression",
        ),
        Example(
            {
                "src/main/java/com/example/pay/RefundSender.java": _SPRING_SENDER,
                "src/main/java/com/example/pay/RefundListener.java": _SPRING_RECEIVER,
            },
            expect=(
                (
                    "src/main/java/com/example/pay/RefundListener.java",
                    line_of(_SPRING_RECEIVER, "selectorExpression"),
                ),
            ),
            note="Spring: a template destination topic:tag against a listener's selectorExpression",
        ),
        Example(
            {
                "trade/producer.py": _PYTHON5_PRODUCER,
                "trade-java/src/main/java/com/example/trade/TradeConsumer.java": _JAVA_TRADE_CONSUMER,
            },
            expect=(
                (
                    "trade-java/src/main/java/com/example/trade/TradeConsumer.java",
                    line_of(_JAVA_TRADE_CONSUMER, "subscribe("),
                ),
            ),
            note="across languages: a Python 5.x producer and a Java consumer",
        ),
        Example(
            {"inventory.py": _PYTHON2_BOTH},
            expect=(("inventory.py", line_of(_PYTHON2_BOTH, "consumer.subscribe(")),),
            note="Python 2.x on both sides",
        ),
        Example(
            {
                "src/main/java/com/example/report/ReportSender.java": _SPRING_REPORT_SENDER,
                "src/main/resources/application.yml": _SPRING_REPORT_CONFIG,
            },
            # the Spring frontend locates a configured subscription at its topic key
            expect=(("src/main/resources/application.yml", line_of(_SPRING_REPORT_CONFIG, "topic: ReportTopic")),),
            note="Spring Boot: rocketmq.consumer.selector-expression against a template destination",
        ),
        Example(
            {
                "ledger/src/main/java/com/example/ledger/LedgerPublisher.java": _JAVA_LEDGER_PRODUCER,
                "audit/ledger_audit.py": _PYTHON5_CONSUMER,
            },
            expect=(("audit/ledger_audit.py", line_of(_PYTHON5_CONSUMER, "FilterExpression(")),),
            note="a Java producer and a Python 5.x SimpleConsumer's FilterExpression",
        ),
        Example(
            {"orders/producer.go": _GO_PRODUCER, "billing/main.go": _GO_CONSUMER},
            expect=(("billing/main.go", line_of(_GO_CONSUMER, "c.Subscribe")),),
            note="Go: WithTag on the producer's message, MessageSelector on the consumer",
        ),
    ]

    VALID = [
        Example(
            {
                "producer/src/main/java/com/example/demo/Producer.java": _JAVA_PRODUCER,
                "consumer/src/main/java/com/example/demo/Consumer.java": _JAVA_EXACT_CONSUMER,
            },
            note="exact tags",
        ),
        Example(
            {
                "src/main/java/com/example/pay/RefundPublisher.java": _JAVA_REFUND_PRODUCER,
                "src/main/java/com/example/pay/LedgerConsumer.java": _JAVA_REFUND_CONSUMER_EXACT,
            },
            note="each tag of `refund ? a : b` is subscribed exactly",
        ),
        Example({"shipping.py": _PYTHON2_BRANCH_TAGS_EXACT},
                note="Python: the known branch is subscribed exactly; the other is the environment's"),
        Example(
            {
                "producer/src/main/java/com/example/demo/Producer.java": _JAVA_PRODUCER,
                "src/main/java/com/example/demo/Auditors.java": _JAVA_SQL_AND_ALL,
            },
            note="SQL92, *, another topic, and an expression that lists both spellings",
        ),
        Example(
            {
                "src/main/java/com/example/demo/Producer.java": _JAVA_DYNAMIC_TAG_PRODUCER,
                "consumer/src/main/java/com/example/demo/Consumer.java": _JAVA_CONSUMER,
            },
            note="a dynamic tag and a dynamic topic are never guessed",
        ),
        Example({"inventory.py": _PYTHON2_EXACT}, note="the client trims subscribed tags"),
        Example(
            {
                "ledger/src/main/java/com/example/ledger/LedgerPublisher.java": _JAVA_LEDGER_PRODUCER,
                "audit/ledger_audit.py": _PYTHON5_CONSUMER_EXACT,
            },
            note="Python 5.x: the exact tag",
        ),
        Example(
            {
                "src/main/java/com/example/report/ReportSender.java": _SPRING_REPORT_SENDER,
                "src/main/resources/application.yml": _SPRING_REPORT_CONFIG.replace("dailyReport", "DailyReport"),
            },
            note="Spring Boot: the exact tag",
        ),
        Example({"orders/producer.go": _GO_PRODUCER, "billing/main.go": _GO_CONSUMER_OK},
                note="Go: the same spelling on both sides"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A subscription and a produced tag."""
        return any(c.subscriptions for _f, c in project.clients() if c.role != "producer") \
            and any(True for _ in project.produced())

    def check(self, project: Project) -> Iterable[Finding]:
        # Every known alternative counts: a tag that is one of several values (`refund ? "Refunded" : "Settled"`)
        # may be sent, or subscribed, as any of them.
        # topic -> drift key -> produced tag text -> locations
        produced: dict[str, dict[str, dict[str, set[Location]]]] = defaultdict(lambda: defaultdict(dict))
        for _facts, item in project.produced():
            for topic in known_texts(item.topic):
                for tag in known_texts(item.tag):
                    if tag.strip():
                        produced[topic][drift_key(tag)].setdefault(tag, set()).add(item.location)

        for _facts, client in project.clients():
            if not is_consumer(client):
                continue
            for sub in client.subscriptions:
                if sub.selector != "TAG":
                    continue
                for topic in known_texts(sub.topic):
                    by_key = produced.get(topic)
                    if not by_key:
                        continue
                    for expression in known_texts(sub.expression):
                        for tag, drifting in _drift(subscribed_tags(expression), by_key):
                            fix = _fix(project, sub, expression, topic, tag, sorted(drifting))
                            yield self._finding(client, topic, tag, drifting, sub.location, fix)

    def _finding(self, client, topic: str, tag: str, drifting: dict[str, set[Location]], at: Location,
                 fix: Fix | None = None) -> Finding:
        shown: list = []
        related = []
        for text in sorted(drifting):
            locations = sorted(drifting[text], key=lambda loc: (loc.path, loc.line, loc.column))
            more = f" (and {len(locations) - 1} more)" if len(locations) > 1 else ""
            shown.extend([", " if shown else "", f'"{text}" at ', locations[0], more])
            related += [Related(loc, f'produces tag "{text}" on topic "{topic}"') for loc in locations]
        text = message(
            f'subscribed tag "{tag}" on topic "{topic}" does not match the produced tag ', *shown,
            ": tags are compared exactly and case-sensitively, so those messages never reach ",
            describe_group(client),
        )
        return self.finding(text, at, related, fix=fix)


def _drift(tags: set[str] | None, by_key) -> Iterable[tuple[str, dict[str, set[Location]]]]:
    """(subscribed tag, the produced spellings it does not select though they look like it, with their places)."""
    if tags is None:
        return
    for tag in sorted(tags):
        drifting = {text: locations for text, locations in by_key.get(drift_key(tag), {}).items() if text not in tags}
        if drifting:
            yield tag, drifting


def _fix(project: Project, sub, expression: str, topic: str, tag: str, spellings: list[str]) -> Fix | None:
    """The subscription takes the producers' spelling, when every producer that may send on the topic sends that
    one spelling (a case difference: the client trims a subscribed tag, so a spelling with blanks around it cannot
    be taken) and none sends a tag that is not known."""
    literal = written_literal(sub.expression, expression)
    if literal is None or fully_known(sub.topic) != [topic] or len(spellings) != 1 or spellings[0] != spellings[0].strip() \
            or not _one_spelling(project, topic, tag, spellings[0]):
        return None
    edits = tag_edits(expression, tag, spellings[0])
    if not edits:
        return None
    said = f'subscribe to "{spellings[0]}", the tag the producers send'
    if applicability_at(project, literal.origin, sub.location) == SAFE:
        return Fix(said, tuple(replace_parts(literal.origin, edits)))
    return Fix(f"{said}, {READ_ELSEWHERE}", tuple(replace_parts(literal.origin, edits)), UNSAFE)


def tag_edits(expression: str, tag: str, spelling: str) -> list[tuple[int, int, str]]:
    """(first, last, spelling) for each place the expression lists `tag` (split on `||`, blanks kept)."""
    edits = []
    offset = 0
    for part in expression.split("||"):
        if part.strip() == tag:
            start = offset + len(part) - len(part.lstrip())
            edits.append((start, start + len(tag), spelling))
        offset += len(part) + 2
    return edits


def _one_spelling(project: Project, topic: str, tag: str, spelling: str) -> bool:
    """Whether every producer that may send on `topic` (its topic is that one, or not known) sends known tags,
    and none of them a spelling of `tag` other than `spelling`."""
    for _facts, item in project.produced():
        topics = alternatives(item.topic)
        if not any(not isinstance(t, Lit) or t.text == topic for t in topics):
            continue
        texts = fully_known(item.tag)
        if texts is None:
            return False
        if any(drift_key(text) == drift_key(tag) and text != spelling for text in texts):
            return False
    return True

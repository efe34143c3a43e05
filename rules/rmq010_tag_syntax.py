"""RMQ010: a produced tag holding the `||` separator, or a subscription expression that separates its tags with
something else (`,`, `;`, `/`, a single `|`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from rmqlint.facts import Location
from rmqlint.findings import Finding
from rmqlint.fixes import SAFE, UNSAFE, Fix, replace_parts
from rmqlint.project import Project
from rmqlint.topology import subscription_tags
from rmqlint.rules._consumers import describe_group, is_consumer
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._fixing import READ_ELSEWHERE, applicability_at, written_literal
from rmqlint.rules._known import known, wrong
from rmqlint.rules.base import Example, Rule

TAG_SEPARATOR = "||"
# Characters people write between tags that RocketMQ reads as part of one tag.
LOOKALIKE_SEPARATORS = (",", ";", "/", "|")


def lookalike_separator(tag: str) -> str | None:
    """The separator a subscribed tag (already split on `||` and trimmed) seems to use between two tags: one of
    LOOKALIKE_SEPARATORS with text on both sides. None for a plain tag."""
    for separator in LOOKALIKE_SEPARATORS:
        parts = [part.strip() for part in tag.split(separator)]
        if len(parts) > 1 and sum(1 for part in parts if part) >= 2:
            return separator
    return None


_JAVA_PRODUCER = """\
package com.example.orders;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class OrderEvents {
    private final DefaultMQProducer producer = new DefaultMQProducer("order_events_producer");

    public void closed(byte[] body) throws Exception {
        producer.send(new Message("OrderTopic", "Cancelled||Refunded", body));
    }
}
"""

_JAVA_CONSUMER = """\
package com.example.billing;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class BillingConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("billing_consumer");
        consumer.subscribe("OrderTopic", "Created,Paid");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_LISTENER = """\
package com.example.pay;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "PayTopic", consumerGroup = "pay_notifier",
    selectorExpression = "PaySuccess | PayFail")
public class PayResultListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_SENDER = """\
package com.example.pay;

import org.apache.rocketmq.spring.core.RocketMQTemplate;
import org.springframework.stereotype.Service;

@Service
public class PayEvents {
    private static final String DESTINATION = "PayTopic:PaySuccess||PayFail";

    private final RocketMQTemplate rocketMQTemplate;

    public PayEvents(RocketMQTemplate rocketMQTemplate) {
        this.rocketMQTemplate = rocketMQTemplate;
    }

    public void result(String orderId) {
        rocketMQTemplate.convertAndSend(DESTINATION, orderId);
    }
}
"""

_SPRING_CONFIG = """\
rocketmq:
  name-server: 127.0.0.1:9876
  consumer:
    group: report_puller
    topic: ReportTopic
    selector-expression: Daily;Weekly
"""

_PYTHON2 = """\
from rocketmq.client import ConsumeStatus, Message, Producer, PushConsumer

producer = Producer("PID_STOCK")
msg = Message("StockTopic")
msg.set_tags("Reserved||Released")
producer.send_sync(msg)


def on_stock(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_STOCK")
consumer.subscribe("StockTopic", on_stock, "Reserved/Released")
consumer.start()
"""

_PYTHON5 = """\
from rocketmq import ClientConfiguration, Credentials, FilterExpression, SimpleConsumer

config = ClientConfiguration("127.0.0.1:8081", Credentials())
consumer = SimpleConsumer(config, "ledger_audit", {"LedgerTopic": FilterExpression("Posted, Reversed")})
consumer.startup()
"""

# --- near misses that must stay quiet ---

_JAVA_OK = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class OrderFlow {
    public void start(DefaultMQProducer producer, byte[] body) throws Exception {
        producer.send(new Message("OrderTopic", "Created", body));
        producer.send(new Message("OrderTopic", "v1,v2", body));

        DefaultMQPushConsumer billing = new DefaultMQPushConsumer("billing_consumer");
        billing.subscribe("OrderTopic", "Created || Paid ||");
        billing.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);

        DefaultMQPushConsumer audit = new DefaultMQPushConsumer("audit_consumer");
        audit.subscribe("OrderTopic", MessageSelector.bySql("TAGS IN ('Created', 'Paid') AND region = 'eu'"));
        audit.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);

        DefaultMQPushConsumer legacy = new DefaultMQPushConsumer("legacy_consumer");
        legacy.subscribe("OrderTopic", "v1,v2");
        legacy.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
    }
}
"""

_SPRING_OK = _SPRING_LISTENER.replace('"PaySuccess | PayFail"', '"PaySuccess || PayFail"')

_PYTHON2_OK = """\
from rocketmq.client import ConsumeStatus, Message, Producer, PushConsumer

producer = Producer("PID_STOCK")
msg = Message("StockTopic")
msg.set_tags("Reserved")
producer.send_sync(msg)


def on_stock(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_STOCK")
consumer.subscribe("StockTopic", on_stock, "Reserved || Released")
consumer.start()
"""



_GO = go_file("""\
func publish(p rocketmq.Producer) error {
	msg := primitive.NewMessage("OrderTopic", []byte("{}"))
	msg.WithTag("Paid||Refunded")
	_, err := p.SendSync(context.Background(), msg)
	return err
}

func subscribe(c rocketmq.PushConsumer) error {
	return c.Subscribe("OrderTopic", consumer.MessageSelector{Expression: "Paid,Refunded"},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
}

func main() {
	c, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("refund_consumer"))
	_ = c.Subscribe("RefundTopic", consumer.MessageSelector{Expression: "Full|Partial"},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}
""")
_GO_OK = _GO.replace('"Paid||Refunded"', '"Paid"').replace('"Full|Partial"', '"Full || Partial"')


class TagSyntax(Rule):
    CODE = "RMQ010"
    NAME = "tag-syntax"
    SEVERITY = "error"
    SUMMARY = "A produced tag holds '||', or a subscription separates tags with ',', ';', '/' or a single '|'"
    DOCS = """\
## What it does
Finds two spellings of a tag list that RocketMQ does not read as a list:
- a tag a producer sends that contains `||` (Java `new Message(topic, tags, body)` and `setTags`, Spring
  `RocketMQTemplate` destinations `"topic:tags"`, Python `set_tags` / `msg.tag =`, Go `msg.WithTag(..)`);
- a TAG subscription expression (`subscribe(topic, expression)`, Spring `selectorExpression` and
  `rocketmq.consumer.selector-expression`, Python `subscribe(topic, callback, expression)`, 5.x
  `FilterExpression`, Go `consumer.MessageSelector{Expression: ..}`) that puts `,`, `;`, `/` or a single `|` between tags, such as `"TagA,TagB"`.

## Why is this bad?
A message carries one tag. A subscription expression is split on `||` only (the client's `FilterAPI` splits it and
trims each part), and the broker and the client then compare the message's tag with each part exactly. So:
- a message sent with the tag `"A||B"` has one tag, `A||B`, that no subscription can name: every subscription
  splits it into `A` and `B`. Only consumers of `*` ever receive it. (The 5.x clients refuse any `|` in a tag when
  the message is built.)
- a subscription `"TagA,TagB"` selects the one tag `TagA,TagB`. Producers send `TagA` or `TagB`, so the group
  receives nothing, and nothing reports an error.

SQL92 selectors are not tag lists and are not checked. A subscribed tag that a producer of the project sends with
exactly that spelling (`"v1,v2"` on both sides) is left alone: it matches.

## Example
```java
producer.send(new Message("OrderTopic", "Cancelled||Refunded", body)); // one tag, matched by no subscription
consumer.subscribe("OrderTopic", "Created,Paid");                        // one tag "Created,Paid"
```

## Fix
Send one tag per message, and separate subscribed tags with `||`:
```java
producer.send(new Message("OrderTopic", "Cancelled", body));
consumer.subscribe("OrderTopic", "Created || Paid");
```
`rmqlint --fix` fixes a subscription (a safe fix) where its expression is written: the separator becomes `||`
(` || ` when blanks stood around it). Where the expression is a constant, a variable or a configuration key of the
application's, other code may read it too, so the fix is unsafe (`--unsafe-fixes`). A produced tag holding `||` is not fixed: which single tag each message should
carry is a decision about the producer's code.
"""

    INVALID = [
        Example(
            {
                "orders/src/main/java/com/example/orders/OrderEvents.java": _JAVA_PRODUCER,
                "billing/src/main/java/com/example/billing/BillingConsumer.java": _JAVA_CONSUMER,
            },
            expect=(
                ("orders/src/main/java/com/example/orders/OrderEvents.java", line_of(_JAVA_PRODUCER, "new Message(")),
                ("billing/src/main/java/com/example/billing/BillingConsumer.java",
                 line_of(_JAVA_CONSUMER, "subscribe(")),
            ),
            note="a produced tag with || and a subscription separated by commas",
        ),
        Example(
            {
                "src/main/java/com/example/pay/PayResultListener.java": _SPRING_LISTENER,
                "src/main/java/com/example/pay/PayEvents.java": _SPRING_SENDER,
            },
            expect=(
                ("src/main/java/com/example/pay/PayResultListener.java",
                 line_of(_SPRING_LISTENER, "selectorExpression")),
                ("src/main/java/com/example/pay/PayEvents.java", line_of(_SPRING_SENDER, "convertAndSend")),
            ),
            note="Spring: a single | in selectorExpression, a destination constant whose tag holds ||",
        ),
        Example(
            {"src/main/resources/application.yml": _SPRING_CONFIG},
            # the Spring frontend locates a configured subscription at its topic key
            expect=(("src/main/resources/application.yml", line_of(_SPRING_CONFIG, "topic: ReportTopic")),),
            note="Spring configuration: tags separated by ;",
        ),
        Example(
            {"stock.py": _PYTHON2},
            expect=(("stock.py", line_of(_PYTHON2, "set_tags")), ("stock.py", line_of(_PYTHON2, "subscribe("))),
            note="Python 2.x: a tag with || and a subscription separated by /",
        ),
        Example(
            {"ledger.py": _PYTHON5},
            expect=(("ledger.py", line_of(_PYTHON5, "FilterExpression(")),),
            note="Python 5.x: a filter expression separated by a comma",
        ),
        Example(
            {"orders/main.go": _GO},
            expect=(("orders/main.go", line_of(_GO, 'WithTag("Paid||Refunded")')),
                    ("orders/main.go", line_of(_GO, '"Full|Partial"'))),
            note="Go: a tag sent with '||' in it, and a subscription separated by a single '|'",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/orders/OrderFlow.java": _JAVA_OK},
            note="|| between tags (a trailing || is dropped); SQL92 with commas; a tag with a comma sent as such",
        ),
        Example({"src/main/java/com/example/pay/PayResultListener.java": _SPRING_OK}, note="Spring: || between tags"),
        Example({"stock.py": _PYTHON2_OK}, note="Python: one tag sent, || between subscribed tags"),
        Example({"orders/main.go": _GO_OK}, note="Go: one tag sent, tags separated by '||'"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A produced tag or a TAG subscription."""
        return any(True for _ in project.produced()) or any(
            s.selector == "TAG" for _f, c in project.clients() for s in c.subscriptions)

    def check(self, project: Project) -> Iterable[Finding]:
        sent: dict[str, set[str]] = defaultdict(set)  # topic -> tags produced exactly so
        for _facts, produced in project.produced():
            for tag in wrong(produced.tag, lambda text: TAG_SEPARATOR in text):
                topic = _topic_text(produced.topic)
                yield self.finding(
                    f'tag "{tag}" sent{topic} contains "||": a subscription splits its expression on "||", so no '
                    f"subscription can select this tag and only consumers of \"*\" receive the message (5.x clients "
                    f'refuse any "|" in a tag)',
                    produced.location,
                )
            for topic in known(produced.topic):
                sent[topic].update(known(produced.tag))
        for _facts, client in project.clients():
            if not is_consumer(client):
                continue
            for subscription in client.subscriptions:
                if subscription.selector != "TAG":
                    continue
                topics = known(subscription.topic)
                for expression in wrong(subscription.expression, lambda text: bool(_lookalikes(text))):
                    for tag, separator in _lookalikes(expression):
                        if any(tag in sent[topic] for topic in topics):
                            continue  # a producer of the project sends exactly this tag: it matches
                        yield self.finding(
                            f'subscription "{expression}"{_topic_text(subscription.topic)} of '
                            f'{describe_group(client)} selects the one tag "{tag}": tags are separated by "||" '
                            f'only, not "{separator}", so messages tagged with its parts never reach this group',
                            subscription.location,
                            fix=_fix(project, written_literal(subscription.expression, expression), tag, separator,
                                     subscription.location),
                        )


def _lookalikes(expression: str) -> list[tuple[str, str]]:
    """(tag, separator) for each subscribed tag that looks like several tags joined by a wrong separator."""
    tags = subscription_tags(expression)
    if not tags:
        return []
    found = []
    for tag in sorted(tags):
        separator = lookalike_separator(tag)
        if separator is not None:
            found.append((tag, separator))
    return found


def separator_edits(expression: str, tag: str, separator: str) -> list[tuple[int, int, str]]:
    """(first, last, text) replacing each `separator` inside `tag` (wherever the expression lists it) by `||`, as
    " || " when blanks stood around it and as "||" when none did."""
    edits = []
    offset = 0
    for part in expression.split(TAG_SEPARATOR):
        if part.strip() == tag:
            start = offset + len(part) - len(part.lstrip())
            i = 0
            while i < len(tag):
                if tag.startswith(separator, i):
                    first, last = i, i + len(separator)
                    while first > 0 and tag[first - 1] in " \t":
                        first -= 1
                    while last < len(tag) and tag[last] in " \t":
                        last += 1
                    spaced = first < i or last > i + len(separator)
                    edits.append((start + first, start + last, f" {TAG_SEPARATOR} " if spaced else TAG_SEPARATOR))
                    i = last
                else:
                    i += 1
        offset += len(part) + len(TAG_SEPARATOR)
    return edits


def _fix(project: Project, literal, tag: str, separator: str, at: Location) -> Fix | None:
    """The lookalike separator replaced by `||` where the expression is written: unsafe where other code may read
    it too (a constant, a key a placeholder names)."""
    if literal is None:
        return None
    edits = separator_edits(literal.text, tag, separator)
    if not edits:
        return None
    said, parts = f'separate the tags with "{TAG_SEPARATOR}"', tuple(replace_parts(literal.origin, edits))
    if applicability_at(project, literal.origin, at) == SAFE:
        return Fix(said, parts)
    return Fix(f"{said} {READ_ELSEWHERE}", parts, UNSAFE)


def _topic_text(topic) -> str:
    texts = known(topic)
    return f' on topic "{texts[0]}"' if len(texts) == 1 else ""

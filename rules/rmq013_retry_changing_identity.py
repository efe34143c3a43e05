"""RMQ013: a message identity that changes on every retry (the offset message id, an offset) used to deduplicate,
store or look up messages."""

from __future__ import annotations

from typing import Iterable

from rmqlint.findings import Finding, Related
from rmqlint.project import Project
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules.base import Example, Rule

_JAVA_DEDUPE = """\
package com.example.pay;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;

public class PaymentConsumer {
    private final Set<String> handled = ConcurrentHashMap.newKeySet();
    private PaymentRepository payments;

    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("payment_consumer");
        consumer.subscribe("PaymentTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                if (!handled.add(((MessageClientExt) msg).getOffsetMsgId())) {
                    continue;
                }
                long offset = msg.getQueueOffset();
                payments.findByMessageId(String.valueOf(msg.getCommitLogOffset()));
                charge(msg.getBody());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }

    private void charge(byte[] body) {
    }
}
"""

_JAVA_SENT = """\
package com.example.pay;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;

public class PaymentPublisher {
    private final DefaultMQProducer producer = new DefaultMQProducer("payment_producer");
    private OutboxRepository outbox;

    public void publish(byte[] body) throws Exception {
        SendResult result = producer.send(new Message("PaymentTopic", "Paid", body));
        OutboxRecord record = new OutboxRecord();
        record.setMsgId(result.getOffsetMsgId());
        outbox.save(record);
    }
}
"""

_PYTHON2 = """\
from rocketmq.client import ConsumeStatus, PushConsumer

processed = set()


def on_message(msg):
    if msg.commit_log_offset in processed:
        return ConsumeStatus.CONSUME_SUCCESS
    processed.add(msg.commit_log_offset)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("payment_consumer")
consumer.subscribe("PaymentTopic", on_message)
consumer.start()
"""

_PYTHON5 = """\
from rocketmq import ClientConfiguration, ConsumeResult, Credentials, FilterExpression, MessageListener, PushConsumer


class PaymentListener(MessageListener):
    def __init__(self, ledger):
        self.ledger = ledger

    def consume(self, message):
        self.ledger.save_entry(message_id=message.receipt_handle, body=message.body)
        return ConsumeResult.SUCCESS


config = ClientConfiguration("127.0.0.1:8081", Credentials())
consumer = PushConsumer(config, "payment_consumer", PaymentListener(None),
                        {"PaymentTopic": FilterExpression("*")})
consumer.startup()
"""

# --- near misses that must stay quiet ---

_JAVA_OK = """\
package com.example.pay;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class PaymentConsumer {
    private static final Logger LOG = LoggerFactory.getLogger(PaymentConsumer.class);
    private final Set<String> handled = ConcurrentHashMap.newKeySet();
    private AuditTrail audit;

    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("payment_consumer");
        consumer.subscribe("PaymentTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                if (!handled.add(msg.getMsgId())) {
                    continue;
                }
                String stored = ((MessageClientExt) msg).getOffsetMsgId();
                LOG.info("payment {} stored at {} offset {}", msg.getMsgId(), stored, msg.getQueueOffset());
                audit.setOffsetMsgId(stored);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }
}
"""

_PYTHON2_OK = """\
import logging

from rocketmq.client import ConsumeStatus, PushConsumer

log = logging.getLogger(__name__)
processed = set()


def on_message(msg):
    if msg.id in processed:
        return ConsumeStatus.CONSUME_SUCCESS
    processed.add(msg.id)
    log.info("message %s at offset %s (commit log %s)", msg.id, msg.queue_offset, msg.commit_log_offset)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("payment_consumer")
consumer.subscribe("PaymentTopic", on_message)
consumer.start()
"""



_GO = go_file("""\
var processed = map[string]bool{}

func onPayment(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	for _, msg := range msgs {
		if processed[msg.OffsetMsgId] {
			continue
		}
		processed[msg.OffsetMsgId] = true
	}
	return consumer.ConsumeSuccess, nil
}

func main() {
	c, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("payment_consumer"))
	_ = c.Subscribe("PaymentTopic", consumer.MessageSelector{}, onPayment)
	if err := c.Start(); err != nil {
		panic(err)
	}
}
""")
_GO_MSG_ID = _GO.replace("msg.OffsetMsgId", "msg.MsgId")


_JAVA_HANDED_ON = """\
package com.example.pay;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.MDC;

public class SettlementConsumer {
    private SettlementService settlements;

    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("settlement_consumer");
        consumer.subscribe("SettlementTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                MDC.put("commitLogOffset", String.valueOf(msg.getCommitLogOffset()));
                settlements.settleOnce(msg.getCommitLogOffset(), new String(msg.getBody()));
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }
}
"""

_PYTHON2_HANDED_ON = """\
from rocketmq.client import ConsumeStatus, PushConsumer

from ledger import settle_once


def on_settlement(msg):
    print("settling", msg.commit_log_offset)
    settle_once(msg.commit_log_offset, msg.body)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("settlement_consumer")
consumer.subscribe("SettlementTopic", on_settlement)
consumer.start()
"""


class RetryChangingIdentity(Rule):
    CODE = "RMQ013"
    NAME = "retry-changing-identity"
    SEVERITY = "warning"
    SUMMARY = ("A message identity that changes on every retry (offset message id, commit log or queue offset) is "
               "used to deduplicate, store or look up messages")
    DOCS = """\
## What it does
Finds code that keys messages by an identity the broker gives each stored copy: a consumed message's
`getOffsetMsgId()` (the client hands listeners `MessageClientExt`s: `((MessageClientExt) msg).getOffsetMsgId()`;
a `MessageExt` has no such method), `getCommitLogOffset()` or `getQueueOffset()` (Python 2.x `msg.commit_log_offset`,
`msg.queue_offset`; Go `msg.OffsetMsgId`, `msg.CommitLogOffset`, `msg.QueueOffset` in a consume callback), a send
result's `getOffsetMsgId()` (Go `OffsetMsgID`) or offset, or a 5.x message's `receipt_handle` (new on every
delivery), when the value (directly, through a local variable, `String.valueOf`, a concatenation or an
f-string) goes into a call that
- deduplicates: adds to or asks a set, map or cache (`handled.add(..)`, `putIfAbsent`, `setIfAbsent`, Redis
  `setnx`, `set(.., nx=True)`, `sadd`, `x in seen`, `seen[x] = ..`);
- stores it as the message's id or key (`setMsgId(..)`, `setMessageId(..)`, `msg_id=..`, `save(..)`,
  `insert(..)`);
- looks messages up by it (`findByMessageId(..)`, `selectByMsgId(..)`, an ORM query `message_id=..`).
The offset message id and the commit log offset name nothing but one stored copy, so handing one to any other call
(`orderService.markPaid(offsetMsgId)`, Python `mark_done(msg.commit_log_offset)`) is reported too: the called code
can only keep it or look it up. Logging, printing, formatting or comparing these values, a logging or tracing
context (`MDC.put`), storing them under their own name (`setOffsetMsgId`, `offset=`), and RocketMQ's own lookups
(`viewMessage`, which takes an offset message id on purpose) are not reported.

## Why is this bad?
A message the consumer fails to process (RECONSUME_LATER, an exception, a timeout) is sent back to the broker
and stored again in the group's retry topic `%RETRY%<group>`, and after the retries in `%DLQ%<group>`: each copy
has a new commit log offset, hence a new offset message id, and a new queue offset in a new queue. Only the message
id the producer set (`getMsgId()`, the `UNIQ_KEY` property; Python 2.x `msg.id`; 5.x `message_id`) and the keys
(`getKeys()`) stay the same. Code that deduplicates by an offset therefore sees every retry as a new message and
processes it again, and code that stores or looks messages up by one cannot find the message it stored
before: a retried payment is charged twice, a status update is applied to nothing. It works in every test that
does not fail.

## Example
```java
if (!handled.add(((MessageClientExt) msg).getOffsetMsgId())) {   // a retry has a new offset message id
    continue;
}
```

## Fix
Key messages by what stays across retries: the message id (`msg.getMsgId()`, Python 2.x `msg.id`, 5.x
`message.message_id`), or better a business key the producer sets (`message.setKeys(orderId)`, read with
`getKeys()`), which also survives a producer that sends the same business event twice.
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/pay/PaymentConsumer.java": _JAVA_DEDUPE},
            expect=(
                ("src/main/java/com/example/pay/PaymentConsumer.java", line_of(_JAVA_DEDUPE, "handled.add")),
                ("src/main/java/com/example/pay/PaymentConsumer.java", line_of(_JAVA_DEDUPE, "findByMessageId")),
            ),
            note="a set of handled offset ids; a lookup by the commit log offset (a local that only holds the "
                 "queue offset is not a use)",
        ),
        Example(
            {"src/main/java/com/example/pay/PaymentPublisher.java": _JAVA_SENT},
            expect=(("src/main/java/com/example/pay/PaymentPublisher.java", line_of(_JAVA_SENT, "setMsgId")),),
            note="the producer stores the send result's offset id as the message id",
        ),
        Example(
            {"consumer.py": _PYTHON2},
            expect=(("consumer.py", line_of(_PYTHON2, "in processed")),
                    ("consumer.py", line_of(_PYTHON2, "processed.add"))),
            note="Python 2.x: deduplicated by the commit log offset",
        ),
        Example(
            {"consumer.py": _PYTHON5},
            expect=(("consumer.py", line_of(_PYTHON5, "receipt_handle")),),
            note="Python 5.x: the receipt handle stored as the message id",
        ),
        Example(
            {"src/main/java/com/example/pay/SettlementConsumer.java": _JAVA_HANDED_ON},
            expect=(("src/main/java/com/example/pay/SettlementConsumer.java",
                     line_of(_JAVA_HANDED_ON, "settleOnce")),),
            note="the commit log offset handed to the project's own code (put in the logging context: no use)",
        ),
        Example(
            {"settlement.py": _PYTHON2_HANDED_ON},
            expect=(("settlement.py", line_of(_PYTHON2_HANDED_ON, "settle_once(msg")),),
            note="Python 2.x: the commit log offset handed to a function of the project (printed: no use)",
        ),
        Example(
            {"payments/main.go": _GO},
            expect=(("payments/main.go", line_of(_GO, "if processed[msg.OffsetMsgId]")),
                    ("payments/main.go", line_of(_GO, "processed[msg.OffsetMsgId] = true"))),
            note="Go: a map keyed by the offset message id in a consume callback",
        ),
    ]

    VALID = [
        Example({"src/main/java/com/example/pay/PaymentConsumer.java": _JAVA_OK},
                note="deduplicated by the message id; offsets logged and kept under their own name"),
        Example({"consumer.py": _PYTHON2_OK}, note="Python 2.x: msg.id (the producer's id) as the key; offsets logged"),
        Example({"payments/main.go": _GO_MSG_ID}, note="Go: keyed by the message id, which retries keep"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A consumer or producer."""
        return any(True for _ in project.clients())

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, use in project.identity_uses():
            whose = "the send result's" if use.sent else "the consumed message's"
            what = {"dedupe": "to deduplicate messages", "store": "as the message's id in a record",
                    "lookup": "to look messages up", "key": "as a key the called code keeps or looks up by"}[use.use]
            stable = {"java": "getMsgId() or getKeys()", "python2": "msg.id or the keys", "go": "MsgId or GetKeys()",
                      "python5": "message.message_id or the keys"}.get(use.api, "the message id or the keys")
            if use.identity.endswith("receipt_handle"):
                text = (f"{whose} {use.identity} is used {what} ({use.call}): every delivery of a message, a retry "
                        f"included, comes with a new receipt handle, so a redelivered message is not recognised; "
                        f"key it by {stable}, which stay the same")
            elif use.sent:
                text = (f"{whose} {use.identity} is used {what} ({use.call}): it names this stored copy only, and "
                        f"every retry of the message is stored again with a new offset message id and offsets, so "
                        f"the consumer cannot match it; key it by {stable}, which stay the same")
            else:
                text = (f"{whose} {use.identity} is used {what} ({use.call}): every retry stores the message again "
                        f"with a new offset message id, commit log and queue offset, so a retried message is not "
                        f"recognised; key it by {stable}, which stay the same")
            related = [] if use.call_location == use.location else [Related(use.call_location, f"{use.call}")]
            yield self.finding(text, use.location, related)

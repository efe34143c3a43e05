"""RMQ007: a batch consumed again as a whole when one message fails; batch and pull sizes that cannot take effect."""

from __future__ import annotations

from typing import Iterable

from rmqlint.facts import ClientFact, Location, Setting
from rmqlint.findings import Finding, Related
from rmqlint.project import Project
from rmqlint.rules._consumers import CLUSTERING, GRPC_APIS, describe_group, message_model
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._known import fully_known
from rmqlint.rules.rmq006_orderly_unbounded_retry import CONCURRENTLY, consume_mode
from rmqlint.rules.base import Example, Rule

PULL_BATCH_DEFAULT = 32  # DefaultMQPushConsumer.pullBatchSize and @RocketMQMessageListener.pullBatchSize
BROKER_PULL_CAP = 32  # the broker's maxTransferCountOnMessageInMemory: messages returned by one pull


def number(setting: Setting | None) -> int | None:
    """An int setting known exactly, else None."""
    texts = fully_known(setting.value) if setting is not None else None
    if texts is None or len(texts) != 1:
        return None
    try:
        return int(texts[0].strip().rstrip("lL"), 0)
    except ValueError:
        return None


_JAVA = """\
package com.example.stock;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;

public class StockConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("stock_consumer");
        consumer.setConsumeMessageBatchMaxSize(16);
        consumer.subscribe("StockTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                if (!reserve(msg)) {
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }

    private boolean reserve(MessageExt msg) {
        return msg.getBody().length > 0;
    }
}
"""

_JAVA_SIZES = """\
package com.example.stock;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class BulkConsumers {
    public void start() throws Exception {
        DefaultMQPushConsumer bulk = new DefaultMQPushConsumer("bulk_consumer");
        bulk.setConsumeMessageBatchMaxSize(100);
        bulk.subscribe("BulkTopic", "*");
        bulk.start();

        DefaultLitePullConsumer puller = new DefaultLitePullConsumer("bulk_puller");
        puller.setPullBatchSize(256);
        puller.subscribe("BulkTopic", "*");
        puller.start();
    }
}
"""

_SPRING = """\
package com.example.mail;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "MailTopic", consumerGroup = "mail_sender", consumeMessageBatchMaxSize = 10)
public class MailListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        if (message.isEmpty()) {
            throw new IllegalArgumentException("empty mail");
        }
        System.out.println(message);
    }
}
"""

_PYTHON = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    if not msg.body:
        return ConsumeStatus.RECONSUME_LATER
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_STOCK")
consumer.set_message_batch_max_size(8)
consumer.subscribe("StockTopic", on_message)
consumer.start()
"""

# --- near misses that must stay quiet ---

_JAVA_OK = """\
package com.example.stock;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

public class StockConsumers {
    public void start() throws Exception {
        DefaultMQPushConsumer acking = new DefaultMQPushConsumer("stock_consumer");
        acking.setConsumeMessageBatchMaxSize(16);
        acking.setPullBatchSize(32);
        acking.subscribe("StockTopic", "*");
        acking.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (int i = 0; i < msgs.size(); i++) {
                if (!reserve(msgs.get(i))) {
                    context.setAckIndex(i - 1);
                    return i == 0
                        ? ConsumeConcurrentlyStatus.RECONSUME_LATER : ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        acking.start();

        DefaultMQPushConsumer single = new DefaultMQPushConsumer("stock_auditor");
        single.setConsumeMessageBatchMaxSize(1);
        single.subscribe("StockTopic", "*");
        single.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.RECONSUME_LATER);
        single.start();

        DefaultMQPushConsumer orderly = new DefaultMQPushConsumer("stock_ledger");
        orderly.setConsumeMessageBatchMaxSize(16);
        orderly.setMaxReconsumeTimes(3);
        orderly.subscribe("StockTopic", "*");
        orderly.registerMessageListener((MessageListenerOrderly) (msgs, context) ->
            ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT);
        orderly.start();
    }

    private boolean reserve(MessageExt msg) {
        return msg.getBody().length > 0;
    }
}
"""

_SPRING_OK = _SPRING.replace("consumeMessageBatchMaxSize = 10", "consumeMessageBatchMaxSize = 1")

_PYTHON_OK = _PYTHON.replace("""    if not msg.body:
        return ConsumeStatus.RECONSUME_LATER
""", """    if not msg.body:
        print("empty message", msg.id)
""")



_GO = go_file("""\
func main() {
	c, _ := rocketmq.NewPushConsumer(
		consumer.WithGroupName("invoice_consumer"),
		consumer.WithConsumeMessageBatchMaxSize(10),
	)
	_ = c.Subscribe("InvoiceTopic", consumer.MessageSelector{},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			for _, msg := range msgs {
				if err := store(msg); err != nil {
					return consumer.ConsumeRetryLater, err
				}
			}
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}

func store(msg *primitive.MessageExt) error { return nil }
""")
_GO_ONE_AT_A_TIME = _GO.replace("WithConsumeMessageBatchMaxSize(10)", "WithConsumeMessageBatchMaxSize(1)")


class BatchRetry(Rule):
    CODE = "RMQ007"
    NAME = "batch-retry"
    SEVERITY = "warning"
    OTHER_SEVERITIES = ("info",)
    SUMMARY = ("A batch listener fails without an ackIndex, so the whole batch is consumed again; batch or pull sizes "
               "that never take effect")
    DOCS = f"""\
## What it does
For clustering push consumers that consume concurrently with `consumeMessageBatchMaxSize` above 1 (Java
`setConsumeMessageBatchMaxSize`, Spring `consumeMessageBatchMaxSize`, Python 2.x `set_message_batch_max_size`, Go
`consumer.WithConsumeMessageBatchMaxSize`), it reports a listener that fails a batch (returns `RECONSUME_LATER`, or
throws, or a Python callback that raises, or a Go callback that returns anything but `ConsumeSuccess`) without ever
setting `context.setAckIndex(..)` (Go has none: the whole batch goes back). It also reports (warning) a `consumeMessageBatchMaxSize` above the
`pullBatchSize` (default {PULL_BATCH_DEFAULT}), and (info) a `pullBatchSize` above {BROKER_PULL_CAP}, in Java,
Spring listeners and Spring's `rocketmq.pull-consumer.pull-batch-size`.

## Why is this bad?
A concurrent listener receives up to `consumeMessageBatchMaxSize` messages at once and answers for all of them.
When it answers `RECONSUME_LATER` (an exception counts as that), the client sends every message of the batch back
for a retry, the ones the listener already handled included (`ConsumeMessageConcurrentlyService` resets the ack
index to -1): those are consumed twice, and with side effects (a payment, a stock reservation) that is a
duplicate. The only way to keep the handled ones is to set `context.setAckIndex(i)` to the last handled message and
answer `CONSUME_SUCCESS`: the messages after it are sent back. The Spring container and the C++ core behind
Python 2.x hand the messages of a batch to the listener one by one, and give up on the whole batch at the first
failure.

The pull request fetches at most `pullBatchSize` messages ({PULL_BATCH_DEFAULT} by default) and the client splits
them into batches, so a larger `consumeMessageBatchMaxSize` is never reached. A broker answers one pull with at
most {BROKER_PULL_CAP} messages by default (`maxTransferCountOnMessageInMemory`; 8 from disk), so a larger
`pullBatchSize` does not take effect unless the broker is configured for it.

## Example
```java
consumer.setConsumeMessageBatchMaxSize(16);
consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {{
    for (MessageExt msg : msgs) {{
        if (!reserve(msg)) {{
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;   // all 16 are consumed again
        }}
    }}
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
}});
```

## Fix
Acknowledge the messages already handled, and let the rest be retried:
```java
for (int i = 0; i < msgs.size(); i++) {{
    if (!reserve(msgs.get(i))) {{
        context.setAckIndex(i - 1);
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    }}
}}
```
or consume one message at a time (`consumeMessageBatchMaxSize` 1, the default), and keep
`consumeMessageBatchMaxSize <= pullBatchSize <= {BROKER_PULL_CAP}` unless the brokers are tuned for more.
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/stock/StockConsumer.java": _JAVA},
            expect=(("src/main/java/com/example/stock/StockConsumer.java", line_of(_JAVA, "RECONSUME_LATER")),),
            note="RECONSUME_LATER from a batch of 16 without an ackIndex",
        ),
        Example(
            {"src/main/java/com/example/stock/BulkConsumers.java": _JAVA_SIZES},
            expect=(
                ("src/main/java/com/example/stock/BulkConsumers.java",
                 line_of(_JAVA_SIZES, "setConsumeMessageBatchMaxSize")),
                ("src/main/java/com/example/stock/BulkConsumers.java", line_of(_JAVA_SIZES, "setPullBatchSize")),
            ),
            note="a batch above the default pull size (warning); a pull size above the broker's cap (info)",
        ),
        Example(
            {"src/main/java/com/example/mail/MailListener.java": _SPRING},
            expect=(("src/main/java/com/example/mail/MailListener.java", line_of(_SPRING, "throw new")),),
            note="Spring: a throwing listener in batches of 10",
        ),
        Example(
            {"stock.py": _PYTHON},
            expect=(("stock.py", line_of(_PYTHON, "RECONSUME_LATER")),),
            note="Python 2.x: a callback returning RECONSUME_LATER in batches of 8",
        ),
        Example(
            {"invoice/main.go": _GO},
            expect=(("invoice/main.go", line_of(_GO, "return consumer.ConsumeRetryLater")),),
            note="Go: a batch of 10 and a callback returning ConsumeRetryLater",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/stock/StockConsumers.java": _JAVA_OK},
            note="an ackIndex; a batch of 1; an orderly listener (its batch is retried in place, RMQ006's matter)",
        ),
        Example({"src/main/java/com/example/mail/MailListener.java": _SPRING_OK}, note="Spring: one at a time"),
        Example({"stock.py": _PYTHON_OK}, note="Python: a batch whose callback never fails"),
        Example({"invoice/main.go": _GO_ONE_AT_A_TIME}, note="Go: one message at a time"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A consumer with a batch or pull size written."""
        return any(c.consume_batch_max_size or c.pull_batch_size for _f, c in project.clients())

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, client in project.clients():
            if client.api in GRPC_APIS or client.role == "producer":
                continue
            batch, pull = number(client.consume_batch_max_size), number(client.pull_batch_size)
            if client.role == "push_consumer" and batch is not None and batch > 1:
                yield from self._whole_batch(client, batch)
                effective_pull = PULL_BATCH_DEFAULT if client.pull_batch_size is None else pull
                if effective_pull is not None and batch > effective_pull:
                    yield self._batch_above_pull(client, batch, effective_pull)
            if pull is not None and pull > BROKER_PULL_CAP:
                yield self.finding(
                    f"pullBatchSize {pull} on consumer {describe_group(client)} is above the {BROKER_PULL_CAP} "
                    "messages a broker returns for one pull by default (maxTransferCountOnMessageInMemory; 8 from "
                    "disk): more is never fetched at once unless the brokers are configured for it",
                    client.pull_batch_size.location, severity="info")

    def _whole_batch(self, client: ClientFact, batch: int) -> Iterable[Finding]:
        if message_model(client) != CLUSTERING or consume_mode(client) != CONCURRENTLY:
            return  # broadcasting drops failures (RMQ003); orderly retries in place (RMQ006)
        if client.configured_elsewhere or any(listener.ack_index for listener in client.listeners):
            return
        failures: list[tuple[str, Location]] = []
        for listener in client.listeners:
            returns = "returns a result other than ConsumeSuccess" if client.api == "go" else "returns RECONSUME_LATER"
            failures += [(returns, loc) for loc in listener.reconsume_later]
            failures += [("throws" if client.api != "python2" else "raises", loc) for loc in listener.throws]
        if not failures:
            return
        what, at = min(failures, key=lambda item: (item[1].path, item[1].line, item[1].column))
        size = client.consume_batch_max_size
        head = (f"consumer {describe_group(client)} {what} for a batch of up to {batch} messages "
                "(consumeMessageBatchMaxSize)")
        if client.api == "go":
            why = (": rocketmq-client-go sends every message of the batch back to be consumed again, the ones already "
                   "handled included (it has no ack index); consume one message at a time "
                   "(WithConsumeMessageBatchMaxSize(1), the default), or succeed and retry the failed ones yourself")
        elif client.api == "java":
            why = (" without setting context.setAckIndex(..): every message of the batch is sent back and consumed "
                   "again, the ones already handled included")
        else:
            who = "the Spring container" if client.api == "spring-listener" else "the C++ core behind the 2.x client"
            why = (f": {who} hands the batch over one message at a time and answers RECONSUME_LATER for all of it at "
                   "the first failure, so every message of the batch is consumed again, the ones already handled "
                   "included; consume one message at a time")
        yield self.finding(
            head + why,
            at, [Related(size.location, f"consumeMessageBatchMaxSize {batch}")] if size.location != at else [])

    def _batch_above_pull(self, client: ClientFact, batch: int, pull: int) -> Finding:
        size = client.consume_batch_max_size
        written = "" if client.pull_batch_size is not None else " (the default)"
        related = [Related(client.pull_batch_size.location, f"pullBatchSize {pull}")] \
            if client.pull_batch_size is not None and client.pull_batch_size.location != size.location else []
        return self.finding(
            f"consumeMessageBatchMaxSize {batch} on consumer {describe_group(client)} is above pullBatchSize "
            f"{pull}{written}: a pull fetches at most {pull} messages, so a batch never holds more",
            size.location, related)

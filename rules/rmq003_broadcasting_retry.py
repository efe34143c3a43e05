"""RMQ003: retry assumptions on a broadcasting consumer."""

from __future__ import annotations

from typing import Iterable

from rmqlint.facts import ClientFact, Location
from rmqlint.findings import Finding, Related, message
from rmqlint.project import Project
from rmqlint.values import literal_texts
from rmqlint.rules._consumers import BROADCASTING, describe_group, is_consumer, lit_text, message_model
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules.base import Example, Rule

# Values that only restate the default, so they assume nothing: Spring's maxReconsumeTimes -1 ("use the client
# default") and delay level 0 ("the broker picks the delay").
_DEFAULT_MAX_RECONSUME = "-1"
_DEFAULT_DELAY_LEVEL = "0"

_JAVA_CONFIG_REFRESHER = """\
package com.example.config;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class ConfigRefresher {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("config_refresher");
        consumer.setNamesrvAddr("127.0.0.1:9876");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.setMaxReconsumeTimes(10);
        consumer.subscribe("ConfigTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            try {
                reload(msgs);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            } catch (RuntimeException e) {
                return ConsumeConcurrentlyStatus.RECONSUME_LATER;
            }
        });
        consumer.start();
    }

    private static void reload(Object msgs) {
    }
}
"""

_JAVA_MAX_ONLY = """\
package com.example.config;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class LocalCacheConsumer {
    private final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("local_cache");

    public void start() throws Exception {
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.setMaxReconsumeTimes(3);
        consumer.subscribe("CacheTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_THROWING = """\
package com.example.notify;

import org.apache.rocketmq.spring.annotation.MessageModel;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(
    topic = "NotifyTopic",
    consumerGroup = "notify_all",
    messageModel = MessageModel.BROADCASTING,
    delayLevelWhenNextConsume = 2)
public class NotifyListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        if (message.isEmpty()) {
            throw new IllegalStateException("empty notification, retry later");
        }
        System.out.println(message);
    }
}
"""

_PYTHON2 = """\
from rocketmq.client import ConsumeStatus, MessageModel, PushConsumer


def refresh(msg):
    try:
        print(msg.body)
    except ValueError:
        return ConsumeStatus.RECONSUME_LATER
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_REFRESH", message_model=MessageModel.BROADCASTING)
consumer.set_name_server_address("127.0.0.1:9876")
consumer.subscribe("RefreshTopic", refresh)
consumer.start()
"""

# The most common real-world shape: the listener is a class of its own file, registered by the consumer.
_JAVA_CROSS_FILE_CONSUMER = """\
package com.example.config;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class ConfigConsumer {
    private final CacheRefreshListener listener;

    public ConfigConsumer(CacheRefreshListener listener) {
        this.listener = listener;
    }

    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("config_cache");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe("ConfigTopic", "*");
        consumer.registerMessageListener(listener);
        consumer.start();
    }
}
"""

_JAVA_CROSS_FILE_LISTENER = """\
package com.example.config;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;

public class CacheRefreshListener implements MessageListenerConcurrently {
    @Override
    public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
        if (msgs.isEmpty()) {
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    }
}
"""

# maxReconsumeTimes would be reported on a concurrent consumer; the class of the other file is orderly.
_JAVA_CROSS_FILE_ORDERLY_CONSUMER = _JAVA_CROSS_FILE_CONSUMER.replace(
    "consumer.subscribe(", "consumer.setMaxReconsumeTimes(3);\n        consumer.subscribe("
)

_JAVA_CROSS_FILE_ORDERLY_LISTENER = """\
package com.example.config;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

public class CacheRefreshListener implements MessageListenerOrderly {
    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> msgs, ConsumeOrderlyContext context) {
        return msgs.isEmpty() ? ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT : ConsumeOrderlyStatus.SUCCESS;
    }
}
"""

# --- near misses that must stay quiet ---

_JAVA_CLUSTERING_RETRY = _JAVA_CONFIG_REFRESHER.replace(
    "setMessageModel(MessageModel.BROADCASTING);", "setMessageModel(MessageModel.CLUSTERING);"
)

_JAVA_BROADCAST_OK = """\
package com.example.config;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class ConfigRefresher {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("config_refresher");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe("ConfigTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            try {
                reload(msgs);
            } catch (RuntimeException e) {
                System.err.println("reload failed, will catch up on the next change: " + e);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();

        DefaultMQPushConsumer retrying = new DefaultMQPushConsumer("config_auditor");
        retrying.setMaxReconsumeTimes(5);
        retrying.subscribe("ConfigTopic", "*");
        retrying.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.RECONSUME_LATER);
        retrying.start();
    }

    private static void reload(Object msgs) {
    }
}
"""

_JAVA_BROADCAST_ORDERLY = """\
package com.example.config;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class RouteTableFollower {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("route_table_follower");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.setMaxReconsumeTimes(3);
        consumer.subscribe("RouteTopic", "*");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) ->
            msgs.isEmpty() ? ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT : ConsumeOrderlyStatus.SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_CLUSTERING_THROWING = """\
package com.example.notify;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "NotifyTopic", consumerGroup = "notify_one", maxReconsumeTimes = 5)
public class NotifyListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        if (message.isEmpty()) {
            throw new IllegalStateException("empty notification, retry later");
        }
        System.out.println(message);
    }
}
"""

_PYTHON2_OK = """\
from rocketmq.client import ConsumeStatus, MessageModel, PushConsumer


def refresh(msg):
    return ConsumeStatus.RECONSUME_LATER


def broadcast(msg):
    print(msg.body)
    return ConsumeStatus.CONSUME_SUCCESS


retrying = PushConsumer("CID_REFRESH")
retrying.subscribe("RefreshTopic", refresh)
retrying.start()

everyone = PushConsumer("CID_BROADCAST", message_model=MessageModel.BROADCASTING)
everyone.subscribe("RefreshTopic", broadcast)
everyone.start()
"""



_GO_BROADCASTING = go_file("""\
func main() {
	c, _ := rocketmq.NewPushConsumer(
		consumer.WithGroupName("price_cache"),
		consumer.WithConsumerModel(consumer.BroadCasting),
	)
	_ = c.Subscribe("PriceTopic", consumer.MessageSelector{},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			for _, msg := range msgs {
				if err := refresh(msg.Body); err != nil {
					return consumer.ConsumeRetryLater, err
				}
			}
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}

func refresh(body []byte) error { return nil }
""")
_GO_CLUSTERING = _GO_BROADCASTING.replace("\t\tconsumer.WithConsumerModel(consumer.BroadCasting),\n", "")


class BroadcastingRetry(Rule):
    CODE = "RMQ003"
    NAME = "broadcasting-retry"
    SEVERITY = "warning"
    SUMMARY = "A broadcasting consumer relies on retries, but broadcasting drops failed messages"
    DOCS = """\
## What it does
Finds BROADCASTING consumers that expect a failed message to come back: a concurrent listener that returns
`RECONSUME_LATER` (Python 2.x: `ConsumeStatus.RECONSUME_LATER`; Go: a callback returning
`consumer.ConsumeRetryLater`, or any result but `ConsumeSuccess`, whatever error it returns beside it), a Spring `RocketMQListener` that throws from
`onMessage` (or a Python 2.x callback that raises), or a consumer that sets `maxReconsumeTimes` or a delay level
(`delayLevelWhenNextConsume`). One finding per consumer, at the most telling place (a `RECONSUME_LATER` return,
else a throw, else the `maxReconsumeTimes` setting, else the delay level); the message lists the other places.
A listener class declared in another file (`registerMessageListener(new CacheRefreshListener())`, or a field or
parameter of that type) is followed there: the finding is then in the listener's file and names the consumer.

## Why is this bad?
Only clustering consumers retry: a failed message goes back to the broker, to `%RETRY%<group>` with a growing delay,
and after `maxReconsumeTimes` (16 by default) to `%DLQ%<group>`. A broadcasting consumer has no retry topic and no
dead-letter queue: the client logs `BROADCASTING, the message consume failed, drop it` and moves on
(rocketmq-client-go's push consumer does the same, word for word).
Returning `RECONSUME_LATER` or throwing (the Spring container turns an exception into `RECONSUME_LATER`) therefore
loses the message on that process, and `maxReconsumeTimes` or a delay level has no effect.

Orderly listeners are not reported: they retry locally, suspending the queue. Consumers whose message model cannot
be known statically are not reported.

## Example
```java
consumer.setMessageModel(MessageModel.BROADCASTING);
consumer.setMaxReconsumeTimes(10);                       // no effect
consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
    ...
    return ConsumeConcurrentlyStatus.RECONSUME_LATER;    // the message is dropped
});
```

## Fix
Handle the failure inside the listener (retry in process, persist the message for a later replay, or make the
state catch up from the source on the next message) and return `CONSUME_SUCCESS`. If the message must be retried
by the broker, consume it in CLUSTERING mode with one consumer group per process that needs it.
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/config/ConfigRefresher.java": _JAVA_CONFIG_REFRESHER},
            expect=(
                ("src/main/java/com/example/config/ConfigRefresher.java", line_of(_JAVA_CONFIG_REFRESHER, "RECONSUME_LATER")),
            ),
            note="RECONSUME_LATER and maxReconsumeTimes on a broadcasting consumer: one finding",
        ),
        Example(
            {"src/main/java/com/example/config/LocalCacheConsumer.java": _JAVA_MAX_ONLY},
            expect=(
                (
                    "src/main/java/com/example/config/LocalCacheConsumer.java",
                    line_of(_JAVA_MAX_ONLY, "setMaxReconsumeTimes"),
                ),
            ),
            note="maxReconsumeTimes alone",
        ),
        Example(
            {"src/main/java/com/example/notify/NotifyListener.java": _SPRING_THROWING},
            expect=(("src/main/java/com/example/notify/NotifyListener.java", line_of(_SPRING_THROWING, "throw new")),),
            note="a Spring listener that throws to retry, with a delay level",
        ),
        Example(
            {"refresh.py": _PYTHON2},
            expect=(("refresh.py", line_of(_PYTHON2, "RECONSUME_LATER")),),
            note="a Python 2.x broadcasting consumer",
        ),
        Example(
            {
                "src/main/java/com/example/config/ConfigConsumer.java": _JAVA_CROSS_FILE_CONSUMER,
                "src/main/java/com/example/config/CacheRefreshListener.java": _JAVA_CROSS_FILE_LISTENER,
            },
            expect=(
                (
                    "src/main/java/com/example/config/CacheRefreshListener.java",
                    line_of(_JAVA_CROSS_FILE_LISTENER, "RECONSUME_LATER"),
                ),
            ),
            note="the listener class is declared in another file; reported in its code, naming the consumer",
        ),
        Example(
            {"cache/main.go": _GO_BROADCASTING},
            expect=(("cache/main.go", line_of(_GO_BROADCASTING, "return consumer.ConsumeRetryLater")),),
            note="Go: a broadcasting consumer's callback returns ConsumeRetryLater",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/config/ConfigRefresher.java": _JAVA_CLUSTERING_RETRY},
            note="the same consumer in clustering mode retries for real",
        ),
        Example(
            {"src/main/java/com/example/config/ConfigRefresher.java": _JAVA_BROADCAST_OK},
            note="a broadcasting consumer that handles failures; a clustering one that retries",
        ),
        Example(
            {"src/main/java/com/example/config/RouteTableFollower.java": _JAVA_BROADCAST_ORDERLY},
            note="an orderly listener retries locally, suspending the queue, in either model",
        ),
        Example(
            {"src/main/java/com/example/notify/NotifyListener.java": _SPRING_CLUSTERING_THROWING},
            note="a clustering Spring listener may throw to retry",
        ),
        Example({"refresh.py": _PYTHON2_OK}, note="Python: clustering retries; broadcasting that succeeds"),
        Example(
            {
                "src/main/java/com/example/config/ConfigConsumer.java": _JAVA_CROSS_FILE_ORDERLY_CONSUMER,
                "src/main/java/com/example/config/CacheRefreshListener.java": _JAVA_CROSS_FILE_ORDERLY_LISTENER,
            },
            note="the listener class of another file is orderly: it retries locally (maxReconsumeTimes applies)",
        ),
        Example({"cache/main.go": _GO_CLUSTERING}, note="Go: a clustering consumer retries"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A consumer with a sign of retries."""
        return any(c.max_reconsume_times or c.delay_level or any(l.reconsume_later or l.throws for l in c.listeners)
                   for _f, c in project.clients() if c.role != "producer")

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, client in project.clients():
            if not is_consumer(client) or message_model(client) != BROADCASTING or not _is_concurrent(client):
                continue
            evidence = _retry_evidence(client)
            if not evidence:
                continue
            (what, location), others = evidence[0], evidence[1:]
            parts: list = [
                f"broadcasting consumer {describe_group(client)} {what}, but broadcasting never retries: a failed "
                f"message is dropped with a log line (no %RETRY% topic, no DLQ)"
            ]
            related = []
            if location.path != client.location.path:
                # A listener class of another file: the finding sits in its code, so name the consumer too.
                parts += ["; the consumer is at ", client.location]
                related.append(Related(client.location, f"broadcasting consumer {describe_group(client)}"))
            for i, (other, loc) in enumerate(others):
                parts += ["; also: " if i == 0 else ", ", f"{other} at ", loc]
                related.append(Related(loc, other))
            yield self.finding(message(*parts), location, related)


def _is_concurrent(client: ClientFact) -> bool:
    """Orderly consumers retry locally, so only concurrent ones (the default) are in scope; unknown: quiet."""
    if client.consume_mode is not None:
        mode = lit_text(client.consume_mode)
        if mode is None or mode.strip().rsplit(".", 1)[-1].upper() != "CONCURRENTLY":
            return False
    return not any(listener.kind == "orderly" for listener in client.listeners)


def _retry_evidence(client: ClientFact) -> list[tuple[str, Location]]:
    """Every sign that the code expects a retry, most telling first."""
    evidence: list[tuple[str, Location]] = []
    for listener in client.listeners:
        returns = "returns a result other than ConsumeSuccess" if client.api == "go" else "returns RECONSUME_LATER"
        evidence += [(returns, loc) for loc in _ordered(listener.reconsume_later)]
    for listener in client.listeners:
        evidence += [("throws from its listener", loc) for loc in _ordered(listener.throws)]
    if client.max_reconsume_times is not None and not _restates(client.max_reconsume_times, _DEFAULT_MAX_RECONSUME):
        evidence.append(("sets maxReconsumeTimes", client.max_reconsume_times.location))
    if client.delay_level is not None and not _restates(client.delay_level, _DEFAULT_DELAY_LEVEL):
        evidence.append(("sets a delay level", client.delay_level.location))
    return evidence


def _restates(setting, default: str) -> bool:
    """Every value the setting may take is the client's default (so it changes nothing)."""
    texts = literal_texts(setting.value)
    return texts is not None and all(text.strip() == default for text in texts)


def _ordered(locations: list[Location]) -> list[Location]:
    return sorted(locations, key=lambda loc: (loc.path, loc.line, loc.column))

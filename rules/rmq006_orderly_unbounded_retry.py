"""RMQ006: an orderly consumer with no maxReconsumeTimes, so a message that always fails blocks its queue forever."""

from __future__ import annotations

from typing import Iterable

from rmqlint.facts import ClientFact
from rmqlint.findings import Finding, Related
from rmqlint.fixes import UNSAFE, Fix, in_slot, replace
from rmqlint.project import Project
from rmqlint.values import Lit, literal_texts
from rmqlint.rules._consumers import GRPC_APIS, describe_group
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._known import fully_known
from rmqlint.rules.base import Example, Rule

ORDERLY = "ORDERLY"
CONCURRENTLY = "CONCURRENTLY"


def consume_mode(client: ClientFact) -> str | None:
    """ORDERLY or CONCURRENTLY when certain (a consume mode setting, else the kind of its listeners), else None."""
    if client.consume_mode is not None:
        texts = fully_known(client.consume_mode.value)
        modes = {t.strip().rsplit(".", 1)[-1].upper() for t in texts} if texts is not None else set()
        return modes.pop() if len(modes) == 1 and modes <= {ORDERLY, CONCURRENTLY} else None
    kinds = {listener.kind for listener in client.listeners}
    if "orderly" in kinds:
        return ORDERLY if kinds <= {"orderly"} else None
    return CONCURRENTLY if kinds and kinds <= {"concurrently", "spring", "python"} else None


_JAVA = """\
package com.example.ledger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;

public class LedgerConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger_consumer");
        consumer.subscribe("LedgerTopic", "*");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
            post(msgs);
            return ConsumeOrderlyStatus.SUCCESS;
        });
        consumer.start();
    }

    private void post(Object msgs) {
    }
}
"""

_SPRING = """\
package com.example.ledger;

import org.apache.rocketmq.spring.annotation.ConsumeMode;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "AccountTopic", consumerGroup = "account_consumer", consumeMode = ConsumeMode.ORDERLY)
public class AccountListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_PYTHON2 = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_step(msg):
    apply(msg.body)
    return ConsumeStatus.CONSUME_SUCCESS


def apply(body):
    print(body)


consumer = PushConsumer("CID_WORKFLOW", orderly=True)
consumer.subscribe("WorkflowTopic", on_step)
consumer.start()
"""

# --- near misses that must stay quiet ---

_JAVA_BOUNDED = """\
package com.example.ledger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;

public class LedgerConsumers {
    public void start() throws Exception {
        DefaultMQPushConsumer bounded = new DefaultMQPushConsumer("ledger_consumer");
        bounded.setMaxReconsumeTimes(5);
        bounded.subscribe("LedgerTopic", "*");
        bounded.registerMessageListener((MessageListenerOrderly) (msgs, context) -> ConsumeOrderlyStatus.SUCCESS);
        bounded.start();

        DefaultMQPushConsumer counting = new DefaultMQPushConsumer("ledger_auditor");
        counting.subscribe("LedgerTopic", "*");
        counting.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
            if (msgs.get(0).getReconsumeTimes() >= 3) {
                return ConsumeOrderlyStatus.SUCCESS;
            }
            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
        });
        counting.start();

        DefaultMQPushConsumer concurrent = new DefaultMQPushConsumer("ledger_reporter");
        concurrent.subscribe("LedgerTopic", "*");
        concurrent.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        concurrent.start();
    }

    public DefaultMQPushConsumer forCaller() {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger_replayer");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> ConsumeOrderlyStatus.SUCCESS);
        return consumer;
    }
}
"""

_SPRING_BOUNDED = _SPRING.replace("consumeMode = ConsumeMode.ORDERLY)",
                                  "consumeMode = ConsumeMode.ORDERLY,\n    maxReconsumeTimes = 3)")

_PYTHON2_COUNTING = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_step(msg):
    if msg.reconsume_times > 5:
        return ConsumeStatus.CONSUME_SUCCESS
    return ConsumeStatus.RECONSUME_LATER


consumer = PushConsumer("CID_WORKFLOW", orderly=True)
consumer.subscribe("WorkflowTopic", on_step)
consumer.start()

plain = PushConsumer("CID_REPORT")
plain.subscribe("WorkflowTopic", on_step)
plain.start()
"""



_GO = go_file("""\
func main() {
	c, _ := rocketmq.NewPushConsumer(
		consumer.WithGroupName("ledger_consumer"),
		consumer.WithConsumerOrder(true),
	)
	_ = c.Subscribe("LedgerTopic", consumer.MessageSelector{},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			if err := apply(msgs); err != nil {
				return consumer.SuspendCurrentQueueAMoment, err
			}
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
}

func apply(msgs []*primitive.MessageExt) error { return nil }
""")
_GO_BOUNDED = _GO.replace("consumer.WithConsumerOrder(true),", "consumer.WithConsumerOrder(true),\\n\\t\\tconsumer.WithMaxReconsumeTimes(16),")
# ConsumeRetryLater is neither committed nor consumed again by an orderly Go consumer: no retry in place.
_GO_NEVER_SUSPENDS = _GO.replace("consumer.SuspendCurrentQueueAMoment", "consumer.ConsumeRetryLater")


_JAVA_MINUS_ONE = """\
package com.example.ledger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class SettlementConsumer {
    private static final Logger LOG = LoggerFactory.getLogger(SettlementConsumer.class);

    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("settlement_consumer");
        consumer.setMaxReconsumeTimes(-1);
        consumer.subscribe("SettlementTopic", "*");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
            try {
                settle(msgs);
                return ConsumeOrderlyStatus.SUCCESS;
            } catch (RuntimeException e) {
                if (msgs.get(0).getReconsumeTimes() > 3) {
                    LOG.error("settlement keeps failing", e);
                }
                return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
            }
        });
        consumer.start();
    }

    private void settle(Object msgs) {
    }
}
"""

# Giving up once the count passes a bound: the read decides a success return.
_JAVA_GIVES_UP = _JAVA_MINUS_ONE.replace("        consumer.setMaxReconsumeTimes(-1);\n", "").replace(
    """                    LOG.error("settlement keeps failing", e);
                }""", """                    LOG.error("settlement keeps failing, parked", e);
                    return ConsumeOrderlyStatus.SUCCESS;
                }""")

_PYTHON2_LOGGED_COUNT = """\
import logging

from rocketmq.client import ConsumeStatus, PushConsumer

log = logging.getLogger(__name__)


def on_settle(msg):
    try:
        settle(msg.body)
        return ConsumeStatus.CONSUME_SUCCESS
    except ValueError:
        if msg.reconsume_times > 3:
            log.error("settlement keeps failing: %s", msg.id)
        return ConsumeStatus.RECONSUME_LATER


def settle(body):
    print(body)


consumer = PushConsumer("CID_SETTLE", orderly=True)
consumer.subscribe("SettlementTopic", on_settle)
consumer.start()
"""

_PYTHON2_GIVES_UP = _PYTHON2_LOGGED_COUNT.replace(
    """            log.error("settlement keeps failing: %s", msg.id)
""", """            log.error("settlement keeps failing: %s", msg.id)
            return ConsumeStatus.CONSUME_SUCCESS
""")


_JAVA_BASE_CLASS = """\
package com.example.ledger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

public abstract class OrderedHandler {
    protected DefaultMQPushConsumer consumer;

    protected void startOrderly(String group, String topic) throws Exception {
        consumer = new DefaultMQPushConsumer(group);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
            try {
                handle(msgs.get(0));
            } catch (RuntimeException e) {
                return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        consumer.start();
    }

    protected abstract void handle(MessageExt message);
}
"""

# A hook the subclass overrides between creation and start() may set the bound.
_JAVA_BASE_CLASS_HOOK = _JAVA_BASE_CLASS.replace("        consumer.start();", "        customize(consumer);\n        consumer.start();").replace(
    "    protected abstract void handle(MessageExt message);",
    "    protected abstract void handle(MessageExt message);\n\n    protected void customize(DefaultMQPushConsumer consumer) {\n    }")


class OrderlyUnboundedRetry(Rule):
    CODE = "RMQ006"
    NAME = "orderly-unbounded-retry"
    SEVERITY = "warning"
    SUMMARY = "An orderly consumer sets no maxReconsumeTimes, so one message that always fails blocks its queue forever"
    DOCS = """\
## What it does
Finds orderly push consumers with no `maxReconsumeTimes`: Java consumers registering a `MessageListenerOrderly`,
Spring `@RocketMQMessageListener(consumeMode = ConsumeMode.ORDERLY)` (the container applies its
`maxReconsumeTimes`, default -1, and whatever `prepareStart` sets), Python 2.x `PushConsumer(.., orderly=True)`, and Go
consumers made with `consumer.WithConsumerOrder(true)` whose callback returns `consumer.SuspendCurrentQueueAMoment`
(rocketmq-client-go consumes a message again in place for that result only) with no `WithMaxReconsumeTimes`, or
with `WithMaxReconsumeTimes(-1)`, the default written out.
A maximum of -1 written out (a setter, an attribute, or a configuration value bound to it: `props.getMaxReconsume()`
reading `mq.max-reconsume: -1`) is the same default, and is reported where it is set. A maximum set to any other
value, or a listener that reads the message's retry count (`getReconsumeTimes()`, `msg.reconsume_times`) in the
condition of a branch that lets the message go (returns a success status, or leaves before one), and so can give up
on a message by itself, keeps the rule quiet; reading the count only to log it, in a listener that suspends on every
path, bounds nothing. So does a consumer that other code may still configure (a factory returns it) and one whose
mode is not known statically.

## Why is this bad?
An orderly consumer retries a failed message in place: it suspends the queue for a moment and hands the same
messages back to the listener, because the next message of the queue must not overtake it. The client gives up on
a message (and sends it to the dead-letter queue) only after `maxReconsumeTimes` attempts, and for orderly
consumption the default, -1, means `Integer.MAX_VALUE` (`ConsumeMessageOrderlyService.getMaxReconsumeTimes`).
One message that always fails (a bug, a malformed payload, a row that no longer exists) then blocks its queue
forever: every later message of that queue waits behind it, the consumer's lag grows, and nothing fails loudly.

rocketmq-client-go does the same (`getOrderlyMaxReconsumeTimes`: -1 is `math.MaxInt32`).

The C++ core behind the Python 2.x client retries a failed orderly message locally with no limit at all, and the
2.x API has no setting for one: only the callback can stop it, by reading `msg.reconsume_times`.

## Example
```java
DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger_consumer");
consumer.subscribe("LedgerTopic", "*");
consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> { ... });
```

## Fix
Set a bound, and monitor the dead-letter queue `%DLQ%<group>` for the messages that reach it:
```java
consumer.setMaxReconsumeTimes(16);
```
In Spring, `@RocketMQMessageListener(consumeMode = ConsumeMode.ORDERLY, maxReconsumeTimes = 16, ...)`. In Python 2.x,
return `CONSUME_SUCCESS` (after recording the message) once `msg.reconsume_times` passes a bound.

`rmqlint --fix --unsafe-fixes` writes the bound of 16 on the line after the consumer is created (Java, a local
variable), after its `consumeMode` attribute (Spring) or after `consumer.WithConsumerOrder(true)` (Go). It is unsafe: a message that fails that often then leaves
its queue for `%DLQ%<group>`, where someone has to look for it, and 16 may not be the bound the team wants.
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/ledger/LedgerConsumer.java": _JAVA},
            expect=(("src/main/java/com/example/ledger/LedgerConsumer.java", line_of(_JAVA, "new DefaultMQ")),),
            note="a MessageListenerOrderly and no maxReconsumeTimes",
        ),
        Example(
            {"src/main/java/com/example/ledger/AccountListener.java": _SPRING},
            expect=(("src/main/java/com/example/ledger/AccountListener.java", line_of(_SPRING, "consumeMode")),),
            note="Spring: consumeMode ORDERLY keeps the annotation's maxReconsumeTimes -1",
        ),
        Example(
            {"workflow.py": _PYTHON2},
            expect=(("workflow.py", line_of(_PYTHON2, "orderly=True")),),
            note="Python 2.x: orderly=True, and a callback that never looks at the retry count",
        ),
        Example(
            {"src/main/java/com/example/ledger/SettlementConsumer.java": _JAVA_MINUS_ONE},
            expect=(("src/main/java/com/example/ledger/SettlementConsumer.java",
                     line_of(_JAVA_MINUS_ONE, "setMaxReconsumeTimes")),),
            note="-1 written out is the unbounded default; the count is read only to log, the queue always suspends",
        ),
        Example(
            {"src/main/java/com/example/ledger/OrderedHandler.java": _JAVA_BASE_CLASS},
            expect=(("src/main/java/com/example/ledger/OrderedHandler.java",
                     line_of(_JAVA_BASE_CLASS, "new DefaultMQ")),),
            note="a base class's protected consumer, created and started in one method: no subclass can bound it",
        ),
        Example(
            {"settlement.py": _PYTHON2_LOGGED_COUNT},
            expect=(("settlement.py", line_of(_PYTHON2_LOGGED_COUNT, "orderly=True")),),
            note="Python 2.x: the retry count read only to log it; every failure is retried",
        ),
        Example(
            {"ledger/main.go": _GO},
            expect=(("ledger/main.go", line_of(_GO, "WithConsumerOrder")),),
            note="Go: WithConsumerOrder(true), a callback that suspends the queue, no WithMaxReconsumeTimes",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/ledger/LedgerConsumers.java": _JAVA_BOUNDED},
            note="a bound set; a listener counting retries; a concurrent listener; a consumer returned to callers",
        ),
        Example({"src/main/java/com/example/ledger/AccountListener.java": _SPRING_BOUNDED},
                note="Spring: maxReconsumeTimes set"),
        Example({"workflow.py": _PYTHON2_COUNTING},
                note="Python 2.x: the callback stops retrying by the count; a concurrent consumer"),
        Example({"src/main/java/com/example/ledger/SettlementConsumer.java": _JAVA_GIVES_UP},
                note="the listener lets the message go once its count passes a bound"),
        Example({"settlement.py": _PYTHON2_GIVES_UP},
                note="Python 2.x: the callback acknowledges the message once its count passes a bound"),
        Example({"src/main/java/com/example/ledger/OrderedHandler.java": _JAVA_BASE_CLASS_HOOK},
                note="a hook subclasses override runs before start(): it may set the bound"),
        Example({"ledger/main.go": _GO_BOUNDED}, note="Go: a bound"),
        Example({"ledger/main.go": _GO_NEVER_SUSPENDS}, note="Go: the orderly callback never asks to consume again"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A push consumer whose consume mode is known."""
        return any(consume_mode(c) is not None for _f, c in project.clients() if c.role == "push_consumer")

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, client in project.clients():
            if client.role != "push_consumer" or client.api in GRPC_APIS or client.configured_elsewhere:
                continue
            unbounded = client.max_reconsume_times is not None and _unbounded_default(client)
            if (client.max_reconsume_times is not None and not unbounded) or consume_mode(client) != ORDERLY:
                continue
            if client.api == "go" and not any(listener.reconsume_later for listener in client.listeners):
                continue  # rocketmq-client-go consumes in place again only for SuspendCurrentQueueAMoment
            if any(listener.reconsume_times for listener in client.listeners):
                continue
            at = client.consume_mode.location if client.consume_mode is not None else client.location
            fix = bound_fix(client)
            if unbounded and client.api != "go":
                at, fix = client.max_reconsume_times.location, _raised_bound(client)
            related = [Related(client.location, f"orderly consumer {describe_group(client)}")] \
                if at != client.location else []
            related += [Related(listener.location, "its orderly listener") for listener in client.listeners
                        if listener.location.path != at.path or listener.location.line != at.line]
            message = self._message(client)
            if unbounded and client.api != "go":
                message = message.replace("sets no maxReconsumeTimes", "sets maxReconsumeTimes to -1, the default")
            yield self.finding(message, at, related, fix=fix)

    @staticmethod
    def _message(client: ClientFact) -> str:
        head = f"orderly consumer {describe_group(client)} sets no maxReconsumeTimes: "
        if client.api == "go":
            return head + ("rocketmq-client-go's default -1 means math.MaxInt32 retries in place for an orderly "
                           "consumer, so one message its callback always answers with SuspendCurrentQueueAMoment "
                           "blocks its queue and every later message of it forever; add "
                           "consumer.WithMaxReconsumeTimes(n)")
        if client.api == "python2":
            return head + ("the C++ core behind the 2.x client retries a failed orderly message in place with no "
                           "limit, so one message that always fails blocks its queue and every later message of "
                           "it; stop retrying in the callback once msg.reconsume_times passes a bound")
        return head + ("for orderly consumption the default -1 means Integer.MAX_VALUE retries in place, so one "
                       "message that always fails blocks its queue and every later message of it forever")


def _unbounded_default(client: ClientFact) -> bool:
    """maxReconsumeTimes -1 (Java `setMaxReconsumeTimes(-1)`, Spring's attribute, Go's WithMaxReconsumeTimes(-1),
    or a bound configuration value of -1): the default written out, unbounded for an orderly consumer. Other
    negative numbers are no default: the Java client sends such a message to the dead-letter queue at its first
    failure (`reconsumeTimes >= maxReconsumeTimes`)."""
    texts = literal_texts(client.max_reconsume_times.value)
    return texts is not None and all(text.strip() == "-1" for text in texts)


def _raised_bound(client: ClientFact) -> Fix | None:
    """-1 written as a literal: the bound written in its place (unsafe, as `bound_fix`)."""
    setting = client.max_reconsume_times
    if setting.written is None or not isinstance(setting.value, Lit) or setting.value.text.strip() != "-1":
        return None
    bound = str(SUGGESTED_MAX_RECONSUME_TIMES)
    return Fix(f"give up on a message after {bound} attempts (it goes to %DLQ%<group>)",
               (replace(setting.written, bound),), UNSAFE)


# The bound the fix writes: the client's default for concurrent consumers, which the docs above advise.
SUGGESTED_MAX_RECONSUME_TIMES = 16


def bound_fix(client: ClientFact) -> Fix | None:
    """Unsafe (a message that fails that often goes to the dead-letter queue instead of being retried forever, and
    someone must watch `%DLQ%<group>`): the bound written next to the consumer's creation (Java) or its
    `consumeMode` attribute (Spring). The 2.x Python API has no such setting."""
    bound = str(SUGGESTED_MAX_RECONSUME_TIMES)
    if client.api == "java" and client.group is not None and client.group.slot is not None \
            and client.group.slot.kind == "call":
        edit = in_slot(client.group.slot, "setMaxReconsumeTimes", bound)
    elif client.api == "go" and client.consume_mode is not None and client.consume_mode.slot is not None:
        edit = in_slot(client.consume_mode.slot, "WithMaxReconsumeTimes", bound)
    elif client.api == "spring-listener" and client.consume_mode is not None and client.consume_mode.slot is not None:
        edit = in_slot(client.consume_mode.slot, "maxReconsumeTimes", bound)
    else:
        return None
    return Fix(f"give up on a message after {bound} attempts (it goes to %DLQ%<group>)", (edit,), UNSAFE)

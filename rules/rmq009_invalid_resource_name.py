"""RMQ009: a topic or group name that RocketMQ refuses at run time."""

from __future__ import annotations

from typing import Iterable

from rmqlint.facts import ClientFact, Location
from rmqlint.findings import Finding
from rmqlint.printable import printable
from rmqlint.client_releases import GO_CLIENT, version_tuple
from rmqlint.project import Project
from rmqlint.rules._consumers import is_consumer
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._known import wrong
from rmqlint.rules.base import Example, Rule

# The characters a topic or group may hold (TopicValidator's bit map, also the 4.x regex `^[%|a-zA-Z0-9_-]+$`).
ALLOWED = frozenset("%|-_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
TOPIC_MAX_LENGTH = 127  # Validators / TopicValidator since 4.7.0 (255 before)
GROUP_MAX_LENGTH = 255  # every released client (Validators.CHARACTER_MAX_LENGTH)
GROUP_MAX_LENGTH_NEXT = 120  # the development line after 5.3.3 and its brokers: %RETRY%<group>_<topic> must fit
# Topics the client refuses to send to (TopicValidator's not-allowed-send set, checked since 4.7.1).
NOT_ALLOWED_SEND = frozenset({"SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
                              "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT"})
SYSTEM_TOPIC_PREFIX = "rmq_sys_"  # reserved for the broker's own topics; brokers refuse to create them (5.1.0+)
# Group names the Java client keeps for clients created without a group, and refuses at start.
RESERVED_GROUPS = {"producer": "DEFAULT_PRODUCER", "consumer": "DEFAULT_CONSUMER"}
# Clients that check group characters when they start: every Java and Spring client and the 5.x clients; the C++
# core under Python 2.x only checks blank names and the length.
_CHECKS_GROUP_CHARACTERS = frozenset({"java", "spring-listener", "spring-config", "python5"})


def bad_characters(name: str) -> str:
    """The characters of `name` outside the allowed set, each once, in order."""
    seen: list[str] = []
    for char in name:
        if char not in ALLOWED and char not in seen:
            seen.append(char)
    return "".join(seen)


def _shown(chars: str) -> str:
    """Each character quoted; a space no report would make visible (a space, a no-break space) by its repr. A
    control character stays as it is: the text reports show it escaped (`rmqlint.printable`), JSON keeps it."""
    return ", ".join(f'"{c}"' if c.strip() or printable(c) != c else repr(c) for c in chars)


def topic_problem(name: str, sending: bool) -> str | None:
    """Why RocketMQ refuses `name` as a topic (sent to when `sending`, else subscribed), or None."""
    if not name.strip():
        return None  # a blank value is more likely filled in at deployment than written so
    chars = bad_characters(name)
    if chars:
        return (f"contains {_shown(chars)}, but a topic may only hold letters, digits, %, |, _ and -: clients refuse "
                f"to send to it and brokers (4.7.1+) refuse to create it"
                + ("" if sending else ", so this subscription never receives a message"))
    if len(name) > TOPIC_MAX_LENGTH:
        return (f"is {len(name)} characters long, over the {TOPIC_MAX_LENGTH} a topic may have (clients since 4.7.0 "
                "refuse to send to it, brokers to create it)")
    if sending and name in NOT_ALLOWED_SEND:
        return "is a system topic the client refuses to send to (\"Sending message to topic[..] is forbidden\")"
    if name.startswith(SYSTEM_TOPIC_PREFIX):
        return (f'starts with "{SYSTEM_TOPIC_PREFIX}", the prefix reserved for the broker\'s own topics: brokers '
                "(5.1.0+) refuse to create such a topic")
    return None


def group_problem(name: str, client: ClientFact, release: str | None = None) -> str | None:
    """Why the client refuses `name` as its group when it starts, or None (`release`: a Go client's, from go.mod)."""
    if not name.strip():
        return None
    if client.api == "go":
        return _go_group_problem(name, client, release)
    chars = bad_characters(name)
    if chars and client.api in _CHECKS_GROUP_CHARACTERS:
        return (f"contains {_shown(chars)}, but a group may only hold letters, digits, %, |, _ and -: the client "
                "refuses it when it starts")
    if len(name) > GROUP_MAX_LENGTH:
        return f"is {len(name)} characters long, over the {GROUP_MAX_LENGTH} the client accepts when it starts"
    if len(name) > GROUP_MAX_LENGTH_NEXT and client.api in _CHECKS_GROUP_CHARACTERS:
        return (f"is {len(name)} characters long: clients after 5.3.3 and their brokers refuse groups over "
                f"{GROUP_MAX_LENGTH_NEXT} characters (the retry topic %RETRY%<group>_<topic> must fit)")
    kind = "producer" if client.role == "producer" else "consumer"
    if name == RESERVED_GROUPS[kind] and client.api in ("java", "spring-listener", "spring-config"):
        return f"is the name the client keeps for {kind}s created without a group: it refuses it when it starts"
    return None


def _go_group_problem(name: str, client: ClientFact, release: str | None) -> str | None:
    """rocketmq-client-go checks a consumer's group when it starts (`internal.ValidateGroup`, and DEFAULT_CONSUMER),
    refusing it from v2.1.2 on (earlier releases log the error and start); a producer's group is not checked."""
    if client.role == "producer":
        return None
    version = version_tuple(release)
    if version is not None and version < GO_REFUSES_GROUPS_SINCE:
        return None  # it logs the error and starts: what the brokers then make of the group is not the client's
    if version is not None:
        refused = f"rocketmq-client-go {release} refuses it when the consumer starts"
    else:
        refused = "rocketmq-client-go refuses it when the consumer starts (releases before v2.1.2 log it and start)"
    chars = bad_characters(name)
    if chars:
        return f"contains {_shown(chars)}, but a group may only hold letters, digits, %, |, _ and -: {refused}"
    if len(name) > GROUP_MAX_LENGTH:
        return f"is {len(name)} characters long, over the {GROUP_MAX_LENGTH} a group may have: {refused}"
    if name == RESERVED_GROUPS["consumer"]:
        return f"is the name rocketmq-client-go keeps for consumers created without a group: {refused}"
    return None


GO_REFUSES_GROUPS_SINCE = (2, 1, 2)  # push_consumer.validate returns ValidateGroup's error (before: logged only)


def _go_release(project: Project, client: ClientFact) -> str | None:
    """The rocketmq-client-go release the module of a Go client builds with (its go.mod), or None."""
    module = project.module_of(client.location.path)
    release = module.release(GO_CLIENT) if module is not None else None
    return release.version if release is not None else None


_JAVA_CONSUMER = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class OrderConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order.consumer.group");
        consumer.subscribe("order-events.v2", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_JAVA_PRODUCER = """\
package com.example.orders;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class DelayedOrders {
    private final DefaultMQProducer producer = new DefaultMQProducer("DEFAULT_PRODUCER");

    public void later(byte[] body) throws Exception {
        producer.send(new Message("SCHEDULE_TOPIC_XXXX", "Delayed", body));
    }
}
"""

_SPRING_LISTENER = """\
package com.example.mail;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "${mail.topic}", consumerGroup = "mail sender")
public class MailListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_CONFIG = """\
mail:
  topic: mail:outbox
"""

# Constants of another class holding Spring placeholders: Spring resolves them in the annotation's strings.
_SPRING_CONSTANTS = """\
package com.example.pay;

public final class PayMq {
    public static final String PAY_TOPIC = "pay_topic${unique-name:}";
    public static final String PAY_GROUP = "pay_cg${unique-name:}";

    private PayMq() {
    }
}
"""

_SPRING_CONSTANT_LISTENER = """\
package com.example.pay;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = PayMq.PAY_TOPIC, consumerGroup = PayMq.PAY_GROUP)
public class PayResultListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_UNIQUE_NAME = """\
unique-name: .staging
"""

_PYTHON2 = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_AUDIT")
consumer.subscribe("rmq_sys_audit", on_message)
consumer.start()
"""

_PYTHON5 = """\
from rocketmq import ClientConfiguration, Credentials, FilterExpression, SimpleConsumer

config = ClientConfiguration("127.0.0.1:8081", Credentials())
consumer = SimpleConsumer(config, "ledger.audit", {"LedgerTopic": FilterExpression("*")})
consumer.startup()
"""

# --- near misses that must stay quiet ---

_JAVA_OK = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class OrderClients {
    public void start(byte[] body) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("order_producer-v2");
        producer.send(new Message("Order_Events-v2", "Created", body));
        producer.send(new Message(System.getProperty("order.topic"), "Created", body));

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order|consumer%group");
        consumer.subscribe("%RETRY%order_consumer", "*");
        consumer.subscribe("RMQ_SYS_TRACE_TOPIC", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_OK = _SPRING_LISTENER.replace('"mail sender"', '"mail_sender"')
_SPRING_OK_CONFIG = _SPRING_CONFIG.replace("mail:outbox", "mail_outbox")

_PYTHON2_OK = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID.AUDIT")
consumer.subscribe("AuditTopic", on_message)
consumer.start()
"""



_GO_CONSUMER = go_file("""\
func main() {
	c, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("mail.sender"))
	_ = c.Subscribe("MailTopic", consumer.MessageSelector{},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
	if err := c.Start(); err != nil {
		panic(err)
	}
	p, _ := rocketmq.NewProducer(producer.WithGroupName("mail.producer"))
	_ = p.Start()
}
""")
_GO_CONSUMER_OK = _GO_CONSUMER.replace('"mail.sender"', '"mail_sender"')



_GO_MOD_OLD = """\
module github.com/acme/mail

go 1.16

require github.com/apache/rocketmq-client-go/v2 v2.1.0
"""


class InvalidResourceName(Rule):
    CODE = "RMQ009"
    NAME = "invalid-resource-name"
    SEVERITY = "error"
    SUMMARY = "A topic or group name RocketMQ refuses: a character it does not allow, too long, or reserved"
    DOCS = f"""\
## What it does
Checks every resolved group (of producers and consumers) and topic (subscribed, or messages built and sent) in
Java, Spring, Python and Go against the rules the client and the broker enforce (rocketmq-client-go checks a
consumer's group only, and refuses it from v2.1.2 on: a module whose go.mod requires an earlier release is not
reported, its consumer logs the error and starts):
- only letters, digits, `%`, `|`, `_` and `-`: a `.`, a `:` or a space is the usual mistake;
- a topic of at most {TOPIC_MAX_LENGTH} characters, a group of at most {GROUP_MAX_LENGTH} (clients after 5.3.3:
  {GROUP_MAX_LENGTH_NEXT});
- no topic the client refuses to send to (`SCHEDULE_TOPIC_XXXX`, the transaction half topics and the other system
  topics `TopicValidator` lists as not sendable), no topic with the broker's reserved prefix `{SYSTEM_TOPIC_PREFIX}`,
  and no group named `DEFAULT_PRODUCER` / `DEFAULT_CONSUMER`.

## Why is this bad?
The Java client validates a group when a producer or consumer starts (`Validators.checkGroup`, and
`DEFAULT_PRODUCER`/`DEFAULT_CONSUMER` are refused there too) and a topic whenever a message is sent
(`Validators.checkMessage`: characters, length, the not-sendable system topics). Brokers since 4.7.1 check topics
the same way when a topic is created or a message arrives, and since 5.1.0 refuse to create topics with the
system prefix. The 5.x clients check group and topic names with the same characters when they are built.
So `order.created` fails on the first send, or, for a consumer, names a topic that can never exist: the
consumer starts, subscribes, and never receives a message. A `.` in a name is the usual mistake, copied from
Kafka or JMS naming.

The C++ core behind the Python 2.x client checks only blank names and the 255-character limit, so its groups are
checked for length only. A blank name is not reported (it is usually filled in at deployment), and names that
are not known statically are not checked.

## Example
```java
DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order.consumer.group"); // start() throws
consumer.subscribe("order-events.v2", "*");                                        // a topic that cannot exist
```

## Fix
Use `_` or `-` instead: `order_consumer_group`, `order-events-v2`, and keep business topics away from the names and
the prefix RocketMQ reserves.
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/orders/OrderConsumer.java": _JAVA_CONSUMER},
            expect=(
                ("src/main/java/com/example/orders/OrderConsumer.java", line_of(_JAVA_CONSUMER, "new DefaultMQ")),
                ("src/main/java/com/example/orders/OrderConsumer.java", line_of(_JAVA_CONSUMER, "subscribe(")),
            ),
            note="a '.' in a consumer group and in a subscribed topic",
        ),
        Example(
            {"src/main/java/com/example/orders/DelayedOrders.java": _JAVA_PRODUCER},
            expect=(
                ("src/main/java/com/example/orders/DelayedOrders.java", line_of(_JAVA_PRODUCER, "new DefaultMQ")),
                ("src/main/java/com/example/orders/DelayedOrders.java", line_of(_JAVA_PRODUCER, "new Message")),
            ),
            note="the group the client keeps for producers without one, and a system topic it refuses to send to",
        ),
        Example(
            {
                "src/main/java/com/example/mail/MailListener.java": _SPRING_LISTENER,
                "src/main/resources/application.yml": _SPRING_CONFIG,
            },
            expect=(
                ("src/main/java/com/example/mail/MailListener.java", line_of(_SPRING_LISTENER, "consumerGroup")),
                ("src/main/java/com/example/mail/MailListener.java", line_of(_SPRING_LISTENER, "consumerGroup")),
            ),
            note="Spring: a space in the group, a ':' in the topic the configuration gives",
        ),
        Example(
            {
                "src/main/java/com/example/pay/PayMq.java": _SPRING_CONSTANTS,
                "src/main/java/com/example/pay/PayResultListener.java": _SPRING_CONSTANT_LISTENER,
                "src/main/resources/application.yml": _SPRING_UNIQUE_NAME,
            },
            expect=(
                ("src/main/java/com/example/pay/PayResultListener.java",
                 line_of(_SPRING_CONSTANT_LISTENER, "consumerGroup")),
                ("src/main/java/com/example/pay/PayResultListener.java",
                 line_of(_SPRING_CONSTANT_LISTENER, "consumerGroup")),
            ),
            note="Spring: constants of another class whose placeholder the configuration sets to a name with a '.'",
        ),
        Example(
            {"audit.py": _PYTHON2},
            expect=(("audit.py", line_of(_PYTHON2, "subscribe(")),),
            note="Python 2.x: a topic with the broker's reserved prefix",
        ),
        Example(
            {"ledger.py": _PYTHON5},
            expect=(("ledger.py", line_of(_PYTHON5, "SimpleConsumer(")),),
            note="Python 5.x: a '.' in the consumer group",
        ),
        Example(
            {"mail/main.go": _GO_CONSUMER},
            expect=(("mail/main.go", line_of(_GO_CONSUMER, "mail.sender")),),
            note="Go: a consumer group with a dot (rocketmq-client-go does not check a producer's group)",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/orders/OrderClients.java": _JAVA_OK},
            note="_, -, | and % are allowed; retry topics and the trace topic may be consumed; a dynamic topic",
        ),
        Example(
            {
                "src/main/java/com/example/mail/MailListener.java": _SPRING_OK,
                "src/main/resources/application.yml": _SPRING_OK_CONFIG,
            },
            note="Spring: names with _ only",
        ),
        Example(
            {
                "src/main/java/com/example/pay/PayMq.java": _SPRING_CONSTANTS,
                "src/main/java/com/example/pay/PayResultListener.java": _SPRING_CONSTANT_LISTENER,
            },
            note="Spring: constants of another class holding a placeholder that defaults to nothing",
        ),
        Example({"audit.py": _PYTHON2_OK}, note="Python 2.x: the C++ core does not check a group's characters"),
        Example({"mail/main.go": _GO_CONSUMER_OK}, note="Go: a valid consumer group; the producer's is not checked"),
        Example({"mail/main.go": _GO_CONSUMER, "mail/go.mod": _GO_MOD_OLD},
                note="Go v2.1.0 (go.mod) logs the group's error and starts the consumer"),

    ]

    def looks_at(self, project: Project) -> bool:
        """A group, a subscribed topic or a produced topic."""
        return any(c.group or c.subscriptions for _f, c in project.clients()) or any(
            True for _ in project.produced())

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, client in project.clients():
            if client.group is not None:
                release = _go_release(project, client) if client.api == "go" else None
                for name in wrong(client.group.value, lambda text: group_problem(text, client, release) is not None):
                    role = "consumer" if is_consumer(client) else "producer"
                    yield self.finding(f'{role} group "{name}" {group_problem(name, client, release)}',
                                       client.group.location)
            if not is_consumer(client):
                continue
            for subscription in client.subscriptions:
                yield from self._topic(subscription.topic, subscription.location, sending=False)
        for _facts, produced in project.produced():
            yield from self._topic(produced.topic, produced.location, sending=True)

    def _topic(self, value, location: Location, sending: bool) -> Iterable[Finding]:
        for name in wrong(value, lambda text: topic_problem(text, sending) is not None):
            what = "sent to" if sending else "subscribed"
            yield self.finding(f'topic "{name}" ({what}) {topic_problem(name, sending)}', location)

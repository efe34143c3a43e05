"""Regressions found by red-teaming rmqlint on a realistic monorepo (/tmp/qa, not kept): each test is one case the
linter got wrong, written the way real teams write RocketMQ client code."""

from __future__ import annotations

from rmqlint.engine import lint_sources
from rmqlint.frontends.python.parse import parse_python

WORKER = "refund_jobs/worker.py"
HANDLERS = "refund_jobs/handlers.py"

HANDLERS_PY = """\
import logging

from rocketmq.client import ConsumeStatus

log = logging.getLogger(__name__)


def on_refund(msg):
    try:
        log.info("refund %s", msg.id)
    except ValueError:
        return ConsumeStatus.RECONSUME_LATER
    return ConsumeStatus.CONSUME_SUCCESS


def helper(msg):
    raise ValueError("not a callback: returns no ConsumeStatus")
"""


def worker(model: str, imports: str, callback: str) -> str:
    return f"""\
from rocketmq.client import MessageModel, PushConsumer

{imports}


def main():
    consumer = PushConsumer("refund_broadcast")
    consumer.set_message_model(MessageModel.{model})
    consumer.subscribe("shop-refund", {callback})
    consumer.start()
"""


def rmq003(files: dict[str, str]) -> list[tuple[str, int]]:
    return [(f.location.path, f.location.line) for f in lint_sources(files) if f.code == "RMQ003"]


def test_python_callback_imported_from_another_module_is_followed():
    files = {HANDLERS: HANDLERS_PY, "refund_jobs/__init__.py": ""}
    for imports, callback in [("from refund_jobs.handlers import on_refund", "on_refund"),
                              ("from .handlers import on_refund as cb", "cb"),
                              ("from refund_jobs import handlers", "handlers.on_refund"),
                              ("import refund_jobs.handlers", "refund_jobs.handlers.on_refund")]:
        found = rmq003({**files, WORKER: worker("BROADCASTING", imports, callback)})
        assert found == [(HANDLERS, 12)], (imports, found)


def test_python_imported_callback_on_clustering_or_unknown_module_is_quiet():
    files = {HANDLERS: HANDLERS_PY}
    assert rmq003({**files, WORKER: worker("CLUSTERING", "from refund_jobs.handlers import on_refund",
                                            "on_refund")}) == []
    assert rmq003({**files, WORKER: worker("BROADCASTING", "from elsewhere.handlers import on_refund",
                                            "on_refund")}) == []
    # two modules of that name in the project (two services): which one runs is not known
    twins = {"svc_a/refund_jobs/handlers.py": HANDLERS_PY,
             "svc_b/refund_jobs/handlers.py": HANDLERS_PY.replace("RECONSUME_LATER", "CONSUME_SUCCESS")}
    assert rmq003({**twins, "svc_a/" + WORKER: worker("BROADCASTING", "from refund_jobs.handlers import on_refund",
                                                     "on_refund")}) == []


def test_python_module_publishes_only_functions_returning_a_consume_status():
    facts = parse_python(HANDLERS, HANDLERS_PY.encode())
    assert set(facts.listener_classes) == {"on_refund"}
    assert [loc.line for loc in facts.listener_classes["on_refund"].reconsume_later] == [12]
    consumer = parse_python(WORKER, worker("BROADCASTING", "from refund_jobs.handlers import on_refund",
                                           "on_refund").encode())
    (listener,) = consumer.clients[0].listeners
    assert (listener.kind, listener.class_ref) == ("unknown", "refund_jobs.handlers.on_refund")


ASSIGNING_JAVA = """\
import java.util.Collection;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.message.MessageQueue;

public class Replayer {
    public void start(Collection<MessageQueue> queues) throws Exception {
        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("replayer");
        consumer.setInstanceName("replayer");
        consumer.start();
        consumer.assign(queues);
    }
}
"""


def test_lite_pull_consumer_assigning_its_queues_is_quiet():
    # assign() takes queues by hand: no rebalance, so a fixed client id splits nothing wrongly
    assert [f.code for f in lint_sources({"Replayer.java": ASSIGNING_JAVA})] == []
    subscribing = ASSIGNING_JAVA.replace("consumer.assign(queues);", 'consumer.subscribe("Replay", "*");')
    assert [f.code for f in lint_sources({"Replayer.java": subscribing})] == ["RMQ001"]


COMPARING_JAVA = """\
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class Shapes {
    void start(ConsumeConcurrentlyStatus last) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("shapes");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe("Shapes", "*");
        consumer.registerMessageListener(new MessageListenerConcurrently() {
            @Override
            public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext ctx) {
                if (last == ConsumeConcurrentlyStatus.RECONSUME_LATER || ConsumeConcurrentlyStatus.RECONSUME_LATER.equals(last)) {
                    System.out.println("retried before: " + ConsumeConcurrentlyStatus.RECONSUME_LATER);
                }
                log(ConsumeConcurrentlyStatus.RECONSUME_LATER);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            }
        });
        consumer.start();
    }

    void log(Object o) {}
}
"""


def test_status_only_compared_or_logged_is_no_retry():
    assert [f.code for f in lint_sources({"Shapes.java": COMPARING_JAVA})] == []
    returning = COMPARING_JAVA.replace("return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;",
                                       "return (ConsumeConcurrentlyStatus.RECONSUME_LATER);")
    (finding,) = lint_sources({"Shapes.java": returning})
    assert (finding.code, finding.location.line) == ("RMQ003", 21)


FACTORY_JAVA = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.springframework.context.annotation.Bean;

public class Factory {
    private DefaultMQPushConsumer base(String group) {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setInstanceName("cache-node");
        return c;
    }

    public void start() throws Exception {
        DefaultMQPushConsumer c = base("cache");
        c.setMessageModel(MessageModel.BROADCASTING);
        c.subscribe("Cache", "*");
        c.start();
    }

    @Bean
    public DefaultMQPushConsumer orders() throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer("orders");
        c.setInstanceName("orders-node");
        c.subscribe("Orders", "*");
        return c;
    }
}
"""


def test_consumer_returned_by_a_factory_method_has_an_unknown_model():
    # the caller switches it to BROADCASTING; only the @Bean consumer (kept as built by Spring) is certain
    findings = lint_sources({"Factory.java": FACTORY_JAVA})
    assert [(f.code, f.location.line) for f in findings] == [("RMQ001", 22)]
    # a model the factory sets itself is kept
    modelled = FACTORY_JAVA.replace('        c.setInstanceName("cache-node");\n',
                                    '        c.setMessageModel(MessageModel.BROADCASTING);\n'
                                    '        c.setMaxReconsumeTimes(3);\n')
    assert [(f.code, f.location.line) for f in lint_sources({"Factory.java": modelled})] == \
        [("RMQ003", 9), ("RMQ001", 23)]


INJECTED_JAVA = """\
import javax.annotation.PostConstruct;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.springframework.beans.factory.annotation.Value;

public class Injected {
    private final String name;

    public Injected(@Value("${shop.consumer.name:ledger-node}") String name) {
        this.name = name;
    }

    @PostConstruct
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger");
        consumer.setInstanceName(name);
        consumer.subscribe("Ledger", "*");
        consumer.start();
    }
}
"""


def test_final_field_injected_through_the_constructor_is_resolved():
    (finding,) = lint_sources({"Injected.java": INJECTED_JAVA})
    assert (finding.code, finding.location.line) == ("RMQ001", 15)
    assert '"ledger-node"' in finding.message
    # Not final, but private and set only by the constructor: the same value.
    not_final = INJECTED_JAVA.replace("private final String name;", "private String name;")
    assert [f.code for f in lint_sources({"Injected.java": not_final})] == ["RMQ001"]
    set_again = not_final.replace("    @PostConstruct", "    public void rename(String name) { this.name = name; }\n\n"
                                  "    @PostConstruct")
    dynamic = INJECTED_JAVA.replace("${shop.consumer.name:ledger-node}", "${HOSTNAME}")
    second_constructor = INJECTED_JAVA.replace("    @PostConstruct", "    public Injected() { this(\"x\"); }\n\n"
                                               "    @PostConstruct")
    unannotated = INJECTED_JAVA.replace('@Value("${shop.consumer.name:ledger-node}") ', "")
    for variant in (set_again, dynamic, second_constructor, unannotated):
        assert lint_sources({"Injected.java": variant}) == []


SMS_JAVA = """\
package com.acme.sms;

IMPORTS
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Sms {
    void start(byte[] body) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("sms");
        consumer.subscribe("Sms", "SmsSent");
        Message m = new Message("Sms", "smsSent", body);
        m.setTags("SMSSENT");
        consumer.start();
    }
}
"""


def test_message_class_of_the_own_package_is_not_rocketmq():
    # no import of Message: in Java that is a class of the file's own package, not RocketMQ's
    assert lint_sources({"Sms.java": SMS_JAVA.replace("IMPORTS", "")}) == []
    for imports in ("import org.apache.rocketmq.common.message.Message;", "import org.apache.rocketmq.common.message.*;"):
        findings = lint_sources({"Sms.java": SMS_JAVA.replace("IMPORTS", imports)})
        assert [(f.code, f.location.line) for f in findings] == [("RMQ002", 9)], imports
        assert '"SMSSENT"' in findings[0].message and '"smsSent"' in findings[0].message


BASE_JAVA = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public abstract class BaseConsumer {
    protected final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("base");

    public void start() throws Exception {
        consumer.setInstanceName("base-node");
        configure();
        consumer.start();
    }

    protected abstract void configure() throws Exception;
}
"""

CACHE_JAVA = """\
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class CacheConsumer extends BaseConsumer {
    protected void configure() throws Exception {
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe("Cache", "*");
    }
}
"""


def test_consumer_field_subclasses_configure_has_an_unknown_model():
    assert lint_sources({"BaseConsumer.java": BASE_JAVA, "CacheConsumer.java": CACHE_JAVA}) == []
    private = BASE_JAVA.replace("public abstract class", "public class").replace("protected final", "private final")
    assert [f.code for f in lint_sources({"BaseConsumer.java": private})] == ["RMQ001"]

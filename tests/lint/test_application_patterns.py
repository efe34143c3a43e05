"""How applications (not one-file demos) make their consumers: a prepareStart hook of a Spring listener on a starter
release that applies the annotation its own way, and a consumer whose class can never be instantiated."""

from __future__ import annotations

from rmqlint.engine import LintOptions, lint
from rmqlint.rules._examples import line_of
from tests.lint.test_engine_fixtures import write_project

POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.shop</groupId>
  <artifactId>mail</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.rocketmq</groupId>
      <artifactId>rocketmq-spring-boot-starter</artifactId>
      <version>2.2.1</version>
    </dependency>
  </dependencies>
</project>
"""

DIGEST = """\
package com.shop.mail;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.spring.annotation.ConsumeMode;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.apache.rocketmq.spring.core.RocketMQPushConsumerLifecycleListener;
import org.springframework.stereotype.Service;

@Service
@RocketMQMessageListener(consumerGroup = "digest", topic = "mail", consumeMode = ConsumeMode.CONCURRENTLY)
public class DigestListener implements RocketMQListener<String>, RocketMQPushConsumerLifecycleListener {
    @Override
    public void onMessage(String message) {
    }

    @Override
    public void prepareStart(DefaultMQPushConsumer consumer) {
        consumer.setPullInterval(1000);
        consumer.setConsumeThreadMin(1);
        consumer.setConsumeThreadMax(10);
    }
}
"""


def findings(tmp_path, files):
    return lint(LintOptions(paths=[write_project(tmp_path, files)], use_cache=False)).findings


def test_prepare_start_sets_the_pool_after_the_starter_applied_the_annotation(tmp_path):
    """Starter 2.2.1 applies only the annotation's consumeThreadMax; prepareStart then sets both bounds on the
    consumer itself: 1 and 10, so the pool never grows past 1 thread."""
    files = {"mail/pom.xml": POM, "mail/src/main/java/com/shop/mail/DigestListener.java": DIGEST}
    found = findings(tmp_path / "a", files)
    assert [(f.code, f.location.line) for f in found] == [("RMQ005", line_of(DIGEST, "setConsumeThreadMax"))]
    assert "consumeThreadMax 10 is above consumeThreadMin 1" in found[0].message
    equal = DIGEST.replace("setConsumeThreadMax(10)", "setConsumeThreadMax(1)")
    assert findings(tmp_path / "b", dict(files, **{"mail/src/main/java/com/shop/mail/DigestListener.java": equal})) == []


HOLDER = """\
package com.shop.mq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class LegacyConsumerHolder {
    private final DefaultMQPushConsumer consumer;

    private LegacyConsumerHolder() {
        consumer = new DefaultMQPushConsumer("legacy_consumer");
        consumer.setInstanceName("legacy-node");
        consumer.setConsumeThreadMin(64);
    }

    public void start() throws Exception {
        consumer.subscribe("legacy", "*");
        consumer.start();
    }
}
"""


def test_a_consumer_of_a_class_no_code_can_instantiate_is_not_reported(tmp_path):
    """The only constructor is private and nothing creates the object: the consumer never exists. Once a factory
    of the class creates it, it does."""
    assert findings(tmp_path / "a", {"src/main/java/com/shop/mq/LegacyConsumerHolder.java": HOLDER}) == []
    created = HOLDER.replace("    public void start()", "    public static LegacyConsumerHolder create() {\n"
                                                         "        return new LegacyConsumerHolder();\n    }\n\n"
                                                         "    public void start()")
    found = findings(tmp_path / "b", {"src/main/java/com/shop/mq/LegacyConsumerHolder.java": created})
    assert sorted((f.code, f.location.line) for f in found) == [
        ("RMQ001", line_of(created, "setInstanceName")), ("RMQ005", line_of(created, "setConsumeThreadMin"))]
    # Spring instantiates a @Component through its private constructor.
    managed = HOLDER.replace("\npublic class", "\nimport org.springframework.stereotype.Component;\n\n@Component\n"
                                               "public class", 1)
    assert len(findings(tmp_path / "c", {"src/main/java/com/shop/mq/LegacyConsumerHolder.java": managed})) == 2


ROUTER = """\
package com.shop.mq;

import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;

public class OrderedRouter {
    private final Map<String, MessageListenerOrderly> handlers;

    public OrderedRouter(Map<String, MessageListenerOrderly> handlers) {
        this.handlers = handlers;
    }

    public void start(String topic) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger_router");
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener(handlers.get(topic));
        consumer.start();
    }
}
"""

STRATEGY = """\
package com.shop.mq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class ChannelConsumers {
    public void start(Channel channel) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("channel_" + channel.name().toLowerCase());
        consumer.subscribe("channels", "*");
        consumer.registerMessageListener(Channel.LEDGER.listener());
        consumer.start();
    }

    enum Channel {
        LEDGER(new LedgerListener());

        private final LedgerListener listener;

        Channel(LedgerListener listener) {
            this.listener = listener;
        }

        LedgerListener listener() {
            return listener;
        }
    }
}
"""

LEDGER = """\
package com.shop.mq;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

public class LedgerListener implements MessageListenerOrderly {
    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> msgs, ConsumeOrderlyContext context) {
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    }
}
"""


def test_a_listener_picked_from_a_map_or_an_enum_constant_is_of_its_declared_kind(tmp_path):
    """An orderly listener attached through a map of handlers, or an enum constant's getter returning a listener
    class of another file, is orderly: RMQ006 applies."""
    files = {"src/main/java/com/shop/mq/OrderedRouter.java": ROUTER,
             "src/main/java/com/shop/mq/ChannelConsumers.java": STRATEGY,
             "src/main/java/com/shop/mq/LedgerListener.java": LEDGER}
    found = findings(tmp_path / "a", files)
    assert sorted((f.code, f.location.path.rpartition("/")[2], f.location.line) for f in found) == [
        ("RMQ006", "ChannelConsumers.java", line_of(STRATEGY, "new DefaultMQ")),
        ("RMQ006", "OrderedRouter.java", line_of(ROUTER, "new DefaultMQ"))]
    bounded = {path: text.replace('consumer.subscribe(', 'consumer.setMaxReconsumeTimes(16);\n        consumer.subscribe(')
               for path, text in files.items()}
    assert findings(tmp_path / "b", bounded) == []

"""Consumers an application's own code makes once per object it builds: a consumer pool whose constructor takes the
pool's bounds (`new RocketMQConsumer(group, min, max)` in a Spring `@Bean`, `this(..)` delegation, a subclass's
`super(..)`), each construction binding the constructor's parameters as a call binds a method's. The finding is at
the argument that gives the value, naming the configuration that sets it; near misses stay quiet. (The properties
class names its prefix by a constant it imports statically from itself, as such components do.)"""

from __future__ import annotations

from rmqlint.engine import LintOptions, lint
from rmqlint.rules._examples import line_of
from tests.lint.test_engine_fixtures import write_project

RES = "mq/src/main/resources"
JAVA = "mq/src/main/java/com/acme/mq"

PROPERTIES = """\
package com.acme.mq;

import static com.acme.mq.RocketMQProperties.PREFIX;

import lombok.Data;
import org.springframework.boot.context.properties.ConfigurationProperties;

@Data
@ConfigurationProperties(PREFIX)
public class RocketMQProperties {
    public static final String PREFIX = "acme.rocketmq";

    private String nameSrvAddr;
    private Consumer consumer = new Consumer();

    @Data
    public static class Consumer {
        private String group = "acme_consumers";
        private int consumeThreadMin = 10;
        private int consumeThreadMax = 50;
    }
}
"""

AUTO_CONFIG = """\
package com.acme.mq;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class RocketMQAutoConfig {
    @Bean
    public RocketMQConsumer rocketMQConsumer(RocketMQProperties properties) throws Exception {
        RocketMQConsumer consumer = new RocketMQConsumer(
                properties.getConsumer().getGroup(),
                properties.getNameSrvAddr(),
                properties.getConsumer().getConsumeThreadMin(),
                properties.getConsumer().getConsumeThreadMax());
        return consumer;
    }
}
"""

CONSUMER = """\
package com.acme.mq;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class RocketMQConsumer {
    private DefaultMQPushConsumer defaultMQPushConsumer;
    private String groupName;
    private String nameAddr;
    private int consumeThreadMin = 5;
    private int consumeThreadMax = 10;
    private final Map<String, String> topics = new ConcurrentHashMap<>();

    public RocketMQConsumer(String groupName, String nameAddr, int consumeThreadMin, int consumeThreadMax) {
        this.groupName = groupName;
        this.nameAddr = nameAddr;
        this.consumeThreadMin = consumeThreadMin;
        this.consumeThreadMax = consumeThreadMax;
        defaultMQPushConsumer = new DefaultMQPushConsumer(this.groupName + "_common");
        defaultMQPushConsumer.setNamesrvAddr(this.nameAddr);
        defaultMQPushConsumer.setConsumeThreadMin(this.consumeThreadMin);
        defaultMQPushConsumer.setConsumeThreadMax(this.consumeThreadMax);
    }

    public void start() throws Exception {
        for (Map.Entry<String, String> topic : topics.entrySet()) {
            defaultMQPushConsumer.subscribe(topic.getKey(), topic.getValue());
        }
        defaultMQPushConsumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        defaultMQPushConsumer.start();
    }
}
"""

APPLICATION_YML = """\
acme:
  rocketmq:
    name-srv-addr: 10.0.0.1:9876
    consumer:
      group: orders
"""


def findings(root, files):
    return lint(LintOptions(paths=[write_project(root, files)], use_cache=False)).findings


def pool_project(**changes) -> dict[str, str]:
    files = {f"{JAVA}/RocketMQProperties.java": PROPERTIES, f"{JAVA}/RocketMQAutoConfig.java": AUTO_CONFIG,
             f"{JAVA}/RocketMQConsumer.java": CONSUMER, f"{RES}/application.yml": APPLICATION_YML}
    files.update(changes)
    return files


def test_a_consumer_pool_built_from_its_constructor_parameters_is_one_consumer_per_new(tmp_path):
    """The pool's bounds reach the setters through the constructor's parameters and fields set from them: the
    `new` in the `@Bean` method binds them to the properties' defaults 10 and 50, so the pool never grows past 10."""
    found = findings(tmp_path / "a", pool_project())
    assert [(f.code, f.location.path, f.location.line) for f in found] == [
        ("RMQ005", f"{JAVA}/RocketMQAutoConfig.java", line_of(AUTO_CONFIG, "getConsumeThreadMax()"))]
    assert "consumeThreadMax 50 is above consumeThreadMin 10" in found[0].message
    assert 'group "orders_common"' in found[0].message
    # A profile setting the maximum to the minimum: reported under the other profile only.
    prod = pool_project(**{f"{RES}/application-prod.yml": "acme.rocketmq.consumer.consume-thread-max: 10\n",
                           f"{RES}/application-dev.yml": "acme.rocketmq.name-srv-addr: localhost:9876\n"})
    found = findings(tmp_path / "b", prod)
    assert [f.code for f in found] == ["RMQ005"]
    assert "(under profile dev)" in found[0].message
    # Near miss: the application sets both bounds alike.
    equal = APPLICATION_YML + "      consume-thread-min: 32\n      consume-thread-max: 32\n"
    assert findings(tmp_path / "c", pool_project(**{f"{RES}/application.yml": equal})) == []


def test_a_field_the_class_also_sets_elsewhere_is_not_the_constructors_value(tmp_path):
    """A setter may change the bound after construction: what the consumer gets is not known, so nothing is said."""
    setter = CONSUMER.replace("    public void start()", """\
    public void setConsumeThreadMax(int consumeThreadMax) {
        this.consumeThreadMax = consumeThreadMax;
    }

    public void start()""").replace("defaultMQPushConsumer.setConsumeThreadMax(this.consumeThreadMax);", "").replace(
        "defaultMQPushConsumer.registerMessageListener(",
        "defaultMQPushConsumer.setConsumeThreadMax(consumeThreadMax);\n        "
        "defaultMQPushConsumer.registerMessageListener(")
    assert findings(tmp_path, pool_project(**{f"{JAVA}/RocketMQConsumer.java": setter})) == []


POOL = """\
package com.acme.mq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class ConsumerPool {
    private final String group;
    private final int threadMin;
    private final int threadMax;

    public ConsumerPool(String group) {
        this(group, 10, 50);
    }

    public ConsumerPool(String group, int threadMin, int threadMax) {
        this.group = group;
        this.threadMin = threadMin;
        this.threadMax = threadMax;
    }

    public void start(String topic) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setConsumeThreadMin(threadMin);
        consumer.setConsumeThreadMax(threadMax);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

ORDER_POOL = """\
package com.acme.orders;

import com.acme.mq.ConsumerPool;

public class OrderPool extends ConsumerPool {
    public OrderPool() {
        super("orders", 16, 16);
    }
}
"""


def test_constructor_delegation_and_a_subclass_bind_the_constructors_parameters(tmp_path):
    """`this(group, 10, 50)` gives every pool made with a group alone the 10/50 pool; a subclass's `super(..)` binds
    its own bounds (equal: quiet)."""
    files = {f"{JAVA}/ConsumerPool.java": POOL, "mq/src/main/java/com/acme/orders/OrderPool.java": ORDER_POOL}
    found = findings(tmp_path / "a", files)
    assert [(f.code, f.location.line) for f in found] == [("RMQ005", line_of(POOL, "this(group, 10, 50)"))]
    # Near miss: a second constructor of the same arity (which one a `new` means is not followed).
    overloaded = POOL.replace("    public ConsumerPool(String group) {", """\
    public ConsumerPool(int threadMin, int threadMax, String group) {
        this(group, threadMin, threadMax);
    }

    public ConsumerPool(String group) {""")
    assert findings(tmp_path / "b", {**files, f"{JAVA}/ConsumerPool.java": overloaded}) == []

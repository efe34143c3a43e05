"""Consumers an application's own code makes once per object it builds: a consumer pool whose constructor takes the
pool's bounds (`new RocketMQConsumer(group, min, max)` in a Spring `@Bean`, `this(..)` delegation, a subclass's
`super(..)`), each construction binding the constructor's parameters as a call binds a method's; and one per use of
an annotation of the project that its own code reads (`@MqConsumer(group = .., threadMax = 64)`), each use binding
the elements it writes and leaving the others their declared defaults. The finding is at
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


# --- an annotation of the project read by its own code --------------------------------------------------------------

MQ_CONSUMER = """\
package com.acme.mq;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface MqConsumer {
    String group();

    String topic();

    String tags() default "*";

    String instanceName() default "acme-mq";

    int threadMin() default 10;

    int threadMax() default 50;

    MessageModel messageModel() default MessageModel.CLUSTERING;
}
"""

REGISTRAR = """\
package com.acme.mq;

import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.stereotype.Component;

@Component
public class MqConsumerRegistrar implements BeanPostProcessor {
    private final List<DefaultMQPushConsumer> consumers = new ArrayList<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        MqConsumer annotation = bean.getClass().getAnnotation(MqConsumer.class);
        if (annotation == null) {
            return bean;
        }
        try {
            DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(annotation.group());
            consumer.setInstanceName(annotation.instanceName());
            consumer.setConsumeThreadMin(annotation.threadMin());
            consumer.setConsumeThreadMax(annotation.threadMax());
            consumer.setMessageModel(annotation.messageModel());
            consumer.subscribe(annotation.topic(), annotation.tags());
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                    ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
            consumer.start();
            consumers.add(consumer);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return bean;
    }
}
"""

ORDER_HANDLER = """\
package com.acme.orders;

import com.acme.mq.MqConsumer;
import org.springframework.stereotype.Service;

@Service
@MqConsumer(group = "orders_consumer", topic = "Orders", threadMax = 64)
public class OrderHandler {
}
"""

STOCK_HANDLER = """\
package com.acme.stock;

import com.acme.mq.MqConsumer;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.springframework.stereotype.Service;

@Service
@MqConsumer(group = "stock_consumer", topic = "Stock", instanceName = "${random.uuid}", threadMin = 20,
        threadMax = 20)
public class StockHandler {
}
"""


def annotation_project(**changes) -> dict[str, str]:
    files = {f"{JAVA}/MqConsumer.java": MQ_CONSUMER, f"{JAVA}/MqConsumerRegistrar.java": REGISTRAR,
             "mq/src/main/java/com/acme/orders/OrderHandler.java": ORDER_HANDLER,
             "mq/src/main/java/com/acme/stock/StockHandler.java": STOCK_HANDLER}
    files.update(changes)
    return files


def test_an_annotation_read_by_the_projects_code_is_one_consumer_per_use_with_its_declared_defaults(tmp_path):
    """Each class annotated `@MqConsumer` gets a consumer from the registrar; what a use leaves out is the element's
    declared default: the order handler's pool is 10 (the default) to 64, and its name the default "acme-mq", the
    same in every replica. The stock handler writes both bounds alike and a name its code may resolve: quiet."""
    handler = "mq/src/main/java/com/acme/orders/OrderHandler.java"
    found = findings(tmp_path / "a", annotation_project())
    assert sorted((f.code, f.location.path, f.location.line) for f in found) == [
        ("RMQ001", handler, line_of(ORDER_HANDLER, "@MqConsumer")),
        ("RMQ005", handler, line_of(ORDER_HANDLER, "@MqConsumer"))]
    by_code = {f.code: f for f in found}
    assert 'instanceName is fixed to "acme-mq"' in by_code["RMQ001"].message
    assert "consumeThreadMax 64 is above consumeThreadMin 10" in by_code["RMQ005"].message
    # Near misses: the use names its own process-unique name and equal bounds; the default made broadcasting.
    quiet = ORDER_HANDLER.replace("threadMax = 64", 'threadMin = 64, threadMax = 64, instanceName = "${HOSTNAME}"')
    assert findings(tmp_path / "b", annotation_project(**{handler: quiet})) == []
    broadcasting = MQ_CONSUMER.replace("default MessageModel.CLUSTERING", "default MessageModel.BROADCASTING")
    assert [f.code for f in findings(tmp_path / "c", annotation_project(**{f"{JAVA}/MqConsumer.java": broadcasting}))
            ] == ["RMQ005"]


def test_an_annotation_the_code_does_not_get_from_a_class_is_not_followed(tmp_path):
    """The registrar reading an annotation handed to it by a caller rmqlint does not follow: unknown, quiet."""
    handed = REGISTRAR.replace("        MqConsumer annotation = bean.getClass().getAnnotation(MqConsumer.class);\n",
                               "        MqConsumer annotation = lookup(bean);\n").replace(
        "    @Override", "    private MqConsumer lookup(Object bean) {\n        return null;\n    }\n\n    @Override")
    assert findings(tmp_path, annotation_project(**{f"{JAVA}/MqConsumerRegistrar.java": handed})) == []


def test_an_annotation_template_survives_the_cache_codec():
    from rmqlint.facts import facts_from_json, facts_to_json
    from rmqlint.frontends.java.parse import parse_java

    facts = parse_java(f"{JAVA}/MqConsumerRegistrar.java", REGISTRAR.encode())
    (template,) = facts.templates
    assert template.method == "@com.acme.mq.MqConsumer"
    assert template.client.consume_thread_min.value.index == -1
    assert facts_from_json(facts_to_json(facts)) == facts

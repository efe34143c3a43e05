"""Values that reach a client's setter through Spring's configuration binding, in projects written as applications
are: a `@ConfigurationProperties` class (Lombok, nested classes, records), `@Value` fields and constructor
parameters, `Environment.getProperty`, each bound from `application.yml` and its profile files. The finding is at
the setter, and its message names the configuration file and line (and the profile); near misses stay quiet."""

from __future__ import annotations

from rmqlint.engine import LintOptions, lint
from rmqlint.rules._examples import line_of
from tests.lint.test_engine_fixtures import write_project

RES = "svc/src/main/resources"
JAVA = "svc/src/main/java/com/shop/mq"

PROPERTIES = """\
package com.shop.mq;

import lombok.Data;
import org.springframework.boot.context.properties.ConfigurationProperties;

@Data
@ConfigurationProperties(prefix = "shop.mq")
public class MqProperties {
    private String nameServer;
    private String instanceName;
    private Consumer consumer = new Consumer();

    @Data
    public static class Consumer {
        private String group = "order_consumer";
        private int threadMin = 20;
        private int threadMax = 20;
    }
}
"""

CONFIG = """\
package com.shop.mq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class MqConfig {
    @Bean(initMethod = "start", destroyMethod = "shutdown")
    public DefaultMQPushConsumer orderConsumer(MqProperties props, OrderListener listener) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(props.getConsumer().getGroup());
        consumer.setNamesrvAddr(props.getNameServer());
        consumer.setInstanceName(props.getInstanceName());
        consumer.setConsumeThreadMin(props.getConsumer().getThreadMin());
        consumer.setConsumeThreadMax(props.getConsumer().getThreadMax());
        consumer.subscribe("orders", "*");
        consumer.registerMessageListener(listener);
        return consumer;
    }
}
"""

LISTENER = """\
package com.shop.mq;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.springframework.stereotype.Component;

@Component
public class OrderListener implements MessageListenerConcurrently {
    @Override
    public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    }
}
"""


def shop(**files: str) -> dict[str, str]:
    """The application: its properties class, the configuration class making the consumer, the listener, and the
    configuration files given (`application_yml=...`, `application_prod_yml=...`)."""
    project = {f"{JAVA}/MqProperties.java": PROPERTIES, f"{JAVA}/MqConfig.java": CONFIG,
               f"{JAVA}/OrderListener.java": LISTENER}
    for name, text in files.items():
        if name.startswith("java_"):
            project[f"{JAVA}/{name[5:]}.java"] = text
        else:
            stem, _, ext = name.rpartition("_")
            project[f"{RES}/{stem.replace('_', '-')}.{ext}"] = text
    return project


def findings(tmp_path, files: dict[str, str]):
    root = write_project(tmp_path / "app", files)
    return lint(LintOptions(paths=[root], use_cache=False)).findings


def at(files, name: str, text: str) -> tuple[str, int]:
    return f"{JAVA}/{name}", line_of(files[f"{JAVA}/{name}"], text)


def test_a_fixed_instance_name_bound_from_application_yml_is_reported_at_the_setter(tmp_path):
    files = shop(application_yml="shop:\n  mq:\n    instance-name: shop-node\n")
    found = findings(tmp_path, files)
    assert [(f.code, f.location.path, f.location.line) for f in found] == [
        ("RMQ001", *at(files, "MqConfig.java", "setInstanceName"))]
    assert f"shop.mq.instance-name is set at {RES}/application.yml:3" in found[0].message
    assert any(r.location.path == f"{RES}/application.yml" and r.location.line == 3 for r in found[0].related)


def test_relaxed_binding_upper_case_and_underscore_keys_and_properties_files(tmp_path):
    files = shop(application_properties="SHOP.MQ.INSTANCE_NAME=shop-node\n")
    found = findings(tmp_path, files)
    assert [(f.code, f.location.line) for f in found] == [("RMQ001", at(files, "MqConfig.java", "setInstanceName")[1])]
    assert f"{RES}/application.properties:1" in found[0].message


def test_a_profile_that_overrides_the_name_with_something_unique_per_process_stays_quiet(tmp_path):
    files = shop(application_yml="shop:\n  mq:\n    instance-name: shop-node\n",
                 application_prod_yml="shop:\n  mq:\n    instance-name: shop-${random.uuid}\n")
    assert findings(tmp_path, files) == []


def test_a_pool_bound_wrong_in_one_profile_says_which_profile_and_file(tmp_path):
    """application.yml lowers the maximum below the minimum's default; prod raises it again, dev reads the base:
    start() throws under dev only."""
    files = shop(application_yml="shop:\n  mq:\n    consumer:\n      thread-max: 8\n",
                 application_dev_yml="shop:\n  mq:\n    name-server: localhost:9876\n",
                 application_prod_yml="shop:\n  mq:\n    consumer:\n      thread-max: 20\n")
    found = findings(tmp_path, files)
    assert [(f.code, f.severity, f.location.line) for f in found] == [
        ("RMQ005", "error", at(files, "MqConfig.java", "setConsumeThreadMin")[1])]
    message = found[0].message
    assert "consumeThreadMin 20 is above consumeThreadMax 8" in message
    assert f"shop.mq.consumer.thread-max is set at {RES}/application.yml:4 (every profile but prod)" in message
    assert message.endswith("(under profile dev)")
    assert found[0].fix is None  # a profile's file is what to change, not the code every profile runs


def test_a_positive_bound_in_every_profile_stays_quiet(tmp_path):
    files = shop(application_yml="shop:\n  mq:\n    consumer:\n      thread-min: 16\n      thread-max: 16\n",
                 application_prod_yml="shop:\n  mq:\n    consumer:\n      thread-min: 32\n      thread-max: 32\n")
    assert findings(tmp_path, files) == []


RECORD = """\
package com.shop.mq;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

@ConfigurationProperties("shop.mq")
public record MqProperties(String nameServer, String instanceName, Consumer consumer) {
    public record Consumer(@DefaultValue("order_consumer") String group, @DefaultValue("20") int threadMin,
                           @DefaultValue("20") int threadMax) {
    }
}
"""

RECORD_CONFIG = CONFIG.replace("getConsumer()", "consumer()").replace("getGroup()", "group()").replace(
    "getNameServer()", "nameServer()").replace("getInstanceName()", "instanceName()").replace(
    "getThreadMin()", "threadMin()").replace("getThreadMax()", "threadMax()")


def test_a_record_with_constructor_binding_and_its_defaults(tmp_path):
    files = shop(application_yml="shop:\n  mq:\n    consumer:\n      thread-max: 4\n")
    files[f"{JAVA}/MqProperties.java"] = RECORD
    files[f"{JAVA}/MqConfig.java"] = RECORD_CONFIG
    found = findings(tmp_path, files)
    assert [(f.code, f.location.line) for f in found] == [("RMQ005", at(files, "MqConfig.java", "setConsumeThreadMin")[1])]
    assert "consumeThreadMin 20 is above consumeThreadMax 4" in found[0].message
    assert f"{RES}/application.yml:4" in found[0].message


VALUE_CONFIG = """\
package com.shop.mq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

@Configuration
public class MqConfig {
    @Value("${shop.mq.thread-min:20}")
    private int threadMin;

    private final int threadMax;
    private final Environment environment;

    public MqConfig(@Value("${shop.mq.thread-max:20}") int threadMax, Environment environment) {
        this.threadMax = threadMax;
        this.environment = environment;
    }

    @Bean(initMethod = "start")
    public DefaultMQPushConsumer orderConsumer(OrderListener listener) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order_consumer");
        consumer.setInstanceName(environment.getProperty("shop.mq.instance", "shop-node"));
        consumer.setConsumeThreadMin(threadMin);
        consumer.setConsumeThreadMax(threadMax);
        consumer.subscribe("orders", "*");
        consumer.registerMessageListener(listener);
        return consumer;
    }
}
"""


def test_value_fields_constructor_parameters_and_environment_get_property(tmp_path):
    files = shop(application_yml="shop:\n  mq:\n    thread-min: 32\n", java_MqConfig=VALUE_CONFIG)
    found = findings(tmp_path, files)
    assert sorted((f.code, f.location.line) for f in found) == [
        ("RMQ001", at(files, "MqConfig.java", "setInstanceName")[1]),
        ("RMQ005", at(files, "MqConfig.java", "setConsumeThreadMin")[1])]
    pool = next(f for f in found if f.code == "RMQ005")
    assert "consumeThreadMin 32 is above consumeThreadMax 20" in pool.message
    assert f"shop.mq.thread-min is set at {RES}/application.yml:3" in pool.message
    # The environment's key set per process: quiet.
    files = shop(application_yml="shop:\n  mq:\n    thread-min: 20\n    instance: ${random.uuid}\n",
                 java_MqConfig=VALUE_CONFIG)
    assert findings(tmp_path / "quiet", files) == []


def test_a_bean_the_class_makes_itself_is_not_bound(tmp_path):
    """`new MqProperties()` in the configuration class holds the initializers, not the configuration: the value
    is not the bound one, so nothing is said of it."""
    config = CONFIG.replace("public DefaultMQPushConsumer orderConsumer(MqProperties props, OrderListener listener)",
                            "private final MqProperties props = new MqProperties();\n\n"
                            "    public DefaultMQPushConsumer orderConsumer(OrderListener listener)")
    files = shop(application_yml="shop:\n  mq:\n    instance-name: shop-node\n", java_MqConfig=config)
    assert findings(tmp_path, files) == []


STARTER_PROPERTIES = PROPERTIES.replace("package com.shop.mq;", "package com.shop.starter;")
STARTER_CONFIG = CONFIG.replace("package com.shop.mq;", "package com.shop.starter;")


def test_a_starter_module_runs_with_the_configuration_of_the_application_that_uses_it(tmp_path):
    """The properties class and the consumer of an in-house starter module with no configuration of its own: the
    one application module of the project configures it; where two applications set the key, which one runs the
    consumer is not known, and nothing is said."""
    files = {"starter/src/main/java/com/shop/starter/MqProperties.java": STARTER_PROPERTIES,
             "starter/src/main/java/com/shop/starter/MqConfig.java": STARTER_CONFIG,
             "starter/src/main/java/com/shop/starter/OrderListener.java": LISTENER.replace(
                 "package com.shop.mq;", "package com.shop.starter;"),
             "app/src/main/resources/application.yml": "shop:\n  mq:\n    instance-name: app-node\n"}
    found = findings(tmp_path, files)
    assert [(f.code, f.location.path) for f in found] == [("RMQ001", "starter/src/main/java/com/shop/starter/MqConfig.java")]
    assert "shop.mq.instance-name is set at app/src/main/resources/application.yml:3" in found[0].message
    files["billing/src/main/resources/application.yml"] = "shop:\n  mq:\n    instance-name: ${random.uuid}\n"
    assert findings(tmp_path / "two", files) == []


ORDERLY_LISTENER = """\
package com.shop.mq;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;
import org.springframework.stereotype.Component;

@Component
public class OrderListener implements MessageListenerOrderly {
    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> msgs, ConsumeOrderlyContext context) {
        try {
            return ConsumeOrderlyStatus.SUCCESS;
        } catch (RuntimeException e) {
            if (msgs.get(0).getReconsumeTimes() > 5) {
                System.err.println("still failing");
            }
            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
        }
    }
}
"""


def test_an_orderly_bound_of_minus_one_bound_from_configuration_is_the_unbounded_default(tmp_path):
    properties = PROPERTIES.replace("        private int threadMax = 20;\n",
                                    "        private int threadMax = 20;\n        private int maxReconsume = 16;\n")
    config = CONFIG.replace("        consumer.subscribe(",
                            "        consumer.setMaxReconsumeTimes(props.getConsumer().getMaxReconsume());\n"
                            "        consumer.subscribe(")
    files = shop(application_yml="shop:\n  mq:\n    consumer:\n      max-reconsume: -1\n", java_MqProperties=properties,
                 java_MqConfig=config, java_OrderListener=ORDERLY_LISTENER)
    found = findings(tmp_path, files)
    assert [(f.code, f.location.line) for f in found] == [("RMQ006", at(files, "MqConfig.java", "setMaxReconsume")[1])]
    assert "sets maxReconsumeTimes to -1, the default" in found[0].message
    assert f"shop.mq.consumer.max-reconsume is set at {RES}/application.yml:4" in found[0].message
    # A positive bound in the configuration: quiet; so is the class's own default of 16.
    files[f"{RES}/application.yml"] = "shop:\n  mq:\n    consumer:\n      max-reconsume: 3\n"
    assert findings(tmp_path / "bounded", files) == []
    del files[f"{RES}/application.yml"]
    assert findings(tmp_path / "default", files) == []


def test_listeners_of_a_starter_the_project_forks_are_configured_by_its_own_container(tmp_path):
    """A project that declares its own @RocketMQMessageListener (a fork of the starter, whose container retries
    an orderly message as it pleases): an orderly listener without maxReconsumeTimes is not known to retry
    forever."""
    listener = """\
package com.shop.mq;

import org.apache.rocketmq.spring.starter.annotation.ConsumeMode;
import org.apache.rocketmq.spring.starter.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.starter.core.RocketMQListener;

@RocketMQMessageListener(topic = "orders", consumerGroup = "order_consumer", consumeMode = ConsumeMode.ORDERLY)
public class OrderListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
    }
}
"""
    annotation = """\
package org.apache.rocketmq.spring.starter.annotation;

public @interface RocketMQMessageListener {
    String consumerGroup();
    String topic();
    ConsumeMode consumeMode() default ConsumeMode.CONCURRENTLY;
    int reconsumeTimes() default 0;
}
"""
    files = {"app/src/main/java/com/shop/mq/OrderListener.java": listener}
    assert [f.code for f in findings(tmp_path / "starter", files)] == ["RMQ006"]
    files["starter/src/main/java/org/apache/rocketmq/spring/starter/annotation/RocketMQMessageListener.java"] = \
        annotation
    assert findings(tmp_path / "fork", files) == []

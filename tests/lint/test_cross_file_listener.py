"""A message listener class declared in another file than the consumer that registers it (RMQ003's most common
real-world shape): the Java frontend records the class by name, the declaring file publishes its listener
classes, and the linker joins them through imports, the package, or a unique simple name. The declaring file is
parsed only because a consumer refers to it."""

from __future__ import annotations

from rmqlint.engine import LintOptions, lint, lint_sources
from rmqlint.frontends.java.prefilter import may_use_clients as mentions_rocketmq
from rmqlint.frontends.java.parse import parse_java
from tests.lint.test_engine_fixtures import write_project

PKG = "src/main/java/com/acme/config"
CONSUMER = f"{PKG}/ConfigConsumer.java"
LISTENER = f"{PKG}/CacheRefreshListener.java"

CONSUMER_JAVA = """\
package com.acme.config;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class ConfigConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("config_cache");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe("ConfigTopic", "*");
        consumer.registerMessageListener(new CacheRefreshListener());
        consumer.start();
    }
}
"""

# Injected through the constructor and kept in a field: the field's declared type names the class.
CONSUMER_FIELD_JAVA = """\
package com.acme.config;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class ConfigConsumer {
    private final CacheRefreshListener listener;
    private final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("config_cache");

    public ConfigConsumer(CacheRefreshListener listener) {
        this.listener = listener;
    }

    public void start() throws Exception {
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe("ConfigTopic", "*");
        consumer.registerMessageListener(this.listener);
        consumer.start();
    }
}
"""

LISTENER_JAVA = """\
package com.acme.config;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;

public class CacheRefreshListener implements MessageListenerConcurrently {
    @Override
    public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
        try {
            reload(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        } catch (RuntimeException e) {
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }
    }

    private void reload(List<MessageExt> msgs) {
    }
}
"""

LISTENER_OK_JAVA = LISTENER_JAVA.replace("ConsumeConcurrentlyStatus.RECONSUME_LATER",
                                        "ConsumeConcurrentlyStatus.CONSUME_SUCCESS")

ORDERLY_LISTENER_JAVA = """\
package com.acme.config;

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


def line_of(text: str, needle: str) -> int:
    (line,) = [n for n, s in enumerate(text.splitlines(), start=1) if needle in s]
    return line


def rmq003(files: dict[str, str]) -> list[tuple[str, int]]:
    return [(f.location.path, f.location.line) for f in lint_sources(files) if f.code == "RMQ003"]


def test_listener_class_in_another_file_is_followed():
    findings = [f for f in lint_sources({CONSUMER: CONSUMER_JAVA, LISTENER: LISTENER_JAVA}) if f.code == "RMQ003"]
    assert [(f.location.path, f.location.line) for f in findings] == [
        (LISTENER, line_of(LISTENER_JAVA, "RECONSUME_LATER"))]
    # The finding sits in the listener's code; its message names the consumer that makes it broadcasting.
    message = findings[0].message
    assert 'group "config_cache" returns RECONSUME_LATER' in message
    assert f"the consumer is at {CONSUMER}:{line_of(CONSUMER_JAVA, 'new DefaultMQPushConsumer')}" in message


def test_field_injected_through_the_constructor_is_followed_by_its_type():
    assert rmq003({CONSUMER: CONSUMER_FIELD_JAVA, LISTENER: LISTENER_JAVA}) == [
        (LISTENER, line_of(LISTENER_JAVA, "RECONSUME_LATER"))]


def test_clustering_consumer_with_the_same_listener_is_quiet():
    clustering = CONSUMER_JAVA.replace("MessageModel.BROADCASTING", "MessageModel.CLUSTERING")
    assert rmq003({CONSUMER: clustering, LISTENER: LISTENER_JAVA}) == []
    # and a broadcasting consumer whose listener class handles its failures is quiet too
    assert rmq003({CONSUMER: CONSUMER_JAVA, LISTENER: LISTENER_OK_JAVA}) == []


def test_orderly_listener_class_is_quiet_even_with_max_reconsume_times():
    # maxReconsumeTimes alone would be reported on a concurrent consumer: quiet only because the class of the
    # other file was found to be orderly (orderly consumers retry locally).
    consumer = CONSUMER_JAVA.replace("consumer.subscribe(",
                                     "consumer.setMaxReconsumeTimes(3);\n        consumer.subscribe(")
    assert rmq003({CONSUMER: consumer, LISTENER: ORDERLY_LISTENER_JAVA}) == []
    assert rmq003({CONSUMER: consumer, LISTENER: LISTENER_OK_JAVA}) == [
        (CONSUMER, line_of(consumer, "setMaxReconsumeTimes"))]


def test_import_from_another_package_decides_between_classes_of_one_name():
    retrying = "src/main/java/com/acme/listeners/CacheRefreshListener.java"
    handling = "src/main/java/com/acme/other/CacheRefreshListener.java"
    files = {
        retrying: LISTENER_JAVA.replace("package com.acme.config;", "package com.acme.listeners;"),
        handling: LISTENER_OK_JAVA.replace("package com.acme.config;", "package com.acme.other;"),
    }

    def importing(package: str) -> str:
        return CONSUMER_JAVA.replace("import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;",
                                     f"import com.acme.{package}.CacheRefreshListener;\n"
                                     "import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;")

    assert rmq003({CONSUMER: importing("listeners"), **files}) == [
        (retrying, line_of(files[retrying], "RECONSUME_LATER"))]
    assert rmq003({CONSUMER: importing("other"), **files}) == []
    # A fully qualified `new com.acme.listeners.CacheRefreshListener()` needs no import.
    qualified = CONSUMER_JAVA.replace("new CacheRefreshListener()", "new com.acme.listeners.CacheRefreshListener()")
    assert rmq003({CONSUMER: qualified, **files}) == [(retrying, line_of(files[retrying], "RECONSUME_LATER"))]
    # Not imported, not in the consumer's package, two candidates: which one runs is unknown, so quiet.
    assert rmq003({CONSUMER: CONSUMER_JAVA, **files}) == []


def test_class_of_the_same_package_wins_over_one_elsewhere():
    elsewhere = "src/main/java/com/acme/other/CacheRefreshListener.java"
    files = {CONSUMER: CONSUMER_JAVA, LISTENER: LISTENER_JAVA,
             elsewhere: LISTENER_OK_JAVA.replace("package com.acme.config;", "package com.acme.other;")}
    assert rmq003(files) == [(LISTENER, line_of(LISTENER_JAVA, "RECONSUME_LATER"))]


def test_unresolvable_class_is_quiet():
    # Not in the project (a library class) or not a listener class: the listener stays unknown.
    assert rmq003({CONSUMER: CONSUMER_JAVA}) == []
    not_a_listener = "package com.acme.config;\n\npublic class CacheRefreshListener {\n}\n"
    assert rmq003({CONSUMER: CONSUMER_JAVA, LISTENER: not_a_listener}) == []
    abstract = LISTENER_JAVA.replace("public class", "public abstract class")
    assert rmq003({CONSUMER: CONSUMER_FIELD_JAVA, LISTENER: abstract}) == []


def test_listener_inherited_from_a_superclass_of_its_file_and_its_delay_level():
    listener = """\
package com.acme.config;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.*;
import org.apache.rocketmq.common.message.MessageExt;

public class CacheRefreshListener extends BaseListener {
}

abstract class BaseListener implements MessageListenerConcurrently {
    static final int LATER = 2;

    public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
        context.setDelayLevelWhenNextConsume(LATER);
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    }
}
"""
    (finding,) = [f for f in lint_sources({CONSUMER: CONSUMER_JAVA, LISTENER: listener}) if f.code == "RMQ003"]
    assert (finding.location.path, finding.location.line) == (LISTENER, line_of(listener, "setDelayLevel"))
    assert "sets a delay level" in finding.message


def test_frontend_facts_for_both_sides():
    consumer = parse_java(CONSUMER, CONSUMER_FIELD_JAVA.encode())
    (client,) = consumer.clients
    (placeholder,) = client.listeners
    assert (placeholder.kind, placeholder.class_ref, placeholder.reconsume_later) == (
        "unknown", "CacheRefreshListener", [])
    declaring = parse_java(LISTENER, LISTENER_JAVA.encode())
    assert list(declaring.listener_classes) == ["CacheRefreshListener"]
    listener = declaring.listener_classes["CacheRefreshListener"]
    assert listener.kind == "concurrently"
    assert [loc.line for loc in listener.reconsume_later] == [line_of(LISTENER_JAVA, "RECONSUME_LATER")]
    assert parse_java(CONSUMER, CONSUMER_JAVA.encode()).listener_classes == {}
    # A type parameter or RocketMQ's own interface is no class to look for; a generic class is, without <..>.
    generic = CONSUMER_FIELD_JAVA.replace(
        "    public void start()",
        "    public <T extends MessageListenerConcurrently> void start(T typed, MessageListenerConcurrently plain)")
    generic = generic.replace("consumer.registerMessageListener(this.listener);",
                              "consumer.registerMessageListener(typed);\n"
                              "        consumer.registerMessageListener(plain);\n"
                              "        consumer.registerMessageListener(new RetryingListener<>());")
    (client,) = parse_java(CONSUMER, generic.encode()).clients
    assert [(l.kind, l.class_ref) for l in client.listeners] == [
        ("unknown", ""), ("concurrently", ""), ("unknown", "RetryingListener")]


def test_listener_file_is_parsed_only_because_it_is_referenced(tmp_path):
    unreferenced = LISTENER_JAVA.replace("CacheRefreshListener", "AuditListener")
    files = {CONSUMER: CONSUMER_JAVA, LISTENER: LISTENER_JAVA, f"{PKG}/AuditListener.java": unreferenced}
    # A file that only declares a listener class fails the prefilter: nothing but a reference parses it.
    assert not mentions_rocketmq(LISTENER_JAVA.encode()) and not mentions_rocketmq(unreferenced.encode())
    root = write_project(tmp_path / "p", files)
    expected = [("RMQ003", LISTENER, line_of(LISTENER_JAVA, "RECONSUME_LATER"))]

    def run():
        result = lint(LintOptions(paths=[root]))
        return [(f.code, f.location.path, f.location.line) for f in result.findings], result.parsed

    assert run() == (expected, 2)  # the consumer and the listener it registers; never AuditListener.java
    assert run() == (expected, 0)  # warm: everything from the cache
    # The consumer changes: only it is parsed again; the listener's facts, parsed on demand before, come from
    # the cache when the linker asks for them again.
    (root / CONSUMER).write_text(CONSUMER_JAVA.replace('"ConfigTopic"', '"ConfigTopic2"'), encoding="utf-8")
    assert run() == (expected, 1)
    (root / LISTENER).write_text(LISTENER_OK_JAVA, encoding="utf-8")
    assert run() == ([], 1)

"""`rmqlint --fix`, fix by fix, in every language a fix speaks: the file as it must read after the fix, a near miss
in the same project that must not be touched, and a second run that no longer reports what was fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from rmqlint.cli import main
from rmqlint.engine import LintOptions, lint
from rmqlint.frontends import frontend_for
from tests.lint.test_engine_fixtures import write_project


def fix(tmp_path: Path, files: dict[str, str | bytes], *flags: str) -> dict[str, bytes]:
    """Write the project, run `rmqlint ROOT --fix FLAGS`, and return every file as it is afterwards."""
    root = write_project(tmp_path / "p", files)
    main([str(root), "--fix", *flags])
    return {rel: (root / rel).read_bytes() for rel in files}


def codes_after(tmp_path: Path) -> list[tuple[str, str]]:
    """The errors and warnings a fresh run reports (info notes such as RMQ012 are not what these fixes are about)."""
    result = lint(LintOptions(paths=[tmp_path / "p"], use_cache=False))
    return [(f.code, f.location.path) for f in result.findings if f.severity != "info"]


def parses(path: str, data: bytes) -> bool:
    return not frontend_for(path).parse(path, data).problems


def text(data: bytes) -> str:
    return data.decode("utf-8")


# --- RMQ008: ';' between name server addresses ---------------------------------------------------------------

NAMESRV_JAVA = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class Clients {
    private static final String NAMESRV = "10.0.0.1:9876, 10.0.0.2:9876";

    public void start() throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("order_producer");
        producer.setNamesrvAddr(NAMESRV); // shared list
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order_consumer");
        consumer.setNamesrvAddr("10.0.0.3:9876 10.0.0.4:9876");
        DefaultMQPushConsumer ok = new DefaultMQPushConsumer("audit_consumer");
        ok.setNamesrvAddr("10.0.0.5:9876;10.0.0.6:9876");
    }
}
"""


def test_rmq008_java_literal_safe_and_constant_unsafe(tmp_path):
    # The literal is read by its setter alone; the constant, by whatever code names it: only with --unsafe-fixes.
    path = "src/main/java/com/app/Clients.java"
    after = text(fix(tmp_path, {path: NAMESRV_JAVA})[path])
    assert after == NAMESRV_JAVA.replace('"10.0.0.3:9876 10.0.0.4:9876"', '"10.0.0.3:9876;10.0.0.4:9876"')
    assert codes_after(tmp_path) == [("RMQ008", path)]
    main([str(tmp_path / "p"), "--fix", "--unsafe-fixes"])
    after = (tmp_path / "p" / path).read_text()
    assert after == NAMESRV_JAVA.replace('"10.0.0.1:9876, 10.0.0.2:9876"', '"10.0.0.1:9876;10.0.0.2:9876"').replace(
        '"10.0.0.3:9876 10.0.0.4:9876"', '"10.0.0.3:9876;10.0.0.4:9876"')
    assert '"10.0.0.5:9876;10.0.0.6:9876"' in after  # the near miss, as it was
    assert codes_after(tmp_path) == []


def test_rmq008_a_constant_other_code_splits_is_an_unsafe_fix(tmp_path):
    source = """\
package com.app;

import java.util.Arrays;
import java.util.List;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class Clients {
    static final String NAMESRV = "10.0.0.1:9876,10.0.0.2:9876";
    static final List<String> HOSTS = Arrays.asList(NAMESRV.split(","));

    public void start() throws Exception {
        new DefaultMQProducer("pg").setNamesrvAddr(NAMESRV);
    }
}
"""
    path = "src/main/java/com/app/Clients.java"
    assert text(fix(tmp_path, {path: source})[path]) == source
    (finding,) = lint(LintOptions(paths=[tmp_path / "p"], use_cache=False)).findings
    assert (finding.code, finding.fix.applicability) == ("RMQ008", "unsafe")
    assert finding.fix.message == 'separate the addresses with ";" where the value is written (unsafe: other code ' \
                                  'may read it too)'


def test_rmq008_properties_keeps_gbk_and_crlf(tmp_path):
    # A GBK comment (not UTF-8: the file is read as ISO-8859-1) and CRLF line ends: both stay, byte for byte.
    source = ("# 名称服务器\r\nrocketmq.name-server=10.0.0.1:9876,10.0.0.2:9876\r\nrocketmq.producer.group=pg\r\n"
              "other.list=a,b\r\n").encode("gbk")
    path = "src/main/resources/application.properties"
    after = fix(tmp_path, {path: source})[path]
    assert after == source.replace(b"10.0.0.1:9876,10.0.0.2:9876", b"10.0.0.1:9876;10.0.0.2:9876")
    assert b"other.list=a,b\r\n" in after and after.startswith("# 名称服务器\r\n".encode("gbk"))
    assert codes_after(tmp_path) == []


def test_rmq010_a_constant_is_an_unsafe_fix(tmp_path):
    source = """\
from rocketmq.client import PushConsumer

TAGS = "Created,Paid"
consumer = PushConsumer("CID_ORDER")
consumer.subscribe("OrderTopic", print, TAGS)
audit = PushConsumer("CID_AUDIT")
audit.subscribe("OrderTopic", print, "Created,Paid")
"""
    assert text(fix(tmp_path, {"app.py": source})["app.py"]) == source.replace(
        'print, "Created,Paid"', 'print, "Created||Paid"')
    (finding,) = [f for f in lint(LintOptions(paths=[tmp_path / "p"], use_cache=False)).findings if f.code == "RMQ010"]
    assert finding.fix.applicability == "unsafe" and finding.location.line == 5
    assert text(fix(tmp_path, {"app.py": source}, "--unsafe-fixes")["app.py"]) == source.replace(
        "Created,Paid", "Created||Paid")


def test_rmq008_yaml_plain_and_quoted(tmp_path):
    source = """\
rocketmq:
  name-server: 10.0.0.1:9876 10.0.0.2:9876   # two name servers
  producer:
    group: pg
pay:
  namesrv: "10.0.0.7:9876,10.0.0.8:9876"
  hosts: a b
"""
    listener = """\
package com.app;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "PayTopic", consumerGroup = "pay", nameServer = "${pay.namesrv}")
public class PayListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
    files = {"src/main/resources/application.yml": source, "src/main/java/com/app/PayListener.java": listener}
    after = fix(tmp_path, files)
    assert text(after["src/main/resources/application.yml"]) == source.replace(
        "10.0.0.1:9876 10.0.0.2:9876", "10.0.0.1:9876;10.0.0.2:9876")
    # pay.namesrv is a key of the application's: other code may read it, so its fix is unsafe
    assert codes_after(tmp_path) == [("RMQ008", "src/main/java/com/app/PayListener.java")]
    main([str(tmp_path / "p"), "--fix", "--unsafe-fixes"])
    assert (tmp_path / "p/src/main/resources/application.yml").read_text() == source.replace(
        "10.0.0.1:9876 10.0.0.2:9876", "10.0.0.1:9876;10.0.0.2:9876").replace(
        '"10.0.0.7:9876,10.0.0.8:9876"', '"10.0.0.7:9876;10.0.0.8:9876"')
    assert (tmp_path / "p/src/main/java/com/app/PayListener.java").read_text() == listener  # the value was fixed
    assert codes_after(tmp_path) == []


def test_rmq008_annotation_placeholder_default(tmp_path):
    listener = """\
package com.app;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "PayTopic", consumerGroup = "pay",
    nameServer = "${pay.namesrv:10.0.0.1:9876,10.0.0.2:9876}")
public class PayListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
    near_miss = listener.replace("PayListener", "EnvListener").replace(
        "${pay.namesrv:10.0.0.1:9876,10.0.0.2:9876}", "${NAMESRV_ADDR:10.0.0.1:9876,10.0.0.2:9876}")
    files = {"src/main/java/com/app/PayListener.java": listener, "src/main/java/com/app/EnvListener.java": near_miss}
    after = fix(tmp_path, files)
    assert text(after["src/main/java/com/app/PayListener.java"]) == listener.replace(
        "${pay.namesrv:10.0.0.1:9876,10.0.0.2:9876}", "${pay.namesrv:10.0.0.1:9876;10.0.0.2:9876}")
    assert text(after["src/main/java/com/app/EnvListener.java"]) == near_miss  # the environment decides
    assert codes_after(tmp_path) == []


def test_rmq008_python(tmp_path):
    source = """\
import os

from rocketmq.client import Producer
from rocketmq import ClientConfiguration, Credentials

producer = Producer("PID_STOCK")
producer.set_name_server_address('10.0.0.1:9876,10.0.0.2:9876')
config = ClientConfiguration("10.0.0.1:8081 , 10.0.0.2:8081", Credentials())
other = Producer("PID_AUDIT")
other.set_name_server_address(os.environ["NAMESRV_ADDR"])
spaced = Producer("PID_SPACED")
spaced.set_name_server_address("10.0.0.1:9876; 10.0.0.2:9876")
"""
    after = text(fix(tmp_path, {"app/stock.py": source})["app/stock.py"])
    assert after == source.replace("'10.0.0.1:9876,10.0.0.2:9876'", "'10.0.0.1:9876;10.0.0.2:9876'").replace(
        '"10.0.0.1:8081 , 10.0.0.2:8081"', '"10.0.0.1:8081;10.0.0.2:8081"')
    assert codes_after(tmp_path) == []


# --- RMQ010: '||' between subscribed tags ----------------------------------------------------------------------

def test_rmq010_java_spring_and_near_misses(tmp_path):
    consumer = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class Billing {
    public void start(DefaultMQProducer producer, byte[] body) throws Exception {
        DefaultMQPushConsumer billing = new DefaultMQPushConsumer("billing");
        billing.subscribe("OrderTopic", "Created,Paid");
        DefaultMQPushConsumer legacy = new DefaultMQPushConsumer("legacy");
        legacy.subscribe("OrderTopic", "v1,v2");
        billing.start();
        legacy.start();
        producer.send(new Message("OrderTopic", "v1,v2", body));
        producer.send(new Message("OrderTopic", "Cancelled||Refunded", body));
    }
}
"""
    listener = """\
package com.app;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "PayTopic", consumerGroup = "pay_notifier",
    selectorExpression = "PaySuccess | PayFail")
public class PayResultListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
    files = {"src/main/java/com/app/Billing.java": consumer, "src/main/java/com/app/PayResultListener.java": listener}
    after = fix(tmp_path, files)
    # "v1,v2" is sent as such: the subscription matches it and is left; the produced tag with || has no fix.
    assert text(after["src/main/java/com/app/Billing.java"]) == consumer.replace('"Created,Paid"', '"Created||Paid"')
    assert text(after["src/main/java/com/app/PayResultListener.java"]) == listener.replace(
        '"PaySuccess | PayFail"', '"PaySuccess || PayFail"')
    assert codes_after(tmp_path) == [("RMQ010", "src/main/java/com/app/Billing.java")]  # the produced tag


def test_rmq010_yaml_and_python(tmp_path):
    config = """\
rocketmq:
  name-server: 127.0.0.1:9876
  consumer:
    group: report_puller
    topic: ReportTopic
    selector-expression: Daily;Weekly
"""
    python = """\
from rocketmq.client import ConsumeStatus, PushConsumer
from rocketmq import ClientConfiguration, Credentials, FilterExpression, SimpleConsumer


def on_stock(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_STOCK")
consumer.subscribe("StockTopic", on_stock, "Reserved/Released")
ok = PushConsumer("CID_OK")
ok.subscribe("StockTopic", on_stock, "Reserved || Released")
config = ClientConfiguration("127.0.0.1:8081", Credentials())
audit = SimpleConsumer(config, "ledger_audit", {"LedgerTopic": FilterExpression("Posted, Reversed")})
"""
    after = fix(tmp_path, {"src/main/resources/application.yml": config, "stock.py": python})
    assert text(after["src/main/resources/application.yml"]) == config.replace("Daily;Weekly", "Daily||Weekly")
    assert text(after["stock.py"]) == python.replace('"Reserved/Released"', '"Reserved||Released"').replace(
        '"Posted, Reversed"', '"Posted || Reversed"')
    assert codes_after(tmp_path) == []


# --- RMQ002: the subscription takes the one spelling the producers send -----------------------------------------

PRODUCER = """\
package com.app;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class Producer {
    public void send(DefaultMQProducer producer, byte[] body) throws Exception {
        producer.send(new Message("TopicTest", "aaaaa", body));
        producer.send(new Message("PayTopic", "PaySuccess", body));
        producer.send(new Message("TwoTopic", "order", body));
        producer.send(new Message("TwoTopic", "ORDER", body));
    }
}
"""

CONSUMERS = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Consumers {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("consumer_group");
        consumer.subscribe("TopicTest", "Aaaaa || Bbbbb");
        DefaultMQPushConsumer two = new DefaultMQPushConsumer("two_group");
        two.subscribe("TwoTopic", "Order");
        consumer.start();
        two.start();
    }
}
"""


def test_rmq002_java_annotation_and_properties(tmp_path):
    listener = """\
package com.app;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "${pay.topic}", consumerGroup = "pay_success",
    selectorExpression = "${pay.tag:paySuccess}")
public class PayListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
    properties = "pay.topic=PayTopic\nrocketmq.pull-consumer.group=puller\nrocketmq.pull-consumer.topic=TopicTest\n" \
                 "rocketmq.pull-consumer.selector-expression=AAAAA\n"
    files = {"src/main/java/com/app/Producer.java": PRODUCER, "src/main/java/com/app/Consumers.java": CONSUMERS,
             "src/main/java/com/app/PayListener.java": listener,
             "src/main/resources/application.properties": properties}
    after = fix(tmp_path, files)
    # Two spellings of "order" are sent on TwoTopic: which one was meant is not known, so "Order" stays.
    assert text(after["src/main/java/com/app/Consumers.java"]) == CONSUMERS.replace('"Aaaaa || Bbbbb"',
                                                                                  '"aaaaa || Bbbbb"')
    assert text(after["src/main/java/com/app/PayListener.java"]) == listener.replace("paySuccess", "PaySuccess")
    assert text(after["src/main/resources/application.properties"]) == properties.replace("=AAAAA", "=aaaaa")
    assert text(after["src/main/java/com/app/Producer.java"]) == PRODUCER
    assert codes_after(tmp_path) == [("RMQ002", "src/main/java/com/app/Consumers.java")]


def test_rmq002_python_and_what_it_leaves(tmp_path):
    producer = """\
import os

from rocketmq.client import Message, Producer

producer = Producer("PID")
created = Message("OrderTopic")
created.set_tags("OrderCreated")
padded = Message("PadTopic")
padded.set_tags("Shipped ")
unknown = Message("VarTopic")
unknown.set_tags(os.environ["TAG"])
known = Message("VarTopic")
known.set_tags("refund")
"""
    consumer = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


orders = PushConsumer("orders")
orders.subscribe("OrderTopic", on_message, "orderCreated")
padded = PushConsumer("padded")
padded.subscribe("PadTopic", on_message, "Shipped")
var = PushConsumer("var")
var.subscribe("VarTopic", on_message, "Refund")
"""
    after = fix(tmp_path, {"producer.py": producer, "consumer.py": consumer})
    # "Shipped " cannot be subscribed to (the client trims); a producer of an unknown tag on VarTopic may be
    # sending "Refund" today: both are left.
    assert text(after["consumer.py"]) == consumer.replace('"orderCreated"', '"OrderCreated"')
    assert text(after["producer.py"]) == producer
    assert sorted(codes_after(tmp_path)) == [("RMQ002", "consumer.py"), ("RMQ002", "consumer.py")]


# --- RMQ005: the missing thread bound written next to the one written -------------------------------------------

THREADS_JAVA = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Pools {
    public void start() throws Exception {
        DefaultMQPushConsumer orders = new DefaultMQPushConsumer("orders");
        orders.setConsumeThreadMin(32); // peak load
        orders.subscribe("OrderTopic", "*");
        DefaultMQPushConsumer mail = new DefaultMQPushConsumer("mail");
        mail.setConsumeThreadMax(64);
        mail.subscribe("MailTopic", "*");
        DefaultMQPushConsumer both = new DefaultMQPushConsumer("both");
        both.setConsumeThreadMin(10);
        both.setConsumeThreadMax(64);
        both.subscribe("BothTopic", "*");
        DefaultMQPushConsumer equal = new DefaultMQPushConsumer("equal");
        equal.setConsumeThreadMin(64);
        equal.setConsumeThreadMax(64);
        equal.subscribe("EqualTopic", "*");
        for (DefaultMQPushConsumer consumer : new DefaultMQPushConsumer[] {orders, mail, both, equal}) {
            consumer.start();
        }
    }
}
"""


def test_rmq005_java_safe_then_unsafe(tmp_path):
    path = "src/main/java/com/app/Pools.java"
    safe = text(fix(tmp_path, {path: THREADS_JAVA.replace("\n", "\r\n")})[path])
    assert safe == THREADS_JAVA.replace(
        "        orders.setConsumeThreadMin(32); // peak load\n",
        "        orders.setConsumeThreadMin(32); // peak load\n        orders.setConsumeThreadMax(32);\n").replace(
        "        mail.setConsumeThreadMax(64);\n",
        "        mail.setConsumeThreadMax(64);\n        mail.setConsumeThreadMin(64);\n").replace("\n", "\r\n")
    # Both bounds written: only --unsafe-fixes raises the minimum to the maximum.
    assert codes_after(tmp_path) == [("RMQ005", path)]
    main([str(tmp_path / "p"), "--fix", "--unsafe-fixes"])
    unsafe = (tmp_path / "p" / path).read_bytes().decode("utf-8")
    assert unsafe == safe.replace("both.setConsumeThreadMin(10);", "both.setConsumeThreadMin(64);")
    assert "equal.setConsumeThreadMin(64);\r\n        equal.setConsumeThreadMax(64);" in unsafe
    assert codes_after(tmp_path) == []


def test_rmq005_spring_annotation(tmp_path):
    listener = """\
package com.app;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "MailTopic", consumerGroup = "mail_sender", consumeThreadNumber = 100)
public class MailListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
    near_miss = listener.replace("MailListener", "SmsListener").replace("consumeThreadNumber = 100",
                                                                        "consumeThreadNumber = 8")
    files = {"src/main/java/com/app/MailListener.java": listener, "src/main/java/com/app/SmsListener.java": near_miss}
    after = fix(tmp_path, files)
    assert text(after["src/main/java/com/app/MailListener.java"]) == listener.replace(
        "consumeThreadNumber = 100", "consumeThreadNumber = 100, consumeThreadMax = 100")
    assert text(after["src/main/java/com/app/SmsListener.java"]) == near_miss
    assert codes_after(tmp_path) == []


# --- RMQ001 (unsafe): the name made unique per process -------------------------------------------------------

INSTANCE_JAVA = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class Consumers {
    public void start(boolean primary) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("consumer_group");
        consumer.setInstanceName("XUJIAN_MACBOOK");
        consumer.subscribe("TopicTest", "*");
        DefaultMQPushConsumer regional = new DefaultMQPushConsumer("regional");
        regional.setInstanceName(primary ? "orders-primary" : "orders-standby");
        regional.subscribe("OrderTopic", "*");
        consumer.start();
        regional.start();
        DefaultMQProducer producer = new DefaultMQProducer("producer_group");
        producer.setInstanceName("order-producer");
    }
}
"""


def test_rmq001_java_only_with_unsafe_fixes(tmp_path):
    path = "src/main/java/com/app/Consumers.java"
    assert fix(tmp_path, {path: INSTANCE_JAVA})[path] == INSTANCE_JAVA.encode()  # --fix alone: unsafe, not applied
    main([str(tmp_path / "p"), "--fix", "--unsafe-fixes"])
    unique = 'org.apache.rocketmq.common.UtilAll.getPid() + "#" + System.nanoTime()'
    assert (tmp_path / "p" / path).read_text() == INSTANCE_JAVA.replace(
        '"XUJIAN_MACBOOK"', f'"XUJIAN_MACBOOK@" + {unique}').replace(
        'primary ? "orders-primary" : "orders-standby"',
        f'(primary ? "orders-primary" : "orders-standby") + "@" + {unique}')  # the producer keeps its name
    assert codes_after(tmp_path) == []


def test_rmq001_spring_annotation_yaml_and_properties(tmp_path):
    listener = """\
package com.app;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(
    topic = "AuditTopic",
    consumerGroup = "audit_consumer",
    instanceName = "audit-node")
public class AuditListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
    broadcast = listener.replace("AuditListener", "CacheListener").replace(
        'consumerGroup = "audit_consumer",', 'consumerGroup = "cache", messageModel = MessageModel.BROADCASTING,')
    yaml = "rocketmq:\n  name-server: 127.0.0.1:9876\n  consumer:\n    group: report_puller\n    topic: ReportTopic\n" \
           "    instance-name: report-node\n"
    properties = "rocketmq.pull-consumer.group=puller\nrocketmq.pull-consumer.topic=T\n" \
                 "rocketmq.pull-consumer.instance-name=puller-node\nrocketmq.producer.group=pg\n" \
                 "rocketmq.producer.instance-name=producer-node\n"
    files = {"audit/src/main/java/com/app/AuditListener.java": listener,
             "audit/src/main/java/com/app/CacheListener.java": broadcast,
             "report/src/main/resources/application.yml": yaml,
             "puller/src/main/resources/application.properties": properties}
    after = fix(tmp_path, files, "--unsafe-fixes")
    assert text(after["audit/src/main/java/com/app/AuditListener.java"]) == listener.replace(
        ',\n    instanceName = "audit-node"', "")
    assert text(after["audit/src/main/java/com/app/CacheListener.java"]) == broadcast
    assert text(after["report/src/main/resources/application.yml"]) == yaml.replace(
        "report-node", "report-node-${random.uuid}")
    assert text(after["puller/src/main/resources/application.properties"]) == properties.replace(
        "puller-node", "puller-node-${random.uuid}")  # the producer's name stays
    assert codes_after(tmp_path) == []


@pytest.mark.parametrize("imports, expected_imports", [
    ("import time\n\nfrom rocketmq.client import ConsumeStatus, MessageModel, PushConsumer\n",
     "import time\n\nfrom rocketmq.client import ConsumeStatus, MessageModel, PushConsumer\nimport uuid\n"),
    ("import uuid\nfrom rocketmq.client import ConsumeStatus, MessageModel, PushConsumer\n",
     "import uuid\nfrom rocketmq.client import ConsumeStatus, MessageModel, PushConsumer\n"),
])
def test_rmq001_python(tmp_path, imports, expected_imports):
    body = """
def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_ORDER")
consumer.set_instance_name('order-worker')
consumer.subscribe("OrderTopic", on_message)
notifier = PushConsumer("CID_NOTIFY", message_model=MessageModel.BROADCASTING)
notifier.set_instance_name("notify-node")
"""
    source = '"""Orders."""\n' + imports + body
    after = text(fix(tmp_path, {"consumer.py": source}, "--unsafe-fixes")["consumer.py"])
    assert after == '"""Orders."""\n' + expected_imports + body.replace(
        "'order-worker'", "'order-worker@' + uuid.uuid4().hex")
    assert codes_after(tmp_path) == []


# --- what fixes never do --------------------------------------------------------------------------------------

def test_a_fix_never_touches_a_file_outside_the_paths(tmp_path, capsys):
    names = "package com.lib;\n\npublic final class Mq {\n    public static final String NAMESRV = " \
            '"10.0.0.1:9876,10.0.0.2:9876";\n}\n'
    app = """\
package com.app;

import com.lib.Mq;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class App {
    public void start() throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("pg");
        producer.setNamesrvAddr(Mq.NAMESRV);
    }
}
"""
    root = write_project(tmp_path / "p", {"lib/src/main/java/com/lib/Mq.java": names,
                                          "app/src/main/java/com/app/App.java": app})
    assert main([str(root / "app"), "--fix", "--unsafe-fixes"]) == 1  # reported in app/, written in lib/: left
    assert (root / "lib/src/main/java/com/lib/Mq.java").read_text() == names
    assert "RMQ008" in capsys.readouterr().out
    assert main([str(root), "--fix", "--unsafe-fixes"]) == 0
    assert '"10.0.0.1:9876;10.0.0.2:9876"' in (root / "lib/src/main/java/com/lib/Mq.java").read_text()


def test_fixed_files_still_parse(tmp_path):
    path = "src/main/java/com/app/Clients.java"
    after = fix(tmp_path, {path: NAMESRV_JAVA})[path]
    assert parses(path, after)


def test_a_consumer_made_by_a_method_is_fixed_at_each_call(tmp_path):
    source = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Consumers {
    DefaultMQPushConsumer make(String group, String tags) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.subscribe("OrderTopic", tags);
        consumer.start();
        return consumer;
    }

    void start() throws Exception {
        make("orders", "Created,Paid");
        make("audit", "Created/Paid");
        make("ok", "Created||Paid");
    }
}
"""
    path = "src/main/java/com/app/Consumers.java"
    assert text(fix(tmp_path, {path: source})[path]) == source.replace('"Created,Paid"', '"Created||Paid"').replace(
        '"Created/Paid"', '"Created||Paid"')
    assert codes_after(tmp_path) == []


def test_findings_merged_at_one_place_keep_the_edits_of_each():
    from rmqlint.engine import _joined
    from rmqlint.fixes import Edit, Fix
    from rmqlint.spans import Span

    def edit(start):
        return Edit(Span("A.java", start, start + 1, 1, start + 1, 1, start + 2, "utf-8", ","), ";")

    first, second = Fix("semicolons", (edit(3),)), Fix("semicolons", (edit(9),))
    assert _joined(first, second).edits == (edit(3), edit(9))
    assert _joined(first, first) == first and _joined(None, second) == second
    assert _joined(first, Fix("other", (edit(3),), "unsafe")) == first


# --- RMQ006 (unsafe): a bound on an orderly consumer's retries -------------------------------------------------

def test_rmq006_java_and_spring(tmp_path):
    consumer = """\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;

public class Ledger {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger_consumer");
        consumer.subscribe("LedgerTopic", "*");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> ConsumeOrderlyStatus.SUCCESS);
        DefaultMQPushConsumer bounded = new DefaultMQPushConsumer("bounded_consumer");
        bounded.setMaxReconsumeTimes(3);
        bounded.subscribe("LedgerTopic", "*");
        bounded.registerMessageListener((MessageListenerOrderly) (msgs, context) -> ConsumeOrderlyStatus.SUCCESS);
        consumer.start();
        bounded.start();
    }
}
"""
    listener = """\
package com.app;

import org.apache.rocketmq.spring.annotation.ConsumeMode;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;

@RocketMQMessageListener(topic = "AccountTopic", consumerGroup = "account", consumeMode = ConsumeMode.ORDERLY)
public class AccountListener implements RocketMQListener<String> {
    public void onMessage(String message) {
    }
}
"""
    files = {"src/main/java/com/app/Ledger.java": consumer, "src/main/java/com/app/AccountListener.java": listener}
    assert fix(tmp_path, files) == {rel: text.encode() for rel, text in files.items()}  # unsafe: not with --fix
    main([str(tmp_path / "p"), "--fix", "--unsafe-fixes"])
    root = tmp_path / "p"
    assert (root / "src/main/java/com/app/Ledger.java").read_text() == consumer.replace(
        'new DefaultMQPushConsumer("ledger_consumer");\n',
        'new DefaultMQPushConsumer("ledger_consumer");\n        consumer.setMaxReconsumeTimes(16);\n')
    assert (root / "src/main/java/com/app/AccountListener.java").read_text() == listener.replace(
        "consumeMode = ConsumeMode.ORDERLY", "consumeMode = ConsumeMode.ORDERLY, maxReconsumeTimes = 16")
    assert codes_after(tmp_path) == []


def test_files_with_a_byte_order_mark(tmp_path):
    bom = b"\xef\xbb\xbf"
    java = bom + 'package a;\nimport org.apache.rocketmq.client.producer.DefaultMQProducer;\nclass A { void s() { ' \
                 'new DefaultMQProducer("g").setNamesrvAddr("中:1,b:2"); } }\n'.encode()
    yaml = bom + b'rocketmq:\n  name-server: "x:1 y:2"\n  producer:\n    group: g\n'
    python = bom + 'from rocketmq.client import Producer\np = Producer("g")\np.set_name_server_address("é:1,b:2")\n' \
        .encode()
    after = fix(tmp_path, {"A.java": java, "application.yml": yaml, "p.py": python})
    assert after == {"A.java": java.replace("中:1,b:2".encode(), "中:1;b:2".encode()),
                     "application.yml": yaml.replace(b"x:1 y:2", b"x:1;y:2"),
                     "p.py": python.replace("é:1,b:2".encode(), "é:1;b:2".encode())}
    assert codes_after(tmp_path) == []


def test_rmq010_properties_and_rmq002_yaml(tmp_path):
    properties = "rocketmq.pull-consumer.group=report_puller\nrocketmq.pull-consumer.topic=ReportTopic\n" \
                 "rocketmq.pull-consumer.selector-expression=Daily , Weekly\nreport.formats=pdf,csv\n"
    yaml = "rocketmq:\n  pull-consumer:\n    group: audit_puller\n    topic: TopicTest\n" \
           "    selector-expression: 'AAAAA || Bbbbb'\n"
    files = {"report/src/main/resources/application.properties": properties,
             "audit/src/main/resources/application.yml": yaml, "src/main/java/com/app/Producer.java": PRODUCER}
    after = fix(tmp_path, files)
    assert text(after["report/src/main/resources/application.properties"]) == properties.replace(
        "Daily , Weekly", "Daily || Weekly")  # report.formats is no subscription: left as it is
    assert text(after["audit/src/main/resources/application.yml"]) == yaml.replace("AAAAA", "aaaaa")
    assert codes_after(tmp_path) == []


# --- RMQ001 in Python: where `import uuid` goes, and where the name means something else -------------------------

def test_rmq001_python_import_goes_before_a_module_level_use(tmp_path):
    # The client is configured when the module is imported, before its last import: `import uuid` added after that
    # import would come too late (NameError at import).
    source = '''\
from __future__ import annotations

from rocketmq.client import PushConsumer

consumer = PushConsumer("CID_ORDER")
consumer.set_instance_name("node")
consumer.subscribe("OrderTopic", print)

import json  # noqa: E402
'''
    after = text(fix(tmp_path, {"consumer.py": source}, "--unsafe-fixes")["consumer.py"])
    assert after == source.replace("PushConsumer\n\n", "PushConsumer\nimport uuid\n\n", 1).replace(
        '"node"', '"node@" + uuid.uuid4().hex')
    assert codes_after(tmp_path) == []


def test_rmq001_python_import_before_the_first_statement_when_every_import_comes_later(tmp_path):
    source = '''\
"""Orders."""
from __future__ import annotations


def start():
    consumer = PushConsumer("CID_ORDER")
    consumer.set_instance_name("node")
    consumer.subscribe("OrderTopic", print)
    consumer.start()


from rocketmq.client import PushConsumer  # noqa: E402
import uuid  # noqa: E402  (too late for a call made before it)
'''
    after = text(fix(tmp_path, {"consumer.py": source}, "--unsafe-fixes")["consumer.py"])
    assert after == source.replace("annotations\n", "annotations\nimport uuid\n", 1).replace(
        '"node"', '"node@" + uuid.uuid4().hex')


@pytest.mark.parametrize("where, source", [
    ("a parameter", "def start(uuid=None):\n    consumer = PushConsumer(\"CID_ORDER\")\n"),
    ("a local", "def start():\n    uuid = 7\n    consumer = PushConsumer(\"CID_ORDER\")\n"),
    ("a module name", "uuid = 7\n\n\ndef start():\n    consumer = PushConsumer(\"CID_ORDER\")\n"),
    ("another import", "from mylib import uuid\n\n\ndef start():\n    consumer = PushConsumer(\"CID_ORDER\")\n"),
])
def test_rmq001_python_no_fix_where_uuid_means_something_else(tmp_path, where, source):
    source = ("from rocketmq.client import PushConsumer\n" + source +
              '    consumer.set_instance_name("node")\n    consumer.subscribe("OrderTopic", print)\n'
              '    consumer.start()\n')
    after = text(fix(tmp_path, {"consumer.py": source}, "--unsafe-fixes")["consumer.py"])
    assert after == source
    finding = next(f for f in lint(LintOptions(paths=[tmp_path / "p"], use_cache=False)).findings
                   if f.code == "RMQ001")
    assert finding.fix is None
    assert finding.message.endswith('no fix is offered: "uuid" is not the uuid module at this call'), where


# --- Java: a statement after the body of a brace-less if/for/while would run always --------------------------------

@pytest.mark.parametrize("head", ["if (big)", "else", "for (int i = 0; i < 1; i++)", "while (big)", "label:"])
def test_java_no_setter_after_a_brace_less_body(tmp_path, head):
    prefix = "if (!big) consumer.setConsumeTimeout(1);\n        " if head == "else" else ""
    source = f"""\
package com.app;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;

public class Ledger {{
    public void start(boolean big) throws Exception {{
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ledger_consumer");
        {prefix}{head}
            consumer.setConsumeThreadMin(40);
        consumer.subscribe("LedgerTopic", "*");
        consumer.start();
        DefaultMQPushConsumer orderly = null;
        {prefix.replace("consumer.", "orderly.")}{head}
            orderly = new DefaultMQPushConsumer("orderly_consumer");
        orderly.subscribe("LedgerTopic", "*");
        orderly.registerMessageListener((MessageListenerOrderly) (msgs, context) -> ConsumeOrderlyStatus.SUCCESS);
        orderly.start();
    }}
}}
"""
    path = "src/main/java/com/app/Ledger.java"
    assert text(fix(tmp_path, {path: source}, "--unsafe-fixes")[path]) == source
    assert sorted(code for code, _path in codes_after(tmp_path)) == ["RMQ005", "RMQ006"]


# --- fixing runs to a fixed point ---------------------------------------------------------------------------------

def test_a_fix_that_reveals_another_is_followed_in_the_same_run(tmp_path, capsys):
    # RMQ010: "created,Paid" is one tag; once the separator is "||", RMQ002 sees "created" beside the produced
    # "Created". One --fix makes both, and a second changes nothing.
    source = """\
from rocketmq.client import Message, Producer, PushConsumer

producer = Producer("PID_ORDER")
created = Message("OrderTopic")
created.set_tags("Created")
producer.send_sync(created)
paid = Message("OrderTopic")
paid.set_tags("Paid")
producer.send_sync(paid)

consumer = PushConsumer("CID_ORDER")
consumer.subscribe("OrderTopic", print, "created,Paid")
"""
    after = fix(tmp_path, {"app.py": source})["app.py"]
    assert text(after) == source.replace('"created,Paid"', '"Created||Paid"')
    assert capsys.readouterr().err == "rmqlint: fixed 2 findings in 1 file\n"
    assert main([str(tmp_path / "p"), "--fix"]) == 0
    assert (tmp_path / "p/app.py").read_bytes() == after
    assert capsys.readouterr().err == ""


def test_fixes_that_undo_each_other_stop_after_the_bound(tmp_path, monkeypatch):
    from rmqlint import run
    from rmqlint.engine import LintResult
    from rmqlint.facts import Location
    from rmqlint.findings import Finding
    from rmqlint.fixes import Edit, Fix
    from rmqlint.spans import Span

    (tmp_path / "a.properties").write_bytes(b"x=a\n")

    def flipping(_options):  # a fix whose result is fixed back: "a" -> "b" -> "a" ...
        now = (tmp_path / "a.properties").read_text()[2]
        span = Span("a.properties", 2, 3, 1, 3, 1, 4, "utf-8", now)
        finding = Finding("RMQ008", "error", "flip", Location("a.properties", 1, 3, 1, 4),
                          fix=Fix("flip", (Edit(span, "b" if now == "a" else "a"),)))
        return LintResult(tmp_path, None, [finding], 1, [])

    monkeypatch.setattr(run, "lint", flipping)
    said = []
    run._fix(None, flipping(None), False, said.append)
    assert said == [f"rmqlint: still fixable after {run.MAX_ROUNDS} rounds of fixes (do fixes undo each other?): "
                    "the findings left are reported", f"rmqlint: fixed {run.MAX_ROUNDS} findings in 1 file"]

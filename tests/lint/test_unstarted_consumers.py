"""A consumer that its code never starts does nothing: a local variable its method neither starts nor hands on (no
`start()`, Python 5.x `startup()`, Go `Start()`, not returned, stored or passed anywhere) is no consumer, and its
settings are not reported. Consumers that may be started elsewhere (a field, a returned or passed one, a Spring
`@Bean`, a Python context manager, a Go struct a function returns) and started ones still are."""

from __future__ import annotations

import pytest

from rmqlint.engine import LintOptions, lint
from rmqlint.frontends.go.parse import parse_go
from rmqlint.rules._examples import line_of
from rmqlint.values import Lit
from tests.lint.test_engine_fixtures import write_project

PATH = "svc/src/main/java/com/acme/mq/OrderConsumers.java"

SOURCE = """\
package com.acme.mq;

import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class OrderConsumers {
    private final List<DefaultMQPushConsumer> running = new ArrayList<>();

    public void start() throws Exception {
        DefaultMQPushConsumer orders = new DefaultMQPushConsumer("orders_consumer");
        orders.setInstanceName("orders-node");
        orders.subscribe("Orders", "*");
        orders.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        HANDING_ON
    }
}
"""


def findings(root, handing_on: str):
    files = {PATH: SOURCE.replace("HANDING_ON", handing_on)}
    return lint(LintOptions(paths=[write_project(root, files)], use_cache=False)).findings


def test_a_local_consumer_never_started_or_handed_on_is_not_reported(tmp_path):
    assert findings(tmp_path, "// started some day") == []


@pytest.mark.parametrize("handing_on", [
    "orders.start();",
    "Runtime.getRuntime().addShutdownHook(new Thread(orders::shutdown));\n        new Thread(() -> {\n"
    "            try {\n                orders.start();\n            } catch (Exception e) {\n"
    "                throw new IllegalStateException(e);\n            }\n        }).start();",
    "running.add(orders);",
    "this.last = orders;",
])
def test_a_consumer_started_or_handed_on_is_reported(tmp_path, handing_on):
    source = SOURCE.replace("HANDING_ON", handing_on)
    if "this.last" in handing_on:
        source = source.replace("    public void start()", "    private DefaultMQPushConsumer last;\n\n    public void start()")
    found = lint(LintOptions(paths=[write_project(tmp_path, {PATH: source})], use_cache=False)).findings
    assert [(f.code, f.location.line) for f in found] == [("RMQ001", line_of(source, "setInstanceName"))]


def test_a_consumer_returned_by_a_bean_method_is_reported(tmp_path):
    bean = SOURCE.replace("    public void start() throws Exception {", "    @org.springframework.context.annotation.Bean\n"
                          "    public DefaultMQPushConsumer start() throws Exception {").replace("HANDING_ON",
                                                                                           "return orders;")
    found = lint(LintOptions(paths=[write_project(tmp_path, {PATH: bean})], use_cache=False)).findings
    assert [(f.code, f.location.line) for f in found] == [("RMQ001", line_of(bean, "setInstanceName"))]


FACTORY = """\
package com.acme.mq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public final class Consumers {
    public static DefaultMQPushConsumer create(String group) {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setInstanceName("worker");
        return consumer;
    }
}
"""

CALLER = """\
package com.acme.stock;

import com.acme.mq.Consumers;

public class StockSync {
    public void run() throws Exception {
        var stock = Consumers.create("stock_consumer");
        stock.subscribe("Stock", "*");
        STARTED
    }
}
"""


def test_a_factorys_consumer_its_caller_never_starts_is_not_reported(tmp_path):
    factory, caller = "svc/src/main/java/com/acme/mq/Consumers.java", "svc/src/main/java/com/acme/stock/StockSync.java"
    quiet = {factory: FACTORY, caller: CALLER.replace("STARTED", "// started some day")}
    assert lint(LintOptions(paths=[write_project(tmp_path / "a", quiet)], use_cache=False)).findings == []
    started = {factory: FACTORY, caller: CALLER.replace("STARTED", "stock.start();")}
    found = lint(LintOptions(paths=[write_project(tmp_path / "b", started)], use_cache=False)).findings
    assert [(f.code, f.location.path) for f in found] == [("RMQ001", factory)]


# --- Python: the 2.x client's `start()`, the 5.x client's `startup()` ---------------------------------------------

PY_PATH = "svc/app/worker.py"

PY_SOURCE = """\
import threading

from rocketmq.client import ConsumeStatus, PushConsumer

RUNNING = []


def handle(msg):
    return ConsumeStatus.CONSUME_SUCCESS


class OrderWorker:
    def run(self):
        consumer = PushConsumer("orders_consumer")
        consumer.set_instance_name("orders-node")
        consumer.subscribe("Orders", handle)
        HANDING_ON
"""


def python_findings(root, source: str, path: str = PY_PATH):
    return [(f.code, f.location.path, f.location.line)
            for f in lint(LintOptions(paths=[write_project(root, {path: source})], use_cache=False)).findings]


@pytest.mark.parametrize("handing_on", [
    "pass",
    "consumer.shutdown()",
    "return consumer\n\n    def start(self):\n        idle = self.run()\n        idle.subscribe(\"Audit\", handle)",
])
def test_a_python_local_consumer_never_started_or_handed_on_is_not_reported(tmp_path, handing_on):
    assert python_findings(tmp_path, PY_SOURCE.replace("HANDING_ON", handing_on)) == []


@pytest.mark.parametrize("handing_on", [
    "consumer.start()",
    "threading.Thread(target=lambda: consumer.start()).start()",
    "threading.Thread(target=consumer.start).start()",
    "RUNNING.append(consumer)",
    "self.consumer = consumer",
    "with consumer:\n            pass",
    "return consumer\n\n    def start(self):\n        self.run().start()",
    "return consumer\n\n    def start(self):\n        started = self.run()\n        started.start()",
])
def test_a_python_consumer_started_or_handed_on_is_reported(tmp_path, handing_on):
    source = PY_SOURCE.replace("HANDING_ON", handing_on)
    assert python_findings(tmp_path, source) == [("RMQ001", PY_PATH, line_of(source, "set_instance_name"))]


PY_FACTORY = """\
from rocketmq.client import PushConsumer


def make(group):
    consumer = PushConsumer(group)
    consumer.set_instance_name("worker")
    return consumer
"""

PY_CALLER = """\
from app.mq import make


def run(handle):
    stock = make("stock_consumer")
    stock.subscribe("Stock", handle)
    STARTED
"""


def test_a_python_factorys_consumer_its_caller_never_starts_is_not_reported(tmp_path):
    factory, caller = "svc/app/mq.py", "svc/app/stock.py"
    quiet = {factory: PY_FACTORY, caller: PY_CALLER.replace("STARTED", "# started some day")}
    assert lint(LintOptions(paths=[write_project(tmp_path / "a", quiet)], use_cache=False)).findings == []
    started = {factory: PY_FACTORY, caller: PY_CALLER.replace("STARTED", "stock.start()")}
    found = lint(LintOptions(paths=[write_project(tmp_path / "b", started)], use_cache=False)).findings
    assert [(f.code, f.location.path) for f in found] == [("RMQ001", factory)]


PY5_SOURCE = """\
from rocketmq import ClientConfiguration, ConsumeResult, Credentials, FilterExpression, MessageListener, PushConsumer


class AuditListener(MessageListener):
    def consume(self, message):
        return ConsumeResult.SUCCESS


def run(endpoints):
    config = ClientConfiguration(endpoints, Credentials())
    consumer = PushConsumer(config, "ledger.audit", AuditListener(), {"Ledger": FilterExpression("*")})
    STARTED
"""


def test_a_python_5x_consumer_is_reported_once_started_up(tmp_path):
    assert python_findings(tmp_path / "a", PY5_SOURCE.replace("STARTED", "pass")) == []
    started = PY5_SOURCE.replace("STARTED", "consumer.startup()")
    assert python_findings(tmp_path / "b", started) == [("RMQ009", PY_PATH, line_of(started, "ledger.audit"))]


# --- Go: `c.Start()`; `Subscribe` alone starts nothing -------------------------------------------------------------

GO_PATH = "svc/main.go"

GO_HEAD = """\
package main

import (
\t"context"

\t"github.com/apache/rocketmq-client-go/v2"
\t"github.com/apache/rocketmq-client-go/v2/consumer"
\t"github.com/apache/rocketmq-client-go/v2/primitive"
)

"""

GO_SOURCE = GO_HEAD + """\
var running []rocketmq.PushConsumer

type Service struct {
\torders rocketmq.PushConsumer
}

func handle(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\treturn consumer.ConsumeSuccess, nil
}

func (s *Service) run() error {
\tc, err := rocketmq.NewPushConsumer(consumer.WithGroupName("orders_consumer"), consumer.WithInstance("orders-node"))
\tif err != nil {
\t\treturn err
\t}
\tif err := c.Subscribe("Orders", consumer.MessageSelector{}, handle); err != nil {
\t\treturn err
\t}
\tHANDING_ON
\treturn nil
}
"""


def go_findings(root, files: dict[str, str]):
    return [(f.code, f.location.path, f.location.line)
            for f in lint(LintOptions(paths=[write_project(root, files)], use_cache=False)).findings]


@pytest.mark.parametrize("handing_on", [
    "// started some day",
    "_ = c",
    "defer c.Shutdown()",
])
def test_a_go_local_consumer_never_started_or_handed_on_is_not_reported(tmp_path, handing_on):
    assert go_findings(tmp_path, {GO_PATH: GO_SOURCE.replace("HANDING_ON", handing_on)}) == []


@pytest.mark.parametrize("handing_on", [
    "if err := c.Start(); err != nil {\n\t\treturn err\n\t}",
    "go c.Start()",
    "defer c.Shutdown()\n\tgo func() {\n\t\t_ = c.Start()\n\t}()",
    "s.orders = c",
    "*s = Service{orders: c}",
    "running = append(running, c)",
])
def test_a_go_consumer_started_or_handed_on_is_reported(tmp_path, handing_on):
    source = GO_SOURCE.replace("HANDING_ON", handing_on)
    assert go_findings(tmp_path, {GO_PATH: source}) == [("RMQ001", GO_PATH, line_of(source, "WithInstance"))]


GO_FACTORY = GO_HEAD.replace("package main", "package mq") + """\
type Service struct {
\tconsumer rocketmq.PushConsumer
}

func NewConsumer(group string) (rocketmq.PushConsumer, error) {
\tc, err := rocketmq.NewPushConsumer(consumer.WithGroupName(group), consumer.WithInstance("worker"))
\tif err != nil {
\t\treturn nil, err
\t}
\treturn c, nil
}

func NewService(group, instance string) *Service {
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName(group), consumer.WithInstance(instance))
\treturn &Service{consumer: c}
}

func (s *Service) Run() error {
\treturn s.consumer.Start()
}

func handle(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\treturn consumer.ConsumeSuccess, nil
}
"""

GO_CALLER = """\
package main

import (
\t"github.com/acme/svc/mq"
\t"github.com/apache/rocketmq-client-go/v2/consumer"
)

func main() {
\tstock, _ := mq.NewConsumer("stock_consumer")
\t_ = stock.Subscribe("Stock", consumer.MessageSelector{}, nil)
\tSTARTED
\tsvc := mq.NewService("service_consumer", "service-node")
\t_ = svc.Run()
}
"""


def test_a_go_factorys_consumer_its_caller_never_starts_is_not_reported(tmp_path):
    """Whether the caller of another package's factory starts the consumer it gets; a struct a function returns
    (its consumer started by the struct's method) counts as running, whatever its caller does with it."""
    factory, caller = "svc/mq/consumer.go", "svc/main.go"
    files = {"svc/go.mod": "module github.com/acme/svc\n\ngo 1.21\n", factory: GO_FACTORY}
    service = ("RMQ001", caller, line_of(GO_CALLER, '"service-node"'))
    quiet = {**files, caller: GO_CALLER.replace("STARTED", "// started some day")}
    assert go_findings(tmp_path / "a", quiet) == [service]
    started = {**files, caller: GO_CALLER.replace("STARTED", "_ = stock.Start()")}
    assert go_findings(tmp_path / "b", started) == [service, ("RMQ001", factory,
                                                              line_of(GO_FACTORY, 'WithInstance("worker")'))]
    # the same in one file: the factory's consumer is made per call, and the caller's
    one_file = GO_FACTORY.replace("package mq", "package main") + GO_CALLER.split("func main()")[1].join(
        ["func main()", ""]).replace("mq.", "")
    assert go_findings(tmp_path / "c", {GO_PATH: one_file.replace("STARTED", "// started some day")}) == [
        ("RMQ001", GO_PATH, line_of(one_file, '"service-node"'))]


def test_a_go_producer_made_beside_a_returned_consumer_nobody_starts_still_runs():
    """The call makes no consumer (its caller never starts it), but the producer the function starts itself is
    made per call all the same, its group bound to the call's argument."""
    source = GO_HEAD.replace('"context"', '"context"\n\n\t"github.com/apache/rocketmq-client-go/v2/producer"') + """\
func newPair(group string) rocketmq.PushConsumer {
\tp, _ := rocketmq.NewProducer(producer.WithGroupName(group + "_producer"))
\t_ = p.Start()
\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName(group), consumer.WithInstance("pair-node"))
\treturn c
}

func main() {
\tc := newPair("mail")
\t_ = c.Subscribe("Mail", consumer.MessageSelector{}, nil)
}
"""
    made = [(c.role, c.location.line, c.group.value) for c in parse_go(GO_PATH, source.encode()).clients]
    assert made == [("producer", line_of(source, 'newPair("mail")'), Lit("mail_producer"))]

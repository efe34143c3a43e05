"""Clients made by a method of the project, one per call (`rmqlint.calls`): helpers built from their parameters,
builders behind a field, factories in the project (and one in a library), a client started where it is configured,
in one file and across files, Java and Python, each beside a near miss."""

from __future__ import annotations

from rmqlint.engine import lint_sources
from rules._examples import line_of

JAVA_IMPORTS = """\
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.*;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
"""


def found(files: dict[str, str]) -> set[tuple[str, str, int]]:
    return {(f.code, f.location.path, f.location.line) for f in lint_sources(files)}


def codes(files: dict[str, str]) -> set[str]:
    return {f.code for f in lint_sources(files)}


# --- a helper built from its parameters, called twice -----------------------------------------------------------

STARTER = """\
package com.acme;

""" + JAVA_IMPORTS + """
public class Starter {
    public void init() throws Exception {
        start("ship_cg", "ShipTopic");
        start("ship_cg", "ReturnTopic");
    }

    private void start(String group, String topic) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""


def test_java_helper_called_twice_is_two_consumers_reported_at_the_call():
    path = "src/main/java/com/acme/Starter.java"
    assert found({path: STARTER}) == {("RMQ004", path, line_of(STARTER, '"ReturnTopic"'))}
    # near misses: the same topic twice; a topic nobody in the project knows
    assert "RMQ004" not in codes({path: STARTER.replace('"ReturnTopic"', '"ShipTopic"')})
    assert "RMQ004" not in codes({path: STARTER.replace('"ReturnTopic"', 'System.getenv("TOPIC")')})


NESTED = STARTER.replace('''    public void init() throws Exception {
        start("ship_cg", "ShipTopic");
        start("ship_cg", "ReturnTopic");
    }''', '''    public void init() throws Exception {
        both("ship_cg");
    }

    private void both(String group) throws Exception {
        start(group, "ShipTopic");
        start(group, "ReturnTopic");
    }''')


def test_java_helper_calling_a_helper_binds_through_both():
    path = "src/main/java/com/acme/Starter.java"
    # Both consumers are made at the one call `both("ship_cg")`: told apart by where each subscribes.
    assert found({path: NESTED}) == {("RMQ004", path, line_of(NESTED, '"ReturnTopic"'))}


# --- a field given its consumer by a builder, configured in another method ------------------------------------------

BUILDER = """\
package com.acme;

""" + JAVA_IMPORTS + """
public class PayConsumer implements MessageListenerOrderly {
    private DefaultMQPushConsumer consumer;

    public void init() throws Exception {
        consumer = build();
        consumer.subscribe("PayTopic", "*");
        consumer.registerMessageListener(this);
        consumer.start();
    }

    private DefaultMQPushConsumer build() {
        DefaultMQPushConsumer made = new DefaultMQPushConsumer("pay_cg");
        made.setInstanceName("pay");
        return made;
    }

    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> msgs, ConsumeOrderlyContext context) {
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    }
}
"""


def test_java_builder_and_field_are_one_consumer():
    path = "src/main/java/com/acme/PayConsumer.java"
    assert found({path: BUILDER}) == {
        ("RMQ006", path, line_of(BUILDER, "consumer = build()")),  # the orderly listener `this`, no retry bound
        ("RMQ001", path, line_of(BUILDER, "setInstanceName")),
    }
    bounded = BUILDER.replace('made.setInstanceName("pay");', "made.setMaxReconsumeTimes(16);")
    assert found({path: bounded}) == set()


# --- factories in the project, and in a library ---------------------------------------------------------------------

FACTORY = """\
package com.acme.mq;

""" + JAVA_IMPORTS + """
public final class Consumers {
    public static DefaultMQPushConsumer start(String group, String topic, String tags) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.subscribe(topic, tags);
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
        return consumer;
    }

    public static DefaultMQPushConsumer create(String group) {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setInstanceName("worker");
        return consumer;
    }

    public static DefaultMQPushConsumer startedWith(int threads) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("pool_cg");
        consumer.setConsumeThreadMin(threads);
        consumer.subscribe("PoolTopic", "*");
        consumer.start();
        return consumer;
    }
}
"""

APP = """\
package com.acme.app;

import com.acme.mq.Consumers;

public class App {
    static final String GROUP = "app_cg";

    public static void main(String[] args) throws Exception {
        Consumers.start(GROUP, "Orders", "Paid");
        Consumers.start(GROUP, "Orders", "Refunded");
        var cache = Consumers.create("cache_cg");
        cache.setMessageModel(org.apache.rocketmq.common.protocol.heartbeat.MessageModel.BROADCASTING);
        cache.subscribe("Cache", "*");
        cache.start();
        var stock = Consumers.create("stock_cg");
        stock.subscribe("Stock", "*");
        stock.start();
        Consumers.startedWith(32);
    }
}
"""

FACTORY_PATH = "src/main/java/com/acme/mq/Consumers.java"
APP_PATH = "src/main/java/com/acme/app/App.java"


def test_java_factory_of_another_file_bound_at_each_call_and_configured_by_the_caller():
    assert found({FACTORY_PATH: FACTORY, APP_PATH: APP}) == {
        ("RMQ004", APP_PATH, line_of(APP, '"Refunded"')),  # one group, two tag expressions
        # "worker" on stock_cg (clustering); cache_cg is made broadcasting by its caller
        ("RMQ001", FACTORY_PATH, line_of(FACTORY, "setInstanceName")),
        # started in the factory: complete at start(), so 32 threads against the default maximum of 20 throws
        ("RMQ005", APP_PATH, line_of(APP, "startedWith(32)")),
    }


def test_java_factory_near_misses():
    quiet = "\n".join(line for line in APP.replace('"Refunded"', '"Paid"').replace("startedWith(32)", "startedWith(20)")
                      .splitlines() if "stock" not in line) + "\n"
    assert found({FACTORY_PATH: FACTORY, APP_PATH: quiet}) == set()
    # A class of the same name in another package is not the factory: nothing is bound, nothing reported.
    other = APP.replace("import com.acme.mq.Consumers;", "import com.other.Consumers;")
    assert found({FACTORY_PATH: FACTORY, APP_PATH: other}) == set()
    # Nobody in the project calls the factories: what callers outside do with an unstarted consumer is not known
    # (its model may change), and a method's parameters are unknown.
    assert found({FACTORY_PATH: FACTORY}) == set()


LIBRARY_CALLER = """\
package com.acme.app;

import com.vendor.mq.ConsumerFactory;

public class App {
    public static void main(String[] args) throws Exception {
        var consumer = ConsumerFactory.newConsumer("lib_cg");
        consumer.setInstanceName("fixed");
        consumer.subscribe("Topic", "*");
        consumer.start();
    }
}
"""


def test_java_library_factory_is_not_followed():
    assert found({APP_PATH: LIBRARY_CALLER}) == set()


# --- Python ------------------------------------------------------------------------------------------------------

PY_CONSUMERS = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


def start(group, topic, tags="*"):
    consumer = PushConsumer(group)
    consumer.subscribe(topic, on_message, tags)
    consumer.start()
    return consumer


def make(group):
    consumer = PushConsumer(group)
    consumer.set_instance_name("worker")
    return consumer
"""

PY_SAME_MODULE = PY_CONSUMERS + """

start("orders_cg", "Orders", "Paid")
start("orders_cg", "Orders", tags="Refunded")
"""


def test_python_helper_called_twice_in_its_module():
    assert found({"svc.py": PY_SAME_MODULE}) == {("RMQ004", "svc.py", line_of(PY_SAME_MODULE, '"Refunded"'))}
    assert found({"svc.py": PY_SAME_MODULE.replace('"Refunded"', '"Paid"')}) == set()


def test_python_helper_parameter_left_out_takes_its_default():
    """`start(group, topic)` with `tags="*"`: the call that passes no tags subscribes with "*"."""
    files = {"svc.py": PY_CONSUMERS + '\n\nstart("orders_cg", "Orders")\nstart("orders_cg", "Orders", "Paid")\n'}
    assert found(files) == {("RMQ004", "svc.py", line_of(files["svc.py"], '"Paid"'))}
    # near misses: both calls take the default; a default not known statically stays unknown
    assert found({"svc.py": PY_CONSUMERS + '\n\nstart("orders_cg", "Orders")\nstart("orders_cg", "Orders")\n'}) \
        == set()
    unknown = "import os\n" + PY_CONSUMERS.replace('tags="*"', 'tags=os.environ["TAGS"]')
    assert found({"svc.py": unknown + '\n\nstart("orders_cg", "Orders")\nstart("orders_cg", "Orders", "Paid")\n'}) \
        == set()


PY_MAIN = """\
from app.mq.consumers import make, start
from .mq import consumers as mq

GROUP = "orders_cg"


def main():
    start(GROUP, "Orders", "Paid")
    mq.start(GROUP, "Orders", tags="Refunded")
    cache = make("cache_cg")
    cache.set_message_model(0)
    cache.subscribe("Cache", mq.on_message)
    cache.start()
    stock = make("stock_cg")
    stock.subscribe("Stock", mq.on_message)
    stock.start()
"""


def test_python_functions_of_another_module_bound_at_each_call():
    files = {"app/__init__.py": "", "app/mq/__init__.py": "", "app/mq/consumers.py": PY_CONSUMERS,
             "app/main.py": PY_MAIN}
    assert found(files) == {
        ("RMQ004", "app/main.py", line_of(PY_MAIN, '"Refunded"')),
        ("RMQ001", "app/mq/consumers.py", line_of(PY_CONSUMERS, "set_instance_name")),  # stock_cg only
    }
    quiet = "\n".join(line for line in PY_MAIN.replace('"Refunded"', '"Paid"').splitlines() if "stock" not in line)
    assert found({**files, "app/main.py": quiet}) == set()
    # not called anywhere: its parameters are unknown, and callers outside may still configure what it returns
    assert found({**files, "app/main.py": "GROUP = 'orders_cg'\n"}) == set()


def test_python_function_of_another_module_called_without_a_defaulted_argument():
    """`start(GROUP, "Orders")` from another module subscribes with the default tags "*" (`Param.default`), so a
    call with "Paid" is a second expression for the group; near miss: both calls leave the tags out."""
    files = {"app/__init__.py": "", "app/mq/__init__.py": "", "app/mq/consumers.py": PY_CONSUMERS,
             "app/main.py": 'from app.mq.consumers import start\n\nstart("orders_cg", "Orders")\n'
                            'start("orders_cg", "Orders", "Paid")\n'}
    assert found(files) == {("RMQ004", "app/main.py", 4)}
    files["app/main.py"] = files["app/main.py"].replace(', "Paid")', ")")
    assert found(files) == set()


def test_templates_survive_the_cache_codec():
    from rmqlint.facts import facts_from_json, facts_to_json
    from rmqlint.frontends.java.parse import parse_java
    from rmqlint.frontends.python.parse import parse_python

    for facts in (parse_java(FACTORY_PATH, FACTORY.encode()), parse_python("app/mq/consumers.py", PY_CONSUMERS.encode())):
        assert facts.templates and facts_from_json(facts_to_json(facts)) == facts


def test_a_run_with_one_file_changed_reads_no_unchanged_caller_again(tmp_path, monkeypatch):
    """The byte search for calls of a factory is kept in the cache per file content: the next run reads only the
    files that changed, and still finds a call added to one of them."""
    import os

    from rmqlint.engine import LintOptions, SourceIndex, lint
    from tests.lint.test_engine_fixtures import OLD, write_project

    plain = "src/main/java/com/acme/app/Plain.java"
    plain_text = "package com.acme.app;\n\npublic class Plain {\n    void run() {\n    }\n}\n"
    root = write_project(tmp_path / "p", {FACTORY_PATH: FACTORY, APP_PATH: APP, plain: plain_text})
    first = {(f.code, f.location.path) for f in lint(LintOptions(paths=[root])).findings}
    assert ("RMQ004", APP_PATH) in first

    read: list[str] = []
    real_peek, real_read = SourceIndex._peek, SourceIndex._read

    def peek(self, rel):
        if rel not in self._peeked:
            read.append(rel)
        return real_peek(self, rel)

    def read_file(self, rel, kind):
        read.append(rel)
        return real_read(self, rel, kind)

    monkeypatch.setattr(SourceIndex, "_peek", peek)
    monkeypatch.setattr(SourceIndex, "_read", read_file)
    (root / APP_PATH).write_text(APP.replace('"Refunded"', '"Paid"'), encoding="utf-8")
    os.utime(root / APP_PATH, (OLD + 10, OLD + 10))
    second = {(f.code, f.location.path) for f in lint(LintOptions(paths=[root])).findings}
    assert ("RMQ004", APP_PATH) not in second and set(read) == {APP_PATH}  # neither Plain nor the factory read

    read.clear()
    (root / plain).write_text(plain_text.replace("void run() {", 'void run() throws Exception {\n'
                                                 '        com.acme.mq.Consumers.start("app_cg", "Orders", "X");'),
                              encoding="utf-8")
    os.utime(root / plain, (OLD + 10, OLD + 10))
    third = {(f.code, f.location.path) for f in lint(LintOptions(paths=[root])).findings}
    assert plain in read and ("RMQ004", plain) in third


PY_BUILDER = """\
from rocketmq.client import ConsumeStatus, PushConsumer


class OrderWorker:
    def __init__(self):
        self.consumer = self._build("orders_cg")

    def _build(self, group):
        consumer = PushConsumer(group)
        consumer.set_instance_name("worker")
        return consumer

    def start(self):
        self.consumer.subscribe("Orders", self.on_message)
        self.consumer.start()

    def on_message(self, msg):
        return ConsumeStatus.CONSUME_SUCCESS
"""


def test_python_builder_method_and_attribute_are_one_consumer():
    assert found({"worker.py": PY_BUILDER}) == {("RMQ001", "worker.py", line_of(PY_BUILDER, "set_instance_name"))}
    broadcasting = PY_BUILDER.replace('self.consumer.subscribe("Orders", self.on_message)',
                                      'self.consumer.set_message_model(0)\n        '
                                      'self.consumer.subscribe("Orders", self.on_message)')
    assert found({"worker.py": broadcasting}) == set()

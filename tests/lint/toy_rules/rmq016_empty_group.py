"""RMQ016 (a toy, not shipped; the example rule of docs/development.md): a consumer group name that is blank."""

from __future__ import annotations

from rmqlint.project import Project
from rmqlint.rules._consumers import is_consumer, lit_text
from rmqlint.rules._examples import line_of
from rmqlint.rules.base import Example, Rule

_JAVA = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

class Orders {
    void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(" ");
        consumer.subscribe("OrderTopic", "*");
        consumer.start();
    }
}
"""

_PYTHON = """\
from rocketmq.client import PushConsumer

consumer = PushConsumer("")
"""


class EmptyGroup(Rule):
    CODE = "RMQ016"
    NAME = "empty-group"
    SEVERITY = "error"
    SUMMARY = "A consumer group name that is blank"
    DOCS = """\
## What it does
Finds a consumer whose group name is blank.

## Why is this bad?
The client refuses to start without a group.

## Example
```java
new DefaultMQPushConsumer(" ");
```

## Fix
Name the group.
"""
    INVALID = [
        Example({"Orders.java": _JAVA}, expect=(("Orders.java", line_of(_JAVA, "new Default")),)),
        Example({"consumer.py": _PYTHON}, expect=(("consumer.py", line_of(_PYTHON, "PushConsumer(")),)),
    ]
    VALID = [
        Example({"Orders.java": _JAVA.replace('(" ")', '("orders")')}),
        Example({"consumer.py": _PYTHON.replace('("")', '("orders")')}),
    ]

    def looks_at(self, project: Project) -> bool:
        return any(is_consumer(c) for _f, c in project.clients())

    def check(self, project: Project):
        for _facts, client in project.clients():
            group = lit_text(client.group)
            if is_consumer(client) and group is not None and not group.strip():
                yield self.finding("consumer group name is blank", client.group.location)

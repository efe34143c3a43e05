"""RMQ900 unreadable-file: a file rmqlint could not read or parse (fully). The run goes on without it."""

from __future__ import annotations

from typing import Iterable

from rmqlint.findings import Finding
from rmqlint.project import Project
from rmqlint.rules.base import Example, Rule

_BROKEN_JAVA = """\
package shop;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class OrderConsumer {
    void start( {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
}
"""

_FINE_JAVA = """\
package shop;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class OrderConsumer {
    void start() {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
    }
}
"""

_BROKEN_PY = """\
from rocketmq.client import PushConsumer

consumer = PushConsumer("orders_cg"
"""


_BROKEN_GO = """\
package orders

import "github.com/apache/rocketmq-client-go/v2"

func start() {
	c, _ := rocketmq.NewPushConsumer(
}
"""


class UnreadableFile(Rule):
    CODE = "RMQ900"
    NAME = "unreadable-file"
    SEVERITY = "info"
    SUMMARY = "A file could not be read or parsed; the run continues without it"
    DOCS = """\
## What it does
Reports a file rmqlint could not read or parse: unreadable, binary, in an encoding it cannot decode, nested
deeper than it follows, larger than it parses (768 KB of Java or Go, 192 KB of Python, 768 KB of Spring configuration:
the parsers' memory grows with the file), or with a syntax error. The rest of the project is still linted, and whatever part of a
Java or Go file with a syntax error could be parsed is still checked.

## Why is this bad?
Nothing in that file (or that part of it) was checked, and constants it declares cannot be resolved, so findings
in this file and in files that use its constants may be missing.

## Example
```java
public class OrderConsumer {
    void start( {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
}
```

## Fix
Fix the syntax error or the encoding (rmqlint reads Java, Go and Python as UTF-8, honours a Python coding
declaration, and reads `.properties` as UTF-8 or else ISO-8859-1), or exclude the file with `exclude` in
`[tool.rmqlint]`.
"""
    VALID = [
        Example({"shop/OrderConsumer.java": _FINE_JAVA,
                 "consumer.py": "from rocketmq.client import PushConsumer\n\nconsumer = PushConsumer('orders_cg')\n"
                                "consumer.start()\n",
                 "orders/start.go": _BROKEN_GO.replace("(\n}", "()\n\t_ = c\n}")}),
    ]
    INVALID = [
        Example({"shop/OrderConsumer.java": _BROKEN_JAVA}, expect=(("shop/OrderConsumer.java", 6),)),
        Example({"consumer.py": _BROKEN_PY}, expect=(("consumer.py", 3),)),
        Example({"orders/start.go": _BROKEN_GO}, expect=(("orders/start.go", 6),)),
    ]

    def check(self, project: Project) -> Iterable[Finding]:
        for facts in project.files.values():
            for problem in facts.problems:
                yield self.finding(problem.message, problem.location)

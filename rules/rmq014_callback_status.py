"""RMQ014: a Python 2.x consume callback that can return something other than a `ConsumeStatus`."""

from __future__ import annotations

from typing import Iterable

from rmqlint.findings import Finding, Related
from rmqlint.project import Project
from rmqlint.rules._consumers import describe_group
from rmqlint.rules._examples import line_of
from rmqlint.rules.base import Example, Rule

_PYTHON_FALLS_OFF = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def run_task(msg):
    task = load(msg.body)
    if task is None:
        return ConsumeStatus.CONSUME_SUCCESS
    try:
        task.execute()
        return ConsumeStatus.CONSUME_SUCCESS
    except Exception as error:
        print("task failed", error)


def load(body):
    return None


consumer = PushConsumer("task_workers")
consumer.subscribe("TaskTopic", run_task)
consumer.start()
"""

_PYTHON_BARE_RETURN = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_order(msg):
    if not msg.body:
        return  # nothing to do
    print(msg.body)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("order_workers")
consumer.subscribe("OrderTopic", on_order)
consumer.subscribe("AuditTopic", lambda msg: print(msg.id))
consumer.start()
"""

# --- near misses that must stay quiet ---

_PYTHON_OK = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def run_task(msg):
    try:
        handle(msg.body)
    except Exception as error:
        print("task failed", error)
        return ConsumeStatus.RECONSUME_LATER
    return ConsumeStatus.CONSUME_SUCCESS


def handle(body):
    pass


def forever(msg):
    while True:
        if msg.body:
            return 0
        return True


consumer = PushConsumer("task_workers")
consumer.subscribe("TaskTopic", run_task)
consumer.subscribe("RetryTopic", forever)
consumer.subscribe("AuditTopic", lambda msg: handle(msg.body) or ConsumeStatus.CONSUME_SUCCESS)
consumer.start()
"""

_JAVA_OK = """\
package com.example.tasks;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class TaskConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("task_workers");
        consumer.subscribe("TaskTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            if (msgs.isEmpty()) {
                return null;
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }
}
"""


class CallbackStatus(Rule):
    CODE = "RMQ014"
    NAME = "callback-status"
    SEVERITY = "error"
    NO_JAVA_MISTAKE = ("the Java client takes a null or failed status as a failure and retries the message: only "
                       "the Python 2.x binding turns a wrong return into an error raised through ctypes")
    NO_GO_MISTAKE = ("a Go callback returns a consumer.ConsumeResult, which the compiler checks; the client acts on "
                     "that result whatever error is returned beside it")
    SUMMARY = ("A Python 2.x consume callback can return something other than a ConsumeStatus (falling off its "
               "end returns None), and the client raises on every such message")
    DOCS = """\
## What it does
Finds the callbacks of Python 2.x `PushConsumer`s (rocketmq-client-python, the binding of the C++ client) that
can return something other than a `ConsumeStatus`: a bare `return`, `return None`, a string or another value
known not to be one, or an end of the function reached without a return (Python then returns None), such as an
`except` clause that only logs. `ConsumeStatus` is an `IntEnum`, so `0`, `1`, `True` and `False` compare equal
to its members and are accepted; a value that is not known statically (a call's result) is not judged. Only the
2.x client is concerned: the Java client treats a null status as a failure and retries the message, and the 5.x
Python client's `consume` returns a `ConsumeResult` that its own code checks.

## Why is this bad?
`PushConsumer.subscribe` wraps the callback in `_on_message` (`rocketmq/client.py`), which the C++ core calls
through ctypes for every message. When the callback's result is neither `CONSUME_SUCCESS` nor `RECONSUME_LATER`,
`_on_message` raises `ValueError('Consume status error, please use enum 'ConsumeStatus' as response')`; its
`except` clause catches that, returns `RECONSUME_LATER`, and its `finally` clause raises the error again, which
replaces the return. So the function handed to ctypes raises, and a ctypes callback cannot raise into C: ctypes
prints "Exception ignored on calling ctypes callback function" with the traceback to stderr and returns to the
C++ core without writing the callback's result (it writes it only for a callback that returned). The core reads
whatever that return slot held (`if (callback(consumer, msg) != E_CONSUME_SUCCESS) return RECONSUME_LATER;`): a
leftover 0 acknowledges the message as consumed, anything else fails it: a clustering consumer sends it back for a
retry (up to 16 times, then to the dead-letter queue), a broadcasting one drops it, and an orderly one
(`PushConsumer(group, orderly=True)`) consumes it again in place, without end, every second and after 16 tries
every 5 seconds, so its queue is blocked while the leftover value stays nonzero. Which one happens is decided by
the machine and by what ran before, not by the code: the same message may be lost on one host and retried on
another, and stderr fills with tracebacks. (A callback that raises takes the same path: `_on_message` raises its
exception again.)

## Example
```python
def run_task(msg):
    try:
        execute(msg.body)
        return ConsumeStatus.CONSUME_SUCCESS
    except Exception as error:
        log.error("task failed: %s", error)     # falls off the end: returns None
```

## Fix
Return a `ConsumeStatus` on every path: `CONSUME_SUCCESS` when the message is handled (or is to be skipped), and
`RECONSUME_LATER` when it should be retried:
```python
    except Exception as error:
        log.error("task failed: %s", error)
        return ConsumeStatus.RECONSUME_LATER
```
"""

    INVALID = [
        Example(
            {"worker.py": _PYTHON_FALLS_OFF},
            expect=(("worker.py", line_of(_PYTHON_FALLS_OFF, "def run_task")),),
            note="an except clause that only prints: the callback returns None",
        ),
        Example(
            {"orders.py": _PYTHON_BARE_RETURN},
            expect=(("orders.py", line_of(_PYTHON_BARE_RETURN, "return  # nothing to do")),
                    ("orders.py", line_of(_PYTHON_BARE_RETURN, "lambda msg: print"))),
            note="a bare return; a lambda returning print()'s None",
        ),
    ]

    VALID = [
        Example({"worker.py": _PYTHON_OK},
                note="a status on every path (0 and True compare equal to the statuses); an endless loop that "
                     "returns; a lambda whose value is not known"),
        Example({"src/main/java/com/example/tasks/TaskConsumer.java": _JAVA_OK},
                note="Java: a null status is the client's own failure case, not this rule's"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A push consumer with a listener."""
        return any(c.role == "push_consumer" and c.listeners for _f, c in project.clients())

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, client in project.clients():
            if client.api != "python2" or client.role != "push_consumer":
                continue
            for listener in client.listeners:
                if listener.kind != "python":
                    continue
                for where in listener.non_status_returns:
                    yield self.finding(
                        f"the callback of consumer {describe_group(client)} returns something other than a "
                        f"ConsumeStatus here: {_CONSEQUENCE}", where,
                        [Related(listener.location, "the callback")] if where != listener.location else [])
                if listener.ends_without_return is not None:
                    yield self.finding(
                        f"the callback of consumer {describe_group(client)} can end without a return (after the "
                        f"statement at line {listener.ends_without_return.line}), so it returns None: "
                        f"{_CONSEQUENCE}", listener.location,
                        [Related(listener.ends_without_return, "the last statement, with no return after it")])


_CONSEQUENCE = ("the client raises 'Consume status error' for every such message, and the C++ core then acts on "
                "a return value ctypes never set: the message is acknowledged or retried by chance; return "
                "ConsumeStatus.CONSUME_SUCCESS or RECONSUME_LATER on every path")

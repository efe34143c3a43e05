"""rmqlint on one class that holds many clients and messages (not a test): is extraction linear in their number?

    python -m benchmarks.class_sizes                     # every shape at 2,000 and 8,000, best of 3
    python -m benchmarks.class_sizes --sizes 1000 4000 16000 --repeat 5 --only java-reassigned

Each shape is one generated file in a project of its own, linted cold in a fresh process (`rmqlint FILE
--no-cache`, interpreter start and imports included), at each size. The growth column is the time at the largest
size over the time at the smallest, against the growth of the size: linear extraction keeps them close (the fixed
start-up cost of about 0.3 s makes the time grow a little slower than the size).

Shapes:
- java-reassigned: one method sending N messages through one `Message msg` variable, reassigned before each send;
- java-methods: N methods, each building a message and sending it with a field producer;
- java-template: N `RocketMQTemplate.syncSend("Topic:Tag", ..)` calls;
- java-consumers: N consumer fields, all subscribed and started in one method;
- python-reassigned / python-consumers: the same two shapes as a Python 2.x module;
- go-reassigned / go-consumers: the same two shapes as a Go function (rocketmq-client-go), and go-options: one
  consumer whose options slice is appended to N times (past 64 appends the options are not followed); measure the
  Go shapes at `--sizes 1000 4000`: at 8,000 the file is over Go's 768 KB limit (an RMQ900 note, not a lint).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.big_files import _measured
from benchmarks.lint_bench import machine

JAVA_HEAD = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.spring.core.RocketMQTemplate;

public class OrderEvents {
    private final DefaultMQProducer producer = new DefaultMQProducer("order_producer");
    private RocketMQTemplate template;
"""


def java_reassigned(n: int) -> str:
    body = "".join(f'        msg = new Message("Topic{i % 50}", body);\n        msg.setTags("Tag{i % 7}");\n'
                   f'        producer.send(msg);\n' for i in range(n))
    return JAVA_HEAD + "    public void run(byte[] body) throws Exception {\n        Message msg;\n" + body + "    }\n}\n"


def java_methods(n: int) -> str:
    return JAVA_HEAD + "".join(
        f'    public void send{i}(byte[] body) throws Exception {{\n'
        f'        Message msg = new Message("Topic{i % 50}", "Tag{i % 7}", body);\n'
        f'        producer.send(msg);\n    }}\n' for i in range(n)) + "}\n"


def java_template(n: int) -> str:
    return JAVA_HEAD + "".join(
        f'    public void send{i}(Object order) {{\n        template.syncSend("Topic{i % 50}:Tag{i % 7}", order);\n'
        f'    }}\n' for i in range(n)) + "}\n"


def java_consumers(n: int) -> str:
    fields = "".join(f'    private final DefaultMQPushConsumer c{i} = new DefaultMQPushConsumer("group{i}");\n'
                     for i in range(n))
    starts = "".join(f'        c{i}.subscribe("Topic{i % 50}", "*");\n        c{i}.start();\n' for i in range(n))
    return JAVA_HEAD + fields + "    public void init() throws Exception {\n" + starts + "    }\n}\n"


PYTHON_HEAD = """\
from rocketmq.client import ConsumeStatus, Message, Producer, PushConsumer

producer = Producer("order_producer")


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS
"""


def python_reassigned(n: int) -> str:
    return PYTHON_HEAD + "\n\ndef run(body):\n" + "".join(
        f'    msg = Message("Topic{i % 50}")\n    msg.set_tags("Tag{i % 7}")\n    producer.send_sync(msg)\n'
        for i in range(n))


def python_consumers(n: int) -> str:
    return PYTHON_HEAD + "\n" + "".join(
        f'c{i} = PushConsumer("group{i}")\nc{i}.subscribe("Topic{i % 50}", on_message)\nc{i}.start()\n'
        for i in range(n))


GO_HEAD = """\
package orders

import (
\t"context"

\t"github.com/apache/rocketmq-client-go/v2"
\t"github.com/apache/rocketmq-client-go/v2/consumer"
\t"github.com/apache/rocketmq-client-go/v2/primitive"
)

func onMessage(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
\treturn consumer.ConsumeSuccess, nil
}
"""


def go_reassigned(n: int) -> str:
    body = "".join(f'\tmsg = primitive.NewMessage("Topic{i % 50}", body)\n\tmsg.WithTag("Tag{i % 7}")\n'
                   f'\t_, _ = p.SendSync(context.Background(), msg)\n' for i in range(n))
    return GO_HEAD + "\nfunc run(p rocketmq.Producer, body []byte) {\n\tvar msg *primitive.Message\n" + body + "}\n"


def go_consumers(n: int) -> str:
    body = "".join(f'\tc{i}, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("group{i}"))\n'
                   f'\t_ = c{i}.Subscribe("Topic{i % 50}", consumer.MessageSelector{{}}, onMessage)\n'
                   f'\t_ = c{i}.Start()\n' for i in range(n))
    return GO_HEAD + "\nfunc start() {\n" + body + "}\n"


def go_options(n: int) -> str:
    """One consumer whose options slice is appended to N times (each append reads the slice's value before it)."""
    body = "".join(f'\topts = append(opts, consumer.WithPullBatchSize({i % 32 + 1}))\n' for i in range(n))
    return GO_HEAD + ("\nfunc start() {\n\topts := []consumer.Option{consumer.WithGroupName(\"orders\")}\n" + body +
                      '\tc, _ := rocketmq.NewPushConsumer(opts...)\n\t_ = c.Subscribe("Orders", '
                      'consumer.MessageSelector{}, onMessage)\n}\n')


SHAPES = {
    "java-reassigned": java_reassigned,
    "java-methods": java_methods,
    "java-template": java_template,
    "java-consumers": java_consumers,
    "python-reassigned": python_reassigned,
    "python-consumers": python_consumers,
    "go-reassigned": go_reassigned,
    "go-consumers": go_consumers,
    "go-options": go_options,
}


def measure(shape: str, size: int, repeat: int) -> dict:
    project = Path(tempfile.mkdtemp(prefix="rmqlint-class-"))
    try:
        (project / ".git").mkdir()  # a project of its own: nothing else is indexed
        name = {"python": "orders.py", "go": "orders.go"}.get(shape.partition("-")[0], "OrderEvents.java")
        (project / name).write_text(SHAPES[shape](size), encoding="utf-8")
        result = _measured([sys.executable, "-m", "rmqlint", name, "--no-cache"], project, repeat)
        result["bytes"] = (project / name).stat().st_size
        return result
    finally:
        shutil.rmtree(project, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.class_sizes", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000], help="N (default 2000 8000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (default 3)")
    parser.add_argument("--only", choices=sorted(SHAPES), help="one shape")
    args = parser.parse_args(argv)
    sizes = sorted(set(args.sizes))
    print("machine:", machine(), flush=True)
    header = " | ".join(f"N={n:,} wall s" for n in sizes)
    print(f"| shape | {header} | growth of time / of N |")
    print("|---|" + "---:|" * (len(sizes) + 1))
    for shape in ([args.only] if args.only else list(SHAPES)):
        walls = [measure(shape, n, max(1, args.repeat))["wall"] for n in sizes]
        cells = " | ".join(f"{w:.2f}" for w in walls)
        print(f"| {shape} | {cells} | {walls[-1] / walls[0]:.1f} / {sizes[-1] / sizes[0]:.0f} |", flush=True)
    print("machine after:", machine())
    return 0


if __name__ == "__main__":
    sys.exit(main())

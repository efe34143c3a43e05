"""rmqlint on one very large file (not a test): a cold lint of the largest Python module, Java class and Go file
it lints (just under each language's limit, `max_bytes` of its frontend), each passed on the command line, against
a bare parse of the same file by the parser rmqlint uses for it.

    python -m benchmarks.big_files                       # both files, best of 3
    python -m benchmarks.big_files --repeat 5 --only python
    python -m benchmarks.big_files --python-shape relevant   # a module whose every function uses the producer
    python -m benchmarks.big_files --write /tmp/big          # only write the two projects, to time them by hand:
        /usr/bin/time -v .venv/bin/rmqlint /tmp/big/python/orders_service.py --no-cache

Every figure is a fresh process, as a user runs it: `rmqlint FILE --no-cache` against
`python -c "import libcst; libcst.parse_module(...)"` (Python) or a tree-sitter parse (Java, Go), the interpreter's
start and the imports included. Wall and CPU seconds (user + system) are the best of --repeat runs, peak memory
(maximum resident set size) the largest. The files are generated (deterministic) in a temporary project of their
own, outside any repository, and deleted afterwards.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.lint_bench import _env, machine

def target_bytes(kind: str) -> int:
    """Just under the frontend's limit: the largest file of the language that rmqlint parses."""
    from rmqlint.frontends import frontend_named

    return frontend_named(kind).max_bytes - 4 * 1024

PYTHON_HEAD = '''"""Order handling service (generated for the benchmark)."""
import logging
import os

from rocketmq.client import ConsumeStatus, Message, Producer, PushConsumer

log = logging.getLogger(__name__)
TOPIC = "OrderEvents"
producer = Producer("orders_producer")

'''

PYTHON_BLOCK = '''
ORDER_STATUS_{i} = {{"created": "C{i}", "paid": "P{i}", "shipped": "S{i}", "values": [{i}, {j}, "x{i}"]}}


class Handler{i}(object):
    """Handles order events of kind {i}."""

    retries = {k}

    def __init__(self, client, name="handler-{i}"):
        self.client = client
        self.name = name
        self.seen = set()

    def handle(self, event, *args, **kwargs):
        if event.get("status") == ORDER_STATUS_{i}["paid"]:
            for item in event.get("items", []):
                total = item["price"] * item.get("count", 1) + {i}
                self.seen.add((item["sku"], total))
        elif event.get("status") in ("x", "y"):
            log.info("skipping %s in %s", event, self.name)
        else:
            try:
                self.client.send(self.name, event, timeout=kwargs.get("timeout", 3.0))
            except Exception as err:
                log.warning("failed: %s", err)
                return None
        return [x for x in self.seen if x[1] > {i}]


def helper_{i}(a, b=None, *, c={i}):
    result = a + (b or 0) * c
    return {{"sum": result, "name": f"helper-{{a}}-{i}", "ok": result > 10}}
'''

PYTHON_RELEVANT_BLOCK = '''

def publish_{i}(order, express):
    msg = Message(TOPIC)
    if express:
        tag = "Express{k}"
    else:
        tag = "Standard{k}"
    msg.set_tags(tag)
    msg.set_keys(str(order["id"]))
    msg.set_body(repr(order))
    for attempt in range(3):
        try:
            return producer.send_sync(msg)
        except Exception as err:
            log.warning("attempt %d of order %s failed: %s", attempt, order["id"], err)
    return None
'''

PYTHON_CONSUMER = '''

def on_message(msg):
    log.info("order event %s", msg.id)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("orders_cg")
consumer.set_instance_name("node-1")
consumer.subscribe(TOPIC, on_message, "Express1 || Standard1")
'''

JAVA_HEAD = '''package com.example.orders;

import java.util.*;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class OrderEvents {
    public static final String TOPIC = "OrderEvents";
'''

JAVA_BLOCK = '''
    public static final String STATUS_{i} = "status-{i}";
    private final Map<String, Integer> counts{i} = new HashMap<>();

    public int handle{i}(List<String> items, String mode) {{
        int total = {i};
        for (String item : items) {{
            if (item.startsWith(STATUS_{i})) {{
                total += item.length() * {k};
            }} else if ("x".equals(mode)) {{
                counts{i}.merge(item, 1, Integer::sum);
            }} else {{
                try {{
                    total -= Integer.parseInt(item);
                }} catch (NumberFormatException e) {{
                    System.out.println("bad item " + item + " in " + mode);
                }}
            }}
        }}
        return total > 100 ? total / 2 : total;
    }}
'''

JAVA_CONSUMER = '''
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
        consumer.setInstanceName("node-1");
        consumer.subscribe(TOPIC, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
'''

GO_HEAD = '''package orders

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

const Topic = "OrderEvents"
'''

GO_BLOCK = '''
const Status{i} = "status-{i}"

var counts{i} = map[string]int{{}}

func handle{i}(items []string, mode string) (int, error) {{
	total := {i}
	for _, item := range items {{
		if strings.HasPrefix(item, Status{i}) {{
			total += len(item) * {k}
		}} else if mode == "x" {{
			counts{i}[item]++
		}} else {{
			n, err := strconv.Atoi(item)
			if err != nil {{
				return 0, fmt.Errorf("bad item %s in %s: %w", item, mode, err)
			}}
			total -= n
		}}
	}}
	if total > 100 {{
		return total / 2, nil
	}}
	return total, nil
}}
'''

GO_CONSUMER = '''
func start() error {
	c, err := rocketmq.NewPushConsumer(consumer.WithGroupName("orders_cg"), consumer.WithInstance("node-1"))
	if err != nil {
		return err
	}
	err = c.Subscribe(Topic, consumer.MessageSelector{},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		})
	if err != nil {
		return err
	}
	return c.Start()
}
'''

PARSE_PYTHON = "import libcst, sys; libcst.parse_module(open(sys.argv[1], encoding='utf-8').read())"
PARSE_JAVA = ("import sys, tree_sitter, tree_sitter_java; "
              "tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language())).parse(open(sys.argv[1], 'rb').read())")

PARSE_GO = ("import sys, tree_sitter, tree_sitter_go; "
            "tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language())).parse(open(sys.argv[1], 'rb').read())")
PARSERS = {"python": PARSE_PYTHON, "java": PARSE_JAVA, "go": PARSE_GO}


def python_source(shape: str) -> str:
    parts, size, i = [PYTHON_HEAD], len(PYTHON_HEAD), 0
    block = PYTHON_RELEVANT_BLOCK if shape == "relevant" else PYTHON_BLOCK
    target, consumer = target_bytes("python"), False
    while size + len(PYTHON_CONSUMER) < target:
        text = block.format(i=i, j=i + 1, k=i % 7 + 1)
        if size + len(text) + len(PYTHON_CONSUMER) > target:
            break
        parts.append(text)
        size += len(text)
        i += 1
        if not consumer and size >= target // 4:  # the consumer a quarter of the way in
            parts.append(PYTHON_CONSUMER)
            size += len(PYTHON_CONSUMER)
            consumer = True
    return "".join(parts)


def java_source() -> str:
    parts, size, i = [JAVA_HEAD], len(JAVA_HEAD), 0
    target, consumer = target_bytes("java"), False
    while True:
        text = JAVA_BLOCK.format(i=i, k=i % 7 + 1)
        if size + len(text) + len(JAVA_CONSUMER) + 2 > target:
            break
        parts.append(text)
        size += len(text)
        i += 1
        if not consumer and size >= target // 4:  # the consumer a quarter of the way in
            parts.append(JAVA_CONSUMER)
            size += len(JAVA_CONSUMER)
            consumer = True
    parts.append("}\n")
    return "".join(parts)


def go_source() -> str:
    parts, size, i = [GO_HEAD], len(GO_HEAD), 0
    target, consumer = target_bytes("go"), False
    while True:
        text = GO_BLOCK.format(i=i, k=i % 7 + 1)
        if size + len(text) + len(GO_CONSUMER) > target:
            break
        parts.append(text)
        size += len(text)
        i += 1
        if not consumer and size >= target // 4:  # the consumer a quarter of the way in
            parts.append(GO_CONSUMER)
            size += len(GO_CONSUMER)
            consumer = True
    return "".join(parts)


def _measured(argv: list[str], cwd: Path, repeat: int) -> dict:
    runs = []
    for _ in range(repeat):
        wall, cpu, rss, proc = _timed_fresh(argv, cwd)
        if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
            raise SystemExit(f"{' '.join(argv)} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
        runs.append((wall, cpu, rss, proc))
    return {"wall": min(r[0] for r in runs), "cpu": min(r[1] for r in runs), "rss_mb": max(r[2] for r in runs) / 1024,
            "stdout": runs[-1][3].stdout}


def _timed_fresh(argv: list[str], cwd: Path):
    """One process, timed and measured by itself: `os.wait4` reports the rusage of exactly that child."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out_chunks: list[str] = []
    err_chunks: list[str] = []

    def drain(stream, into):
        into.append(stream.read())

    threads = [threading.Thread(target=drain, args=(proc.stdout, out_chunks)),
               threading.Thread(target=drain, args=(proc.stderr, err_chunks))]
    for thread in threads:
        thread.start()
    _pid, status, usage = os.wait4(proc.pid, 0)
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    done = subprocess.CompletedProcess(argv, proc.returncode, "".join(out_chunks), "".join(err_chunks))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, done


def write_project(project: Path, kind: str, source: str) -> Path:
    """A project of its own (nothing else is indexed) holding the one file; returns the file's path."""
    (project / ".git").mkdir(parents=True, exist_ok=True)
    path = project / {"python": "orders_service.py", "go": "orders/events.go"}.get(
        kind, "src/main/java/com/example/orders/OrderEvents.java")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    return path


def measure(kind: str, source: str, repeat: int) -> dict:
    project = Path(tempfile.mkdtemp(prefix=f"rmqlint-big-{kind}-"))
    try:
        path = write_project(project, kind, source)
        name = path.relative_to(project).as_posix()
        subprocess.run([sys.executable, "-m", "rmqlint", "--version"], env=_env(), capture_output=True, check=True)
        parse = _measured([sys.executable, "-c", PARSERS[kind], name], project, repeat)
        lint = _measured([sys.executable, "-m", "rmqlint", name, "--no-cache"], project, repeat)
        lines = lint["stdout"].strip().splitlines()
        return {"kind": kind, "bytes": path.stat().st_size, "parse": parse, "lint": lint,
                "findings": lines[-1:] + lines[:min(2, len(lines) - 1)]}
    finally:
        shutil.rmtree(project, ignore_errors=True)


def report(results: list[dict]) -> str:
    lines = ["| file | run | wall s (best) | CPU s (best) | peak MB (max) |", "|---|---|---:|---:|---:|"]
    for r in results:
        parser = "libcst.parse_module" if r["kind"] == "python" else "tree-sitter parse"
        size = f"{r['kind']}, {r['bytes'] / (1024 * 1024):.2f} MiB"
        for label, m in ((f"bare {parser} (python -c)", r["parse"]), ("rmqlint FILE --no-cache", r["lint"])):
            lines.append(f"| {size} | {label} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['rss_mb']:.0f} |")
    lines.append("")
    for r in results:
        lines.append(f"{r['kind']}: lint / parse: wall {r['lint']['wall'] / r['parse']['wall']:.2f}, "
                     f"CPU {r['lint']['cpu'] / r['parse']['cpu']:.2f} (target <= 2); peak {r['lint']['rss_mb']:.0f} MB"
                     f"; output: {r['findings']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.big_files", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (default 3)")
    parser.add_argument("--only", choices=("python", "java", "go"), help="measure one language")
    parser.add_argument("--python-shape", choices=("mixed", "relevant"), default="mixed",
                        help="mixed (default): one consumer among unrelated code and data; relevant: every "
                             "function of the module sends with the producer")
    parser.add_argument("--write", type=Path, metavar="DIR",
                        help="write the projects to DIR/python and DIR/java and stop (nothing is measured)")
    args = parser.parse_args(argv)
    if args.write is not None:
        for kind, source in (("python", python_source(args.python_shape)), ("java", java_source()), ("go", go_source())):
            print(write_project(args.write / kind, kind, source))
        return 0
    print("machine:", machine(), flush=True)
    results = []
    if args.only in (None, "python"):
        results.append(measure("python", python_source(args.python_shape), max(1, args.repeat)))
    if args.only in (None, "java"):
        results.append(measure("java", java_source(), max(1, args.repeat)))
    if args.only in (None, "go"):
        results.append(measure("go", go_source(), max(1, args.repeat)))
    print(report(results))
    print("machine after:", machine(), "|", platform.processor() or platform.machine())
    return 0


if __name__ == "__main__":
    sys.exit(main())

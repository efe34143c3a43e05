"""Facts behind RMQ013 (identities that change on retry, used as keys) and RMQ014 (Python 2.x callbacks that can
return something other than a ConsumeStatus), each with the near misses that must give nothing."""

from __future__ import annotations

from rmqlint.frontends.java.parse import parse_java
from rmqlint.frontends.python.parse import parse_python
from rules._examples import line_of

JAVA = """\
package a;

import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.*;
import org.apache.rocketmq.client.producer.*;
import org.apache.rocketmq.common.message.MessageExt;

public class Dedup {
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final Map<Long, Boolean> done = new HashMap<>();
    private final List<Long> offsets = new ArrayList<>();
    private OrderRepository repo;
    private org.slf4j.Logger log;
    private StoreStats stats;

    void start() throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer("g");
        c.subscribe("T", "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt msg : msgs) {
                if (!seen.add(msg.getOffsetMsgId())) continue;
                String id = msg.getOffsetMsgId();
                repo.findByMsgId(id);
                done.put(msg.getQueueOffset(), true);
                repo.selectByMessageId("k:" + msg.getCommitLogOffset());
                OrderRecord r = new OrderRecord();
                r.setMsgId(msg.getOffsetMsgId());
                log.info("got {} at {}", msg.getOffsetMsgId(), msg.getQueueOffset());
                seen.add(msg.getMsgId());
                r.setOffsetMsgId(msg.getOffsetMsgId());
                offsets.add(msg.getQueueOffset());
                done.put(stats.getQueueOffset(), true);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        DefaultMQProducer p = new DefaultMQProducer("p");
        SendResult result = p.send(new org.apache.rocketmq.common.message.Message("T", "x".getBytes()));
        repo.save(result.getOffsetMsgId());
        repo.save(result.getMsgId());
    }
}
"""


def test_java_identity_uses_and_near_misses():
    facts = parse_java("a/Dedup.java", JAVA.encode())
    got = [(u.location.line, u.identity, u.use, u.call, u.sent) for u in facts.identity_uses]
    assert got == [
        (line_of(JAVA, "seen.add(msg.getOffsetMsgId())"), "getOffsetMsgId()", "dedupe", "seen.add", False),
        (line_of(JAVA, "String id ="), "getOffsetMsgId()", "lookup", "repo.findByMsgId", False),
        (line_of(JAVA, "done.put(msg.getQueueOffset()"), "getQueueOffset()", "dedupe", "done.put", False),
        (line_of(JAVA, "selectByMessageId"), "getCommitLogOffset()", "lookup", "repo.selectByMessageId", False),
        (line_of(JAVA, "r.setMsgId"), "getOffsetMsgId()", "store", "r.setMsgId", False),
        (line_of(JAVA, "repo.save(result.getOffsetMsgId())"), "getOffsetMsgId()", "store", "repo.save", True),
    ]
    # Quiet: logged; the message id; kept under its own name; a list (not a key); another class's getQueueOffset.


def test_java_offsets_keyed_outside_listener_code_are_not_reported():
    # The client's own process queue keys its tree by queue offset: code that is no listener's.
    table = JAVA.replace("public class Dedup {", "public class Dedup {\n    private final java.util.TreeMap<Long, "
                         "MessageExt> tree = new java.util.TreeMap<>();\n    void putAll(List<MessageExt> msgs) {\n"
                         "        for (MessageExt msg : msgs) {\n            tree.put(msg.getQueueOffset(), msg);\n"
                         "            seen.add(msg.getOffsetMsgId());\n        }\n    }\n")
    facts = parse_java("a/Dedup.java", table.encode())
    assert line_of(table, "tree.put") not in {u.location.line for u in facts.identity_uses}
    assert line_of(table, "seen.add(msg.getOffsetMsgId())") not in {u.location.line for u in facts.identity_uses}
    assert len(facts.identity_uses) == 6  # the listener's, as before


PYTHON = """\
import logging

import redis
from rocketmq.client import ConsumeStatus, Message, Producer, PushConsumer

log = logging.getLogger(__name__)
seen = set()
ordered = []
cache = redis.Redis()
producer = Producer("p")


def on_message(msg):
    if msg.commit_log_offset in seen:
        return ConsumeStatus.CONSUME_SUCCESS
    seen.add(msg.queue_offset)
    key = "dedup:" + str(msg.commit_log_offset)
    cache.set(key, 1, nx=True)
    cache.setnx(f"k:{msg.queue_offset}", 1)
    Order.objects.create(msg_id=msg.commit_log_offset, offset=msg.queue_offset)
    log.info("got %s at %s", msg.id, msg.queue_offset)
    seen.add(msg.id)
    ordered.append(msg.queue_offset)
    cache.set(key, 1)
    return ConsumeStatus.CONSUME_SUCCESS


def send():
    result = producer.send_sync(Message("T"))
    Sent.objects.get(message_id=result.offset)
    page = {"offset": 3}
    seen.add(page.offset)


consumer = PushConsumer("g")
consumer.subscribe("T", on_message)
"""


def test_python_identity_uses_and_near_misses():
    facts = parse_python("cb.py", PYTHON.encode())
    got = sorted((u.location.line, u.identity, u.use, u.call, u.sent) for u in facts.identity_uses)
    assert got == sorted([
        (line_of(PYTHON, "in seen:"), "msg.commit_log_offset", "dedupe", "in seen", False),
        (line_of(PYTHON, "seen.add(msg.queue_offset)"), "msg.queue_offset", "dedupe", "seen.add", False),
        (line_of(PYTHON, "key = "), "msg.commit_log_offset", "dedupe", "cache.set", False),
        (line_of(PYTHON, "cache.setnx"), "msg.queue_offset", "dedupe", "cache.setnx", False),
        (line_of(PYTHON, "Order.objects.create"), "msg.commit_log_offset", "store", "msg_id=", False),
        (line_of(PYTHON, "key = "), "msg.commit_log_offset", "key", "cache.set", False),
        (line_of(PYTHON, "message_id=result.offset"), "result.offset", "lookup", "message_id=", True),
    ])
    # Quiet: `offset=` (its own name), logging, msg.id, a list, a dict's `offset`. The commit log offset names only
    # one stored copy: kept by any call (a plain `cache.set(key, 1)`), it is a key.


CALLBACKS = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def falls_off(msg):
    if msg.body:
        return ConsumeStatus.CONSUME_SUCCESS


def logs_and_ends(msg):
    try:
        handle(msg)
        return ConsumeStatus.CONSUME_SUCCESS
    except Exception:
        print("failed")


def bare(msg):
    if not msg.body:
        return  # nothing to do
    return ConsumeStatus.CONSUME_SUCCESS


def none_or_text(msg):
    return None if msg.body else "done"


def fine(msg):
    try:
        handle(msg)
    except Exception:
        return ConsumeStatus.RECONSUME_LATER
    else:
        return ConsumeStatus.CONSUME_SUCCESS


def loops(msg):
    while True:
        if msg.body:
            return 1
        return False


def matched(msg):
    match msg.tags:
        case "a":
            return 0
        case _:
            raise ValueError(msg.tags)


def handle(msg):
    pass


c = PushConsumer("g")
c.subscribe("A", falls_off)
c.subscribe("B", logs_and_ends)
c.subscribe("C", bare)
c.subscribe("D", none_or_text)
c.subscribe("E", fine)
c.subscribe("F", loops)
c.subscribe("G", matched)
c.subscribe("H", lambda m: print(m))
c.subscribe("I", lambda m: True)
c.subscribe("J", lambda m: handle(m))
"""


def test_python2_callbacks_that_may_return_no_status():
    (client,) = parse_python("cb.py", CALLBACKS.encode()).clients
    got = {s.topic.text: ([r.line for r in l.non_status_returns], l.ends_without_return and l.ends_without_return.line)
           for s, l in zip(client.subscriptions, client.listeners)}
    assert got == {
        "A": ([], line_of(CALLBACKS, "    if msg.body:")),  # the `if` without an else
        "B": ([], line_of(CALLBACKS, "    try:")),  # the except clause only prints
        "C": ([line_of(CALLBACKS, "return  # nothing to do")], None),
        "D": ([line_of(CALLBACKS, 'return None if msg.body else "done"')], None),
        "E": ([], None), "F": ([], None), "G": ([], None),
        "H": ([line_of(CALLBACKS, "lambda m: print(m)")], None),
        "I": ([], None), "J": ([], None),  # True == RECONSUME_LATER; a call's value is not known
    }

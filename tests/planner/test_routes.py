"""Readable/writable queues from counts and permissions; the retry topic's queues."""

from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.model.fleet import Queue
from rmqplan.model.routes import (
    is_retry_topic,
    readable_queues,
    retry_queues,
    retry_topic,
    unreadable_written_queues,
    why_unreadable,
    writable_queues,
)

FLEET = parse_fleet_text("""
[[brokers]]
name = "broker-b"
[[brokers]]
name = "broker-a"
[[brokers]]
name = "broker-w"
perm = "w"
[[topics]]
name = "T"
read_queues = { "broker-b" = 2, "broker-a" = 1 }
write_queues = { "broker-b" = 4, "broker-a" = 1 }
[[topics]]
name = "W"
read_queues = 2
brokers = ["broker-a", "broker-w"]
[[topics]]
name = "Sealed"
read_queues = 1
brokers = ["broker-a"]
perm = "w"
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }, { topic = "W" }]
[[groups.instances]]
hosts = ["10.0.0.1"]
""", "fleet.toml")
T, W, SEALED = FLEET.topics


def test_readable_queues_are_ids_below_read_queues_in_rocketmq_order():
    assert readable_queues(FLEET, T) == [Queue("T", "broker-a", 0), Queue("T", "broker-b", 0),
                                         Queue("T", "broker-b", 1)]


def test_write_beyond_read_is_written_but_unreadable():
    assert writable_queues(FLEET, T)[-2:] == [Queue("T", "broker-b", 2), Queue("T", "broker-b", 3)]
    assert unreadable_written_queues(FLEET, T) == [Queue("T", "broker-b", 2), Queue("T", "broker-b", 3)]
    assert why_unreadable(FLEET, T, "broker-b") == "write_queues 4 > read_queues 2 on broker-b"


def test_effective_permission_is_topic_and_broker():
    assert readable_queues(FLEET, W) == [Queue("W", "broker-a", 0), Queue("W", "broker-a", 1)]  # broker-w is "w"
    assert unreadable_written_queues(FLEET, W) == [Queue("W", "broker-w", 0), Queue("W", "broker-w", 1)]
    assert why_unreadable(FLEET, W, "broker-w") == "broker broker-w is not readable (perm)"
    assert readable_queues(FLEET, SEALED) == []
    assert unreadable_written_queues(FLEET, SEALED) == [Queue("Sealed", "broker-a", 0)]
    assert why_unreadable(FLEET, SEALED, "broker-a") == "topic Sealed is not readable (perm)"


def test_retry_topic_has_one_queue_per_readable_broker_of_the_subscribed_topics():
    assert retry_topic("g") == "%RETRY%g" and is_retry_topic("%RETRY%g") and not is_retry_topic("T")
    assert retry_queues(FLEET, "g", ["T", "W"]) == [Queue("%RETRY%g", "broker-a", 0), Queue("%RETRY%g", "broker-b", 0)]
    assert retry_queues(FLEET, "g", ["Sealed"], per_broker=2) == [Queue("%RETRY%g", "broker-a", 0),
                                                                  Queue("%RETRY%g", "broker-a", 1)]

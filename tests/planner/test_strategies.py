"""Edge cases of the exact allocation strategies that the golden file may not cover."""

from __future__ import annotations

import hashlib
import random

import pytest

from rmqplan.model.javaorder import java_string_key, queue_key, sort_client_ids, sort_queues
from rmqplan.model.fleet import Queue, StrategySpec
from rmqplan.allocation.strategies import (
    StrategyError,
    allocate,
    allocate_all,
    for_release,
    md5_hash,
    mq_string,
    parse_strategy_name,
)
from rmqplan.allocation.strategies.consistent_hash import HashRing

AVG = StrategySpec("AVG")
CIRCLE = StrategySpec("AVG_BY_CIRCLE")


def qs(n: int, topic: str = "T", broker: str = "broker-a") -> list[Queue]:
    return [Queue(topic, broker, i) for i in range(n)]


# ------------------------------------------------------------------------------------------------ Java order


def test_utf16_order_differs_from_code_point_order():
    smiley, last_bmp = "\U0001F600", "\uffff"
    assert sorted([smiley, last_bmp]) == [last_bmp, smiley]  # Python: by code point
    assert java_string_key(smiley) < java_string_key(last_bmp)  # Java: 0xD83D < 0xFFFF
    assert sort_client_ids([last_bmp, smiley, last_bmp]) == [smiley, last_bmp, last_bmp]


def test_queue_order_is_topic_broker_then_numeric_queue_id():
    given = [Queue("b", "x", 0), Queue("a", "y", 1), Queue("a", "x", 10), Queue("a", "x", 9)]
    assert sort_queues(given) == [Queue("a", "x", 9), Queue("a", "x", 10), Queue("a", "y", 1), Queue("b", "x", 0)]
    assert sort_queues(given) == sorted(given, key=queue_key)


def test_queue_order_uses_utf16_for_broker_names():
    a, b = Queue("T", "\U0001F600", 0), Queue("T", "\uffff", 0)
    assert sort_queues([b, a]) == [a, b]


def test_non_ascii_client_ids_are_dealt_in_java_order():
    shares = allocate_all(AVG, qs(2), ["\uffff", "\U0001F600"])
    assert shares == {"\U0001F600": [Queue("T", "broker-a", 0)], "\uffff": [Queue("T", "broker-a", 1)]}
    assert list(shares) == ["\U0001F600", "\uffff"]


# ------------------------------------------------------------------------------------------- duplicate ids


def test_duplicate_client_ids_get_the_same_share_and_leave_queues_orphaned():
    # the duplicate client id incident: two processes report one client id; both take queues 0 and 1, queues 2 and 3 go to nobody
    cids = ["10.0.0.1@DEFAULT", "10.0.0.1@DEFAULT"]
    assert allocate(AVG, qs(4), cids, cids[0]) == qs(2)
    assert allocate_all(AVG, qs(4), cids) == {cids[0]: qs(2)}


def test_duplicate_first_index_wins_for_every_index_based_strategy():
    cids = ["a", "a", "b"]
    assert allocate_all(CIRCLE, qs(6), cids) == {"a": [qs(6)[0], qs(6)[3]], "b": [qs(6)[2], qs(6)[5]]}
    room = StrategySpec("MACHINE_ROOM", consumer_idcs=("hz",))
    mqs = qs(3, broker="hz@b")
    assert allocate_all(room, mqs, cids) == {"a": [mqs[0]], "b": [mqs[2]]}


def test_repeated_client_id_adds_ring_replicas_numbered_on():
    ring = HashRing(["x", "x"], 3)
    assert ring.points == sorted({md5_hash(f"x-{i}") for i in range(6)})
    assert set(ring.owners) == {"x"}
    ring = HashRing(["x", "y", "x"], 2)  # not the client's order, but the router counts the same way
    expected = {md5_hash(k): k[0] for k in ("x-0", "x-1", "y-0", "y-1", "x-2", "x-3")}
    assert dict(zip(ring.points, ring.owners)) == expected


# -------------------------------------------------------------------------------------------- consistent hash


def test_md5_hash_is_first_four_digest_bytes_unsigned():
    digest = hashlib.md5(b"MessageQueue [topic=T, brokerName=b, queueId=3]").digest()
    assert md5_hash(mq_string(Queue("T", "b", 3))) == int.from_bytes(digest[:4], "big")
    assert md5_hash("a") == 0x0CC175B9  # md5("a") = 0cc175b9..., above 2**31 would still be positive
    assert md5_hash("\ud800") == md5_hash("?")  # Java's UTF-8 encoder replaces a lone surrogate


def test_zero_virtual_nodes_routes_nothing():
    spec = parse_strategy_name("CONSISTENT_HASH", virtual_nodes=0)
    assert allocate_all(spec, qs(8), ["a", "b"]) == {"a": [], "b": []}
    assert allocate(spec, qs(8), ["a", "b"], "a") == []


def test_equal_hashes_the_later_put_wins_the_ring_point():
    # found by search: these two virtual node keys share their first four MD5 bytes
    first, later = "10.0.0.179@124929", "10.0.0.94@133844"  # Java order: '1' < '9'
    assert md5_hash(first + "-0") == md5_hash(later + "-0")
    assert sort_client_ids([later, first]) == [first, later]
    spec = parse_strategy_name("CONSISTENT_HASH", virtual_nodes=1)
    assert allocate_all(spec, qs(5), [later, first]) == {first: [], later: qs(5)}
    assert allocate(spec, qs(5), [first, later], first) == []
    # the point taken from `first` counts as a replica of `later`, so its repeat goes on with `later-1`
    ring = HashRing([first, later, later], 1)
    assert ring.points == sorted({md5_hash(later + "-0"), md5_hash(later + "-1")})
    assert ring.owners == [later, later]


def test_consistent_hash_partitions_queues():
    spec = parse_strategy_name("AllocateMessageQueueConsistentHash", virtual_nodes=10)
    shares = allocate_all(spec, qs(64), [f"10.0.0.{i}@1" for i in range(7)])
    assert sorted((q for s in shares.values() for q in s), key=queue_key) == qs(64)


# --------------------------------------------------------------------------------------------- check() rules


@pytest.mark.parametrize("name", ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY-AVG"])
def test_current_cid_missing_from_cid_all_gets_nothing(name):
    spec = parse_strategy_name(name, consumer_idcs=["hz"])
    # rooms are missing too: check() returns before the nearby strategy looks at rooms
    assert allocate(spec, qs(4, broker="hz@b"), ["a", "b"], "stale") == []


@pytest.mark.parametrize("name", ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY-AVG"])
def test_empty_inputs_throw_like_check(name):
    spec = parse_strategy_name(name)
    with pytest.raises(StrategyError, match="mqAll is null or mqAll empty") as e:
        allocate(spec, [], ["a"], "a")
    assert e.value.java_exception == "IllegalArgumentException"
    with pytest.raises(StrategyError, match="cidAll is null or cidAll empty"):
        allocate(spec, qs(2), [], "a")
    with pytest.raises(StrategyError, match="currentCID is empty"):
        allocate(spec, [], [""], "")
    shares = allocate_all(spec, [], ["a", ""])
    assert {cid: s.message for cid, s in shares.items()} == {
        "": "currentCID is empty", "a": "mqAll is null or mqAll empty"}
    assert allocate_all(spec, qs(2), []) == {}


def test_config_returns_its_list_without_any_check():
    fixed = [["T", "broker-b", 3], ["T", "broker-a", 1]]
    spec = parse_strategy_name("AllocateMessageQueueByConfig", config_queues=fixed)
    expected = [Queue("T", "broker-b", 3), Queue("T", "broker-a", 1)]  # the configured order, not sorted
    assert allocate(spec, qs(4), ["a", "b"], "a") == expected
    assert allocate(spec, [], [], "stale") == expected
    assert allocate_all(spec, qs(4), ["a", "b", "a"]) == {"a": expected, "b": expected}


# ------------------------------------------------------------------------------------------------ machine rooms


def test_machine_room_reads_room_from_broker_name_like_java_split():
    spec = parse_strategy_name("MACHINE_ROOM", consumer_idcs=["hz"])
    mqs = [Queue("T", b, 0) for b in ("hz@a", "hz@b@", "hz@c@d", "hz@", "sh@e", "hz")]
    # "hz@b@" splits to [hz, b] (trailing empty dropped); "hz@c@d" has 3 parts, "hz@" and "hz" one
    assert allocate_all(spec, mqs, ["x"]) == {"x": [Queue("T", "hz@a", 0), Queue("T", "hz@b@", 0)]}


def test_machine_room_deals_blocks_then_remainder():
    spec = parse_strategy_name("MACHINE_ROOM", consumer_idcs=["hz"])
    mqs = qs(5, broker="hz@a")
    assert allocate_all(spec, mqs, ["a", "b"]) == {"a": [mqs[0], mqs[1], mqs[4]], "b": [mqs[2], mqs[3]]}


def test_machine_room_before_4_8_0_takes_its_block_from_every_queue():
    # mqAll = hz@a:0, hz@a:1, sh@b:0, sh@b:1, sh@b:2 (RocketMQ order); picked (sh) = sh@b:0..2. Two processes:
    # mod 1, rem 1. Today: x takes picked[0] + picked[2], y picked[1]. Before 4.8.0 the block is mqAll[index]:
    # x takes hz@a:0 (another room's) + picked[2], y hz@a:1; sh@b:0 and sh@b:1 go to nobody.
    spec = parse_strategy_name("MACHINE_ROOM", consumer_idcs=["sh"])
    mqs = qs(2, broker="hz@a") + qs(3, broker="sh@b")
    today = {"x": [mqs[2], mqs[4]], "y": [mqs[3]]}
    assert allocate_all(spec, mqs, ["x", "y"]) == today
    assert for_release(spec, "4.9.3") == spec and for_release(spec, "5.3.3") == spec
    assert allocate_all(for_release(spec, "4.8.0"), mqs, ["x", "y"]) == today
    # before 4.9.3 the class checked nothing: an empty mqAll gives nothing instead of throwing
    assert allocate_all(for_release(spec, "4.8.0"), [], ["x"]) == {"x": []}
    assert isinstance(allocate_all(spec, [], ["x"])["x"], StrategyError)
    old = for_release(spec, "4.7.1")
    assert old.classes_before == (4, 8, 0) and for_release(spec, "4.5.1") == old
    assert allocate_all(old, mqs, ["x", "y"]) == {"x": [mqs[0], mqs[4]], "y": [mqs[1]]}
    # one process: mod = 3, the block is mqAll[0..2]: two of another room and one of its own
    assert allocate(old, mqs, ["x"], "x") == mqs[:3]
    nearby = for_release(parse_strategy_name("MACHINE_ROOM_NEARBY", nearby="MACHINE_ROOM", consumer_idcs=["sh"]),
                         "4.7.1")
    assert nearby.nearby == old and nearby.classes_before is None


NEARBY = parse_strategy_name("MACHINE_ROOM_NEARBY-AVG")
BROKER_ROOMS = {"a": "hz", "b": "sh", "c": "bj"}


def test_nearby_room_without_consumer_is_shared_by_all_after_own_room():
    mqs = qs(2, broker="a") + qs(2, broker="b") + qs(2, broker="c")
    shares = allocate_all(NEARBY, mqs, ["x", "y"], broker_rooms=BROKER_ROOMS,
                          client_rooms={"x": "hz", "y": "sh"})
    a, b, c = mqs[0:2], mqs[2:4], mqs[4:6]
    assert shares == {"x": a + [c[0]], "y": b + [c[1]]}


def test_nearby_result_keeps_java_list_order_not_queue_order():
    mqs = qs(1, broker="a") + qs(1, broker="z")
    shares = allocate_all(NEARBY, mqs, ["x"], broker_rooms={"a": "hz", "z": "sh"}, client_rooms={"x": "sh"})
    assert shares == {"x": [Queue("T", "z", 0), Queue("T", "a", 0)]}


def test_nearby_shared_rooms_come_in_java_string_order():
    mqs = [Queue("T", "p", 0), Queue("T", "q", 0), Queue("T", "r", 0)]
    rooms = {"p": "\uffff", "q": "\U0001F600", "r": "hz"}  # Java: hz < U+1F600 (0xD83D..) < U+FFFF
    shares = allocate_all(NEARBY, mqs, ["x"], broker_rooms=rooms, client_rooms={"x": "bj"})
    assert shares == {"x": [Queue("T", "r", 0), Queue("T", "q", 0), Queue("T", "p", 0)]}


@pytest.mark.parametrize("broker_rooms,client_rooms,what", [
    ({"a": "hz"}, {"x": "hz"}, "Machine room is null for mq MessageQueue [topic=T, brokerName=b, queueId=0]"),
    ({"a": "hz", "b": ""}, {"x": "hz", "y": "hz"}, "Machine room is null for mq"),
    ({"a": "hz", "b": "hz"}, {"x": "hz"}, "Machine room is null for consumer id y"),
])
def test_nearby_missing_room_throws_for_every_process(broker_rooms, client_rooms, what):
    mqs = qs(1, broker="a") + qs(1, broker="b")
    shares = allocate_all(NEARBY, mqs, ["x", "y"], broker_rooms=broker_rooms, client_rooms=client_rooms)
    assert set(shares) == {"x", "y"}
    for share in shares.values():
        assert isinstance(share, StrategyError) and share.java_exception == "IllegalArgumentException"
        assert what in share.message
    with pytest.raises(StrategyError, match="Machine room is null"):
        allocate(NEARBY, mqs, ["x", "y"], "x", broker_rooms=broker_rooms, client_rooms=client_rooms)


# ------------------------------------------------------------------------------------------------ names


def test_parse_strategy_names_and_aliases():
    assert parse_strategy_name("AllocateMessageQueueAveragely") == AVG
    nearby = "MACHINE_ROOM_NEARBY"
    assert parse_strategy_name("MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE") == StrategySpec(nearby, nearby=CIRCLE)
    assert parse_strategy_name("AllocateMachineRoomNearby", nearby="AVG") == StrategySpec(nearby, nearby=AVG)
    assert parse_strategy_name("MACHINE_ROOM_NEARBY") == StrategySpec(nearby, nearby=AVG)  # the default delegate
    inner = parse_strategy_name("MACHINE_ROOM_NEARBY-CONSISTENT_HASH", virtual_nodes=3).nearby
    assert inner == StrategySpec("CONSISTENT_HASH", virtual_nodes=3)
    assert parse_strategy_name("AVG", virtual_nodes=3) == AVG  # parameters only where they matter
    qualified = "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle"
    assert parse_strategy_name(qualified) == CIRCLE


@pytest.mark.parametrize("name,params,message", [
    ("AVERAGE", {}, 'unknown strategy "AVERAGE"'),
    ("avg", {}, 'unknown strategy "avg"'),
    ("AVG-AVG", {}, 'unknown strategy "AVG-AVG"'),
    ("MACHINE_ROOM_NEARBY-NOPE", {}, 'unknown strategy "MACHINE_ROOM_NEARBY-NOPE"'),
    ("MACHINE_ROOM_NEARBY", {"nearby": "MACHINE_ROOM_NEARBY"}, "nearby: expected a strategy other than"),
    ("MACHINE_ROOM_NEARBY-AVG", {"nearby": "AVG_BY_CIRCLE"}, "names the delegate"),
    ("CONSISTENT_HASH", {"virtual_nodes": -1}, "virtual_nodes: expected an integer >= 0, got -1"),
    ("AVG", {"virtual_nodes": "ten"}, "virtual_nodes: expected an integer >= 0"),
])
def test_parse_strategy_name_rejects_with_a_clear_message(name, params, message):
    with pytest.raises(ValueError, match=message):
        parse_strategy_name(name, **params)


# ------------------------------------------------------------------------------------- partition and properties


@pytest.mark.parametrize("n_queues,n_clients", [(1, 1), (3, 5), (8, 3), (16, 4), (17, 16), (40, 7)])
def test_avg_and_circle_partition_queues_among_distinct_ids(n_queues, n_clients):
    mqs = qs(n_queues)
    cids = [f"10.0.0.{i}@{i}" for i in range(n_clients)]
    for spec in (AVG, CIRCLE):
        owned = [q for cid in cids for q in allocate(spec, list(reversed(mqs)), cids, cid)]
        assert sorted(owned, key=queue_key) == mqs  # every queue exactly once
        sizes = [len(allocate(spec, mqs, cids, cid)) for cid in cids]
        assert max(sizes) - min(sizes) <= 1


def test_input_order_and_duplicate_queues_do_not_matter():
    rng = random.Random(3)
    mqs = qs(6, broker="b") + qs(5, broker="a")
    cids = ["c", "a", "b", "a"]
    expected = allocate_all(AVG, mqs, cids)
    for _ in range(5):
        shuffled, ids = mqs + mqs[:3], cids[:]
        rng.shuffle(shuffled)
        rng.shuffle(ids)
        assert allocate_all(AVG, shuffled, ids) == expected


ROOMS = ["hz", "sh", "bj", "\U0001F600", "\uffff"]


def _random_case(rng: random.Random):
    names = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM"]
    name = rng.choice(names + [f"MACHINE_ROOM_NEARBY-{n}" for n in names])
    brokers = [f"{rng.choice(ROOMS)}@b{i}" if rng.random() < 0.7 else f"b{i}" for i in range(rng.randint(1, 3))]
    mqs = [Queue(rng.choice(["T", "%RETRY%g"]), b, rng.randrange(12)) for b in brokers
           for _ in range(rng.randint(0, 6))]
    pool = [f"10.0.0.{rng.randrange(4)}@{rng.choice(['1', 'DEFAULT', str(rng.randrange(99))])}" for _ in range(6)]
    pool += ["\uffff@1", "\U0001F600@1", ""]
    cids = [rng.choice(pool) for _ in range(rng.randint(0, 9))]
    params = dict(virtual_nodes=rng.choice([0, 1, 3, 10]), consumer_idcs=rng.sample(ROOMS, rng.randint(0, 3)),
                  config_queues=rng.sample(mqs, min(len(mqs), 2)))
    room_of = lambda: rng.choice(ROOMS + [""]) if rng.random() < 0.95 else None  # noqa: E731
    broker_rooms = {b: r for b in brokers if (r := room_of()) is not None}
    client_rooms = {c: r for c in cids if (r := room_of()) is not None}
    spec = for_release(parse_strategy_name(name, **params), rng.choice(["4.5.1", "4.7.1", "4.8.0", "5.3.3"]))
    return spec, mqs, cids, broker_rooms, client_rooms


def _outcome(share):
    if isinstance(share, StrategyError):
        return ("error", share.java_exception, share.message)
    return share


def test_allocate_all_equals_allocate_per_client_id():
    rng = random.Random(20240607)
    errors = 0
    for _ in range(1500):
        spec, mqs, cids, broker_rooms, client_rooms = _random_case(rng)
        rooms = dict(broker_rooms=broker_rooms, client_rooms=client_rooms)
        fast = allocate_all(spec, mqs, cids, **rooms)
        assert list(fast) == sort_client_ids(set(cids))
        for cid in set(cids):
            try:
                one = allocate(spec, mqs, cids, cid, **rooms)
            except StrategyError as e:
                one, errors = e, errors + 1
            assert _outcome(fast[cid]) == _outcome(one), (spec, mqs, cids, cid, rooms)
    assert errors > 0  # the generator does reach the throwing paths

"""Each Spark transformation of `planner.spark_alloc` on a tiny DataFrame, against the reference strategies."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from pyspark.sql import functions as F

from planner import spark_alloc as A
from planner.model import Queue
from planner.strategies import md5_hash, mq_string
from planner.strategies.consistent_hash import HashRing
from planner.strategies.machine_room import java_split_at as _java_split_at

pytestmark = pytest.mark.usefixtures("spark")

KEYS = ["scenario", "group", "topic", "p_room", "p_scope"]


def _one_avg_share(index, n, m):
    """AllocateMessageQueueAveragely, transcribed from the Java: (start, count)."""
    mod = m % n
    average = 1 if m <= n else (m // n + 1 if (mod > 0 and index < mod) else m // n)
    start = index * average if (mod > 0 and index < mod) else index * average + mod
    return start, max(0, min(average, m - start))


def test_avg_and_circle_arithmetic_match_the_strategies(spark):
    grid = [(i, n, m) for n in range(1, 9) for i in range(n) for m in range(0, 20)]
    df = spark.createDataFrame(grid, "index long, n long, m long")
    start, count = A.avg_start_count(F.col("index"), F.col("n"), F.col("m"))
    rows = df.select("index", "n", "m", start.alias("start"), count.alias("count"),
                     A.circle_count(F.col("index"), F.col("n"), F.col("m")).alias("circle")).collect()
    for r in rows:
        expected_start, expected_count = _one_avg_share(r["index"], r.n, r.m)
        assert r["count"] == expected_count, r
        if expected_count:
            assert r.start == expected_start, r
        assert r.circle == len(range(r["index"], r.m, r.n)), r


def test_machine_room_ranks_deal_blocks_then_one_of_the_rest(spark):
    grid = [(i, n, p) for n in range(1, 6) for i in range(n) for p in range(0, 13)]
    df = spark.createDataFrame(grid, "index long, n long, p long")
    rows = df.select("index", "n", "p",
                     A.machine_room_ranks(F.col("index"), F.col("n"), F.col("p")).alias("ranks")).collect()
    for r in rows:
        mod, rem = divmod(r.p, r.n)
        expected = list(range(mod * r["index"], mod * r["index"] + mod)) + ([r["index"] + mod * r.n] if rem > r["index"] else [])
        assert r.ranks == expected, r


def test_java_split_room_matches_java_split(spark):
    names = ["hz@broker-a", "broker-a", "@b", "a@", "@", "a@b@", "a@@b", "a@b@c", "hz@@", ""]
    rows = spark.createDataFrame([(n,) for n in names], "broker string") \
        .select("broker", A.java_split_two_room(F.col("broker")).alias("room")).collect()
    for r in rows:
        parts = _java_split_at(r.broker)
        assert r.room == (parts[0] if len(parts) == 2 else None), r.broker


def test_md5_hash_and_queue_string_match_the_router(spark):
    keys = ["10.0.0.1@1-0", "a-9", "MessageQueue [topic=T, brokerName=b, queueId=3]", "é-1", "\U0001F600-2"]
    rows = spark.createDataFrame([(k,) for k in keys], "k string").select("k", A.md5_hash(F.col("k")).alias("h"))
    assert {r.k: r.h for r in rows.collect()} == {k: md5_hash(k) for k in keys}
    q = Queue("TopicTest", "broker-a", 7)
    row = spark.range(1).select(A.mq_string(F.lit(q.topic), F.lit(q.broker), F.lit(q.queue_id)).alias("s")).first()
    assert row.s == mq_string(q)


def test_rank_queues_uses_java_utf16_order(spark):
    # Java puts U+1F600 (surrogates D83D DE00) before U+FFFF; Python's code point order says the opposite.
    brokers = ["\uffff", "\U0001F600", "b"]
    rows = [("s", "g", "T", b, i) for b in brokers for i in (1, 0)]
    ranked = spark.createDataFrame(rows, "scenario string, group string, topic string, broker string, queue_id int") \
        .transform(A.rank_queues).orderBy("rank").collect()
    assert [(r.broker, r.queue_id) for r in ranked] == [
        ("b", 0), ("b", 1), ("\U0001F600", 0), ("\U0001F600", 1), ("\uffff", 0), ("\uffff", 1)]
    assert {r.m for r in ranked} == {6}


def test_index_clients_gives_first_index_and_occurrence_for_repeated_ids(spark):
    cids = ["10.0.0.2@1", "10.0.0.1@1", "10.0.0.2@1", "\uffff@x", "\U0001F600@x"]
    rows = [("s", "g", "T", "", "all", c, i) for i, c in enumerate(cids)]
    df = spark.createDataFrame(rows, "scenario string, group string, topic string, p_room string, p_scope string, "
                                     "client_id string, ord int")
    out = sorted(df.transform(A.index_clients).collect(), key=lambda r: r.ord)
    java_sorted = sorted(cids, key=lambda s: s.encode("utf-16-be", "surrogatepass"))
    assert [r["index"] for r in out] == [java_sorted.index(c) for c in cids]
    assert {r.n for r in out} == {5}
    assert sorted(r.occurrence for r in out if r.client_id == "10.0.0.2@1") == [0, 1]


def _ring_case(spark, cids, vnodes, queues):
    rows = [("s", "g", "T", "", "all", c, i, vnodes) for i, c in enumerate(cids)]
    clients = spark.createDataFrame(
        rows, "scenario string, group string, topic string, p_room string, p_scope string, client_id string, "
              "ord int, vnodes int").transform(A.index_clients)
    ring = A.hash_ring(clients)
    qrows = [("s", "g", "T", "", "all", q.broker, q.queue_id, vnodes, rank) for rank, q in enumerate(queues)]
    qdf = spark.createDataFrame(qrows, "scenario string, group string, topic string, p_room string, p_scope string, "
                                      "broker string, queue_id int, vnodes int, rank long")
    routed = {r.rank: r.owner for r in A.route_on_ring(qdf, ring).collect()}
    return ring, routed


def test_consistent_hash_ring_routes_like_the_router_with_repeated_ids(spark):
    cids = ["10.0.0.1@1", "10.0.0.2@1", "10.0.0.1@1", "10.0.0.3@n"]
    queues = [Queue("T", b, i) for b in ("broker-a", "broker-b") for i in range(8)]
    ring, routed = _ring_case(spark, cids, 3, queues)
    reference = HashRing(sorted(cids), 3)
    assert sorted((r.point, r.owner) for r in ring.collect()) == list(zip(reference.points, reference.owners))
    assert routed == {rank: reference.route(mq_string(q)) for rank, q in enumerate(queues)}


def test_zero_virtual_nodes_route_nothing(spark):
    ring, routed = _ring_case(spark, ["10.0.0.1@1"], 0, [Queue("T", "b", 0)])
    assert ring.count() == 0 and routed == {}


def _colliding_ids() -> tuple[str, str]:
    """Two client ids whose first virtual nodes ("<id>-0") have the same 32-bit MD5 prefix (birthday search)."""
    seen: dict[bytes, str] = {}
    for i in itertools.count():
        cid = f"c{i}"
        prefix = hashlib.md5(f"{cid}-0".encode()).digest()[:4]
        if prefix in seen:
            return seen[prefix], cid
        seen[prefix] = cid


def test_equal_hashes_the_later_put_wins(spark):
    a, b = _colliding_ids()
    later = max(a, b)  # cidAll is sorted, so the id sorting later is put later
    ring, _ = _ring_case(spark, [a, b], 1, [])
    points = ring.collect()
    assert len(points) == 1 and points[0].owner == later
    assert HashRing(sorted([a, b]), 1).owners == [later]

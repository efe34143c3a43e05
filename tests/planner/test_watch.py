"""`rmqplan watch` against fake clusters over the real protocol (`harness.fake_rocketmq`): the metrics a read gives, one
line per change, faults that keep the service serving stale data and that it recovers from, reads that never
overlap, memory that does not grow with the reads, and the service as a process: its three endpoints, Prometheus's
own parser on its metrics (promtool), where it binds, and SIGTERM."""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from rmqplan.model.fleet import Queue
from rmqplan.watch import WatchOptions, Watcher, make_app
from rmqplan.watch_metrics import WatchMetrics
from rmqplan.watch_state import GroupState, TopicState, WatchState, group_changes
from tests.planner.remoting_server import FakeCluster, FakeGroup, answer

BIN = Path(sys.executable).parent


@pytest.fixture
def cluster():
    """Group `orders` on topic Orders (2 queues on each of 2 brokers) and its retry topic, two processes with
    client ids of their own; 10 messages written to each Orders queue, none consumed."""
    c = FakeCluster(brokers=2, topic="Orders", queues=2, group="orders", clients=("10.0.0.1@1", "10.0.0.2@1"))
    c.topics["%RETRY%orders"] = 1
    c.groups["orders"].topics = ("Orders", "%RETRY%orders")
    c.written.update({Queue("Orders", b, i): 10 for b in c.brokers for i in range(2)})
    yield c
    c.close()


class Service:
    """A Watcher read by hand, with its state, metrics and the lines it wrote."""

    def __init__(self, cluster: FakeCluster, **options):
        self.state = WatchState("the fake", 1.0)
        self.metrics = WatchMetrics(self.state)
        self.out, self.err = io.StringIO(), io.StringIO()
        from rmqplan.sources.from_cluster import parse_strategy_option

        self.watcher = Watcher(WatchOptions(cluster.namesrv, **{"timeout": 1.0, **options}), self.state,
                               self.metrics, self.out, self.err,
                               told=parse_strategy_option(options.get("strategies", [])))

    def read(self) -> list[str]:
        """One read; the change lines it wrote."""
        before = len(self.out.getvalue())
        self.watcher.read()
        return self.out.getvalue()[before:].splitlines()

    def samples(self) -> dict:
        from prometheus_client import generate_latest

        text = generate_latest(self.metrics.registry).decode()
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for f in text_string_to_metric_families(text) for s in f.samples}


def value(samples: dict, name: str, **labels) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def test_a_read_gives_the_groups_series_and_the_first_read_says_only_the_problems(cluster):
    service = Service(cluster)
    assert service.read() == []  # two processes, each its own client id: nothing wrong, nothing said
    s = service.samples()
    assert value(s, "rmqplan_queues", group="orders", topic="Orders") == 4
    assert value(s, "rmqplan_orphaned_queues", group="orders", topic="Orders") == 0
    assert value(s, "rmqplan_group_connections", group="orders") == 2
    assert value(s, "rmqplan_group_shared_client_ids", group="orders") == 0
    assert value(s, "rmqplan_watch_last_read_success") == 1 and value(s, "rmqplan_brokers") == 2
    assert value(s, "rmqplan_watch_reads_total", outcome="ok") == 1
    cluster.groups["orders"].clients = ("10.0.0.1@1", "10.0.0.1@1")  # a deploy gives both processes one id
    lines = service.read()
    s = service.samples()
    assert value(s, "rmqplan_group_shared_client_ids", group="orders") == 1
    assert value(s, "rmqplan_orphaned_queues", group="orders", topic="Orders") == 2
    assert value(s, "rmqplan_duplicated_queues", group="orders", topic="Orders") == 2
    assert value(s, "rmqplan_orphaned_backlog_messages", group="orders", topic="Orders") == 20
    assert value(s, "rmqplan_duplicated_backlog_messages", group="orders", topic="Orders") == 20
    assert value(s, "rmqplan_group_findings", group="orders", code="PLAN001") == 2  # Orders and the retry topic
    assert value(s, "rmqplan_watch_changes_total") == len(lines)
    page = service.state.page()
    since, earlier = page.split("<h2>What changed <small>since the previous read</small></h2>")[1].split(
        "<h2>Earlier changes")
    assert "got a second owner" in since and "Nothing" not in since and "None since the service started" in earlier
    service.read()
    since, earlier = service.state.page().split("since the previous read</small></h2>")[1].split("<h2>Earlier")
    assert "Nothing." in since and "got a second owner" in earlier
    text = "\n".join(lines)
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    assert re.search(rf"^{stamp} orders: client joined \(2 connections now\) \[client ids: 10\.0\.0\.1@1\]$", text,
                     re.M), text
    assert re.search(rf"^{stamp} orders: client left \(2 connections now\) \[client ids: 10\.0\.0\.2@1\]$", text,
                     re.M), text
    assert "orders: one client id is reported by 2 connections" in text
    assert ("orders: PLAN001 queues broker-1: 0, 1 of Orders lost their owner (no process holds them; 20 messages "
            "behind on the orphaned queues) [client ids: 10.0.0.1@1]") in text
    assert ("orders: PLAN002 queues broker-0: 0, 1 of Orders got a second owner (20 messages behind on the doubly "
            "held queues) [client ids: 10.0.0.1@1]") in text
    assert service.read() == []  # nothing changed since
    fresh = Service(cluster)  # a service started now: the problems, not the clients that are there
    started = "\n".join(fresh.read())
    assert "lost their owner" in started and "joined" not in started


def test_the_queues_go_and_java_processes_place_apart_are_a_series(cluster):
    """A group of a Go and a Java process on CONSISTENT_HASH (each ring is its client's own): the queues their splits
    place apart, orphaned or doubled with unique client ids, are the group's disagreeing queues (PLAN009)."""
    group = cluster.groups["orders"]
    group.clients = ("10.0.0.1@1", "10.0.0.2@1#4000000")
    group.languages = {"10.0.0.1@1": "GO"}
    cluster.topics["Orders"] = 16
    service = Service(cluster, strategies=["orders=CONSISTENT_HASH"])
    service.read()
    s = service.samples()
    apart = value(s, "rmqplan_group_disagreeing_queues", group="orders")
    assert apart > 0 and value(s, "rmqplan_group_findings", group="orders", code="PLAN009") >= 1
    assert apart == sum(value(s, name, group="orders", topic=topic)
                        for name in ("rmqplan_orphaned_queues", "rmqplan_duplicated_queues")
                        for topic in ("Orders", "%RETRY%orders"))
    group.languages = {}  # both Java now: one ring, no disagreement
    service.read()
    assert value(service.samples(), "rmqplan_group_disagreeing_queues", group="orders") == 0


def test_a_group_whose_last_consumer_dies_is_orphaned_in_the_series_and_said(cluster):
    service = Service(cluster)
    service.read()
    cluster.groups["orders"].clients = ()
    cluster.groups["orders"].offsets = {Queue("Orders", b, i): 4 for b in cluster.brokers for i in range(2)}
    lines = "\n".join(service.read())
    s = service.samples()
    assert value(s, "rmqplan_orphaned_queues", group="orders", topic="Orders") == 4
    assert value(s, "rmqplan_orphaned_backlog_messages", group="orders", topic="Orders") == 24
    assert value(s, "rmqplan_group_connections", group="orders") == 0
    assert "orders: 2 clients left (no consumer connected now) [client ids: 10.0.0.1@1, 10.0.0.2@1]" in lines
    assert ("orders: PLAN001 queues broker-0: 0, 1; broker-1: 0, 1 of Orders lost their owner (no consumer of the "
            "group is connected; 24 messages behind on the orphaned queues) [client ids: 10.0.0.1@1, 10.0.0.2@1]"
            in lines)


def test_dead_letters_and_retries_are_counted_and_new_dead_letters_said(cluster):
    cluster.topics["%DLQ%orders"] = 1
    cluster.written[Queue("%DLQ%orders", "broker-0", 0)] = 3
    cluster.written[Queue("%RETRY%orders", "broker-1", 0)] = 2
    service = Service(cluster)
    service.read()
    s = service.samples()
    assert value(s, "rmqplan_group_dead_letter_messages", group="orders") == 3
    assert value(s, "rmqplan_group_retry_messages", group="orders") == 2
    cluster.written[Queue("%DLQ%orders", "broker-1", 0)] = 2
    assert any(line.endswith("orders: 2 new dead letters in %DLQ%orders (5 there)") for line in service.read())
    asked = [r.ext_fields.get("topic") for r in cluster.namesrv_server.requests if r.code == 105]
    assert "%DLQ%orders" in asked
    del cluster.topics["%DLQ%orders"]  # a group without dead letters: the name server's list says so, no route asked
    cluster.namesrv_server.requests.clear()
    service.read()
    assert "%DLQ%orders" not in [r.ext_fields.get("topic") for r in cluster.namesrv_server.requests]
    assert value(service.samples(), "rmqplan_group_dead_letter_messages", group="orders") == 0
    cluster.topics["%DLQ%orders"] = 1
    cluster.answers[206] = lambda request, name: answer(request, 1, remark="disabled")  # enableAllTopicList=false
    service.read()
    assert value(service.samples(), "rmqplan_group_dead_letter_messages", group="orders") == 5  # asked by route


def test_a_fault_is_one_line_keeps_the_last_read_stale_and_recovers(cluster):
    service = Service(cluster)
    service.read()
    refuse = {26: lambda request, name: answer(request, 16, remark="check signature failed.")}  # an ACL refusal
    cluster.answers.update(refuse)
    for _ in range(3):
        assert service.read() == []
    faults = service.err.getvalue().splitlines()
    assert len(faults) == 1 and faults[0].endswith(
        ": GET_BROKER_CONFIG: NO_PERMISSION: check signature failed. (serving the last good read, marked stale)")
    s = service.samples()
    assert value(s, "rmqplan_watch_last_read_success") == 0
    assert value(s, "rmqplan_queues", group="orders", topic="Orders") == 4  # the last good read's
    assert value(s, "rmqplan_watch_reads_total", outcome="failed") == 3
    assert "Stale: the last read failed" in service.state.page()
    cluster.answers.clear()
    service.read()
    assert service.err.getvalue().splitlines()[-1].endswith("rmqplan watch: reading again after 3 failed reads")
    assert value(service.samples(), "rmqplan_watch_last_read_success") == 1
    assert "Stale" not in service.state.page()


def test_a_name_server_down_then_a_broker_down_and_back(cluster):
    service = Service(cluster)
    service.read()
    cluster.stop_broker("broker-1")  # out of the name server's answers: its queues leave the route
    lines = "\n".join(service.read())
    assert value(service.samples(), "rmqplan_queues", group="orders", topic="Orders") == 2
    assert "queues broker-1: 0, 1 of Orders left the route" in lines
    cluster.start_broker("broker-1")
    lines = "\n".join(service.read())
    assert "queues broker-1: 0, 1 of Orders joined the route" in lines
    assert value(service.samples(), "rmqplan_queues", group="orders", topic="Orders") == 4
    assert service.err.getvalue() == ""  # the connection of before is opened anew, not a fault
    cluster.namesrv_server.close()
    service.read()
    assert "name server" in service.err.getvalue() and "connection refused" in service.err.getvalue()


def test_a_slow_read_never_overlaps_the_next(cluster):
    busy, most = [0], [0]
    lock = threading.Lock()

    def slow(request, name):
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        time.sleep(0.05)
        with lock:
            busy[0] -= 1
        return answer(request, body=b"brokerPermission=6\n")

    cluster.answers[26] = slow
    service = Service(cluster, interval=0.01)  # reads take longer than the interval
    stop = threading.Event()
    loop = threading.Thread(target=service.watcher.loop, args=(stop,))
    loop.start()
    time.sleep(0.6)
    stop.set()
    loop.join(5)
    assert most[0] == 1
    reads = value(service.samples(), "rmqplan_watch_reads_total", outcome="ok")
    assert 2 <= reads <= 6  # one after the other: each at least two slow answers long


def test_memory_does_not_grow_with_the_reads(cluster):
    for server in (cluster.namesrv_server, *cluster.brokers.values()):
        server.keep_requests = False  # the fake servers run in this process: what they keep is not the service's
    service = Service(cluster)
    flip = [("10.0.0.1@1", "10.0.0.2@1"), ("10.0.0.1@1", "10.0.0.1@1")]  # a change every read: lines, pages
    for i in range(40):
        cluster.groups["orders"].clients = flip[i % 2]
        service.read()
        service.state.page()
        service.samples()
    service.out.seek(0)
    service.out.truncate()  # what the test keeps of standard output is not the service's
    tracemalloc.start()
    try:
        for i in range(40, 150):
            cluster.groups["orders"].clients = flip[i % 2]
            service.read()
            service.state.page()
            service.samples()
            if i == 59:
                service.out.seek(0)
                service.out.truncate()
                early = tracemalloc.take_snapshot()
        service.out.seek(0)
        service.out.truncate()
        late = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(d.size_diff for d in late.compare_to(early, "filename"))
    assert grown < 100_000, [str(d) for d in late.compare_to(early, "lineno")[:8]]  # 90 reads later


def test_the_group_changes_are_decided_in_one_place():
    q = [Queue("T", "b", i) for i in range(4)]
    before = GroupState("g", ("a@1", "b@1"), {"T": TopicState(tuple(q))})
    after = GroupState("g", ("a@1",), {"T": TopicState(tuple(q[:3]), (q[2],), (), 7)},
                       {("PLAN005", "T"): "the strategy fails"}, dead_letters=0)
    said = [c.what for c in group_changes(before, after, 0.0)]
    assert said == ["client left (1 connection now)",
                    "queue b: 3 of T left the route (a broker down or made unreadable, or fewer read queues)",
                    "PLAN001 queue b: 2 of T lost its owner (no process holds it; 7 messages behind on the orphaned "
                    "queues)",
                    "PLAN005 appeared: the strategy fails"]
    assert [c.what for c in group_changes(after, before, 0.0)] == [
        "client joined (2 connections now)", "queue b: 3 of T joined the route", "queue b: 2 of T has an owner again",
        "PLAN005 cleared on T"]
    assert group_changes(after, after, 0.0) == []


# ---------------------------------------------------------------------------------------------- the process


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("promtool is missing (apt-get install prometheus): CI checks the metrics with it")
        pytest.skip("promtool is missing (apt-get install prometheus)")
    return found


def _start(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([str(BIN / "rmqplan"), "watch", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    first = proc.stderr.readline()
    match = re.search(r"serving (http://\S+?)/ ", first)
    if match is None:
        proc.kill()
        raise AssertionError(f"no serving line: {first!r} {proc.communicate()}")
    return proc, match.group(1)


def _get(url: str) -> tuple[int, dict, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, dict(r.headers), r.read().decode()


def test_the_service_serves_three_endpoints_binds_to_localhost_and_stops_at_sigterm(cluster, tmp_path):
    proc, url = _start("--namesrv", cluster.namesrv, "--listen", "127.0.0.1:0", "--interval", "0.2")
    try:
        assert url.startswith("http://127.0.0.1:")
        deadline = time.monotonic() + 20
        while "rmqplan_group_connections" not in _get(url + "/metrics")[2]:
            assert time.monotonic() < deadline, "no read in 20 s"
            time.sleep(0.1)
        cluster.groups["orders"].clients = ("10.0.0.1@1", "10.0.0.1@1")
        status, headers, metrics = _get(url + "/metrics")
        assert status == 200 and headers["Content-Type"].startswith("text/plain")
        (tmp_path / "metrics.txt").write_text(metrics)
        checked = subprocess.run([_promtool(), "check", "metrics"], input=metrics, capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        status, headers, page = _get(url + "/")
        assert status == 200 and headers["Refresh"] == "1" and "<h2>What changed <small>since the previous" in page
        assert _get(url + "/healthz")[:3:2] == (200, "ok\n")
        time.sleep(0.6)  # a read sees the shared client id
    finally:
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
        took = time.monotonic() - started
    assert proc.returncode == 0 and took < 1.0, (took, err)
    assert "Traceback" not in err and err.rstrip().endswith("rmqplan watch: stopped (SIGTERM)")
    assert "one client id is reported by 2 connections" in out


def test_where_it_binds_is_said_and_bad_options_are_one_line(cluster):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run([str(BIN / "rmqplan"), "watch", "--namesrv", cluster.namesrv, "--listen",
                               f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"rmqplan: --listen 127.0.0.1:{port}: cannot serve there: ")
    for args, said in ((["--listen", "nowhere"], "--listen 'nowhere': expected HOST:PORT"),
                       (["--interval", "0"], "--interval, --timeout and --deadline must be more than 0")):
        done = subprocess.run([str(BIN / "rmqplan"), "watch", "--namesrv", cluster.namesrv, *args],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and said in done.stderr, done.stderr
    proc = subprocess.Popen([str(BIN / "rmqplan"), "watch", "--namesrv", cluster.namesrv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # the default: this host only, and it says so
    first = proc.stderr.readline()
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=10)
    assert first.startswith("rmqplan watch: serving http://127.0.0.1:5558/ (the report page), /metrics and /healthz "
                            "on 127.0.0.1 only (--listen 0.0.0.0:5558 serves other hosts)") \
        or first.startswith("rmqplan: --listen 127.0.0.1:5558: cannot serve there"), first  # taken by another run
    app = make_app(WatchState("x", 1.0), WatchMetrics(WatchState("x", 1.0)), 1.0)
    statuses = []
    body = app({"PATH_INFO": "/nothing"}, lambda status, headers: statuses.append(status))
    assert statuses == ["404 Not Found"] and b"/metrics" in b"".join(body)

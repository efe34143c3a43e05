"""The live harness itself: consumers of every client release take queues of a real broker, the driver reports
what the client holds (mqadmin reads the same back from the client), pid-1 processes collide, and no process
outlives the test run, however it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cluster import rocketmq
from tests.cluster.rocketmq import Consumer, connection_ids, stable_all, status_queues

pytestmark = pytest.mark.cluster


def test_every_client_release_takes_its_queues_and_mqadmin_shows_the_same(cluster):
    cluster.update_topic("HarnessTopic", 4, broker="broker-a")
    cluster.update_topic("HarnessTopic", 2, broker="broker-b")
    consumers = [Consumer(cluster, group="harness", subscriptions={"HarnessTopic": "*"}, client=v, ip="127.0.0.1")
                 for v in rocketmq.CLIENTS]
    try:
        states = stable_all(consumers)
        held = [tuple(q) for s in states for q in s["queues"] if q[0] == "HarnessTopic"]
        assert sorted(held) == sorted([("HarnessTopic", "broker-a", i) for i in range(4)]
                                      + [("HarnessTopic", "broker-b", i) for i in range(2)])  # each once
        ids = [s["client_id"] for s in states]
        assert ids[0] == f"127.0.0.1@{ids[0].split('@')[1]}" and "#" not in ids[0]  # 4.5.1: the pid alone
        assert all("#" in i for i in ids[1:])  # 4.9.x and 5.x: pid#nanoTime
        assert sorted(connection_ids(cluster.admin("consumerConnection", "-n", cluster.namesrv,
                                                   "-g", "harness"))) == sorted(ids)
        for state in states:
            shown = cluster.admin("consumerStatus", "-n", cluster.namesrv, "-g", "harness", "-i", state["client_id"])
            assert status_queues(shown) == sorted(state["queues"]), shown
    finally:
        for c in consumers:
            c.stop()


def test_lite_pull_and_pull_consumers_name_themselves_with_stream_from_4_9_4(cluster):
    """A DefaultLitePullConsumer and a DefaultMQPullConsumer (registering the topic) on 4.9.3 and 4.9.8: the broker
    lists them as CONSUME_ACTIVELY, and from 4.9.4 on their ids end with @STREAM (the driver drives both kinds)."""
    cluster.update_topic("HarnessPullTopic", 4, broker="broker-a")
    consumers = {(kind, v): Consumer(cluster, group=f"harness_{kind}_{v.replace('.', '')}",
                                     subscriptions={"HarnessPullTopic": "*"}, client=v, ip="127.0.0.1", kind=kind)
                 for kind in ("lite_pull", "pull") for v in ("4.9.3", "4.9.8")}
    try:
        states = dict(zip(consumers, stable_all(list(consumers.values()))))
        for (kind, v), state in states.items():
            assert state["client_id"].endswith("@STREAM") == (v == "4.9.8"), (kind, v, state["client_id"])
            assert sorted(q[2] for q in state["queues"]) == [0, 1, 2, 3]  # alone in its group, no retry topic
            shown = cluster.admin("consumerConnection", "-n", cluster.namesrv, "-g", consumers[(kind, v)].group)
            assert connection_ids(shown) == [state["client_id"]] and "CONSUME_ACTIVELY" in shown, shown
    finally:
        for c in consumers.values():
            c.stop()


def test_pid_1_processes_on_4_5_1_share_a_client_id(cluster):
    cluster.update_topic("HarnessPidTopic", 4, broker="broker-a")
    consumers = [Consumer(cluster, group="harness_pid", subscriptions={"HarnessPidTopic": "*"}, client="4.5.1",
                          ip="127.0.0.1", pid_namespace=True) for _ in range(2)]
    try:
        states = stable_all(consumers)
        assert [s["client_id"] for s in states] == ["127.0.0.1@1", "127.0.0.1@1"]
        assert states[0]["queues"] == states[1]["queues"]  # the same share, twice
    finally:
        for c in consumers:
            c.stop()


CHILD = """
import os, sys, time
sys.path.insert(0, {repo!r})
from pathlib import Path
from tests.cluster import rocketmq
cluster = rocketmq.Cluster(Path({home!r}))
cluster.start_namesrv()
consumer = rocketmq.Consumer(cluster, group="orphan", subscriptions={{"T": "*"}}, start=False, pid_namespace=True)
consumer.send("queues", "queues")
print("up", flush=True)
how = sys.argv[1]
sys.stdin.readline()
if how == "exception":
    raise SystemExit("a failing test")
# Short sleeps, as a test run keeps running Python code: a signal caught just before one long sleep starts has its
# handler run only when that sleep ends (10 minutes later)
for _ in range(6000):
    time.sleep(0.1)
"""


def _java_under(home: Path) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(home).encode() in cmdline:
                pids.append(int(entry.name))
    return pids


def _process_state(pid: int) -> str:
    """What a stuck process is doing, for the failure message: its signal masks and each thread's state and wait."""
    proc = Path(f"/proc/{pid}")
    try:
        status = [line for line in (proc / "status").read_text().splitlines()
                  if line.startswith(("State", "SigBlk", "SigIgn", "SigCgt", "SigPnd", "ShdPnd"))]
        threads = [f"{t.name}: {(t / 'wchan').read_text()} {(t / 'stat').read_text().split()[2]}"
                   for t in (proc / "task").iterdir()]
    except OSError as e:
        return f"gone ({e})"
    return "; ".join(status + threads)


@pytest.mark.parametrize("how", ["exception", "SIGTERM", "SIGKILL"])
def test_no_process_outlives_the_test_run(rocketmq_home, tmp_path, how):
    home = tmp_path / "home"
    home.mkdir()
    errors = tmp_path / "child.err"  # a file, not a pipe nobody reads: a full pipe would stop its writers
    with errors.open("w") as err:
        child = subprocess.Popen([sys.executable, "-c", CHILD.format(repo=str(rocketmq.REPO), home=str(home)), how],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        assert child.stdout.readline() == "up\n", errors.read_text()
        assert len(_java_under(home)) >= 3  # the name server, unshare and the consumer's JVM
        child.stdin.write("go\n")
        child.stdin.flush()
        if how != "exception":
            child.send_signal(getattr(signal, how))
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the child outlived {how} by 60 s: {_process_state(child.pid)}; "
                                 f"its stderr: {errors.read_text()[-2000:]}") from None
        deadline = time.monotonic() + 20
        while _java_under(home) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _java_under(home) == []
    finally:
        if child.poll() is None:
            child.kill()
        for pid in _java_under(home):
            os.kill(pid, signal.SIGKILL)

"""Each rule's claim about RocketMQ, shown on the live cluster: rmqlint finds the mistake in a small program of
tests/cluster/programs/<rule>/ (user code, written as people write it), and the program, run against the cluster
on client 4.9.8, suffers what the rule's explanation says.

The programs take the name server from `-Drocketmq.namesrv.addr` (what the client reads when the code sets none),
except RMQ008's, whose comma-separated list is built from `LiveCluster.NAMESRV`, a constant the test writes next
to it. Control messages come from `mqadmin sendMessage`, which rmqlint does not see. The brokers send a retried
message back after 1 s (`messageDelayLevel`), so a retry that would come comes within seconds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.cluster.fleets import BIN
from tests.cluster.rocketmq import PROGRAMS, Program, stable_all

pytestmark = pytest.mark.cluster


def lint(directory: Path, code: str) -> list[dict]:
    """rmqlint's findings of `code` on the program directory, as the command prints them run from there."""
    done = subprocess.run([str(BIN / "rmqlint"), "--format", "json", "--no-cache", "--select", code, "."],
                          capture_output=True, text=True, timeout=300, cwd=directory)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)["findings"]


def program_dir(tmp_path: Path, rule: str, **constants: str) -> Path:
    """A copy of the rule's programs, with a LiveCluster class of `constants` beside them when given."""
    out = tmp_path / rule
    shutil.copytree(PROGRAMS / rule, out)
    if constants:
        fields = "".join(f'    public static final String {k} = "{v}";\n' for k, v in constants.items())
        (out / "LiveCluster.java").write_text(f"public final class LiveCluster {{\n{fields}}}\n")
    return out


def admin_send(cluster, topic: str, body: str, tag: str = "") -> None:
    """One message to queue 0 of broker-a, sent by the mqadmin shell's producer: the test's own, which rmqlint
    never reads."""
    out = cluster.admin("@send", cluster.namesrv, topic, tag, body, "broker-a", "0")
    assert out.startswith("SEND_OK"), out


def deliveries(program: Program) -> list[dict]:
    return program.send("received", "received")["deliveries"]


def wait_for(program: Program, done: Callable[[list[dict]], bool], timeout: float = 60) -> list[dict]:
    """The program's deliveries once `done` says so (polled)."""
    deadline = time.monotonic() + timeout
    while True:
        got = deliveries(program)
        if done(got):
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{program.group}: still waiting after {timeout:.0f} s; deliveries: {got}")
        time.sleep(0.2)


def bodies(got: list[dict], body: str) -> list[dict]:
    return [d for d in got if d["body"] == body]


# rule -> (its topics and their queues on broker-a, the programs it runs): every program starts at once (a JVM
# starts in seconds, mostly waiting for the broker), each test then works with its own
PLAN = {
    "rmq001": ({"LiveRmq001": 4}, ["FixedNameConsumer", "FixedNameConsumer"]),
    "rmq002": ({"LiveRmq002": 1}, ["TagCase"]),
    "rmq003": ({"LiveRmq003": 1}, ["BroadcastRetry"]),
    "rmq004": ({"LiveRmq004Orders": 4, "LiveRmq004Audit": 4}, ["OrdersConsumer", "AuditConsumer"]),
    "rmq005": ({"LiveRmq005": 2}, ["MinAboveMax", "MaxAboveMin"]),
    "rmq006": ({"LiveRmq006": 1}, ["OrderlyPoison"]),
    "rmq007": ({"LiveRmq007": 1}, ["BatchRetry"]),
    "rmq008": ({"LiveRmq008": 1}, ["CommaNamesrv"]),
    "rmq009": ({}, ["DottedNames"]),
    "rmq010": ({"LiveRmq010": 1}, ["PipeTag"]),
    "rmq013": ({"LiveRmq013": 1}, ["OffsetDedup"]),
}


@pytest.fixture(scope="module")
def launched(cluster, tmp_path_factory):
    """rule -> (its program directory, its running programs), all started together."""
    root = tmp_path_factory.mktemp("programs")
    out: dict[str, tuple[Path, list[Program]]] = {}
    try:
        for rule, (topics, _) in PLAN.items():
            for topic, queues in topics.items():
                cluster.update_topic(topic, queues, broker="broker-a")
        for rule, (_, mains) in PLAN.items():
            constants = {"NAMESRV": cluster.namesrv} if rule == "rmq008" else {}
            directory = program_dir(root, rule, **constants)
            out[rule] = (directory, [Program(cluster, directory, main) for main in mains])
        yield out
    finally:
        for _, programs in out.values():
            for p in programs:
                p.stop()


def test_rmq001_a_fixed_instance_name_holds_queues_twice_and_leaves_others_to_nobody(launched):
    directory, programs = launched["rmq001"]
    assert [f["path"] for f in lint(directory, "RMQ001")] == ["FixedNameConsumer.java"]
    first, second = stable_all(programs)
    assert first["client_id"] == second["client_id"] and first["client_id"].endswith("@live-node")
    mine = [sorted(q[2] for q in s["queues"] if q[0] == "LiveRmq001") for s in (first, second)]
    assert mine == [[0, 1], [0, 1]]  # the same share twice; queues 2 and 3 are consumed by nobody


def test_rmq002_a_tag_differing_in_case_is_never_delivered(cluster, launched):
    directory, programs = launched["rmq002"]
    assert len(lint(directory, "RMQ002")) == 1
    stable_all(programs)
    programs[0].send("send", "done")  # tag "aaaaa", before the control in the one queue
    admin_send(cluster, "LiveRmq002", "exact", tag="Aaaaa")
    got = wait_for(programs[0], lambda got: bodies(got, "exact"))
    assert bodies(got, "drifted") == []  # passed over: it came first in the queue


def test_rmq003_a_failed_broadcast_message_is_not_retried(cluster, launched):
    directory, programs = launched["rmq003"]
    assert len(lint(directory, "RMQ003")) == 1
    stable_all(programs)
    admin_send(cluster, "LiveRmq003", "fails")
    wait_for(programs[0], lambda got: bodies(got, "fails"))
    time.sleep(3)  # a clustering consumer's retry would be back after 1 s (test_rmq013 shows one)
    admin_send(cluster, "LiveRmq003", "later")
    got = wait_for(programs[0], lambda got: bodies(got, "later"))
    assert [d["outcome"] for d in bodies(got, "fails")] == ["RECONSUME_LATER"]  # once: dropped


def test_rmq004_one_group_on_two_topics_leaves_queues_unconsumed(launched):
    directory, programs = launched["rmq004"]
    assert len(lint(directory, "RMQ004")) == 1
    orders, audit = stable_all(programs)
    held = {q[2] for s in (orders, audit) for q in s["queues"] if q[0] == "LiveRmq004Orders"}
    # the group's two members split every topic's queues; the audit process takes its half of the orders queues
    # and never pulls them
    assert len(held) == 2 and not [q for q in audit["queues"] if q[0] == "LiveRmq004Orders"]
    assert len({q[2] for q in audit["queues"] if q[0] == "LiveRmq004Audit"}) == 2


def test_rmq005_min_above_max_does_not_start_and_max_above_min_is_never_used(launched):
    directory, (failed, slow) = launched["rmq005"]
    found = {(f["path"], f["severity"]) for f in lint(directory, "RMQ005")}
    assert found == {("MinAboveMax.java", "error"), ("MaxAboveMin.java", "warning")}
    error = failed.until("start_failed")["error"]
    assert "consumeThreadMin (32) is larger than consumeThreadMax (20)" in error
    stable_all([slow])
    assert slow.send("send", "done")["result"] == "120"  # 120 messages of 300 ms each, all at once
    deadline = time.monotonic() + 60
    while int(slow.send("peak", "done")["result"]) < 20 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1)  # the rest still queued behind the 20 running: the pool may grow now, if it ever does
    assert slow.send("peak", "done")["result"] == "20"  # consumeThreadMax 64 never used


def test_rmq006_an_always_failing_orderly_message_blocks_its_queue(cluster, launched):
    directory, programs = launched["rmq006"]
    assert len(lint(directory, "RMQ006")) == 1
    stable_all(programs)
    admin_send(cluster, "LiveRmq006", "poison")
    admin_send(cluster, "LiveRmq006", "next")
    got = wait_for(programs[0], lambda got: len(bodies(got, "poison")) > 40)
    assert bodies(got, "next") == []  # behind it, forever: past the 16 retries a clustering message gets
    assert max(d["reconsume_times"] for d in bodies(got, "poison")) > 16


def test_rmq007_a_failed_batch_without_ack_index_is_consumed_again_whole(launched):
    directory, programs = launched["rmq007"]
    assert len(lint(directory, "RMQ007")) == 1
    programs[0].started()
    oks = [f"ok-{i}" for i in range(1, 5)]
    got = wait_for(programs[0], lambda got: all(len(bodies(got, b)) >= 2 for b in oks))
    first = [d for d in got if d["reconsume_times"] == 0]
    assert [d["body"] for d in first] == [*oks, "bad"]
    assert {d["outcome"] for d in first} == {"RECONSUME_LATER in a batch of 5"}
    # the four handled messages came back from %RETRY%live_rmq007, each a retry of the same message
    for body in oks:
        again = bodies(got, body)[1]
        assert again["reconsume_times"] >= 1 and again["msg_id"] == bodies(got, body)[0]["msg_id"]


def test_rmq008_a_comma_separated_name_server_list_never_connects(cluster, launched):
    directory, programs = launched["rmq008"]
    found = lint(directory, "RMQ008")
    assert len(found) == 2 and all(f"{cluster.namesrv},{cluster.namesrv}" in f["message"] for f in found)
    programs[0].started()
    # the client connects to "127.0.0.1:P,127.0.0.1:P" as one address: the consumer does not start, the send fails
    refused = f"RemotingConnectException: connect to [{cluster.namesrv},{cluster.namesrv}] failed"
    seen = {e["event"]: e for e in programs[0].seen}
    assert refused in seen["consumer_failed"]["error"], seen
    answer = programs[0].send("send", "done", "failed", timeout=60)
    assert answer["event"] == "failed" and refused in answer["error"], answer
    admin_send(cluster, "LiveRmq008", "through the one name server")  # the topic and the name server are fine


def test_rmq009_the_client_refuses_the_names(launched):
    directory, programs = launched["rmq009"]
    found = [f["message"] for f in lint(directory, "RMQ009")]
    assert len(found) == 2 and any("live.rmq009.consumer" in m for m in found)
    assert any("live.rmq009.created" in m for m in found)
    programs[0].started()
    seen = {e["event"]: e for e in programs[0].seen}
    assert "the specified group[live.rmq009.consumer] contains illegal characters" in seen["consumer_failed"]["error"]
    assert "live.rmq009.created" in seen["send_failed"]["error"] and "illegal" in seen["send_failed"]["error"]


def test_rmq010_a_tag_holding_two_pipes_is_never_selected(cluster, launched):
    directory, programs = launched["rmq010"]
    assert len(lint(directory, "RMQ010")) == 1
    stable_all(programs)
    programs[0].send("send", "done")  # tagged "created||paid", first in the one queue
    admin_send(cluster, "LiveRmq010", "control", tag="paid")
    got = wait_for(programs[0], lambda got: bodies(got, "control"))
    assert bodies(got, "both") == []


def test_rmq013_a_retry_has_a_new_offset_message_id_and_the_same_message_id(cluster, launched):
    directory, programs = launched["rmq013"]
    assert len(lint(directory, "RMQ013")) == 1
    stable_all(programs)
    admin_send(cluster, "LiveRmq013", "pay-1")
    got = wait_for(programs[0], lambda got: len(bodies(got, "pay-1")) >= 2)
    first, retry = bodies(got, "pay-1")[:2]
    assert first["msg_id"] == retry["msg_id"] and first["offset_msg_id"] != retry["offset_msg_id"]
    assert (first["outcome"], retry["outcome"]) == ("handled, then failed", "handled")  # the dedup missed it

"""A hostile or broken cluster costs bounded memory and time: answers that claim more brokers or queues than a reader
holds, answers larger than their request's limit, bodies of millions of empty values, bodies whose lists are
numbers, servers that each answer just in time, and keys that cannot sign: each is one line and exit 2 (a key file
others may read is one warning, and the run goes on), against fake servers on 127.0.0.1."""

from __future__ import annotations

import io
import json
import os
import struct
import time
from pathlib import Path

import pytest

from rmqplan import cli
from rmqplan.sources.remoting import codes
from rmqplan.sources.remoting.limits import (
    MAX_ANSWER_BYTES,
    MAX_BROKERS,
    MAX_QUEUES_PER_BROKER,
    MAX_ROUTE_QUEUES,
    MAX_VALUES,
)
from tests.cluster.fleets import GroupCode, write_code
from tests.planner.remoting_server import FakeCluster, answer


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.run([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


def _code(tmp_path: Path) -> Path:
    """Code of the fake cluster's group: `g` consuming `T`."""
    code = tmp_path / "code"
    if not code.exists():
        write_code(code, [GroupCode("g", {"T": "*"})])
    return code


def _commands(cluster: FakeCluster, tmp_path: Path) -> list[list]:
    """status, fleet and check over `cluster`."""
    return [["status", "--namesrv", cluster.namesrv, "--interval", "0"],
            ["fleet", "--namesrv", cluster.namesrv, "-o", tmp_path / "fleet.toml"],
            ["check", _code(tmp_path), "--namesrv", cluster.namesrv, "--no-cache"]]


def _fails(cluster: FakeCluster, expected: str, tmp_path: Path, commands=("status", "fleet", "check")) -> str:
    """status, fleet and check over `cluster`: each exit 2 with one line on stderr holding `expected`, nothing
    on stdout, no fleet file written."""
    target = tmp_path / "fleet.toml"
    for command in _commands(cluster, tmp_path):
        if command[0] not in commands:
            continue
        code, out, err = run(*command)
        assert code == 2 and out == "" and err.count("\n") == 1 and expected in err, (command, err)
        assert not target.exists()
    return err


@pytest.fixture
def clusters():
    made = []

    def make(**kwargs) -> FakeCluster:
        made.append(FakeCluster(**kwargs))
        return made[-1]
    yield make
    for c in made:
        c.close()


def _route(brokers: int, queues: int):
    """A route of the topic T claiming `queues` queues on each of `brokers` brokers (a body of a few KB)."""
    body = json.dumps({"brokerDatas": [], "queueDatas": [
        {"brokerName": f"b{i}", "readQueueNums": queues, "writeQueueNums": queues, "perm": 6}
        for i in range(brokers)]}).encode()
    return lambda request, server: answer(request, body=body) if request.ext_fields["topic"] == "T" \
        else answer(request, codes.TOPIC_NOT_EXIST)


def test_a_real_cluster_at_the_fake_servers_is_read(clusters):
    """The fake cluster the tests below break: read as it is, it is a group on 8 queues."""
    cluster = clusters(brokers=2)
    code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0", "--format", "json")
    assert code == 0, err
    group = json.loads(out)["groups"][0]
    assert group["group"] == "g" and {t["topic"]: t["queues"] for t in group["topics"]}["T"] == 8


@pytest.mark.parametrize("brokers, queues, expected", [
    # today's answer of 2 KB claiming 200 brokers x 65,536 queues, smaller: a few brokers past the limit per broker
    (3, 65_536, f"route of topic T claims 65,536 queues on broker b0, more than the limit of "
                f"{MAX_QUEUES_PER_BROKER:,}: not read"),
    (40, MAX_QUEUES_PER_BROKER, f"route of topic T claims {40 * MAX_QUEUES_PER_BROKER:,} queues on 40 brokers, more "
                                f"than the limit of {MAX_ROUTE_QUEUES:,}: not read"),
    (MAX_BROKERS + 1, 1, f"route of topic T claims {MAX_BROKERS + 1:,} brokers, more than the limit of "
                         f"{MAX_BROKERS:,}: not read"),
])
def test_a_route_claiming_more_than_a_reader_holds_is_one_line(clusters, tmp_path, brokers, queues, expected):
    cluster = clusters(answers={codes.GET_ROUTEINFO_BY_TOPIC: _route(brokers, queues)})
    started = time.monotonic()
    err = _fails(cluster, f"rmqplan: name server {cluster.namesrv}: {expected}", tmp_path)
    assert time.monotonic() - started < 10, "refused before anything the size of the claim is made"
    assert "Traceback" not in err


def test_cluster_info_or_consume_stats_claiming_more_than_a_reader_holds_are_one_line(clusters, tmp_path):
    brokers = json.dumps({"brokerAddrTable": {f"b{i}": {"brokerAddrs": {"0": f"10.0.0.1:{i + 1}"}}
                                              for i in range(MAX_BROKERS + 1)}}).encode()
    cluster = clusters(answers={codes.GET_BROKER_CLUSTER_INFO: lambda request, server: answer(request, body=brokers)})
    _fails(cluster, f"rmqplan: name server {cluster.namesrv}: cluster info claims {MAX_BROKERS + 1:,} brokers, more "
                    f"than the limit of {MAX_BROKERS:,}: not read", tmp_path)
    entry = '{{"brokerName":"broker-0","queueId":{},"topic":"T"}}:{{"brokerOffset":0,"consumerOffset":0}}'
    stats = ('{"offsetTable":{' + ",".join(entry.format(i) for i in range(MAX_QUEUES_PER_BROKER + 1))
             + "}}").encode()
    cluster = clusters(answers={codes.GET_CONSUME_STATS: lambda request, server: answer(request, body=stats)})
    broker = cluster.brokers["broker-0"].address
    _fails(cluster, f"rmqplan: broker broker-0 ({broker}): consume stats of group g claim "
                    f"{MAX_QUEUES_PER_BROKER + 1:,} queues on one broker, more than the limit of "
                    f"{MAX_QUEUES_PER_BROKER:,}: not read", tmp_path)


def test_an_answer_larger_than_its_request_may_send_is_not_read(clusters, tmp_path):
    limit = MAX_ANSWER_BYTES[codes.GET_CONSUMER_CONNECTION_LIST]
    body = b'{"connectionSet":[' + b"0," * (limit // 2) + b"0]}"
    cluster = clusters(answers={codes.GET_CONSUMER_CONNECTION_LIST: lambda request, server: answer(request,
                                                                                                  body=body)})
    broker = cluster.brokers["broker-0"].address
    err = _fails(cluster, f"broker broker-0 ({broker}): GET_CONSUMER_CONNECTION_LIST of group g: an answer of ",
                 tmp_path)
    assert err.endswith(f" bytes, more than the limit of {limit:,}: not read\n")


@pytest.mark.parametrize("code, what, size", [
    # empty objects, three bytes a value: the shape that cost 1.9 GB for 16 MB
    (codes.GET_CONSUMER_CONNECTION_LIST, "connections of group g", MAX_VALUES[codes.GET_CONSUMER_CONNECTION_LIST]),
    (codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, "subscription groups",
     MAX_VALUES[codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG]),
])
def test_a_body_of_more_values_than_a_real_answer_holds_is_not_read(clusters, tmp_path, code, what, size):
    body = b'{"subscriptionGroupTable":{"g":{}},"connectionSet":[' + b"{}," * size + b"{}]}"
    cluster = clusters(answers={code: lambda request, server: answer(request, body=body)})
    broker = cluster.brokers["broker-0"].address
    err = _fails(cluster, f"broker broker-0 ({broker}): {what} holds more than {MAX_VALUES[code]:,} values, more "
                          "than a real cluster's answer: not read", tmp_path, ("status",))  # one parse: a second
    assert "malformed" not in err


@pytest.mark.parametrize("code, body, expected", [
    (codes.GET_ROUTEINFO_BY_TOPIC, b'{"queueDatas":5,"brokerDatas":[]}', "route of T: not a topicRoute output: "
                                                                          "`queueDatas` is not a list"),
    (codes.GET_ROUTEINFO_BY_TOPIC, b'{"queueDatas":[],"brokerDatas":7}', "route of T: not a topicRoute output: "
                                                                          "`brokerDatas` is not a list"),
    (codes.GET_CONSUMER_CONNECTION_LIST, b'{"connectionSet":5}', "connections of group g: `connectionSet` is not "
                                                                 "a list"),
    (codes.GET_BROKER_CLUSTER_INFO, b'{"brokerAddrTable":{},"clusterAddrTable":{"C":[[1],{}]}}', None),
])
def test_a_body_whose_lists_are_numbers_is_one_line(clusters, tmp_path, code, body, expected):
    cluster = clusters(answers={code: lambda request, server: answer(request, body=body)
                                if code != codes.GET_ROUTEINFO_BY_TOPIC or request.ext_fields["topic"] == "T"
                                else answer(request, codes.TOPIC_NOT_EXIST)})
    if expected is None:  # names that are not names: no broker, read as such
        code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0")
        assert code == 0 and "no consumer group is connected" in out, err
        return
    err = _fails(cluster, "malformed answer: " + expected, tmp_path)
    assert "TypeError" not in err


def test_a_header_nested_deeper_than_python_recurses_is_one_line(clusters, tmp_path):
    header = b"[" * 100_000
    cluster = clusters(answers={codes.GET_BROKER_CLUSTER_INFO: lambda request, server: struct.pack(
        ">iI", 4 + len(header), len(header)) + header})
    _fails(cluster, f"name server {cluster.namesrv}: malformed answer: JSON header nested too deep: not a header "
                    "(GET_BROKER_CLUSTER_INFO)", tmp_path)


def test_servers_answering_just_in_time_are_cut_by_the_deadline(clusters, tmp_path):
    """Five brokers that each answer within --timeout: 16 answers of a second, or a read that ends at
    --deadline with the request still unanswered named."""
    cluster = clusters(brokers=5, delay=1.0)
    for command in (["status", "--namesrv", cluster.namesrv, "--interval", "0"],
                    ["fleet", "--namesrv", cluster.namesrv, "-o", tmp_path / "fleet.toml"]):
        started = time.monotonic()
        code, out, err = run(*command, "--timeout", "3", "--deadline", "1")
        took = time.monotonic() - started
        assert code == 2 and out == "" and err.count("\n") == 1, err
        broker = cluster.brokers["broker-0"].address
        assert err == (f"rmqplan: broker broker-0 ({broker}): GET_BROKER_CONFIG: still unanswered when the read's "
                       "deadline of 1 s passed (1 answer read before it)\n")
        assert took < 5, f"{took:.1f} s: the read went on past its deadline"


def test_the_deadline_is_not_spent_on_the_next_name_server(clusters, tmp_path):
    """A name server that does not answer within the deadline: the read ends there, the others are not asked."""
    silent = clusters(answers={codes.GET_BROKER_CLUSTER_INFO: lambda request, server: time.sleep(1.5)})
    other = clusters()
    code, out, err = run("status", "--namesrv", f"{silent.namesrv};{other.namesrv}", "--interval", "0",
                         "--deadline", "0.5")
    assert code == 2 and err == (f"rmqplan: name server {silent.namesrv}: GET_BROKER_CLUSTER_INFO: still unanswered "
                                 "when the read's deadline of 0.5 s passed (0 answers read before it)\n")
    assert other.namesrv_server.requests == []


def test_the_deadline_is_an_option_of_every_command_reading_a_cluster(clusters, tmp_path):
    for command in _commands(clusters(), tmp_path):
        code, out, err = run(*command, "--deadline", "0")
        assert code == 2 and "--timeout and --deadline must be more than 0" in err, err
        code, out, _ = run(*command[:1], "--help")
        assert "--deadline SECONDS" in out and "(default 60)" in " ".join(out.split())


def test_keys_in_the_environment_that_are_not_utf8_are_one_line(clusters, tmp_path, monkeypatch):
    cluster = clusters()
    monkeypatch.setenv("RMQPLAN_ACCESS_KEY", "reader")
    monkeypatch.setenv("RMQPLAN_SECRET_KEY", os.fsdecode(b"s3cret-\xff"))  # as Python hands bytes over
    err = _fails(cluster, "RMQPLAN_SECRET_KEY is not UTF-8 text", tmp_path)
    assert "s3cret" not in err


def test_a_key_file_others_may_read_is_warned_of_and_used(clusters, tmp_path):
    cluster = clusters()
    keys = tmp_path / "keys"
    keys.write_text("AccessKey=reader\nSecretKey=s3cret\n")
    keys.chmod(0o644)
    warning = (f"rmqplan: {keys}: others than its owner have access to this key file (permissions 0644): its "
               f"secret key is not private; chmod 600 {keys}\n")
    for command in _commands(cluster, tmp_path):
        code, out, err = run(*command, "--acl-file", keys)
        assert code in (0, 1) and err.startswith(warning) and err.count(warning) == 1, (command, err)
    assert all(r.ext_fields.get("AccessKey") == "reader" for r in cluster.namesrv_server.requests)
    keys.chmod(0o600)
    code, out, err = run("status", "--namesrv", cluster.namesrv, "--interval", "0", "--acl-file", keys)
    assert code == 0 and err == ""

"""Names from fleet.toml and from a live cluster (groups, topics, brokers, client ids, instance and scenario names,
the brokers' error remarks) reach rmqplan's text reports and stderr lines escaped (`rmqlint.printable`): an escape
sequence cannot drive the terminal and a CR/LF cannot forge a line; JSON keeps the names as they are."""

from __future__ import annotations

import io
import json
import re

import pytest

from rmqplan.cli import run
from tests.planner.remoting_server import FakeServer, answer

# What no text line may hold raw: C0 controls (the report's own "\n" aside), DEL, C1, bidi overrides/isolates.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

GROUP = "grp\r\nFAKE LINE\u202e"
TOPIC = "Topic\x1b[2JT"
BROKER = "broker\x1b[31m-a"
INSTANCE = "NAME\x1b]0;title\x07"
SCENARIO = "scale\x1b[1m-out"

FLEET = r'''
[[brokers]]
name = "broker\u001b[31m-a"

[[topics]]
name = "Topic\u001b[2JT"
read_queues = 4

[[groups]]
name = "grp\r\nFAKE LINE\u202e"
strategy = "AVG"
subscriptions = [{ topic = "Topic\u001b[2JT", expression = "*" }]

[[groups.instances]]
hosts = ["192.168.1.10"]
count = 2
instance_name = "NAME\u001b]0;title\u0007"

[[scenarios]]
name = "scale\u001b[1m-out"
group = "grp\r\nFAKE LINE\u202e"
add_instances = [{ hosts = ["192.168.1.11"] }]
'''


def rmqplan(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_simulate_text_escapes_the_fleets_names_and_json_keeps_them(tmp_path):
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(FLEET, encoding="utf-8")
    code, out, err = rmqplan("simulate", "--fleet", fleet, "--engine", "local")  # the findings, wrapped
    assert code == 1 and err == "" and not RAW.search(out), out
    assert all(line.startswith(("rmqplan: ", "totals: ", "scenario ", "findings: ", "PLAN", "  ", "more: "))
               for line in out.splitlines() if line)
    code, out, err = rmqplan("simulate", "--fleet", fleet, "--engine", "local", "--compare-strategies", "--details")
    assert code == 1 and err == ""
    assert not RAW.search(out), out
    assert not any(line.startswith("FAKE LINE") for line in out.splitlines())
    assert "  group grp\\r\\nFAKE LINE\\u202e (clustering, AVG, 2 processes)" in out
    assert "    Topic\\x1b[2JT: 4 queues" in out and "broker\\x1b[31m-a: 2, 3" in out
    assert "192.168.1.10@NAME\\x1b]0;title\\x07" in out and "scenario scale\\x1b[1m-out" in out
    _code, out, _err = rmqplan("simulate", "--fleet", fleet, "--engine", "local", "--format", "json",
                               "--assignments")
    doc = json.loads(out)
    entry = doc["scenarios"][0]["groups"][0]
    assert (entry["group"], entry["topic"], entry["orphaned_queues"][0][1]) == (GROUP, TOPIC, BROKER)
    assert entry["instances"][0]["client_id"] == f"192.168.1.10@{INSTANCE}"
    assert doc["scenarios"][1]["name"] == SCENARIO


def test_a_bad_fleets_lines_escape_its_names(tmp_path):
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(FLEET.replace('topic = "Topic', 'topic = "Other'), encoding="utf-8")
    code, out, err = rmqplan("simulate", "--fleet", fleet)
    assert code == 2 and out == "" and not RAW.search(err), err
    assert 'unknown topic "Other\\x1b[2JT"' in err


CLIENT_ID = "10.0.0.1@\x1b]0;pwned\x07"


class HostileCluster:
    """A name server and one broker whose names are hostile: group GROUP, whose two connections report one client
    id CLIENT_ID, consumes TOPIC on broker BROKER. `remark`, when given, is the name server's error instead."""

    def __init__(self, remark: str | None = None):
        self.remark = remark
        self.broker = FakeServer(self._handle)
        self.namesrv_server = FakeServer(self._handle)

    @property
    def namesrv(self) -> str:
        return self.namesrv_server.address

    def _handle(self, request, conn):
        if self.remark is not None:
            return answer(request, 1, remark=self.remark)
        brokers = [{"brokerName": BROKER, "cluster": "C", "brokerAddrs": {"0": self.broker.address}}]
        bodies = {
            106: {"brokerAddrTable": {BROKER: brokers[0]}, "clusterAddrTable": {"C": [BROKER]}},
            201: {"subscriptionGroupTable": {GROUP: {"groupName": GROUP}}},
            203: {"connectionSet": [{"clientId": CLIENT_ID, "clientAddr": f"10.0.0.1:{port}", "language": "JAVA",
                                     "version": 479} for port in (1, 2)],
                  "consumeType": "CONSUME_PASSIVELY", "messageModel": "CLUSTERING",
                  "subscriptionTable": {TOPIC: {"topic": TOPIC, "subString": "*"}}},
            208: {"offsetTable": {}},
        }
        if request.code == 105:
            if request.ext_fields.get("topic") != TOPIC:
                return answer(request, 17)  # TOPIC_NOT_EXIST: the retry topic
            return answer(request, body=json.dumps({"brokerDatas": brokers, "queueDatas": [
                {"brokerName": BROKER, "readQueueNums": 4, "writeQueueNums": 4, "perm": 6,
                 "topicSysFlag": 0}]}).encode())
        if request.code == 26:
            return answer(request, body=b"brokerPermission=6\n")
        return answer(request, body=json.dumps(bodies.get(request.code, {})).encode())

    def close(self) -> None:
        self.broker.close()
        self.namesrv_server.close()


@pytest.fixture
def cluster():
    served = HostileCluster()
    yield served
    served.close()


def test_status_text_escapes_the_clusters_names_and_json_keeps_them(cluster):
    code, out, err = rmqplan("status", "--namesrv", cluster.namesrv, "--interval", "0")
    assert code == 1, err
    assert not RAW.search(out + err), out + err
    assert not any(line.startswith("FAKE LINE") for line in out.splitlines())
    assert "group grp\\r\\nFAKE LINE\\u202e: clustering, 2 connections on 1 client id" in out
    assert "  Topic\\x1b[2JT: 4 queues" in out and "10.0.0.1@\\x1b]0;pwned\\x07 (2 processes)" in out
    assert "broker\\x1b[31m-a: 0, 1" in out
    code, out, _err = rmqplan("status", "--namesrv", cluster.namesrv, "--interval", "0", "--format", "json")
    (group,) = json.loads(out)["groups"]
    assert (group["group"], group["client_ids"][0], group["topics"][0]["topic"]) == (GROUP, CLIENT_ID, TOPIC)
    assert group["topics"][0]["orphaned"][0][1] == BROKER


def test_fleet_of_the_cluster_writes_the_names_as_toml_strings(cluster, tmp_path):
    import tomllib

    code, out, err = rmqplan("fleet", "--namesrv", cluster.namesrv)
    assert code == 0, err
    fleet = tomllib.loads(out)
    assert fleet["groups"][0]["name"] == GROUP and fleet["topics"][0]["name"] == TOPIC


def test_a_brokers_error_remark_is_one_escaped_line():
    served = HostileCluster(remark="not\x1b[2J ready\r\nrmqplan: forged\u202e")
    try:
        for command in ("status", "fleet"):
            code, out, err = rmqplan(command, "--namesrv", served.namesrv, "--interval", "0")[:3] \
                if command == "status" else rmqplan(command, "--namesrv", served.namesrv)
            assert code == 2 and out == "" and err.count("\n") == 1, err
            assert not RAW.search(err) and "not\\x1b[2J ready rmqplan: forged\\u202e" in err, err
    finally:
        served.close()

"""rmqplan against the frames recorded from the live cluster (tests/cluster/test_live_status.py), without Java:
the captured frames decode into what the cluster said, `status`, `fleet` and `check` over `--namesrv` give the
live run's answers, and every way a cluster can fail is one line and exit 2, with nothing written."""

from __future__ import annotations

import base64
import io
import json
import socket
import time
from pathlib import Path

import pytest

from rmqplan import cli
from rmqplan.model.fleet import Queue
from rmqplan.sources.remoting import bodies, codes
from rmqplan.sources.remoting.acl import Credentials, signed
from rmqplan.sources.origin import Origin
from rmqplan.sources.remoting.frame import decode
from tests.planner.remoting_server import FakeServer, Replay, answer

RECORDING = Path(__file__).parent / "fixtures" / "remoting" / "status.json"
TOPIC, FIXED_ID = "StatusOrders", "127.0.0.1@orders-node"
READ_ONLY = set(codes.REQUEST_NAMES)


@pytest.fixture(scope="module")
def recording() -> dict:
    return json.loads(RECORDING.read_text())


@pytest.fixture
def replay():
    served = Replay(RECORDING)
    yield served
    served.close()


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.run([str(a) for a in args], out, err)
    return code, out.getvalue(), err.getvalue()


def _exchanges(recording: dict):
    for ex in recording["exchanges"]:
        yield ex["address"], decode(base64.b64decode(ex["request"])[4:]), decode(base64.b64decode(ex["response"]))


def test_the_captured_frames_are_read_only_questions_and_their_answers(recording):
    asked = set()
    for address, request, response in _exchanges(recording):
        assert not request.is_response and request.code in READ_ONLY
        assert response.is_response and response.opaque == request.opaque
        asked.add(request.code)
        if request.code == codes.GET_BROKER_CLUSTER_INFO:
            brokers = bodies.cluster_brokers(response.body, Origin("x"))
            assert [(b.name, b.broker_id) for b in brokers] == [("broker-a", 0), ("broker-b", 0)]
        if request.code == codes.GET_ROUTEINFO_BY_TOPIC and request.ext_fields["topic"] == TOPIC:
            route = bodies.topic_route(response.body, TOPIC, Origin("x"))
            assert sorted((q.broker, q.read_queues, q.perm) for q in route.queues) == [("broker-a", 4, 6),
                                                                                      ("broker-b", 2, 6)]
        if request.code == codes.GET_CONSUMER_CONNECTION_LIST and response.code == codes.SUCCESS \
                and request.ext_fields["consumerGroup"] == "status_fixed":
            conn = bodies.consumer_connection(response.body, "status_fixed", Origin("x"))
            assert conn.client_ids == [FIXED_ID, FIXED_ID]  # two connections, one id: both kept
            assert [c.version for c in conn.connections] == ["4.9.8", "4.9.8"]
            assert (conn.message_model, conn.consume_type) == ("CLUSTERING", "CONSUME_PASSIVELY")
        if request.code == codes.GET_CONSUME_STATS and request.ext_fields["consumerGroup"] == "status_fixed" \
                and request.ext_fields["topic"] == TOPIC:
            stats = bodies.consume_stats(response.body, "status_fixed", Origin("x"))
            for q, offsets in stats.items():
                key = f"{q.broker}:{q.queue_id}"
                behind = recording["expected"]["sent"][key] if key in recording["expected"]["nobody"] else 0
                assert offsets.backlog == behind
    assert asked == {codes.GET_BROKER_CLUSTER_INFO, codes.GET_BROKER_CONFIG, codes.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
                     codes.GET_CONSUMER_CONNECTION_LIST, codes.GET_ROUTEINFO_BY_TOPIC, codes.GET_CONSUME_STATS}


def test_status_replayed_names_the_incident_with_its_backlog(replay, recording, tmp_path):
    code, out, err = run("status", "--namesrv", replay.namesrv, "--format", "json", "--interval", "0.05",
                         "--html", tmp_path / "now.html")
    assert code == recording["expected"]["exit"] == 1, err
    assert replay.unanswered == [] and {r.code for r in replay.requests()} <= READ_ONLY
    doc = json.loads(out)
    problems = {(p["group"], p["code"], p["topic"]): p for p in doc["problems"]}
    orphaned = problems[("status_fixed", "PLAN001", TOPIC)]
    assert sorted(f"{b}:{q}" for _, b, q in orphaned["queues"]) == recording["expected"]["nobody"]
    assert orphaned["backlog"] == 30 and orphaned["verdicts"]["confirms"] == 3
    assert [p for p in doc["problems"] if p["group"] == "status_avg"] == []
    page = (tmp_path / "now.html").read_text()
    assert 'data-group="status_fixed"' in page and "the brokers confirm" in page
    assert page.count('data-backlog="10"') == 3  # the orphaned queues, in the grid of StatusOrders
    code, text, _ = run("status", "--namesrv", replay.namesrv, "--interval", "0")
    assert (f"queues 3 (broker-a), 0-1 (broker-b) of {TOPIC}: 30 messages behind, consumed by nobody: both "
            f"processes report {FIXED_ID}") in text


def test_a_strategy_told_is_the_one_simulated(replay):
    code, out, err = run("status", "--namesrv", replay.namesrv, "--format", "json", "--interval", "0",
                         "--strategy", "status_avg=AVG_BY_CIRCLE", "--group", "status_avg")
    doc = json.loads(out)
    assert code == 0 and [(g["group"], g["strategy"], g["strategy_told"]) for g in doc["groups"]] == [
        ("status_avg", "AVG_BY_CIRCLE", True)]
    code, _, err = run("status", "--namesrv", replay.namesrv, "--strategy", "status_avg=CONFIG")
    assert code == 2 and "CONFIG allocates from what the client is given at run time" in err


def test_fleet_of_the_replayed_cluster_has_every_connection_and_its_backlog(replay, tmp_path):
    out = tmp_path / "fleet.toml"
    code, _, err = run("fleet", "--namesrv", replay.namesrv, "-o", out)
    assert code == 0, err
    from rmqplan.sources.fleet_file import load_fleet

    fleet = load_fleet(out)
    fixed = next(g for g in fleet.groups if g.name == "status_fixed")
    assert [(i.hosts, i.count, i.instance_name) for i in fixed.instances] == [(("127.0.0.1",), 2, "orders-node")]
    behind = fixed.backlog_of()
    assert sum(behind.values()) == 30 and behind[Queue(TOPIC, "broker-b", 1)] == 10
    avg = next(g for g in fleet.groups if g.name == "status_avg")
    assert sum(i.count for i in avg.instances) == 3 and not any(avg.backlog_of().values())


def test_check_reads_the_live_cluster_for_the_code(replay, tmp_path):
    from tests.cluster.fleets import GroupCode, write_code

    write_code(tmp_path / "code", [GroupCode("status_fixed", {TOPIC: "*"}, instance_name="orders-node")])
    code, out, err = run("check", tmp_path / "code", "--namesrv", replay.namesrv, "--no-cache", "--format", "json")
    assert code == 1, err
    found = [f for f in json.loads(out)["findings"] if f["code"] == "PLAN001"]
    assert found and "the clients connected now" in found[0]["message"] and "of StatusOrders" in found[0]["message"]


# ------------------------------------------------------------------------------------------------ failures


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fails(args: list, expected: str, tmp_path: Path) -> str:
    """Exit 2, one line on stderr holding `expected`, nothing on stdout, and no fleet file left behind."""
    target = tmp_path / "fleet.toml"
    for command in (["status", *args, "--interval", "0"], ["fleet", *args, "-o", target]):
        code, out, err = run(*command)
        assert code == 2 and out == "" and err.count("\n") == 1 and expected in err, (command, err)
        assert not target.exists()
    return err


def test_a_name_server_that_is_down(tmp_path):
    port = _free_port()
    err = _fails(["--namesrv", f"127.0.0.1:{port}"], f"name server 127.0.0.1:{port}: connection refused", tmp_path)
    assert err.startswith("rmqplan: ")
    other = _free_port()
    _fails(["--namesrv", f"127.0.0.1:{port};127.0.0.1:{other}"],
           f"no name server answered GET_BROKER_CLUSTER_INFO: 127.0.0.1:{port} (connection refused), 127.0.0.1:{other} "
           "(connection refused)", tmp_path)


def test_the_second_name_server_answers_when_the_first_is_down(replay):
    code, out, err = run("status", "--namesrv", f"127.0.0.1:{_free_port()};{replay.namesrv}", "--interval", "0")
    assert code == 1 and "consumed by nobody" in out


def test_a_broker_that_is_down(replay, tmp_path):
    down = next(old for old in replay.servers if old != replay.doc["namesrv"])
    address = replay.servers[down].address
    replay.servers[down].close()
    _fails(["--namesrv", replay.namesrv], f"({address}): GET_BROKER_CONFIG: ", tmp_path)


def _server(handler) -> FakeServer:
    return FakeServer(handler)


@pytest.mark.parametrize("behaviour, expected", [
    ("silent", "no answer within 0.3 s"),
    ("close", "closed the connection"),
    ("half", "closed the connection mid-frame"),
    ("garbage", "malformed answer: unknown header serialize type"),
    ("huge", "malformed answer: a frame of 2,147,483,647 bytes"),
    ("error", "GET_BROKER_CLUSTER_INFO: SYSTEM_ERROR: name server not ready"),
    ("body", "malformed answer: cluster info: not JSON"),
])
def test_a_name_server_that_misbehaves(behaviour, expected, tmp_path):
    def handle(request, conn):
        if behaviour == "silent":
            time.sleep(1)
            return None
        if behaviour == "close":
            conn.shutdown(socket.SHUT_RDWR)
            return None
        if behaviour == "half":
            return answer(request, body=b"{}")[:10]
        if behaviour == "garbage":
            return b"\x00\x00\x00\x08\x07\x00\x00\x00abcd"
        if behaviour == "huge":
            return b"\x7f\xff\xff\xff"
        if behaviour == "error":
            return answer(request, 1, remark="name server not ready")
        return answer(request, body=b"{brokerAddrTable:")

    server = _server(handle)
    try:
        if behaviour == "half":  # the half frame, then the connection closes
            original = server.handler

            def half_then_close(request, conn):
                conn.sendall(original(request, conn))
                conn.shutdown(socket.SHUT_RDWR)
                return None
            server.handler = half_then_close
        _fails(["--namesrv", server.address, "--timeout", "0.3"], expected, tmp_path)
    finally:
        server.close()


def test_bad_addresses_and_keys_are_one_line(tmp_path, monkeypatch):
    _fails(["--namesrv", "127.0.0.1:9876,127.0.0.1:9877"], "separate name servers with ';'", tmp_path)
    _fails(["--namesrv", "localhost"], "'localhost' is not host:port", tmp_path)
    monkeypatch.setenv("RMQPLAN_ACCESS_KEY", "reader")
    err = _fails(["--namesrv", "127.0.0.1:1"], "RMQPLAN_SECRET_KEY is not set", tmp_path)
    assert "reader" not in err or "RMQPLAN_ACCESS_KEY" in err


def test_with_keys_every_request_is_signed_and_the_secret_never_shows(replay, monkeypatch):
    monkeypatch.setenv("RMQPLAN_ACCESS_KEY", "rmqplan-reader")
    monkeypatch.setenv("RMQPLAN_SECRET_KEY", "s3cret-value")
    code, out, err = run("status", "--namesrv", replay.namesrv, "--interval", "0", "--format", "json")
    assert code == 1 and "s3cret-value" not in out + err
    creds = Credentials("rmqplan-reader", "s3cret-value")
    for request in replay.requests():
        unsigned = {k: v for k, v in request.ext_fields.items() if k not in ("AccessKey", "Signature")}
        assert request.ext_fields == signed(unsigned, request.body, creds)


def test_the_cluster_options_say_what_goes_with_what(tmp_path):
    for args, why in ((["fleet"], "fleet needs --from-code PATH, or a cluster"),
                      (["fleet", "--cluster", tmp_path, "--namesrv", "127.0.0.1:1"], "give one"),
                      (["fleet", "--namesrv", "127.0.0.1:1", "--deploy", tmp_path], "they need --from-code"),
                      (["fleet", "--from-code", tmp_path, "--strategy", "g=AVG"], "the strategy is the code's"),
                      (["status", "--namesrv", "127.0.0.1:1", "--interval", "-1"], "--interval must be 0 or more")):
        code, out, err = run(*args)
        assert code == 2 and why in err and out == "", (args, err)

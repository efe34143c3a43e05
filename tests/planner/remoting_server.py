"""Remoting servers for the tests that run without Java: a `FakeServer` answers each request frame with what its
handler returns (or misbehaves on purpose), and `Replay` serves the frames recorded from the live cluster
(tests/cluster/test_live_status.py, RMQTOOLS_RECORD=1): one server per recorded address, each request answered
with the recorded answer to the same request (the same address, code and ext fields, signature aside), in order,
the last one again when asked more often. The brokers' addresses inside the answers are rewritten to the
servers'."""

from __future__ import annotations

import base64
import json
import re
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from rmqplan.sources.remoting.frame import RESPONSE_FLAG, Command, decode, encode

Handler = Callable[[Command, socket.socket], Optional[bytes]]  # the frame to send, or None to send nothing
_ADDRESS = re.compile(rb"127\.0\.0\.1:(\d+)")
UNSIGNED = ("AccessKey", "Signature", "SecurityToken")


def read_frame(sock: socket.socket) -> Optional[bytes]:
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    (total,) = struct.unpack(">i", head)
    body = b""
    while len(body) < total:
        chunk = sock.recv(total - len(body))
        if not chunk:
            return None
        body += chunk
    return body


def answer(request: Command, code: int = 0, body: bytes = b"", remark: Optional[str] = None,
           fields: Optional[dict] = None) -> bytes:
    return encode(Command(code, request.opaque, RESPONSE_FLAG, remark, fields or {}, body, version=479))


class FakeServer:
    def __init__(self, handler: Handler):
        self.handler = handler
        self.requests: list[Command] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._closed = False
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self._sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            while True:
                payload = read_frame(conn)
                if payload is None:
                    return
                request = decode(payload)
                self.requests.append(request)
                out = self.handler(request, conn)
                if out:
                    conn.sendall(out)
        except OSError:
            return
        finally:
            conn.close()

    def close(self) -> None:
        """Stop listening (the port then refuses connections) and drop the connections."""
        self._closed = True
        for sock in (self._sock, *self._conns):
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked on it; close alone would not
            except OSError:
                pass
            sock.close()


def _key(address: str, cmd: Command) -> tuple:
    return address, cmd.code, tuple(sorted((k, v) for k, v in cmd.ext_fields.items() if k not in UNSIGNED))


class Replay:
    """The recorded cluster, served: `namesrv` is the address to give rmqplan."""

    def __init__(self, recording: Path):
        doc = json.loads(recording.read_text())
        self.doc = doc
        self.answers: dict[tuple, list[bytes]] = {}
        addresses = []
        for ex in doc["exchanges"]:
            request = decode(base64.b64decode(ex["request"])[4:])
            self.answers.setdefault(_key(ex["address"], request), []).append(base64.b64decode(ex["response"]))
            addresses.append(ex["address"])
        self.servers = {old: FakeServer(self._handler(old)) for old in dict.fromkeys(addresses)}
        self.port_of = {old.split(":")[1].encode(): s.address.split(":")[1].encode() for old, s in self.servers.items()}
        self.served: dict[tuple, int] = {}
        self.unanswered: list[tuple] = []

    @property
    def namesrv(self) -> str:
        return self.servers[self.doc["namesrv"]].address

    def requests(self) -> list[Command]:
        return [r for s in self.servers.values() for r in s.requests]

    def _handler(self, old: str) -> Handler:
        def handle(request: Command, conn: socket.socket) -> Optional[bytes]:
            key = _key(old, request)
            recorded = self.answers.get(key)
            if not recorded:
                self.unanswered.append(key)
                return answer(request, 1, remark=f"not recorded: {key}")
            n = self.served.get(key, 0)
            self.served[key] = n + 1
            response = decode(recorded[min(n, len(recorded) - 1)])
            response.opaque = request.opaque
            response.body = _ADDRESS.sub(lambda m: b"127.0.0.1:" + self.port_of.get(m.group(1), m.group(1)),
                                         response.body)
            return encode(response)
        return handle

    def close(self) -> None:
        for s in self.servers.values():
            s.close()


class FakeCluster:
    """A name server and `brokers` brokers answering from a few facts: one group `group` whose `clients` consume
    `topic`, with `queues` queues on every broker. `answers[code]`, when given, answers that request instead
    (a function of the request and the server's name, "namesrv" or the broker's); `delay` seconds pass before a
    broker answers."""

    def __init__(self, brokers: int = 1, topic: str = "T", queues: int = 4, group: str = "g",
                 clients: tuple = ("10.0.0.1@1",), answers: Optional[dict] = None, delay: float = 0.0):
        self.topic, self.queues, self.group, self.clients = topic, queues, group, clients
        self.answers, self.delay = dict(answers or {}), delay
        self.namesrv_server = FakeServer(self._handler("namesrv"))
        self.brokers = {f"broker-{i}": FakeServer(self._handler(f"broker-{i}")) for i in range(brokers)}

    @property
    def namesrv(self) -> str:
        return self.namesrv_server.address

    def _broker_datas(self) -> list:
        return [{"brokerName": name, "cluster": "C", "brokerAddrs": {"0": s.address}}
                for name, s in self.brokers.items()]

    def body(self, code: int) -> bytes:
        """The answer's body to `code` from the facts (for the topic `self.topic`, the group `self.group`)."""
        if code == 106:  # GET_BROKER_CLUSTER_INFO
            return json.dumps({"brokerAddrTable": {d["brokerName"]: d for d in self._broker_datas()},
                               "clusterAddrTable": {"C": list(self.brokers)}}).encode()
        if code == 105:  # GET_ROUTEINFO_BY_TOPIC
            return json.dumps({"brokerDatas": self._broker_datas(), "queueDatas": [
                {"brokerName": name, "readQueueNums": self.queues, "writeQueueNums": self.queues, "perm": 6,
                 "topicSysFlag": 0} for name in self.brokers]}).encode()
        if code == 26:  # GET_BROKER_CONFIG
            return b"brokerPermission=6\n"
        if code == 201:  # GET_ALL_SUBSCRIPTIONGROUP_CONFIG
            return json.dumps({"subscriptionGroupTable": {self.group: {"groupName": self.group}}}).encode()
        if code == 203:  # GET_CONSUMER_CONNECTION_LIST
            return json.dumps({"connectionSet": [{"clientId": c, "clientAddr": "10.0.0.1:1", "language": "JAVA",
                                                  "version": 479} for c in self.clients],
                               "consumeType": "CONSUME_PASSIVELY", "messageModel": "CLUSTERING",
                               "subscriptionTable": {self.topic: {"topic": self.topic, "subString": "*"}}}).encode()
        if code == 208:  # GET_CONSUME_STATS
            return b'{"offsetTable":{}}'
        return b""

    def _handler(self, name: str) -> Handler:
        def handle(request: Command, conn: socket.socket) -> Optional[bytes]:
            if name != "namesrv" and self.delay:
                time.sleep(self.delay)
            if request.code in self.answers:
                return self.answers[request.code](request, name)
            if request.code == 105 and request.ext_fields.get("topic") != self.topic:
                return answer(request, 17)  # TOPIC_NOT_EXIST: the retry topic, say
            return answer(request, body=self.body(request.code))
        return handle

    def close(self) -> None:
        for s in (self.namesrv_server, *self.brokers.values()):
            s.close()

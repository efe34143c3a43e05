"""RocketMQ servers played by Python over the real remoting protocol, for the tests (tests/planner/) and the
benchmarks (benchmarks/): both import this package; neither imports the other.

- `FakeServer`: a TCP server answering each request frame with what its handler returns (or misbehaving on
  purpose: the handler may send nothing, or anything).
- `FakeCluster`: a name server and brokers answering from a few facts that a test may change between reads:
  groups (`FakeGroup`: the client ids of their connections, their topics, their committed offsets), topics and
  their queues on every broker, the messages written to each queue. What it answers is shaped as RocketMQ 5.3
  answers: a group with no connection is CONSUMER_NOT_ONLINE, its consume stats asked without a topic name the
  topics it has offsets on, a topic without a route is TOPIC_NOT_EXIST.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from rmqplan.model.fleet import Queue
from rmqplan.sources.remoting.frame import RESPONSE_FLAG, Command, decode, encode

Handler = Callable[[Command, socket.socket], Optional[bytes]]  # the frame to send, or None to send nothing

# The request and response codes the fake cluster answers (RequestCode, ResponseCode)
GET_BROKER_CONFIG, GET_ROUTEINFO_BY_TOPIC, GET_BROKER_CLUSTER_INFO = 26, 105, 106
GET_ALL_SUBSCRIPTIONGROUP_CONFIG, GET_CONSUMER_CONNECTION_LIST, GET_CONSUME_STATS = 201, 203, 208
GET_ALL_TOPIC_LIST_FROM_NAMESERVER = 206
TOPIC_NOT_EXIST, CONSUMER_NOT_ONLINE = 17, 206


def read_frame(sock: socket.socket) -> Optional[bytes]:
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    (total,) = struct.unpack(">i", head)
    body = bytearray()
    while len(body) < total:
        chunk = sock.recv(min(total - len(body), 1 << 20))
        if not chunk:
            return None
        body += chunk
    return bytes(body)


def answer(request: Command, code: int = 0, body: bytes = b"", remark: Optional[str] = None,
           fields: Optional[dict] = None) -> bytes:
    return encode(Command(code, request.opaque, RESPONSE_FLAG, remark, fields or {}, body, version=479))


class FakeServer:
    def __init__(self, handler: Handler, port: int = 0):
        self.handler = handler
        self.requests: list[Command] = []
        self.keep_requests = True  # a long-running server (a benchmark's) forgets them
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self.port = self._sock.getsockname()[1]
        self._sock.listen(16)
        self._closed = False
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self._conns = [c for c in self._conns if c.fileno() != -1] + [conn]
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            while True:
                payload = read_frame(conn)
                if payload is None:
                    return
                request = decode(payload)
                if self.keep_requests:
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


@dataclass
class FakeGroup:
    """A consumer group as the brokers know it."""

    clients: tuple = ()  # the client id of each connection (duplicates kept); () is a group with none connected
    topics: tuple = ()  # what its connections subscribe to
    model: str = "CLUSTERING"
    consume_type: str = "CONSUME_PASSIVELY"
    offsets: dict = field(default_factory=dict)  # Queue -> the offset it committed (outlives its connections)
    languages: dict = field(default_factory=dict)  # client id -> the language its connection reports (else JAVA)


class FakeCluster:
    """A name server and `brokers` brokers answering from facts. Built with one group `group` whose `clients`
    consume `topic`, with `queues` queues on every broker; `groups`, `topics` (topic -> queues on every broker)
    and `written` (Queue -> messages written to it) may be changed at any time. A topic not in `topics` has no
    route. Consume stats name only the queues with a number (written or committed), as a broker that was never
    asked about the others. `answers[code]`, when given, answers that request instead (a function of the request
    and the server's name, "namesrv" or the broker's); `delay` seconds pass before a broker answers."""

    def __init__(self, brokers: int = 1, topic: str = "T", queues: int = 4, group: str = "g",
                 clients: tuple = ("10.0.0.1@1",), answers: Optional[dict] = None, delay: float = 0.0):
        self.topic, self.queues, self.group, self.clients = topic, queues, group, clients
        self.answers, self.delay = dict(answers or {}), delay
        self.topics: dict[str, int] = {topic: queues}
        self.groups: dict[str, FakeGroup] = {group: FakeGroup(tuple(clients), (topic,))}
        self.written: dict[Queue, int] = {}
        self.namesrv_server = FakeServer(self._handler("namesrv"))
        self.brokers = {f"broker-{i}": FakeServer(self._handler(f"broker-{i}")) for i in range(brokers)}
        self.down: set[str] = set()  # brokers stopped (`stop_broker`): out of the cluster info, refusing

    @property
    def namesrv(self) -> str:
        return self.namesrv_server.address

    def _broker_datas(self) -> list:
        return [{"brokerName": name, "cluster": "C", "brokerAddrs": {"0": s.address}}
                for name, s in self.brokers.items() if name not in self.down]

    def route(self, topic: str) -> Optional[bytes]:
        if topic not in self.topics:
            return None
        queues = self.topics[topic]
        return json.dumps({"brokerDatas": self._broker_datas(), "queueDatas": [
            {"brokerName": d["brokerName"], "readQueueNums": queues, "writeQueueNums": queues, "perm": 6,
             "topicSysFlag": 0} for d in self._broker_datas()]}).encode()

    def connections(self, group: str) -> Optional[bytes]:
        g = self.groups.get(group)
        if g is None or not g.clients:
            return None
        return json.dumps({"connectionSet": [{"clientId": c, "clientAddr": "10.0.0.1:1",
                                              "language": g.languages.get(c, "JAVA"), "version": 479}
                                             for c in g.clients],
                           "consumeType": g.consume_type, "messageModel": g.model,
                           "subscriptionTable": {t: {"topic": t, "subString": "*"} for t in g.topics}}).encode()

    def consume_stats(self, group: str, topic: Optional[str], broker: str) -> bytes:
        g = self.groups.get(group)
        committed = g.offsets if g is not None else {}
        if topic is None:  # the topics the group has offsets on, here
            queues = [q for q in committed if q.broker == broker]
            queues += [Queue(q.topic, broker, i) for q in queues for i in range(self.topics.get(q.topic, 0))]
        else:
            queues = [Queue(topic, broker, i) for i in range(self.topics.get(topic, 0))]
            queues = [q for q in queues if q in self.written or q in committed]
        entries = {q: (self.written.get(q, 0), committed.get(q, 0)) for q in queues}
        table = ",".join(f'{{"brokerName":{json.dumps(q.broker)},"queueId":{q.queue_id},"topic":{json.dumps(q.topic)}}}'
                         f':{{"brokerOffset":{w},"consumerOffset":{c},"lastTimestamp":0}}'
                         for q, (w, c) in sorted(entries.items()))
        return ('{"consumeTps":0.0,"offsetTable":{' + table + "}}").encode()

    def body(self, code: int) -> bytes:
        """The answer's body to `code` from the facts (for the topic `self.topic`, the group `self.group`)."""
        if code == GET_BROKER_CLUSTER_INFO:
            return json.dumps({"brokerAddrTable": {d["brokerName"]: d for d in self._broker_datas()},
                               "clusterAddrTable": {"C": [d["brokerName"] for d in self._broker_datas()]}}).encode()
        if code == GET_ROUTEINFO_BY_TOPIC:
            return self.route(self.topic) or b""
        if code == GET_BROKER_CONFIG:
            return b"brokerPermission=6\n"
        if code == GET_ALL_SUBSCRIPTIONGROUP_CONFIG:
            return json.dumps({"subscriptionGroupTable": {g: {"groupName": g} for g in self.groups}}).encode()
        if code == GET_CONSUMER_CONNECTION_LIST:
            return self.connections(self.group) or b""
        if code == GET_CONSUME_STATS:
            return b'{"offsetTable":{}}'
        if code == GET_ALL_TOPIC_LIST_FROM_NAMESERVER:
            return json.dumps({"topicList": sorted(self.topics)}).encode()
        return b""

    def _answer(self, request: Command, name: str) -> bytes:
        fields = request.ext_fields
        if request.code == GET_ROUTEINFO_BY_TOPIC:
            route = self.route(fields.get("topic", ""))
            return answer(request, body=route) if route is not None else answer(request, TOPIC_NOT_EXIST)
        if request.code == GET_CONSUMER_CONNECTION_LIST:
            body = self.connections(fields.get("consumerGroup", ""))
            return answer(request, body=body) if body is not None else \
                answer(request, CONSUMER_NOT_ONLINE, remark="the consumer group not online")
        if request.code == GET_CONSUME_STATS:
            return answer(request, body=self.consume_stats(fields.get("consumerGroup", ""), fields.get("topic"), name))
        return answer(request, body=self.body(request.code))

    def _handler(self, name: str) -> Handler:
        def handle(request: Command, conn: socket.socket) -> Optional[bytes]:
            if name != "namesrv" and self.delay:
                time.sleep(self.delay)
            if request.code in self.answers:
                return self.answers[request.code](request, name)
            return self._answer(request, name)
        return handle

    def stop_broker(self, name: str) -> None:
        """The broker goes away: out of the name server's answers, its port refusing connections."""
        self.down.add(name)
        self.brokers[name].close()

    def start_broker(self, name: str) -> None:
        """The broker comes back on the same port."""
        self.brokers[name] = FakeServer(self._handler(name), self.brokers[name].port)
        self.down.discard(name)

    def close(self) -> None:
        for s in (self.namesrv_server, *self.brokers.values()):
            s.close()

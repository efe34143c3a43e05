"""Remoting servers for the tests that run without Java: `FakeServer` and `FakeCluster` (`harness.fake_rocketmq`, which
the benchmarks use too), and `Replay`, which serves the frames recorded from the live cluster
(tests/cluster/test_live_status.py, RMQTOOLS_RECORD=1): one server per recorded address, each request answered
with the recorded answer to the same request (the same address, code and ext fields, signature aside), in order,
the last one again when asked more often. The brokers' addresses inside the answers are rewritten to the
servers'."""

from __future__ import annotations

import base64
import json
import re
import socket
from pathlib import Path
from typing import Optional

from harness.fake_rocketmq import FakeCluster, FakeGroup, FakeServer, Handler, answer, read_frame  # noqa: F401 (for tests)
from rmqplan.sources.remoting.frame import Command, decode, encode

_ADDRESS = re.compile(rb"127\.0\.0\.1:(\d+)")
UNSIGNED = ("AccessKey", "Signature", "SecurityToken")


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

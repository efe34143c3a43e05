"""A blocking client of RocketMQ's remoting protocol: one TCP connection per address, one request at a time.
Each answer is waited for at most `timeout` seconds, and a read (`start_read`: the questions of one look at the
cluster) at most `deadline` seconds in all: every wait is the shorter of the two, so slow answers that each come in
time cannot keep a run going. Whatever goes wrong (refused, no answer in time, a closed connection, a malformed
frame, an answer larger than its request's limit) is a `RemotingError` whose text is one line naming the address
(`DeadlineError` when the read's deadline passed); the connection is then dropped. A connection kept from an
earlier request that turns out closed before any answer (the server restarted since: `rmqplan watch` reads every
few seconds) is opened anew and the request sent once more: every request here only reads.

A response is matched to its request by `opaque` (frames the server sends on its own are skipped). The client
only sends what it is asked to: the readers above it ask read-only questions.
"""

from __future__ import annotations

import itertools
import socket
import struct
import time
from typing import Callable, Mapping, Optional

from rmqplan.model.words import count
from rmqplan.sources.remoting.acl import Credentials, signed
from rmqplan.sources.remoting.codes import CURRENT_VERSION, request_name
from rmqplan.sources.remoting.frame import MAX_FRAME, Command, FrameError, decode, encode

DEFAULT_TIMEOUT = 3.0  # seconds, as the Java admin tools wait
# Seconds one read of a cluster may take in all: twenty answers at the timeout, and thousands of answers on a
# network where one takes a millisecond or two (a cluster of hundreds of groups). Longer is no view of an incident
# happening now; a larger cluster is read with --deadline, or a part of it with --group.
DEFAULT_DEADLINE = 60.0
LANGUAGE = "PYTHON"
MAX_SKIPPED = 64  # frames that are not our answer, read before giving up

# (address, request frame, response payload): what a recording test keeps (tests/planner/fixtures/remoting)
Recorder = Callable[[str, bytes, bytes], None]


class RemotingError(Exception):
    """A request that got no usable answer: `address`, the request, and what happened."""

    def __init__(self, address: str, what: str, request: str = ""):
        self.address, self.what, self.request = address, what, request
        super().__init__(f"{address}: {request + ': ' if request else ''}{what}")


class DeadlineError(RemotingError):
    """The read's deadline passed before this request was answered: no other server is asked."""


class ClosedError(RemotingError):
    """The server closed the connection (or reset it) before a byte of the answer came."""


def split_address(address: str) -> tuple[str, int]:
    """`host:port` (RocketMQ writes IPv6 hosts without brackets: the port is after the last colon)."""
    host, sep, port = address.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{address!r} is not host:port")
    return host, int(port)


def _seconds(t: float) -> str:
    return f"{t:g} s"


class RemotingClient:
    def __init__(self, timeout: float = DEFAULT_TIMEOUT, credentials: Optional[Credentials] = None,
                 recorder: Optional[Recorder] = None, deadline: Optional[float] = None):
        self.timeout = timeout
        self.deadline = deadline  # seconds a read may take in all; None: only each answer's timeout
        self.credentials = credentials
        self.recorder = recorder
        self.answered = 0  # requests answered since the read started
        self._read_ends: Optional[float] = None
        self._sockets: dict[str, socket.socket] = {}
        self._opaque = itertools.count(1)

    def start_read(self) -> None:
        """A read starts: its deadline counts from now."""
        self._read_ends = None if self.deadline is None else time.monotonic() + self.deadline
        self.answered = 0

    def __enter__(self) -> "RemotingClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for sock in self._sockets.values():
            try:
                sock.close()
            except OSError:
                pass
        self._sockets.clear()

    def _drop(self, address: str) -> None:
        sock = self._sockets.pop(address, None)
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def _late(self, address: str, name: str) -> DeadlineError:
        return DeadlineError(address, f"still unanswered when the read's deadline of {_seconds(self.deadline or 0)} "
                                      f"passed ({count(self.answered, 'answer', separators=True)} read before it)",
                             name)

    def _connect(self, address: str, ends: float, by_deadline: bool, name: str) -> socket.socket:
        sock = self._sockets.get(address)
        if sock is not None:
            return sock
        try:
            host, port = split_address(address)
        except ValueError as e:
            raise RemotingError(address, str(e), name) from None
        try:
            sock = socket.create_connection((host, port), timeout=max(ends - time.monotonic(), 0.001))
        except ConnectionRefusedError:
            raise RemotingError(address, "connection refused", name) from None
        except (socket.timeout, TimeoutError):
            if by_deadline:
                raise self._late(address, name) from None
            raise RemotingError(address, f"no connection within {_seconds(self.timeout)}", name) from None
        except socket.gaierror as e:
            raise RemotingError(address, f"cannot resolve {host}: {e.strerror or e}", name) from None
        except OSError as e:
            raise RemotingError(address, f"cannot connect: {e.strerror or e}", name) from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sockets[address] = sock
        return sock

    def request(self, address: str, code: int, fields: Optional[Mapping[str, str]] = None,
                body: bytes = b"", limit: int = MAX_FRAME) -> Command:
        """The response to one request (whatever its code: the caller decides what an error code means). A
        frame longer than `limit` bytes is not read."""
        name = request_name(code)
        now = time.monotonic()
        ends = now + self.timeout
        by_deadline = self._read_ends is not None and self._read_ends <= ends  # the read ends first
        if by_deadline:
            ends = self._read_ends
            if ends <= now:
                raise self._late(address, name)
        ext = {k: str(v) for k, v in (fields or {}).items()}
        if self.credentials is not None:
            ext = signed(ext, body, self.credentials)
        opaque = next(self._opaque)
        frame = encode(Command(code, opaque, 0, None, ext, body, language=LANGUAGE, version=CURRENT_VERSION))
        reused = address in self._sockets
        sock = self._connect(address, ends, by_deadline, name)
        try:
            sock.settimeout(max(ends - time.monotonic(), 0.001))
            sock.sendall(frame)
            for _ in range(MAX_SKIPPED):
                payload = self._read_frame(sock, ends, limit, address, name)
                try:
                    response = decode(payload)
                except FrameError as e:
                    raise RemotingError(address, f"malformed answer: {e}", name) from None
                if response.is_response and response.opaque == opaque:
                    if self.recorder is not None:
                        self.recorder(address, frame, bytes(payload))
                    self.answered += 1
                    return response
            raise RemotingError(address, f"no answer to request {opaque} among {MAX_SKIPPED} frames", name)
        except ClosedError:
            self._drop(address)
            if reused:  # a connection that went stale between two reads: once more, on a new one
                return self.request(address, code, fields, body, limit)
            raise
        except RemotingError:
            self._drop(address)
            raise
        except (socket.timeout, TimeoutError):
            self._drop(address)
            if by_deadline:
                raise self._late(address, name) from None
            raise RemotingError(address, f"no answer within {_seconds(self.timeout)}", name) from None
        except (ConnectionResetError, BrokenPipeError) as e:
            self._drop(address)
            if reused:
                return self.request(address, code, fields, body, limit)
            raise RemotingError(address, f"connection failed: {e.strerror or e}", name) from None
        except OSError as e:
            self._drop(address)
            raise RemotingError(address, f"connection failed: {e.strerror or e}", name) from None

    def _read_frame(self, sock: socket.socket, ends: float, limit: int, address: str, name: str) -> bytearray:
        (total,) = struct.unpack(">i", self._read(sock, 4, ends, address, name, head=True))
        if total < 4 or total > MAX_FRAME:
            raise RemotingError(address, f"malformed answer: a frame of {total:,} bytes (at most {MAX_FRAME:,} and "
                                         "at least 4)", name)
        if total > limit:
            raise RemotingError(address, f"an answer of {total:,} bytes, more than the limit of {limit:,}: not read",
                                name)
        return self._read(sock, total, ends, address, name)

    def _read(self, sock: socket.socket, n: int, ends: float, address: str, name: str,
              head: bool = False) -> bytearray:
        buffer = bytearray(n)  # read into: one buffer the size of the frame, no chunks joined
        view, got = memoryview(buffer), 0
        while got < n:
            left = ends - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            sock.settimeout(left)
            received = sock.recv_into(view[got:], min(n - got, 1 << 20))
            if not received:
                if head and not got:  # before the length of a frame: no answer had started
                    raise ClosedError(address, "closed the connection", name)
                raise RemotingError(address, "closed the connection mid-frame", name)
            got += received
        return buffer

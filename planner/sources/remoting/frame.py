"""One command of RocketMQ's remoting protocol as bytes on the wire, and back.

A frame is `total | header length | header | body`: `total` (4 bytes, big-endian) counts what follows it; the
next 4 bytes hold the serialize type of the header in their high byte (0 JSON, 1 ROCKETMQ) and the header's
length in the low three. The body is what is left. A request and its response share an `opaque` id; bit 0 of
`flag` marks a response, bit 1 a one-way request.

The JSON header is an object with `code`, `language` (a name: "JAVA"), `version`, `opaque`, `flag`, `remark` and
`extFields` (string to string). The ROCKETMQ header is binary: code (2 bytes), language (1, a `LanguageCode`),
version (2), opaque (4), flag (4), the remark (4-byte length, UTF-8) and the ext fields (4-byte length, then
pairs of a 2-byte-length key and a 4-byte-length value, UTF-8). A server answers in the type it is configured
with, whatever the request's: both are read. Requests are written as JSON.

`decode` raises `FrameError` (one line) for anything that is not a frame, and nothing else.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Optional

from rmqplan.sources.remoting.codes import LANGUAGE_NAMES

JSON, ROCKETMQ = 0, 1
SERIALIZE_TYPES = {JSON: "JSON", ROCKETMQ: "ROCKETMQ"}
RESPONSE_FLAG = 1 << 0
ONEWAY_FLAG = 1 << 1
# What the Java client and server refuse above (com.rocketmq.remoting.frameMaxLength's default): a frame this
# long is not one we asked for.
MAX_FRAME = 16 * 1024 * 1024
_LENGTHS = struct.Struct(">iI")


class FrameError(ValueError):
    """Bytes that are not a remoting command: what is wrong, in one line."""


@dataclass
class Command:
    code: int
    opaque: int = 0
    flag: int = 0
    remark: Optional[str] = None
    ext_fields: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    language: str = "JAVA"
    version: int = 0
    serialize_type: int = JSON

    @property
    def is_response(self) -> bool:
        return bool(self.flag & RESPONSE_FLAG)


def encode(command: Command) -> bytes:
    """The whole frame, total length first."""
    if command.serialize_type == ROCKETMQ:
        header = _rocketmq_header(command)
    else:
        header = json.dumps({
            "code": command.code, "language": command.language, "version": command.version,
            "opaque": command.opaque, "flag": command.flag, "remark": command.remark,
            "extFields": command.ext_fields, "serializeTypeCurrentRPC": SERIALIZE_TYPES[command.serialize_type],
        }, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(header) > 0xFFFFFF:
        raise FrameError(f"header of {len(header):,} bytes: more than a frame can say")
    total = 4 + len(header) + len(command.body)
    return _LENGTHS.pack(total, (command.serialize_type << 24) | len(header)) + header + command.body


def decode(payload: bytes | bytearray) -> Command:
    """A command from a frame without its leading total length (`payload` is the `total` bytes after it)."""
    if len(payload) < 4:
        raise FrameError(f"a frame of {len(payload)} bytes: shorter than its header length")
    (marked,) = struct.unpack_from(">I", payload)
    kind, length = marked >> 24, marked & 0xFFFFFF
    if length > len(payload) - 4:
        raise FrameError(f"header length {length:,} exceeds the frame ({len(payload) - 4:,} bytes after it)")
    view = memoryview(payload)  # the body is copied once, from the frame read
    header, body = bytes(view[4:4 + length]), view[4 + length:]
    if kind == JSON:
        command = _json_header(header)
    elif kind == ROCKETMQ:
        command = _read_rocketmq_header(header)
    else:
        raise FrameError(f"unknown header serialize type {kind}")
    command.body = bytes(body)
    command.serialize_type = kind
    return command


# ---------------------------------------------------------------------------------------------------- JSON


def _json_header(data: bytes) -> Command:
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise FrameError(f"JSON header is not JSON: {_short(e)}") from None
    except RecursionError:  # the json module nests a Python call per level: `[[[[...` 100,000 deep
        raise FrameError("JSON header nested too deep: not a header") from None
    if not isinstance(doc, dict):
        raise FrameError("JSON header is not an object")
    code, opaque, flag, version = (doc.get(k, 0) for k in ("code", "opaque", "flag", "version"))
    for key, value in (("code", code), ("opaque", opaque), ("flag", flag), ("version", version)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise FrameError(f"JSON header: `{key}` is not a whole number: {value!r}"[:200])
    remark = doc.get("remark")
    if remark is not None and not isinstance(remark, str):
        raise FrameError("JSON header: `remark` is not a string")
    ext = doc.get("extFields") or {}
    if not isinstance(ext, dict) or not all(isinstance(v, (str, int, float, bool)) for v in ext.values()):
        raise FrameError("JSON header: `extFields` is not an object of strings")
    language = doc.get("language", "JAVA")
    if isinstance(language, int) and not isinstance(language, bool):  # fastjson may write an enum as its ordinal
        language = LANGUAGE_NAMES.get(language, str(language))
    if not isinstance(language, str):
        raise FrameError("JSON header: `language` is not a name")
    fields = {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in ext.items()}
    return Command(code, opaque, flag, remark, fields, language=language, version=version)


def _short(e: Exception) -> str:
    return str(e).splitlines()[0][:120]


# ------------------------------------------------------------------------------------------------ ROCKETMQ

_FIXED = struct.Struct(">hbhii")  # code, language, version, opaque, flag


def _rocketmq_header(command: Command) -> bytes:
    remark = (command.remark or "").encode("utf-8")
    pairs = b"".join(struct.pack(">h", len(k)) + k + struct.pack(">i", len(v)) + v
                     for k, v in ((k.encode("utf-8"), v.encode("utf-8")) for k, v in command.ext_fields.items()))
    language = next((code for code, name in LANGUAGE_NAMES.items() if name == command.language), 0)
    return (_FIXED.pack(command.code, language, command.version, command.opaque, command.flag)
            + struct.pack(">i", len(remark)) + remark + struct.pack(">i", len(pairs)) + pairs)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise FrameError(f"ROCKETMQ header: it ends inside {what} ({n:,} bytes at {self.pos})")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str, what: str) -> tuple:
        s = struct.Struct(fmt)
        return s.unpack(self.take(s.size, what))

    def text(self, length_format: str, what: str) -> str:
        (n,) = self.unpack(length_format, f"the length of {what}")
        try:
            return self.take(n, what).decode("utf-8")
        except UnicodeDecodeError:
            raise FrameError(f"ROCKETMQ header: {what} is not UTF-8") from None


def _read_rocketmq_header(data: bytes) -> Command:
    r = _Reader(data)
    code, language, version, opaque, flag = r.unpack(_FIXED.format, "the fixed fields")
    remark = r.text(">i", "the remark") or None
    (ext_length,) = r.unpack(">i", "the ext fields' length")
    ext = _Reader(r.take(ext_length, "the ext fields"))
    fields = {}
    while ext.pos < len(ext.data):
        key = ext.text(">h", "an ext field's key")
        fields[key] = ext.text(">i", f"ext field {key[:40]!r}")
    if r.pos != len(data):
        raise FrameError(f"ROCKETMQ header: {len(data) - r.pos} bytes after the ext fields")
    return Command(code, opaque, flag, remark, fields, language=LANGUAGE_NAMES.get(language, str(language)),
                   version=version)

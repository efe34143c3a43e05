"""`rmqplan allocate FILE|-`: run the exact strategies on JSON Lines cases.

Each input line is one case with the fields of `tests/golden/allocation-cases.jsonl` (`expected` is ignored,
so the golden file itself is valid input; `config_queues` gives a CONFIG case its list; `client` is "java", the
default, or "go": the case is computed with rocketmq-client-go's form of the strategy, as a Go process computes
it; other fields are refused). Each output line is
`{"id": ..., "allocation": {clientId: [[topic, broker, queueId], ...] | {"error": "<Java exception>"}}}`
for every distinct client id, in Java order. Output streams case by case, one whole line at a time; the first
bad line stops the run with one message `rmqplan: FILE:LINE: what is wrong` on `err` and exit code 2.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import IO, Any, Iterator, Optional, TextIO

from rmqplan.model.fleet import Queue, StrategySpec
from rmqplan.allocation.strategies import (
    NEARBY_KEY,
    ParamError,
    StrategyError,
    all_params,
    allocate_all,
    for_process,
    parse_strategy,
)
from rmqlint.printable import printable

EXIT_OK = 0
EXIT_BAD_INPUT = 2
MAX_LINE_BYTES = 256 * 1024 * 1024  # a longer "line" is not a case file (binary, or one huge blob)
JAVA_INT_MAX = 2**31 - 1


class CaseError(ValueError):
    """What is wrong with one input line."""


@dataclass(frozen=True)
class Case:
    id: Any
    spec: StrategySpec
    queues: list[Queue]
    client_ids: list[str]
    broker_rooms: dict[str, str]
    client_rooms: dict[str, str]


def _require_list(obj: dict, field: str, required: bool = True) -> Optional[list]:
    if field not in obj or obj[field] is None:
        if required:
            raise CaseError(f"missing field {field!r}")
        return None
    value = obj[field]
    if not isinstance(value, list):
        raise CaseError(f"{field} must be a list, got {type(value).__name__}")
    return value


def _queue(field: str, i: int, item: Any) -> Queue:
    ok = (
        isinstance(item, list) and len(item) == 3
        and isinstance(item[0], str) and isinstance(item[1], str)
        and isinstance(item[2], int) and not isinstance(item[2], bool) and 0 <= item[2] <= JAVA_INT_MAX
    )
    if not ok:
        raise CaseError(f"{field}[{i}] must be [topic, broker, queueId] with queueId an int >= 0, got {item!r}")
    return Queue(item[0], item[1], item[2])


def _strings(field: str, values: list) -> list[str]:
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise CaseError(f"{field}[{i}] must be a string, got {v!r}")
    return values


def _rooms(obj: dict, field: str) -> dict[str, str]:
    value = obj.get(field)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise CaseError(f"{field} must be an object of name -> room, got {type(value).__name__}")
    rooms = {}
    for name, room in value.items():
        if room is None:  # an explicit null is "no room"
            continue
        if not isinstance(room, str):
            raise CaseError(f"{field}[{name!r}] must be a room name (string), got {room!r}")
        rooms[name] = room
    return rooms


# The golden file's fields, the strategy parameters (as the registry names them; fleet.toml's `queues` is
# `config_queues` here, `queues` being the case's queues) and `expected`, which is read past so the golden file is
# valid input. Any other field is refused: a misspelt optional field would silently use a default.
PARAM_FIELDS = {p.case_key: p.key for p in all_params()} | {NEARBY_KEY: NEARBY_KEY}
CASE_FIELDS = ("id", "client", "strategy", "queues", "client_ids", *PARAM_FIELDS, "broker_rooms", "client_rooms",
               "expected")
CASE_CLIENTS = ("java", "go")


def parse_case(obj: Any) -> Case:
    """Validate one decoded JSON line. Raises CaseError."""
    if not isinstance(obj, dict):
        raise CaseError(f"a case must be a JSON object, got {type(obj).__name__}")
    unknown = [k for k in obj if k not in CASE_FIELDS]
    if unknown:
        raise CaseError(f"unknown field {unknown[0]!r}; a case has {', '.join(CASE_FIELDS)}")
    if "id" not in obj:
        raise CaseError("missing field 'id'")
    case_id = obj["id"]
    if isinstance(case_id, bool) or not isinstance(case_id, (str, int)):
        raise CaseError(f"id must be a string or an integer, got {case_id!r}")
    if "strategy" not in obj:
        raise CaseError("missing field 'strategy'")
    queues = [_queue("queues", i, q) for i, q in enumerate(_require_list(obj, "queues") or [])]
    client_ids = _strings("client_ids", _require_list(obj, "client_ids") or [])
    params = {key: obj[field] for field, key in PARAM_FIELDS.items() if obj.get(field) is not None}
    try:
        spec = parse_strategy(obj["strategy"], params)
    except ParamError as e:
        field = next((f for f, key in PARAM_FIELDS.items() if key == e.key), e.key)
        raise CaseError(e.at(field) if e.key != "strategy" else e.detail) from None
    client = obj.get("client", "java")
    if client not in CASE_CLIENTS:
        raise CaseError(f"client must be one of {', '.join(CASE_CLIENTS)}, got {client!r}")
    try:
        spec = for_process(spec, client, "")
    except ValueError as e:
        raise CaseError(str(e)) from None
    return Case(case_id, spec, queues, client_ids, _rooms(obj, "broker_rooms"), _rooms(obj, "client_rooms"))


def allocation_of(case: Case) -> dict[str, Any]:
    """The output object for one case."""
    shares = allocate_all(case.spec, case.queues, case.client_ids,
                          broker_rooms=case.broker_rooms, client_rooms=case.client_rooms)
    allocation: dict[str, Any] = {}
    for cid, share in shares.items():
        if isinstance(share, StrategyError):
            allocation[cid] = {"error": share.java_exception}
        else:
            allocation[cid] = [[q.topic, q.broker, q.queue_id] for q in share]
    return {"id": case.id, "allocation": allocation}


def _lines(stream: IO) -> Iterator[str]:
    """Text lines of a binary or text stream; raises CaseError naming no line (the caller adds it)."""
    first = True
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_BYTES:
            raise CaseError(f"line longer than {MAX_LINE_BYTES} bytes; not a JSON Lines case file")
        if isinstance(raw, bytes):
            try:
                text = raw.decode("utf-8-sig" if first else "utf-8")
            except UnicodeDecodeError as e:
                raise CaseError(f"not UTF-8 text (byte {e.start + 1} of the line)") from None
        else:
            text = raw.removeprefix("\ufeff") if first else raw
        first = False
        yield text


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CaseError(f"invalid JSON at column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise CaseError("invalid JSON: nested too deeply") from None


def run(source: str, out: TextIO, err: TextIO, stdin: Optional[IO] = None) -> int:
    """`rmqplan allocate FILE|-`. Returns the exit code: 0, or 2 for unreadable or invalid input."""
    name = "<stdin>" if source == "-" else source
    if source == "-":
        stream = stdin if stdin is not None else getattr(sys.stdin, "buffer", sys.stdin)
        return _run_stream(name, stream, out, err)
    try:
        with open(source, "rb") as stream:
            return _run_stream(name, stream, out, err)
    except OSError as e:
        err.write(f"rmqplan: {printable(name)}: cannot read: {e.strerror or e}\n")
        return EXIT_BAD_INPUT


def _run_stream(name: str, stream: IO, out: TextIO, err: TextIO) -> int:
    lineno = 1
    lines = _lines(stream)
    try:
        for text in lines:
            if getattr(out, "reader_gone", False):  # `| head` has read enough (rmqlint.output)
                break
            if text.strip():
                case = parse_case(_decode(text))
                # ensure_ascii: any client id (even a lone surrogate) comes out as valid JSON on any stream
                out.write(json.dumps(allocation_of(case)) + "\n")
            lineno += 1
    except CaseError as e:
        err.write(f"rmqplan: {printable(f'{name}:{lineno}: {e}')}\n")
        return EXIT_BAD_INPUT
    return EXIT_OK

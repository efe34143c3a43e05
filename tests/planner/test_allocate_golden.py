"""The 600 golden rebalance cases (computed by the real RocketMQ client classes) and `rmqplan allocate` input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rmqplan.allocate import run
from rmqplan.allocation.strategies import StrategyError, allocate, parse_strategy_name

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "allocation-cases.jsonl"
CASES = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_golden_file_has_every_strategy_family():
    assert len(CASES) == 600
    names = {c["strategy"] for c in CASES}
    assert {"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY-AVG"} <= names


def test_allocate_command_matches_all_golden_cases_exactly():
    out, err = io.StringIO(), io.StringIO()
    assert run(str(GOLDEN), out, err) == 0, err.getvalue()
    assert err.getvalue() == ""
    lines = out.getvalue().splitlines()
    assert len(lines) == len(CASES)
    wrong = []
    for case, line in zip(CASES, lines):
        got = json.loads(line)
        if got != {"id": case["id"], "allocation": case["expected"]}:
            wrong.append(case["id"])
    assert wrong == [], f"{len(CASES) - len(wrong)}/{len(CASES)} exact; wrong: {wrong[:20]}"


def _encode(share):
    if isinstance(share, StrategyError):
        return {"error": share.java_exception}
    return [list(q) for q in share]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_reference_allocate_per_process_matches_golden(case):
    """The straight transcription, one process at a time (the command uses the batched `allocate_all`)."""
    spec = parse_strategy_name(case["strategy"], virtual_nodes=case.get("virtual_nodes", 10),
                               consumer_idcs=case.get("consumer_idcs", ()))
    rooms = dict(broker_rooms=case.get("broker_rooms"), client_rooms=case.get("client_rooms"))
    got = {}
    for cid in case["client_ids"]:
        try:
            got[cid] = _encode(allocate(spec, case["queues"], case["client_ids"], cid, **rooms))
        except StrategyError as e:
            got[cid] = _encode(e)
    assert got == case["expected"]


# ------------------------------------------------------------------------------------------- command input


def _run_text(text: str, tmp_path: Path, name: str = "cases.jsonl"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run(str(path), out, err)
    return code, out.getvalue(), err.getvalue(), str(path)


GOOD = '{"id": "a", "strategy": "AVG", "queues": [["T", "b", 1], ["T", "b", 0]], "client_ids": ["y", "x"]}\n'


def test_stdin_and_blank_lines(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    assert run("-", out, err, stdin=io.BytesIO(("\n" + GOOD + "  \n").encode())) == 0
    assert [json.loads(x) for x in out.getvalue().splitlines()] == [
        {"id": "a", "allocation": {"x": [["T", "b", 0]], "y": [["T", "b", 1]]}}]


def test_strategy_errors_are_output_not_failures(tmp_path):
    case = {"id": 7, "strategy": "AllocateMachineRoomNearby-AllocateMessageQueueAveragely",
            "queues": [["T", "b", 0]], "client_ids": ["x"], "broker_rooms": {"b": "hz"}}
    code, out, err, _ = _run_text(json.dumps(case) + "\n", tmp_path)
    assert (code, err) == (0, "")
    assert json.loads(out) == {"id": 7, "allocation": {"x": {"error": "IllegalArgumentException"}}}


def test_config_cases_take_config_queues(tmp_path):
    case = {"id": 1, "strategy": "CONFIG", "queues": [["T", "b", 0]], "client_ids": ["x", "y"],
            "config_queues": [["T", "b", 5]]}
    code, out, _, _ = _run_text(json.dumps(case), tmp_path)
    assert code == 0 and json.loads(out)["allocation"] == {"x": [["T", "b", 5]], "y": [["T", "b", 5]]}


@pytest.mark.parametrize("line,message", [
    ('{"id": 1, "strategy": "AVG", "queues": [}', "invalid JSON at column"),
    ('[1, 2]', "a case must be a JSON object"),
    ('{"strategy": "AVG", "queues": [], "client_ids": []}', "missing field 'id'"),
    ('{"id": 1, "queues": [], "client_ids": []}', "missing field 'strategy'"),
    ('{"id": 1, "strategy": "AVG", "client_ids": []}', "missing field 'queues'"),
    ('{"id": 1, "strategy": "AVG", "queues": []}', "missing field 'client_ids'"),
    ('{"id": 1, "strategy": "SPREAD", "queues": [], "client_ids": []}', 'unknown strategy "SPREAD"'),
    ('{"id": 1, "strategy": "AVG", "queues": [["T", "b"]], "client_ids": []}', "queues[0] must be [topic"),
    ('{"id": 1, "strategy": "AVG", "queues": [["T", "b", -1]], "client_ids": []}', "queues[0] must be"),
    ('{"id": 1, "strategy": "AVG", "queues": [], "client_ids": [3]}', "client_ids[0] must be a string"),
    ('{"id": 1, "strategy": "CONSISTENT_HASH", "queues": [], "client_ids": [], "virtual_nodes": -2}',
     "virtual_nodes: expected an integer >= 0, got -2"),
    ('{"id": 1, "strategy": "CONFIG", "queues": [], "client_ids": [], "config_queues": [["T", "b", 0], 7]}',
     "config_queues[1]: expected [topic, broker, queueId >= 0], got 7"),
    ('{"id": 1, "strategy": "AVG", "queues": [], "client_ids": [], "broker_rooms": {"b": 1}}', "broker_rooms"),
    ('[' * 100000 + ']' * 100000, "nested too deeply"),
    ('{"id": 1, "strategy": "CONSISTENT_HASH", "queues": [], "client_ids": [], "virtual_node": 5}',
     "unknown field 'virtual_node'"),
])
def test_bad_line_names_file_and_line_and_stops(tmp_path, line, message):
    code, out, err, path = _run_text(GOOD + line + "\n" + GOOD, tmp_path)
    assert code == 2
    assert len(out.splitlines()) == 1  # the good first case streamed, whole; nothing after the bad line
    assert err.count("\n") == 1 and err.startswith(f"rmqplan: {path}:2: ")
    assert message in err
    assert "Traceback" not in err


def test_unreadable_inputs(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    assert run(str(tmp_path / "missing.jsonl"), out, err) == 2
    assert err.getvalue() == f"rmqplan: {tmp_path / 'missing.jsonl'}: cannot read: No such file or directory\n"
    err = io.StringIO()
    assert run(str(tmp_path), out, err) == 2 and "cannot read" in err.getvalue()
    binary = tmp_path / "blob.bin"
    binary.write_bytes(GOOD.encode() + b"\x00\xff\xfe\x80\n")
    err = io.StringIO()
    assert run(str(binary), out, err) == 2
    assert err.getvalue().startswith(f"rmqplan: {binary}:2: not UTF-8 text")


def test_non_ascii_ids_round_trip_as_valid_json(tmp_path):
    case = {"id": "u", "strategy": "AVG", "queues": [["T", "b", 0], ["T", "b", 1]],
            "client_ids": ["\uffff", "\U0001F600"]}
    text = "\ufeff" + json.dumps(case, ensure_ascii=False) + "\n"
    code, out, _, _ = _run_text(text, tmp_path)
    assert code == 0
    assert json.loads(out)["allocation"] == {"\U0001F600": [["T", "b", 0]], "\uffff": [["T", "b", 1]]}

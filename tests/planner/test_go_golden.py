"""The golden cases of Go processes (tests/golden/go-allocation-cases.jsonl): answers computed by rocketmq-client-go
v2.1.2's own strategy functions (tests/golden/go, built with `go`), and rmqplan's Go forms held to them exactly."""

from __future__ import annotations

import io
import json
import os
from collections import Counter

import pytest

from rmqplan.allocate import run
from rmqplan.allocation.strategies import StrategyError, allocate, for_process, parse_strategy_name
from tests.planner import go_golden

CASES = go_golden.read_record()


def test_the_record_holds_every_go_strategy_and_what_sets_go_apart():
    assert Counter(c["strategy"] for c in CASES) == {s: 70 for s in ("AVG", "AVG_BY_CIRCLE", "MACHINE_ROOM_NEARBY",
                                                                     "MACHINE_ROOM", "CONSISTENT_HASH", "CONFIG")}
    assert all(c["client"] == "go" for c in CASES)
    # the record's inputs are the ones drawn (not edited by hand)
    assert [{k: c[k] for k in go_golden.INPUT_FIELDS if k in c} for c in CASES] == go_golden.cases()
    # a panic (0 virtual nodes), ids that sort otherwise in Go, brokers that split otherwise
    assert any(v == {"error": "panic"} for c in CASES for v in c["expected"].values())
    assert any("\U0001F600@1" in c["client_ids"] and "\uffff@1" in c["client_ids"] for c in CASES)
    assert any(q[1] in ("hz@", "hz@x@") for c in CASES if c["strategy"] == "MACHINE_ROOM" for q in c["queues"])


def test_allocate_command_matches_every_go_case_exactly():
    out, err = io.StringIO(), io.StringIO()
    assert run(str(go_golden.RECORD), out, err) == 0, err.getvalue()
    got = [json.loads(line) for line in out.getvalue().splitlines()]
    wrong = [c["id"] for c, g in zip(CASES, got, strict=True) if g != {"id": c["id"], "allocation": c["expected"]}]
    assert wrong == [], f"{len(CASES) - len(wrong)}/{len(CASES)} exact; wrong: {wrong[:20]}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_go_transcription_per_process_matches(case):
    spec = for_process(parse_strategy_name(case["strategy"], virtual_nodes=case.get("virtual_nodes", 10),
                                           consumer_idcs=case.get("consumer_idcs", ()),
                                           config_queues=case.get("config_queues", ())), "go", "2.1.2")
    got = {}
    for cid in case["client_ids"]:
        try:
            got[cid] = [list(q) for q in allocate(spec, case["queues"], case["client_ids"], cid)]
        except StrategyError as e:
            got[cid] = {"error": e.java_exception}
    assert got == case["expected"]


def test_the_record_is_what_the_go_client_computes():
    """Rebuilds the program against rocketmq-client-go v2.1.2 and runs it on the recorded inputs."""
    go = go_golden.go_command()
    if go is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true: the go command is needed to check the Go golden cases", pytrace=False)
        pytest.skip("no go command on PATH")
    answers = go_golden.run(go_golden.build(go), CASES)
    assert [a["allocation"] for a in answers] == [c["expected"] for c in CASES]


def test_java_computes_most_of_these_cases_otherwise():
    """The Go cases are not Java's: run as the Java classes (no `client`), CONSISTENT_HASH and MACHINE_ROOM_NEARBY
    differ nearly everywhere."""
    lines = "".join(json.dumps({k: v for k, v in c.items() if k != "client"}) + "\n" for c in CASES)
    out, err = io.StringIO(), io.StringIO()
    assert run("-", out, err, stdin=io.BytesIO(lines.encode())) == 0
    differ = Counter(c["strategy"] for c, line in zip(CASES, out.getvalue().splitlines())
                     if json.loads(line)["allocation"] != c["expected"])
    assert differ["CONSISTENT_HASH"] > 50 and differ["MACHINE_ROOM_NEARBY"] == 70 and differ["CONFIG"] == 0

"""The local engine against the fleet golden data (computed by the real RocketMQ client classes)."""

import json
from pathlib import Path

from rmqplan.sources.fleet_file import load_fleet
from rmqplan.model.javaorder import queue_key
from rmqplan.engines.local import simulate

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _queues(qs):
    return sorted((tuple(q) for q in qs), key=queue_key)


def test_local_engine_matches_fleet_golden_exactly():
    fleet = load_fleet(GOLDEN / "fleet-cases.toml")
    expected = json.loads((GOLDEN / "fleet-cases.expected.json").read_text())
    sim = simulate(fleet)
    got = {}
    for r in sim.results:
        if r.scenario != "baseline" or r.topic.startswith("%RETRY%"):
            continue
        by_cid = {}
        for p in r.processes:
            share = _queues(r.assignment.get(p.instance, []))
            assert by_cid.setdefault(p.client_id, share) == share  # one client id, one share
        got[f"{r.group}|{r.topic}"] = {
            "assignment": by_cid,
            "orphaned_queues": _queues(r.orphaned),
            "duplicated_queues": _queues(r.duplicated),
            "errored": bool(r.errored),
        }
    assert set(got) == set(expected)
    mismatches = []
    for key, want in expected.items():
        want_norm = {
            "assignment": {cid: _queues(qs) for cid, qs in want["assignment"].items()},
            "orphaned_queues": _queues(want["orphaned_queues"]),
            "duplicated_queues": _queues(want["duplicated_queues"]),
            "errored": want["errored"],
        }
        if got[key] != want_norm:
            mismatches.append(key)
    assert mismatches == [], f"{len(mismatches)} of {len(expected)} group|topic differ: {mismatches[:5]}"
    assert len(expected) == 120

"""`simulate --format json` writes its report as it encodes it: a scenario's group entries are made one at a time
(a 10,000-group fleet's entries, made at once, took 1 GB beside a 360 MB simulation). The text is the same as
`json.dumps(doc, indent=2)` of the whole document, an empty list included."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rmqplan.engines.local import simulate
from rmqplan.report.findings import find
from rmqplan.report.render import _Entries, to_json, write_json
from rmqplan.sources.fleet_file import load_fleet

REPO = Path(__file__).resolve().parents[2]


def _written(doc) -> str:
    out = io.StringIO()
    write_json(doc, out)
    return out.getvalue()


def test_the_report_written_as_encoded_is_the_whole_document_s_text():
    sim = simulate(load_fleet(str(REPO / "tests" / "golden" / "fleet-cases.toml")))
    findings = find(sim)
    text = _written(to_json(sim, findings, assignments=True))
    whole = json.loads(text)
    assert text == json.dumps(whole, indent=2) + "\n"
    assert len(whole["scenarios"][0]["groups"]) == len([r for r in sim.results if r.scenario == sim.scenarios[0]])


def test_entries_are_made_only_as_they_are_written_and_an_empty_list_is_one():
    made = []
    entries = _Entries(["a", "b"], lambda r: made.append(r) or {"r": r})
    assert made == [] and len(entries) == 2
    assert _written({"groups": entries, "none": _Entries([], dict)}) == \
        json.dumps({"groups": [{"r": "a"}, {"r": "b"}], "none": []}, indent=2) + "\n"
    assert made == ["a", "b"]

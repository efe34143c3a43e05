"""The worst problem first, in every format: problem groups by severity (errors, then warnings), then by the queues
they lose, then their idle and failed processes; findings likewise; a report that shows only some says how many
more there are and where. The HTML page, checked in headless Chromium, also shows a rolling restart's steps, its
moves by kind and its rollout, and the --compare-strategies table when asked."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from rmqplan.cli import run


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


# 60 hand-written groups in file order g00..g59, each on a topic of its own. Most are fine (4 processes with their
# own client ids over 8 queues). Two have warnings only (more processes than queues: idle ones), early in the file;
# three have errors (2 processes sharing a fixed instanceName: every queue is orphaned or duplicated, and the retry
# queue duplicated), last in the file, on topics of different sizes. Expected: the errors by the queues they lose
# (queues + 1), then the warnings by their idle processes, then the rest in file order.
ERRORS = {"g50": 4, "g55": 12, "g58": 8}  # group -> its topic's queues
WARNINGS = {"g03": 10, "g07": 12}  # group -> processes on 8 queues: 2 and 4 idle
EXPECTED = ["g55", "g58", "g50", "g07", "g03"]


def _fleet() -> str:
    out = ['[[brokers]]\nname = "broker-a"\n']
    for i in range(60):
        out.append(f'[[topics]]\nname = "T{i:02d}"\nread_queues = {ERRORS.get(f"g{i:02d}", 8)}\n')
    for i in range(60):
        name = f"g{i:02d}"
        out.append(f'[[groups]]\nname = "{name}"\nsubscriptions = [{{ topic = "T{i:02d}" }}]\n[[groups.instances]]\n'
                   f'hosts = ["10.0.{i}.1"]\n')
        out.append('count = 2\ninstance_name = "FIXED"\n' if name in ERRORS else f"count = {WARNINGS.get(name, 4)}\n")
    return "".join(out)


def test_text_and_json_list_the_worst_groups_and_findings_first(tmp_path):
    path = tmp_path / "sixty.toml"
    path.write_text(_fleet(), encoding="utf-8")
    code, text, _ = rmqplan("simulate", "--fleet", str(path), "--engine", "local", "--details")
    assert code == 1
    headers = [line.split()[1] for line in text.splitlines() if line.startswith("  group ")]
    assert headers[:5] == EXPECTED and headers[5:] == [f"g{i:02d}" for i in range(60) if f"g{i:02d}" not in EXPECTED]
    entries = [" ".join(block.split()) for block in text.split("\n\n") if block.startswith("PLAN")]
    findings = [(re.search(r"group (g\d\d)\b", entry).group(1), entry.split()[1]) for entry in entries]
    assert list(dict.fromkeys(group for group, _ in findings)) == EXPECTED
    assert all(severity == "error:" for group, severity in findings if group.startswith("g5"))

    _, out, _ = rmqplan("simulate", "--fleet", str(path), "--engine", "local", "--format", "json")
    doc = json.loads(out)
    groups = list(dict.fromkeys(e["group"] for e in doc["scenarios"][0]["groups"]))
    assert groups[:5] == EXPECTED
    assert list(dict.fromkeys(f["group"] for f in doc["findings"])) == EXPECTED
    severities = [f["severity"] for f in doc["findings"]]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)


def test_the_page_lists_and_draws_the_worst_groups_first_in_chromium(tmp_path, browser):
    path = tmp_path / "sixty.toml"
    path.write_text(_fleet(), encoding="utf-8")
    page_file = tmp_path / "sixty.html"
    rmqplan("simulate", "--fleet", str(path), "--engine", "local", "--html", str(page_file))
    page = browser.open(page_file.as_uri())
    facts = page.evaluate("""(() => ({
      table: [...new Set([...document.querySelectorAll('table.problems tbody tr')].map(r => r.dataset.group))],
      drawn: [...document.querySelectorAll('section.group')].map(s => s.dataset.group),
      nav: [...document.querySelectorAll('nav.groups a')].map(a => a.textContent),
      findings: [...new Set([...document.querySelectorAll('table.findings tbody tr')]
                 .map(r => r.children[3].textContent))],
      headings: [...document.querySelectorAll('h2')].map(h => h.textContent),
    }))()""")
    assert facts["table"] == EXPECTED  # a fleet of more than 40 groups: a table of its problem groups
    assert facts["drawn"] == EXPECTED == facts["nav"]
    assert facts["findings"] == EXPECTED
    assert any(h.startswith("Problem groups 5 groups listed, the worst first") for h in facts["headings"])
    assert "The 5 worst problem groups drawn" in facts["headings"]


def test_a_large_generated_fleet_shows_its_worst_groups_and_says_where_the_rest_are(tmp_path):
    pyarrow = pytest.importorskip("pyarrow.parquet")
    fleet = tmp_path / "gen.toml"
    # 3,000 groups of 1-12 processes over 2 brokers of 4-6 queues: many idle (warnings), 3% colliding (errors)
    fleet.write_text("[generate]\ngroups = 3000\nseed = 11\ninstances = [1, 12]\nqueues = [4, 6]\n"
                     "colliding_client_ids = 0.03\n")
    out_dir = tmp_path / "out"
    code, out, _ = rmqplan("simulate", "--fleet", str(fleet), "--format", "json", "--out", str(out_dir))
    doc = json.loads(out)
    rows = pyarrow.read_table(out_dir / "groups").to_pylist()
    weight: dict[str, tuple] = {}
    for r in rows:
        if r["scenario_id"] != 0:
            continue
        w = weight.get(r["group"], (0, 0, 0))
        error = r["orphaned"] > 0 or r["duplicated"] > 0 or r["errored"] > 0
        weight[r["group"]] = (w[0] or error, w[1] + r["orphaned"] + r["duplicated"], w[2] + r["idle"] + r["errored"])
    problem = {g: w for g, w in weight.items() if w[0] or w[1] or w[2]}
    ranked = sorted(problem, key=lambda g: (not problem[g][0], -problem[g][1], -problem[g][2], g))
    listed = list(dict.fromkeys(e["group"] for e in doc["scenarios"][0]["groups"]))
    assert doc["results_omitted"] > 0 and doc["results_file"] == str(out_dir / "groups")
    assert len(problem) > 200 + 50 and len(listed) == 200
    # the 200 shown are the 200 worst, the worst first; only ties at the cut may differ
    cut = problem[ranked[199]]
    assert all(problem[g] >= cut or problem[g][0] > cut[0] for g in listed)
    keys = [(not problem[g][0], -problem[g][1], -problem[g][2]) for g in listed]
    assert keys == sorted(keys) and listed[0] == ranked[0]
    code, text, _ = rmqplan("simulate", "--fleet", str(fleet), "--details")
    assert re.search(r"\.\.\. and [\d,]+ more group/topic results with problems, less bad than those shown, are not "
                     r"shown: --out DIR writes every group's counts \(DIR/groups, Parquet\) and every finding "
                     r"\(DIR/findings\.json\)", text)


ROLLING = """
[[brokers]]
name = "broker-a"
[[brokers]]
name = "broker-b"
[[topics]]
name = "Orders"
read_queues = 4
[[groups]]
name = "orders"
subscriptions = [{ topic = "Orders" }]
[[groups.instances]]
hosts = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
[[scenarios]]
name = "b-down"
remove_brokers = ["broker-b"]
[[scenarios]]
name = "rolling"
group = "orders"
rolling_restart = true
"""


def test_the_page_shows_a_rolling_restarts_steps_moves_by_kind_and_rollout_in_chromium(tmp_path, browser):
    path = tmp_path / "rolling.toml"
    path.write_text(ROLLING, encoding="utf-8")
    page_file = tmp_path / "rolling.html"
    _, out, _ = rmqplan("simulate", "--fleet", str(path), "--format", "json", "--html", str(page_file),
                        "--compare-strategies")
    doc = json.loads(out)
    rolling = next(s for s in doc["scenarios"] if s["name"] == "rolling")
    _, text, _ = rmqplan("simulate", "--fleet", str(path))
    rollout_line = next(line for line in text.splitlines() if line.startswith("scenario rolling: "))
    page = browser.open(page_file.as_uri())
    facts = page.evaluate("""(() => {
      const table = document.querySelector('table.steps[data-scenario="rolling"]');
      const cell = (row, kind) => +row.querySelector(`td[data-kind="${kind}"]`).textContent.replace(/,/g, '');
      return {
        rollout: document.querySelector('section.scenario[data-scenario="rolling"] .rollout').textContent,
        steps: [...table.querySelectorAll('tbody tr')].map(r => ({
          name: r.children[1].textContent, moves: +r.querySelector('td[data-moves]').dataset.moves,
          kinds: Object.fromEntries(['duplicate_risk', 'pause', 'pickup', 'dropped', 'gone', 'joined']
                                    .map(k => [k, cell(r, k)])),
          visible: r.getBoundingClientRect().height > 0})),
        total: +table.querySelector('tfoot td[data-moves]').dataset.moves,
        oneStep: document.querySelectorAll('table.steps[data-scenario="b-down"]').length,
        compared: [...document.querySelectorAll('section.strategies[data-group="orders"] tbody tr')].map(r => ({
          scenario: r.dataset.scenario,
          moves: [...r.querySelectorAll('td[data-strategy]')].map(c => [c.dataset.strategy, +c.dataset.moves]),
          minimum: +r.querySelector('td.minimum').dataset.moves})),
        counted: document.querySelector('p.counted').textContent,
        summaries: [...document.querySelectorAll('section.strategies ul.summaries li')].map(li => li.textContent),
      };
    })()""")
    assert facts["rollout"] == rollout_line.split(": ", 1)[1]
    assert facts["rollout"].startswith("6 steps, 28 moves (18 duplicate risk, 10 pause)")
    json_steps = rolling["steps"]
    assert [s["name"] for s in facts["steps"]] == [s["name"] for s in json_steps]
    for shown, step in zip(facts["steps"], json_steps):
        moves = [m for g in step["groups"] for m in g["moves"]]
        assert shown["visible"] and shown["moves"] == step["totals"]["moves"] == len(moves)
        assert shown["kinds"] == {k: sum(m["kind"] == k for m in moves) for k in shown["kinds"]}
    assert facts["total"] == rolling["rollout"]["moves"] == 28 and facts["oneStep"] == 0
    by_scenario = {c["scenario"]: c for c in doc["strategies"]}
    assert [c["scenario"] for c in facts["compared"]] == ["baseline", "b-down", "rolling"]
    for shown in facts["compared"]:
        want = by_scenario[shown["scenario"]]
        assert shown["moves"] == [[s["strategy"], s["moves"]] for s in want["strategies"]]
        assert shown["minimum"] == want["minimum_moves"]
    from rmqplan.allocation.comparison import COUNTED

    assert facts["counted"] == COUNTED and facts["summaries"] == [c["summary"] for c in doc["strategies"]]
    _, plain, _ = rmqplan("simulate", "--fleet", str(path), "--html", str(tmp_path / "plain.html"))
    assert 'id="strategies"' not in (tmp_path / "plain.html").read_text()  # only when asked

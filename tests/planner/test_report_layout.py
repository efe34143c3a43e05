"""The reports of a fleet the size of a company's (`harness.real_fleet`, 300 hand-written groups) read from
the top: the text report's findings are on its first screen, each with its cause on a line of its own, and the
listing of every group comes only when asked; the page puts each problem's cause beside it, above every grid, and
stays small. The page is checked in headless Chromium."""

from __future__ import annotations

import io
import re

import pytest

from rmqplan.cli import run
from rmqplan.report.html import render_html
from rmqplan.report.findings import count_by_code, find
from rmqplan.report.render import totals
from rmqplan.sources.fleet_file import parse_fleet_text
from rmqplan.engines import local
from harness.real_fleet import fleet_toml

FIRST_SCREEN = 40  # lines a terminal shows at once
PAGE_BOUND = 3_500_000  # bytes: the page of the 300 groups measured 2.1 MB (11.6 MB when it drew every scenario)


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def fleet_300(tmp_path_factory):
    path = tmp_path_factory.mktemp("real") / "fleet.toml"
    path.write_text(fleet_toml(300), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def page_300(fleet_300, tmp_path_factory):
    page = tmp_path_factory.mktemp("page") / "report.html"
    code, _, err = rmqplan("simulate", "--fleet", fleet_300, "--html", page)
    assert code == 1 and err == ""
    return page


def test_the_generator_writes_the_same_varied_fleet_for_a_seed():
    text = fleet_toml(300)
    assert text == fleet_toml(300) and text != fleet_toml(300, seed=8)
    fleet = parse_fleet_text(text, "fleet.toml")
    assert len(fleet.groups) == 300
    strategies = {g.strategy.name for g in fleet.groups}
    assert {"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY"} <= strategies
    sizes = [sum(len(s.hosts) * s.count for s in g.instances) for g in fleet.groups]
    assert min(sizes) == 1 and max(sizes) == 12
    assert any(s.pid == 1 and s.client_version == "4.5.1" for g in fleet.groups for s in g.instances)
    assert any(s.instance_name for g in fleet.groups for s in g.instances)
    assert len(fleet.scenarios) == 4


def test_the_text_report_shows_its_findings_on_the_first_screen(fleet_300):
    code, out, _ = rmqplan("simulate", "--fleet", fleet_300)
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("PLAN"))
    assert code == 1 and first < FIRST_SCREEN
    assert lines[1].startswith("totals: 300 groups") and lines[first - 2].startswith("findings: ")
    # one entry per finding, its cause on its own line; no listing of every group unless asked
    entries = [block.splitlines() for block in out.split("\n\n") if block.startswith("PLAN")]
    doc_findings = len(find(local.simulate(parse_fleet_text(fleet_300.read_text(), str(fleet_300)))))
    assert len(entries) == doc_findings > 300
    assert all(any(line.startswith("  why: ") for line in entry) for entry in entries)
    assert all(len(line) <= 100 for entry in entries for line in entry if " " in line.strip())
    assert not any(line.startswith(("baseline", "  group ")) for line in lines)
    assert len(lines) < 3_000  # from 9,177 lines when every group was listed first

    _, details, _ = rmqplan("simulate", "--fleet", fleet_300, "--details")
    lines = details.splitlines()
    first_listing = next(i for i, line in enumerate(lines) if line.startswith("  group "))
    assert next(i for i, line in enumerate(lines) if line.startswith("PLAN")) < FIRST_SCREEN < first_listing
    assert max(i for i, line in enumerate(lines) if line.startswith("PLAN")) < first_listing


def test_each_finding_keeps_its_json_message_and_gives_its_parts(fleet_300):
    sim = local.simulate(parse_fleet_text(fleet_300.read_text(), str(fleet_300)))
    findings = find(sim)
    assert {f.code for f in findings} >= {"PLAN001", "PLAN002", "PLAN003", "PLAN004", "PLAN006", "PLAN007",
                                          "PLAN008"}
    for f in findings:
        assert f.headline and f.why, f
        if f.code in ("PLAN001", "PLAN002", "PLAN003", "PLAN004", "PLAN008"):  # the sentence, in its parts
            assert f.message == (f"{f.headline}: {f.why}" + (f"; {f.effect}" if f.effect else "")
                                 + (f" ({f.help})" if f.help else ""))
        else:  # worded otherwise, every part in it
            assert all(part.removeprefix("they ") in f.message for part in (f.why, f.effect))
        assert set(f.to_json()) <= {"code", "severity", "scenario", "group", "topic", "message", "queues", "weight"}
    eight = next(f for f in findings if f.code == "PLAN008")
    assert eight.help == "shrinking a topic: lower write_queues, let those queues drain, then lower read_queues"


def test_the_page_of_300_groups_is_small_and_puts_the_problem_table_and_legend_first(page_300):
    text = page_300.read_text(encoding="utf-8")
    assert len(text.encode()) < PAGE_BOUND
    assert text.index('id="legend"') < text.index('id="totals"') < text.index('<table class="problems">') \
        < text.index('<table class="grid" data-scenario')
    assert '<footer><h2>Legend' not in text
    # a large fleet draws its worst problem groups folded, each reached from its row of the table
    sections = re.findall(r'<section class="group[^"]*" id="(g\d+)"[^>]*><details( open)?>', text)
    assert len(sections) == 40 and not any(opened for _, opened in sections)
    assert all(f'href="#{anchor}"' in text for anchor, _ in sections)


def test_a_topic_whose_only_problem_is_idle_processes_is_not_an_all_green_bar(tmp_path):
    fleet = parse_fleet_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 3\n[[groups]]\n'
                             'name = "g"\nsubscriptions = [{ topic = "T" }]\n'
                             '[[groups.instances]]\nhosts = ["h1", "h2", "h3", "h4", "h5"]\n', "idle.toml")
    sim = local.simulate(fleet)
    findings = find(sim)
    page = render_html(sim, findings, count_by_code(sim, findings), totals(sim))
    row = re.search(r'<table class="problems">.*?<tr data-group="g" data-topic="T">(.*?)</tr>', page, re.S).group(1)
    assert 'fill="#9aa0a6"' in row and "2 idle, 0 failed of 5 processes" in row  # grey: two of five idle
    assert "PLAN003" in row and "T has 3 readable queues for 5 distinct client ids" in row


def test_each_problems_cause_is_beside_it_above_the_first_grid_in_chromium(page_300, browser):
    page = browser.open(page_300.as_uri())
    facts = page.evaluate("""(() => {
      const top = el => el.getBoundingClientRect().top + window.scrollY;
      const rows = [...document.querySelector('table.problems').querySelectorAll('tbody tr')];  // the baseline's
      const grids = document.querySelector('section.group');  // the first group's grids (folded or not) start here
      rows[0].querySelector('a').click();  // unfolds its group once the hash has changed
      return {rows: rows.length, why: rows.filter(r => r.querySelector('td.why').textContent.trim()).length,
              firstWhy: rows[0].querySelector('td.why').textContent, causeTop: top(rows[0].querySelector('td.why')),
              lastCauseTop: top(rows[rows.length - 1].querySelector('td.why')), gridTop: top(grids),
              target: rows[0].querySelector('a').getAttribute('href'), legendTop: top(document.getElementById('legend')),
              totalsTop: top(document.getElementById('totals'))};
    })()""")
    assert facts["rows"] > 100 and facts["why"] == facts["rows"]  # every problem row says why
    assert "all report client id" in facts["firstWhy"]
    assert facts["legendTop"] < facts["totalsTop"] < facts["causeTop"] <= facts["lastCauseTop"] < facts["gridTop"]
    page.wait_for(f"document.querySelector('{facts['target']} > details').open")  # raises after 30 s

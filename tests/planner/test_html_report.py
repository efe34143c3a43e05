"""`rmqplan simulate --html`: one self-contained page, written atomically, checked in a real headless Chromium
(DOM, computed colours, counts, a screenshot). The browser tests skip, saying how to install one, where no
Chromium exists."""

import io
import json
import re
from pathlib import Path

import pytest

from rmqplan.cli import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "fleet.toml")
RED, RED_BG, AMBER, BLUE = "rgb(214, 39, 40)", "rgb(253, 224, 220)", "rgb(240, 163, 10)", "rgb(31, 111, 235)"


def rmqplan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _idle_fleet(tmp_path) -> str:
    fleet = tmp_path / "idle.toml"
    fleet.write_text('[[brokers]]\nname = "b"\n[[topics]]\nname = "T"\nread_queues = 3\n[[groups]]\nname = "g"\n'
                     'subscriptions = [{ topic = "T" }]\n'
                     '[[groups.instances]]\nhosts = ["h1", "h2", "h3", "h4", "h5"]\n')
    return str(fleet)


def test_the_page_is_self_contained_and_the_report_is_unchanged(tmp_path):
    page = tmp_path / "report.html"
    code, out, err = rmqplan("simulate", "--fleet", EXAMPLE, "--html", str(page))
    assert code == 1 and err == "" and out == rmqplan("simulate", "--fleet", EXAMPLE)[1]
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    # nothing fetched: no external script, stylesheet, image, font or link to another site
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text) and "@import" not in text
    assert "url(" not in text
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


def test_a_page_that_cannot_be_written_is_one_line_and_an_old_page_stays(tmp_path, monkeypatch):
    page = tmp_path / "report.html"
    page.write_text("previous report")
    code, _, err = rmqplan("simulate", "--fleet", EXAMPLE, "--html", str(tmp_path))
    assert code == 2 and err.startswith("rmqplan: --html ") and "is a directory" in err
    code, _, err = rmqplan("simulate", "--fleet", EXAMPLE, "--html", str(tmp_path / "missing" / "r.html"))
    assert code == 2 and len(err.splitlines()) == 1 and "cannot write: No such file or directory" in err

    def broken(*args, **kwargs):  # the page fails half-way: the previous page stays whole
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("rmqplan.report.html.os.replace", broken)
    code, _, err = rmqplan("simulate", "--fleet", EXAMPLE, "--html", str(page))
    assert code == 2 and "No space left on device" in err
    assert page.read_text() == "previous report" and [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_a_large_generated_fleet_shows_totals_and_its_problem_groups(tmp_path):
    fleet = tmp_path / "gen.toml"
    fleet.write_text("[generate]\ngroups = 20000\nseed = 3\ncolliding_client_ids = 0.02\n")
    page = tmp_path / "big.html"
    code, out, _ = rmqplan("simulate", "--fleet", str(fleet), "--html", str(page), "--format", "json")
    doc = json.loads(out)
    text = page.read_text()
    assert '<div class="card bad" data-total="orphaned"><b>' + f'{doc["totals"]["orphaned_queues"]:,}' in text
    listed = re.findall(r'<table class="problems">.*?</table>', text, re.S)[0]
    named = {(f["group"], f["topic"]) for f in doc["findings"]}  # every result a listed finding names
    assert listed.count("<tr data-group=") == len(named) > 200
    assert text.count('<table class="grid" ') == 2 * 40  # grids for the 40 worst problem groups only
    assert "more group/topic results with problems, less bad than those shown, are not shown" in text
    assert len(text) < 3_000_000


def test_the_example_fleet_renders_in_chromium_with_grid_colours_and_scenario(tmp_path, browser):
    page_file = tmp_path / "report.html"
    rmqplan("simulate", "--fleet", EXAMPLE, "--html", str(page_file))
    page = browser.open(page_file.as_uri())
    facts = page.evaluate("""(() => {
      const bg = el => getComputedStyle(el).backgroundColor;
      const grid = (s, g, t, role) => document.querySelector(
        `table.grid[data-scenario="${s}"][data-group="${g}"][data-topic="${t}"]`
        + (role ? `[data-role="${role}"]` : ':not([data-role])'));
      const cg = grid('baseline', 'consumer_group', 'TopicTest');
      const rows = [...cg.querySelectorAll('tbody tr.proc')];
      const after = grid('scale-out', 'orders', 'OrderEvents', 'after');
      return {
        grids: document.querySelectorAll('table.grid[data-topic]').length,
        rows: rows.map(r => [r.dataset.instance, r.dataset.clientId,
                             [...r.querySelectorAll('td.held')].map(c => c.dataset.queue)]),
        chipColours: rows.map(r => bg(r.querySelector('.chip'))),
        heldColours: [...cg.querySelectorAll('td.held')].map(bg),
        orphanedHeads: [...cg.querySelectorAll('th.q.orphaned')].map(h => [h.dataset.queue, bg(h)]),
        orphanedCells: [...cg.querySelectorAll('td.cell.orphaned')].map(bg),
        duplicatedHeads: [...cg.querySelectorAll('th.q.duplicated')].map(h => [h.dataset.queue, bg(h), h.textContent]),
        collides: [...document.querySelectorAll('section.group[data-group="consumer_group"] tr.collides')]
                    .map(r => [r.dataset.clientId, r.textContent]),
        movedAfter: [...after.querySelectorAll('th.q.moved')]
          .map(h => [h.dataset.queue, getComputedStyle(h).outlineColor]),
        movedBefore: document.querySelector('section.scenario[data-scenario="scale-out"] '
          + 'table.grid[data-scenario="baseline"][data-topic="OrderEvents"][data-role="before"]')
          .querySelectorAll('th.q.moved').length,
        afterRows: after.querySelectorAll('tbody tr.proc').length,
        totals: Object.fromEntries([...document.querySelectorAll('[data-total]')]
          .map(c => [c.dataset.total, c.querySelector('b').textContent])),
        counts: Object.fromEntries([...document.querySelectorAll('#finding-counts [data-code]')]
          .map(c => [c.dataset.code, c.querySelector('b').textContent])),
        findings: document.querySelectorAll('table.findings tbody tr').length,
        engine: document.querySelector('.engine').textContent,
      };
    })()""")
    assert facts["grids"] == 6 + 2 * 2  # 3 groups x 2 topics, and the scenario's 2 topics beside the baseline
    assert facts["rows"] == [["192.168.1.10#1", "192.168.1.10@XUJIAN_MACBOOK", ["broker-a:0", "broker-a:1"]],
                             ["192.168.1.10#2", "192.168.1.10@XUJIAN_MACBOOK", ["broker-a:0", "broker-a:1"]]]
    assert len(set(facts["chipColours"])) == 1 and set(facts["heldColours"]) == set(facts["chipColours"])
    assert facts["orphanedHeads"] == [["broker-a:2", RED], ["broker-a:3", RED]]
    assert facts["orphanedCells"] == [RED_BG] * 4
    assert facts["duplicatedHeads"] == [["broker-a:0", AMBER, "0×2"], ["broker-a:1", AMBER, "1×2"]]
    assert facts["collides"][0][0] == "192.168.1.10@XUJIAN_MACBOOK" and "fixed instanceName" in facts["collides"][0][1]
    assert [q for q, _ in facts["movedAfter"]] == [f"broker-a:{i}" for i in (2, 4, 5, 6, 7)]
    assert {c for _, c in facts["movedAfter"]} == {BLUE} and facts["movedBefore"] == 5 and facts["afterRows"] == 4
    assert facts["totals"] == {"groups": "3", "processes": "8", "queues": "23", "assignments": "27",
                               "orphaned": "7", "duplicated": "7", "idle": "0"}
    assert facts["counts"]["PLAN001"] == "2" and facts["counts"]["PLAN002"] == "4" and facts["findings"] == 6
    assert facts["engine"] == "local engine (auto: a hand-written fleet of 3 groups)"
    png = tmp_path / "report.png"
    width, height = page.screenshot(str(png), width=1180)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(data[16:20], "big") == width == 1180
    assert int.from_bytes(data[20:24], "big") == height > 1500 and len(data) > 50_000


def test_idle_processes_are_greyed_in_chromium(tmp_path, browser):
    page_file = tmp_path / "idle.html"
    code, _, _ = rmqplan("simulate", "--fleet", _idle_fleet(tmp_path), "--html", str(page_file))
    page = browser.open(page_file.as_uri())
    facts = page.evaluate("""(() => {
      const g = document.querySelector('table.grid[data-topic="T"]');
      return {idle: [...g.querySelectorAll('tr.idle')].map(r => [r.dataset.instance,
                                                                 getComputedStyle(r).backgroundColor,
                                                                 r.querySelectorAll('td.held').length]),
              busy: g.querySelectorAll('tr.proc:not(.idle)').length, count: g.dataset.idle};
    })()""")
    assert code == 0  # idle processes are a warning
    assert [i for i, _, _ in facts["idle"]] == ["h4#1", "h5#1"] and facts["count"] == "2" and facts["busy"] == 3
    assert {c for _, c, _ in facts["idle"]} == {"rgb(238, 240, 242)"} and {n for _, _, n in facts["idle"]} == {0}


def test_hovering_a_process_marks_the_processes_that_share_its_client_id(tmp_path, browser):
    page_file = tmp_path / "report.html"
    rmqplan("simulate", "--fleet", EXAMPLE, "--html", str(page_file))
    page = browser.open(page_file.as_uri())
    peers = page.evaluate("""(() => {
      const row = document.querySelector('table.grid[data-group="orders_legacy"][data-topic="OrderEvents"] tr.proc');
      row.dispatchEvent(new MouseEvent('mouseenter'));
      return row.closest('table').querySelectorAll('tr.peer').length;
    })()""")
    assert peers == 3  # the three pid-1 containers report one client id


ONE_OF_EACH = """
[[brokers]]
name = "b"
[[topics]]
name = "T"
read_queues = 1
[[groups]]
name = "g"
subscriptions = [{ topic = "T" }]
backlog = { "T" = { "b" = [1] } }
[[groups.instances]]
hosts = ["10.0.0.1"]
[[scenarios]]
name = "restart"
rolling_restart = true
"""
PLURALS = r"\b1 (?:\w+ )?(?:groups|processes|queues|assignments|messages|steps|moves|findings|ids|brokers|topics)\b"


def test_a_fleet_of_one_group_process_and_queue_is_counted_in_the_singular_in_chromium(tmp_path, browser):
    fleet = tmp_path / "one.toml"
    fleet.write_text(ONE_OF_EACH, encoding="utf-8")
    page_file = tmp_path / "one.html"
    code, _, err = rmqplan("simulate", "--fleet", str(fleet), "--html", str(page_file), "--compare-strategies")
    assert code == 0, err
    page = browser.open(page_file.as_uri())
    facts = page.evaluate("""(() => ({
      text: document.body.innerText,
      labels: [...document.querySelectorAll('[title], [aria-label]')]
              .map(e => (e.getAttribute('title') || '') + ' ' + (e.getAttribute('aria-label') || '')).join('\\n'),
      cards: Object.fromEntries([...document.querySelectorAll('#totals .card')]
                                .map(c => [c.dataset.total, c.innerText.replace(/\\s+/g, ' ')])),
    }))()""")
    assert facts["cards"] == {"groups": "1 group", "processes": "1 process", "queues": "2 queues",
                              "assignments": "2 assignments", "orphaned": "0 orphaned queues",
                              "duplicated": "0 duplicated queues", "idle": "0 idle processes"}
    assert "1 message behind" in facts["labels"] and "of 1 queue" in facts["labels"]
    assert not re.findall(PLURALS, facts["text"] + "\n" + facts["labels"])

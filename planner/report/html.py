"""`rmqplan simulate --html FILE`: the simulation as one self-contained HTML page (inline CSS, a little inline
JavaScript and SVG; nothing fetched from the network).

What it shows, in this order, so that what is wrong and why comes before any grid:
- the legend, the totals of the whole fleet and the findings' counts per code;
- the problem table: each group/topic with a problem (the worst first, up to `MAX_PROBLEM_ROWS`), its counts, a
  bar of its queues (red orphaned, amber duplicated, green held once) over a strip of its processes (grey idle, red
  failed), and the cause of each of its findings beside it; then every listed finding in full words (folded when
  there are many);
- per group of the baseline (every group of a fleet of up to `MAX_GRID_GROUPS`, else the worst problem groups),
  folded (`<details>`: open for a problem group of a small fleet): the client ids its processes report, which of
  them are shared and why (the id's source: a fixed instanceName, pid 1 on an old client...), and per topic a grid
  of processes (rows) against queues (columns, by broker): a held cell carries the owner's colour and number,
  processes that report one client id share a colour; an orphaned queue's column is red, a duplicated queue's
  column is amber and marked \u00d72 (the number of holders), an idle process's row is greyed, a failed
  rebalance's row says why;
- per scenario, its rollout, the problem table of what it leaves (up to `MAX_SCENARIO_PROBLEM_ROWS`), and its
  worst groups' topics (up to `MAX_SCENARIO_GROUPS`, folded) as two grids side by side, the baseline and the scenario, with the queues that
  change owner outlined in both;
- with the group's backlog (a fleet read from a cluster), each queue's messages behind under its number, and
  each process's total in its row.

The page's size grows with what is drawn, not with the fleet: at most `MAX_GRID_GROUPS` groups and
`MAX_SCENARIO_GROUPS` per scenario are drawn and `MAX_PROBLEM_ROWS` problems and `MAX_FINDINGS` findings listed
(each says how many more there are and where to see them), so a fleet of 10,000 groups gives a page of a few MB
that a browser paints at once (BENCHMARKS.md).

Every grid, row, column and cell carries `data-*` attributes (scenario, group, topic, instance, client id, queue)
and classes (`held`, `orphaned`, `duplicated`, `moved`, `idle`) so a browser test can check the page.

`write_html(path, text)` writes it atomically: a temporary file beside it, renamed over it when complete.
"""

from __future__ import annotations

import html
import os
from typing import Optional, Sequence

from rmqplan.report.findings import PlanFinding
from rmqplan.model.identity import shared_client_ids
from rmqplan.model.fleet import BROADCASTING, Process, Queue
from rmqplan.model.simulation import GroupTopicResult, Simulation
from rmqplan.model.routes import is_retry_topic
from rmqplan.model.scenarios import churn, scenario_counts
from rmqplan.model.simulation import MOVE_KINDS
from rmqplan.model.words import count, noun
from rmqplan.report.ranking import Weight, group_weights, ordered_groups
from rmqplan.report.render import churn_line, more_results_text

MAX_GRID_GROUPS = 40  # groups drawn as grids; a larger fleet draws its worst problem groups
MAX_SCENARIO_GROUPS = 10  # a scenario's groups drawn beside the baseline (a broker down touches every group)
MAX_PROBLEM_ROWS = 1000  # group/topic rows of the baseline's problem table
MAX_SCENARIO_PROBLEM_ROWS = 100  # and of a scenario's (a broker down repeats most of the baseline's problems)
MAX_GRID_PROCESSES = 120  # a grid larger than this is summarised, not drawn
MAX_GRID_QUEUES = 512
MAX_FINDINGS = 500  # findings listed in the page (all are counted)
PALETTE = ("#4e79a7", "#59a14f", "#9c755f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#bab0ac", "#8cd17d",
           "#86bcb6", "#f1ce63", "#a0cbe8", "#d4a6c8", "#fabfd2", "#79706e", "#d7b5a6")


class HtmlError(Exception):
    """--html cannot be written: one line for the user, exit 2."""


def e(text) -> str:
    return html.escape(str(text), quote=True)


def _plural(n: int, word: str, plural: Optional[str] = None) -> str:
    return count(n, word, plural, separators=True)


# --------------------------------------------------------------------------------------------------- the grid


def _queue_key(q: Queue) -> str:
    return f"{q.broker}:{q.queue_id}"


def _holders(r: GroupTopicResult) -> dict[Queue, list[str]]:
    held: dict[Queue, list[str]] = {q: [] for q in r.queues}
    for instance, share in r.assignment.items():
        for q in share:
            held.setdefault(q, []).append(instance)
    return held


def _colours(processes: Sequence[Process]) -> dict[str, str]:
    """A colour per client id (processes that report one id share it), in order of first appearance."""
    out: dict[str, str] = {}
    for p in processes:
        if p.client_id not in out:
            out[p.client_id] = PALETTE[len(out) % len(PALETTE)]
    return out


def grid(r: GroupTopicResult, role: str = "", moved: Sequence[Queue] = (), backlog: Optional[dict] = None) -> str:
    """The processes x queues table of one result; `moved` queues are outlined (a scenario and its baseline);
    `backlog` (queue -> messages behind) is shown when it says something of the topic."""
    processes, queues = r.processes, list(r.queues)
    extra = list(moved) if role == "before" else []
    queues += [q for q in extra if q not in set(queues)]  # a queue the scenario no longer reads
    attrs = (f'data-scenario="{e(r.scenario)}" data-group="{e(r.group)}" data-topic="{e(r.topic)}" '
             f'data-queues="{len(r.queues)}" data-orphaned="{len(r.orphaned)}" '
             f'data-duplicated="{0 if r.model == BROADCASTING else len(r.duplicated)}" data-idle="{len(r.idle)}"'
             + (f' data-role="{role}"' if role else "") + (f' data-moved="{len(moved)}"' if role else ""))
    if len(processes) > MAX_GRID_PROCESSES or len(queues) > MAX_GRID_QUEUES:
        return (f'<p class="toolarge" {attrs}>{_plural(len(processes), "process", "processes")} x '
                f'{_plural(len(queues), "queue")}: too large to draw; the counts above say what is wrong.</p>')
    holders = _holders(r)
    behind = backlog if backlog and any(backlog.get(q) for q in r.queues) else None
    readable = set(r.queues)
    orphaned, moved_set = set(r.orphaned), set(moved)
    duplicated = set() if r.model == BROADCASTING else set(r.duplicated)
    idle = {p.instance for p in r.idle}
    number = {p.instance: i + 1 for i, p in enumerate(processes)}
    colour = _colours(processes)
    brokers: dict[str, int] = {}
    for q in queues:
        brokers[q.broker] = brokers.get(q.broker, 0) + 1

    def column_classes(q: Queue) -> list[str]:
        out = []
        if q in orphaned:
            out.append("orphaned")
        if q in duplicated:
            out.append("duplicated")
        if q in moved_set:
            out.append("moved")
        return out

    head1 = ['<tr><th class="corner" rowspan="2">process</th><th class="cidh" rowspan="2">client id</th>']
    head1 += [f'<th class="broker" colspan="{n}">{e(b)}</th>' for b, n in brokers.items()]
    head1.append('<th class="sum" rowspan="2">holds</th></tr>')
    head2 = ["<tr>"]
    for q in queues:
        cls = " ".join(["q", *column_classes(q)])
        n = len(holders.get(q, []))
        tip = f"{q.topic} {q.broker} queue {q.queue_id}: " + (
            "no process holds it" if q in orphaned else f"held by {n}" if n else "not read in this scenario")
        mark = f'<span class="times">\u00d7{n}</span>' if q in duplicated else ""
        extra = ""
        if behind is not None:
            tip += f"; {_plural(behind.get(q, 0), 'message')} behind"
            mark += f'<span class="behind">{_count(behind.get(q, 0))}</span>' if behind.get(q) else ""
            extra = f' data-backlog="{behind.get(q, 0)}"'
        head2.append(f'<th class="{cls}" data-queue="{e(_queue_key(q))}"{extra} title="{e(tip)}">{q.queue_id}{mark}</th>')
    head2.append("</tr>")
    body = []
    for p in processes:
        subscribed = p.instance in r.assignment
        share = set(r.assignment.get(p.instance, ()))
        row_classes = ["proc"]
        note = ""
        if p.instance in r.errored:
            row_classes.append("errored")
            kept = f"keeps the {len(share)} it held; " if share else ""  # not columns when no longer readable
            note = f"{kept}rebalance fails: {r.errored[p.instance]}"
        elif not subscribed:
            row_classes.append("unsubscribed")
            note = "does not subscribe"
        elif p.instance in idle:
            row_classes.append("idle")
            note = "idle"
        cells = []
        for q in queues:
            cls = ["cell", *column_classes(q)]
            content = ""
            style = ""
            if q in share:
                cls.append("held")
                style = f' style="background:{colour[p.client_id]}"'
                content = str(number[p.instance])
            cells.append(f'<td class="{" ".join(cls)}" data-queue="{e(_queue_key(q))}"{style}>{content}</td>')
        label = f'<span class="note">{e(note)}</span>' if note else ""
        held_text = str(len(share))
        if behind is not None:
            mine = sum(behind.get(q, 0) for q in share if q in readable)
            behind_text = _plural(mine, "message") + " behind"
            held_text += f' <span class="behind" title="{behind_text}">{_count(mine)}</span>' if mine else ""
        body.append(
            f'<tr class="{" ".join(row_classes)}" data-instance="{e(p.instance)}" data-client-id="{e(p.client_id)}">'
            f'<th class="name"><span class="chip" style="background:{colour[p.client_id]}">{number[p.instance]}'
            f'</span>{e(p.instance)}{label}</th><td class="cid">{e(p.client_id)}</td>{"".join(cells)}'
            f'<td class="sum">{held_text}</td></tr>')
    return (f'<table class="grid" {attrs}><thead>{"".join(head1)}{"".join(head2)}</thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _count(n: int) -> str:
    """A message count in a narrow cell: 950, 12k, 3.4M."""
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if n >= size:
            value = n / size
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
    return str(n)


def _strip(parts: list[tuple[int, str]], y: int, height: int) -> list[str]:
    total = max(sum(n for n, _ in parts), 1)
    x, rects = 0.0, []
    for n, fill in parts:
        w = 120 * n / total
        if w:
            rects.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{height}" fill="{fill}"/>')
        x += w
    return rects


def _bar(r: GroupTopicResult) -> str:
    """A small stacked bar: the queues, held once (green), duplicated (amber), orphaned (red); under it a strip of
    the subscribing processes, busy (green), idle (grey), failed (red): a topic whose only problem is idle processes
    is not all green."""
    dup = 0 if r.model == BROADCASTING else len(r.duplicated)
    queues = _strip([(len(r.orphaned), "#d62728"), (dup, "#f0a30a"),
                     (max(len(r.queues) - len(r.orphaned) - dup, 0), "#59a14f")], 0, 8)
    subs = sum(1 for p in r.processes if p.instance in r.assignment)
    idle, failed = len(r.idle), len(r.errored)
    processes = _strip([(failed, "#d62728"), (idle, "#9aa0a6"), (max(subs - idle - failed, 0), "#59a14f")], 10, 4)
    label = (f'{len(r.orphaned)} orphaned, {dup} duplicated of {_plural(len(r.queues), "queue")}; '
             f'{idle} idle, {failed} failed of {_plural(subs, "process", "processes")}')
    return (f'<svg class="bar" width="120" height="14" viewBox="0 0 120 14" role="img" aria-label="{label}">'
            f'{"".join(queues + processes)}</svg>')


# ------------------------------------------------------------------------------------------------- the page


def _client_ids(processes: Sequence[Process], model: str) -> str:
    shared = shared_client_ids(processes)
    colour = _colours(processes)
    by_id: dict[str, list[Process]] = {}
    for p in processes:
        by_id.setdefault(p.client_id, []).append(p)
    rows = []
    for cid, ps in by_id.items():
        if cid in shared and model == BROADCASTING:
            hosts = {p.host for p in ps}
            why = ("they share one local offsets file" if len(hosts) == 1
                   else "one id on several hosts")
        elif cid in shared:
            why = "each computes the same share: their queues are duplicated and the rest orphaned"
        else:
            why = ""
        cls = ' class="collides"' if cid in shared else ""
        rows.append(f'<tr{cls} data-client-id="{e(cid)}"><td><span class="chip" style="background:{colour[cid]}">'
                    f'</span><code>{e(cid)}</code></td><td>{e(", ".join(p.instance for p in ps))}</td>'
                    f'<td>{e(ps[0].id_source)}</td><td>{e(why)}</td></tr>')
    summary = (f'{_plural(len(shared), "client id")} shared by several processes' if shared
               else "every process reports its own client id")
    return (f'<details class="cids"{" open" if shared else ""}><summary>client ids: {e(summary)}</summary>'
            f'<table class="ids"><thead><tr><th>client id</th><th>processes</th><th>why this id</th>'
            f'<th>what follows</th></tr></thead><tbody>{"".join(rows)}</tbody></table></details>')


def _counts_line(r: GroupTopicResult) -> str:
    subs = sum(1 for p in r.processes if p.instance in r.assignment)
    parts = [_plural(len(r.queues), "queue"), _plural(subs, "process", "processes")]
    if r.model != BROADCASTING:
        parts += [f'<span class="{"bad" if r.orphaned else ""}">orphaned {len(r.orphaned)}</span>',
                  f'<span class="{"warn" if r.duplicated else ""}">duplicated {len(r.duplicated)}</span>']
    if not is_retry_topic(r.topic):
        parts.append(f'<span class="{"dim" if r.idle else ""}">idle {len(r.idle)}</span>')
    if r.errored:
        parts.append(f'<span class="bad">failed {len(r.errored)}</span>')
    if r.moved:
        parts.append(f'<span class="mv">moved {len(r.moved)}</span>')
    return ", ".join(parts)


def _strategy(processes: Sequence[Process], model: str) -> str:
    if model == BROADCASTING:
        return model
    names = list(dict.fromkeys(p.strategy.name + (f"-{p.strategy.nearby.name}" if p.strategy.nearby else "")
                               for p in processes))
    return f"{model}, {', '.join(names) or '-'}"


def _group_section(results: list[GroupTopicResult], index: int, problem: bool, backlog: Optional[dict] = None,
                   open_: bool = False) -> str:
    """A group's client ids and grids, folded: its heading is the `<details>`' summary."""
    first = results[0]
    parts = [f'<section class="group{" problem" if problem else ""}" id="g{index}" data-group="{e(first.group)}">'
             f'<details{" open" if open_ else ""}><summary><h3>{e(first.group)} '
             f'<small>{e(_strategy(first.processes, first.model))}, '
             f'{_plural(len(first.processes), "process", "processes")}</small></h3></summary>',
             _client_ids(first.processes, first.model)]
    for r in results:
        parts.append(f'<div class="topic"><h4>{e(r.topic)} {_bar(r)} <small>{_counts_line(r)}</small></h4>'
                     f'<div class="scroll">{grid(r, backlog=backlog)}</div></div>')
    parts.append("</details></section>")
    return "".join(parts)


def _scenario_section(sim: Simulation, name: str, rollout: dict, backlogs: Optional[dict] = None,
                      weights: Optional[dict[tuple[str, str], Weight]] = None,
                      causes: Optional[dict[tuple, list[PlanFinding]]] = None, out_dir: Optional[str] = None) -> str:
    """A scenario: its rollout in one line (the text report's), its steps with their moves by kind when it has
    several, the problems it leaves with their causes (`causes`: its findings by result), then its worst groups (up
    to MAX_SCENARIO_GROUPS, folded unless it touches only a few) as it leaves them, beside the baseline."""
    backlogs = backlogs or {}
    causes = causes or {}
    base = {(r.group, r.topic): r for r in sim.results if r.scenario == sim.scenarios[0]}
    results = [r for r in sim.results if r.scenario == name]
    line = churn_line(rollout).split(": ", 1)[1]
    parts = [f'<section class="scenario" data-scenario="{e(name)}"><h3>scenario {e(name)} '
             f'<small class="rollout">{e(line)}</small></h3>']
    steps = sim.steps.get(name, [])
    if len(steps) > 1:
        parts.append(_steps_table(sim, name, steps))
        parts.append('<p class="sub">after the last step, against the baseline:</p>')
    groups = list(dict.fromkeys(r.group for r in results))
    if weights is not None:
        groups = [g for g in ordered_groups(weights, name) if g in groups]
    by_group: dict[str, list[GroupTopicResult]] = {}
    for r in results:
        by_group.setdefault(r.group, []).append(r)
    problems = [r for g in groups for r in by_group[g] if _found(causes, r)]
    if problems:
        parts.append(_problem_table(problems, causes, 0, out_dir, limit=MAX_SCENARIO_PROBLEM_ROWS))
    drawn = groups[:MAX_SCENARIO_GROUPS]
    if len(groups) > len(drawn):
        parts.append(f'<p class="more">{_plural(len(groups), "group")} touched; the {len(drawn):,} worst drawn '
                     f'(every group: rmqplan simulate --details, or --format json).</p>')
    for group in drawn:
        group_results = by_group[group]
        processes = _plural(len(group_results[0].processes), "process")
        parts.append(f'<details class="touched"{" open" if len(groups) <= 3 else ""} data-group="{e(group)}">'
                     f'<summary class="sub">group {e(group)}: {processes} in the scenario</summary>')
        parts.append(_client_ids(group_results[0].processes, group_results[0].model))
        for r in group_results:
            before = base.get((r.group, r.topic))
            parts.append(f'<div class="topic"><h4>{e(r.topic)} <small>{_counts_line(r)}</small></h4>'
                         '<div class="pair">')
            if before is not None:
                parts.append(f'<figure><figcaption>baseline <small>{_counts_line(before)}</small></figcaption>'
                             f'<div class="scroll">{grid(before, "before", r.moved, backlogs.get(group))}</div>'
                             '</figure>')
            parts.append(f'<figure><figcaption>scenario {e(name)}</figcaption>'
                         f'<div class="scroll">{grid(r, "after", r.moved, backlogs.get(group))}</div></figure>'
                         '</div></div>')
        parts.append("</details>")
    parts.append("</section>")
    return "".join(parts)


KIND_LABELS = {"duplicate_risk": "duplicate risk", "pause": "pause", "pickup": "pickup", "dropped": "dropped",
               "gone": "gone", "joined": "joined"}


def _steps_table(sim: Simulation, name: str, steps: list) -> str:
    """One row per step: its moves, by kind, and the orphaned and duplicated queues it leaves; then the totals.
    Moves, duplicate risk and pause count every group (`scenario_counts`); the other kinds the groups listed."""
    counts = scenario_counts(sim, name)
    partial = sim.omitted_results > 0 or sim.fleet.generate is not None
    head = "".join(f'<th>{e(KIND_LABELS[k])}</th>' for k in MOVE_KINDS)
    rows, total = [], dict.fromkeys(MOVE_KINDS, 0)
    for step, c in zip(steps, counts):
        kinds = dict.fromkeys(MOVE_KINDS, 0)
        for r in step.results:
            for m in r.moves:
                kinds[m.kind] += 1
        kinds["duplicate_risk"], kinds["pause"] = c["duplicate_risk_moves"], c["pause_moves"]
        for k in MOVE_KINDS:
            total[k] += kinds[k]
        cells = "".join(f'<td data-kind="{k}">{kinds[k]:,}</td>' for k in MOVE_KINDS)
        rows.append(f'<tr data-step="{step.index}"><td>{step.index}</td><td>{e(step.name)}</td>'
                    f'<td data-moves="{c["moves"]}">{c["moves"]:,}</td>{cells}'
                    f'<td class="{"bad" if c["orphaned"] else ""}">{c["orphaned"]:,}</td>'
                    f'<td class="{"warn" if c["duplicated"] else ""}">{c["duplicated"]:,}</td></tr>')
    moves = sum(c["moves"] for c in counts)
    foot = (f'<tr class="total"><th colspan="2">all steps</th><td data-moves="{moves}">{moves:,}</td>'
            + "".join(f'<td data-kind="{k}">{total[k]:,}</td>' for k in MOVE_KINDS)
            + f'<td>{max((c["orphaned"] for c in counts), default=0):,} worst</td>'
              f'<td>{max((c["duplicated"] for c in counts), default=0):,} worst</td></tr>')
    note = ('<p class="more">pickup, dropped, gone and joined are counted over the groups listed; moves, duplicate '
            'risk and pause over every group.</p>' if partial else "")
    return (f'<table class="steps" data-scenario="{e(name)}"><thead><tr><th>step</th><th>name</th><th>moves</th>'
            f'{head}<th>orphaned</th><th>duplicated</th></tr></thead><tbody>{"".join(rows)}</tbody>'
            f'<tfoot>{foot}</tfoot></table>{note}')


def strategies_html(comparisons: list, generated: bool = False) -> str:
    """--compare-strategies: per group a table of the moves of each strategy and the minimum, per scenario, then
    the summary lines; what is counted from where is said above the tables (`COUNTED`)."""
    from rmqplan.allocation.comparison import COUNTED, run_name

    parts = [f'<h2 id="strategies">Strategies</h2><p class="sub counted">{e(COUNTED)}</p>']
    if not comparisons:
        parts.append('<p class="none">No clustering group to compare.</p>')
    by_group: dict[str, list] = {}
    for c in comparisons:
        by_group.setdefault(c.group, []).append(c)
    for group, cs in by_group.items():
        heads = "".join(f"<th>{e(run_name(r))}</th>" for r in cs[0].runs)
        rows = []
        for c in cs:
            cells = "".join(f'<td data-strategy="{e(r.strategy)}" data-moves="{r.moves}">{r.moves:,}'
                            + (f' <small class="{"bad" if r.orphaned or r.duplicated or r.failed else "dim"}">'
                               f'{e(r.problems())}</small>' if r.problems() else "") + "</td>" for r in c.runs)
            rows.append(f'<tr data-scenario="{e(c.scenario)}"><td>{e(c.scenario)}</td><td>{c.steps}</td>{cells}'
                        f'<td class="minimum" data-moves="{c.minimum}">{c.minimum:,}</td></tr>')
        parts.append(f'<section class="strategies" data-group="{e(group)}"><h3>group {e(group)}</h3>'
                     f'<table class="compare"><thead><tr><th>scenario</th><th>steps</th>{heads}<th>minimum</th></tr>'
                     f'</thead><tbody>{"".join(rows)}</tbody></table>'
                     f'<ul class="summaries">{"".join(f"<li>{e(c.summary())}</li>" for c in cs)}</ul></section>')
    if generated:
        parts.append('<p class="more">Generated groups are not compared.</p>')
    return "".join(parts)


def _totals(t: dict, counts: dict) -> str:
    cards = [("groups", "group", t["groups"], ""), ("processes", "process", t["instances"], ""),
             ("queues", "queue", t["queues"], ""), ("assignments", "assignment", t["assignments"], ""),
             ("orphaned", "orphaned queue", t["orphaned_queues"], "bad"),
             ("duplicated", "duplicated queue", t["duplicated_queues"], "warn"),
             ("idle", "idle process", t["idle_instances"], "dim")]
    out = ['<div class="cards" id="totals">']
    for key, word, n, tone in cards:  # "1 group", "2 groups"
        label = noun(n, word, "idle processes" if word == "idle process" else None)
        out.append(f'<div class="card {tone if n else ""}" data-total="{e(key)}"><b>{n:,}</b><span>{e(label)}</span>'
                   f'</div>')
    out.append("</div>")
    from rmqplan.report.findings import SEVERITY

    out.append('<div class="codes" id="finding-counts">')
    for code, n in counts.items():
        out.append(f'<span class="code {SEVERITY[code] if n else "none"}" data-code="{code}">{code} '
                   f'<b>{n:,}</b></span>')
    out.append("</div>")
    return "".join(out)


FINDINGS_OPEN = 20  # the findings in full words are shown unfolded up to this many


def _findings(findings: Sequence[PlanFinding], counts: dict, out_dir: Optional[str]) -> str:
    if not findings:
        return '<p class="none">No findings.</p>'
    rows = []
    for f in findings[:MAX_FINDINGS]:
        rows.append(f'<tr class="{f.severity}" data-code="{f.code}"><td class="sev">{e(f.severity)}</td>'
                    f'<td>{f.code}</td><td>{e(f.scenario)}</td><td>{e(f.group or "")}</td><td>{e(f.topic or "")}</td>'
                    f'<td class="msg">{e(f.message)}</td></tr>')
    total = sum(counts.values())
    note = ""
    if total > min(len(findings), MAX_FINDINGS):
        where = (f"every finding is in {os.path.join(out_dir, 'findings.json')}" if out_dir
                 else "rmqplan simulate --out DIR writes every finding to DIR/findings.json")
        note = f'<p class="more">{min(len(findings), MAX_FINDINGS):,} of {total:,} findings listed; {e(where)}.</p>'
    shown = min(len(findings), MAX_FINDINGS)
    return (f'<details class="all-findings"{" open" if shown <= FINDINGS_OPEN else ""}><summary>'
            f'{_plural(shown, "finding")} in full words</summary>'
            f'<table class="findings"><thead><tr><th>severity</th><th>code</th><th>scenario</th><th>group</th>'
            f'<th>topic</th><th>message</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{note}</details>')


def _causes(findings: Sequence[PlanFinding]) -> dict[tuple, list[PlanFinding]]:
    """The findings of each (scenario, group, topic); a group's own (PLAN007) under topic None."""
    out: dict[tuple, list[PlanFinding]] = {}
    for f in findings:
        if f.group is not None:
            out.setdefault((f.scenario, f.group, f.topic), []).append(f)
    return out


def _found(causes: dict[tuple, list[PlanFinding]], r: GroupTopicResult) -> list[PlanFinding]:
    """The findings that name `r`, or its group (PLAN007)."""
    return causes.get((r.scenario, r.group, r.topic), []) + causes.get((r.scenario, r.group, None), [])


def _cause_cell(found: list[PlanFinding]) -> str:
    """Why, once per cause, after the codes it explains (an orphaned and a duplicated queue often share one)."""
    by_why: dict[str, list[PlanFinding]] = {}
    for f in found:
        by_why.setdefault(f.why or f.headline or f.message, []).append(f)
    lines = []
    for why, fs in by_why.items():
        codes = " ".join(f'<span class="code {f.severity}">{f.code}</span>' for f in fs)
        lines.append(f'<div>{codes} {e(why)}</div>')
    return f'<td class="why">{"".join(lines)}</td>'


def _problem_table(results: list[GroupTopicResult], causes: dict[tuple, list[PlanFinding]], omitted: int,
                   out_dir: Optional[str] = None, anchors: Optional[dict[str, int]] = None,
                   limit: int = MAX_PROBLEM_ROWS) -> str:
    """One row per problem group/topic (up to `limit`): its counts, its bar and the cause of each of its findings;
    a group drawn below (`anchors`: group -> its section's number) links to its grids."""
    anchors = anchors or {}
    rows = []
    for r in results[:limit]:
        group = e(r.group)
        if r.group in anchors:
            group = f'<a href="#g{anchors[r.group]}">{group}</a>'
        rows.append(f'<tr data-group="{e(r.group)}" data-topic="{e(r.topic)}"><td>{group}</td><td>{e(r.topic)}'
                    f'</td><td>{len(r.queues)}</td><td>{len(r.processes)}</td><td>{len(r.orphaned)}</td>'
                    f'<td>{0 if r.model == BROADCASTING else len(r.duplicated)}</td><td>{len(r.idle)}</td>'
                    f'<td>{len(r.errored)}</td><td>{_bar(r)}</td>{_cause_cell(_found(causes, r))}</tr>')
    more = ""
    if len(results) > limit:
        rest = len(results) - limit
        more += (f'<p class="more">and {_plural(rest, "more problem group/topic")}, less bad: every one in the text '
                 f'report (rmqplan simulate) and its JSON.</p>')
    if omitted:
        more += f'<p class="more" id="more-problems">and {e(more_results_text(omitted, out_dir))}.</p>'
    return (f'<table class="problems"><thead><tr><th>group</th><th>topic</th><th>queues</th><th>processes</th>'
            f'<th>orphaned</th><th>duplicated</th><th>idle</th><th>failed</th><th></th><th>why</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>{more}')


def render_html(sim: Simulation, findings: Sequence[PlanFinding], counts: dict, totals: dict, engine: str = "",
                out_dir: Optional[str] = None, extra: str = "", title: str = "", strategies=None) -> str:
    """The page; `extra` (HTML) comes after the totals (`rmqplan status` puts the brokers' view there), `title`
    replaces the fleet's path in the heading; `strategies` (`rmqplan.compare.StrategiesReport`, with
    --compare-strategies) adds the comparison."""
    baseline = sim.scenarios[0]
    backlogs = {g.name: g.backlog_of() for g in sim.fleet.groups if g.backlog}
    title = title or sim.fleet.path
    weights = group_weights(sim, findings)
    by_group: dict[str, list[GroupTopicResult]] = {}
    for r in sim.results:
        if r.scenario == baseline:
            by_group.setdefault(r.group, []).append(r)
    ranked = ordered_groups(weights, baseline)  # the worst first (rmqplan.report.ranking)
    large = len(by_group) > MAX_GRID_GROUPS or sim.omitted_results > 0
    causes = _causes(findings)
    problem_groups = [g for g in ranked if any(_found(causes, r) for r in by_group[g])]
    drawn = problem_groups[:MAX_GRID_GROUPS] if large else ranked
    anchors = {g: i for i, g in enumerate(drawn)}
    body = [f'<header><h1>rmqplan <small>{e(title)}</small></h1><p class="engine">{e(engine)}</p>'
            '</header>', LEGEND, "<h2>Totals</h2>", _totals(totals, counts), extra]
    listed = [r for g in problem_groups for r in by_group[g] if _found(causes, r)]
    if listed or sim.omitted_results:
        body += [f"<h2>Problem groups <small>{_plural(len(problem_groups), 'group')} listed, the worst first: errors, "
                 f"then warnings, then by the queues they lose; why beside each</small></h2>",
                 _problem_table(listed, causes, sim.omitted_results, out_dir, anchors)]
    body += ['<h2 id="findings">Findings</h2>', _findings(findings, counts, out_dir)]
    if large:
        if drawn:
            rest = len(problem_groups) - len(drawn)
            more = (f"; {_plural(rest, 'more problem group')} in the table above" if rest else "")
            body.append(f"<h2>The {_plural(len(drawn), 'worst problem group')} <small>drawn{e(more)}</small></h2>")
    else:
        body.append(f"<h2>Groups <small>{baseline}, the worst first</small></h2>")
    if drawn:
        body.append('<nav class="groups">' + " ".join(
            f'<a href="#g{i}" class="{"problem" if g in problem_groups else ""}">{e(g)}</a>'
            for i, g in enumerate(drawn)) + "</nav>")
    body += [_group_section(by_group[g], i, g in problem_groups, backlogs.get(g), open_=not large and g in problem_groups)
             for i, g in enumerate(drawn)]
    rollouts = {c["name"]: c for c in churn(sim)}
    if sim.scenarios[1:]:
        body.append("<h2>Scenarios <small>beside the baseline; outlined queues change owner</small></h2>")
        body += [_scenario_section(sim, name, rollouts[name], backlogs, weights, causes, out_dir)
                 for name in sim.scenarios[1:]]
    if strategies is not None:
        body.append(strategies_html(strategies, sim.fleet.generate is not None))
    body.append(FOOTER)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>rmqplan: {e(title)}</title><style>{CSS}</style></head>'
            f'<body>{"".join(body)}<script>{SCRIPT}</script></body></html>\n')


def write_html(path: str, text: str) -> None:
    """Write `text` to `path` atomically (a temporary file in the same directory, renamed over `path`), with the
    permissions the umask gives a new file. Raises HtmlError with one line."""
    from rmqlint.output import write_atomically

    if os.path.isdir(path):
        raise HtmlError(f"--html {path}: is a directory")
    try:
        write_atomically(path, text, newline=None)
    except OSError as exc:
        raise HtmlError(f"--html {path}: cannot write: {exc.strerror or exc}") from None


def _swatch(cell: str, text: str, row: str = "") -> str:
    return f'<span class="key"><table class="grid"><tr{row}>{cell}</tr></table>{text}</span>'


# The key to the grids and bars, at the top of the page.
LEGEND = ('<div class="legend" id="legend">'
          + _swatch('<td class="cell held" style="background:#4e79a7">1</td>',
                    "held by process 1 (processes reporting one client id share a colour)")
          + _swatch('<td class="cell orphaned"></td>', "orphaned: no process holds the queue")
          + _swatch('<td class="cell duplicated held" style="background:#4e79a7">1</td>',
                    "duplicated: two or more processes hold it (\u00d72 in the header)")
          + _swatch('<td class="cell moved"></td>', "moved: the scenario gives it another owner")
          + _swatch('<td class="cell"></td>', "idle process: holds no queue", ' class="idle"')
          + '<span class="key"><svg class="bar" width="40" height="14" viewBox="0 0 40 14" aria-hidden="true">'
            '<rect x="0" y="0" width="10" height="8" fill="#d62728"/><rect x="10" y="0" width="10" height="8" '
            'fill="#f0a30a"/><rect x="20" y="0" width="20" height="8" fill="#59a14f"/><rect x="0" y="10" width="28" '
            'height="4" fill="#59a14f"/><rect x="28" y="10" width="12" height="4" fill="#9aa0a6"/></svg>'
            'bar: queues orphaned, duplicated, held once; under it the processes, busy and idle (failed red)</span>'
          + '</div>')
FOOTER = '<footer><p>Made by rmqplan; this file needs no network.</p></footer>'

CSS = """
:root{--red:#d62728;--red-bg:#fde0dc;--amber:#f0a30a;--amber-bg:#fff1cc;--blue:#1f6feb;--grey:#9aa0a6;
--ink:#1f2328;--line:#d0d7de;--bg:#fff}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg);
margin:0;padding:20px 28px}
h1{font-size:22px;margin:0}h1 small{font-weight:400;color:#57606a;font-size:15px}
h2{font-size:17px;margin:26px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
h2 small,h3 small,h4 small{font-weight:400;color:#57606a;font-size:13px}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:13px;margin:12px 0 4px;display:flex;gap:8px;align-items:center}
.engine{color:#57606a;margin:2px 0 0}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:118px;background:#f6f8fa}
.card b{display:block;font-size:20px}.card span{color:#57606a;font-size:12px}
.card.bad{border-color:var(--red);background:var(--red-bg)}
.card.warn{border-color:var(--amber);background:var(--amber-bg)}
.card.dim{border-color:var(--grey);background:#eef0f2}
.codes{margin-top:10px;display:flex;flex-wrap:wrap;gap:6px}
.code{border-radius:12px;padding:2px 10px;font-size:12px;border:1px solid var(--line);color:#57606a}
.code.error{background:var(--red);border-color:var(--red);color:#fff}
.code.warning{background:var(--amber);border-color:var(--amber);color:#1f2328}
table{border-collapse:collapse}
.findings,.problems,.ids{width:100%;font-size:12.5px}
.steps,.compare{font-size:12.5px;margin:6px 0 10px}
.findings th,.findings td,.problems th,.problems td,.ids th,.ids td,.steps th,.steps td,.compare th,.compare td{
border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.steps tfoot td,.steps tfoot th{font-weight:600;border-top:2px solid var(--line)}
.compare td.minimum{font-weight:600}ul.summaries{font-size:12.5px;color:#57606a;margin:4px 0 12px}
.findings tr.error .sev{color:var(--red);font-weight:600}.findings tr.warning .sev{color:#9a6700;font-weight:600}
.ids tr.collides td{background:var(--red-bg)}
details.cids{margin:4px 0 8px}details.cids summary{cursor:pointer;color:#57606a}
.ids code{font-size:12px}.ids td:first-child{white-space:nowrap}
nav.groups{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:8px}
nav.groups a{font-size:12px;padding:1px 8px;border-radius:10px;border:1px solid var(--line);text-decoration:none;
color:var(--ink)}nav.groups a.problem{border-color:var(--red);color:var(--red)}
section.group,section.scenario{border:1px solid var(--line);border-radius:8px;padding:4px 14px 12px;margin:12px 0}
section.group.problem{border-left:4px solid var(--red)}
.scroll{overflow-x:auto}
.pair{display:flex;gap:22px;flex-wrap:wrap;align-items:flex-start}
figure{margin:0}figcaption{font-weight:600;font-size:12.5px;margin-bottom:4px}
table.grid{font-size:12px}
.grid th,.grid td{border:1px solid #e1e4e8;text-align:center;padding:0}
.grid th.corner,.grid th.cidh{text-align:left;padding:2px 6px;background:#f6f8fa}
.grid th.broker{background:#f6f8fa;padding:2px 6px;font-weight:600;white-space:nowrap}
.grid th.q{min-width:24px;height:22px;font-weight:500;background:#f6f8fa;line-height:12px}
.grid th.sum,.grid td.sum{padding:0 6px;color:#57606a}
.grid th.name{text-align:left;font-weight:500;padding:2px 6px;white-space:nowrap}
.grid td.cid{text-align:left;padding:2px 6px;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:11px;
white-space:nowrap}
.grid td.cell{width:24px;height:22px;color:#fff;font-weight:600}
.grid .orphaned{background:var(--red-bg)}.grid th.q.orphaned{background:var(--red);color:#fff}
.grid th.q.duplicated{background:var(--amber)}
.grid td.cell.duplicated.held{box-shadow:inset 0 0 0 3px var(--amber)}
.grid td.cell.duplicated:not(.held){background:var(--amber-bg)}
.times{display:block;font-size:9.5px;line-height:10px;font-weight:700;color:#5c3b00}
.behind{display:block;font-size:9px;line-height:10px;font-weight:600;color:#8250df}
td.sum .behind{display:inline;margin-left:4px}
.grid th.q.moved{outline:3px solid var(--blue);outline-offset:-3px}
.grid td.cell.moved{background:#e7f0fd}.grid td.cell.moved.held{outline:2px solid var(--blue);outline-offset:-2px}
tr.idle,tr.unsubscribed{background:#eef0f2;color:#8c959f}tr.idle td.cid,tr.unsubscribed td.cid{color:#8c959f}
tr.idle th.name .chip,tr.unsubscribed th.name .chip{opacity:.45}
tr.errored{background:#fff5f5}
.note{margin-left:6px;font-size:10.5px;font-weight:600;text-transform:uppercase;color:#8c959f}
tr.errored .note{color:var(--red);text-transform:none}
.chip{display:inline-block;min-width:16px;height:16px;line-height:16px;border-radius:8px;color:#fff;font-size:10px;
text-align:center;margin-right:6px;vertical-align:middle}
tr.peer th.name,tr.peer td.cid{background:#fff8c5}
.bad{color:var(--red);font-weight:600}.warn{color:#9a6700;font-weight:600}.dim{color:#57606a;font-weight:600}
.mv{color:var(--blue);font-weight:600}
.bar{vertical-align:middle;border:1px solid var(--line)}
.more,.toolarge,.sub{color:#57606a}
footer{margin-top:30px;color:#57606a;font-size:12px}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin:12px 0 0;font-size:12px;color:#57606a}
.legend .key{display:inline-flex;align-items:center;gap:6px}.legend table.grid td.cell{border:1px solid #e1e4e8}
.problems :is(th,td):nth-child(n+3):not(:last-child){width:1%;white-space:nowrap}.problems td.why div+div{margin-top:3px}
.why .code{font-size:11px;padding:0 6px;margin-right:2px;white-space:nowrap}
section.group>details>summary{cursor:pointer}section.group>details>summary h3{display:inline-block;margin:12px 0 6px}
details.all-findings>summary,details.touched>summary{cursor:pointer;color:#57606a;margin:6px 0}
"""

# Hovering a process highlights every process of the table that reports the same client id; following a link to
# a group (the problem table's, the navigation's) unfolds it.
SCRIPT = """
function unfold(){
  var target = location.hash && document.getElementById(location.hash.slice(1));
  var folded = target && target.querySelector('details');
  if(folded){folded.open = true;}
}
window.addEventListener('hashchange', unfold);
unfold();
document.querySelectorAll('table.grid tbody tr.proc').forEach(function(row){
  function mark(on){
    row.closest('table').querySelectorAll('tr.proc').forEach(function(other){
      if(other.dataset.clientId===row.dataset.clientId){other.classList.toggle('peer',on);}
    });
  }
  row.addEventListener('mouseenter',function(){mark(true);});
  row.addEventListener('mouseleave',function(){mark(false);});
});
"""

"""What `rmqplan simulate` prints and writes: text, JSON, and the `--out DIR` directory.

Text (`render_text`): the totals and each scenario's churn, then the findings, the worst first, each a diagnostic
with its cause and what follows on lines of their own, wrapped to the terminal (`report_width`); each group and
topic only with `--details` or `--assignments`.

JSON: `{"scenarios": [{"name", "groups": [ENTRY, ...]}, ...], "findings": [...], "totals": {...},
"finding_counts": {code: n}}`, the baseline first. ENTRY: `group`, `topic`, `orphaned_queues`,
`duplicated_queues`, `idle_instances` ([{instance, client_id}]), `moved_queues` (empty in the baseline) and, with
`--assignments`, `instances` ([{instance, client_id, host, queues}], every process of the group, in declaration
order), and, when the fleet knows the group's backlog (`rmqplan fleet` read it from a cluster), `backlog`:
{messages, orphaned_messages, fair_share, instances: [{instance, client_id, queues, messages, share}]}, the topic's
messages behind and each subscribing process's part of them. A scenario's `groups` are its touched groups as its last step leaves them, against the baseline; it also
has `steps` ([{step, name, groups: [ENTRY + moves], totals}], each group against its state before the step; a
move is {queue, from, to, kind}) and `rollout` (`rmqplan.model.scenarios.rollout`). Queues are `[topic, broker, queueId]`. `findings` lists the findings of the listed results;
`finding_counts` counts every finding of the fleet by code, and when some are not listed, `findings_omitted` says
how many and `findings_file` where they all are (the `--out` findings.json, else null). Groups and findings come
the worst first (`rmqplan.report.ranking`); when an engine lists only the worst groups of a large fleet,
`results_omitted` says how many more group/topic results have problems and `results_file` where every group's counts
are (the `--out` groups table, else null).

`--out DIR` is written all or nothing (into a temporary sibling directory renamed at the end; an existing DIR is
replaced only when it is empty or holds a previous `summary.json`). The engine writes the tables
(`rmqplan.report.out_tables`: `assignments`, `groups`, `processes`, `brokers`, Parquet) and `findings.json` (every
finding, one JSON object per line); this module adds `summary.json` (`{"fleet", "engine", "totals",
"finding_counts", "scenarios"}`). `totals` count the baseline of the whole fleet: `groups`, `instances`
(processes), `queues` (readable queues summed over every group and topic it rebalances, retry topics included),
`assignments` ((process, queue) pairs), `orphaned_queues`, `duplicated_queues`, `idle_instances` ((group, topic,
process) entries). `scenarios` lists each scenario's `name` and `moved_queues` (its churn).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from rmqplan.allocation.backlog import BacklogShares, heaviest_text, shares
from rmqplan.report.findings import PlanFinding, format_queues
from rmqplan.model.fleet import BROADCASTING, Queue
from rmqplan.model.simulation import GroupTopicResult, Move, Simulation
from rmqplan.model.routes import is_retry_topic
from rmqplan.model.scenarios import STEP_KEYS, churn, rollout_of, scenario_counts
from rmqplan.model.words import count, noun
from rmqplan.report.ranking import group_weights, ordered_groups
from rmqlint.printable import printable

STEP_TOTAL_KEYS = STEP_KEYS[:6]  # a step's own counts (the current_* ones serve the rollout's worst step)

MAP_MAX_PROCESSES = 16  # text: show the process -> queues map for groups this small
MAP_MAX_QUEUES = 64


class OutputError(Exception):
    """--out cannot be written: one line for the user, exit 2."""


class Abandoned(Exception):
    """Raised inside `out_directory` to leave nothing behind (the run failed and said why); `code` is its exit."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def _q(q: Queue) -> list:
    return [q.topic, q.broker, q.queue_id]


# ------------------------------------------------------------------------------------------------------- JSON


def backlog_json(s: BacklogShares) -> dict:
    return {"messages": s.total, "orphaned_messages": s.orphaned, "fair_share": round(s.fair, 2),
            "instances": [{"instance": p.instance, "client_id": p.client_id, "queues": p.queues,
                           "messages": p.messages, "share": round(s.share(p), 4)} for p in s.processes]}


def _backlogs(sim: Simulation) -> dict[str, dict]:
    return {g.name: g.backlog_of() for g in sim.fleet.groups if g.backlog}


def entry_json(r: GroupTopicResult, assignments: bool, backlog: Optional[dict] = None) -> dict:
    entry = {
        "group": r.group,
        "topic": r.topic,
        "orphaned_queues": [_q(q) for q in r.orphaned],
        "duplicated_queues": [] if r.model == BROADCASTING else [_q(q) for q in r.duplicated],
        "idle_instances": [{"instance": p.instance, "client_id": p.client_id} for p in r.idle],
        "moved_queues": [_q(q) for q in r.moved],
    }
    if assignments:
        entry["instances"] = [
            {"instance": p.instance, "client_id": p.client_id, "host": p.host,
             "queues": [_q(q) for q in r.assignment.get(p.instance, [])]}
            for p in r.processes
        ]
    weighed = shares(r, backlog) if backlog else None
    if weighed is not None:
        entry["backlog"] = backlog_json(weighed)
    return entry


def move_json(m: Move) -> dict:
    return {"queue": _q(m.queue), "from": list(m.before), "to": list(m.after), "kind": m.kind}


def steps_json(sim: Simulation, name: str, assignments: bool) -> dict:
    """A scenario's `steps` (each group/topic it touches against its state before, with `moves`, and the step's
    `totals`) and `rollout` (`rmqplan.model.scenarios.rollout`)."""
    steps = sim.steps.get(name, [])
    counts = scenario_counts(sim, name)
    backlogs = _backlogs(sim)
    return {
        "steps": [{"step": s.index, "name": s.name,
                   "groups": [{**entry_json(r, assignments, backlogs.get(r.group)),
                               "moves": [move_json(m) for m in r.moves]}
                              for r in s.results],
                   "totals": {k: c[k] for k in STEP_TOTAL_KEYS}} for s, c in zip(steps, counts)],
        "rollout": rollout_of(counts),
    }


class _Entries(list):
    """A scenario's group entries, each made when json's encoder reaches it: the entries of a large fleet (lists of
    every queue, in Python objects) took three times the memory of the simulation itself when made at once. The
    encoder that `indent=` selects iterates any list subclass; the length says whether the list is empty."""

    def __init__(self, results: list[GroupTopicResult], make: Callable[[GroupTopicResult], dict]):
        super().__init__()
        self._results, self._make = results, make

    def __len__(self) -> int:
        return len(self._results)

    def __bool__(self) -> bool:
        return bool(self._results)

    def __iter__(self):
        return (self._make(r) for r in self._results)

    def __eq__(self, other) -> bool:
        return list(self) == list(other)


def write_json(doc: dict, out) -> None:
    """`json.dumps(doc, indent=2)` and a newline, written as it is encoded (`to_json`'s entries are made then)."""
    chunks: list[str] = []
    size = 0
    for chunk in json.JSONEncoder(indent=2).iterencode(doc):
        chunks.append(chunk)
        size += len(chunk)
        if size >= 1 << 16:
            out.write("".join(chunks))
            chunks, size = [], 0
    out.write("".join(chunks) + "\n")


def to_json(sim: Simulation, findings: Sequence[PlanFinding], *, assignments: bool = False,
            counts: Optional[dict] = None, out_dir: Optional[str] = None) -> dict:
    """The JSON report; its scenarios' group entries are made as `write_json` writes them."""
    results: dict[str, list[GroupTopicResult]] = {name: [] for name in sim.scenarios}
    backlogs = _backlogs(sim)
    for r in _worst_first(sim, findings):
        results.setdefault(r.scenario, []).append(r)
    by_scenario = {name: _Entries(rs, lambda r: entry_json(r, assignments, backlogs.get(r.group)))
                   for name, rs in results.items()}
    doc = {
        "scenarios": [{"name": name, "groups": entries,
                       **(steps_json(sim, name, assignments) if name in sim.steps else {})}
                      for name, entries in by_scenario.items()],
        "findings": [f.to_json() for f in findings],
        "totals": totals(sim),
    }
    if counts is not None:
        doc["finding_counts"] = counts
        omitted = sum(counts.values()) - len(findings)
        if omitted > 0:
            doc["findings_omitted"] = omitted
            doc["findings_file"] = _findings_file(out_dir)
    if sim.omitted_results:
        doc["results_omitted"] = sim.omitted_results
        doc["results_file"] = os.path.join(out_dir, "groups") if out_dir else None
    return doc


def _findings_file(out_dir: Optional[str]) -> Optional[str]:
    return os.path.join(out_dir, "findings.json") if out_dir else None


def _where_the_rest_are(omitted: int, counts: dict, out_dir: Optional[str]) -> str:
    by_code = ", ".join(f"{code} {n}" for code, n in counts.items() if n)
    where = (f"every finding is in {_findings_file(out_dir)}" if out_dir
             else "--out DIR writes every finding to DIR/findings.json")
    return f"  ... and {omitted} more {noun(omitted, 'finding')} not shown (all findings by code: {by_code}); {where}"


def _worst_first(sim: Simulation, findings: Sequence[PlanFinding]) -> list[GroupTopicResult]:
    """The results, per scenario, group by group worst first (`rmqplan.report.ranking`); topics keep their order."""
    weights = group_weights(sim, findings)
    scenario_index = {name: i for i, name in enumerate(sim.scenarios)}
    return sorted(sim.results, key=lambda r: (scenario_index.get(r.scenario, len(scenario_index)),
                                              weights[(r.scenario, r.group)]))


def more_results_text(omitted: int, out_dir: Optional[str]) -> str:
    """Where the problem results a large fleet's report leaves out are: every one, with its counts."""
    where = (f"every group's counts are in {os.path.join(out_dir, 'groups')} (Parquet) and every finding in "
             f"{_findings_file(out_dir)}" if out_dir else
             "--out DIR writes every group's counts (DIR/groups, Parquet) and every finding (DIR/findings.json)")
    return (f"{count(omitted, 'more group/topic result')} with problems, less bad than those shown, "
            f"{noun(omitted, 'is', 'are')} not shown: {where}")


def _more_results(omitted: int, out_dir: Optional[str]) -> str:
    return f"  ... and {more_results_text(omitted, out_dir)}"


def totals(sim: Simulation) -> dict:
    if sim.totals is not None:  # an engine that returns only some results counted the whole fleet itself
        return dict(sim.totals)
    base = [r for r in sim.results if r.scenario == sim.scenarios[0]]
    instances: set[tuple[str, str]] = set()
    for r in base:
        instances.update((r.group, p.instance) for p in r.processes)
    return {
        "groups": len(sim.fleet.groups),
        "instances": len(instances),
        "queues": sum(len(r.queues) for r in base),
        "assignments": sum(len(share) for r in base for share in r.assignment.values()),
        "orphaned_queues": sum(len(r.orphaned) for r in base),
        "duplicated_queues": sum(len(r.duplicated) for r in base),
        "idle_instances": sum(len(r.idle) for r in base),
    }


def summary_json(sim: Simulation, engine: str) -> dict:
    from rmqplan.report.findings import count_by_code, find

    counts = count_by_code(sim, find(sim))
    return {"fleet": sim.fleet.path, "engine": engine, "totals": totals(sim), "finding_counts": counts,
            "findings_written": sim.findings_written, "scenarios": churn(sim)}


# ------------------------------------------------------------------------------------------------------- text


def _process_map(r: GroupTopicResult, backlog: Optional[dict] = None) -> list[str]:
    """The figure of the duplicate client id incident: which process holds which queues, and the queues nobody holds;
    with the group's backlog, the messages behind on them."""
    names = {p.instance: (printable(p.instance), printable(p.client_id)) for p in r.processes}
    width = max((len(instance) for instance, _ in names.values()), default=0)
    cid_width = max((len(cid) for _, cid in names.values()), default=0)
    behind = (lambda qs: f"  ({sum(backlog.get(q, 0) for q in qs):,} behind)") if backlog else (lambda qs: "")
    lines = []
    for p in r.processes:
        if p.instance not in r.assignment:
            held = "(does not subscribe)"
        elif p.instance in r.errored:  # what it keeps (held before the failed rebalance), then why
            kept = r.assignment[p.instance]
            held = (f"{format_queues(kept)}  (kept: " if kept else "(") + f"rebalance fails: {r.errored[p.instance]})"
        else:
            share = r.assignment[p.instance]
            held = format_queues(share) + behind(share) if share else "-"
        instance, cid = names[p.instance]
        lines.append(f"      {instance:<{width}}  {cid:<{cid_width}}  {printable(held)}")
    if r.orphaned:
        lines.append(f"      {'(nobody)':<{width}}  {'':<{cid_width}}  "
                     f"{printable(format_queues(r.orphaned))}{behind(r.orphaned)}")
    return lines


def backlog_line(s: BacklogShares, scenario: Optional[str] = None) -> str:
    """`backlog 1,204 messages (612 on queues nobody holds); after x, 10.0.0.7#1 holds 2 of 8 queues but 71% ...`"""
    text = f"backlog {s.total:,} message{'s' if s.total != 1 else ''}"
    if s.orphaned:
        text += f" ({s.orphaned:,} on queues nobody holds)"
    heavy = heaviest_text(s, scenario)
    return text + (f"; {heavy}" if heavy else "")


def _group_header(results: list[GroupTopicResult]) -> str:
    r = results[0]
    strategies = list(dict.fromkeys(
        (p.strategy.name + (f"-{p.strategy.nearby.name}" if p.strategy.nearby else "")) for p in r.processes))
    n = len(r.processes)
    processes = f"{n} process{'es' if n != 1 else ''}"
    if r.model == BROADCASTING:  # no strategy: every process takes every queue
        return f"  group {printable(r.group)} ({r.model}, {processes})"
    strategy = ", ".join(strategies) if strategies else "-"
    return f"  group {printable(r.group)} ({r.model}, {strategy}, {processes})"


REPORT_WIDTH = 100  # the text report's width when standard output is not a terminal and COLUMNS is not set
MIN_WIDTH = 40
DETAILS_HINT = "more: --details lists each group and topic, --assignments every process's queues"


def report_width(stream) -> int:
    """The width the text report wraps to: COLUMNS when set (as `shutil.get_terminal_size` reads it), else the
    terminal's when `stream` is one, else REPORT_WIDTH (a file or a pipe is read later, at some width)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        isatty = getattr(stream, "isatty", None)
        columns = shutil.get_terminal_size((REPORT_WIDTH, 24)).columns if isatty and isatty() else REPORT_WIDTH
    return max(columns, MIN_WIDTH)


def wrapped(text: str, width: int, first: str = "", indent: str = "  ") -> list[str]:
    """`first` + `text` wrapped to `width` at spaces, the lines after the first indented by `indent` (a hanging
    indent, as compilers lay out a long diagnostic); a word longer than a line (a path) is not broken."""
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [first.rstrip()]


def finding_lines(f: PlanFinding, width: int = REPORT_WIDTH) -> list[str]:
    """One finding as a diagnostic: `PLAN001 error: what is wrong, where`, then `why:` (its cause), `effect:` (what
    follows) and `help:` lines, each wrapped under its own text. Names are shown by `printable`."""
    where = "" if f.scenario == "baseline" else f" in scenario {printable(f.scenario)}"
    lines = wrapped(printable(f.headline or f.message), width, f"{f.code} {f.severity}{where}: ", "    ")
    for label, text in (("why", f.why), ("effect", f.effect), ("help", f.help)):
        if text:
            lines += wrapped(printable(text), width, f"  {label}: ", " " * (len(label) + 4))
    return lines


def _findings_summary(findings: Sequence[PlanFinding], counts: Optional[dict]) -> str:
    """`findings: 6 (5 errors, 1 warning), the worst first`: every finding of the fleet, by severity."""
    from rmqplan.report.codes import SEVERITY

    by_code = counts if counts is not None else {}
    if counts is None:
        for f in findings:
            by_code[f.code] = by_code.get(f.code, 0) + 1
    by_severity: dict[str, int] = {}
    for code, n in by_code.items():
        if n:
            by_severity[SEVERITY[code]] = by_severity.get(SEVERITY[code], 0) + n
    total = sum(by_severity.values())
    if not total:
        return "findings: none"
    kinds = [count(by_severity[s], word, separators=True) for s, word in
             (("error", "error"), ("warning", "warning"), ("info", "note")) if by_severity.get(s)]
    told = kinds[0] if len(kinds) == 1 else f"{total:,} ({', '.join(kinds)})"
    return f"findings: {told}{', the worst first' if total > 1 else ''}"


def render_text(sim: Simulation, findings: Sequence[PlanFinding], *, engine: str = "local engine",
                assignments: bool = False, details: bool = False, counts: Optional[dict] = None,
                out_dir: Optional[str] = None, width: int = REPORT_WIDTH) -> str:
    """The text report, the findings first: the engine, the totals and each scenario's churn, then every listed
    finding (`finding_lines`, the worst first, wrapped to `width`), and, with `details` or `assignments`, each group
    and topic's counts and who holds which queue (`assignments`: in every group, not only small ones).
    `engine` says which engine ran and why (`rmqplan.engines.choice.EngineChoice.describe`). Names from the fleet
    (and the paths) are shown by `printable`: each stays on its line, without control characters."""
    out = [f"rmqplan: {printable(sim.fleet.path)}: {engine}"]  # whole: the path is the fleet's, of any length
    out.append(_totals_line(totals(sim)))  # the summary lines stay whole, for grep
    out += [churn_line(c) for c in churn(sim)]
    out.append(_findings_summary(findings, counts))
    for f in findings:
        out.append("")
        out += finding_lines(f, width)
    omitted = sum(counts.values()) - len(findings) if counts is not None else 0
    if omitted > 0:
        out.append("")
        out.append(_where_the_rest_are(omitted, counts, out_dir).strip())
    if details or assignments:
        out += _details(sim, findings, assignments, out_dir)
    elif sim.results:
        out += ["", DETAILS_HINT]
    return "\n".join(out) + "\n"


def _totals_line(t: dict) -> str:
    n = {key: f"{t[key]:,}" for key in ("orphaned_queues", "duplicated_queues", "idle_instances")}
    return (f"totals: {count(t['groups'], 'group', separators=True)}, "
            f"{count(t['instances'], 'process', separators=True)}, {count(t['queues'], 'queue', separators=True)}, "
            f"{count(t['assignments'], 'assignment', separators=True)}, {n['orphaned_queues']} orphaned, "
            f"{n['duplicated_queues']} duplicated, {n['idle_instances']} idle")


def _details(sim: Simulation, findings: Sequence[PlanFinding], assignments: bool, out_dir: Optional[str]) -> list[str]:
    """Per scenario (the baseline first), each group (the worst first) and topic: its counts, the backlog, and the
    process -> queues map of small groups (of every group with `assignments`)."""
    out: list[str] = []
    backlogs = _backlogs(sim)
    weights = group_weights(sim, findings)
    for scenario in sim.scenarios:
        results = [r for r in sim.results if r.scenario == scenario]
        out.append("")
        out.append(scenario if scenario == sim.scenarios[0] else f"scenario {printable(scenario)}")
        if len(sim.steps.get(scenario, [])) > 1:
            out.extend(_step_lines(sim.steps[scenario], scenario_counts(sim, scenario)))
        by_group: dict[str, list[GroupTopicResult]] = {}
        for r in results:
            by_group.setdefault(r.group, []).append(r)
        for group in ordered_groups(weights, scenario):
            group_results = by_group[group]
            out.append(_group_header(group_results))
            for r in group_results:
                subs = sum(1 for p in r.processes if p.instance in r.assignment)
                parts = [f"{len(r.queues)} queue{'s' if len(r.queues) != 1 else ''}",
                         f"{subs} process{'es' if subs != 1 else ''}"]
                if r.model != BROADCASTING:
                    parts += [f"orphaned {len(r.orphaned)}", f"duplicated {len(r.duplicated)}"]
                if not is_retry_topic(r.topic):
                    parts.append(f"idle {len(r.idle)}")
                if r.errored:
                    parts.append(f"failed {len(r.errored)}")
                if scenario != sim.scenarios[0]:
                    parts.append(f"moved {len(r.moved)}")
                out.append(f"    {printable(r.topic)}: {', '.join(parts)}")
                backlog = backlogs.get(r.group)
                weighed = shares(r, backlog) if backlog else None
                if weighed is not None and weighed.total:
                    line = backlog_line(weighed, None if scenario == sim.scenarios[0] else scenario)
                    out.append(f"      {printable(line)}")
                small = len(r.processes) <= MAP_MAX_PROCESSES and len(r.queues) <= MAP_MAX_QUEUES
                if assignments or small:
                    out.extend(_process_map(r, backlog if weighed is not None and weighed.total else None))
    if sim.omitted_results:
        out.append(_more_results(sim.omitted_results, out_dir))
    return out


def _kinds(counts: dict) -> str:
    return f"{counts['duplicate_risk_moves']:,} duplicate risk, {counts['pause_moves']:,} pause"


def _step_lines(steps, counts) -> list[str]:
    """A sequence's steps, one line each, then a heading for the groups as the last step leaves them."""
    names = [printable(s.name) for s in steps]
    width = max(map(len, names))
    lines = []
    for s, name, t in zip(steps, names, counts):
        problems = "".join(f", {key} {t[key]}" for key in ("orphaned", "duplicated") if t[key])
        lines.append(f"  step {s.index:>{len(str(len(steps)))}}  {name:<{width}}  moved {t['moves']} "
                     f"({_kinds(t)}){problems}")
    lines.append("  after the last step:")
    return lines


def churn_line(c: dict) -> str:
    r = c.get("rollout")
    name = printable(c["name"])
    if r is None:
        return f"scenario {name}: {_change_owner(c['moved_queues'])}"
    if r["steps"] <= 1:
        return f"scenario {name}: {_change_owner(c['moved_queues'])} ({_kinds(r)})"
    return (f"scenario {name}: {count(r['steps'], 'step', separators=True)}, "
            f"{count(r['moves'], 'move', separators=True)} ({_kinds(r)}), worst step {r['worst_orphaned']:,} orphaned "
            f"and {r['worst_duplicated']:,} duplicated; after the last step "
            f"{count(c['moved_queues'], 'queue', separators=True)} {noun(c['moved_queues'], 'differs', 'differ')} "
            "from the baseline")


def _change_owner(moved: int) -> str:
    return f"{count(moved, 'queue', separators=True)} {noun(moved, 'changes', 'change')} owner"


# ------------------------------------------------------------------------------------------------------ --out


def write_summary(directory: str | Path, summary_doc: dict) -> None:
    (Path(directory) / "summary.json").write_text(json.dumps(summary_doc, indent=2) + "\n", encoding="utf-8")


@contextmanager
def out_directory(out_dir: str | Path, marker: str = "summary.json", option: str = "--out") -> Iterator[Path]:
    """A temporary sibling of `out_dir` to write into; moved into place when the block succeeds, removed when it
    fails. Raises OutputError (one line) for a DIR that is someone else's (not empty, no `marker` file of a
    previous run) or cannot be written."""
    from rmqlint.interrupts import deferred
    from rmqlint.output import as_created

    target = Path(out_dir)
    if target.exists() and not target.is_dir():
        raise OutputError(f"{option} {out_dir}: exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not (target / marker).is_file():
        raise OutputError(f"{option} {out_dir}: directory is not empty and holds no rmqplan output; "
                          f"refusing to replace it")
    if target.is_symlink():  # DIR is a link: the directory it names is replaced, the link stays
        target = target.resolve()
    parent = target.resolve().parent
    tmp: Optional[Path] = None  # the staging directory while it exists and is ours to remove
    try:
        with deferred():  # a signal in these steps acts once `tmp` is known, so the `finally` removes it
            try:
                parent.mkdir(parents=True, exist_ok=True)
                tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
                as_created(tmp, directory=True)  # it becomes DIR: the umask's permissions, not mkdtemp's 0700
            except OSError as e:
                raise OutputError(f"{option} {out_dir}: cannot create it: {e.strerror or e}") from None
        yield tmp
        with deferred():  # DIR is the previous output or the new one, never neither
            _move_into_place(tmp, target)
            tmp = None
    except OSError as e:
        raise OutputError(f"{option} {out_dir}: cannot write: {e.strerror or e}") from None
    except (OutputError, Abandoned):
        raise
    except Exception as e:  # Spark or Parquet failed (a Py4J error): one line, nothing left behind
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise OutputError(f"{option} {out_dir}: {first}") from None
    finally:  # after a failure, an interrupt (KeyboardInterrupt, SIGTERM) or a generator closed unfinished
        if tmp is not None:
            with deferred():
                shutil.rmtree(tmp, ignore_errors=True)


def _move_into_place(tmp: Path, target: Path) -> None:
    """Rename `tmp` to `target`; a previous `target` is moved aside first and removed once `tmp` is in its place,
    or put back when that rename fails."""
    if not target.exists():
        tmp.rename(target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    old.rmdir()
    target.rename(old)
    try:
        tmp.rename(target)
    except OSError:
        old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def write_out(out_dir: str | Path, summary_doc: dict, write_contents: Callable[[str], None]) -> None:
    """Write `write_contents(directory)` and summary.json into `out_dir`, all or nothing. Raises OutputError."""
    with out_directory(out_dir) as tmp:
        write_contents(str(tmp))
        write_summary(tmp, summary_doc)

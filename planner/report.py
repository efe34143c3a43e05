"""What `rmqplan simulate` prints and writes (DESIGN §6): text, JSON, and the `--out DIR` tables.

JSON: `{"scenarios": [{"name", "groups": [ENTRY, ...]}, ...], "findings": [...]}`, the baseline first. ENTRY:
`group`, `topic`, `orphaned_queues`, `duplicated_queues`, `idle_instances` ([{instance, client_id}]),
`moved_queues` (empty in the baseline) and, with `--assignments`, `instances` ([{instance, client_id, host,
queues}], every process of the group, in declaration order). Queues are `[topic, broker, queueId]`.

`--out DIR` writes, all or nothing (into a temporary sibling directory that is renamed at the end):
- `assignments/` Parquet, one row per (scenario, group, topic, instance, queue): ASSIGNMENT_COLUMNS;
- `groups/` Parquet, one row per (scenario, group, topic): GROUP_COLUMNS;
- `findings.json` (`{"findings": [...]}`) and `summary.json` (`{"fleet", "engine", "totals", "scenarios"}`).
`totals` count the baseline (or are the engine's own `Simulation.totals` when it returns only some results): `groups` (of the fleet), `instances` (processes), `queues` (readable queues summed
over every group and topic it rebalances, retry topics included), `assignments` ((process, queue) pairs),
`orphaned_queues`, `duplicated_queues`, `idle_instances` ((group, topic, process) entries). `scenarios` lists
each scenario's `name` and `moved_queues` (its churn: moved queues summed over the group's topics).
An existing DIR is replaced only when it is empty or holds a previous `summary.json`.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Optional, Sequence

from planner.findings import PlanFinding, format_queues
from planner.model import BROADCASTING, GroupTopicResult, Queue, Simulation
from planner.routes import is_retry_topic
from planner.scenarios import churn

# (name, Spark SQL type) of the Parquet tables; the Spark engine writes the same columns.
ASSIGNMENT_COLUMNS = (
    ("scenario", "string"), ("group", "string"), ("topic", "string"), ("instance", "string"),
    ("client_id", "string"), ("host", "string"), ("broker", "string"), ("queue_id", "int"),
)
GROUP_COLUMNS = (
    ("scenario", "string"), ("group", "string"), ("topic", "string"), ("model", "string"),
    ("queues", "int"), ("instances", "int"), ("assignments", "int"), ("orphaned", "int"), ("duplicated", "int"),
    ("idle", "int"), ("moved", "int"), ("errored", "int"),
)
MAP_MAX_PROCESSES = 16  # text: show the process -> queues map for groups this small
MAP_MAX_QUEUES = 64


class OutputError(Exception):
    """--out cannot be written: one line for the user, exit 2."""


def _q(q: Queue) -> list:
    return [q.topic, q.broker, q.queue_id]


# ------------------------------------------------------------------------------------------------------- JSON


def entry_json(r: GroupTopicResult, assignments: bool) -> dict:
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
    return entry


def to_json(sim: Simulation, findings: Sequence[PlanFinding], *, assignments: bool = False) -> dict:
    by_scenario: dict[str, list] = {name: [] for name in sim.scenarios}
    for r in sim.results:
        by_scenario.setdefault(r.scenario, []).append(entry_json(r, assignments))
    return {
        "scenarios": [{"name": name, "groups": entries} for name, entries in by_scenario.items()],
        "findings": [f.to_json() for f in findings],
    }


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
    return {"fleet": sim.fleet.path, "engine": engine, "totals": totals(sim), "scenarios": churn(sim)}


# ------------------------------------------------------------------------------------------------------- text


def _process_map(r: GroupTopicResult) -> list[str]:
    """Seed 004's figure: which process holds which queues, and the queues nobody holds."""
    width = max((len(p.instance) for p in r.processes), default=0)
    cid_width = max((len(p.client_id) for p in r.processes), default=0)
    lines = []
    for p in r.processes:
        if p.instance not in r.assignment:
            held = "(does not subscribe)"
        elif p.instance in r.errored:
            held = f"(rebalance fails: {r.errored[p.instance]})"
        else:
            share = r.assignment[p.instance]
            held = format_queues(share) if share else "-"
        lines.append(f"      {p.instance:<{width}}  {p.client_id:<{cid_width}}  {held}")
    if r.orphaned:
        lines.append(f"      {'(nobody)':<{width}}  {'':<{cid_width}}  {format_queues(r.orphaned)}")
    return lines


def _group_header(results: list[GroupTopicResult]) -> str:
    r = results[0]
    strategies = list(dict.fromkeys(
        (p.strategy.name + (f"-{p.strategy.nearby.name}" if p.strategy.nearby else "")) for p in r.processes))
    n = len(r.processes)
    processes = f"{n} process{'es' if n != 1 else ''}"
    if r.model == BROADCASTING:  # no strategy: every process takes every queue
        return f"  group {r.group} ({r.model}, {processes})"
    strategy = ", ".join(strategies) if strategies else "-"
    return f"  group {r.group} ({r.model}, {strategy}, {processes})"


def render_text(sim: Simulation, findings: Sequence[PlanFinding], *, engine: str = "local",
                assignments: bool = False) -> str:
    out = [f"rmqplan: {sim.fleet.path} ({engine} engine)"]
    for scenario in sim.scenarios:
        results = [r for r in sim.results if r.scenario == scenario]
        out.append("")
        out.append(scenario if scenario == sim.scenarios[0] else f"scenario {scenario}")
        by_group: dict[str, list[GroupTopicResult]] = {}
        for r in results:
            by_group.setdefault(r.group, []).append(r)
        for group_results in by_group.values():
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
                out.append(f"    {r.topic}: {', '.join(parts)}")
                small = len(r.processes) <= MAP_MAX_PROCESSES and len(r.queues) <= MAP_MAX_QUEUES
                if assignments or small:
                    out.extend(_process_map(r))
    if sim.omitted_results:
        out.append(f"  ... and {sim.omitted_results} more group/topic results with problems, not shown")
    out.append("")
    if findings:
        out.append(f"findings ({len(findings)})")
        for f in findings:
            where = " ".join(x for x in (f.scenario, f.group, f.topic) if x)
            out.append(f"  {f.severity:<7} {f.code} [{where}] {f.message}")
    else:
        out.append("findings: none")
    t = totals(sim)
    out.append("")
    out.append(f"totals: {t['groups']} groups, {t['instances']} processes, {t['queues']} queues, "
               f"{t['assignments']} assignments, {t['orphaned_queues']} orphaned, "
               f"{t['duplicated_queues']} duplicated, {t['idle_instances']} idle")
    for c in churn(sim):
        out.append(f"scenario {c['name']}: {c['moved_queues']} queue(s) change owner")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------------------ --out


def assignment_rows(sim: Simulation) -> list[tuple]:
    rows = []
    for r in sim.results:
        for p in r.processes:
            for q in r.assignment.get(p.instance, []):
                rows.append((r.scenario, r.group, r.topic, p.instance, p.client_id, p.host, q.broker, q.queue_id))
    return rows


def group_rows(sim: Simulation) -> list[tuple]:
    return [
        (r.scenario, r.group, r.topic, r.model, len(r.queues), len(r.assignment),
         sum(len(s) for s in r.assignment.values()), len(r.orphaned), len(r.duplicated), len(r.idle),
         len(r.moved), len(r.errored))
        for r in sim.results
    ]


def _schema(columns) -> str:
    return ", ".join(f"`{name}` {kind}" for name, kind in columns)


def spark_table_writer(sim: Simulation, session_factory: Callable[[], object]) -> Callable[[str], None]:
    """Writes the two Parquet tables from the results with a (lazily started) Spark session."""

    def write(directory: str) -> None:
        spark = session_factory()
        for name, columns, rows in (("assignments", ASSIGNMENT_COLUMNS, assignment_rows(sim)),
                                    ("groups", GROUP_COLUMNS, group_rows(sim))):
            df = spark.createDataFrame(rows, schema=_schema(columns))
            df.coalesce(1).write.mode("errorifexists").parquet(os.path.join(directory, name))

    return write


def write_out(out_dir: str | Path, findings_doc: dict, summary_doc: dict, write_tables: Callable[[str], None]) -> None:
    """Write the tables and the two JSON files into `out_dir`, all or nothing. Raises OutputError."""
    target = Path(out_dir)
    if target.exists() and not target.is_dir():
        raise OutputError(f"--out {out_dir}: exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not (target / "summary.json").is_file():
        raise OutputError(f"--out {out_dir}: directory is not empty and holds no rmqplan output; "
                          f"refusing to replace it")
    parent = target.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
    except OSError as e:
        raise OutputError(f"--out {out_dir}: cannot create it: {e.strerror or e}") from None
    try:
        write_tables(str(tmp))
        (tmp / "findings.json").write_text(json.dumps(findings_doc, indent=2) + "\n", encoding="utf-8")
        (tmp / "summary.json").write_text(json.dumps(summary_doc, indent=2) + "\n", encoding="utf-8")
        old: Optional[Path] = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
            old.rmdir()
            target.rename(old)
        tmp.rename(target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"--out {out_dir}: cannot write: {e.strerror or e}") from None
    except Exception as e:  # Spark failed (no Java, a Py4J error): one line, nothing left behind
        shutil.rmtree(tmp, ignore_errors=True)
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise OutputError(f"--out {out_dir}: {first}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

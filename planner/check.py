"""`rmqplan check PATH --deploy DIR [--cluster DIR]`: lint, write the fleet the code and its deployment make, and
simulate it, then say what would go wrong in the reviewer's terms, anchored where the cause is written.

The lint findings are rmqlint's, as `rmqlint PATH` reports them. Each problem the simulation predicts for a group
the code declares becomes a finding at the code that causes it: the fixed instanceName when processes share a
client id, else the consumer's creation; and, for a deployed service whose replicas share an id, a second one at
the manifest's `replicas:` line, so a review of either change sees it. Routes' problems (PLAN004, PLAN008) are
anchored at the topic's first subscription. Every format of rmqlint is available (text, json, sarif, github),
and the exit codes are rmqlint's: 1 when a finding reaches `fail-on` (`--fail-on`, else the project's, else warning),
2 for unusable input.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from rmqplan.report.findings import SEVERITY, PlanFinding, find, queues_text
from rmqplan.sources.from_code import FleetFromCode, GroupOrigin, Place, fleet_from_code
from rmqplan.model.identity import shared_client_ids
from rmqplan.model.simulation import Simulation
from rmqplan.model.routes import is_retry_topic

SHARED_ID_CODES = ("PLAN001", "PLAN002", "PLAN007")  # what a client id that several processes report causes


@dataclass(frozen=True)
class PlanRule:
    """A PLAN code as rmqlint's reporters describe a rule (SARIF's rule descriptors, `explain`-like docs)."""

    CODE: str
    NAME: str
    SEVERITY: str
    SUMMARY: str

    @property
    def DOCS(self) -> str:  # noqa: N802 (the attribute rmqlint's rules have)
        return f"## What it does\n{self.SUMMARY}, predicted by `rmqplan check` from the code and its deployment."


PLAN_RULES = tuple(PlanRule(code, name, SEVERITY[code], summary) for code, name, summary in (
    ("PLAN001", "orphaned-queues", "Readable queues that no process of a clustering group would consume"),
    ("PLAN002", "duplicated-queues", "Queues that two or more processes of a clustering group would consume"),
    ("PLAN003", "idle-processes", "Processes that would hold no queue of a subscribed topic"),
    ("PLAN004", "unreadable-written-queues", "Written queues that no consumer can read"),
    ("PLAN005", "strategy-fails", "The allocation strategy throws, so the rebalance fails"),
    ("PLAN006", "imbalance", "A process would hold at least twice its fair share of queues"),
    ("PLAN007", "shared-offsets", "Broadcasting processes on one host share a client id, hence one offsets file"),
    ("PLAN008", "unwritten-readable-queues", "Readable queues no producer writes to"),
    ("PLAN009", "clients-disagree", "Processes whose clients compute the strategy differently would not partition "
                                    "the queues"),
))


class CheckError(Exception):
    """The inputs cannot be used: one line per problem."""

    def __init__(self, lines: Sequence[str]):
        super().__init__("\n".join(lines))
        self.lines = list(lines)


def _short(place: Place) -> str:
    return f"{os.path.basename(place.path)}:{place.line}"


def group_context(origin: GroupOrigin) -> str:
    """`group orders_cg (services/orders, Deployment orders, 3 replicas, hostNetwork, fixed instanceName at
    OrderConsumer.java:18)`."""
    parts = list(origin.modules)
    for deployed in origin.deployed:
        service = deployed.service
        replicas = service.replicas if service.replicas is not None else "unknown"
        parts.append(f"{service.kind} {service.name}, {replicas} replica{'s' if replicas != 1 else ''}"
                     + (", hostNetwork" if service.host_network and service.kind != "compose" else "")
                     + (", network_mode: host" if service.host_network and service.kind == "compose" else ""))
    if origin.live:
        parts.append("the clients connected now")
    if origin.instance_name_at is not None:
        parts.append(f"fixed instanceName at {_short(origin.instance_name_at)}")
    return f"group {origin.name} ({', '.join(parts)})"


def _detail(finding: PlanFinding, sim: Simulation) -> str:
    """What the finding predicts, said plainly; the planner's full message for the rarer codes."""
    result = next((r for r in sim.results if r.scenario == "baseline" and r.group == finding.group
                   and r.topic == finding.topic), None)
    shared = shared_client_ids(result.processes) if result is not None else {}
    sharing = "; ".join(f"{len(ps)} processes share client id {cid}"
                        + ("" if ps[0].id_source.startswith("fixed instanceName") else f" ({ps[0].id_source})")
                        for cid, ps in shared.items())
    prefix = f"{sharing}; " if sharing else ""
    if finding.code == "PLAN001":
        return f"{prefix}{queues_text(finding.queues or ())} of {finding.topic} would be consumed by nobody"
    if finding.code == "PLAN002":
        holders = max((len(ps) for ps in shared.values()), default=0)
        by = f"by all {holders} of them" if holders > 2 else "twice"
        return f"{prefix}{queues_text(finding.queues or ())} of {finding.topic} would be consumed {by if shared else 'twice or more'}"
    return finding.message


@dataclass
class CheckResult:
    findings: list  # rmqlint Finding, the lint's and the plan's
    lint: object  # rmqlint LintResult
    fleet: FleetFromCode
    fleet_text: str


def _location(place_path: str, line: int, column: int, root: Path):
    from rmqlint.facts import Location

    rel = os.path.relpath(os.path.abspath(place_path), root).replace(os.sep, "/")
    return Location(rel, line, column, line, column + 1)


def _assumed_layouts(fleet: FleetFromCode) -> dict[str, str]:
    """topic -> what a finding about its queues adds when their layout was assumed, not read from a cluster (the
    numbers are an example then: the report's note says so too)."""
    one_broker = all(not b.name.known for b in fleet.planned.brokers)
    where = "on one broker" if one_broker else "per broker"
    out = {}
    for topic in fleet.planned.topics:
        if not topic.read_queues.known:
            out[topic.name.value] = (f" (an assumed layout: {topic.read_queues.value} queues {where}; --cluster or "
                                     "--namesrv gives the real one)")
    if one_broker:
        for group in fleet.planned.groups:
            out[f"%RETRY%{group.name.value}"] = " (an assumed layout: one broker)"
    return out


def plan_findings(fleet: FleetFromCode, sim: Simulation, root: Path) -> list:
    """The simulation's baseline findings for the groups of the code, as rmqlint findings at their causes."""
    from rmqlint.findings import Finding, Related

    out = []
    subscribed_at: dict[str, Place] = {}
    for group in fleet.planned.groups:
        origin = fleet.groups.get(group.name.value)
        for sub in group.subscriptions:
            text = sub.source.source.split(" ", 1)[0]
            path, _, line = text.rpartition(":")
            if origin is not None and line.isdigit():
                subscribed_at.setdefault(sub.topic, Place(path, int(line)))
    findings = [f for f in find(sim) if f.scenario == "baseline"]
    on_topics = {(f.code, f.group) for f in findings if f.topic and not is_retry_topic(f.topic)}
    assumed = _assumed_layouts(fleet)
    for finding in findings:
        if finding.topic and is_retry_topic(finding.topic) and (finding.code, finding.group) in on_topics:
            continue  # the retry topic suffers with the group's topics: said once, on them
        origin = fleet.groups.get(finding.group) if finding.group else None
        if origin is None:
            place = subscribed_at.get(finding.topic or "")
            if place is None:
                continue
            out.append(Finding(finding.code, finding.severity, (finding.message,),
                               _location(place.path, place.line, place.column, root)))
            continue
        detail = _detail(finding, sim) + assumed.get(finding.topic or "", "")
        cause = origin.instance_name_at if finding.code in SHARED_ID_CODES and origin.instance_name_at else (
            origin.consumers[0])
        related = [Related(_location(p.path, p.line, p.column, root), "the consumer") for p in origin.consumers]
        for deployed in origin.deployed:
            replicas = deployed.service.replicas_origin
            related.append(Related(_location(replicas.path, replicas.line or 1, 1, root),
                                   f"{deployed.service.kind} {deployed.service.name}: {deployed.layout.why}"))
        out.append(Finding(finding.code, finding.severity, (f"{group_context(origin)}: {detail}",),
                           _location(cause.path, cause.line, cause.column, root), tuple(related)))
        if finding.code not in SHARED_ID_CODES:
            continue
        for deployed in origin.deployed:
            service, layout = deployed.service, deployed.layout
            if not any(h.count > 1 for h in layout.hosts):
                continue  # each replica has an IP of its own: the manifest is not the cause
            at = service.replicas_origin
            fixed = (f"; the fixed instanceName at {_short(origin.instance_name_at)}"
                     if origin.instance_name_at else "")
            out.append(Finding(finding.code, finding.severity, (
                f"{service.kind} {service.name} runs group {origin.name}: {layout.why}{fixed}: {detail}",),
                _location(at.path, at.line or 1, 1, root),
                (Related(_location(cause.path, cause.line, cause.column, root), "the cause in the code"),)))
    return out


def run_check(path: str, deploy: Sequence[str], cluster, nodes: Optional[int],
              use_cache: bool = True, fail_on: Optional[str] = None) -> CheckResult:
    """Lint `path`, build its fleet, simulate it (the exact local engine) and join the findings. `cluster` is a
    saved outputs directory, a `rmqplan.sources.cluster_source.ClusterSource` or None.
    Raises CheckError for unusable inputs (a live cluster that cannot be read among them), rmqlint's
    ConfigError/DiscoveryError for a bad lint setup."""
    from rmqplan.sources.cluster_source import ClusterSource, ClusterSourceError

    from rmqplan.sources.fleet_file import FleetError, parse_fleet_text
    from rmqplan.sources.fleet_writer import write_fleet
    from rmqplan.engines.local import simulate
    from rmqlint.engine import LintOptions, lint
    from rmqlint.findings import Finding

    if cluster is not None and not isinstance(cluster, ClusterSource):
        cluster = ClusterSource(directory=os.fspath(cluster))
    directory = cluster.directory if cluster is not None else None
    missing = [f"{p}: no such directory" for p in [path, *deploy, *([directory] if directory else [])]
               if not os.path.isdir(p)]
    if missing:
        raise CheckError(missing)
    # RMQ001 places replicas as the fleet does; fail_on None: the project's setting
    result = lint(LintOptions(paths=[Path(path)], use_cache=use_cache, nodes=nodes, fail_on=fail_on))
    try:
        fleet = fleet_from_code(path, deploy, cluster, nodes)
    except ClusterSourceError as e:
        raise CheckError([str(e)]) from None
    text = write_fleet(fleet.planned)
    if not fleet.planned.groups:
        return CheckResult(list(result.findings), result, fleet, text)
    try:
        parsed = parse_fleet_text(text, "the fleet of the code", "write it with rmqplan fleet --from-code and run "
                                  "rmqplan simulate --max-entries on it")
    except FleetError as e:  # a value the code holds that fleet.toml cannot (a bad group name...)
        raise CheckError(e.errors) from e
    sim = simulate(parsed)
    planned = plan_findings(fleet, sim, Path(result.root))
    findings = sorted([*result.findings, *planned], key=Finding.sort_key)
    return CheckResult(findings, result, fleet, text)

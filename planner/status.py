"""`rmqplan status --namesrv ADDR`: the incident happening now, from what is connected to a live cluster.

1. Read the cluster (`rmqplan.sources.live`): every connected group, its client ids (one per connection), its
   topics' routes and its consume progress; every group with none connected and consume offsets committed, and
   its progress on those topics (`rmqplan.status_report.disconnected`: every queue of them is orphaned).
2. Model it (`rmqplan.sources.from_cluster`: the fleet `rmqplan fleet --namesrv` writes, with the backlog the
   brokers report) and simulate it with the local engine: the allocation the connected clients compute now, with
   the strategy rmqplan is told (`--strategy GROUP=NAME`) or the client's default.
3. Read the consume progress again `--interval` seconds later and set the brokers' view beside the prediction
   (`rmqplan.status_report.judge`): a queue predicted to be consumed by nobody whose offset stays put while
   messages wait confirms it; one whose offset moves contradicts it (something rmqplan does not see consumes it);
   a queue predicted held whose offset stays put with messages behind contradicts it too (a stuck consumer, or
   another strategy).
4. Report (`rmqplan.status_report`): text or JSON, and `--html` the simulate report page with the brokers' view.

Exit 1 when an error-level problem (PLAN001, PLAN002, PLAN004, PLAN005, PLAN009) is live, 0 otherwise, 2 when the
cluster cannot be read (one line: the server, its address and what failed; each of the two reads has `--deadline`
seconds in all) or the options are wrong. A connection whose language is GO is a rocketmq-client-go process, modelled
with that client's naming and strategy code (`rmqplan.sources.fleet_entries`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional, TextIO

from rmqplan.model.fleet_size import MAX_ENTRIES

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
DEFAULT_INTERVAL = 6.0  # seconds between the two reads: longer than the clients' offset commit (every 5 s)


@dataclass
class StatusOptions:
    namesrv: str
    format: str = "text"
    html: Optional[str] = None
    strategies: list[str] = field(default_factory=list)  # --strategy GROUP=NAME
    groups: list[str] = field(default_factory=list)  # --group G: only these
    interval: float = DEFAULT_INTERVAL
    timeout: float = 3.0
    acl_file: Optional[str] = None
    deadline: float = 60.0  # seconds each read of the cluster may take in all
    max_entries: int = MAX_ENTRIES  # what the connected groups' fleet may hold (rmqplan.model.fleet_size)


def credentials(acl_file: Optional[str], err: TextIO):
    """The keys to sign with (`--acl-file`, else the environment), or None. Raises CredentialsError."""
    from rmqplan.sources.remoting.acl import from_environment, from_file

    return from_file(acl_file, lambda line: err.write(f"rmqplan: {line}\n")) if acl_file else from_environment()


class ModelError(Exception):
    """The connected fleet could not be modelled: its lines."""

    def __init__(self, lines: list[str]):
        super().__init__("; ".join(lines))
        self.lines = lines


def report_of(snapshot, told, only: Optional[list[str]] = None, second=None, interval: float = 0.0,
              earlier=None, max_entries: int = MAX_ENTRIES):
    """The `StatusReport` of a read: the connected groups' fleet (of `only` when given), simulated with the local
    engine, its findings, and PLAN001 for every topic of a group with none connected and offsets committed. Raises
    ModelError when the fleet written from the cluster does not parse (one line each)."""
    from rmqplan.engines.local import simulate_hand_written
    from rmqplan.report.findings import count_by_code, find
    from rmqplan.sources.fleet_file import FleetError, parse_fleet_text
    from rmqplan.sources.fleet_writer import write_fleet
    from rmqplan.sources.from_cluster import fleet_from_cluster
    from rmqplan.status_report import StatusReport, disconnected

    connected = fleet_from_cluster(snapshot, told, only=only)
    fleet = None
    if connected.groups:
        try:
            fleet = parse_fleet_text(write_fleet(connected.planned), snapshot.source,
                                     "read fewer groups at once (--group), or raise --max-entries", max_entries)
        except FleetError as e:
            raise ModelError(e.errors) from None
    sim = simulate_hand_written(fleet) if fleet is not None else None
    findings = find(sim) if sim is not None else []
    counts = count_by_code(sim, findings) if sim is not None else {}
    gone = disconnected(snapshot, only)
    if gone:
        findings = [d.finding for d in gone] + findings  # the worst first: a whole group consumed by nobody
        counts = {**counts, "PLAN001": counts.get("PLAN001", 0) + len(gone)}
    return StatusReport(snapshot, connected, sim, findings, counts, second, interval, gone, earlier)


def status_command(options: StatusOptions, out: TextIO, err: TextIO) -> int:
    from rmqplan.report.findings import has_errors
    from rmqplan.sources.from_cluster import StrategyOptionError, parse_strategy_option
    from rmqplan.sources.live import LiveCluster, LiveClusterError
    from rmqplan.sources.remoting.acl import CredentialsError
    from rmqplan.status_report import render_status_html, render_status_text, status_json
    from rmqlint.printable import printable

    if options.interval < 0 or options.timeout <= 0 or options.deadline <= 0:
        err.write("rmqplan: error: --interval must be 0 or more; --timeout and --deadline must be more than 0\n")
        return EXIT_USAGE
    only = options.groups or None
    try:
        told = parse_strategy_option(options.strategies)
        keys = credentials(options.acl_file, err)
        with LiveCluster(options.namesrv, options.timeout, keys, deadline=options.deadline) as live:
            snapshot = live.snapshot(groups=only)
            second = None
            if options.interval and snapshot.progress:
                if err.isatty():
                    err.write(f"rmqplan: reading the consume progress again in {options.interval:g} s\n")
                time.sleep(options.interval)
                second = live.progress(snapshot)
    except (StrategyOptionError, CredentialsError, LiveClusterError) as e:  # a broker's remark, names: printable
        err.write(f"rmqplan: {printable(str(e))}\n")
        return EXIT_USAGE
    try:
        report = report_of(snapshot, told, only, second, options.interval, max_entries=options.max_entries)
    except ModelError as e:
        err.write("".join(f"rmqplan: {printable(line)}\n" for line in e.lines))
        return EXIT_USAGE
    for line in report.connected.problems:
        err.write(f"rmqplan: {printable(line)}\n")
    gone = set(report.disconnected_groups())
    for name in options.groups:
        if name not in report.connected.groups and name not in gone:
            err.write(f"rmqplan: group {printable(name)}: no consumer of it is connected now, and it has no "
                      "consume offset committed\n")
    if options.html and (report.sim is not None or gone):
        from rmqplan.report.html import HtmlError, write_html

        try:
            write_html(options.html, render_status_html(report))
        except HtmlError as e:
            err.write(f"rmqplan: {printable(str(e))}\n")
            return EXIT_USAGE
    elif options.html:
        err.write(f"rmqplan: --html {options.html}: not written: no consumer group is connected\n")
    if options.format == "json":
        import json

        out.write(json.dumps(status_json(report), indent=2) + "\n")
    else:
        out.write(render_status_text(report))
    return EXIT_FINDINGS if has_errors(report.findings, report.counts) else EXIT_OK

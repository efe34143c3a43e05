"""`rmqplan`: `allocate FILE|-` (exact strategies on JSON Lines cases), `simulate --fleet F|-`, `fleet --from-code
PATH` (a fleet.toml from code, deployment and cluster; from the cluster alone without --from-code), `check PATH`
(lint + fleet + simulate), `status --namesrv ADDR` (the live cluster's allocation and its problems now) and
`explain [CODE]` (what a plan code finds, why it loses messages, an example, the fix).

Exit codes: 0 no error-level finding, 1 error-level findings (`check`: findings at or above its fail-on), 2 usage
error, bad fleet or unusable engine; `--exit-zero` makes findings 0.
`--engine auto` picks the engine (`rmqplan.engines.choice`); the Spark engine is imported only when it runs, so
the local engine and `allocate` work without Java or PySpark. On a terminal, stderr shows which engine runs and
why, and the run's progress (`rmqplan.report.progress`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Optional, Sequence, TextIO

from rmqlint.arguments import ArgumentParser
from rmqlint.printable import printable

if TYPE_CHECKING:
    from rmqplan.engines.choice import EngineChoice
    from rmqplan.model.fleet import Fleet
    from rmqplan.model.simulation import OutRequest, SimulateOptions, Simulation
    from rmqplan.report.progress import Progress

# The modules of the commands are imported by `main`, once Ctrl-C is one line (`rmqlint.output.run_command`):
# this module, which the `rmqplan` script imports before it calls `main`, imports only the standard library.

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
# --engine's help; docs/engines-and-clusters.md quotes it (tests/test_docs.py holds them together)
ENGINE_HELP = ("auto (default): the local engine for every fleet, Spark when --master or --conf is given; "
               "local: numpy, in this process (a large generated fleet also in a helper process per other usable "
               "CPU); "
               "spark: PySpark, local[*] unless --master names a cluster (needs Java 17+)")


class _Parser(ArgumentParser):
    """Usage errors: one line each, `rmqplan simulate: error: ...`, with "did you mean", exit 2."""

    error_label = "error: "


def build_parser() -> argparse.ArgumentParser:
    from rmqplan.model.fleet import DETAIL_LIMIT, FULL_RESULTS_GROUPS

    parser = _Parser(prog="rmqplan", description="Predict how RocketMQ consumer groups split their queues.")
    parser.add_argument("--version", action="version", version=f"rmqplan {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    alloc = sub.add_parser("allocate", help="run the exact allocation strategies on JSON Lines cases")
    alloc.add_argument("source", metavar="FILE|-", help="JSON Lines cases, or - for standard input")
    sim = sub.add_parser(
        "simulate", help="simulate a fleet's rebalance and report what goes wrong",
        epilog=f"A [generate] fleet of more than {FULL_RESULTS_GROUPS:,} groups is summarised: the totals and the "
               f"findings' counts cover every group, the {DETAIL_LIMIT} worst groups with a problem (errors, then "
               "warnings, then by the queues they lose) are reported in full (with their findings), and --out "
               "writes every assignment and every finding.")
    sim.add_argument("--fleet", required=True, metavar="F", help="the fleet.toml to simulate (- reads standard input)")
    sim.add_argument("--engine", choices=("auto", "local", "spark"), default="auto", help=ENGINE_HELP)
    sim.add_argument("--format", choices=("text", "json"), default="text")
    sim.add_argument("--details", action="store_true", help="after the findings, list each group and topic: its "
                                                           "counts, and who holds which queue in groups of up to 16 "
                                                           "processes and 64 queues")
    sim.add_argument("--assignments", action="store_true", help="list every process's queues (text: --details for "
                                                               "every group; JSON: each entry's instances)")
    sim.add_argument("--out", metavar="DIR", help="write every assignment and finding: Parquet tables (assignments, "
                                                 "groups, processes, brokers), findings.json (JSON Lines) and "
                                                 "summary.json")
    sim.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page: per group "
                                                   "a grid of processes against queues, scenarios beside the "
                                                   "baseline, the findings and the totals")
    sim.add_argument("--master", metavar="URL", help="Spark master (default local[*]); runs the Spark engine")
    sim.add_argument("--conf", action="extend", nargs="+", default=[], metavar="k=v",
                     help="Spark settings: --conf a=1 b=2, or --conf repeated")
    sim.add_argument("--compare-strategies", action="store_true",
                     help="run every scenario of each clustering group under AVG, AVG_BY_CIRCLE, CONSISTENT_HASH and "
                          "its own strategy: moves and problems side by side, with the fewest moves any balanced "
                          "assignment could make")
    sim.add_argument("--plan", metavar="DIR", help="write the assignments that make the fewest moves, per scenario "
                                                  "and group, as AllocateMessageQueueByConfig lists (one JSON file "
                                                  "per process, and DIR/plan.json)")
    _add_exit_zero(sim)
    _add_max_entries(sim, "the fleet")
    sim.add_argument("--balance", choices=("queues", "backlog"), default="queues",
                     help="what the fewest moves of --compare-strategies and --plan balance: queues (each process "
                          "holds its fair share of queues, default) or backlog (for the groups whose backlog the "
                          "fleet holds, from rmqplan fleet: no process holds more than its fair share of the "
                          "messages behind plus one queue's worth)")
    fleet = sub.add_parser(
        "fleet", help="write a fleet.toml from the code, its deployment and the live cluster",
        description="Write the fleet.toml that the code (rmqlint's facts: consumer groups, subscriptions, model, "
                    "strategy, instanceName), its deployment (Kubernetes manifests, docker compose) and the cluster "
                    "(saved mqadmin outputs, or a live one) describe, with a comment on every value saying where it "
                    "came from. Without --from-code: the fleet of what is connected to the cluster now, every group "
                    "with its real client ids and the messages behind on its queues.")
    fleet.add_argument("--from-code", metavar="PATH", help="the code: a repository or a directory")
    _add_sources(fleet)
    fleet.add_argument("--strategy", action="append", default=[], metavar="GROUP=NAME",
                       help="without --from-code: the strategy a group's clients run (the broker does not know it; "
                            "default AVG, the client's); NAME alone for every group; CONSISTENT_HASH:N for N virtual "
                            "nodes (repeatable)")
    fleet.add_argument("-o", "--output", metavar="FILE", help="write the fleet here (atomically) instead of stdout")
    check = sub.add_parser(
        "check", help="lint + fleet + simulate: what the code, deployed, would do to the queues",
        description="Lint PATH, write the fleet its code and deployment make, simulate it, and report the "
                    "predicted problems at the code and the manifest lines that cause them. Exit 1 when a finding "
                    "reaches the failing severity (--fail-on, else the project's [tool.rmqlint] fail-on, else "
                    "warning: errors and warnings fail, info does not), 0 otherwise or with --exit-zero, 2 for "
                    "unusable input.")
    check.add_argument("path", metavar="PATH", help="the code: a repository or a directory")
    _add_sources(check)
    check.add_argument("--format", choices=("text", "concise", "json", "sarif", "github"), default="text",
                       help="text (default): per finding its line, the code around it with the place underlined "
                            "and the places it cites; concise: one line per finding")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write rmqlint's facts cache")
    check.add_argument("--fail-on", choices=("error", "warning", "info"), default=None,
                       help="lowest severity that makes the exit status 1 (default: the project's [tool.rmqlint] "
                            "fail-on, else warning, as rmqlint)")
    _add_exit_zero(check)
    status = sub.add_parser(
        "status", help="the live cluster now: who holds which queue, what is orphaned or held twice, and the backlog",
        description="Read a live cluster over RocketMQ's protocol (read-only requests), compute the allocation its "
                    "connected clients compute now, report orphaned and doubly held queues with the messages behind "
                    "on them, and what the brokers' consume offsets (read twice, --interval apart) confirm or "
                    "contradict. Exit 1 when an error-level problem is live, 2 when the cluster cannot be read.")
    status.add_argument("--namesrv", required=True, metavar="ADDR", help="name server(s): host:port, or "
                                                                          "host:port;host:port tried in turn")
    status.add_argument("--format", choices=("text", "json"), default="text")
    status.add_argument("--html", metavar="FILE", help="also write the report page (simulate's), with the live "
                                                      "problems and the brokers' view")
    status.add_argument("--strategy", action="append", default=[], metavar="GROUP=NAME",
                        help="the strategy a group's clients run (the broker does not know it; default AVG, the "
                             "client's); NAME alone for every group; CONSISTENT_HASH:N for N virtual nodes")
    status.add_argument("--group", action="append", default=[], metavar="G", help="only this group (repeatable)")
    status.add_argument("--interval", type=float, default=6.0, metavar="SECONDS",
                        help="read the consume offsets again after this long to see them move (default 6, longer "
                             "than the clients' 5 s offset commit); 0 reads them once")
    _add_connection(status)
    _add_exit_zero(status)
    _add_max_entries(status, "the connected groups' fleet")
    watch = sub.add_parser(
        "watch", help="status as a service: Prometheus /metrics, the report page and a line per change",
        description="Read a live cluster as status does, every --interval seconds, and serve /metrics (the "
                    "Prometheus text format: orphaned and doubly held queues with their backlog, connections, shared "
                    "client ids, dead letters, the reads' health), / (the report page, with what changed on top) and "
                    "/healthz. Each change of a group (a client joined or left, queues lost their owner or got a "
                    "second one, a problem appeared or cleared) is one line on standard output. A read that fails "
                    "keeps the last good one, marked stale. SIGTERM or Ctrl-C stop it.")
    watch.add_argument("--namesrv", required=True, metavar="ADDR", help="name server(s): host:port, or "
                                                                         "host:port;host:port tried in turn")
    watch.add_argument("--listen", default="127.0.0.1:5558", metavar="HOST:PORT",
                       help="where to serve (default 127.0.0.1:5558: this host only; 0.0.0.0:5558 for every "
                            "interface, as in a container)")
    watch.add_argument("--interval", type=float, default=15.0, metavar="SECONDS",
                       help="seconds between the starts of two reads (default 15); a read that takes longer is "
                            "followed by the next at once")
    watch.add_argument("--strategy", action="append", default=[], metavar="GROUP=NAME",
                       help="the strategy a group's clients run (as for status)")
    watch.add_argument("--group", action="append", default=[], metavar="G", help="only this group (repeatable)")
    _add_connection(watch)
    _add_max_entries(watch, "the connected groups' fleet")
    explain = sub.add_parser("explain", help="what a plan code finds, why it loses messages, an example, the fix",
                             description="Print a plan code's documentation; without CODE, list the codes.")
    explain.add_argument("code", nargs="?", metavar="CODE", help="PLAN001, or its name (orphaned-queues)")
    return parser


def _version() -> str:
    from rmqlint.cache import package_version

    return package_version()


def _add_exit_zero(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when findings would make it 1 (2 still means unusable input)")


def _exit_status(args: argparse.Namespace, code: int) -> int:
    """The exit status: findings (1) are 0 with --exit-zero."""
    return EXIT_OK if code == EXIT_FINDINGS and getattr(args, "exit_zero", False) else code


def _at_least_one(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {value}")
    return value


def _add_max_entries(parser: argparse.ArgumentParser, what: str) -> None:
    from rmqplan.model.fleet_size import MAX_ENTRIES

    parser.add_argument("--max-entries", type=_at_least_one, default=MAX_ENTRIES, metavar="N",
                        help=f"the most processes, queues and assignments (over every state) {what} may hold to be "
                             f"simulated (default {MAX_ENTRIES:,}: about 300 MB; about 4,000 groups of a few "
                             "processes each); a larger one exits 2 unless this is raised")


def _add_connection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS",
                        help="how long to wait for each answer (default 3)")
    parser.add_argument("--deadline", type=float, default=60.0, metavar="SECONDS",
                        help="how long reading the cluster may take in all, every request to every server (default "
                             "60); status reads twice, each read with its own")
    parser.add_argument("--acl-file", metavar="FILE",
                        help="sign requests for a cluster with access control with the keys of FILE (the Java "
                             "client's key file: AccessKey=..., SecretKey=...); without it, RMQPLAN_ACCESS_KEY and "
                             "RMQPLAN_SECRET_KEY when set. Keys are never taken from the command line")


def _add_sources(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deploy", action="append", default=[], metavar="DIR",
                        help="Kubernetes manifests and docker-compose files, searched recursively (repeatable)")
    parser.add_argument("--cluster", metavar="DIR", help="saved mqadmin outputs: topicRoute-<Topic>.json, "
                                                          "clusterList.txt, consumerConnection-<group>.txt, "
                                                          "consumerProgress-<group>.txt")
    parser.add_argument("--namesrv", metavar="ADDR", help="a live cluster instead of saved outputs: its name "
                                                         "server(s), host:port;host:port (read-only requests)")
    parser.add_argument("--nodes", type=int, metavar="N", help="the nodes replicas on host networking are spread "
                                                               "over (default: the worst case, all on one node)")
    _add_connection(parser)


def main(argv: Optional[Sequence[str]] = None) -> int:
    from rmqlint.output import run_command

    args = list(sys.argv[1:] if argv is None else argv)
    sys.exit(run_command("rmqplan", lambda: run(args, sys.stdout, sys.stderr)))


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    parser = build_parser()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # --help and usage to our streams
            args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help is 0, a usage error 2
        return int(e.code or 0)
    if args.command == "allocate":
        from rmqplan.allocate import run as run_allocate

        return run_allocate(args.source, out, err)
    if args.command == "simulate":
        from rmqplan.model.simulation import SimulateOptions

        options = SimulateOptions(engine=args.engine, format=args.format, assignments=args.assignments,
                                  details=args.details,
                                  out=args.out, html=args.html, master=args.master, conf=tuple(args.conf),
                                  compare_strategies=args.compare_strategies, plan=args.plan,
                                  balance=args.balance, max_entries=args.max_entries)
        return _exit_status(args, simulate_command(args.fleet, options, out, err))
    if args.command == "explain":
        return explain_command(args.code, out, err)
    if args.command in ("fleet", "check"):
        if args.nodes is not None and args.nodes < 1:
            err.write("rmqplan: error: --nodes must be 1 or more\n")
            return EXIT_USAGE
        if args.timeout <= 0 or args.deadline <= 0:
            err.write("rmqplan: error: --timeout and --deadline must be more than 0\n")
            return EXIT_USAGE
        if args.cluster is not None and args.namesrv is not None:
            err.write("rmqplan: error: --cluster DIR and --namesrv ADDR both describe the cluster: give one\n")
            return EXIT_USAGE
        from rmqplan.check_cli import ClusterSource, check_command, fleet_command

        source = ClusterSource(args.cluster, args.namesrv, args.timeout, args.acl_file, args.deadline,
                               lambda line: err.write(f"rmqplan: {line}\n"))
        if args.command == "fleet":
            if args.from_code is None:
                if args.cluster is None and args.namesrv is None:
                    err.write("rmqplan: error: fleet needs --from-code PATH, or a cluster (--namesrv ADDR or "
                              "--cluster DIR) to write what is connected to it\n")
                    return EXIT_USAGE
                if args.deploy or args.nodes is not None:
                    err.write("rmqplan: error: --deploy and --nodes describe where the code runs: they need "
                              "--from-code\n")
                    return EXIT_USAGE
                from rmqplan.check_cli import connected_fleet_command

                return connected_fleet_command(source, args.strategy, args.output, out, err)
            if args.strategy:
                err.write("rmqplan: error: --strategy is for the fleet of a cluster alone: with --from-code the "
                          "strategy is the code's\n")
                return EXIT_USAGE
            return fleet_command(args.from_code, args.deploy, source, args.nodes, args.output, out, err)
        return _exit_status(args, check_command(args.path, args.deploy, source, args.nodes, args.format,
                                                not args.no_cache, out, err, fail_on=args.fail_on))
    if args.command == "status":
        from rmqplan.status import StatusOptions, status_command

        return _exit_status(args, status_command(StatusOptions(
            args.namesrv, args.format, args.html, args.strategy, args.group, args.interval, args.timeout,
            args.acl_file, args.deadline, args.max_entries), out, err))
    if args.command == "watch":
        from rmqplan.watch import WatchOptions, watch_command

        return watch_command(WatchOptions(args.namesrv, args.listen, args.interval, args.strategy, args.group,
                                          args.timeout, args.acl_file, args.deadline, args.max_entries), out, err)
    parser.print_usage(err)
    err.write("rmqplan: error: a command is required (allocate, simulate, fleet, check, status, watch or explain)\n")
    return EXIT_USAGE


def explain_command(code: Optional[str], out: TextIO, err: TextIO) -> int:
    from rmqplan.report.codes import CODES, code_named

    if code is None:
        width = max(len(c.name) for c in CODES)
        out.write("".join(f"{c.code}  {c.name:<{width}}  {c.severity:<7}  {c.summary}\n" for c in CODES))
        return EXIT_OK
    found = code_named(code)
    if found is None:
        err.write(f"rmqplan: unknown code {code!r} (rmqplan explain lists them: "
                  f"{', '.join(c.code for c in CODES)})\n")
        return EXIT_USAGE
    out.write(f"# {found.code} {found.name} ({found.severity})\n\n{found.summary}\n\n{found.docs.strip()}\n")
    return EXIT_OK


def simulate_command(fleet_path: str, options: SimulateOptions, out: TextIO, err: TextIO) -> int:
    from rmqplan.engines.choice import SPARK_EXTRA, choose_engine, spark_installed
    from rmqplan.report.progress import Progress
    from rmqplan.sources.fleet_file import FleetError, load_fleet

    progress = Progress.for_stream(err)
    progress.phase(f"reading {fleet_path}")
    try:
        fleet = load_fleet(fleet_path, max_entries=options.max_entries)
    except FleetError as e:
        progress.close()
        for line in e.errors:  # a line may quote the fleet's names: printable
            err.write(f"rmqplan: {printable(line)}\n")
        return EXIT_USAGE
    choice = choose_engine(fleet, options.engine, options.master, options.conf, out=bool(options.out))
    if choice.engine == "spark" and not spark_installed():
        progress.close()
        local = "" if options.engine == "spark" else ", or --engine local"
        return _engine_error(err, f"{choice.describe()} needs PySpark, which is not installed: {SPARK_EXTRA}{local}")
    options = replace(options, engine=choice.engine)
    progress.phase(f"starting the {choice.engine} engine")
    if choice.engine == "spark" or options.format != "text" or (choice.expected_seconds or 0) >= 1:
        progress.note(f"rmqplan: {choice.describe()}")  # else the text report's first line says it at once
    try:
        return _simulate_and_report(fleet, options, choice, progress, out, err)
    finally:
        progress.close()


def _simulate_and_report(fleet: Fleet, options: SimulateOptions, choice: EngineChoice, progress: Progress,
                         out: TextIO, err: TextIO) -> int:
    if not options.out:
        sim = _simulate(fleet, options, None, err, progress)
        if isinstance(sim, int):
            return sim
        return _report(sim, options, choice, out, err, progress)
    from rmqplan.model.simulation import OutRequest
    from rmqplan.report.findings import find_by_result
    from rmqplan.report.render import Abandoned, OutputError, out_directory, summary_json, write_summary

    try:
        with out_directory(options.out) as staging:  # all or nothing: moved into place when the block succeeds
            sim = _simulate(fleet, options, OutRequest(str(staging), find_by_result), err, progress)
            if isinstance(sim, int):
                raise Abandoned(sim)
            write_summary(staging, summary_json(sim, options.engine))
    except Abandoned as failed:
        return failed.code
    except OutputError as e:
        progress.close()
        return _engine_error(err, str(e))
    return _report(sim, options, choice, out, err, progress)


def _simulate(fleet: Fleet, options: SimulateOptions, request: Optional[OutRequest], err: TextIO,
              progress: Progress) -> Simulation | int:
    from rmqplan.engines.choice import SPARK_EXTRA

    if options.out and request is not None:
        try:
            import pyarrow  # noqa: F401  (the tables are written with it)
        except ImportError as e:
            return _engine_error(err, f"--out writes Parquet with pyarrow, which is not installed ({e}): "
                                      f"{SPARK_EXTRA}, or pip install pyarrow")
    if options.engine == "local":
        from rmqplan.engines.local import simulate

        live = progress.live
        return simulate(fleet, request, progress.groups if live else None, phase=progress.phase if live else None)
    progress.phase(None)  # Spark's stages from here (`StatusWatcher`)
    return _spark_simulate(fleet, options, request, err, progress)


def _engine_error(err: TextIO, message: str) -> int:
    err.write(f"rmqplan: {printable(message)}\n")
    return EXIT_USAGE


def _spark_simulate(fleet: Fleet, options: SimulateOptions, request: Optional[OutRequest],
                    err: TextIO, progress: Progress) -> Simulation | int:
    from rmqplan.engines.choice import SPARK_EXTRA

    try:
        from rmqplan.engines import spark
        from rmqplan.engines.spark_session import SparkUnavailable, StatusWatcher
    except ImportError as e:
        return _engine_error(err, f"the Spark engine is not available ({e}): {SPARK_EXTRA}, or --engine local")
    try:
        if not progress.live:
            return spark.simulate(fleet, options, request)
        with StatusWatcher(lambda text: progress.status(text, force=True)):
            return spark.simulate(fleet, options, request)
    except SparkUnavailable as e:
        return _engine_error(err, str(e))


def _report(sim: Simulation, options: SimulateOptions, choice: EngineChoice, out: TextIO, err: TextIO,
            progress: Progress) -> int:
    """The report on stdout (and --html): made while the progress line says so, written once it is erased."""
    from rmqplan.report.findings import count_by_code, find, has_errors
    from rmqplan.report.render import render_text, report_width, to_json, write_json

    strategies = None
    if options.compare_strategies or options.plan:
        from rmqplan.compare import strategies_report

        progress.phase("comparing strategies")
        strategies = strategies_report(sim.fleet, options)
        if isinstance(strategies, str):
            progress.close()
            return _engine_error(err, strategies)
    progress.phase("finding problems")
    findings = find(sim)
    counts = count_by_code(sim, findings)
    if options.html:
        from rmqplan.report.html import HtmlError, render_html, write_html
        from rmqplan.report.render import totals

        progress.phase(f"writing {options.html}")
        try:
            page = render_html(sim, findings, counts, totals(sim), choice.describe(False), options.out,
                               strategies=strategies.comparisons if strategies and strategies.compared else None)
            write_html(options.html, page)
        except HtmlError as e:
            progress.close()
            return _engine_error(err, str(e))
    progress.phase("writing the report")
    if options.format == "json":
        doc = to_json(sim, findings, assignments=options.assignments, counts=counts, out_dir=options.out)
        progress.close()
        write_json({**doc, **(strategies.json() if strategies else {})}, out)
        return EXIT_FINDINGS if has_errors(findings, counts) else EXIT_OK
    else:
        text = render_text(sim, findings, engine=choice.describe(False), assignments=options.assignments,
                           details=options.details, counts=counts, out_dir=options.out, width=report_width(out))
        text += "".join(line + "\n" for line in strategies.text(report_width(out))) if strategies else ""
    progress.close()
    out.write(text)
    return EXIT_FINDINGS if has_errors(findings, counts) else EXIT_OK


if __name__ == "__main__":
    main()

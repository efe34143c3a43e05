"""`rmqplan`: `allocate FILE|-` (exact strategies on JSON Lines cases) and `simulate --fleet F` (DESIGN §6).

Exit codes: 0 no error-level finding, 1 error-level findings, 2 usage error, bad fleet or unusable engine.
The Spark engine is imported only when asked for, so `--engine local` and `allocate` work without Java.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Optional, Sequence, TextIO

from planner.fleet import FleetError, load_fleet
from planner.model import DETAIL_LIMIT, FULL_RESULTS_GROUPS, Fleet, OutRequest, SimulateOptions, Simulation

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, like every other usage error
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rmqplan", description="Predict how RocketMQ consumer groups split their queues.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    alloc = sub.add_parser("allocate", help="run the exact allocation strategies on JSON Lines cases")
    alloc.add_argument("source", metavar="FILE|-", help="JSON Lines cases, or - for standard input")
    sim = sub.add_parser(
        "simulate", help="simulate a fleet's rebalance and report what goes wrong",
        epilog=f"A [generate] fleet of more than {FULL_RESULTS_GROUPS:,} groups is summarised: the totals and the "
               f"findings' counts cover every group, the first {DETAIL_LIMIT} groups with a problem are reported in "
               "full (with their findings), and --out writes every assignment and every finding.")
    sim.add_argument("--fleet", required=True, metavar="F", help="the fleet.toml to simulate")
    sim.add_argument("--engine", choices=("spark", "local"), default="spark",
                     help="spark (default; needs Java 17+) or the exact pure-Python local engine")
    sim.add_argument("--format", choices=("text", "json"), default="text")
    sim.add_argument("--assignments", action="store_true", help="list every process's queues")
    sim.add_argument("--out", metavar="DIR", help="write every assignment and finding: Parquet tables (assignments, "
                                                 "groups, processes, brokers), findings.json (JSON Lines) and "
                                                 "summary.json")
    sim.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    sim.add_argument("--conf", action="extend", nargs="+", default=[], metavar="k=v",
                     help="Spark settings: --conf a=1 b=2, or --conf repeated")
    sim.add_argument("--compare-strategies", action="store_true",
                     help="run every scenario of each clustering group under AVG, AVG_BY_CIRCLE, CONSISTENT_HASH and "
                          "its own strategy: moves and problems side by side, with the fewest moves any balanced "
                          "assignment could make")
    sim.add_argument("--plan", metavar="DIR", help="write the assignments that make the fewest moves, per scenario "
                                                  "and group, as AllocateMessageQueueByConfig lists (one JSON file "
                                                  "per process, and DIR/plan.json)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    code = run(list(sys.argv[1:] if argv is None else argv), sys.stdout, sys.stderr)
    sys.exit(code)


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    parser = build_parser()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # --help and usage to our streams
            args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help is 0, a usage error 2
        return int(e.code or 0)
    if args.command == "allocate":
        from planner.allocate import run as run_allocate

        return run_allocate(args.source, out, err)
    if args.command == "simulate":
        options = SimulateOptions(engine=args.engine, format=args.format, assignments=args.assignments,
                                  out=args.out, master=args.master, conf=tuple(args.conf),
                                  compare_strategies=args.compare_strategies, plan=args.plan)
        return simulate_command(args.fleet, options, out, err)
    parser.print_usage(err)
    err.write("rmqplan: error: a command is required (allocate or simulate)\n")
    return EXIT_USAGE


def simulate_command(fleet_path: str, options: SimulateOptions, out: TextIO, err: TextIO) -> int:
    try:
        fleet = load_fleet(fleet_path)
    except FleetError as e:
        for line in e.errors:
            err.write(line + "\n")
        return EXIT_USAGE
    if not options.out:
        sim = _simulate(fleet, options, None, err)
        return sim if isinstance(sim, int) else _report(sim, options, out, err)
    from planner.findings import find
    from planner.report import Abandoned, OutputError, out_directory, summary_json, write_summary

    try:
        with out_directory(options.out) as staging:  # all or nothing: moved into place when the block succeeds
            sim = _simulate(fleet, options, OutRequest(str(staging), find), err)
            if isinstance(sim, int):
                raise Abandoned(sim)
            write_summary(staging, summary_json(sim, options.engine))
    except Abandoned as failed:
        return failed.code
    except OutputError as e:
        return _engine_error(err, str(e))
    return _report(sim, options, out, err)


def _simulate(fleet: Fleet, options: SimulateOptions, request: Optional[OutRequest], err: TextIO) -> Simulation | int:
    if options.out and request is not None:
        try:
            import pyarrow  # noqa: F401  (the tables are written with it)
        except ImportError as e:
            return _engine_error(err, f"--out needs pyarrow to write Parquet ({e})")
    if options.engine == "local":
        from planner.local import simulate

        return simulate(fleet, request)
    return _spark_simulate(fleet, options, request, err)


def _engine_error(err: TextIO, message: str) -> int:
    err.write(f"rmqplan: {message}\n")
    return EXIT_USAGE


def _spark_simulate(fleet: Fleet, options: SimulateOptions, request: Optional[OutRequest],
                    err: TextIO) -> Simulation | int:
    try:
        from planner import spark
        from planner.spark_session import SparkUnavailable
    except ImportError as e:
        return _engine_error(err, f"the Spark engine is not available ({e}); use --engine local")
    try:
        return spark.simulate(fleet, options, request)
    except SparkUnavailable as e:
        return _engine_error(err, str(e))


def _report(sim: Simulation, options: SimulateOptions, out: TextIO, err: TextIO) -> int:
    from planner.findings import count_by_code, find, has_errors
    from planner.report import render_text, to_json

    strategies = None
    if options.compare_strategies or options.plan:
        from planner.compare import strategies_report

        strategies = strategies_report(sim.fleet, options)
        if isinstance(strategies, str):
            return _engine_error(err, strategies)
    findings = find(sim)
    counts = count_by_code(sim, findings)
    if options.format == "json":
        doc = to_json(sim, findings, assignments=options.assignments, counts=counts, out_dir=options.out)
        out.write(json.dumps({**doc, **(strategies.json() if strategies else {})}, indent=2) + "\n")
    else:
        out.write(render_text(sim, findings, engine=options.engine, assignments=options.assignments,
                              counts=counts, out_dir=options.out))
        out.write("".join(line + "\n" for line in strategies.text()) if strategies else "")
    return EXIT_FINDINGS if has_errors(findings, counts) else EXIT_OK


if __name__ == "__main__":
    main()

"""The `rmqplan fleet` and `rmqplan check` commands: arguments in, one report out, rmqlint's exit codes.

The cluster is a `ClusterSource`: saved mqadmin outputs (`--cluster DIR`) or the live cluster (`--namesrv ADDR`);
a live cluster that cannot be read is one line and exit 2, and nothing is written. Lines on stderr quote names from
the code, the file system and the cluster: `printable` keeps each one line, without control characters."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Optional, Sequence, TextIO

from rmqplan.sources.cluster_source import ClusterSource
from rmqlint.printable import printable

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _missing(paths: Sequence[Optional[str]]) -> list[str]:
    return [f"rmqplan: {printable(p)}: no such directory" for p in paths if p is not None and not os.path.isdir(p)]


def _config_errors(error: Exception, code: str) -> str:
    """rmqlint's configuration errors and, beside them, what is wrong in the code's [tool.rmqplan] table, so that one
    run lists every problem of the settings (the [tool.rmqplan] ones alone are reported and the run goes on)."""
    from pathlib import Path

    from rmqplan.sources.services import configured_nodes, explicit_services
    from rmqlint.output import first_errors

    pyproject = Path(code) / "pyproject.toml"
    lines = list(getattr(error, "lines", None) or str(error).splitlines())
    for problems in (explicit_services(pyproject)[1], configured_nodes(pyproject)[1]):
        lines += [str(p) for p in problems if str(p) not in lines]
    return "".join(f"rmqplan: {printable(line)}\n" for line in first_errors(lines))


def fleet_command(code: str, deploy: Sequence[str], cluster: ClusterSource, nodes: Optional[int],
                  output: Optional[str], out: TextIO, err: TextIO) -> int:
    from rmqplan.sources.cluster_source import ClusterSourceError
    from rmqplan.sources.from_code import fleet_from_code
    from rmqlint.config import ConfigError
    from rmqlint.discover import DiscoveryError

    missing = _missing([code, *deploy, cluster.directory])
    if missing:
        err.write("\n".join(missing) + "\n")
        return EXIT_USAGE
    try:
        result = fleet_from_code(code, deploy, cluster, nodes)
    except ConfigError as e:
        err.write(_config_errors(e, code))
        return EXIT_USAGE
    except (DiscoveryError, ClusterSourceError) as e:  # one line each
        err.write(f"rmqplan: {printable(str(e))}\n")
        return EXIT_USAGE
    for line in result.problems:
        err.write(f"rmqplan: {printable(str(line))}\n")
    if not result.planned.groups:
        if result.left_out:
            err.write(printable(f"rmqplan: {code}: no fleet written: every consumer group found ({result.left_out}) "
                                "was left out") + "\n")
        else:
            err.write(f"rmqplan: {printable(code)}: no consumer group of a remoting client (push or lite pull) found "
                      "in the code\n")
        return EXIT_USAGE
    return _write(result.planned, output, out, err)


def _write(planned, output: Optional[str], out: TextIO, err: TextIO) -> int:
    """The fleet to `output` (checked first, written atomically) or stdout; exit 2 with its errors if the planner
    would not take it."""
    from rmqplan.sources.fleet_file import FleetError, parse_fleet_text
    from rmqplan.sources.fleet_writer import save_fleet, write_fleet

    try:
        if output:
            save_fleet(planned, output)
            from rmqplan.model.words import count

            err.write(f"rmqplan: wrote {printable(output)}: {count(len(planned.groups), 'group')}, "
                      f"{count(len(planned.topics), 'topic')}\n")
        else:
            text = write_fleet(planned)
            parse_fleet_text(text, "the written fleet", max_entries=sys.maxsize)  # simulate weighs it, not fleet
            out.write(text)
    except FleetError as e:
        for line in e.errors:
            err.write(f"rmqplan: {printable(line)}\n")
        return EXIT_USAGE
    except OSError as e:
        err.write(f"rmqplan: {printable(output or '')}: {e.strerror or e}\n")
        return EXIT_USAGE
    return EXIT_OK


def connected_fleet_command(cluster: ClusterSource, strategies: Sequence[str], output: Optional[str], out: TextIO,
                            err: TextIO) -> int:
    """`rmqplan fleet --namesrv ADDR` (or `--cluster DIR`) without code: every connected group, by the client ids
    its processes report now. A group with none connected and offsets committed has no process to write: its
    queues, every one orphaned, are PLAN001 lines, and the exit status 1."""
    from rmqplan.sources.cluster_source import ClusterSourceError
    from rmqplan.sources.from_cluster import StrategyOptionError, fleet_from_cluster, parse_strategy_option
    from rmqplan.status_report import disconnected

    missing = _missing([cluster.directory])
    if missing:
        err.write("\n".join(missing) + "\n")
        return EXIT_USAGE
    try:
        told = parse_strategy_option(list(strategies))
        snapshot = cluster.read()
    except (StrategyOptionError, ClusterSourceError) as e:  # a broker's remark, names: printable
        err.write(f"rmqplan: {printable(str(e))}\n")
        return EXIT_USAGE
    result = fleet_from_cluster(snapshot, told)
    for line in [*map(str, snapshot.problems), *result.problems]:
        err.write(f"rmqplan: {printable(line)}\n")
    gone = disconnected(snapshot)
    for d in gone:
        err.write(f"rmqplan: {d.finding.severity} {d.finding.code} {printable(d.finding.message)}\n")
    if not result.planned.groups:
        err.write(f"rmqplan: no fleet written: no consumer group is connected to {printable(snapshot.source)} now\n")
        return EXIT_FINDINGS if gone else EXIT_USAGE
    written = _write(result.planned, output, out, err)
    return EXIT_FINDINGS if gone and written == EXIT_OK else written


def check_command(path: str, deploy: Sequence[str], cluster: ClusterSource, nodes: Optional[int], fmt: str,
                  use_cache: bool, out: TextIO, err: TextIO, fail_on: Optional[str] = None) -> int:
    from rmqplan.check import PLAN_RULES, CheckError, run_check
    from rmqlint.config import ConfigError
    from rmqlint.discover import DiscoveryError
    from rmqlint.reporters import render

    try:
        result = run_check(path, deploy, cluster, nodes, use_cache=use_cache, fail_on=fail_on)
    except CheckError as e:
        err.write("".join(f"rmqplan: {printable(line)}\n" for line in e.lines))
        return EXIT_USAGE
    except ConfigError as e:
        err.write(_config_errors(e, path))
        return EXIT_USAGE
    except DiscoveryError as e:  # one line
        err.write(f"rmqplan: {printable(str(e))}\n")
        return EXIT_USAGE
    for line in result.fleet.problems:
        err.write(f"rmqplan: {printable(str(line))}\n")
    # the files checked: the code's and the manifests running workloads, which findings are anchored at too (not
    # rmqlint's count of build and deployment files under PATH, which would count those manifests twice)
    report = dataclasses.replace(result.lint, findings=result.findings, failing=None,
                                 files_checked=result.lint.files_checked + result.fleet.manifests, others_checked=0,
                                 rules=[*result.lint.rules, *PLAN_RULES],
                                 assumptions=result.fleet.assumptions if result.fleet.planned.groups else [])
    out.write(render(fmt, report))
    return EXIT_FINDINGS if report.failed() else EXIT_OK

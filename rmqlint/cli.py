"""The `rmqlint` command.

    rmqlint [PATH ...] [--format text|concise|json|sarif|github] [--statistics] [--select CODES] [--ignore CODES]
            [--fail-on error|warning|info] [--exit-zero] [--no-cache] [--fix [--unsafe-fixes] | --diff]
            [--baseline FILE] [--write-baseline FILE] [--add-suppressions]
    rmqlint rules              the rule table: code, name, severity, summary
    rmqlint explain [CODE]     a rule's documentation; without CODE, the codes
    rmqlint graph [PATH] [--format mermaid|dot|graphml|json] [-o FILE]
                               producers -> topics and tags -> consumer groups -> services

Exit status: 0 no finding at or above the failing severity, 1 findings, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# The modules of the commands are imported once Ctrl-C is one line (`rmqlint.output.run_command`): this module,
# which the `rmqlint` script imports before it calls `main`, imports only the standard library.

_EPILOG = """\
commands:
  rmqlint rules            list the rules (code, name, severity, summary)
  rmqlint explain [CODE]   print a rule's documentation (CODE: RMQ001, or its name: fixed-instance-name);
                           without CODE, list the codes
  rmqlint graph [PATH]     the topology: producers -> topics and tags -> consumer groups -> services
                           (--format mermaid|dot|graphml|json, -o FILE)
  ('rules', 'explain' and 'graph' as the first argument are these commands; to lint a directory of that name,
  write ./rules)

The whole project (the nearest directory above PATH holding .git, pyproject.toml or .rmqlint.toml) is indexed, so
constants and producers in other files are seen; findings are reported for PATH only, and those elsewhere that
cite a file of PATH (a client release, a manifest, a producer that caused them). A git repository or a
directory with .rmqlint.toml or [tool.rmqlint] below it is a project of its own, linted alone. Paths print
relative to the current directory (absolute outside it). Settings come from
[tool.rmqlint] in pyproject.toml or from .rmqlint.toml (select, ignore, exclude, fail-on, tests); options override
them. Test sources (src/test/, tests/, test_*.py, *_test.py) report only RMQ011 unless tests = "lint".
A comment 'rmqlint: disable=RMQ001' silences a code on its own line and the next.

fixes: a finding that can be fixed says so (JSON "fix", SARIF "fixes", [*] in text for a safe one; the text
summary counts them). Safe fixes do what the finding says is meant and nothing else; unsafe ones change behaviour
beyond it (--unsafe-fixes).
--fix writes them (atomically; every fixed file still parses) and reports what is left; --diff prints them.
adopting: --write-baseline FILE records today's findings, --baseline FILE then reports only new ones (entries
match by code, file and fingerprint, so moved code stays matched); --add-suppressions writes the comments instead.
See docs/rmqlint-fixes.md.

exit status: 0 no finding at or above --fail-on (or --exit-zero), 1 findings, 2 usage or configuration error; with
--diff, 1 when something would change, else 0.
"""


def _parser(**settings) -> argparse.ArgumentParser:
    """A parser whose usage errors are one line each, `rmqlint: ...`, with "did you mean", exit 2."""
    from rmqlint.arguments import ArgumentParser

    return ArgumentParser(**settings)


def _codes(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def build_parser() -> argparse.ArgumentParser:
    from rmqlint.findings import SEVERITIES
    from rmqlint.reporters import FORMATS

    parser = _parser(
        prog="rmqlint",
        description="Find Apache RocketMQ client misuse that loses or duplicates messages.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to report on (default: .)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="output format (default: text: per finding its line, the code around it with the "
                             "place underlined, the places it cites and what its fix does, [*] when --fix fixes "
                             "it; concise: one line per finding)")
    parser.add_argument("--statistics", action="store_true",
                        help="print only the number of findings per code (most frequent first, [*] when --fix "
                             "fixes some) and the summary")
    parser.add_argument("--select", type=_codes, metavar="CODES",
                        help="comma-separated codes or prefixes to enable (e.g. RMQ001,RMQ00); default: all")
    parser.add_argument("--ignore", type=_codes, metavar="CODES", help="comma-separated codes or prefixes to disable")
    parser.add_argument("--fail-on", choices=tuple(reversed(SEVERITIES)), default=None,
                        help="lowest severity that makes the exit status 1 (default: warning, so errors and "
                             "warnings fail and info notes such as RMQ900 do not)")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when findings reach --fail-on (2 still means a usage or configuration "
                             "error)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write .rmqlint_cache/")
    fixing = parser.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true",
                        help="apply the safe fixes, then report what is left (the files still parse; nothing "
                             "outside PATH is touched)")
    fixing.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --diff, also the fixes that change behaviour beyond the finding "
                             "(a consumer's client id)")
    fixing.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff (git apply reads it) and change nothing; exit 1 "
                             "when something would change, else 0")
    adopting = parser.add_argument_group("adopting rmqlint in a codebase with findings")
    adopting.add_argument("--baseline", metavar="FILE",
                          help="report only the findings FILE does not hold (matched by code, file and "
                               "fingerprint, not by line)")
    adopting.add_argument("--write-baseline", metavar="FILE",
                          help="record today's findings in FILE (fixed ones drop out; entries of files not "
                               "linted now stay)")
    adopting.add_argument("--add-suppressions", action="store_true",
                          help="write 'rmqlint: disable=CODE' comments above each finding's line (with --diff: "
                               "print them instead)")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="print the version and exit")
    return parser


class _VersionAction(argparse.Action):
    """--version, looked up only when asked for (a lint run needs no version string)."""

    def __call__(self, parser, namespace, values, option_string=None):
        _emit(f"rmqlint {_version()}\n")
        parser.exit(0)


def _version() -> str:
    from rmqlint.cache import package_version

    return package_version()


def main(argv: list[str] | None = None) -> int:
    from rmqlint.output import run_command

    argv = list(sys.argv[1:] if argv is None else argv)
    return run_command("rmqlint", lambda: _main(argv))


def _main(argv: list[str]) -> int:
    from rmqlint.output import OutputFailed

    try:
        if argv and argv[0] == "rules":
            return _rules_command(argv[1:])
        if argv and argv[0] == "explain":
            return _explain_command(argv[1:])
        if argv and argv[0] == "graph":
            return _graph_command(argv[1:])
        return _lint_command(argv)
    except SystemExit as stop:  # argparse: --help, --version, usage errors (already printed)
        return stop.code if isinstance(stop.code, int) else 2
    except OutputFailed:
        raise  # one line and exit 2 (rmqlint.output.run_command), as are SIGINT and SIGTERM (exit 130, 143)
    except Exception as err:  # last resort: a bug in rmqlint is one line, not a traceback
        _emit_err(f"rmqlint: internal error: {type(err).__name__}: {err} (please report this)")
        return 2


def _lint_command(argv: list[str]) -> int:
    from rmqlint.baseline import BaselineError
    from rmqlint.config import ConfigError
    from rmqlint.discover import DiscoveryError
    from rmqlint.engine import LintOptions
    from rmqlint.reporters import render

    args = build_parser().parse_args(argv)
    options = LintOptions(
        paths=[Path(p) for p in args.paths] or [Path(".")],
        select=args.select,
        ignore=args.ignore,
        fail_on=args.fail_on,
        use_cache=not args.no_cache,
    )
    if args.unsafe_fixes and not (args.fix or args.diff):
        _emit_err("rmqlint: --unsafe-fixes goes with --fix or --diff")
        return 2
    if args.statistics and args.format not in ("text", "concise"):
        _emit_err(f"rmqlint: --statistics goes with the text formats, not --format {args.format}")
        return 2
    command = _command_meant(args.paths)
    if command:
        _emit_err(f"rmqlint: {args.paths[0]}: no such file or directory; did you mean 'rmqlint {command}'?")
        return 2
    if args.diff or args.fix or args.add_suppressions or args.baseline or args.write_baseline:
        from rmqlint.run import RunOptions, run

        run_options = RunOptions(fix=args.fix, unsafe_fixes=args.unsafe_fixes, diff=args.diff,
                                 add_suppressions=args.add_suppressions, baseline=args.baseline,
                                 write_baseline=None if args.diff else args.write_baseline)
        try:
            outcome = run(options, run_options, _emit_err)
        except (ConfigError, DiscoveryError, BaselineError) as err:
            _emit_lines("rmqlint", err)
            return 2
        if outcome.diff is not None:
            _emit_bytes(outcome.diff)
            return 1 if outcome.diff else 0
        result = outcome.result
    else:
        from rmqlint.engine import lint

        try:
            result = lint(options)
        except (ConfigError, DiscoveryError) as err:
            _emit_lines("rmqlint", err)
            return 2
    result.offers_fixes = True
    if args.statistics:
        from rmqlint.reporters.text import render_statistics

        _emit(render_statistics(result))
    else:
        _emit(render(args.format, result))
    return 1 if result.failed() and not args.exit_zero else 0


def _command_meant(paths: list[str]) -> str:
    """The command a first PATH that does not exist was meant to be (`rmqlint expain`), or ""."""
    from rmqlint.suggestions import closest

    if not paths or "/" in paths[0] or Path(paths[0]).exists():
        return ""
    found = closest(paths[0], ("rules", "explain", "graph"))
    return found[0] if found else ""


def _graph_command(argv: list[str]) -> int:
    from rmqlint.config import ConfigError
    from rmqlint.discover import DiscoveryError
    from rmqlint.engine import load_project
    from rmqlint.topology import FORMATS as GRAPH_FORMATS
    from rmqlint.topology import build_topology, render

    parser = _parser(prog="rmqlint graph", description="Print the topology the code and configuration describe: "
                     "producers -> topics and tags -> consumer groups -> services (build modules).")
    parser.add_argument("path", nargs="?", default=".", metavar="PATH")
    parser.add_argument("--format", choices=GRAPH_FORMATS, default="mermaid")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write .rmqlint_cache/")
    args = parser.parse_args(argv)
    path = Path(args.path)
    if not path.exists():
        _emit_err(f"rmqlint graph: {path}: no such file or directory")
        return 2
    try:
        project, under_path = load_project(path, use_cache=not args.no_cache)
    except (ConfigError, DiscoveryError) as err:
        _emit_lines("rmqlint graph", err)
        return 2
    graph = build_topology(project, _service_namer(Path(project.root)), only=under_path)
    text = render(graph, args.format)
    if args.output:
        return _write_atomically(args.output, text)
    _emit(text)
    return 0


def _service_namer(root: Path):
    from rmqlint.topology import module_directory

    """A file's service: its build module (artifactId, Gradle project, Python project), else its top directory."""
    from rmqplan.sources.buildfiles import read_build_files

    index = read_build_files(root)

    def service_of(path: str) -> str:
        module = index.module_of(str(root / path))
        if module is not None and Path(module.directory).resolve() != root.resolve():
            return module.name
        return module_directory(path)

    return service_of


def _write_atomically(target: str, text: str) -> int:
    from rmqlint.output import write_atomically

    try:
        write_atomically(target, text)
    except OSError as err:
        _emit_err(f"rmqlint graph: {target}: {err.strerror or err}")
        return 2
    return 0


def _rules_command(argv: list[str]) -> int:
    parser = _parser(prog="rmqlint rules", description="List the rules.")
    parser.parse_args(argv)
    from rmqlint.rules import ALL_RULES

    rows = [(r.CODE, r.NAME, r.severity_label(), r.SUMMARY) for r in ALL_RULES]
    header = ("CODE", "NAME", "SEVERITY", "SUMMARY")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = ["  ".join(cell.ljust(widths[i]) if i < 3 else cell for i, cell in enumerate(row)).rstrip()
             for row in [header, *rows]]
    _emit("\n".join(lines) + "\n")
    return 0


def _explain_command(argv: list[str]) -> int:
    parser = _parser(prog="rmqlint explain", description="Print a rule's documentation; without CODE, list the "
                     "codes.")
    parser.add_argument("code", nargs="?", metavar="CODE", help="a rule's code (RMQ001) or name (fixed-instance-name)")
    args = parser.parse_args(argv)
    from rmqlint.rules import ALL_RULES, rule_by_code
    from rmqlint.suggestions import closest

    if args.code is None:  # the codes, as `rmqplan explain` lists its own
        width = max(len(r.NAME) for r in ALL_RULES)
        severity = max(len(r.severity_label()) for r in ALL_RULES)
        _emit("".join(f"{r.CODE}  {r.NAME:<{width}}  {r.severity_label():<{severity}}  {r.SUMMARY}\n"
                      for r in ALL_RULES))
        return 0
    wanted = args.code.strip()
    rule = rule_by_code(wanted) or next((r for r in ALL_RULES if r.NAME == wanted.lower()), None)
    if rule is None:
        meant = closest(wanted, [*(r.CODE for r in ALL_RULES), *(r.NAME for r in ALL_RULES)], n=3)
        hint = f"did you mean {' or '.join(meant)}? " if meant else ""
        _emit_err(f"rmqlint explain: unknown rule {args.code!r} ({hint}'rmqlint explain' lists them)")
        return 2
    _emit(f"# {rule.CODE} {rule.NAME} ({rule.severity_label()})\n\n{rule.DOCS.strip()}\n")
    return 0


def _printable(text: str, stream) -> str:
    """`text` as `stream` can encode it: a character it cannot (a lone surrogate from a "\\ud800" escape in the
    source, a file name that is not UTF-8, CJK text on a Latin-1 terminal) is written as its escape, `\\ud800`,
    which is also how a JSON string spells it."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        try:
            return text.encode(encoding, "backslashreplace").decode(encoding)
        except LookupError:
            return text.encode("ascii", "backslashreplace").decode("ascii")


def _emit(text: str) -> None:
    """Write the whole output at once (a closed pipe or a full disk: `rmqlint.output`)."""
    sys.stdout.write(_printable(text, sys.stdout))
    sys.stdout.flush()


def _emit_bytes(data: bytes) -> None:
    """A patch, byte for byte (files in any encoding, with their own line ends; errors: `rmqlint.output`)."""
    sys.stdout.write_bytes(data)


def _emit_lines(prog: str, err: Exception) -> None:
    """An error of several lines (a configuration's every problem, `lines`), each as `PROG: line`: the first
    ERROR_LIMIT of them, and how many more there are."""
    from rmqlint.output import first_errors

    for line in first_errors(list(getattr(err, "lines", None) or [str(err)])):
        _emit_err(f"{prog}: {line}")


def _emit_err(text: str) -> None:
    """One message line on stderr; names in it (paths, keys, values from the project) shown by `printable`."""
    from rmqlint.printable import printable

    try:
        sys.stderr.write(_printable(printable(text) + "\n", sys.stderr))
        sys.stderr.flush()
    except BrokenPipeError:
        pass


if __name__ == "__main__":
    sys.exit(main())

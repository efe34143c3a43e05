"""Settings: `[tool.rmqlint]` in pyproject.toml, or top-level keys in `.rmqlint.toml` (which wins when both
exist), at the project root. Command-line options override them key by key.

Keys: `select`, `ignore` (lists of codes or code prefixes such as "RMQ0"), `exclude` (gitignore-style globs
relative to the root), `fail-on` ("error" | "warning" | "info"), `tests` ("quiet": in test sources only the rules
that matter there, hard-coded credentials; "lint": test sources like any other). Anything else is a
configuration error: one line per problem, every problem of the file at once, each naming the file as the user
can open it from the current directory (relative to it, or absolute outside it) and the key; exit 2.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from rmqlint.findings import SEVERITIES
from rmqlint.suggestions import did_you_mean

DEFAULT_FAIL_ON = "warning"  # errors and warnings fail a build; info notes (unparseable files) do not
TESTS_MODES = ("quiet", "lint")
DEFAULT_TESTS = "quiet"  # test code fakes groups, names and failures on purpose
_SELECTOR = re.compile(r"^[A-Z]+[0-9]*$")


class ConfigError(Exception):
    """Configuration problems, each already phrased as the line the user sees (`lines`; str() joins them)."""

    def __init__(self, *lines: str):
        super().__init__("\n".join(lines))
        self.lines = list(lines)


def shown(path: Path) -> str:
    """`path` as the user opens it from the current directory: relative to it, or absolute outside it."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive
        return absolute
    return absolute if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


@dataclass
class Settings:
    select: list[str] | None = None  # None: every rule
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    fail_on: str = DEFAULT_FAIL_ON
    tests: str = DEFAULT_TESTS  # how test sources are linted: "quiet" | "lint"
    source: str = ""  # the file the settings came from, for messages

    def enabled(self, code: str) -> bool:
        if self.select is not None and not any(_matches(code, s) for s in self.select):
            return False
        return not any(_matches(code, s) for s in self.ignore)


def _matches(code: str, selector: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def load_settings(root: Path, known_codes: set[str], cache=None) -> Settings:
    """The settings of the project at `root`. `cache` (a FactsCache) spares a warm run the TOML parser."""
    dedicated = root / ".rmqlint.toml"
    if dedicated.is_file():
        table = _read_toml(dedicated, cache, lambda doc: doc)
        return _settings_from(table, shown(dedicated), "", known_codes)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = _read_toml(pyproject, cache, _rmqlint_section).get("tool", {})
        if not isinstance(table, dict) or "rmqlint" not in table:
            return Settings()
        section = table["rmqlint"]
        if not isinstance(section, dict):
            raise ConfigError(f"{shown(pyproject)}: [tool.rmqlint] must be a table")
        return _settings_from(section, shown(pyproject), "tool.rmqlint.", known_codes)
    return Settings()


def _rmqlint_section(doc: dict) -> dict:
    """The part of pyproject.toml that matters (and the only part worth caching)."""
    tool = doc.get("tool")
    if isinstance(tool, dict) and "rmqlint" in tool:
        return {"tool": {"rmqlint": tool["rmqlint"]}}
    return {}


def _read_toml(path: Path, cache=None, keep=lambda doc: doc) -> dict:
    try:
        st = os.stat(path)
    except OSError as err:
        raise ConfigError(f"{shown(path)}: cannot read: {err.strerror or err}") from None
    if cache is not None:
        table = cache.settings_table(path.name, st)
        if table is not None:
            return table

    import tomllib  # only projects with a settings file pay for the parser, and only when it changed

    from rmqlint import bounded_toml

    try:
        table = keep(bounded_toml.load(path))
    except bounded_toml.TomlRefused as err:
        raise ConfigError(f"{shown(path)}{f':{err.line}' if err.line else ''}: {err.reason}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{shown(path)}: invalid TOML: {err}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{shown(path)}: cannot read: {err}") from None
    if cache is not None:
        cache.remember_settings(path.name, st, table)
    return table


_KEYS = ("select", "ignore", "exclude", "fail-on", "tests")


def _settings_from(table: dict, source: str, prefix: str, known_codes: set[str]) -> Settings:
    """The settings of one file's table; every problem of it at once (ConfigError)."""
    settings = Settings(source=source)
    problems: list[str] = []
    for key, value in table.items():
        where = f"{source}: {prefix}{key}"
        try:
            if key == "select":
                settings.select = parse_codes(_string_list(value, where), known_codes, where)
            elif key == "ignore":
                settings.ignore = parse_codes(_string_list(value, where), known_codes, where)
            elif key == "exclude":
                settings.exclude = _string_list(value, where)
            elif key in ("fail-on", "fail_on"):
                settings.fail_on = parse_severity(value, where)
            elif key == "tests":
                if value not in TESTS_MODES:
                    got = repr(value) if isinstance(value, str) else _toml_type(value)
                    raise ConfigError(f"{where}: expected one of {', '.join(TESTS_MODES)}, got {got}")
                settings.tests = value
            else:
                hint = did_you_mean(key, _KEYS)
                raise ConfigError(f"{where}: unknown key; {hint}" if hint else
                                  f"{where}: unknown key (expected one of: {', '.join(_KEYS)})")
        except ConfigError as err:
            problems += err.lines
    if problems:
        raise ConfigError(*problems)
    return settings


def _string_list(value, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {_toml_type(value)}")
    return list(value)


def parse_codes(selectors: list[str], known_codes: set[str], where: str) -> list[str]:
    """Validate code selectors: a full code, a prefix of at least one known code, or ALL."""
    out, unknown = [], []
    for raw in selectors:
        selector = raw.strip().upper()
        if not selector:
            continue
        if not _SELECTOR.match(selector) or (
            selector != "ALL" and not any(code.startswith(selector) for code in known_codes)
        ):
            unknown.append(f"{where}: unknown rule code or prefix {raw.strip()!r}")
        out.append(selector)
    if unknown:
        raise ConfigError(*unknown)
    return out


def parse_severity(value, where: str) -> str:
    if not isinstance(value, str) or value not in SEVERITIES:
        shown = repr(value) if isinstance(value, str) else _toml_type(value)
        raise ConfigError(f"{where}: expected one of {', '.join(reversed(SEVERITIES))}, got {shown}")
    return value


def _toml_type(value) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)

"""Python projects: the RocketMQ client package a directory installs, from `requirements*.txt` and
`pyproject.toml`, parsed with `packaging`.

- `requirements*.txt` (not the dev/test/lint/docs ones): pip's logical lines (`\\` continuations joined, comments
  and per-requirement options such as `--hash` dropped), `-r other.txt` followed, and `-c constraints.txt` pins
  applied to an unpinned requirement, as pip applies them.
- `pyproject.toml`: `[project] dependencies` (PEP 621) and Poetry's `[tool.poetry.dependencies]` and non-dev
  groups; the lock file beside it (`poetry.lock`, `uv.lock`, `pdm.lock`) gives the version the tool installs.
- A `==` pin (or `===`) is one release; any other specifier is unknown: which release pip takes depends on the
  day it runs.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from rmqlint import bounded_toml
from rmqplan.sources.buildfiles.module import (
    PYTHON_PACKAGES,
    ClientDependency,
    Module,
    directory_name,
    read_build_text,
)
from rmqplan.sources.origin import Origin, SourceProblem

LOCK_FILES = ("poetry.lock", "uv.lock", "pdm.lock")
# A lock file is read whole, but only its client packages' tables are parsed (`_client_packages`): the lock of a big
# project is megabytes of other packages, more than TOML's parser should be given (rmqlint.bounded_toml).
LOCK_READ = bounded_toml.Limits(max_bytes=32 * 1024 * 1024, max_names=None)
_TABLE_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([^\]\n]*?)[ \t]*\]", re.MULTILINE)
_PACKAGE_NAME = re.compile(r"""^[ \t]*name[ \t]*=[ \t]*["']([^"'\n]*)["']""", re.MULTILINE)
NOT_PRODUCTION = ("dev", "test", "lint", "doc", "ci", "typing", "bench")
MAX_INCLUDES = 32


def is_production_requirements(name: str) -> bool:
    """`requirements.txt`, `requirements-prod.txt`: yes; `requirements-dev.txt`, `requirements_test.txt`: no."""
    if not (name.startswith("requirements") and name.endswith(".txt")):
        return False
    words = name[len("requirements"):-len(".txt")].replace("_", "-").replace(".", "-").split("-")
    return not any(w.startswith(NOT_PRODUCTION) for w in words if w)


def _pin(req: Requirement) -> tuple[Optional[str], str]:
    if req.url:
        return None, f"installed from {req.url}"
    pins = [s.version for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    if len(set(pins)) == 1:
        return pins[0], ""
    if pins:
        return None, f"contradictory pins ({req.specifier})"
    return None, f"the requirement {str(req.specifier) or 'has no version'}: pip decides at install time"


def _client(spec: str) -> Optional[Requirement]:
    try:
        req = Requirement(spec)
    except InvalidRequirement:
        return None
    return req if canonicalize_name(req.name) in PYTHON_PACKAGES else None


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """pip's logical lines with the number of their first physical line: continuations joined, comments dropped."""
    out: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw
        if line.lstrip().startswith("#"):
            line = ""
        elif " #" in line or "\t#" in line:
            line = line[:min(i for i in (line.find(" #"), line.find("\t#")) if i >= 0)]
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        pending += line
        if pending.strip():
            out.append((start, pending.strip()))
        pending = ""
    if pending.strip():
        out.append((start, pending.strip()))
    return out


def _requirements_file(path: Path, problems: list[SourceProblem], seen: set[Path],
                       constraints: dict[str, tuple[str, Origin]]) -> list[tuple[Requirement, Origin]]:
    """The client requirements of one file and of the files it includes; its constraints into `constraints`."""
    key = path.resolve()
    if key in seen or len(seen) > MAX_INCLUDES:
        return []
    seen.add(key)
    text = read_build_text(path, problems)
    if text is None:
        return []
    found: list[tuple[Requirement, Origin]] = []
    for number, line in _logical_lines(text):
        origin = Origin(str(path), number)
        words = line.split()
        option = words[0]
        if option in ("-r", "--requirement", "-c", "--constraint") or option.startswith(
                ("--requirement=", "--constraint=")):
            target = words[1] if "=" not in option and len(words) > 1 else option.partition("=")[2]
            included = path.parent / target
            if not included.is_file():
                problems.append(SourceProblem(origin, f"{option} {target}: no such file"))
                continue
            if option.startswith(("-c", "--constraint")):
                for req, where in _requirements_file(included, problems, seen, constraints):
                    version, _ = _pin(req)
                    if version is not None:
                        constraints[canonicalize_name(req.name)] = (version, where)
            else:
                found += _requirements_file(included, problems, seen, constraints)
            continue
        if option.startswith("-"):
            continue
        spec = line.split(" --", 1)[0].strip()  # per-requirement options: --hash=..., --config-settings
        req = _client(spec)
        if req is not None:
            found.append((req, origin))
    return found


def _merge(found: list[tuple[Requirement, Origin]], constraints: dict[str, tuple[str, Origin]],
           locked: dict[str, tuple[str, Origin]], lock_name: str) -> list[ClientDependency]:
    """One dependency per package: pinned, constrained, locked or unknown; contradicting pins are unknown."""
    out = []
    for package in PYTHON_PACKAGES:
        entries = [(req, origin) for req, origin in found if canonicalize_name(req.name) == package]
        if not entries:
            continue
        pins = {}
        reasons = []
        for req, origin in entries:
            version, why = _pin(req)
            if version is not None:
                pins.setdefault(version, origin)
            else:
                reasons.append(why)
        first = entries[0][1]
        if len(pins) > 1:
            shown = ", ".join(f"{v} at {o}" for v, o in pins.items())
            out.append(ClientDependency(package, None, f"pinned differently ({shown})", first))
        elif package in locked:
            version, where = locked[package]
            out.append(ClientDependency(package, version, "", first, where, f"the lock file {lock_name}"))
        elif pins:
            (version, origin), = pins.items()
            out.append(ClientDependency(package, version, "", origin, origin))
        elif package in constraints:
            version, where = constraints[package]
            out.append(ClientDependency(package, version, "", first, where, f"the constraint at {where}"))
        else:
            out.append(ClientDependency(package, None, reasons[0], first))
    return out


def read_requirements(path: Path, problems: list[SourceProblem]) -> list[ClientDependency]:
    """The client packages one requirements file (and what it includes) installs."""
    constraints: dict[str, tuple[str, Origin]] = {}
    found = _requirements_file(path, problems, set(), constraints)
    return _merge(found, constraints, {}, "")


def _lock(directory: Path) -> tuple[dict[str, tuple[str, Origin]], str]:
    """package -> (version, line) from the project's lock file, if it has one."""
    for name in LOCK_FILES:
        path = directory / name
        if not path.is_file():
            continue
        try:
            text = bounded_toml.read(path, LOCK_READ).decode("utf-8")
            data = bounded_toml.loads(_client_packages(text))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, bounded_toml.TomlRefused):
            return {}, ""
        rows = text.splitlines()
        out = {}
        for package in data.get("package") or []:
            if not isinstance(package, dict) or not isinstance(package.get("version"), str):
                continue
            name_value = canonicalize_name(str(package.get("name", "")))
            if name_value in PYTHON_PACKAGES:
                line = next((i for i, row in enumerate(rows, 1)
                             if row.replace(" ", "") in (f'name="{package["name"]}"',)), 0)
                out[name_value] = (package["version"], Origin(str(path), line + 1 if line else 0))
        return out, str(path)
    return {}, ""


def _client_packages(text: str) -> str:
    """The `[[package]]` tables of a lock file whose name is a client package's, each with the `[package.*]` tables
    that follow it, as a TOML text of their own."""
    headers = list(_TABLE_HEADER.finditer(text))
    kept: list[str] = []
    keeping = False
    for header, following in zip(headers, [*headers[1:], None]):
        table = text[header.start(): following.start() if following is not None else len(text)]
        key = header.group(1).replace(" ", "")
        if key == "package":
            name = _PACKAGE_NAME.search(table)
            keeping = name is not None and canonicalize_name(name.group(1)) in PYTHON_PACKAGES
        elif not key.startswith("package."):
            keeping = False
        if keeping:
            kept.append(table)
    return "".join(kept)


def _poetry_spec(name: str, constraint) -> Optional[str]:
    """A Poetry constraint as a PEP 508 requirement: "2.0.0" and "==2.0.0" are pins; "^2.0" and the rest are not."""
    version = constraint.get("version") if isinstance(constraint, dict) else constraint
    if not isinstance(version, str):
        return f"{name}"
    version = version.strip()
    if version[:1].isdigit() and not any(c in version for c in "*,<>"):
        return f"{name}=={version}"
    if version.startswith(("^", "~")) and not version.startswith("~="):
        return f"{name}>={version.lstrip('^~')}"  # a range: not a pin
    return f"{name}{version}" if version != "*" else name


def read_pyproject(path: Path, problems: list[SourceProblem]) -> Optional[Module]:
    text = read_build_text(path, problems)
    if text is None:
        return None
    try:
        data = bounded_toml.loads(text)
    except bounded_toml.TomlRefused as err:
        problems.append(SourceProblem(Origin(str(path), err.line), err.reason))
        return None
    except tomllib.TOMLDecodeError as err:
        problems.append(SourceProblem(Origin(str(path)), f"invalid TOML: {err}"))
        return None
    rows = text.splitlines()

    def line_of(*needles: str) -> int:
        return next((i for i, row in enumerate(rows, 1) if any(n in row for n in needles)), 0)

    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    if "project" not in data and "poetry" not in tool:
        return None  # settings only (a [tool.rmqplan] or [tool.rmqlint] table): it builds nothing
    name = project.get("name") or poetry.get("name")
    name_origin = Origin(str(path), line_of(f'"{name}"', f"'{name}'") if isinstance(name, str) else 0)
    if not isinstance(name, str) or not name:
        name = directory_name(path.parent)
    module = Module(str(path.parent), str(path), name, name_origin, build_system="python")
    found: list[tuple[Requirement, Origin]] = []
    for spec in project.get("dependencies") or []:
        req = _client(spec) if isinstance(spec, str) else None
        if req is not None:
            found.append((req, Origin(str(path), line_of(f'"{spec}"', f"'{spec}'"))))
    tables = [poetry.get("dependencies")]
    groups = poetry.get("group") if isinstance(poetry.get("group"), dict) else {}
    tables += [g.get("dependencies") for n, g in groups.items()
               if isinstance(g, dict) and not n.lower().startswith(NOT_PRODUCTION)]
    for table in tables:
        for dep_name, constraint in (table or {}).items() if isinstance(table, dict) else ():
            spec = _poetry_spec(dep_name, constraint)
            req = _client(spec) if spec else None
            if req is not None:
                found.append((req, Origin(str(path), line_of(f"{dep_name} =", f'"{dep_name}" ='))))
    locked, lock_name = _lock(path.parent)
    module.dependencies = _merge(found, {}, locked, lock_name)
    return module
